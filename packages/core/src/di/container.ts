/**
 * Dependency injection (tsyringe): filters, chunk index providers and chunk format providers are
 * registered under explicit tokens (no decorator metadata needed), and resolved when a dataset is
 * opened from its layout and filter pipeline messages. Apps register only what they install.
 * @module
 */
import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { ChunkIndexProvider } from '../chunk/chunk-index.js';
import type { ChunkFormatProvider } from '../chunk/chunk-format.js';
import type { DataLayout } from '../format/messages/layout.js';
import type { FilterPipeline } from '../format/messages/filter-pipeline.js';
import type { Filter } from '../filter/filter.js';

/** Token under which {@link Filter}s are registered. */
export const FILTER = Symbol.for('chunkform.Filter');
/** Token under which {@link ChunkIndexProvider}s are registered. */
export const CHUNK_INDEX_PROVIDER = Symbol.for('chunkform.ChunkIndexProvider');
/** Token under which chunk format providers are registered. */
export const CHUNK_FORMAT_PROVIDER = Symbol.for('chunkform.ChunkFormatProvider');

/** A DI container: the process-wide default, or a child made with {@link createContainer}. */
export type Container = DependencyContainer;

/** The process-wide container that `register*` calls use by default. */
export const defaultContainer: Container = rootContainer;

/** A child of `parent` (default: the process-wide container): registrations in it do not leak out. */
export function createContainer(parent: Container = defaultContainer): Container {
  return parent.createChildContainer();
}

/** Registers a filter (e.g. a third-party package's) — the one call a filter package makes. */
export function registerFilter(filter: Filter, container: Container = defaultContainer): void {
  container.register(FILTER, { useValue: filter });
}

/** Registers a chunk index provider. */
export function registerChunkIndex(provider: ChunkIndexProvider, container: Container = defaultContainer): void {
  container.register(CHUNK_INDEX_PROVIDER, { useValue: provider });
}

function all<T>(container: Container, token: symbol): T[] {
  return container.isRegistered(token, true) ? container.resolveAll<T>(token) : [];
}

/** The filter registered for `id` (the latest registration wins), if any. */
export function resolveFilter(id: number, container: Container = defaultContainer): Filter | undefined {
  const list = all<Filter>(container, FILTER);
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.id === id) return list[i];
  return undefined;
}

/** The chunk index provider registered for `type`, if any. */
export function resolveChunkIndex(type: string, container: Container = defaultContainer): ChunkIndexProvider | undefined {
  const list = all<ChunkIndexProvider>(container, CHUNK_INDEX_PROVIDER);
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.type === type) return list[i];
  return undefined;
}

/** Registers a chunk format provider. */
export function registerChunkFormat(provider: ChunkFormatProvider, container: Container = defaultContainer): void {
  container.register(CHUNK_FORMAT_PROVIDER, { useValue: provider });
}

/** The chunk format provider (latest registration first) that handles `layout` with `pipeline`, if any. */
export function resolveChunkFormat(
  layout: DataLayout,
  pipeline: FilterPipeline,
  container: Container = defaultContainer,
): ChunkFormatProvider | undefined {
  const list = all<ChunkFormatProvider>(container, CHUNK_FORMAT_PROVIDER);
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.matches(layout, pipeline)) return list[i];
  return undefined;
}

/** The chunk format provider registered under `name` (the `format:` create option), if any. */
export function resolveChunkFormatByName(name: string, container: Container = defaultContainer): ChunkFormatProvider | undefined {
  const list = all<ChunkFormatProvider>(container, CHUNK_FORMAT_PROVIDER);
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.name === name) return list[i];
  return undefined;
}
