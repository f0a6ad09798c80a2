/**
 * Cases for the encoded-selection tests: a selection together with the plain description the
 * Python oracle rebuilds it from, the expected elements in iteration order (from brute-force
 * masks, independent of the code under test), and helpers to call the HDF5 oracles.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { mulberry32 } from './prng.js';
import { selectionRuns } from '../../src/selection/runs.js';
import { selectAll, selectBlocks, selectHyperslab, selectNone, selectPoints, type Selection } from '../../src/selection/selection.js';
import {
  boxesArb,
  boxesMask,
  dimsArb,
  expandRuns,
  hyperslabArb,
  hyperslabMask,
  maskOrder,
  pointsArb,
  ravel,
  volume,
} from './selection-model.js';

/** What the oracle script needs to rebuild a selection. */
export type SelSpec =
  | { kind: 'all' }
  | { kind: 'none' }
  | { kind: 'points'; coords: number[][] }
  | { kind: 'hyperslab'; start: number[]; stride: number[]; count: number[]; block: number[] }
  | { kind: 'blocks'; boxes: [number[], number[]][] };

export interface SelCase {
  dims: number[];
  /** -1 = unlimited; null = none given (HDF5 then stores max = dims). */
  maxDims: number[] | null;
  spec: SelSpec;
  sel: Selection;
  /** Selected C-order linear offsets in iteration order. */
  order: number[];
}

/** Elements of a selection in iteration order (via the runs, for comparing decoded selections). */
export function elementsOf(sel: Selection, dims: readonly number[]): number[] {
  return expandRuns(selectionRuns(sel, dims));
}

const maxDimsArb = (dims: number[]): fc.Arbitrary<number[] | null> =>
  fc.oneof(
    fc.constant(null),
    fc.tuple(...dims.map((n) => fc.oneof(fc.constant(n), fc.constant(-1), fc.integer({ min: n, max: n + 300 })))),
  );

interface SpecSel {
  spec: SelSpec;
  sel: Selection;
  order: number[];
}

function specArb(dims: number[]): fc.Arbitrary<SpecSel> {
  const n = volume(dims);
  const all = Array.from({ length: n }, (_, i) => i);
  const arbs: fc.Arbitrary<SpecSel>[] = [
    fc.constant({ spec: { kind: 'all' } as SelSpec, sel: selectAll() as Selection, order: all }),
    fc.constant({ spec: { kind: 'none' } as SelSpec, sel: selectNone() as Selection, order: [] as number[] }),
    hyperslabArb(dims).map((h) => {
      const full = { start: [...h.start], stride: [...h.stride!], count: [...h.count!], block: [...h.block!] };
      return { spec: { kind: 'hyperslab' as const, ...full }, sel: selectHyperslab(full) as Selection, order: maskOrder(hyperslabMask(h, dims)) };
    }),
    boxesArb(dims, 8).map((b) => ({
      spec: { kind: 'blocks' as const, boxes: b.map((x): [number[], number[]] => [[...x.start], [...x.end]]) },
      sel: selectBlocks(b) as Selection,
      order: maskOrder(boxesMask(b, dims)),
    })),
    pointsArb(dims, 12).map((p) => ({
      spec: { kind: 'points' as const, coords: p },
      sel: selectPoints(p) as Selection,
      order: p.map((c) => ravel(c, dims)),
    })),
    // sorted, duplicate-free point lists (set-like: every encoding is a candidate)
    pointsArb(dims, 20).map((p) => {
      const offs = [...new Set(p.map((c) => ravel(c, dims)))].sort((a, b) => a - b);
      const q = offs.map((o) => p.find((c) => ravel(c, dims) === o)!);
      return { spec: { kind: 'points' as const, coords: q }, sel: selectPoints(q) as Selection, order: offs };
    }),
  ];
  return fc.oneof(...arbs);
}

/** A random case (rank 1–4, at most ~400 elements). */
export const caseArb: fc.Arbitrary<SelCase> = dimsArb.chain((dims) =>
  fc.tuple(maxDimsArb(dims), specArb(dims)).map(([maxDims, s]) => ({ dims, maxDims, ...s })),
);

const HERE = dirname(fileURLToPath(import.meta.url));
const PY = '/usr/bin/python3';

/** Oracle answer to an encode request: hex, or the library's refusal. */
export type EncodeAnswer = string | { error: string };
/** Oracle answer to a decode request. */
export type DecodeAnswer =
  | { dims: number[]; maxDims: number[]; type: string; npoints: number; elements: number[] }
  | { error: string };

/** A region case for the h5wasm check: shape + serialised selection body (+ ranges to fill for big extents). */
export interface RegionCase {
  dims: number[];
  body: string;
  write?: [number[], number[]][];
}

/** One run of the h5py oracle (HDF5 1.10.8). */
export function runOracle(req: {
  encode?: { dims: number[]; maxDims: number[] | null; sel: SelSpec }[];
  decode?: string[];
  regions?: { file: string; cases: RegionCase[] };
}): { encode?: EncodeAnswer[]; decode?: DecodeAnswer[]; regions?: string } {
  const out = execFileSync(PY, [join(HERE, 'selection-oracle.py')], { input: JSON.stringify(req), maxBuffer: 1 << 30 });
  return JSON.parse(out.toString()) as { encode?: EncodeAnswer[]; decode?: DecodeAnswer[]; regions?: string };
}

/** Reads the region references of a file with h5wasm (HDF5 2.0) in a child process. */
export function readRegionsWithH5wasm(file: string): (number[] | { error: string })[] {
  const out = execFileSync(process.execPath, [join(HERE, 'selection-h5wasm.mjs'), file], {
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 1 << 30,
  });
  return JSON.parse(out.toString()) as (number[] | { error: string })[];
}

export function toHex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

export function fromHex(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h, 'hex'));
}

/**
 * The LCLS-like frame selection: a 2048×2048 chunk with a ~10 % rectangle and `groups` clusters
 * of 5–10 connected pixels at random places. Returns the boxes (unit boxes for the pixels).
 */
export function lclsBoxes(seed: number, groups = 100, rectangle = true): { start: number[]; end: number[] }[] {
  const rnd = mulberry32(seed);
  const boxes: { start: number[]; end: number[] }[] = [];
  if (rectangle) boxes.push({ start: [700, 300], end: [1348, 948] }); // 648 × 648 ≈ 10 %
  for (let g = 0; g < groups; g++) {
    let y = 2 + Math.floor(rnd() * 2040);
    let x = 2 + Math.floor(rnd() * 2040);
    const n = 5 + Math.floor(rnd() * 6);
    const seen = new Set<number>();
    while (seen.size < n) {
      seen.add(y * 2048 + x);
      const dir = Math.floor(rnd() * 4);
      if (dir === 0 && y < 2045) y++;
      else if (dir === 1 && y > 2) y--;
      else if (dir === 2 && x < 2045) x++;
      else if (x > 2) x--;
    }
    for (const o of seen) boxes.push({ start: [Math.floor(o / 2048), o % 2048], end: [Math.floor(o / 2048) + 1, (o % 2048) + 1] });
  }
  return boxes;
}
