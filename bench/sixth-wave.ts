/**
 * Issue #11 rows measured side by side with h5py (the HDF5 C library through Debian's python3-h5py,
 * bench/h5py_side.py as a server process), part of `pnpm bench` (alone: `BENCH_ONLY=points,groups pnpm bench`,
 * either part alone with `BENCH_ONLY=points` or `=groups`; or `node --import tsx bench/sixth-wave.ts` with
 * `BENCH_W6_PARTS=points|groups`, e.g. under `--cpu-prof`).
 *
 * - `points`: BENCH_PG_FRAMES (default 200) frames of 2048² uint16, each with 80 non-overlapping 3×3 pixel
 *   groups (seeded random), in a sparse dataset `[frame, y, x]` (maxShape `[∞, 2048, 2048]`, chunks
 *   BENCH_PG_CHUNK×2048×2048, default 64 frames per chunk — h5py's COO chunks of 65,536 elements hold ≈ 91
 *   frames; deflate 1 on both sections, and unfiltered) written frame by frame (`resize` + `write(values,
 *   selectBlocks(80 boxes))`); h5py: COO — four 1-D datasets (u32 frame, u16 y, x, value; chunks of 65,536,
 *   gzip 1) appended frame by frame (resize + write) plus an offsets dataset. Reads: ours `readDefined(frame)` per
 *   frame and `readDefined(all)`; h5py each frame's slices (after reading the offsets) and the arrays whole.
 *   Create and close are timed on both sides; reads include open and close. Per frame, each side's timed
 *   loop reads and counts (`values.length`, `len()`); both check what they read (defined elements,
 *   sum of the values) after their clock stops.
 * - `groups`: 10,000 empty float32 (16,) datasets in 100 groups (file create and close included), and the
 *   time per dataset of the 100 creations ending at 100 / 400 / 1,600 links in one group.
 *   Alone (without `dense`): `BENCH_W6_PARTS=many`.
 * - `dense` (part of `groups`, or alone with `BENCH_W6_PARTS=dense`): 10,000 empty float32 (16,) datasets in
 *   ONE group (dense link storage: fractal heap + v2 B-tree name index; h5py with `libver='latest'`), file
 *   create and close included; then the file opened and 1,000 of them opened by name (seeded random order).
 *
 * `BENCH_PG_KINDS=gzip|raw` limits the point-group rows to ours with deflate 1 or unfiltered. The point-group
 * rows also print the median process CPU time of each side (ours: all threads, zlib's thread pool included).
 *
 * Every measurement runs BENCH_W6_REPEAT (default 7) times, ours and h5py alternating (which goes first
 * alternates too), after BENCH_W6_WARMUP (default 1; point-group rows BENCH_PG_WARMUP, default 12) untimed
 * runs of each side, and the row reports the
 * median of the paired ratios (h5py time ÷ ours: > 1 means chunkform is faster) with the median times of
 * each side.
 * @module
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createFile, openFile, selectAll, selectBlocks, selectHyperslab, selectionCount, type Box, type Dataset, type Selection } from '../packages/core/src/index.js';
import { registerEverything } from '../packages/cli/src/registrations.js';
import { xorshift32 } from './xorshift.js';

const FRAMES = Number(process.env.BENCH_PG_FRAMES ?? 200);
const GROUPS_PER_FRAME = 80;
/** Frames per chunk of our point-group dataset. */
const PG_CHUNK = Number(process.env.BENCH_PG_CHUNK ?? 64);
const N = 2048;
const REPEAT = Number(process.env.BENCH_W6_REPEAT ?? 7);
/** Untimed runs of each side before the timed ones (V8 compiles the hot paths during the first runs). */
const WARMUP = Number(process.env.BENCH_W6_WARMUP ?? 1);
/**
 * Warm-up of the point-group rows: their runs are short (200 calls) and V8 optimises the per-frame
 * paths only after ≈ 1,000–2,000 calls. With 5 warm-up runs (1,000 calls) `--trace-opt` still showed
 * ≈ 240 ms of optimising compiles in the timed runs 6–10 (BENCHMARKS.md, "pgwall"), competing for the
 * two cores with the runs they were timing: 12 runs (2,400 calls) time the steady state of a frame loop.
 */
const PG_WARMUP = Number(process.env.BENCH_PG_WARMUP ?? 12);
const PYTHON = '/usr/bin/python3';
/** Creations per measured window (ending at 100 / 400 / 1,600 links). */
const WINDOW = 100;

/** The h5py side: bench/h5py_side.py as a JSON-lines server. */
export class H5py {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly lines: AsyncIterator<string>;
  constructor() {
    this.proc = spawn(PYTHON, [fileURLToPath(new URL('./h5py_side.py', import.meta.url))]);
    this.proc.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    this.lines = createInterface({ input: this.proc.stdout })[Symbol.asyncIterator]();
  }
  async next(): Promise<Record<string, unknown>> {
    const r = await this.lines.next();
    if (r.done) throw new Error('bench: the h5py process ended (is python3-h5py installed for /usr/bin/python3?)');
    const out = JSON.parse(r.value) as Record<string, unknown>;
    if (out.error) throw new Error(`bench: h5py side: ${String(out.error)}`);
    return out;
  }
  async call(msg: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.proc.stdin.write(JSON.stringify(msg) + '\n');
    return this.next();
  }
  close(): void {
    this.proc.stdin.end();
  }
}

interface PointFrames {
  /** Per frame: the 80 boxes (rank 3), the defined pixels' linear indices (y·N + x, C order) and values. */
  boxes: Box[][];
  lin: Uint32Array[];
  values: Uint16Array[];
  count: number;
  sum: number;
}

function pointFrames(): PointFrames {
  const rnd = xorshift32(0x3b3b);
  const taken = new Uint8Array((N / 4) * (N / 4)); // 4×4 cells: 3×3 groups in distinct cells never touch
  const out: PointFrames = { boxes: [], lin: [], values: [], count: 0, sum: 0 };
  for (let f = 0; f < FRAMES; f++) {
    const cells: number[] = [];
    while (cells.length < GROUPS_PER_FRAME) {
      const c = rnd() % taken.length;
      if (!taken[c]) ((taken[c] = 1), cells.push(c));
    }
    for (const c of cells) taken[c] = 0;
    cells.sort((a, b) => a - b);
    const boxes: Box[] = cells.map((c) => {
      const y = Math.floor(c / (N / 4)) * 4;
      const x = (c % (N / 4)) * 4;
      return { start: [f, y, x], end: [f + 1, y + 3, x + 3] };
    });
    const lin: number[] = [];
    for (const b of boxes) for (let y = b.start[1]!; y < b.end[1]!; y++) for (let x = b.start[2]!; x < b.end[2]!; x++) lin.push(y * N + x);
    lin.sort((a, b) => a - b);
    const l = Uint32Array.from(lin);
    const v = new Uint16Array(l.length);
    for (let i = 0; i < v.length; i++) {
      v[i] = 1 + (rnd() % 4000);
      out.sum += v[i]!;
    }
    out.count += l.length;
    out.boxes.push(boxes);
    out.lin.push(l);
    out.values.push(v);
  }
  return out;
}

/** The frames in the binary form h5py_side.py loads. */
function writePointsFile(path: string, pf: PointFrames): void {
  const buf = new Uint8Array(4 + 4 * (FRAMES + 1) + 6 * pf.count);
  const dv = new DataView(buf.buffer);
  dv.setUint32(0, FRAMES, true);
  let o = 0;
  for (let f = 0; f <= FRAMES; f++) {
    dv.setUint32(4 + 4 * f, o, true);
    if (f < FRAMES) o += pf.lin[f]!.length;
  }
  let p = 4 + 4 * (FRAMES + 1);
  for (const l of pf.lin) for (const x of l) (dv.setUint32(p, x, true), (p += 4));
  for (const v of pf.values) for (const x of v) (dv.setUint16(p, x, true), (p += 2));
  writeFileSync(path, buf);
}

async function oursWrite(path: string, pf: PointFrames, gzip: boolean): Promise<number> {
  const t0 = performance.now();
  const f = await createFile(path);
  const ds = await f.createDataset('frames', { layout: 'sparse', dtype: 'uint16', shape: [0, N, N], maxShape: [null, N, N], chunks: [PG_CHUNK, N, N], ...(gzip ? { compression: 'gzip' as const, compressionOpts: 1 } : {}) });
  for (let i = 0; i < FRAMES; i++) {
    await ds.resize([i + 1, N, N]);
    await ds.write(pf.values[i]!, selectBlocks(pf.boxes[i]!));
  }
  await f.close();
  return (performance.now() - t0) / 1000;
}

function check(pf: PointFrames, count: number, sum: number, who: string): void {
  if (count !== pf.count || sum !== pf.sum) throw new Error(`bench points: ${who} read ${count} px (Σ ${sum}), expected ${pf.count} (Σ ${pf.sum})`);
}

const sumOf = (v: Uint16Array): number => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]!;
  return s;
};

async function oursReadFrames(path: string, pf: PointFrames): Promise<number> {
  const t0 = performance.now();
  const f = await openFile(path);
  const ds = (await f.get('frames')) as Dataset;
  // Timed: the reads and a count per frame (h5py's loop takes `len()` of each frame's arrays);
  // the selections and values are checked after the clock stops, as h5py's are.
  const got: { selection: Selection; values: Uint16Array }[] = [];
  let n = 0;
  for (let i = 0; i < FRAMES; i++) {
    const { selection, values } = await ds.readDefined(selectHyperslab({ start: [i, 0, 0], block: [1, N, N] }));
    n += values.length;
    got.push({ selection, values: values as Uint16Array });
  }
  await f.close();
  const s = (performance.now() - t0) / 1000;
  let count = 0;
  let sum = 0;
  for (const r of got) {
    count += selectionCount(r.selection, [FRAMES, N, N]);
    sum += sumOf(r.values);
  }
  if (n !== count) throw new Error(`bench points: ours per frame read ${n} values for ${count} defined elements`);
  check(pf, count, sum, 'ours per frame');
  return s;
}

async function oursReadAll(path: string, pf: PointFrames): Promise<number> {
  const t0 = performance.now();
  const f = await openFile(path);
  const ds = (await f.get('frames')) as Dataset;
  const { selection, values } = await ds.readDefined(selectAll());
  await f.close();
  const s = (performance.now() - t0) / 1000;
  check(pf, selectionCount(selection as Selection, [FRAMES, N, N]), sumOf(values as Uint16Array), 'ours whole');
  return s;
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Process CPU seconds of each {@link oursGroups} run (user + system, all threads). */
const groupsCpu: number[] = [];

async function oursGroups(path: string, groups: number, per: number): Promise<number> {
  const c0 = cpuNow();
  const t0 = performance.now();
  const f = await createFile(path);
  for (let g = 0; g < groups; g++) {
    const grp = await f.createGroup(`g${String(g).padStart(3, '0')}`);
    for (let d = 0; d < per; d++) await grp.createDataset(`d${String(d).padStart(4, '0')}`, { dtype: 'float32', shape: [16] });
  }
  await f.close();
  const s = (performance.now() - t0) / 1000;
  groupsCpu.push(cpuNow() - c0);
  rmSync(path, { force: true });
  return s;
}

/** Seconds per dataset (wall and process CPU time) of the WINDOW creations ending at each mark. */
interface PerDataset {
  wall: number[];
  cpu: number[];
}

async function oursOneGroup(path: string, n: number, marks: number[]): Promise<PerDataset> {
  const stamps = new Float64Array(n + 1);
  const at = new Set(marks.flatMap((m) => [m, m - WINDOW]));
  const cpu = new Map<number, number>();
  const f = await createFile(path);
  const grp = await f.createGroup('g');
  stamps[0] = performance.now();
  cpu.set(0, cpuNow());
  for (let d = 0; d < n; d++) {
    await grp.createDataset(`d${String(d).padStart(5, '0')}`, { dtype: 'float32', shape: [16] });
    stamps[d + 1] = performance.now();
    if (at.has(d + 1)) cpu.set(d + 1, cpuNow());
  }
  await f.close();
  rmSync(path, { force: true });
  return {
    wall: marks.map((m) => (stamps[m]! - stamps[m - WINDOW]!) / WINDOW / 1000),
    cpu: marks.map((m) => (cpu.get(m)! - cpu.get(m - WINDOW)!) / WINDOW),
  };
}

/** 10,000 datasets in one group (dense link storage). */
async function oursDenseCreate(path: string, n: number): Promise<number> {
  const t0 = performance.now();
  const f = await createFile(path);
  const grp = await f.createGroup('g');
  for (let d = 0; d < n; d++) await grp.createDataset(`d${String(d).padStart(5, '0')}`, { dtype: 'float32', shape: [16] });
  await f.close();
  return (performance.now() - t0) / 1000;
}

/** Opens the file and the datasets `names` of group g by path. */
async function oursOpenByName(path: string, names: string[]): Promise<number> {
  const t0 = performance.now();
  const f = await openFile(path);
  for (const n of names) {
    const d = (await f.get(`g/${n}`)) as Dataset;
    if (d.shape[0] !== 16) throw new Error(`bench dense: ${n} has shape ${d.shape.join('×')}`);
  }
  await f.close();
  return (performance.now() - t0) / 1000;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Runs `ours` and `theirs` REPEAT times alternately; returns median times and the median paired ratio theirs / ours. */
export async function paired(ours: () => Promise<number>, theirs: () => Promise<number>, warmup = WARMUP): Promise<{ ours: number; theirs: number; ratio: number }> {
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < warmup; i++) (await ours(), await theirs());
  for (let i = 0; i < REPEAT; i++) {
    let x: number;
    let y: number;
    if (i % 2 === 0) ((x = await ours()), (y = await theirs()));
    else ((y = await theirs()), (x = await ours()));
    a.push(x);
    b.push(y);
    r.push(y / x);
  }
  return { ours: median(a), theirs: median(b), ratio: median(r) };
}

const ms = (s: number): string => (s * 1000).toFixed(s < 0.01 ? 3 : 1).padStart(9);
export const row = (what: string, p: { ours: number; theirs: number; ratio: number }, unit = 'ms'): void =>
  console.log(`  ${what.padEnd(58)} ${ms(p.ours)} ${ms(p.theirs)} ${unit.padEnd(6)} ${p.ratio.toFixed(2).padStart(6)}×`);

/** Runs the issue #11 rows (`parts`: 'points', 'groups'); `dir` is a scratch directory. */
export async function runSixthWave(dir: string, parts: ReadonlySet<string> = new Set(['points', 'groups'])): Promise<void> {
  const ONLY = parts;
  registerEverything();
  const py = new H5py();
  const hello = await py.next();
  console.log(`\nIssue #11 rows vs h5py ${String(hello.h5py)} (HDF5 ${String(hello.hdf5)}), median of ${REPEAT} interleaved paired ratios (h5py time ÷ ours; > 1: ours faster)`);
  console.log(`  ${'workload'.padEnd(58)} ${'ours'.padStart(9)} ${'h5py'.padStart(9)}        ratio`);
  try {
    if (ONLY.has('points')) {
      const pf = pointFrames();
      const bin = join(dir, 'points.bin');
      writePointsFile(bin, pf);
      await py.call({ cmd: 'load_points', path: bin, width: N });
      const theirs = join(dir, 'h5py-coo.h5');
      const title = `${FRAMES} frames × ${GROUPS_PER_FRAME} 3×3 groups, ${PG_CHUNK} per chunk`;
      const kinds = (process.env.BENCH_PG_KINDS ?? 'gzip,raw').split(',');
      for (const gzip of [true, false].filter((g) => kinds.includes(g ? 'gzip' : 'raw'))) {
        const ours = join(dir, `ours-points-${gzip ? 'gzip' : 'raw'}.h5`);
        const kind = gzip ? 'gzip 1' : 'unfiltered';
        // process CPU time of each run (ours: all threads, zlib's thread pool included; h5py: `process_time`)
        const cpu = { ours: [] as number[], theirs: [] as number[] };
        const oursTimed = (fn: () => Promise<number>) => async (): Promise<number> => {
          const c0 = cpuNow();
          const s = await fn();
          cpu.ours.push(cpuNow() - c0);
          return s;
        };
        const theirsTimed = async (msg: Record<string, unknown>, check?: (r: Record<string, unknown>) => void): Promise<number> => {
          const r = await py.call(msg);
          check?.(r);
          cpu.theirs.push(r.cpu as number);
          return r.s as number;
        };
        const cpuRow = (): void => {
          const m = (xs: number[]): string => (median(xs.slice(PG_WARMUP)) * 1000).toFixed(1);
          console.log(`  ${''.padEnd(58)} CPU: ours ${m(cpu.ours)} ms, h5py ${m(cpu.theirs)} ms (medians)`);
          cpu.ours.length = 0;
          cpu.theirs.length = 0;
        };
        const w = await paired(oursTimed(() => oursWrite(ours, pf, gzip)), () => theirsTimed({ cmd: 'coo_write', path: theirs }), PG_WARMUP);
        row(`point groups write (${title}), ours ${kind}`, w);
        console.log(`  ${''.padEnd(58)} ${((w.ours / FRAMES) * 1e6).toFixed(0).padStart(6)} µs ${((w.theirs / FRAMES) * 1e6).toFixed(0).padStart(6)} µs per frame`);
        cpuRow();
        const rf = await paired(
          oursTimed(() => oursReadFrames(ours, pf)),
          () =>
            theirsTimed({ cmd: 'coo_read_frames', path: theirs }, (r) => {
              if (r.count !== pf.count || r.sum !== pf.sum) throw new Error(`bench points: h5py read ${String(r.count)} px per frame (Σ ${String(r.sum)}), expected ${pf.count} (Σ ${pf.sum})`);
            }),
          PG_WARMUP,
        );
        row(`point groups read per frame, ours ${kind}`, rf);
        cpuRow();
        const ra = await paired(
          oursTimed(() => oursReadAll(ours, pf)),
          () =>
            theirsTimed({ cmd: 'coo_read_all', path: theirs }, (r) => {
              if (r.count !== pf.count || r.sum !== pf.sum) throw new Error(`bench points: h5py read ${String(r.count)} px whole, expected ${pf.count}`);
            }),
          PG_WARMUP,
        );
        row(`point groups read whole dataset, ours ${kind}`, ra);
        cpuRow();
        rmSync(ours, { force: true });
      }
      rmSync(theirs, { force: true });
    }
    if (ONLY.has('groups') || ONLY.has('dense')) {
      const n = 10_000;
      const ours = join(dir, 'ours-dense.h5');
      const theirs = join(dir, 'h5py-dense.h5');
      const c = await paired(
        () => oursDenseCreate(ours, n),
        async () => (await py.call({ cmd: 'dense_create', path: theirs, n })).s as number,
      );
      row(`create ${n.toLocaleString('en-US')} datasets in ONE group (dense links)`, c);
      const rnd = xorshift32(11);
      const names = Array.from({ length: 1000 }, () => `d${String(rnd() % n).padStart(5, '0')}`);
      const o = await paired(
        () => oursOpenByName(ours, names),
        async () => (await py.call({ cmd: 'open_by_name', path: theirs, names })).s as number,
      );
      row(`open file + 1,000 of ${n.toLocaleString('en-US')} datasets by name, one group`, o);
      rmSync(ours, { force: true });
      rmSync(theirs, { force: true });
    }
    if (ONLY.has('groups') || ONLY.has('many')) {
      groupsCpu.length = 0;
      const theirCpu: number[] = [];
      const g = await paired(
        () => oursGroups(join(dir, 'ours-groups.h5'), 100, 100),
        async () => {
          const r = await py.call({ cmd: 'groups', path: join(dir, 'h5py-groups.h5'), groups: 100, per: 100 });
          theirCpu.push(r.cpu as number);
          return r.s as number;
        },
      );
      row('create 10,000 datasets in 100 groups', g);
      // (process CPU time, all threads, of the timed runs: what the load of the machine moves least)
      const cpuMs = (xs: number[]): string => (median(xs.slice(WARMUP)) * 1000).toFixed(0);
      console.log(`  ${''.padEnd(58)} CPU: ours ${cpuMs(groupsCpu)} ms, h5py ${cpuMs(theirCpu)} ms (medians)`);
      const marks = [100, 400, 1600];
      const sides = { ours: [] as PerDataset[], theirs: [] as PerDataset[] };
      for (let i = 0; i < REPEAT; i++) {
        const run = async (who: 'ours' | 'theirs'): Promise<void> => {
          if (who === 'ours') sides.ours.push(await oursOneGroup(join(dir, 'ours-one.h5'), 1600, marks));
          else {
            const r = await py.call({ cmd: 'one_group', path: join(dir, 'h5py-one.h5'), n: 1600, marks, window: WINDOW });
            sides.theirs.push({ wall: r.per as number[], cpu: r.cpu as number[] });
          }
        };
        if (i % 2 === 0) (await run('ours'), await run('theirs'));
        else (await run('theirs'), await run('ours'));
      }
      const at = (who: 'ours' | 'theirs', kind: keyof PerDataset, k: number): number[] => sides[who].map((p) => p[kind][k]!);
      marks.forEach((m, k) => {
        const ours = at('ours', 'wall', k);
        const theirs = at('theirs', 'wall', k);
        row(`per dataset at ${m.toLocaleString('en-US')} links in one group`, { ours: median(ours), theirs: median(theirs), ratio: median(ours.map((x, j) => theirs[j]! / x)) });
      });
      // Windows of 100 creations last a few milliseconds: on a loaded machine one preemption (or a
      // major GC) in a window moves its wall time a lot, so the growth is shown on CPU time too.
      const growth = (who: 'ours' | 'theirs', kind: keyof PerDataset): string => (median(at(who, kind, 2)) / median(at(who, kind, 0))).toFixed(2);
      console.log(`  per-dataset time at 1,600 links ÷ at 100 (target ≤ 1.5×): ours ${growth('ours', 'wall')}× wall, ${growth('ours', 'cpu')}× CPU; h5py ${growth('theirs', 'wall')}× wall, ${growth('theirs', 'cpu')}× CPU`);
      const cpuUs = (who: 'ours' | 'theirs'): string => marks.map((_, k) => (median(at(who, 'cpu', k)) * 1e6).toFixed(1)).join(' / ');
      console.log(`  CPU µs per dataset at 100 / 400 / 1,600 links: ours ${cpuUs('ours')}, h5py ${cpuUs('theirs')}`);
    }
  } finally {
    py.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-w6-'));
  try {
    await runSixthWave(dir, new Set((process.env.BENCH_W6_PARTS ?? 'points,groups').split(',')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
