/**
 * The few `Reflect` metadata functions tsyringe needs to load (`getMetadata`, `getOwnMetadata`,
 * `defineMetadata`, `metadata`), installed only where no metadata polyfill (reflect-metadata, core-js)
 * is present. chunkform registers values under explicit tokens and never needs decorator metadata;
 * this replaces the 13 KB reflect-metadata package in browser bundles. An app that imports
 * reflect-metadata (before or after chunkform) gets the full implementation.
 * @module
 */

type MetadataTarget = object;
type ReflectWithMetadata = typeof Reflect & {
  getMetadata?: (key: unknown, target: MetadataTarget, property?: PropertyKey) => unknown;
  getOwnMetadata?: (key: unknown, target: MetadataTarget, property?: PropertyKey) => unknown;
  defineMetadata?: (key: unknown, value: unknown, target: MetadataTarget, property?: PropertyKey) => void;
  metadata?: (key: unknown, value: unknown) => (target: MetadataTarget, property?: PropertyKey) => void;
};

const R = Reflect as ReflectWithMetadata;
if (typeof R.getMetadata !== 'function') {
  const store = new WeakMap<MetadataTarget, Map<PropertyKey | undefined, Map<unknown, unknown>>>();
  const table = (target: MetadataTarget, property: PropertyKey | undefined, create: boolean): Map<unknown, unknown> | undefined => {
    let byProperty = store.get(target);
    if (!byProperty) {
      if (!create) return undefined;
      store.set(target, (byProperty = new Map()));
    }
    let entries = byProperty.get(property);
    if (!entries && create) byProperty.set(property, (entries = new Map()));
    return entries;
  };
  const getOwnMetadata = (key: unknown, target: MetadataTarget, property?: PropertyKey): unknown => table(target, property, false)?.get(key);
  const defineMetadata = (key: unknown, value: unknown, target: MetadataTarget, property?: PropertyKey): void => {
    table(target, property, true)!.set(key, value);
  };
  const define = (name: string, value: unknown): void => {
    Object.defineProperty(Reflect, name, { configurable: true, writable: true, value });
  };
  define('getOwnMetadata', getOwnMetadata);
  define('defineMetadata', defineMetadata);
  define('getMetadata', (key: unknown, target: MetadataTarget, property?: PropertyKey): unknown => {
    // Own metadata first, then along the prototype chain (as reflect-metadata does).
    for (let t: MetadataTarget | null = target; t !== null; t = Object.getPrototypeOf(t) as MetadataTarget | null) {
      const entries = table(t, property, false);
      if (entries?.has(key)) return entries.get(key);
    }
    return undefined;
  });
  define('metadata', (key: unknown, value: unknown) => (target: MetadataTarget, property?: PropertyKey) => defineMetadata(key, value, target, property));
}

export {};
