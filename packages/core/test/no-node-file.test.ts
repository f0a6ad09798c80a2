/**
 * Opening by path outside Node: the `#node-file` import's browser stand-in (io/no-node-file.ts) has no
 * store, and `nodeStore` refuses the path with an InvalidStateError naming it.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('#node-file', () => import('../src/io/no-node-file.js'));

describe('#node-file browser stand-in', () => {
  it('refuses paths with an InvalidStateError naming the path', async () => {
    const { nodeStore } = await import('../src/objects/read-file.js');
    const { InvalidStateError } = await import('../src/errors.js');
    const p = nodeStore('/data/scan.h5', 'r');
    await expect(p).rejects.toBeInstanceOf(InvalidStateError);
    await expect(p).rejects.toThrow('cannot open "/data/scan.h5" by path outside Node; pass a ByteSource, a Blob reader or the file\'s bytes');
  });
});
