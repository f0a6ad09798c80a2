/** validateSelection remembers large point/block selections it checked, per dataspace shape. */
import { describe, expect, it } from 'vitest';
import { SelectionError, selectBlocks, selectPoints, validateSelection } from '../src/index.js';
import { trustSelection } from '../src/selection/selection.js';

describe('validateSelection memo', () => {
  const coords = new Float64Array(200);
  for (let i = 0; i < 100; i++) {
    coords[2 * i] = i % 10;
    coords[2 * i + 1] = 9 - (i % 10);
  }

  it('a selection valid in a shape stays valid in larger shapes and is checked again in smaller ones', () => {
    const sel = selectPoints(coords, 2);
    validateSelection(sel, [10, 10]);
    expect(() => validateSelection(sel, [20, 10])).not.toThrow();
    expect(() => validateSelection(sel, [10, 9])).toThrow(SelectionError);
    expect(() => validateSelection(sel, [10, 10, 1])).toThrow(SelectionError);
    expect(() => validateSelection(sel, [10, -1])).toThrow(SelectionError);
  });

  it('blocks and trusted selections', () => {
    const boxes = Array.from({ length: 20 }, (_, i) => ({ start: [2 * i, 0], end: [2 * i + 1, 3] }));
    const sel = selectBlocks(boxes);
    validateSelection(sel, [40, 3]);
    expect(() => validateSelection(sel, [40, 2])).toThrow(SelectionError);
    const other = selectPoints(coords, 2);
    trustSelection(other, [10, 10]);
    expect(() => validateSelection(other, [10, 10])).not.toThrow();
    expect(() => validateSelection(other, [5, 10])).toThrow(SelectionError);
  });
});
