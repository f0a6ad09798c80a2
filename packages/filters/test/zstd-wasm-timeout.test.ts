/**
 * A zstd WebAssembly module that never finishes loading (a bundle whose `zstd.wasm` 404s makes the
 * Emscripten loader abort without rejecting) must not hang reads: loading gives up after the time limit,
 * decoding falls back to fzstd, and compression fails with a typed error; a module that arrives late is
 * still taken.
 */
import { describe, expect, it, vi } from 'vitest';
import { FilterError } from '@chunkform/core';

/** The mocked module: `init` never settles unless a test sets `state.loadAfterMs`. */
const { init, state } = vi.hoisted(() => {
  const state = { loadAfterMs: -1, ready: false };
  const init = vi.fn(
    (_url?: string) =>
      new Promise<void>((resolve) => {
        if (state.loadAfterMs >= 0) setTimeout(() => ((state.ready = true), resolve()), state.loadAfterMs);
      }),
  );
  return { init, state };
});
vi.mock('@bokuweb/zstd-wasm', () => {
  const mod = {
    init,
    compress: (data: Uint8Array) => {
      if (!state.ready) throw new Error('not initialised');
      return Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, data.length, 1 | (data.length << 3), (data.length << 3) >> 8, 0, ...data]);
    },
    decompress: () => {
      throw new Error('not initialised');
    },
  };
  return { ...mod, default: mod };
});

const { configureZstdWasm, zstdDecode, zstdEncode } = await import('../src/zstd/index.js');

/** One zstd frame holding `data` as a single raw block (format: RFC 8878 §3.1.1). */
function rawFrame(data: Uint8Array): Uint8Array {
  const blockHeader = 1 | (data.length << 3); // last block, raw, size
  return Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, data.length, blockHeader & 0xff, (blockHeader >> 8) & 0xff, blockHeader >> 16, ...data]);
}

describe('zstd WebAssembly loading with a time limit', () => {
  it('falls back to fzstd for decoding and fails compression with a typed error', async () => {
    configureZstdWasm({ timeoutMs: 50, url: 'https://example.invalid/zstd.wasm' });
    const data = Uint8Array.from({ length: 100 }, (_, i) => i);
    const decoded = await zstdDecode(rawFrame(data));
    expect(Array.from(decoded)).toEqual(Array.from(data));
    expect(init).toHaveBeenCalledWith('https://example.invalid/zstd.wasm');
    // remembered: the next decode is synchronous through fzstd
    const again = zstdDecode(rawFrame(data));
    expect(again).toBeInstanceOf(Uint8Array);
    await expect(Promise.resolve().then(() => zstdEncode(data, 3))).rejects.toThrow(FilterError);
    await expect(Promise.resolve().then(() => zstdEncode(data, 3))).rejects.toThrow(/did not finish within 50 ms/);
  });

  it('takes a module that loads after the time limit: compression works again', async () => {
    state.loadAfterMs = 80;
    configureZstdWasm({ timeoutMs: 20 });
    const data = Uint8Array.from({ length: 50 }, (_, i) => 255 - i);
    expect(Array.from(await zstdDecode(rawFrame(data)))).toEqual(Array.from(data)); // fzstd, after 20 ms
    await expect(Promise.resolve().then(() => zstdEncode(data, 3))).rejects.toThrow(/did not finish within 20 ms/);
    await new Promise((r) => setTimeout(r, 120));
    const frame = await zstdEncode(data, 3); // the (mocked) module compresses now
    expect(Array.from(frame)).toEqual(Array.from(rawFrame(data)));
  });
});
