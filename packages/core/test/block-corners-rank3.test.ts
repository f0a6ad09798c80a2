/**
 * Block lists of rank 3 with 2-byte coordinates (what point-group chunks store in section 0) are read
 * by an unrolled loop of their own (`corners2Rank3`, selection/serialize/hyperslab.ts): the same
 * lists written with 4-byte coordinates go through the general loop, and both must decode to the
 * same selection — and reject the same reversed or out-of-extent block with the same message.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/errors.js';
import { decodeSelection, type Selection } from '../src/selection/index.js';
import { fromHex, toHex } from './support/selection-serialize-cases.js';

const le = (v: number, width: 2 | 4): string => toHex(Uint8Array.from({ length: width }, (_, i) => Math.floor(v / 256 ** i) & 0xff));
const le64 = (v: number): string => le(v, 4) + le(0, 4);
/** Header + extent v1 (8-byte sizes, no max) for `dims`. */
const extent1 = (dims: number[]): string =>
  '010008' + le(8 + 8 * dims.length, 4) + '01' + toHex(Uint8Array.of(dims.length)) + '00' + '0000000000' + dims.map(le64).join('');

/** A hyperslab v3 block list: each block as its start corner and inclusive end corner. */
function blockList(dims: number[], blocks: [number[], number[]][], width: 2 | 4): Uint8Array {
  let hex = extent1(dims) + '02000000' + '03000000' + '00' + toHex(Uint8Array.of(width)) + le(3, 4) + le(blocks.length, width);
  for (const [s, e] of blocks) hex += s.map((v) => le(v, width)).join('') + e.map((v) => le(v, width)).join('');
  return fromHex(hex);
}

function outcome(bytes: Uint8Array): { sel?: Selection; error?: string } {
  try {
    return { sel: decodeSelection(bytes).selection };
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return { error: (e as Error).message.replace(/at offset \d+/, 'at offset _') };
  }
}

const DIMS = [9, 40, 300];
const corner = fc.tuple(fc.nat(DIMS[0]! + 1), fc.nat(DIMS[1]! + 1), fc.nat(DIMS[2]! + 1));
const block = fc.tuple(corner, fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3))).map(([s, l]): [number[], number[]] => [s, s.map((v, d) => v + l[d]!)]);

describe('rank-3 block lists with 2-byte coordinates', () => {
  it('decode as the same list with 4-byte coordinates does (random lists, overlapping, touching and out of extent)', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 40 }), (blocks) => {
        expect(outcome(blockList(DIMS, blocks, 2))).toEqual(outcome(blockList(DIMS, blocks, 4)));
      }),
      { numRuns: 400 },
    );
  });

  it('name the block that is reversed or leaves the extent, in each dimension', () => {
    const ok: [number[], number[]] = [
      [0, 0, 0],
      [1, 2, 3],
    ];
    for (let d = 0; d < 3; d++) {
      const reversed: [number[], number[]] = [[1, 5, 7], [1, 5, 7].map((v, k) => (k === d ? v - 1 : v))];
      expect(outcome(blockList(DIMS, [ok, reversed], 2)).error).toMatch(/hyperslab block 1 .*start is after its end/);
      const outside: [number[], number[]] = [[1, 5, 7], DIMS.map((n, k) => (k === d ? n : 8))];
      expect(outcome(blockList(DIMS, [ok, outside], 2)).error).toMatch(new RegExp(`hyperslab block 1 .*in dimension ${d}, outside the extent size ${DIMS[d]}`));
    }
    // a list of one valid block decodes to that block
    const one = outcome(blockList(DIMS, [ok], 2)).sel!;
    expect(one.kind).toBe('blocks');
    expect(Array.from((one as { boxes: Float64Array }).boxes)).toEqual([0, 2, 0, 3, 0, 4]);
  });
});
