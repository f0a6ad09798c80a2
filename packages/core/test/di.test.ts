import { expect, it } from 'vitest';
import { createContainer, registerFilter, resolveFilter } from '../src/di/container.js';
it('di', () => {
  const c = createContainer();
  expect(resolveFilter(4242, c)).toBeUndefined();
  registerFilter({ id: 4242, name: 'x', encode: (d) => d, decode: (d) => d }, c);
  expect(resolveFilter(4242, c)?.name).toBe('x');
  const c2 = createContainer();
  expect(resolveFilter(1, c2)).toBeUndefined();
});
