import { describe, expect, it } from 'vitest';
import { ChecksumError, FilterError, H5Error, UnknownFilterError } from '../src/errors.js';
import type { Filter } from '../src/filter/filter.js';
import { decodeChunk, encodeChunk, setLocalPipeline, type PipelineContext } from '../src/filter/pipeline.js';
import { pipelineOffload, setPipelineOffload, type PipelineOffload } from '../src/filter/offload.js';
import type { FilterPipeline } from '../src/format/messages/filter-pipeline.js';

const CTX: PipelineContext = { datatype: { class: 'integer', size: 2, signed: false, order: 'LE' }, elementSize: 2, chunkDims: [4] };
const WHERE = { path: '/g/data', chunk: [1, 2] };

/** A filter that appends its tag byte on encode and checks/removes it on decode. */
function tagFilter(id: number, tag: number, log: string[] = []): Filter {
  return {
    id,
    name: `tag${tag}`,
    encode(d, ctx) {
      log.push(`enc${tag}:${ctx.clientData.join(',')}:${ctx.flags}`);
      const out = new Uint8Array(d.length + 1);
      out.set(d);
      out[d.length] = tag;
      return out;
    },
    async decode(d) {
      log.push(`dec${tag}`);
      if (d[d.length - 1] !== tag) throw new Error(`tag ${tag} missing`);
      return d.subarray(0, d.length - 1);
    },
  };
}

const failing: Filter = {
  id: 300,
  name: 'broken',
  encode() {
    throw new Error('boom');
  },
  decode() {
    throw new RangeError('bad data');
  },
};

function pipe(...filters: [number, number, number[]?][]): FilterPipeline {
  return { filters: filters.map(([id, flags, cd]) => ({ id, flags, clientData: cd ?? [] })) };
}

describe('filter pipeline', () => {
  it('encodes first to last and decodes last to first', async () => {
    const log: string[] = [];
    const reg = new Map([10, 11, 12].map((id, i) => [id, tagFilter(id, i + 1, log)]));
    const p = pipe([10, 0, [7]], [11, 1], [12, 0, [1, 2]]);
    const data = Uint8Array.from([5, 6]);
    const enc = await encodeChunk(data, p, (id) => reg.get(id), CTX, WHERE);
    expect(enc.filterMask).toBe(0);
    expect([...enc.bytes]).toEqual([5, 6, 1, 2, 3]);
    expect(log).toEqual(['enc1:7:0', 'enc2::1', 'enc3:1,2:0']);
    log.length = 0;
    expect([...(await decodeChunk(enc.bytes, p, 0, (id) => reg.get(id), CTX, WHERE))]).toEqual([5, 6]);
    expect(log).toEqual(['dec3', 'dec2', 'dec1']);
  });

  it('starts the filters within the call when the offload declines at once, and waits for one that takes the chunk', async () => {
    // (a decode that runs on another thread, like deflate on libuv's pool, then starts before the
    // caller's next synchronous work: the chunks of one read inflate while the caller decodes others)
    const before = pipelineOffload();
    const log: string[] = [];
    const reg = new Map([10, 11].map((id, i) => [id, tagFilter(id, i + 1, log)]));
    const p = pipe([10, 0], [11, 0]);
    const bytes = Uint8Array.from([5, 1, 2]);
    let taken: Uint8Array | null = null;
    const offload: PipelineOffload = { encode: () => null, decode: () => (taken ? Promise.resolve(taken) : null) };
    try {
      setPipelineOffload(offload);
      const job = decodeChunk(bytes, p, 0, (id) => reg.get(id), CTX, WHERE);
      expect(log).toEqual(['dec2']); // before any await of the caller
      expect([...(await job)]).toEqual([5]);
      expect(log).toEqual(['dec2', 'dec1']);
      log.length = 0;
      taken = Uint8Array.from([9]);
      expect([...(await decodeChunk(bytes, p, 0, (id) => reg.get(id), CTX, WHERE))]).toEqual([9]);
      expect(log).toEqual([]);
      // encoding alike: the first filter runs within the call when the offload declines
      const enc = encodeChunk(Uint8Array.from([5]), p, (id) => reg.get(id), CTX, WHERE);
      expect(log).toEqual(['enc1::0']);
      expect([...(await enc).bytes]).toEqual([5, 1, 2]);
    } finally {
      setPipelineOffload(before);
    }
  });

  it('skips the filters whose mask bit is set, even unregistered ones', async () => {
    const reg = new Map([[10, tagFilter(10, 1)]]);
    const p = pipe([10, 0], [99, 0]);
    expect([...(await decodeChunk(Uint8Array.from([4, 1]), p, 0b10, (id) => reg.get(id), CTX, WHERE))]).toEqual([4]);
    expect([...(await decodeChunk(Uint8Array.from([4]), p, 0b11, (id) => reg.get(id), CTX, WHERE))]).toEqual([4]);
  });

  it('names filter, package, dataset and chunk when a filter is not registered', async () => {
    const err = await decodeChunk(new Uint8Array(4), pipe([32001, 0]), 0, () => undefined, CTX, WHERE).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownFilterError);
    expect(err.filterId).toBe(32001);
    expect(err.message).toBe('object "/g/data", chunk [1, 2]: filter 32001 ("blosc") is not registered; it is provided by (no package yet)');
    const named = { filters: [{ id: 40000, name: 'my-codec', flags: 0, clientData: [] }] };
    const err2 = await decodeChunk(new Uint8Array(4), named, 0, () => undefined, CTX, WHERE).catch((e) => e);
    expect(err2.message).toContain('filter 40000 ("my-codec") is not registered');
    const err3 = await decodeChunk(new Uint8Array(4), pipe([1, 0]), 0, () => undefined, CTX, WHERE).catch((e) => e);
    expect(err3.message).toContain('"deflate"');
    expect(err3.message).toContain('@chunkform/filters');
  });

  it('wraps a failing filter in a FilterError naming filter, dataset and chunk', async () => {
    const err = await decodeChunk(new Uint8Array(4), pipe([300, 0]), 0, () => failing, CTX, { ...WHERE, address: 4096 }).catch((e) => e);
    expect(err).toBeInstanceOf(FilterError);
    expect(err).toBeInstanceOf(H5Error);
    expect(err.filterId).toBe(300);
    expect(err.filterName).toBe('broken');
    expect(err.chunk).toEqual([1, 2]);
    expect(err.path).toBe('/g/data');
    expect(err.cause).toBeInstanceOf(RangeError);
    expect(err.message).toBe('object "/g/data", at address 4096: filter 300 ("broken") failed to decode chunk [1, 2]: bad data');
    const enc = await encodeChunk(new Uint8Array(4), pipe([300, 0]), () => failing, CTX, WHERE).catch((e) => e);
    expect(enc).toBeInstanceOf(FilterError);
    expect(enc.message).toContain('failed to encode chunk [1, 2]: boom');
  });

  it('keeps a checksum mismatch a ChecksumError, located', async () => {
    const sum: Filter = {
      id: 3,
      name: 'fletcher32',
      encode: (d) => d,
      decode() {
        throw new ChecksumError('fletcher32 checksum', -1, 1, 2);
      },
    };
    const err = await decodeChunk(new Uint8Array(8), pipe([3, 0]), 0, () => sum, CTX, WHERE).catch((e) => e);
    expect(err).toBeInstanceOf(ChecksumError);
    expect(err.path).toBe('/g/data');
    expect(err.message).toContain('chunk [1, 2]');
  });

  it('skips optional filters that fail or are missing on write, as H5Z_pipeline does', async () => {
    const reg = new Map<number, Filter>([
      [10, tagFilter(10, 1)],
      [300, failing],
    ]);
    const p = pipe([10, 0], [300, 1], [77, 1], [10, 0]);
    const enc = await encodeChunk(Uint8Array.from([9]), p, (id) => reg.get(id), CTX, WHERE);
    expect(enc.filterMask).toBe(0b0110);
    expect([...enc.bytes]).toEqual([9, 1, 1]);
    expect([...(await decodeChunk(enc.bytes, p, enc.filterMask, (id) => reg.get(id), CTX, WHERE))]).toEqual([9]);
    // mandatory ones are errors
    await expect(encodeChunk(Uint8Array.from([9]), pipe([300, 0]), (id) => reg.get(id), CTX, WHERE)).rejects.toThrow(FilterError);
    await expect(encodeChunk(Uint8Array.from([9]), pipe([77, 0]), (id) => reg.get(id), CTX, WHERE)).rejects.toThrow(UnknownFilterError);
  });

  it('keeps a filter whose output grew (HDF5 skips only on failure)', async () => {
    const grow: Filter = { id: 20, name: 'grow', encode: (d) => new Uint8Array(d.length * 3), decode: (d) => d.subarray(0, d.length / 3) };
    const enc = await encodeChunk(new Uint8Array(5), pipe([20, 1]), () => grow, CTX, WHERE);
    expect(enc.filterMask).toBe(0);
    expect(enc.bytes.length).toBe(15);
  });

  it('leaves partial edge chunks unfiltered with mask 0 when asked to', async () => {
    const data = Uint8Array.from([1, 2, 3]);
    const enc = await encodeChunk(data, pipe([300, 0]), () => failing, CTX, WHERE, { skipFilters: true });
    expect(enc).toEqual({ bytes: data, filterMask: 0 });
  });

  it('rejects pipelines of more than 32 filters', async () => {
    const many = pipe(...Array.from({ length: 33 }, () => [10, 0] as [number, number]));
    await expect(decodeChunk(new Uint8Array(1), many, 0, () => undefined, CTX, WHERE)).rejects.toThrow(FilterError);
  });

  it('setLocalPipeline computes stored client data with each filter set-local', () => {
    const withLocal: Filter = { ...tagFilter(10, 1), setLocal: (cd, ctx) => [...cd, ctx.elementSize, ctx.chunkDims.length] };
    const bad: Filter = {
      ...tagFilter(11, 2),
      setLocal() {
        throw new Error('not for this type');
      },
    };
    const reg = new Map<number, Filter>([
      [10, withLocal],
      [11, bad],
      [12, tagFilter(12, 3)],
    ]);
    const p = pipe([10, 0, [5]], [12, 0, [8]], [55, 1, [3]]);
    const out = setLocalPipeline(p, CTX, (id) => reg.get(id), '/x');
    expect(out.filters.map((f) => f.clientData)).toEqual([[5, 2, 1], [8], [3]]);
    expect(p.filters[0]!.clientData).toEqual([5]); // input untouched
    expect(() => setLocalPipeline(pipe([11, 0]), CTX, (id) => reg.get(id), '/x')).toThrow(/cannot be applied to this dataset: not for this type/);
    expect(() => setLocalPipeline(pipe([55, 0]), CTX, (id) => reg.get(id), '/x')).toThrow(UnknownFilterError);
    const neg: Filter = { ...tagFilter(13, 4), setLocal: () => [-1] };
    expect(() => setLocalPipeline(pipe([13, 0]), CTX, () => neg)).toThrow(FilterError);
  });
});
