import { describe, expect, it } from 'vitest';
import { RegistrationError } from '../src/errors.js';
import { createContainer, registerChunkFormat, registerChunkIndex, registerFilter, resolveChunkFormatByName, resolveFilter } from '../src/di/container.js';
import type { ChunkFormatProvider } from '../src/chunk/chunk-format.js';
import type { ChunkIndexProvider } from '../src/chunk/chunk-index.js';

describe('registries', () => {
  it('registrations stay in their container', () => {
    const c = createContainer();
    expect(resolveFilter(4242, c)).toBeUndefined();
    registerFilter({ id: 4242, name: 'x', encode: (d) => d, decode: (d) => d }, c);
    expect(resolveFilter(4242, c)?.name).toBe('x');
    const c2 = createContainer();
    expect(resolveFilter(4242, c2)).toBeUndefined();
  });

  it('rejects malformed providers and, for a rejected call, registers nothing', () => {
    const c = createContainer(null);
    const create = () => {
      throw new Error('unused');
    };
    expect(() => registerFilter({ id: 70000, name: 'big', encode: (d) => d, decode: (d) => d }, c)).toThrow(RegistrationError);
    expect(() => registerChunkFormat({ name: 's', layoutClass: 'structured', create } as ChunkFormatProvider, c)).toThrow(/structured chunk type/);
    expect(() => registerChunkIndex({ type: 'toy', open: create, create } as ChunkIndexProvider, c)).toThrow(/needs a layout index type `code`/);
    expect(() => registerChunkIndex({ type: 'toy', code: 3, open: create, create } as ChunkIndexProvider, c)).toThrow(/6\.\.255/);
    const a: ChunkFormatProvider = { name: 'a', layoutClass: 'chunked', create };
    registerChunkFormat(a, c);
    // Same name, other key: the name is taken, so the structured key is not registered either.
    expect(() => registerChunkFormat({ name: 'a', layoutClass: 'structured', chunkType: 9, create }, c)).toThrow(RegistrationError);
    expect(resolveChunkFormatByName('a', c)).toBe(a);
  });

  it('installs the Reflect metadata functions tsyringe needs', () => {
    const R = Reflect as unknown as {
      defineMetadata(k: unknown, v: unknown, t: object): void;
      getMetadata(k: unknown, t: object): unknown;
      getOwnMetadata(k: unknown, t: object): unknown;
    };
    class Base {}
    class Derived extends Base {}
    R.defineMetadata('design:paramtypes', [String], Base);
    expect(R.getMetadata('design:paramtypes', Derived)).toEqual([String]);
    expect(R.getOwnMetadata('design:paramtypes', Derived)).toBeUndefined();
  });
});
