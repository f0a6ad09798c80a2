/**
 * Real-browser tests in headless Chromium (Debian's `chromium`, installed by `.ci/install-browser`, driven by
 * playwright-core; no browser download). nginx serves the LCLS example, a file of LZ4 / bitshuffle / zstd
 * datasets written here, the Vite-built viewer (examples/viewer) and an esbuild bundle of a small page.
 * - the esbuild page reads gzip, shuffle, sparse, LZ4, bitshuffle and zstd datasets over HTTP with the values
 *   Node reads from disk (zstd's WebAssembly is not served: the read falls back to pure JavaScript);
 * - the viewer opens the LCLS example by URL, /run/reduced is selected in its tree, and the canvas shows
 *   coloured pixels where the frame is defined and the mask colour everywhere else, frame by frame.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import './setup-registrations.js';
import { startNginx, type Nginx } from './support/nginx.js';
import { readDigest } from './browser/read-digest.js';
import { Dataset, Group, createFile, openFile, selectHyperslab, selectionRuns } from '../packages/core/src/index.js';
import { MASK_RGB } from '../examples/viewer/src/colormap.js';

const root = resolve(import.meta.dirname, '..');
const CHROMIUM = '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'chunkform-browser-'));
const www = join(dir, 'www');
const lcls = join(www, 'lcls.h5');
const filtersFile = join(www, 'filters.h5');
mkdirSync(join(www, 'page'), { recursive: true });

let nginx: Nginx | undefined;
let base = '';
let context: BrowserContext | undefined;

/** Datasets of LZ4, bitshuffle (+LZ4, +zstd) and zstd chunks, written by chunkform in Node. */
async function writeFiltersFile(): Promise<void> {
  const data = Uint16Array.from({ length: 64 * 256 }, (_, i) => ((i * 2654435761) >>> 20) % 700 + (i % 256));
  const f = await createFile(filtersFile);
  const specs: Record<string, { id: number; clientData?: number[] }[]> = {
    lz4: [{ id: 32004 }],
    bitshuffle_lz4: [{ id: 32008, clientData: [0, 2] }],
    bitshuffle_zstd: [{ id: 32008, clientData: [0, 3] }],
    zstd: [{ id: 32015 }],
    shuffle_zstd: [{ id: 2 }, { id: 32015 }],
  };
  for (const [name, filters] of Object.entries(specs)) {
    await f.createDataset(name, { dtype: 'uint16', shape: [64, 256], chunks: [16, 256], filters, data });
  }
  await f.close();
}

beforeAll(async () => {
  if (!(await import('node:fs')).existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run .ci/install-browser`);
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples/lcls.ts'), lcls], { cwd: root, stdio: 'ignore' });
  await writeFiltersFile();
  execFileSync(process.execPath, [join(root, 'examples/viewer/node_modules/vite/bin/vite.js'), 'build', '--outDir', join(www, 'viewer'), '--logLevel', 'error'], {
    cwd: join(root, 'examples/viewer'),
    stdio: 'inherit',
  });
  await build({
    entryPoints: [join(root, 'test/browser/read-page.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: join(www, 'page/page.js'),
    logLevel: 'error',
  });
  writeFileSync(join(www, 'page/index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="page.js"></script>');
  nginx = await startNginx(dir, [{ root: www }]);
  base = nginx.urls[0]!;
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 800 },
  });
}, 120_000);

afterAll(async () => {
  await context?.close();
  nginx?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A new page that fails the test on uncaught page errors. */
async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

describe('esbuild bundle in Chromium', () => {
  it('reads gzip, shuffle, sparse, LZ4, bitshuffle and zstd datasets over HTTP with the values Node reads', async () => {
    const { page, errors } = await newPage();
    await page.goto(`${base}/page/index.html`);
    await page.waitForFunction(() => typeof window.readDataset === 'function');
    const cases: [file: string, path: string, frame?: number][] = [
      ['lcls.h5', '/run/full_frames', 1], // gzip
      ['lcls.h5', '/run/reduced', 5], // sparse: deflate selection section, shuffle + deflate values
      ['lcls.h5', '/run/full_frame_numbers'],
      ['filters.h5', '/lz4'],
      ['filters.h5', '/bitshuffle_lz4'],
      ['filters.h5', '/bitshuffle_zstd'],
      ['filters.h5', '/zstd'],
      ['filters.h5', '/shuffle_zstd'],
    ];
    for (const [name, path, frame] of cases) {
      const got = await page.evaluate(([u, p, fr]) => window.readDataset(u, p, fr ?? undefined), [`${base}/${name}`, path, frame ?? null] as const);
      const f = await openFile(join(www, name));
      const want = await readDigest(f, path, frame);
      await f.close();
      expect(got, `${name}:${path}`).toEqual(want);
      expect(want.count).toBeGreaterThan(0);
    }
    // the zstd WebAssembly module reports its failed load as an uncaught error before chunkform falls back
    expect(errors.filter((e) => !/failed to load wasm binary file at '[^']*zstd\.wasm'/.test(e))).toEqual([]);
    await page.close();
  });
});

describe('viewer (Vite build) in Chromium', () => {
  /** Node's defined mask of one LCLS frame (1 = defined). */
  async function definedMask(frame: number): Promise<{ mask: Uint8Array; h: number; w: number }> {
    const f = await openFile(lcls);
    const ds = (await f.get('/run/reduced')) as Dataset;
    const [, h, w] = ds.shape as [number, number, number];
    const defined = await ds.getDefined(selectHyperslab({ start: [frame, 0, 0], block: [1, h, w] }));
    await f.close();
    const runs = selectionRuns(defined, ds.shape);
    const mask = new Uint8Array(h * w);
    for (let r = 0; r < runs.length; r += 2) mask.fill(1, runs[r]! - frame * h * w, runs[r]! - frame * h * w + runs[r + 1]!);
    return { mask, h, w };
  }

  /** The canvas pixels once frame `frame` of /run/reduced is drawn. */
  async function canvasPixels(page: Page, frame: number): Promise<Uint8Array> {
    await page.waitForSelector(`canvas[data-drawn="/run/reduced[${frame}]"]`, { timeout: 20_000 });
    const b64 = await page.evaluate(() => {
      const c = document.querySelector('canvas')!;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let s = '';
      for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode(...d.subarray(i, i + 0x8000));
      return btoa(s);
    });
    return new Uint8Array(Buffer.from(b64, 'base64'));
  }

  function checkFrame(px: Uint8Array, mask: Uint8Array, roi: number[]): void {
    expect(px.length).toBe(mask.length * 4);
    const colour = (i: number) => (px[4 * i]! << 16) | (px[4 * i + 1]! << 8) | px[4 * i + 2]!;
    // every undefined element has one colour, close to the mask colour
    const undefinedColours = new Set<number>();
    const definedColours = new Set<number>();
    for (let i = 0; i < mask.length; i++) (mask[i] ? definedColours : undefinedColours).add(colour(i));
    expect(undefinedColours.size).toBe(1);
    const m = [...undefinedColours][0]!;
    const rgb = [m >> 16, (m >> 8) & 255, m & 255];
    rgb.forEach((c, k) => expect(Math.abs(c - MASK_RGB[k]!)).toBeLessThan(40));
    expect(definedColours.has(m)).toBe(false);
    // the ROI is defined and drawn in many colours of the map
    const [y0, x0, h, w] = roi as [number, number, number, number];
    const width = Math.sqrt(mask.length);
    const roiColours = new Set<number>();
    for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) roiColours.add(colour(y * width + x));
    expect(roiColours.has(m)).toBe(false);
    expect(roiColours.size).toBeGreaterThan(50);
  }

  it('opens the LCLS example by URL, shows /run/reduced with the undefined elements masked, and steps frames', async () => {
    const f = await openFile(lcls);
    const runRoi = Array.from((await ((await f.get('/run')) as Group).attrs.get('roi')) as Int32Array);
    await f.close();
    expect(runRoi.length).toBe(4);

    const { page, errors } = await newPage();
    await page.goto(`${base}/viewer/index.html`);
    await page.fill('#url', `${base}/lcls.h5`);
    await page.click('#url-form button');
    await page.click('summary[data-path="/run"]');
    await page.click('[data-path="/run/reduced"]');
    const frame0 = await definedMask(0);
    checkFrame(await canvasPixels(page, 0), frame0.mask, runRoi);
    const props = (await page.textContent('#props')) ?? '';
    expect(props).toContain('structured (sparse)');
    expect(props).toMatch(/filters: values\s*shuffle.*→ deflate/);

    await page.locator('#frame-controls input[type=range]').fill('7');
    const frame7 = await definedMask(7);
    checkFrame(await canvasPixels(page, 7), frame7.mask, runRoi);
    expect(frame7.mask).not.toEqual(frame0.mask); // the hits differ from frame to frame
    if (process.env.VIEWER_SCREENSHOT) await page.screenshot({ path: process.env.VIEWER_SCREENSHOT });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a local file (File → BlobSource) and draws a dense gzip frame without a mask', async () => {
    const { page, errors } = await newPage();
    await page.goto(`${base}/viewer/index.html`);
    await page.setInputFiles('#file', lcls);
    await page.click('summary[data-path="/run"]');
    await page.click('[data-path="/run/full_frames"]');
    await page.waitForSelector('canvas[data-drawn="/run/full_frames[0]"]', { timeout: 20_000 });
    const distinct = await page.evaluate(() => {
      const c = document.querySelector('canvas')!;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set<number>();
      for (let i = 0; i < d.length; i += 4) seen.add((d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!);
      return { size: seen.size, width: c.width };
    });
    expect(distinct.width).toBe(512);
    expect(distinct.size).toBeGreaterThan(20);
    expect(await page.isHidden('#mask-label')).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
