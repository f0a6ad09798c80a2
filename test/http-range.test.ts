/**
 * HttpRangeSource against real HTTP servers started here: Debian's nginx (installed by `.ci/run`; ranges
 * honoured, ranges switched off, a file replaced between requests) and a Node server that injects faults
 * (5xx then success, bodies cut off, a wrong Content-Range). Plus the request count of reading one sparse
 * frame of the LCLS example over HTTP.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { freePort, startNginx, type Nginx } from './support/nginx.js';
import {
  BlobSource,
  Dataset,
  HttpRangeSource,
  RemoteSourceError,
  openFile,
  selectHyperslab,
} from '../packages/core/src/index.js';

const root = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'chunkform-http-'));
const www = join(dir, 'www');
mkdirSync(www);

/** Byte-equality of two typed arrays (vitest's deep equality walks millions of elements slowly). */
function sameBytes(a: unknown, b: unknown): boolean {
  if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.constructor !== b.constructor) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

let nginx: Nginx | undefined;
let nginxUrl = '';
let noRangeUrl = '';
let faulty: Server | undefined;
let faultyUrl = '';
/** Faults the Node server injects, consumed per request. */
const faults: ('500' | 'cut' | 'bad-range')[] = [];
let faultyRequests = 0;

const lcls = join(www, 'lcls.h5');

beforeAll(async () => {
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples/lcls.ts'), lcls], { cwd: root, stdio: 'ignore' });
  writeFileSync(join(www, 'small.bin'), Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7 + 3) & 0xff));

  nginx = await startNginx(dir, [{ root: www }, { root: www, directives: 'max_ranges 0;' }]);
  [nginxUrl, noRangeUrl] = nginx.urls as [string, string];

  const small = readFileSync(join(www, 'small.bin'));
  faulty = createServer((req, res) => {
    faultyRequests++;
    const fault = faults.shift();
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    const start = Number(m?.[1] ?? 0);
    const end = Math.min(small.length - 1, Number(m?.[2] ?? small.length - 1));
    if (fault === '500') {
      res.writeHead(503).end('busy');
      return;
    }
    const body = small.subarray(start, end + 1);
    const range = fault === 'bad-range' ? `bytes ${start + 1}-${end}/${small.length}` : `bytes ${start}-${end}/${small.length}`;
    res.writeHead(206, { 'Content-Range': range, 'Content-Length': String(body.length) });
    if (fault === 'cut') {
      res.write(body.subarray(0, body.length >> 1));
      res.destroy();
      return;
    }
    res.end(body);
  });
  await new Promise<void>((r) => faulty!.listen(0, '127.0.0.1', r));
  faultyUrl = `http://127.0.0.1:${(faulty.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  nginx?.stop();
  await new Promise((r) => (faulty ? faulty.close(r) : r(undefined)));
  rmSync(dir, { recursive: true, force: true });
});

describe('HttpRangeSource with nginx', () => {
  it('reads any range with whole-block requests, cached and coalesced', async () => {
    const expected = readFileSync(join(www, 'small.bin'));
    const s = await HttpRangeSource.open(`${nginxUrl}/small.bin`, { blockSize: 4096 });
    expect(await s.size()).toBe(expected.length);
    expect(s.stats.requests).toBe(1);
    expect(Array.from(await s.read(5000, 20000))).toEqual(Array.from(expected.subarray(5000, 25000)));
    expect(s.stats.requests).toBe(2); // blocks 1–6 in one request
    await s.read(100, 3000); // block 0: cached since open
    await s.read(6000, 100);
    expect(s.stats.requests).toBe(2);
    expect(Array.from(await s.read(expected.length - 10, 100))).toEqual(Array.from(expected.subarray(expected.length - 10)));
    expect((await s.read(expected.length + 5, 10)).length).toBe(0);
  });

  it('de-duplicates reads of the same block in flight', async () => {
    const s = await HttpRangeSource.open(`${nginxUrl}/small.bin`, { blockSize: 4096 });
    await Promise.all([s.read(50_000, 10), s.read(50_010, 10), s.read(50_020, 5000)]);
    expect(s.stats.requests).toBe(3); // open, block 12 (once, for all three reads), block 13
  });

  it('opens an HDF5 file by URL and reads the same values as from disk', async () => {
    const web = await openFile(`${nginxUrl}/lcls.h5`);
    const disk = await openFile(lcls);
    for (const path of ['/run/reduced', '/run/full_frames', '/run/full_frame_numbers']) {
      const a = (await web.get(path)) as Dataset;
      const b = (await disk.get(path)) as Dataset;
      expect(sameBytes(await a.read(), await b.read())).toBe(true);
    }
    await web.close();
    await disk.close();
  });

  it('reads one sparse frame of the LCLS example in at most 6 requests, no byte twice', async () => {
    const ranges: [number, number][] = [];
    const counting: typeof fetch = async (input, init) => {
      const m = /bytes=(\d+)-(\d+)/.exec(String((init?.headers as Record<string, string>)?.Range));
      if (m) ranges.push([Number(m[1]), Number(m[2])]);
      return fetch(input, init);
    };
    const f = await openFile(new URL(`${nginxUrl}/lcls.h5`), { http: { fetch: counting } });
    const d = (await f.get('/run/reduced')) as Dataset;
    const frame = selectHyperslab({ start: [7, 0, 0], count: [1, d.shape[1]!, d.shape[2]!] });
    const { values } = await d.readDefined(frame);
    await f.close();
    const disk = await openFile(lcls);
    const want = await ((await disk.get('/run/reduced')) as Dataset).readDefined(frame);
    await disk.close();
    expect(sameBytes(values, want.values)).toBe(true);
    expect(ranges.length).toBeLessThanOrEqual(6);
    ranges.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBeGreaterThan(ranges[i - 1]![1]);
  });

  it('names a server that ignores Range requests', async () => {
    await expect(openFile(`${noRangeUrl}/lcls.h5`)).rejects.toThrow(/ignores Range requests/);
    // a file no larger than the first block is fine even then
    const s = await HttpRangeSource.open(`${noRangeUrl}/small.bin`, { blockSize: 1 << 20 });
    expect(await s.size()).toBe(300_000);
  });

  it('reports a file replaced between requests', async () => {
    const path = join(www, 'replaced.bin');
    writeFileSync(path, new Uint8Array(200_000).fill(1));
    const s = await HttpRangeSource.open(`${nginxUrl}/replaced.bin`, { blockSize: 4096 });
    await new Promise((r) => setTimeout(r, 1100)); // a new Last-Modified second
    writeFileSync(`${path}.new`, new Uint8Array(200_000).fill(2));
    renameSync(`${path}.new`, path);
    await expect(s.read(100_000, 10)).rejects.toThrow(/changed on the server/);
    await expect(s.read(100_000, 10)).rejects.toBeInstanceOf(RemoteSourceError);
  });

  it('reports a missing file with its status', async () => {
    await expect(openFile(`${nginxUrl}/missing.h5`)).rejects.toThrow(/HTTP 404/);
  });
});

describe('HttpRangeSource with injected faults', () => {
  it('retries 5xx answers and cut-off bodies, then succeeds', async () => {
    const expected = readFileSync(join(www, 'small.bin'));
    const s = await HttpRangeSource.open(`${faultyUrl}/small.bin`, { blockSize: 4096, retryDelayMs: 1 });
    faults.push('500', 'cut', '500');
    const before = faultyRequests;
    expect(Array.from(await s.read(10_000, 5000))).toEqual(Array.from(expected.subarray(10_000, 15_000)));
    expect(faultyRequests - before).toBe(4);
  });

  it('gives up with a typed error after the last attempt', async () => {
    const s = await HttpRangeSource.open(`${faultyUrl}/small.bin`, { blockSize: 4096, retryDelayMs: 1, attempts: 3 });
    faults.push('500', '500', '500');
    await expect(s.read(40_000, 10)).rejects.toThrow(/HTTP 503.*after 3 attempts/);
  });

  it('refuses a Content-Range that does not match the request', async () => {
    const s = await HttpRangeSource.open(`${faultyUrl}/small.bin`, { blockSize: 4096, retryDelayMs: 1 });
    faults.push('bad-range');
    await expect(s.read(80_000, 10)).rejects.toThrow(/bad Content-Range/);
  });

  it('an unreachable server is a typed error, not a hang', async () => {
    const port = await freePort();
    await expect(HttpRangeSource.open(`http://127.0.0.1:${port}/x.h5`, { attempts: 2, retryDelayMs: 1 })).rejects.toBeInstanceOf(RemoteSourceError);
  });
});

describe('BlobSource', () => {
  it('opens an HDF5 file from a Blob and a File', async () => {
    const bytes = readFileSync(lcls);
    const f = await openFile(new Blob([bytes]));
    const d = (await f.get('/run/full_frame_numbers')) as Dataset;
    const disk = await openFile(lcls);
    expect(await d.read()).toEqual(await ((await disk.get('/run/full_frame_numbers')) as Dataset).read());
    await disk.close();
    await f.close();
    const file = new File([bytes], 'lcls.h5');
    const s = new BlobSource(file);
    expect(await s.size()).toBe(bytes.length);
    expect(Array.from(await s.read(bytes.length - 4, 100))).toEqual(Array.from(bytes.subarray(bytes.length - 4)));
  });
});

