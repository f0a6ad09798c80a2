/**
 * `chunkform dump` against the real h5dump (Debian hdf5-tools 1.10.8) on dense files h5py writes
 * (fixtures/make_dump_corpus.py): the text must be equal, byte for byte, for every option set below.
 * Deliberate differences are listed in docs/cli.md and are not exercised here.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';

const PY = '/usr/bin/python3';
const CORPUS = fileURLToPath(new URL('./fixtures/make_dump_corpus.py', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-dump-parity-'));
  execFileSync(PY, [CORPUS, dir]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ours(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['dump', ...args], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stdout, stderr };
}

function h5dump(args: string[]): string {
  const r = spawnSync('h5dump', args, { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

const CASES: [file: string, args: string[]][] = [
  ['numeric', []],
  ['numeric', ['-p']],
  ['numeric', ['-w', '33']],
  ['numeric', ['-w', '0']],
  ['numeric', ['-y']],
  ['numeric', ['-m', '%.3f']],
  ['numeric', ['-m', '%.10e', '-w', '120']],
  ['numeric', ['-d', '/i32', '-s', '0,1,1', '-c', '2,2,2']],
  ['numeric', ['-d', '/wide', '-s', '0,1', '-S', '1,3', '-c', '2,4', '-k', '1,2']],
  ['numeric', ['-d', '/u16', '-c', '2,2']],
  ['numeric', ['-a', '/scale']],
  ['chunked', []],
  ['chunked', ['-p']],
  ['chunked', ['-p', '-H']],
  ['chunked', ['-A']],
  ['chunked', ['-g', '/data/sub']],
  ['chunked', ['-d', '/data/gzip', '-d', '/data/ext']],
  ['chunked', ['-a', '/data/sub/note']],
  ['strings', []],
  ['strings', ['-e']],
  ['compound', []],
  ['compound', ['-p', '-y']],
  ['links', []],
  ['links', ['-n']],
  ['links', ['-n', '1']],
  ['links', ['--contents']],
  ['links', ['-t', '/t']],
  ['links', ['-l', '/soft']],
  ['links', ['-l', '/ext']],
  ['chunked', ['-n']],
];

describe('dump output equals h5dump 1.10.8', () => {
  for (const [name, args] of CASES) {
    it(`${name}.h5 ${args.join(' ')}`, async () => {
      const file = join(dir, `${name}.h5`);
      const r = await ours([...args, file]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(h5dump([...args, file]));
    });
  }

  it('-b LE|BE|FILE -o writes the bytes h5dump writes, and the same DDL', async () => {
    const file = join(dir, 'numeric.h5');
    for (const order of ['LE', 'BE', 'FILE']) {
      for (const ds of ['/i16be', '/i32', '/f64']) {
        const a = join(dir, `ours-${order}.bin`);
        const b = join(dir, `ref-${order}.bin`);
        const r = await ours(['-d', ds, '-b', order, '-o', a, file]);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(h5dump(['-d', ds, '-b', order, '-o', b, file]));
        expect(readFileSync(a).equals(readFileSync(b)), `${ds} ${order}`).toBe(true);
      }
    }
  });

  it('-o FILE writes the data lines to FILE as h5dump does', async () => {
    const file = join(dir, 'numeric.h5');
    const a = join(dir, 'ours.txt');
    const b = join(dir, 'ref.txt');
    const r = await ours(['-d', '/wide', '-o', a, file]);
    expect(r.stdout).toBe(h5dump(['-d', '/wide', '-o', b, file]));
    expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
  });
});

describe('dump usage errors', () => {
  it('exit 2 with one line for a bad subset, width, -m or -b without -o', async () => {
    const file = join(dir, 'numeric.h5');
    for (const args of [
      ['-d', '/i32', '-s', '0,1', file],
      ['-d', '/i32', '-c', '9,9,9', file],
      ['-w', 'abc', file],
      ['-m', '%d', file],
      ['-b', 'LE', file],
      ['-s', '1', file, '--json', '-b'],
    ]) {
      const r = await ours(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^chunkform: [^\n]+\n$/);
    }
  });
});
