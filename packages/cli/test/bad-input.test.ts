/**
 * Bad input to every subcommand (issue #12): unknown options, missing and non-HDF5 files, truncated
 * files, missing objects, bad option values and bad inputs of import → exit code 2 (usage) or 1
 * (file or data), one clear line on stderr, no stack trace; commands that write a file write nothing
 * when they fail. (h5diff's convention is kept for diff: every error exits 2.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './support/run-cli.js';

const BIN = fileURLToPath(new URL('../bin/chunkform.js', import.meta.url));
let dir: string;
let good: string;
let junk: string;
let truncated: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-bad-input-'));
  good = join(dir, 'good.h5');
  junk = join(dir, 'junk.h5');
  truncated = join(dir, 'truncated.h5');
  execFileSync('/usr/bin/python3', [
    '-c',
    `import h5py, numpy as np, sys
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('a', data=np.arange(4096, dtype='<u2').reshape(64, 64), chunks=(16, 16), compression='gzip')
    f.create_group('g')['b'] = np.arange(5.0)`,
    good,
  ]);
  writeFileSync(junk, 'this is not an HDF5 file at all, just some text.\n'.repeat(40));
  writeFileSync(truncated, readFileSync(good).subarray(0, 3000));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command failed with `code` and said so in exactly one line, without a stack trace. */
function oneLine(r: { code: number; stderr: string }, code: number | number[], what: string): void {
  expect(Array.isArray(code) ? code : [code], `${what}: exit ${r.code}, stderr ${r.stderr}`).toContain(r.code);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, what).toHaveLength(1);
  expect(lines[0], what).toMatch(/^chunkform( diff)?: /);
  expect(r.stderr, what).not.toMatch(/\n\s+at /);
  expect(lines[0]!.length, what).toBeLessThan(300);
}

/** Every subcommand with `input` (an HDF5 file) in its usual place; `out` is its output file, if any. */
function commands(input: string, out: string): [string, string[]][] {
  return [
    ['ls', ['ls', '-r', input]],
    ['dump', ['dump', input]],
    ['dump --json', ['dump', '--json', input]],
    ['stat', ['stat', input]],
    ['diff', ['diff', input, good]],
    ['repack', ['repack', '-q', input, out]],
    ['copy', ['copy', '-q', '-i', input, '-o', out, '-s', '/a', '-d', '/a']],
  ];
}

describe('bad input: exit code and one line on stderr', () => {
  it('an unknown option, for every subcommand', async () => {
    const out = join(dir, 'unknown-option.h5');
    for (const [name, args] of [...commands(good, out), ['import', ['import', good, out]] as [string, string[]]]) {
      const r = await cli(...args.slice(0, 1), '--no-such-option', ...args.slice(1));
      oneLine(r, 2, name);
      expect(r.stderr, name).toContain("unknown option '--no-such-option'");
      expect(existsSync(out), name).toBe(false);
    }
  });

  for (const [label, file, diffCode] of [
    ['a missing file', 'missing.h5', 2],
    ['a file that is not HDF5', 'junk.h5', 2],
    ['a truncated file', 'truncated.h5', 2],
  ] as const) {
    it(`${label}, for every subcommand (nothing written)`, async () => {
      const out = join(dir, `out-${file}`);
      for (const [name, args] of commands(join(dir, file), out)) {
        const r = await cli(...args);
        oneLine(r, name === 'diff' ? diffCode : 1, `${name} on ${label}`);
        expect(existsSync(out), name).toBe(false);
      }
      const imp = await cli('import', '--dtype', '<u2', join(dir, file), out);
      expect(imp.code, `import of ${label}`).toBe(file === 'missing.h5' ? 1 : 0); // raw bytes import: any file is data
      rmSync(out, { force: true });
    });
  }

  it('a missing object', async () => {
    const out = join(dir, 'missing-object.h5');
    const cases: [string, string[], number | number[]][] = [
      ['ls', ['ls', good, '/nope'], 1],
      ['dump -d', ['dump', '-d', '/nope', good], 1],
      ['dump -t', ['dump', '-t', '/nope', good], 1],
      ['dump -l', ['dump', '-l', '/nope', good], 1],
      ['dump --json', ['dump', '--json', good, '/nope'], 1],
      ['diff', ['diff', good, good, '/nope', '/a'], 2],
      ['repack -l', ['repack', '-q', '-l', 'nope:CHUNK=2x2', good, out], 1],
      ['copy -s', ['copy', '-q', '-i', good, '-o', out, '-s', '/nope', '-d', '/x'], 1],
    ];
    for (const [name, args, code] of cases) {
      const r = await cli(...args);
      oneLine(r, code, name);
      expect(r.stderr, name).toContain('nope');
      expect(existsSync(out), name).toBe(false);
    }
  });

  it('bad option values and bad DDL in --defined-elements (repack writes nothing)', async () => {
    const out = join(dir, 'bad-values.h5');
    const cases: [string, string[], number | number[]][] = [
      ['dump -s', ['dump', '-d', '/a', '-s', 'x,1', good], 2],
      ['dump -s beyond', ['dump', '-d', '/a', '-s', '99,0', good], 2],
      ['dump -w', ['dump', '-w', '-3', good], 2],
      ['dump -b without -o', ['dump', '-d', '/a', '-b', 'LE', good], 2],
      ['dump -n 2', ['dump', '-n', '2', good], [1, 2]],
      ['diff -d', ['diff', '-d', 'x', good, good], 2],
      ['repack -l', ['repack', '-q', '-l', 'a:CHUNK=0x2', good, out], [1, 2]],
      ['repack -f', ['repack', '-q', '-f', 'a:GZIP=12', good, out], [1, 2]],
      ['repack unclosed DDL', ['repack', '-q', '-l', 'a:SPARSECHUNK=16x16', '--defined-elements', 'a:BLOCK (0,0)-(1', good, out], [1, 2]],
      ['repack unknown DDL word', ['repack', '-q', '-l', 'a:SPARSECHUNK=16x16', '--defined-elements', 'a:FOO (0,0)', good, out], [1, 2]],
      ['repack DDL out of range', ['repack', '-q', '-l', 'a:SPARSECHUNK=16x16', '--defined-elements', 'a:BLOCK (0,0)-(99,99)', good, out], [1, 2]],
      ['repack DDL wrong rank', ['repack', '-q', '-l', 'a:SPARSECHUNK=16x16', '--defined-elements', 'a:POINT (1,2,3)', good, out], [1, 2]],
      ['repack --exclude', ['repack', '-q', '-l', 'a:SPARSECHUNK=16x16', '--exclude', 'abc', good, out], [1, 2]],
      ['import --shape', ['import', '--dtype', '<u2', '--shape', '3,x', good, out], [1, 2]],
      ['import --dtype', ['import', '--dtype', 'nonsense', good, out], [1, 2]],
    ];
    for (const [name, args, code] of cases) {
      const r = await cli(...args);
      oneLine(r, code, name);
      expect(existsSync(out), name).toBe(false);
    }
  });

  it('bad import inputs (.npy header, CSV rows) fail with one short line and no output', async () => {
    const out = join(dir, 'imported.h5');
    const npy = join(dir, 'bad.npy');
    writeFileSync(npy, Buffer.from('\x93NUMPY\x01\x00garbage', 'latin1'));
    const csv = join(dir, 'bad.csv');
    writeFileSync(csv, '1,2,3\n4,x\n');
    for (const input of [npy, csv]) {
      const r = await cli('import', input, out);
      oneLine(r, 1, input);
      expect(existsSync(out), input).toBe(false);
    }
  });

  it('the executable prints one line, no stack trace, for a corrupt file', () => {
    const r = spawnSync(process.execPath, [BIN, 'dump', junk], { encoding: 'utf8' });
    oneLine({ code: r.status ?? -1, stderr: r.stderr }, 1, 'bin dump junk');
  });
});
