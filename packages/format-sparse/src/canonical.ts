/**
 * Runs → boxes: the canonical box form of core's `BlockSelection` (selection.ts: along dimension 0
 * the set is cut into maximal intervals over which its cross-section is constant, each followed by
 * the canonical boxes of that cross-section, recursively) built straight from sorted merged runs of
 * C-order offsets. The walk visits each run once per dimension and treats a run that covers whole
 * slabs of a dimension as one interval, so the cost follows the number of runs, not of elements.
 * @module
 */

/** Builder state shared by the recursion (one per call of {@link runsToBoxes}). */
interface Walk {
  /** Run starts and ends (end exclusive), absolute C-order offsets. */
  st: Float64Array;
  en: Float64Array;
  dims: readonly number[];
  /** C-order strides. */
  strides: number[];
  /** `full[d]`: the one canonical box of a completely selected cross-section of dimensions d… */
  full: Float64Array[];
}

function sameNumbers(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Clipped interval of run j within the row starting at `base` (width W): start, relative. */
function relStart(w: Walk, j: number, base: number): number {
  const s = w.st[j]!;
  return (s > base ? s : base) - base;
}

function relEnd(w: Walk, j: number, base: number, W: number): number {
  const e = w.en[j]!;
  return (e < base + W ? e : base + W) - base;
}

/**
 * Walks the runs `from…to−1` clipped to the region `[lo, lo + count·S)` slab by slab (slabs of S
 * offsets, numbered from `lo`), in order: `visit(x, n, −1, −1, slabLo)` for whole slabs x … x+n−1
 * (their cross-section is everything), `visit(x, 1, a, b, slabLo)` for a partial slab x starting at
 * `slabLo`, whose cross-section is made of the runs a…b−1 (the runs that start before its end).
 */
function eachSlab(
  w: Walk,
  from: number,
  to: number,
  lo: number,
  S: number,
  count: number,
  visit: (x: number, n: number, a: number, b: number, slabLo: number) => void,
): void {
  const { st, en } = w;
  const hiAll = lo + count * S;
  let i = from;
  let pos = i < to ? Math.max(st[i]!, lo) : 0;
  while (i < to) {
    const e = Math.min(en[i]!, hiAll);
    if (pos >= e) {
      i++;
      if (i < to) pos = Math.max(st[i]!, lo);
      continue;
    }
    const x = Math.floor((pos - lo) / S);
    const slabLo = lo + x * S;
    if (pos === slabLo && e - pos >= S) {
      const n = Math.floor((e - pos) / S);
      visit(x, n, -1, -1, slabLo);
      pos += n * S;
      continue;
    }
    const slabHi = slabLo + S;
    let k = i + 1;
    while (k < to && st[k]! < slabHi) k++;
    visit(x, 1, i, k, slabLo);
    if (en[k - 1]! > slabHi) {
      i = k - 1;
      pos = slabHi;
    } else {
      i = k;
      if (i < to) pos = Math.max(st[i]!, lo);
    }
  }
}

/** Scratch run starts and ends of {@link runsToBoxes} (only read within one call), grown on demand. */
let runCap = 0;
let runStarts = new Float64Array(0);
let runEnds = new Float64Array(0);

/** Scratch group arrays of {@link buildRows} (not reentrant: it never calls itself), grown on demand. */
let gCap = 0;
let gLo = new Float64Array(0);
let gHi = new Float64Array(0);
let gA = new Int32Array(0);
let gB = new Int32Array(0);
let gBase = new Float64Array(0);

function groupScratch(cap: number): void {
  if (cap <= gCap) return;
  gCap = Math.max(cap, 2 * gCap, 64);
  gLo = new Float64Array(gCap);
  gHi = new Float64Array(gCap);
  gA = new Int32Array(gCap);
  gB = new Int32Array(gCap);
  gBase = new Float64Array(gCap);
}

/**
 * The last two dimensions (rows of the last one): canonical boxes `[x0, x1, s, e]` of the runs
 * `from…to−1` clipped to the region `[lo, lo + rows·W)`. A row's cross-section is referenced by
 * its run range (no copies); rows in a row with equal cross-sections merge. The slab walk of
 * {@link eachSlab} is inlined here (the hot loop of every chunk write). With `lead` > 0 (leading
 * dimensions of size 1 above the rows) each box starts with `lead` intervals [0, 1).
 */
function buildRows(w: Walk, from: number, to: number, lo: number, lead = 0): Float64Array {
  const { st, en, dims } = w;
  const r = dims.length;
  const W = dims[r - 1]!;
  groupScratch(3 * (to - from) + 3);
  const glo = gLo;
  const ghi = gHi;
  const ga = gA; // first run of the row's cross-section, −1 = the full row
  const gb = gB; // end of the run range
  const gbase = gBase; // offset of the row the runs are clipped to
  let ng = 0;
  let total = 0; // output boxes
  const hiAll = lo + dims[r - 2]! * W;
  let i = from;
  let pos = i < to ? Math.max(st[i]!, lo) : 0;
  while (i < to) {
    const e = Math.min(en[i]!, hiAll);
    if (pos >= e) {
      i++;
      if (i < to) pos = Math.max(st[i]!, lo);
      continue;
    }
    const x = Math.floor((pos - lo) / W);
    const rowLo = lo + x * W;
    let n = 1;
    let a = -1;
    let b = -1;
    if (pos === rowLo && e - pos >= W) {
      // whole rows x … x+n−1
      n = Math.floor((e - pos) / W);
      pos += n * W;
    } else {
      // a partial row: its cross-section is the runs that start before its end
      const rowHi = rowLo + W;
      let k = i + 1;
      while (k < to && st[k]! < rowHi) k++;
      a = i;
      b = k;
      if (en[k - 1]! > rowHi) {
        i = k - 1;
        pos = rowHi;
      } else {
        i = k;
        if (i < to) pos = Math.max(st[i]!, lo);
      }
    }
    // merge with the previous group when it ends here and has the same cross-section
    let same = false;
    if (ng > 0 && ghi[ng - 1] === x) {
      const pa = ga[ng - 1]!;
      const pb = gb[ng - 1]!;
      if (pa < 0 || a < 0) same = pa < 0 && a < 0;
      else if (pb - pa === b - a) {
        const pbase = gbase[ng - 1]!;
        const pend = pbase + W;
        const end = rowLo + W;
        same = true;
        for (let j = 0; j < b - a && same; j++) {
          const ps = st[pa + j]!;
          const pe = en[pa + j]!;
          const cs = st[a + j]!;
          const ce = en[a + j]!;
          same =
            (ps > pbase ? ps : pbase) - pbase === (cs > rowLo ? cs : rowLo) - rowLo &&
            (pe < pend ? pe : pend) - pbase === (ce < end ? ce : end) - rowLo;
        }
      }
    }
    if (same) ghi[ng - 1] = x + n;
    else {
      glo[ng] = x;
      ghi[ng] = x + n;
      ga[ng] = a;
      gb[ng] = b;
      gbase[ng] = rowLo;
      total += a < 0 ? 1 : b - a;
      ng++;
    }
  }
  const out = new Float64Array((4 + 2 * lead) * total);
  let o = 0;
  for (let g = 0; g < ng; g++) {
    const a = ga[g]!;
    if (a < 0) {
      for (let q = 0; q < lead; q++, o += 2) out[o + 1] = 1;
      out[o++] = glo[g]!;
      out[o++] = ghi[g]!;
      out[o++] = 0;
      out[o++] = W;
      continue;
    }
    const base = gbase[g]!;
    for (let j = a; j < gb[g]!; j++) {
      for (let q = 0; q < lead; q++, o += 2) out[o + 1] = 1;
      out[o++] = glo[g]!;
      out[o++] = ghi[g]!;
      out[o++] = relStart(w, j, base);
      out[o++] = relEnd(w, j, base, W);
    }
  }
  return out;
}

/**
 * Canonical boxes (flat, rank r − d, `[s_d, e_d, s_{d+1}, …]`) of the runs `from…to−1` clipped to
 * the region `[lo, lo + dims[d]·strides[d])` (one slab of dimension d − 1), coordinates relative
 * to the region. Needs rank − d ≥ 2.
 */
function build(w: Walk, d: number, from: number, to: number, lo: number): Float64Array {
  const { dims, strides } = w;
  const r = dims.length;
  if (d === r - 2) return buildRows(w, from, to, lo);
  const S = strides[d]!;
  // Groups: [glo, ghi) intervals of dimension d with their (canonical) child cross-section.
  const glo: number[] = [];
  const ghi: number[] = [];
  const gchild: Float64Array[] = [];
  eachSlab(w, from, to, lo, S, dims[d]!, (x, n, a, b, slabLo) => {
    // Whole slabs x … x+n−1 of dimension d: their cross-section is everything; a partial slab: the
    // runs that start before its end make its cross-section.
    const child = a < 0 ? w.full[d + 1]! : build(w, d + 1, a, b, slabLo);
    const g = glo.length - 1;
    if (g >= 0 && ghi[g] === x && sameNumbers(gchild[g]!, child)) ghi[g] = x + n;
    else {
      glo.push(x);
      ghi.push(x + n);
      gchild.push(child);
    }
  });
  const cw = 2 * (r - d - 1);
  let total = 0;
  for (const c of gchild) total += c.length / cw;
  const out = new Float64Array(total * (cw + 2));
  let o = 0;
  for (let g = 0; g < glo.length; g++) {
    const child = gchild[g]!;
    for (let c = 0; c < child.length; c += cw) {
      out[o++] = glo[g]!;
      out[o++] = ghi[g]!;
      out.set(child.subarray(c, c + cw), o);
      o += cw;
    }
  }
  return out;
}

/**
 * The box of runs that are the same columns of consecutive rows of a chunk `[1, …, 1, rows, W]`
 * (a region of a frame, the common case: no row sweep), or null.
 */
function oneBox(st: Float64Array, en: Float64Array, n: number, dims: readonly number[]): Float64Array | null {
  const r = dims.length;
  const w = dims[r - 1]!;
  const len = en[0]! - st[0]!;
  const c = st[0]! % w;
  if (c + len > w) return null;
  for (let i = 1; i < n; i++) if (st[i] !== st[0]! + i * w || en[i]! - st[i]! !== len) return null;
  const out = new Float64Array(2 * r);
  for (let d = 0; d < r - 2; d++) out[2 * d + 1] = 1;
  const row = (st[0]! - c) / w;
  out[2 * r - 4] = row;
  out[2 * r - 3] = row + n;
  out[2 * r - 2] = c;
  out[2 * r - 1] = c + len;
  return out;
}

/**
 * The canonical boxes (core `BlockSelection.boxes`, end exclusive) of a set of elements of a chunk
 * of shape `dims` given as sorted, disjoint runs of C-order offsets: flat `[start, length, …]`
 * tuples of `stride` numbers each (2 for pairs, 3 for defined runs with value indices).
 */
export function runsToBoxes(runs: Float64Array, stride: number, dims: readonly number[]): Float64Array {
  const n = runs.length / stride;
  if (n === 0) return new Float64Array(0);
  const r = dims.length;
  if (r === 1) {
    // one dimension: the merged runs are the boxes
    const out = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      out[2 * i] = runs[i * stride]!;
      out[2 * i + 1] = runs[i * stride]! + runs[i * stride + 1]!;
    }
    return out;
  }
  if (n > runCap) {
    runCap = Math.max(n, 2 * runCap, 256);
    runStarts = new Float64Array(runCap);
    runEnds = new Float64Array(runCap);
  }
  const st = runStarts;
  const en = runEnds;
  for (let i = 0; i < n; i++) {
    st[i] = runs[i * stride]!;
    en[i] = st[i]! + runs[i * stride + 1]!;
  }
  let lead = 0;
  while (lead < r - 2 && dims[lead] === 1) lead++;
  if (lead === r - 2) {
    // [1, …, 1, rows, W]: the boxes are the rows' boxes behind [0, 1) intervals
    return oneBox(st, en, n, dims) ?? buildRows({ st, en, dims, strides: [], full: [] }, 0, n, 0, lead);
  }
  const strides = new Array<number>(r);
  let acc = 1;
  for (let d = r - 1; d >= 0; d--) {
    strides[d] = acc;
    acc *= dims[d]!;
  }
  const full: Float64Array[] = [];
  for (let d = 0; d <= r; d++) {
    const box: number[] = [];
    for (let q = d; q < r; q++) box.push(0, dims[q]!);
    full.push(Float64Array.from(box));
  }
  return build({ st, en, dims, strides, full }, 0, 0, n, 0);
}
