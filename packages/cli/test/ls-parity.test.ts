/**
 * `chunkform ls` against the real h5ls (Debian hdf5-tools 1.10.8) on the dense files h5py writes
 * (fixtures/make_dump_corpus.py): equal text for -r, -v, -d, -S and their combinations.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.js';

const PY = '/usr/bin/python3';
const CORPUS = fileURLToPath(new URL('./fixtures/make_dump_corpus.py', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-ls-parity-'));
  execFileSync(PY, [CORPUS, dir]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ours(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['ls', ...args], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stdout, stderr };
}

const OPTIONS = [[], ['-r'], ['-v'], ['-r', '-v'], ['-d'], ['-r', '-v', '-d'], ['-d', '-S'], ['-r', '-v', '-d', '-S']];

describe('ls output equals h5ls 1.10.8', () => {
  for (const name of ['numeric', 'chunked', 'strings', 'compound']) {
    for (const args of OPTIONS) {
      it(`${name}.h5 ${args.join(' ')}`, async () => {
        const file = join(dir, `${name}.h5`);
        const r = await ours([...args, file]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const ref = spawnSync('h5ls', [...args, file], { encoding: 'utf8' });
        expect(r.stdout).toBe(ref.stdout);
      });
    }
  }

  it('-f (member paths) and -g (the group itself), on the root, a group and a dataset', async () => {
    const file = join(dir, 'links.h5');
    for (const args of [['-f'], ['-g'], ['-f', '-g'], ['-f', '-v'], ['-g', '-v'], ['-f', '-r']]) {
      // -r below the root names objects by full path (a deliberate difference, docs/cli.md)
      for (const p of args.includes('-r') ? [''] : ['', '/g', '/a']) {
        const r = await ours([...args, file, ...(p ? [p] : [])]);
        expect(r.code, `${args.join(' ')} ${p}`).toBe(0);
        expect(r.stdout, `${args.join(' ')} ${p}`).toBe(spawnSync('h5ls', [...args, `${file}${p}`], { encoding: 'utf8' }).stdout);
      }
    }
    const both = await ours(['-g', '-r', file]);
    expect(both.code).toBe(2);
  });

  it('a dataset path and a group path', async () => {
    const file = join(dir, 'chunked.h5');
    for (const p of ['/data/gzip', '/data']) {
      const r = await ours(['-v', file, p]);
      expect(r.stdout).toBe(spawnSync('h5ls', ['-v', `${file}${p}`], { encoding: 'utf8' }).stdout);
    }
  });
});
