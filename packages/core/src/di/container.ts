/**
 * Dependency injection (tsyringe): filters, chunk index providers and chunk format providers are
 * registered under explicit keyed tokens (no decorator metadata needed), and resolved when a dataset
 * is opened from its layout and filter pipeline messages. Apps register only what they install.
 *
 * Lookups never depend on registration order: each key (chunk format key, index type, index type
 * code, filter id) has at most one provider per container, a second different provider for a taken
 * key is a {@link RegistrationError} unless the call passes `{ replace: true }`, and registering the
 * same object again does nothing. A child container sees its parent's providers for keys it does not
 * register itself, and may register its own for any key (that is what child containers are for).
 *
 * chunkform keeps its registrations in a container of its own ({@link defaultContainer}, a child of
 * tsyringe's global container), so a host app's `container.reset()` or `clearInstances()` on the
 * global container leaves them alone.
 * @module
 */
import './reflect-polyfill.js';
import { container as rootContainer, type DependencyContainer } from '#tsyringe';
import { RegistrationError } from '../errors.js';
import type { ChunkIndexProvider } from '../chunk/chunk-index.js';
import { formatKey, type ChunkFormatProvider } from '../chunk/chunk-format.js';
import type { DataLayout } from '../format/messages/layout.js';
import { CHUNK_INDEX_TYPES, type IndexTypeLookup } from '../format/messages/layout-index.js';
import type { Filter } from '../filter/filter.js';

/** A DI container: chunkform's default one, or a child made with {@link createContainer}. */
export type Container = DependencyContainer;

/** Options of the `register*` functions. */
export interface RegisterOptions {
  /** Container to register in (default: {@link defaultContainer}). */
  container?: Container;
  /** Replace a different provider already registered for the same key in this container (default: throw). */
  replace?: boolean;
}

/**
 * chunkform's own container, used when no other is given: a child of tsyringe's global container
 * created once, so that a host app resetting the global container does not wipe chunkform's
 * registrations.
 */
export const defaultContainer: Container = rootContainer.createChildContainer();

/**
 * A child of `parent` (default: {@link defaultContainer}): it sees the parent's providers, and
 * registrations in it do not leak out. `null`: an empty container that sees no registrations but its own.
 */
export function createContainer(parent: Container | null = defaultContainer): Container {
  return (parent ?? rootContainer).createChildContainer();
}

const FILTER_PREFIX = 'chunkform.filter:';
const INDEX_PREFIX = 'chunkform.chunk-index:';
const INDEX_CODE_PREFIX = 'chunkform.chunk-index-code:';
const FORMAT_PREFIX = 'chunkform.chunk-format:';
const FORMAT_NAME_PREFIX = 'chunkform.chunk-format-name:';

function options(opts: Container | RegisterOptions | undefined): { container: Container; replace: boolean } {
  if (opts === undefined) return { container: defaultContainer, replace: false };
  if (typeof (opts as Container).createChildContainer === 'function') return { container: opts as Container, replace: false };
  const o = opts as RegisterOptions;
  return { container: o.container ?? defaultContainer, replace: o.replace === true };
}

function own<T>(container: Container, token: string): T | undefined {
  return container.isRegistered(token, false) ? container.resolve<T>(token) : undefined;
}

function lookup<T>(container: Container, token: string): T | undefined {
  return container.isRegistered(token, true) ? container.resolve<T>(token) : undefined;
}

/**
 * Checks every `[token, key]` of one registration before registering any (a rejected call changes
 * nothing). Returns false when `value` already is the registration of every token (a no-op).
 */
function claim(container: Container, registry: string, entries: readonly [string, string][], value: object, replace: boolean): boolean {
  let fresh = false;
  for (const [token, key] of entries) {
    const taken = own<object>(container, token);
    if (taken === value) continue;
    fresh = true;
    if (taken !== undefined && !replace) {
      const what = (taken as { name?: unknown }).name;
      throw new RegistrationError(
        registry,
        key,
        `a different ${registry} is already registered for ${key}${typeof what === 'string' ? ` ("${what}")` : ''}; ` +
          'pass { replace: true } to replace it',
      );
    }
  }
  if (fresh) for (const [token] of entries) container.register(token, { useValue: value });
  return fresh;
}

function checkCode(registry: string, key: string, value: unknown, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
    throw new RegistrationError(registry, key, `invalid ${what} ${String(value)} (expected an integer ${min}..${max})`);
  }
}

/**
 * Registers a filter (e.g. a third-party package's) under its id — the one call a filter package
 * makes. `opts`: the container, or `{ container, replace }`.
 */
export function registerFilter(filter: Filter, opts?: Container | RegisterOptions): void {
  const { container, replace } = options(opts);
  checkCode('filter', String(filter.id), filter.id, 0, 0xffff, 'filter id');
  claim(container, 'filter', [[FILTER_PREFIX + filter.id, `filter id ${filter.id}`]], filter, replace);
}

/** The filter registered for `id` in `container` (or, if it has none, in its ancestors). */
export function resolveFilter(id: number, container: Container = defaultContainer): Filter | undefined {
  return lookup<Filter>(container, FILTER_PREFIX + id);
}

/**
 * Registers a chunk index provider under its index type (and, for a third-party index type, its
 * layout index type code). `opts`: the container, or `{ container, replace }`.
 */
export function registerChunkIndex(provider: ChunkIndexProvider, opts?: Container | RegisterOptions): void {
  const { container, replace } = options(opts);
  const type = provider.type;
  const builtIn = Object.hasOwn(CHUNK_INDEX_TYPES, type);
  if (typeof type !== 'string' || type === '' || type === 'external') {
    throw new RegistrationError('chunk index', String(type), `invalid chunk index type ${JSON.stringify(type)}`);
  }
  const entries: [string, string][] = [[INDEX_PREFIX + type, `index type "${type}"`]];
  if (provider.code !== undefined) {
    if (builtIn) throw new RegistrationError('chunk index', type, `index type "${type}" is built into HDF5 and has no third-party code`);
    // Codes 0–5 are HDF5's own index types.
    checkCode('chunk index', type, provider.code, 6, 255, 'chunk index type code');
    entries.push([INDEX_CODE_PREFIX + provider.code, `index type code ${provider.code}`]);
  } else if (!builtIn) {
    throw new RegistrationError('chunk index', type, `third-party index type "${type}" needs a layout index type \`code\` (6..255)`);
  }
  claim(container, 'chunk index', entries, provider, replace);
}

/** The chunk index provider registered for index type `type`, if any. */
export function resolveChunkIndex(type: string, container: Container = defaultContainer): ChunkIndexProvider | undefined {
  return lookup<ChunkIndexProvider>(container, INDEX_PREFIX + type);
}

/** The third-party chunk index provider registered for layout index type `code` (6..255), if any. */
export function resolveChunkIndexCode(code: number, container: Container = defaultContainer): ChunkIndexProvider | undefined {
  return lookup<ChunkIndexProvider>(container, INDEX_CODE_PREFIX + code);
}

/**
 * Registers a chunk format provider under {@link formatKey}`(layoutClass, chunkType)` and its name.
 * `opts`: the container, or `{ container, replace }`.
 */
export function registerChunkFormat(provider: ChunkFormatProvider, opts?: Container | RegisterOptions): void {
  const { container, replace } = options(opts);
  const { layoutClass, name } = provider;
  if (layoutClass !== 'chunked' && layoutClass !== 'structured') {
    throw new RegistrationError('chunk format', String(layoutClass), `chunk format "${name}": invalid layout class ${JSON.stringify(layoutClass)}`);
  }
  if (layoutClass === 'structured') checkCode('chunk format', name, provider.chunkType, 0, 0xffff, `structured chunk type of chunk format "${name}":`);
  if (typeof name !== 'string' || name === '') throw new RegistrationError('chunk format', String(name), 'a chunk format needs a name');
  const key = formatKey(layoutClass, provider.chunkType);
  claim(
    container,
    'chunk format',
    [
      [FORMAT_PREFIX + key, `layout key "${key}"`],
      [FORMAT_NAME_PREFIX + name, `name "${name}"`],
    ],
    provider,
    replace,
  );
}

/** The registry key of a layout: {@link formatKey} of its class (and structured chunk type); undefined for unchunked layouts. */
export function layoutFormatKey(layout: DataLayout): string | undefined {
  if (layout.class === 'chunked') return formatKey('chunked');
  if (layout.class === 'structured') return formatKey('structured', layout.chunkType);
  return undefined;
}

/**
 * The chunk format provider for `layout` (or a {@link formatKey} string), if any. The old
 * `(layout, pipeline, container)` form still works: the pipeline plays no part in the lookup.
 */
export function resolveChunkFormat(layout: DataLayout | string, container?: Container): ChunkFormatProvider | undefined;
/** @deprecated the pipeline plays no part in the lookup: call `resolveChunkFormat(layout, container)`. */
export function resolveChunkFormat(layout: DataLayout | string, pipeline: { filters: readonly unknown[] }, container?: Container): ChunkFormatProvider | undefined;
export function resolveChunkFormat(
  layout: DataLayout | string,
  second?: Container | { filters: readonly unknown[] },
  third?: Container,
): ChunkFormatProvider | undefined {
  const container = second !== undefined && 'filters' in second ? (third ?? defaultContainer) : ((second as Container | undefined) ?? defaultContainer);
  const key = typeof layout === 'string' ? layout : layoutFormatKey(layout);
  return key === undefined ? undefined : lookup<ChunkFormatProvider>(container, FORMAT_PREFIX + key);
}

/** The chunk format provider registered under `name` (e.g. `'dense'`, `'sparse'`), if any. */
export function resolveChunkFormatByName(name: string, container: Container = defaultContainer): ChunkFormatProvider | undefined {
  return lookup<ChunkFormatProvider>(container, FORMAT_NAME_PREFIX + name);
}

/** The third-party index types of `container`, as the layout decoder asks for them. */
export function indexTypeLookup(container: Container = defaultContainer): IndexTypeLookup {
  return (code) => {
    const p = resolveChunkIndexCode(code, container);
    return p ? { name: p.type, paramBytes: p.paramBytes ?? 0 } : undefined;
  };
}

