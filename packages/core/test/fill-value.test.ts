import { describe, expect, it } from 'vitest';
import { FormatError, H5Error, TruncatedError, ValueError } from '../src/errors.js';
import { decodeFillValue, decodeFillValueOld, encodeFillValue, type FillValue } from '../src/format/messages/fill-value.js';
import { fixtures, hex, rng, toHex } from './fixtures/h5py-messages.js';

const ALLOC: Record<string, FillValue['allocTime']> = { early: 'early', late: 'late', incr: 'incremental' };

function expectedFor(name: string): FillValue {
  const none = { defined: false, value: null };
  if (name === 'default_contig') return { allocTime: 'late', fillTime: 'ifset', ...none };
  // h5py asks for fill-on-allocation for chunked datasets
  if (name === 'default_chunked') return { allocTime: 'incremental', fillTime: 'alloc', ...none };
  if (name === 'fill5') return { allocTime: 'late', fillTime: 'ifset', defined: true, value: hex('05000000') };
  if (name === 'fill_f8') return { allocTime: 'incremental', fillTime: 'alloc', defined: true, value: hex('000000000000f8bf') };
  if (name === 'early_fill7') return { allocTime: 'early', fillTime: 'ifset', defined: true, value: hex('0700') };
  const [a, t] = name.split('_') as [string, FillValue['fillTime']];
  return { allocTime: ALLOC[a]!, fillTime: t, ...none };
}

describe('fill value message (IV.A.2.f) against bytes written by HDF5 1.10.8', () => {
  it('decodes version 2 (libver earliest) and version 3 (latest) alike', () => {
    expect(fixtures.fills.length).toBe(28);
    for (const f of fixtures.fills) {
      expect(decodeFillValue(hex(f.hex), 300), `${f.libver}/${f.name}`).toEqual(expectedFor(f.name));
    }
  });

  it('encodes version 3 byte-identically to HDF5', () => {
    for (const f of fixtures.fills.filter((x) => x.libver === 'latest')) {
      expect(toHex(encodeFillValue(expectedFor(f.name))), f.name).toBe(f.hex);
    }
    // the notes' verified bytes (§10.7)
    expect(toHex(encodeFillValue({ allocTime: 'incremental', fillTime: 'ifset', defined: false, value: null }))).toBe('030b');
    expect(toHex(encodeFillValue({ allocTime: 'early', fillTime: 'ifset', defined: false, value: null }))).toBe('0309');
  });

  it('represents an explicitly undefined fill value', () => {
    const u: FillValue = { allocTime: 'late', fillTime: 'never', defined: false, value: null, undefinedValue: true };
    expect(toHex(encodeFillValue(u))).toBe('0316');
    expect(decodeFillValue(hex('0316'))).toEqual(u);
    expect(decodeFillValue(hex('02020100'))).toEqual(u); // version 2, fill value not defined
    expect(() => encodeFillValue({ ...u, value: hex('01') })).toThrow(ValueError);
  });

  it('decodes version 1 and the old message 0x0004', () => {
    expect(decodeFillValue(hex('0101000102000000abcd'))).toEqual({ allocTime: 'early', fillTime: 'alloc', defined: true, value: hex('abcd') });
    expect(decodeFillValueOld(hex('04000000deadbeef'))).toEqual(hex('deadbeef'));
    expect(decodeFillValueOld(hex('00000000'))).toEqual(new Uint8Array(0));
  });

  it('rejects bad input with typed errors', () => {
    expect(() => decodeFillValue(hex('0440'))).toThrow(/version 4/);
    expect(() => decodeFillValue(hex('0342'))).toThrow(/flags/);
    expect(() => decodeFillValue(hex('0330'))).toThrow(FormatError);
    expect(() => decodeFillValue(hex('0300'))).toThrow(FormatError);
    expect(() => decodeFillValue(hex('020903'))).toThrow(FormatError);
    expect(() => decodeFillValue(hex('032a08000000000000'), 99)).toThrow(TruncatedError);
    expect(() => decodeFillValueOld(hex('ffffffff00'))).toThrow(TruncatedError);
    try {
      decodeFillValue(hex('032a0800000000'), 99);
    } catch (e) {
      expect((e as H5Error).message).toMatch(/fill value message, at address 99/);
    }
    const rand = rng(3);
    for (let i = 0; i < 20000; i++) {
      const b = new Uint8Array(Math.floor(rand() * 16));
      for (let k = 0; k < b.length; k++) b[k] = Math.floor(rand() * 256);
      if (b.length) b[0] = 1 + (i % 3);
      for (const f of [decodeFillValue, decodeFillValueOld]) {
        try {
          f(b);
        } catch (e) {
          if (!(e instanceof H5Error)) throw e;
        }
      }
    }
  });
});
