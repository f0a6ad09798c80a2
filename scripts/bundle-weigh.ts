/**
 * Where the bytes of a budgeted browser bundle (test/bundle-size.test.ts) come from: builds it as the
 * test does, maps every byte of the minified output to its source module (esbuild's source map), and
 * prints per module (or per folder with `--dirs`): its minified bytes, its bytes gzipped alone, and
 * its marginal gzip bytes (the whole bundle gzipped minus the bundle gzipped without that module's
 * bytes; what cutting it would save, since gzip shares strings between modules).
 *
 *   pnpm bundle:weigh [everything|read] [--dirs] [--top N]
 */
import { gzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { browserBundleOptions, EVERYTHING_ENTRY, READ_ONLY_ENTRY } from '../test/bundle-entries.js';

const args = process.argv.slice(2);
const which = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? 'everything';
const byDir = args.includes('--dirs');
const top = Number(args[args.indexOf('--top') + 1]) || 60;
const root = resolve(import.meta.dirname, '..');
const entry = which === 'read' ? READ_ONLY_ENTRY : EVERYTHING_ENTRY;

const r = await build({ ...browserBundleOptions(which, entry, root), sourcemap: 'external', outfile: 'bundle.js' });
const code = r.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
const map = JSON.parse(r.outputFiles.find((f) => f.path.endsWith('.map'))!.text) as { sources: string[]; mappings: string };
const gz = (s: string): number => gzipSync(Buffer.from(s), { level: 9 }).length;
const total = gz(code);

/** Source index of every output character (-1: not mapped), from the source map's VLQ segments. */
function owners(): Int32Array {
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const own = new Int32Array(code.length).fill(-1);
  let lineStart = 0;
  let src = 0;
  let prev = -1;
  let prevSrc = -1;
  const lines = map.mappings.split(';');
  const codeLines = code.split('\n');
  for (let li = 0; li < lines.length; li++) {
    let col = 0;
    for (const seg of lines[li]!.split(',')) {
      if (!seg) continue;
      const vals: number[] = [];
      let v = 0;
      let shift = 0;
      for (const ch of seg) {
        const d = B64.indexOf(ch);
        v += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          vals.push(v & 1 ? -(v >>> 1) : v >>> 1);
          v = 0;
          shift = 0;
        }
      }
      col += vals[0]!;
      if (vals.length > 1) src += vals[1]!;
      const at = lineStart + col;
      if (prev >= 0) own.fill(prevSrc, prev, at);
      prev = at;
      prevSrc = vals.length > 1 ? src : -1;
    }
    lineStart += (codeLines[li]?.length ?? 0) + 1;
  }
  if (prev >= 0) own.fill(prevSrc, prev);
  return own;
}

const own = owners();
const label = (s: string): string => {
  const short = s.replace(/^.*?(packages\/|node_modules\/)/, '$1').replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, '');
  return byDir ? short.replace(/\/[^/]*$/, '') : short;
};
const groups = new Map<string, number[]>();
for (let i = 0; i < code.length; i++) {
  const g = own[i]! < 0 ? '(unmapped)' : label(map.sources[own[i]!]!);
  let list = groups.get(g);
  if (!list) groups.set(g, (list = []));
  list.push(i);
}
const rows = [...groups]
  .sort((a, b) => b[1].length - a[1].length)
  .slice(0, top)
  .map(([name, at]) => {
    const mine = new Uint8Array(code.length);
    for (const i of at) mine[i] = 1;
    let rest = '';
    let from = -1;
    for (let i = 0; i <= code.length; i++) {
      if (i < code.length && !mine[i]) {
        if (from < 0) from = i;
      } else if (from >= 0) {
        rest += code.slice(from, i);
        from = -1;
      }
    }
    return { name, min: at.length, alone: gz(at.map((i) => code[i]).join('')), marginal: total - gz(rest) };
  })
  .sort((a, b) => b.marginal - a.marginal);
console.log(`${which}: ${code.length} B min, ${total} B min+gzip (${(total / 1024).toFixed(1)} KB)`);
console.log('marginal  alone     min  module');
for (const x of rows) console.log(`${String(x.marginal).padStart(8)} ${String(x.alone).padStart(6)} ${String(x.min).padStart(7)}  ${x.name}`);
