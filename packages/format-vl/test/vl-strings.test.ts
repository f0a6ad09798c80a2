/**
 * Strings through the fast paths of VL chunks: appends of new strings in batches (one `encodeInto`
 * per batch when all ASCII, string by string otherwise), the word-wise ASCII check of a heap before
 * it is decoded as one text, exact heap growth. Mixed batches (ASCII, non-ASCII, surrogate pairs,
 * empty strings, at every position of a batch and of a heap word), dense and sparse, filtered and
 * not, compared after reopening; the ASCII charset refuses non-ASCII before anything is stored.
 */
import { describe, expect, it } from 'vitest';
import { ValueError, selectHyperslab, selectPoints, type Dataset } from '@chunkform/core';
import { createVlDataset } from '../src/index.js';
import { memoryFile, reopen } from './support.js';

const SAMPLES = ['', 'a', 'ascii only', 'é', 'naïve café', '𝄞', 'x𝄞y', '日本語テキスト', '', 'emoji 😀 pair', 'ab', 'abc', 'abcd', 'abcde', '\u007f', '\u0080'];

/** `n` strings mixing every sample at shifting positions (so a non-ASCII byte lands on every byte of a heap word). */
function mixed(n: number, seed: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = SAMPLES[(i * 7 + seed) % SAMPLES.length]!;
    out.push(i % 5 === 0 ? `${'p'.repeat((i + seed) % 4)}${s}` : s);
  }
  return out;
}

/** Writes `values`, checks the read before closing against `expected`, and returns what reads back after reopening. */
async function roundTrip(opts: { sparse?: boolean; compression?: 'gzip' }, values: string[], chunk: number, expected = values): Promise<string[]> {
  const { store, file } = await memoryFile();
  const d = await createVlDataset(file, 's', { dtype: 'string', shape: [values.length], chunks: [chunk], ...opts });
  await d.write(values);
  expect(await d.read()).toEqual(expected); // from the chunks in memory or just stored
  const g = await reopen(store, file);
  const back = (await ((await g.get('s')) as Dataset).read()) as string[];
  await g.close();
  return back;
}

describe('VL strings through the fast paths', () => {
  for (const [name, opts] of [
    ['dense', {}],
    ['dense, deflate on the heap', { compression: 'gzip' as const }],
    ['sparse', { sparse: true }],
  ] as const) {
    it(`${name}: non-ASCII, surrogate pairs and empty strings in batches of ASCII ones`, async () => {
      for (const seed of [0, 1, 2, 3]) {
        const v = mixed(300, seed);
        expect(await roundTrip(opts, v, 128)).toEqual(v);
      }
    });
  }

  it('all-ASCII chunks, all-empty chunks and a single non-ASCII string at the end of a chunk', async () => {
    const ascii = Array.from({ length: 200 }, (_, i) => `line ${i} ${'x'.repeat(i % 13)}`);
    const v = [...ascii, ...Array.from({ length: 64 }, () => ''), ...ascii.slice(0, 63), 'tail é'];
    expect(await roundTrip({}, v, 64)).toEqual(v);
  });

  it('a lone surrogate is stored as U+FFFD (as TextEncoder encodes it)', async () => {
    const v = ['ok', 'bad \ud800 half', 'ok too'];
    const stored = ['ok', 'bad \ufffd half', 'ok too'];
    expect(await roundTrip({}, v, 3, stored)).toEqual(stored);
  });

  it('rewrites into a chunk (not the append path) keep every value', async () => {
    const { store, file } = await memoryFile();
    const d = await createVlDataset(file, 's', { dtype: 'string', shape: [96], chunks: [32] });
    const first = mixed(96, 5);
    await d.write(first);
    const second = mixed(40, 9).map((s, i) => (i % 3 === 0 ? `${s}${s}` : [...s].slice(1).join("")));
    await d.write(second, selectHyperslab({ start: [20], count: [40] }));
    await d.write(['𝄞𝄞', ''], selectPoints([[1], [95]]));
    const model = [...first];
    model.splice(20, 40, ...second);
    model[1] = '𝄞𝄞';
    model[95] = '';
    expect(await d.read()).toEqual(model);
    const g = await reopen(store, file);
    expect(await ((await g.get('s')) as Dataset).read()).toEqual(model);
    await g.close();
  });

  it('the ASCII charset refuses a non-ASCII string in a batch of ASCII ones; the stored values stay', async () => {
    const { store, file } = await memoryFile();
    const d = await createVlDataset(file, 's', { dtype: 'str(ascii)', shape: [70], chunks: [70] });
    const before = Array.from({ length: 70 }, (_, i) => `v${i}`);
    await d.write(before);
    await file.flush();
    const bad = [...before];
    bad[66] = 'not ascii: é';
    await expect(d.write(bad)).rejects.toThrow(ValueError);
    const g = await reopen(store, file);
    expect(await ((await g.get('s')) as Dataset).read()).toEqual(before);
    await g.close();
  });
});
