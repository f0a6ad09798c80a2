/**
 * Per-section filter pipelines of structured chunks: filter pipeline message version 3 (dialect A,
 * docs/structured-chunk-format.md §4.1 (RFC table 17)) and the STC filter pipeline message 0x0019 version 1 (dialect B,
 * docs/structured-chunk-format.md §4.2), with the worked example of docs/structured-chunk-format.md §4.4 and HDF5's own filter descriptions.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { FormatError, H5Error, TruncatedError, ValueError } from '../src/errors.js';
import { decodeFilterPipeline, encodeFilterPipeline, type FilterPipeline } from '../src/format/messages/filter-pipeline.js';
import {
  decodeFilterPipelineV3,
  encodeFilterPipelineV3,
  FILTER_PIPELINE_VERSION_3,
  type SectionPipelines,
} from '../src/format/messages/filter-pipeline-v3.js';
import { decodeStcFilterPipeline, encodeStcFilterPipeline, STC_FILTER_PIPELINE_VERSION } from '../src/format/messages/stc-filter-pipeline.js';
import { FILTER_PIPELINE, messageTypeName, STC_FILTER_PIPELINE } from '../src/format/messages/message-types.js';
import type { RawMessage } from '../src/format/object-header.js';
import { h5pyMessages } from './support/h5py-headers.js';

const deflate9 = { id: 1, flags: 1, clientData: [9] };
const shuffle4 = { id: 2, flags: 1, clientData: [4] };

/** The h5stat test dataset's filters (docs/structured-chunk-format.md §4.4): FIXED deflate, then SELECTION deflate + shuffle. */
const H5STAT: SectionPipelines = {
  sections: [{ filters: [deflate9, shuffle4] }, { filters: [deflate9] }],
  order: [1, 0],
};
// prettier-ignore
const H5STAT_BODY = [
  0x02,                                                       // 2 filtered sections
  0x01, 0x01, 0x0a, 0x00,                                     // section 1, 1 filter, list = 10 bytes
  0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x09, 0x00, 0x00, 0x00, //   deflate, optional, 1 value, level 9
  0x00, 0x02, 0x14, 0x00,                                     // section 0, 2 filters, list = 20 bytes
  0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x09, 0x00, 0x00, 0x00, //   deflate, optional, level 9
  0x02, 0x00, 0x01, 0x00, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00, //   shuffle, optional, element size 4
];

describe('per-section pipelines: the worked example of docs/structured-chunk-format.md §4.4', () => {
  it('dialect B (STC filter pipeline, 0x0019 v1) reproduces the 40-byte body', () => {
    const enc = encodeStcFilterPipeline(H5STAT);
    expect(Array.from(enc)).toEqual([0x01, ...H5STAT_BODY]);
    expect(enc.length + 4).toBe(44); // H5STAT: STC pipeline message 44 bytes incl. its header
    expect(decodeStcFilterPipeline(enc)).toEqual(H5STAT);
  });

  it('dialect A (filter pipeline 0x000B v3) has the same body behind version byte 3', () => {
    const enc = encodeFilterPipelineV3(H5STAT);
    expect(Array.from(enc)).toEqual([0x03, ...H5STAT_BODY]);
    expect(decodeFilterPipelineV3(enc)).toEqual(H5STAT);
    // decodeFilterPipeline delegates version 3 instead of failing.
    const p = decodeFilterPipeline(enc, 0x400);
    expect(p).toEqual({ filters: [], sections: H5STAT.sections, sectionOrder: [1, 0] });
    expect(Array.from(encodeFilterPipeline(p, 3))).toEqual(Array.from(enc));
    expect(() => encodeFilterPipeline({ filters: [] }, 3)).toThrow(ValueError);
    expect(FILTER_PIPELINE_VERSION_3).toBe(3);
    expect(STC_FILTER_PIPELINE_VERSION).toBe(1);
  });

  it('message type constants', () => {
    expect(STC_FILTER_PIPELINE).toBe(0x0019);
    expect(FILTER_PIPELINE).toBe(0x000b);
    expect(messageTypeName(STC_FILTER_PIPELINE)).toBe('STC filter pipeline message');
  });

  it('without an order, filtered sections are written by number; unfiltered ones are left out', () => {
    const p: SectionPipelines = { sections: [{ filters: [] }, { filters: [deflate9] }, { filters: [shuffle4] }] };
    const enc = encodeStcFilterPipeline(p);
    expect(Array.from(enc.subarray(0, 6))).toEqual([1, 2, 1, 1, 10, 0]);
    expect(enc[16]).toBe(2);
    expect(decodeStcFilterPipeline(enc)).toEqual({ ...p, order: [1, 2] });
    expect(Array.from(encodeStcFilterPipeline({ sections: [{ filters: [] }, { filters: [] }] }))).toEqual([1, 0]);
  });

  it('sectionCount pads the model to the layout\'s sections and bounds section numbers', () => {
    const enc = encodeStcFilterPipeline({ sections: [{ filters: [deflate9] }] });
    expect(decodeStcFilterPipeline(enc, { sectionCount: 2 })).toEqual({ sections: [{ filters: [deflate9] }, { filters: [] }], order: [0] });
    const one = encodeStcFilterPipeline({ sections: [{ filters: [] }, { filters: [deflate9] }] });
    expect(() => decodeStcFilterPipeline(one, { sectionCount: 1, address: 77 })).toThrow(/section 1 out of range/);
    expect(() => decodeStcFilterPipeline(one, { sectionCount: 1, address: 77 })).toThrow(/address 77/);
  });

  it('third-party filters keep their NUL-terminated, unpadded names (pipeline-v2 descriptions, docs/structured-chunk-format.md §4.3)', () => {
    const p: SectionPipelines = { sections: [{ filters: [{ id: 32004, name: 'lz4', flags: 0, clientData: [] }] }, { filters: [{ id: 307, name: 'bzip2', flags: 1, clientData: [9] }] }] };
    const enc = encodeFilterPipelineV3(p);
    expect(Array.from(enc.subarray(0, 16))).toEqual([3, 2, 0, 1, 12, 0, 0x04, 0x7d, 4, 0, 0, 0, 0, 0, 0x6c, 0x7a]);
    expect(decodeFilterPipelineV3(enc)).toEqual({ ...p, order: [0, 1] });
  });
});

describe('filter descriptions match what HDF5 1.10.8 writes (pipeline message version 2)', () => {
  let msg: (name: string, type: number) => RawMessage[];
  beforeAll(async () => {
    msg = await h5pyMessages(
      [
        "f.create_dataset('zs', data=np.arange(100, dtype='<i4'), chunks=(50,), compression='gzip', compression_opts=9, shuffle=True, fletcher32=True)",
        "f.create_dataset('lzf', data=np.arange(100, dtype='<f4'), chunks=(50,), compression='lzf')",
        "f.create_dataset('so', data=np.arange(100, dtype='<i2'), chunks=(50,), scaleoffset=0)",
      ].join('\n'),
    );
  });

  for (const name of ['zs', 'lzf', 'so']) {
    it(`${name}: a section's description list is byte-identical to HDF5's v2 filter list`, () => {
      const body = msg(name, FILTER_PIPELINE)[0]!.body;
      expect(body[0]).toBe(2);
      const { filters } = decodeFilterPipeline(body);
      expect(filters.length).toBe(body[1]);
      const list = Array.from(body.subarray(2));
      for (const section of [0, 1]) {
        const sections: FilterPipeline[] = [{ filters: [] }, { filters: [] }];
        sections[section] = { filters };
        const enc = encodeStcFilterPipeline({ sections });
        expect(Array.from(enc)).toEqual([1, 1, section, filters.length, list.length & 0xff, list.length >> 8, ...list]);
        expect(decodeStcFilterPipeline(enc).sections[section]).toEqual({ filters });
      }
    });
  }
});

describe('per-section pipelines: corrupt input and encoder validation', () => {
  const ok = Array.from(encodeStcFilterPipeline(H5STAT));

  it('typed errors for bad bytes', () => {
    const set = (i: number, v: number) => {
      const b = Uint8Array.from(ok);
      b[i] = v;
      return b;
    };
    expect(() => decodeStcFilterPipeline(set(0, 2))).toThrow(FormatError); // version
    expect(() => decodeFilterPipelineV3(Uint8Array.from(ok))).toThrow(FormatError); // v1 body given to the v3 decoder
    expect(() => decodeStcFilterPipeline(set(4, 11))).toThrow(/list at offset 6 is 11 bytes but its 1 filters take 10/);
    expect(() => decodeStcFilterPipeline(set(4, 9))).toThrow(TruncatedError); // list ends inside the client data
    expect(() => decodeStcFilterPipeline(set(16, 1))).toThrow(/two pipelines/);
    expect(() => decodeStcFilterPipeline(set(17, 33))).toThrow(/33 filters exceed/);
    expect(() => decodeStcFilterPipeline(set(1, 3))).toThrow(TruncatedError);
    expect(() => decodeStcFilterPipeline(set(1, 3), { sectionCount: 2 })).toThrow(/3 filtered sections/);
    // A filter description claiming more client data than its list holds.
    expect(() => decodeStcFilterPipeline(set(11, 200))).toThrow(TruncatedError);
    for (let n = 0; n < ok.length; n++) expect(() => decodeStcFilterPipeline(Uint8Array.from(ok.slice(0, n)))).toThrow(H5Error);
  });

  it('random mutations throw only H5Errors', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(ok.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 5 }), fc.nat(ok.length), (muts, cut) => {
        const b = Uint8Array.from(ok.slice(0, cut));
        for (const [i, v] of muts) if (i < b.length) b[i] = v;
        for (const dec of [decodeStcFilterPipeline, (x: Uint8Array) => decodeFilterPipeline(Uint8Array.from([3, ...x.subarray(1)]))]) {
          try {
            dec(b);
          } catch (e) {
            expect(e).toBeInstanceOf(H5Error);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips random models', () => {
    const filter = fc.record({
      id: fc.oneof(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 256, max: 65535 })),
      flags: fc.integer({ min: 0, max: 0xffff }),
      clientData: fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 6 }),
      name: fc.option(fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0')), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(fc.array(filter, { maxLength: 4 }), { minLength: 1, maxLength: 3 }), fc.boolean(), (lists, shuffleOrder) => {
        const sections: FilterPipeline[] = lists.map((fs) => ({
          filters: fs.map((f) => (f.id >= 256 && f.name !== undefined ? { id: f.id, flags: f.flags, clientData: f.clientData, name: f.name } : { id: f.id, flags: f.flags, clientData: f.clientData })),
        }));
        const filtered = sections.flatMap((s, i) => (s.filters.length ? [i] : []));
        const order = shuffleOrder ? filtered.slice().reverse() : filtered;
        const p: SectionPipelines = { sections, order };
        for (const [enc, dec] of [
          [encodeStcFilterPipeline, decodeStcFilterPipeline],
          [encodeFilterPipelineV3, decodeFilterPipelineV3],
        ] as const) {
          const d = dec(enc(p), { sectionCount: sections.length });
          expect(d).toEqual(p);
          expect(Array.from(enc(d))).toEqual(Array.from(enc(p)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('encoder validation', () => {
    const s = H5STAT.sections;
    expect(() => encodeStcFilterPipeline({ sections: s, order: [0] })).toThrow(/section 1 has filters but is missing/);
    expect(() => encodeStcFilterPipeline({ sections: s, order: [0, 0, 1] })).toThrow(/twice/);
    expect(() => encodeStcFilterPipeline({ sections: s, order: [0, 2] })).toThrow(ValueError);
    expect(() => encodeStcFilterPipeline({ sections: [{ filters: new Array(33).fill(deflate9) }] })).toThrow(/33 filters/);
    expect(() => encodeStcFilterPipeline({ sections: [{ filters: [{ id: 70000, flags: 0, clientData: [] }] }] })).toThrow(ValueError);
    expect(() => encodeStcFilterPipeline({ sections: [{ filters: [{ id: 1, flags: 0, clientData: [-1] }] }] })).toThrow(ValueError);
    expect(() => encodeStcFilterPipeline({ sections: [{ filters: [{ id: 1, flags: 0x10000, clientData: [] }] }] })).toThrow(ValueError);
    expect(() => encodeStcFilterPipeline({ sections: [{ filters: [{ id: 1, flags: 0, clientData: new Array(16400).fill(1) }] }] })).toThrow(/65535/);
  });
});
