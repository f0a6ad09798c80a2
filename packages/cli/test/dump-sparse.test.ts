/**
 * Sparse datasets in `chunkform dump` (docs/cli.md, sparse RFC §4.1): the figure-3
 * matrix of the sparse-chunk RFC stored with 5×4 sparse chunks, shown with `--sparse-locations`,
 * `--sparse`, `-p` (SPARSE CHUNK, SECTION sizes, FILTERS SECTION i), the dense DATA (undefined
 * elements print as the fill value) and `--json` (undefined elements are null).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFile, selectHyperslab, selectPoints } from '@chunkform/core';
import { registerEverything, run } from '../src/index.js';

let dir: string;
let file: string;

/** Seed 003 figure 3: a 13×10 matrix with a 3×6 block, a 1×3 block and three single elements defined. */
async function writeFigure3(path: string): Promise<void> {
  registerEverything();
  const f = await createFile(path);
  const ds = await f.createDataset('Sparse', {
    layout: 'sparse',
    dtype: 'int16',
    shape: [13, 10],
    chunks: [5, 4],
    fillValue: 0,
    filters: { values: [{ id: 1, clientData: [6] }] },
  });
  const block = [66, 69, 72, 75, 78, 81, 96, 99, 102, 105, 108, 111, 126, 129, 132, 135, 138, 141];
  await ds.write(block, selectHyperslab({ start: [2, 2], block: [3, 6] }));
  await ds.write([100, 0, -100], selectHyperslab({ start: [6, 0], block: [1, 3] }));
  await ds.write([2, 1, 3], selectPoints([[5, 9], [11, 1], [12, 8]]));
  await f.close();
}

async function ls(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['ls', ...args], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stdout, stderr };
}

async function dump(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['dump', ...args], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-dump-sparse-'));
  file = join(dir, 'figure3.h5');
  await writeFigure3(file);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dump of a sparse dataset (figure 3)', () => {
  it('--sparse-locations prints one REGION_TYPE BLOCK line per merged block', async () => {
    const r = await dump('--sparse-locations', '-H', '-d', '/Sparse', file);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `HDF5 "${file}" {`,
        'DATASET "/Sparse" {',
        '   DATATYPE  H5T_STD_I16LE',
        '   DATASPACE  SIMPLE { ( 13, 10 ) / ( 13, 10 ) }',
        '   REGION_TYPE BLOCK (2,2)-(4,7)',
        '   REGION_TYPE BLOCK (5,9)-(5,9)',
        '   REGION_TYPE BLOCK (6,0)-(6,2)',
        '   REGION_TYPE BLOCK (11,1)-(11,1)',
        '   REGION_TYPE BLOCK (12,8)-(12,8)',
        '}',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('--sparse prints the blocks and the points with their values (the figure-3 layout)', async () => {
    const r = await dump('--sparse', '-d', '/Sparse', file);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(4, -3)).toEqual([
      '   REGION_TYPE BLOCK (2,2)-(4,7)',
      '   DATA {',
      '   (2,2): 66, 69, 72, 75, 78, 81,',
      '   (3,2): 96, 99, 102, 105, 108, 111,',
      '   (4,2): 126, 129, 132, 135, 138, 141',
      '   }',
      '   REGION_TYPE BLOCK (6,0)-(6,2)',
      '   DATA {',
      '   (6,0): 100, 0, -100',
      '   }',
      '   REGION_TYPE POINT (5,9), (11,1), (12,8)',
      '   DATA {',
      '   (5,9): 2',
      '   (11,1): 1',
      '   (12,8): 3',
      '   }',
    ]);
  });

  it('-s/-c restrict the locations to the subset', async () => {
    const r = await dump('--sparse-locations', '-H', '-d', '/Sparse', '-s', '2,2', '-c', '5,5', file);
    expect(r.stdout.split('\n').filter((l) => l.includes('REGION_TYPE'))).toEqual(['   REGION_TYPE BLOCK (2,2)-(4,6)', '   REGION_TYPE BLOCK (6,2)-(6,2)']);
  });

  it('the dense DATA shows undefined elements as the fill value', async () => {
    const r = await dump('-d', '/Sparse', '-w', '200', file);
    const data = r.stdout.split('\n').filter((l) => l.startsWith('   ('));
    expect(data).toHaveLength(13);
    expect(data[0]).toBe('   (0,0): 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,');
    expect(data[2]).toBe('   (2,0): 0, 0, 66, 69, 72, 75, 78, 81, 0, 0,');
    expect(data[5]).toBe('   (5,0): 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,');
    expect(data[6]).toBe('   (6,0): 100, 0, -100, 0, 0, 0, 0, 0, 0, 0,');
    expect(data[12]).toBe('   (12,0): 0, 0, 0, 0, 0, 0, 0, 0, 3, 0');
  });

  it('-p prints SPARSE CHUNK, one SECTION line per section and FILTERS SECTION i', async () => {
    const r = await dump('-p', '-H', '-d', '/Sparse', file);
    const out = r.stdout.split('\n');
    const at = out.indexOf('   STORAGE_LAYOUT {');
    expect(out[at + 1]).toBe('      SPARSE CHUNK ( 5, 4 )');
    expect(out[at + 2]).toMatch(/^ {6}SECTION 0 SELECTION SIZE \d+$/);
    expect(out[at + 3]).toMatch(/^ {6}SECTION 1 VALUES SIZE \d+ \(\d+\.\d{3}:1 COMPRESSION\)$/);
    expect(out.slice(at + 4, at + 11)).toEqual([
      '   }',
      '   FILTERS SECTION 0 {',
      '      NONE',
      '   }',
      '   FILTERS SECTION 1 {',
      '      COMPRESSION DEFLATE { LEVEL 6 }',
      '   }',
    ]);
    expect(out).toContain('      FILL_TIME H5D_FILL_TIME_IFSET');
    expect(out).toContain('      VALUE  0');
  });

  it('--json marks undefined elements null and describes the sections and defined blocks', async () => {
    const r = await dump('--json', file, '/Sparse');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ format: 'chunkform-dump', version: 1 });
    const e = doc.root;
    expect(e.sparse.sections.map((s: { name: string }) => s.name)).toEqual(['SELECTION', 'VALUES']);
    expect(e.sparse.sections[1].filters).toEqual([{ id: 1, clientData: [6] }]);
    expect(e.sparse.defined[0]).toEqual({ start: [2, 2], end: [4, 7] });
    expect(e.values).toHaveLength(130);
    expect(e.values[0]).toBeNull();
    expect(e.values[2 * 10 + 2]).toBe(66);
    expect(e.values[6 * 10 + 1]).toBe(0); // defined zero
    expect(e.values[6 * 10 + 3]).toBeNull();
    expect(e.values.filter((v: unknown) => v !== null)).toHaveLength(18 + 3 + 3);
  });

  it('ls -v shows Sparse Chunks and one block per section with its sizes and filters', async () => {
    const r = await ls('-v', file);
    expect(r.code).toBe(0);
    const out = r.stdout.split('\n');
    expect(out[0]).toBe(`Opened "${file}" with sec2 driver.`);
    expect(out[1]).toBe(`${'Sparse'.padEnd(24)} Dataset {13/13, 10/10}`);
    const at = out.indexOf('    Sparse Chunks: {5, 4} 40 bytes');
    expect(at).toBeGreaterThan(0);
    expect(out[at + 1]).toBe('    Section 0: SELECTION');
    expect(out[at + 2]).toMatch(/^ {15}\d+ logical bytes, \d+ allocated bytes, \d+\.\d\d% utilization$/);
    expect(out[at + 3]).toBe('    Section 1: VALUES');
    expect(out[at + 4]).toMatch(/^ {15}48 logical bytes, \d+ allocated bytes, \d+\.\d\d% utilization$/);
    expect(out[at + 5]).toBe('               Filter-0:  deflate-1  {6}');
    expect(out[at + 6]).toMatch(/^ {4}Storage: {3}260 logical bytes, \d+ allocated bytes, \d+\.\d\d% utilization$/);
    expect(out[at + 7]).toBe('    Type:      native short');
  });
});
