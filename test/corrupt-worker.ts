/**
 * Child process of corrupt.test.ts (run with `node --import tsx`): applies mutations to one fixture
 * file's bytes and fully walks each mutated file with chunkform, reporting every outcome over IPC.
 * Runs out of process so that a synchronous hang or a crash can be detected and attributed.
 *
 * Parent → child: { file: string, mutations: Mutation[], start: number }
 * Child → parent: { type: 'start', i } before each mutation, { type: 'result', i, outcome, ... } after it,
 *                 { type: 'done' } at the end.
 */
import { readFileSync } from 'node:fs';
import { H5Error, openFile } from '../packages/core/src/index.js';
import { mutate, type Mutation, type Outcome } from './oracle/mutations.js';

const TIMEOUT_MS = 5000;
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
async function walk(bytes: Uint8Array): Promise<unknown[]> {
  const errors: unknown[] = [];
  const attempt = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (e) {
      errors.push(e);
      return undefined;
    }
  };
  const f = await attempt(() => openFile(bytes));
  if (!f) return errors;
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
  await attempt(() => f.close());
  return errors;
}

function classify(i: number, errors: unknown[]): Outcome {
  const bad = errors.find((e) => !(e instanceof H5Error));
  const e = bad ?? errors[0];
  if (e === undefined) return { i, outcome: 'ok' };
  const err = e instanceof Error ? e : new Error(String(e));
  return {
    i,
    outcome: bad !== undefined ? 'bad' : 'h5error',
    errorName: e instanceof Error ? e.constructor.name : typeof e,
    message: err.message.slice(0, 300),
    ...(bad !== undefined ? { stack: (err.stack ?? '').split('\n').slice(0, 8).join('\n') } : {}),
  };
}

async function run(file: string, mutations: Mutation[], start: number): Promise<void> {
  const orig = new Uint8Array(readFileSync(file));
  const send = (msg: unknown): Promise<void> => new Promise((res) => process.send!(msg, () => res()));
  for (let i = start; i < mutations.length; i++) {
    await send({ type: 'start', i });
    const bytes = mutate(orig, mutations[i]!);
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<'hang'>((res) => {
      timer = setTimeout(() => res('hang'), TIMEOUT_MS);
    });
    const r = await Promise.race([walk(bytes), hang]);
    clearTimeout(timer);
    await send({ type: 'result', ...(r === 'hang' ? { i, outcome: 'hang' } : classify(i, r)) });
  }
  await send({ type: 'done' });
}

process.on('message', (msg: { file: string; mutations: Mutation[]; start: number }) => {
  run(msg.file, msg.mutations, msg.start).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`corrupt-worker failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
});
