/**
 * Child process of corrupt.test.ts (run with `node --import tsx`): applies mutations to one fixture
 * file's bytes and fully walks each mutated file with chunkform, reporting every outcome over IPC.
 * Runs out of process so that a synchronous hang or a crash can be detected and attributed (protocol
 * of test/oracle/corrupt-harness.ts, child side in test/oracle/corrupt-worker-common.ts).
 */
import { applyChunkedMutation, type ChunkedMutation } from './oracle/chunked-mutations.js';
import { serveMutations, walkFile } from './oracle/corrupt-worker-common.js';

const MAX_OBJECTS = 5000;
const MAX_DEPTH = 24;

type Node = {
  kind?: string;
  keys?: () => Promise<string[]>;
  getLink?: (n: string) => Promise<{ kind: string; address?: number }>;
  get?: (n: string) => Promise<unknown>;
  read?: () => Promise<unknown>;
  attrs?: { keys(): Promise<string[]>; get(n: string): Promise<unknown> };
  fillValue?: unknown;
};

/** Opens `bytes` and visits every group, link, attribute and dataset value; returns every error thrown. */
function walk(bytes: Uint8Array): Promise<unknown[]> {
  return walkFile(bytes, async (f, attempt) => {
    const seen = new Set<number>();
    let visited = 0;
    const visitAttrs = async (n: Node): Promise<void> => {
      const names = await attempt(() => n.attrs!.keys());
      for (const a of names ?? []) await attempt(() => n.attrs!.get(a));
    };
    const visit = async (g: Node, depth: number): Promise<void> => {
      await visitAttrs(g);
      const names = (await attempt(() => g.keys!())) ?? [];
      for (const name of names) {
        if (++visited > MAX_OBJECTS) return;
        const link = await attempt(() => g.getLink!(name));
        if (link?.kind === 'hard' && link.address !== undefined) {
          if (seen.has(link.address)) continue;
          seen.add(link.address);
        }
        const child = (await attempt(() => g.get!(name))) as Node | undefined;
        if (!child || child.kind === 'external') continue;
        if (typeof child.read === 'function') {
          await visitAttrs(child);
          await attempt(() => child.read!());
          if (typeof child.fillValue === 'function') await attempt(() => (child.fillValue as () => Promise<unknown>).call(child));
        } else if (typeof child.keys === 'function' && depth < MAX_DEPTH) {
          await visit(child, depth + 1);
        } else if (child.attrs) {
          await visitAttrs(child);
        }
      }
    };
    await visit(f as unknown as Node, 0);
  });
}

serveMutations<ChunkedMutation>({ name: 'corrupt-worker', apply: applyChunkedMutation, walk });
