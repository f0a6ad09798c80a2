/**
 * Model tests of the sparse chunk memory form: memWrite / erase / defined / memRead against a dense
 * model (values + defined mask) on random 1–4-D chunks, and the runs → canonical boxes conversion.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectAll, selectBlocks, selectNone, selectPoints, selectionRuns, toBlocks, type Selection } from '@chunkform/core';
import { SparseFormat, runsToBoxes } from '../src/index.js';
import { pairsToDefined, requestSet, subtractDefined, unionDefined } from '../src/runs.js';
import type { SparseChunk } from '../src/sparse-chunk.js';
import { dimsArb, makeContext, offsetsOf, requestOf, selectionArb, volume } from './support.js';

type Op =
  | { kind: 'write'; sel: Selection; seed: number; shuffle: boolean }
  | { kind: 'erase'; sel: Selection }
  | { kind: 'read'; sel: Selection }
  | { kind: 'defined'; sel: Selection };

function opArb(dims: number[]): fc.Arbitrary<Op> {
  const sel = selectionArb(dims);
  return fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('write' as const), sel, seed: fc.integer({ min: 0, max: 1000 }), shuffle: fc.boolean() }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('erase' as const), sel }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('read' as const), sel }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('defined' as const), sel }) },
  );
}

/** Reverses the order of request runs (an unsorted request, like a point selection's). */
function reversed(runs: Float64Array): Float64Array {
  const out = new Float64Array(runs.length);
  for (let i = 0, j = runs.length - 3; i < runs.length; i += 3, j -= 3) out.set(runs.subarray(i, i + 3), j);
  return out;
}

function checkInvariants(fmt: SparseFormat, mem: SparseChunk, dims: number[], es: number, mask: Uint8Array, model: Uint8Array): void {
  const n = volume(dims);
  const defined: number[] = [];
  for (let i = 0; i < n; i++) if (mask[i]) defined.push(i);
  expect(fmt.isEmpty(mem)).toBe(defined.length === 0);
  expect(mem.values.length).toBe(defined.length * es);
  // selection = canonical blocks of the defined set
  const sel = mem.selection;
  if (defined.length === 0) expect(sel.kind).toBe('none');
  else {
    expect(offsetsOf(sel, dims)).toEqual(defined);
    const canon = toBlocks(selectPoints(Float64Array.from(defined.flatMap((o) => unravelOffset(o, dims))), dims.length), dims);
    expect(sel.kind === 'blocks' && canon.kind === 'blocks' && Array.from(sel.boxes)).toEqual(canon.kind === 'blocks' && Array.from(canon.boxes));
  }
  // values in C order of the defined elements
  defined.forEach((o, k) => expect(Array.from(mem.values.subarray(k * es, k * es + es))).toEqual(Array.from(model.subarray(o * es, o * es + es))));
}

function unravelOffset(o: number, dims: readonly number[]): number[] {
  const c = new Array<number>(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) {
    c[d] = o % dims[d]!;
    o = Math.floor(o / dims[d]!);
  }
  return c;
}

describe('sparse chunk memory form vs a dense model', () => {
  it('write / erase / read / defined sequences agree with the model (1–4-D)', () => {
    fc.assert(
      fc.property(
        dimsArb.chain((dims) =>
          fc.tuple(fc.constant(dims), fc.constantFrom(1, 2, 4), fc.boolean(), fc.array(opArb(dims), { minLength: 1, maxLength: 12 })),
        ),
        ([dims, es, withFill, ops]) => {
          const fillValue = withFill ? Uint8Array.from({ length: es }, (_, i) => 0xa0 + i) : null;
          const fmt = new SparseFormat(makeContext(dims, es, { fillValue }));
          const n = volume(dims);
          const model = new Uint8Array(n * es);
          const mask = new Uint8Array(n);
          const mem = fmt.fill();
          for (const op of ops) {
            const offs = offsetsOf(op.sel, dims);
            if (op.kind === 'write') {
              const src = Uint8Array.from({ length: offs.length * es }, (_, i) => (op.seed + i * 7) & 0xff);
              const req = requestOf(op.sel, dims);
              fmt.memWrite(mem, op.shuffle ? { ...req, runs: reversed(req.runs) } : req, src);
              // the model applies the runs in the order given: later runs win for duplicate elements
              const runs = op.shuffle ? reversed(req.runs) : req.runs;
              for (let i = 0; i < runs.length; i += 3) {
                const b = runs[i + 1]! * es;
                model.set(src.subarray(b, b + runs[i + 2]! * es), runs[i]! * es);
              }
              for (const o of offs) mask[o] = 1;
            } else if (op.kind === 'erase') {
              fmt.erase(mem, op.sel);
              for (const o of offs) mask[o] = 0;
            } else if (op.kind === 'read') {
              const out = new Uint8Array(offs.length * es).fill(0x55);
              const req = requestOf(op.sel, dims);
              fmt.memRead(mem, req, out);
              offs.forEach((o, k) => {
                const want = mask[o] ? model.subarray(o * es, o * es + es) : (fillValue ?? new Uint8Array(es));
                expect(Array.from(out.subarray(k * es, k * es + es))).toEqual(Array.from(want));
              });
              // unsorted runs read the same bytes
              const out2 = new Uint8Array(offs.length * es).fill(0x33);
              fmt.memRead(mem, { ...req, runs: reversed(req.runs) }, out2);
              expect(out2).toEqual(out);
            } else {
              const got = fmt.defined(mem, op.sel);
              const want = [...new Set(offs)].filter((o) => mask[o]).sort((a, b) => a - b);
              expect(got.kind === 'none' ? [] : offsetsOf(got, dims)).toEqual(want);
            }
            checkInvariants(fmt, mem, dims, es, mask, model);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('fromRequest equals fill + memWrite, and never writes into the caller buffer', () => {
    fc.assert(
      fc.property(
        dimsArb.chain((dims) => fc.tuple(fc.constant(dims), selectionArb(dims), selectionArb(dims))),
        ([dims, sel, sel2]) => {
          const fmt = new SparseFormat(makeContext(dims, 2));
          const req = requestOf(sel, dims);
          const src = Uint8Array.from({ length: req.count * 2 }, (_, i) => i & 0xff);
          const copy = src.slice();
          const a = fmt.fromRequest(req, src);
          const b = fmt.fill();
          fmt.memWrite(b, req, src);
          expect(Array.from(a.values)).toEqual(Array.from(b.values));
          expect(Array.from(a.runs)).toEqual(Array.from(b.runs));
          const req2 = requestOf(sel2, dims);
          fmt.memWrite(a, req2, new Uint8Array(req2.count * 2).fill(9));
          expect(src).toEqual(copy);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a whole-chunk write is one box and reads back without fill', () => {
    const dims = [3, 4];
    const fmt = new SparseFormat(makeContext(dims, 1, { fillValue: Uint8Array.of(7) }));
    const req = requestOf(selectAll(), dims);
    const src = Uint8Array.from({ length: 12 }, (_, i) => i);
    const mem = fmt.fromRequest(req, src);
    expect(mem.selection.kind === 'blocks' && Array.from(mem.selection.boxes)).toEqual([0, 3, 0, 4]);
    fmt.erase(mem, selectBlocks([{ start: [1, 1], end: [2, 3] }]));
    const out = new Uint8Array(12);
    fmt.memRead(mem, req, out);
    expect(Array.from(out)).toEqual([0, 1, 2, 3, 4, 7, 7, 7, 8, 9, 10, 11]);
    fmt.erase(mem, selectAll());
    expect(fmt.isEmpty(mem)).toBe(true);
    expect(fmt.defined(mem, selectAll()).kind).toBe('none');
    expect(fmt.memSize(mem)).toBeGreaterThan(0);
  });

  it('erasing nothing or an empty chunk changes nothing', () => {
    const dims = [4];
    const fmt = new SparseFormat(makeContext(dims, 1));
    const mem = fmt.fill();
    fmt.erase(mem, selectAll());
    expect(fmt.isEmpty(mem)).toBe(true);
    fmt.memWrite(mem, requestOf(selectPoints([[2]]), dims), Uint8Array.of(5));
    fmt.erase(mem, selectNone());
    expect(Array.from(mem.values)).toEqual([5]);
  });
});

describe('run algebra', () => {
  it('runsToBoxes gives core canonical boxes for random selections', () => {
    fc.assert(
      fc.property(
        dimsArb.chain((dims) => fc.tuple(fc.constant(dims), selectionArb(dims))),
        ([dims, sel]) => {
          const blocks = toBlocks(sel, dims);
          const pairs = selectionRuns(blocks, dims);
          const boxes = runsToBoxes(pairs, 2, dims);
          expect(Array.from(boxes)).toEqual(blocks.kind === 'blocks' ? Array.from(blocks.boxes) : []);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('requestSet merges unsorted overlapping runs', () => {
    const req = Float64Array.from([5, 0, 2, 0, 2, 3, 3, 5, 1, 9, 6, 1, 7, 7, 2]);
    expect(Array.from(requestSet(req))).toEqual([0, 4, 5, 5]);
    expect(Array.from(requestSet(Float64Array.from([0, 0, 2, 2, 2, 1, 4, 3, 1])))).toEqual([0, 3, 4, 1]);
  });

  it('union and subtraction of runs keep value indices', () => {
    const a = pairsToDefined(Float64Array.from([0, 2, 5, 3]));
    expect(Array.from(unionDefined(a, Float64Array.from([2, 1, 9, 1])))).toEqual([0, 3, 0, 5, 3, 3, 9, 1, 6]);
    expect(Array.from(subtractDefined(a, Float64Array.from([1, 5])))).toEqual([0, 1, 0, 6, 2, 1]);
    expect(Array.from(subtractDefined(a, Float64Array.from([0, 10])))).toEqual([]);
  });
});
