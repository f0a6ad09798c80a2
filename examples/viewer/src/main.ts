/**
 * chunkform viewer: open an HDF5 file (picked, dropped, or by URL over HTTP range requests), browse its
 * groups, attributes and dataset properties, and draw 2-D slices of dense and sparse datasets with a colour
 * map, a slider per leading dimension and the undefined elements of sparse data masked.
 *
 * `?url=<file URL>&path=<dataset path>` opens a file and selects an object on load.
 * @module
 */
import { CommittedDatatype, Dataset, Group, openFile, type H5File } from '@chunkform/core';
import { registerDenseFormats } from '@chunkform/format-dense';
import { registerSparseFormat } from '@chunkform/format-sparse';
import { registerIndexes } from '@chunkform/indexes';
import { registerFilters } from '@chunkform/filters';
import { renderFrame, type Frame } from './colormap.js';
import { isImageable, isSparse, readFrame } from './frame.js';
import { attributeRows, datasetRows, formatValue, type Row } from './properties.js';
import { showTree } from './tree.js';

registerIndexes();
registerDenseFormats();
registerSparseFormat();
registerFilters();

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $('status');
const tree = $('tree');
const title = $('title');
const props = $<HTMLTableElement>('props');
const imagePanel = $('image-panel');
const frameControls = $('frame-controls');
const canvas = $<HTMLCanvasElement>('canvas');
const pixel = $('pixel');
const valuesBox = $('values');
const cmap = $<HTMLSelectElement>('cmap');
const logBox = $<HTMLInputElement>('log');
const maskBox = $<HTMLInputElement>('mask');
const maskLabel = $('mask-label');

let file: H5File | undefined;
let current: { ds: Dataset; path: string; lead: number[]; frame?: Frame } | undefined;
/** Bumped on every selection or frame change: a read that finishes late does not draw over a newer one. */
let generation = 0;

function say(text: string, error = false): void {
  status.textContent = text;
  status.classList.toggle('error', error);
}

async function open(src: string | File): Promise<void> {
  say(`opening ${typeof src === 'string' ? src : src.name}…`);
  try {
    const f = await openFile(src);
    const old = file;
    file = f;
    current = undefined;
    generation++;
    await old?.close();
    await showTree(tree, f, (path, el) => void select(path, el));
    say(`${typeof src === 'string' ? src : src.name}`);
  } catch (e) {
    say(`cannot open: ${(e as Error).message}`, true);
  }
}

function fillTable(rows: Row[]): void {
  props.replaceChildren(
    ...rows.map(([k, v]) => {
      const tr = document.createElement('tr');
      const a = document.createElement('td');
      const b = document.createElement('td');
      a.textContent = k;
      b.textContent = v;
      tr.append(a, b);
      return tr;
    }),
  );
}

async function select(path: string, el?: HTMLElement): Promise<void> {
  if (!file) return;
  const gen = ++generation;
  tree.querySelectorAll('.selected').forEach((s) => s.classList.remove('selected'));
  el?.classList.add('selected');
  title.textContent = path;
  imagePanel.hidden = true;
  valuesBox.hidden = true;
  current = undefined;
  try {
    const node = await file.get(path);
    if (!(node instanceof Dataset)) {
      const rows: Row[] = [['kind', node instanceof Group ? 'group' : node instanceof CommittedDatatype ? 'committed datatype' : 'external link']];
      if ('attrs' in node) rows.push(...(await attributeRows(node)));
      if (gen === generation) fillTable(rows);
      return;
    }
    const rows = [...(await datasetRows(node)), ...(await attributeRows(node))];
    if (gen !== generation) return;
    fillTable(rows);
    if (isImageable(node)) {
      current = { ds: node, path, lead: node.shape.slice(0, -2).map(() => 0) };
      buildSliders(node);
      maskLabel.hidden = !isSparse(node);
      imagePanel.hidden = false;
      await draw();
    } else if (node.size <= 10_000) {
      valuesBox.textContent = formatValue(await node.read(), 20_000);
      valuesBox.hidden = gen !== generation;
    }
  } catch (e) {
    if (gen === generation) say(`${path}: ${(e as Error).message}`, true);
  }
}

function buildSliders(ds: Dataset): void {
  frameControls.replaceChildren();
  ds.shape.slice(0, -2).forEach((n, d) => {
    if (n <= 1) return;
    const label = document.createElement('label');
    const input = document.createElement('input');
    const out = document.createElement('output');
    input.type = 'range';
    input.min = '0';
    input.max = String(n - 1);
    input.value = '0';
    input.dataset.dim = String(d);
    out.textContent = `0 / ${n - 1}`;
    input.addEventListener('input', () => {
      if (!current) return;
      current.lead[d] = Number(input.value);
      out.textContent = `${input.value} / ${n - 1}`;
      void draw();
    });
    label.append(ds.shape.length === 3 ? 'frame ' : `dim ${d} `, input, out);
    frameControls.append(label);
  });
}

/** Reads the current frame (unless only the rendering options changed) and paints it. */
async function draw(reread = true): Promise<void> {
  const cur = current;
  if (!cur) return;
  const gen = ++generation;
  canvas.removeAttribute('data-drawn');
  try {
    if (reread || !cur.frame) {
      const t0 = performance.now();
      cur.frame = await readFrame(cur.ds, cur.lead);
      if (gen !== generation) return;
      const n = cur.frame.defined ? cur.frame.defined.reduce((a, b) => a + b, 0) : cur.frame.values.length;
      say(`${cur.path} [${cur.lead.join(', ')}]: ${n.toLocaleString('en-US')} defined elements, read in ${(performance.now() - t0).toFixed(0)} ms`);
    }
    const fr = cur.frame;
    canvas.width = fr.width;
    canvas.height = fr.height;
    const ctx = canvas.getContext('2d')!;
    const img = ctx.createImageData(fr.width, fr.height);
    renderFrame(fr, { colourMap: cmap.value, log: logBox.checked, showMask: maskBox.checked }, img.data);
    ctx.putImageData(img, 0, 0);
    canvas.dataset.drawn = `${cur.path}[${cur.lead.join(',')}]`;
  } catch (e) {
    if (gen === generation) say(`${cur.path}: ${(e as Error).message}`, true);
  }
}

for (const el of [cmap, logBox, maskBox]) el.addEventListener('change', () => void draw(false));

canvas.addEventListener('mousemove', (ev) => {
  const fr = current?.frame;
  if (!fr) return;
  const r = canvas.getBoundingClientRect();
  const x = Math.floor(((ev.clientX - r.left) / r.width) * fr.width);
  const y = Math.floor(((ev.clientY - r.top) / r.height) * fr.height);
  if (x < 0 || y < 0 || x >= fr.width || y >= fr.height) return;
  const i = y * fr.width + x;
  pixel.textContent = `y ${y}, x ${x}: ${fr.defined && !fr.defined[i] ? 'undefined' : String(fr.values[i])}`;
});

$<HTMLInputElement>('file').addEventListener('change', (ev) => {
  const f = (ev.target as HTMLInputElement).files?.[0];
  if (f) void open(f);
});
$<HTMLFormElement>('url-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const u = $<HTMLInputElement>('url').value.trim();
  if (u) void open(new URL(u, location.href).href);
});
document.addEventListener('dragover', (ev) => {
  ev.preventDefault();
  document.body.classList.add('dragging');
});
document.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
document.addEventListener('drop', (ev) => {
  ev.preventDefault();
  document.body.classList.remove('dragging');
  const f = ev.dataTransfer?.files[0];
  if (f) void open(f);
});

const params = new URLSearchParams(location.search);
const startUrl = params.get('url');
if (startUrl) {
  $<HTMLInputElement>('url').value = startUrl;
  void open(new URL(startUrl, location.href).href).then(() => {
    const p = params.get('path');
    if (p) void select(p, tree.querySelector<HTMLElement>(`[data-path="${CSS.escape(p)}"]`) ?? undefined);
  });
}
