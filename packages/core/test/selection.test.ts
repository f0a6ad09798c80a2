import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SelectionError } from '../src/errors.js';
import {
  selectAll,
  selectBlocks,
  selectHyperslab,
  selectNone,
  selectPoints,
  selectionRuns,
  selectionShape,
  slice,
  union,
  validateSelection,
  type Selection,
  type SliceSpec,
} from '../src/selection/index.js';
import { dimsArb, expandRuns, modelledArb, volume } from './support/selection-model.js';

function runsOf(sel: Selection, dims: number[]): number[] {
  return expandRuns(selectionRuns(sel, dims));
}

describe('selection constructors and validation', () => {
  it('builds each kind', () => {
    expect(selectAll().kind).toBe('all');
    expect(selectNone().kind).toBe('none');
    const h = selectHyperslab({ start: [1, 2] });
    expect(h).toEqual({ kind: 'hyperslab', rank: 2, start: [1, 2], stride: [1, 1], count: [1, 1], block: [1, 1] });
    const p = selectPoints([[1, 2], [0, 0], [1, 2]]);
    expect(p.kind === 'points' && Array.from(p.coords)).toEqual([1, 2, 0, 0, 1, 2]);
    expect(selectPoints(Float64Array.of(3, 4, 5), 1)).toMatchObject({ kind: 'points', rank: 1, pointCount: 3 });
    expect(selectPoints([])).toEqual(selectNone());
    expect(selectPoints([], 2)).toMatchObject({ kind: 'points', rank: 2, pointCount: 0 });
    expect(selectBlocks([{ start: [0, 0], end: [0, 5] }])).toEqual(selectNone());
    expect(selectBlocks([{ start: [], end: [] }])).toEqual(selectAll());
  });

  it('keeps the union of blocks canonical (order and overlaps of the input do not matter)', () => {
    const a = selectBlocks([
      { start: [0, 0], end: [5, 3] },
      { start: [2, 0], end: [7, 3] },
    ]);
    expect(a.kind === 'blocks' && Array.from(a.boxes)).toEqual([0, 7, 0, 3]);
    const b1 = selectBlocks([
      { start: [4, 2], end: [6, 4] },
      { start: [1, 1], end: [3, 5] },
      { start: [0, 0], end: [7, 3] },
    ]);
    const b2 = selectBlocks([
      { start: [0, 0], end: [7, 3] },
      { start: [1, 1], end: [3, 5] },
      { start: [4, 2], end: [6, 4] },
      { start: [1, 1], end: [2, 2] },
    ]);
    expect(b1).toEqual(b2);
    expect(b1.kind === 'blocks' && Array.from(b1.boxes)).toEqual([0, 1, 0, 3, 1, 3, 0, 5, 3, 4, 0, 3, 4, 6, 0, 4, 6, 7, 0, 3]);
  });

  it('rejects malformed arguments with SelectionError', () => {
    const bad: (() => unknown)[] = [
      () => selectHyperslab({ start: [0], stride: [0] }),
      () => selectHyperslab({ start: [0], stride: [1], count: [2], block: [2] }),
      () => selectHyperslab({ start: [0], count: [-1] }),
      () => selectHyperslab({ start: [0.5] }),
      () => selectHyperslab({ start: [0, 0], count: [1] }),
      () => selectPoints([[1, 2], [3]]),
      () => selectPoints([[-1]]),
      () => selectPoints(Float64Array.of(1, 2, 3)),
      () => selectPoints(Float64Array.of(1, 2, 3), 2),
      () => selectBlocks([{ start: [0], end: [1, 2] }]),
      () => selectBlocks([{ start: [-1], end: [2] }]),
    ];
    for (const f of bad) expect(f).toThrow(SelectionError);
    // count ≤ 1 makes stride irrelevant (HDF5 only checks overlap between blocks)
    expect(() => selectHyperslab({ start: [0], stride: [1], count: [1], block: [4] })).not.toThrow();
  });

  it('validates against the dataspace, naming the problem', () => {
    const dims = [10, 20];
    expect(() => validateSelection(selectHyperslab({ start: [0, 0, 0] }), dims)).toThrow(/rank 3.*rank 2/);
    expect(() => validateSelection(selectHyperslab({ start: [8, 0], count: [2, 1], stride: [2, 1] }), dims)).toThrow(
      /\[8, 11\) in dimension 0/,
    );
    expect(() => validateSelection(selectPoints([[9, 19], [10, 0]]), dims)).toThrow(/point 1 \[10, 0\]/);
    expect(() => validateSelection(selectBlocks([{ start: [0, 15], end: [3, 21] }]), dims)).toThrow(/block 0/);
    expect(() => validateSelection(selectAll(), [3, -1])).toThrow(SelectionError);
    // an empty hyperslab is valid anywhere, as in HDF5
    expect(() => validateSelection(selectHyperslab({ start: [50, 0], count: [0, 1] }), dims)).not.toThrow();
    expect(() => selectionRuns(selectPoints([[10, 0]]), dims)).toThrow(SelectionError);
    // no unbounded allocation for absurd but in-range hyperslabs
    const comb = selectHyperslab({ start: [0], stride: [2], count: [2 ** 40] });
    expect(() => selectionRuns(comb, [2 ** 41])).toThrow(/separate blocks/);
  });

  it('gives the shape a read returns', () => {
    const dims = [10, 20];
    expect(selectionShape(selectAll(), dims)).toEqual([10, 20]);
    expect(selectionShape(selectNone(), dims)).toEqual([0]);
    expect(selectionShape(selectHyperslab({ start: [1, 1], stride: [3, 5], count: [3, 2], block: [2, 4] }), dims)).toEqual([6, 8]);
    expect(selectionShape(selectPoints([[1, 1], [2, 2], [1, 1]]), dims)).toEqual([3]);
    expect(selectionShape(selectBlocks([{ start: [2, 3], end: [5, 7] }]), dims)).toEqual([3, 4]);
    const u = union(selectBlocks([{ start: [0, 0], end: [2, 2] }]), selectBlocks([{ start: [5, 5], end: [6, 8] }]));
    expect(selectionShape(u, dims)).toEqual([7]);
  });
});

describe('selection runs', () => {
  it('merges full rows and whole dataspaces into single runs', () => {
    expect(Array.from(selectionRuns(selectAll(), [100, 1024, 1024]))).toEqual([0, 100 * 1024 * 1024]);
    expect(Array.from(selectionRuns(selectHyperslab({ start: [2, 0], count: [1, 1], block: [3, 30] }), [10, 30]))).toEqual([60, 90]);
    expect(Array.from(selectionRuns(selectBlocks([{ start: [1, 0, 0], end: [3, 4, 5] }]), [4, 4, 5]))).toEqual([20, 40]);
    expect(Array.from(selectionRuns(selectAll(), []))).toEqual([0, 1]);
    expect(Array.from(selectionRuns(selectPoints([[3], [4], [5], [1], [2]]), [8]))).toEqual([3, 3, 1, 2]);
    expect(Array.from(selectionRuns(selectNone(), [4]))).toEqual([]);
    expect(Array.from(selectionRuns(selectAll(), [0, 4]))).toEqual([]);
  });

  it('equals the brute-force model for random selections (rank 1–4)', () => {
    fc.assert(
      fc.property(
        dimsArb.chain((dims) => fc.tuple(fc.constant(dims), modelledArb(dims, ['all', 'none', 'hyperslab', 'blocks', 'points']))),
        ([dims, m]) => {
          const runs = selectionRuns(m.sel, dims);
          expect(expandRuns(runs), m.label).toEqual(m.order);
          for (let k = 0; k < runs.length; k += 2) {
            expect(runs[k + 1]).toBeGreaterThan(0);
            if (k > 0) expect(runs[k - 2]! + runs[k - 1]!, 'runs are maximal').not.toBe(runs[k]);
          }
          const shape = selectionShape(m.sel, dims);
          expect(volume(shape)).toBe(m.order.length);
        },
      ),
      { numRuns: 400 },
    );
  });
});

/** numpy's answer for `a[spec]` with `a = arange(prod(dims)).reshape(dims)`: flat values and shape. */
function numpySlices(cases: { dims: number[]; spec: SliceSpec[] }[]): { values: number[]; shape: number[] }[] {
  const script = `
import json, sys, numpy as np
out = []
for c in json.load(sys.stdin):
    a = np.arange(int(np.prod(c['dims'])) if c['dims'] else 1).reshape(c['dims'])
    idx = []
    for s in c['spec']:
        if s is None or s == ':': idx.append(slice(None))
        elif s == '...': idx.append(Ellipsis)
        elif isinstance(s, list): idx.append(slice(*(s + [None] * (3 - len(s)))))
        else: idx.append(s)
    r = a[tuple(idx)]
    out.append({'values': np.asarray(r).ravel().tolist(), 'shape': list(np.shape(r))})
print(json.dumps(out))
`;
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(cases) }).toString()) as {
    values: number[];
    shape: number[];
  }[];
}

describe('slice helper (numpy/h5py semantics)', () => {
  it('agrees with numpy on element order and shape', () => {
    const cases: { dims: number[]; spec: SliceSpec[] }[] = [
      { dims: [20, 30], spec: [[1, 17, 3], [2, 29, 4]] },
      { dims: [20, 30], spec: [5, [null, null, 7]] },
      { dims: [20, 30], spec: [[null, null, 2], '...'] },
      { dims: [20, 30], spec: [[-3, null], [10, 2]] },
      { dims: [20, 30], spec: [-1] },
      { dims: [20, 30], spec: [] },
      { dims: [6, 7, 8], spec: [[null, null, 2], [1, 5], [null, null, 3]] },
      { dims: [6, 7, 8], spec: [1, [2, null], -1] },
      { dims: [6, 7, 8], spec: ['...', 3] },
      { dims: [6, 7, 8], spec: [':', '...', [-100, 100, 5]] },
      { dims: [6, 7, 8], spec: [null, 0, '...'] },
      { dims: [4, 3, 5, 2], spec: [[1, 4, 2], '...', 1] },
    ];
    const expected = numpySlices(cases);
    cases.forEach((c, i) => {
      const { selection, shape } = slice(c.dims, ...c.spec);
      expect(shape, JSON.stringify(c)).toEqual(expected[i]!.shape);
      expect(runsOf(selection, c.dims), JSON.stringify(c)).toEqual(expected[i]!.values);
    });
  });

  it('selects everything with no or whole-dimension entries', () => {
    expect(slice([3, 4]).selection).toEqual(selectAll());
    expect(slice([3, 4], ':', null).selection).toEqual(selectAll());
    expect(slice([3, 4], '...').shape).toEqual([3, 4]);
  });

  it('rejects bad indices with SelectionError', () => {
    const dims = [5, 6];
    expect(() => slice(dims, 5)).toThrow(/index 5 is out of range for dimension 0/);
    expect(() => slice(dims, 0, -7)).toThrow(SelectionError);
    expect(() => slice(dims, 1, 2, 3)).toThrow(/3 indices/);
    expect(() => slice(dims, '...', '...')).toThrow(/ellipsis/);
    expect(() => slice(dims, [0, 4, 0])).toThrow(/step/);
    expect(() => slice(dims, [0, 4, -1])).toThrow(/step/);
    expect(() => slice(dims, 1.5)).toThrow(SelectionError);
    expect(() => slice(dims, 'x' as unknown as SliceSpec)).toThrow(SelectionError);
  });
});

describe('selections agree with HDF5 1.10.8 (h5py low-level read)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-sel-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the same elements in the same order', () => {
    type Op = { hyperslab: { start: number[]; stride: number[]; count: number[]; block: number[] } } | { points: number[][] };
    const cases: { dims: number[]; ops: Op[] }[] = [
      { dims: [20, 30], ops: [{ hyperslab: { start: [1, 2], stride: [5, 4], count: [3, 6], block: [3, 2] } }] },
      {
        dims: [20, 30],
        ops: [
          { hyperslab: { start: [0, 0], stride: [4, 5], count: [3, 4], block: [2, 3] } },
          { hyperslab: { start: [3, 10], stride: [1, 1], count: [1, 1], block: [10, 15] } },
          { hyperslab: { start: [18, 0], stride: [1, 7], count: [1, 5], block: [2, 1] } },
        ],
      },
      { dims: [6, 7, 8], ops: [{ hyperslab: { start: [1, 0, 2], stride: [2, 3, 3], count: [3, 2, 2], block: [1, 2, 2] } }] },
      {
        dims: [6, 7, 8],
        ops: [
          { hyperslab: { start: [0, 0, 0], stride: [1, 1, 1], count: [1, 1, 1], block: [2, 7, 8] } },
          { hyperslab: { start: [1, 2, 3], stride: [2, 2, 2], count: [3, 2, 2], block: [1, 1, 2] } },
        ],
      },
      { dims: [20, 30], ops: [{ points: [[5, 5], [0, 0], [19, 29], [5, 5], [3, 1]] }] },
    ];
    const file = join(dir, 'sel.h5');
    const script = `
import json, sys, numpy as np, h5py
from h5py import h5s
cases = json.load(sys.stdin)
out = []
with h5py.File(sys.argv[1], 'w') as f:
    for i, c in enumerate(cases):
        d = f.create_dataset('d%d' % i, data=np.arange(int(np.prod(c['dims'])), dtype='i4').reshape(c['dims']))
        sp = d.id.get_space()
        for k, op in enumerate(c['ops']):
            if 'points' in op:
                sp.select_elements(np.array(op['points'], dtype='u8'))
            else:
                h = op['hyperslab']
                sp.select_hyperslab(tuple(h['start']), tuple(h['count']), tuple(h['stride']), tuple(h['block']),
                                    op=h5s.SELECT_SET if k == 0 else h5s.SELECT_OR)
        n = sp.get_select_npoints()
        buf = np.empty((n,), dtype='i4')
        d.id.read(h5s.create_simple((n,)), sp, buf)
        out.append(buf.tolist())
print(json.dumps(out))
`;
    const expected = JSON.parse(
      execFileSync('/usr/bin/python3', ['-c', script, file], { input: JSON.stringify(cases) }).toString(),
    ) as number[][];
    cases.forEach((c, i) => {
      let sel: Selection = selectNone();
      for (const op of c.ops) {
        sel = 'points' in op ? selectPoints(op.points) : union(sel, selectHyperslab(op.hyperslab));
      }
      if (c.ops.length === 1 && 'hyperslab' in c.ops[0]!) sel = selectHyperslab(c.ops[0].hyperslab);
      expect(runsOf(sel, c.dims), JSON.stringify(c)).toEqual(expected[i]);
    });
  });
});
