import { describe, expect, it } from 'vitest';
import { selectBlocks, selectHyperslab } from '@chunkform/core';
import { selectionCoordinates } from '../src/index.js';

describe('selectionCoordinates', () => {
  it('lists coordinates in selection (C) order, run by run', () => {
    const sel = selectBlocks([
      { start: [0, 1], end: [2, 3] },
      { start: [3, 0], end: [4, 1] },
    ]);
    const [r, c] = selectionCoordinates(sel, [4, 5]);
    expect(Array.from(r!)).toEqual([0, 0, 1, 1, 3]);
    expect(Array.from(c!)).toEqual([1, 2, 1, 2, 0]);
  });
  it('handles strided hyperslabs in 3-D', () => {
    const sel = selectHyperslab({ start: [0, 0, 1], stride: [1, 2, 2], count: [2, 2, 2], block: [1, 1, 1] });
    const cs = selectionCoordinates(sel, [2, 4, 5]);
    const triples = Array.from(cs[0]!, (_, k) => [cs[0]![k], cs[1]![k], cs[2]![k]]);
    expect(triples).toEqual([
      [0, 0, 1], [0, 0, 3], [0, 2, 1], [0, 2, 3],
      [1, 0, 1], [1, 0, 3], [1, 2, 1], [1, 2, 3],
    ]);
  });
});
