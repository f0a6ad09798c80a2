/**
 * The structured-chunk base (src/structured/) and the `chunkIndex` choice, as pure functions: section
 * filter options for any section names and presets; sections split and joined with one record field
 * per section; index choices checked against the layout.
 */
import { describe, expect, it } from 'vitest';
import { ValueError } from '../src/errors.js';
import { sectionPipelinesFromOptions } from '../src/structured/section-filters.js';
import { joinSections, splitSections, structInfo } from '../src/structured/sections.js';
import { chooseIndexWithOption } from '../src/chunk/index-option.js';

const ids = (p: { filters: { id: number }[] }): number[] => p.filters.map((f) => f.id);

describe('sectionPipelinesFromOptions', () => {
  const names = ['offsets', 'entries', 'heap'];

  it('puts the shorthands on every section, then each section its own filters; records the order given', () => {
    const a = sectionPipelinesFromOptions({ shuffle: true, filters: { heap: [{ id: 32015 }], offsets: [{ id: 3 }] } }, names, '/d');
    expect(a.pipelines.map(ids)).toEqual([[2, 3], [2], [2, 32015]]);
    expect(a.order).toEqual([0, 1, 2]);
    const b = sectionPipelinesFromOptions({ filters: { heap: [{ id: 1 }], offsets: [{ id: 3 }] } }, names, '/d');
    expect(b.pipelines.map(ids)).toEqual([[3], [], [1]]);
    expect(b.order).toEqual([2, 0]);
    const c = sectionPipelinesFromOptions({ filters: [{ id: 1 }] }, names, '/d');
    expect(c.pipelines.map(ids)).toEqual([[1], [1], [1]]);
    expect(sectionPipelinesFromOptions({}, names, '/d').order).toEqual([]);
  });

  it('expands a preset after the shorthands and says where it starts', () => {
    const presets = { heap: { small: [{ id: 2 }, { id: 1, clientData: [9] }] } };
    const a = sectionPipelinesFromOptions({ compression: 'gzip', filters: { heap: 'small' } }, names, '/d', presets);
    expect(a.pipelines[2]!.filters.map((f) => [f.id, f.clientData])).toEqual([[1, [4]], [2, []], [1, [9]]]);
    expect(a.presets.get(2)).toEqual({ name: 'small', at: 1 });
    expect(() => sectionPipelinesFromOptions({ filters: { heap: 'big' } }, names, '/d', presets)).toThrow(/unknown heap filter preset "big"; use 'small' or a filter list/);
    expect(() => sectionPipelinesFromOptions({ filters: { offsets: 'small' } }, names, '/d', presets)).toThrow(/unknown offsets filter preset "small"; use a filter list/);
    expect(() => sectionPipelinesFromOptions({ filters: { heap: 'toString' } }, names, '/d', presets)).toThrow(ValueError);
  });

  it('refuses unknown sections and malformed lists with ValueError', () => {
    expect(() => sectionPipelinesFromOptions({ filters: { values: [] } }, names, '/d')).toThrow(/unknown section "values" in filters; this format's sections are 'offsets', 'entries', 'heap'/);
    expect(() => sectionPipelinesFromOptions({ filters: { heap: 7 as never } }, names, '/d')).toThrow(/filters.heap must be a filter list/);
    expect(() => sectionPipelinesFromOptions({ filters: { heap: [{ id: -1 }] } }, names, '/d')).toThrow(/invalid filter id -1/);
  });
});

describe('structured sections', () => {
  it('joinSections → splitSections round-trips and structInfo reports one size per section', () => {
    const s = [Uint8Array.from([1, 2, 3]), new Uint8Array(0), Uint8Array.from([9, 9])];
    const image = joinSections(s, { unfilteredSizes: [5, 0, 4] }, true, '/d');
    expect(image.sections).toEqual({ offsets: [3, 3], unfilteredSizes: [5, 0, 4], filterMasks: [0, 0, 0] });
    expect(splitSections(image, 3, '/d')).toEqual(s);
    expect(structInfo([0], 100, image.bytes.length, image.sections, 3)).toMatchObject({ sectionSizes: [3, 0, 2], unfilteredSizes: [5, 0, 4] });
    expect(() => splitSections(image, 2, '/d')).toThrow(ValueError);
    expect(() => joinSections(s, { filterMasks: [0] }, true, '/d')).toThrow(/filterMasks has 1 entries for 3 sections/);
  });
});

describe('chooseIndexWithOption', () => {
  const base = { dims: [8, 6], maxDims: [8, 6], chunkDims: [4, 3], filtered: false, path: '/d' };
  it("keeps HDF5's choice without a request and builds the requested index with HDF5's parameters", () => {
    expect(chooseIndexWithOption({ ...base, layoutClass: 'chunked' }).type).toBe('fixed-array');
    expect(chooseIndexWithOption({ ...base, layoutClass: 'chunked', requested: 'btree2' })).toEqual({ type: 'btree2', nodeSize: 2048, splitPercent: 100, mergePercent: 40 });
    expect(chooseIndexWithOption({ ...base, layoutClass: 'chunked', allocTime: 'early', requested: 'implicit' })).toEqual({ type: 'implicit' });
    expect(chooseIndexWithOption({ ...base, layoutClass: 'structured', maxDims: [-1, 6], requested: 'extensible-array' }).type).toBe('extensible-array');
    const single = chooseIndexWithOption({ ...base, chunkDims: [8, 6], layoutClass: 'structured', sections: 3, filtered: true, requested: 'single' });
    expect(single).toEqual({ type: 'single', chunkSize: 0, sectionOffsets: [0, 0], unfilteredSizes: [0, 0, 0], filterMasks: [0, 0, 0] });
  });
  it('refuses what the layout cannot hold', () => {
    expect(() => chooseIndexWithOption({ ...base, layoutClass: 'structured', requested: 'implicit' })).toThrow(/structured-chunk layouts/);
    expect(() => chooseIndexWithOption({ ...base, layoutClass: 'chunked', requested: 'btree1' })).toThrow(/does not create them/);
    expect(() => chooseIndexWithOption({ ...base, layoutClass: 'chunked', requested: 'linked-list' })).toThrow(/unknown chunkIndex "linked-list"/);
  });
});
