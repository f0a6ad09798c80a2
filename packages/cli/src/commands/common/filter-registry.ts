/**
 * Filters for files a tool writes: every registered filter, plus a stand-in for each filter id the
 * inputs use that is not registered. The stand-in lets a dataset be created with that pipeline so
 * its chunks can be copied raw (never decoded); encoding or decoding through it fails with the
 * usual {@link UnknownFilterError}.
 * @module
 */
import {
  createContainer,
  defaultContainer,
  KNOWN_FILTER_PACKAGES,
  registerFilter,
  resolveFilter,
  UnknownFilterError,
  type Container,
  type Dataset,
  type Filter,
} from '@chunkform/core';

function standIn(id: number, name: string | undefined): Filter {
  const fail = (): never => {
    const known = KNOWN_FILTER_PACKAGES[id];
    throw new UnknownFilterError(id, name ?? known?.name, known?.package);
  };
  return { id, name: name ?? `filter ${id}`, encode: fail, decode: fail, setLocal: (cd) => cd.slice() };
}

/**
 * A container for an output file: the filters of `parent` and stand-ins for `unknown` ids
 * (id → stored name). Returns `parent` itself when nothing is unknown.
 */
export function outputContainer(unknown: ReadonlyMap<number, string | undefined>, parent: Container = defaultContainer): Container {
  if (unknown.size === 0) return parent;
  // The child sees every filter of `parent`; it adds the stand-ins.
  const child = createContainer(parent);
  for (const [id, name] of unknown) registerFilter(standIn(id, name), child);
  return child;
}

/** The client data a user gives for a filter, from the stored (set-local-completed) client data. */
export function userClientData(id: number, stored: readonly number[]): number[] {
  switch (id) {
    case 2: // shuffle: element size is set at creation
    case 3: // fletcher32
    case 5: // nbit: everything is derived from the datatype
      return [];
    case 6: // scale-offset: [scale type, scale factor, …derived]
      return stored.slice(0, 2);
    case 32008: // bitshuffle: [major, minor, element size, block size, compression, level]
      return stored.slice(3);
    default:
      return stored.slice();
  }
}

/** Filter ids (→ stored name) that `datasets` use and `container` does not have. */
export function unknownFilters(datasets: readonly Dataset[], container: Container = defaultContainer): Map<number, string | undefined> {
  const out = new Map<number, string | undefined>();
  for (const d of datasets) {
    const all = [...d.filters, ...(d.sectionFilters ?? []).flatMap((p) => p.filters)];
    for (const f of all) if (!resolveFilter(f.id, container) && !out.has(f.id)) out.set(f.id, f.name);
  }
  return out;
}
