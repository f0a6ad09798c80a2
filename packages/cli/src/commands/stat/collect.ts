/**
 * What `chunkform stat` counts: one pass over the file's objects (in h5stat's visiting order:
 * depth first, members by name) gathering h5stat's object, link, dataset, layout, filter,
 * datatype and attribute statistics, plus each sparse dataset's storage (docs/cli.md, sparse RFC §4.3).
 * @module
 */
import { CommittedDatatype, Dataset, Group, selectHyperslab, selectionCount, type Datatype, type H5File } from '@chunkform/core';
import { ByteWriter, isDefinedAddress, encodeDatatype, ChunkedStorage } from '@chunkform/core/plugin';
import { objectAddress } from '../../inspect.js';

/** Storage of one sparse dataset. */
export interface SparseStats {
  path: string;
  chunks: number;
  /** Bytes of the chunk index structures. */
  indexBytes: number;
  /** Stored bytes of each section over all chunks. */
  sectionBytes: number[];
  definedElements: number;
  elementSize: number;
}

/** One unique dataset datatype. */
export interface DatatypeStats {
  encoded: string;
  count: number;
  named: number;
  descSize: number;
  elementSize: number;
}

/** Everything stat prints. */
export interface FileStats {
  groups: number;
  datasets: number;
  namedDatatypes: number;
  /** Soft, external and user-defined links. */
  links: number;
  maxLinksToObject: number;
  maxObjectsInGroup: number;
  /** Link count of each group. */
  groupSizes: number[];
  datasetRanks: Map<number, number>;
  maxRank: number;
  /** Size of each 1-D dataset. */
  dims1: number[];
  rawDataBytes: number;
  chunkIndexBytes: number;
  layouts: { compact: number; contiguous: number; chunked: number; sparse: number; virtual: number };
  /** Filter id → datasets using it (a filter on several sections counts once per dataset). */
  filters: Map<number, number>;
  unfiltered: number;
  datatypes: DatatypeStats[];
  /** Attribute count of each object that has attributes. */
  attributeCounts: number[];
  sparse: SparseStats[];
  superblockVersion: number;
  /** Size of file offsets (bytes). */
  offsetSize: number;
  fileSize: number;
}

function datatypeKey(t: Datatype): { key: string; size: number } {
  const w = new ByteWriter();
  encodeDatatype(w, t);
  const bytes = w.finish();
  // h5stat reports H5Tencode's size: the datatype message plus its 2-byte header (type id, version)
  return { key: Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(''), size: bytes.length + 2 };
}

async function sparseStats(ds: Dataset, storage: ChunkedStorage): Promise<SparseStats> {
  const layout = ds.layout;
  const sectionCount = layout.class === 'structured' ? layout.sectionCount : 2;
  const sectionBytes = new Array<number>(sectionCount).fill(0);
  let chunks = 0;
  await ds.iterateStructChunks((info) => {
    chunks++;
    info.sectionSizes.forEach((n, i) => (sectionBytes[i] = (sectionBytes[i] ?? 0) + n));
  });
  return {
    path: ds.path,
    chunks,
    indexBytes: await storage.indexSizeOnDisk(),
    sectionBytes,
    definedElements: await countDefined(ds),
    elementSize: ds.elementSize,
  };
}

/** Collects the statistics of `file` (opened read-only); `fileSize` is its size in bytes. */
export async function collectStats(file: H5File, fileSize: number, superblockVersion: number, offsetSize: number): Promise<FileStats> {
  const s: FileStats = {
    groups: 0,
    datasets: 0,
    namedDatatypes: 0,
    links: 0,
    maxLinksToObject: 1,
    maxObjectsInGroup: 0,
    groupSizes: [],
    datasetRanks: new Map(),
    maxRank: 0,
    dims1: [],
    rawDataBytes: 0,
    chunkIndexBytes: 0,
    layouts: { compact: 0, contiguous: 0, chunked: 0, sparse: 0, virtual: 0 },
    filters: new Map(),
    unfiltered: 0,
    datatypes: [],
    attributeCounts: [],
    sparse: [],
    superblockVersion,
    offsetSize,
    fileSize,
  };
  const linkCount = new Map<number, number>();
  const types = new Map<string, DatatypeStats>();
  const visited = new Set<number>();
  const visit = async (obj: Group | Dataset | CommittedDatatype): Promise<void> => {
    const n = (await obj.attrs.keys()).length;
    if (n > 0) s.attributeCounts.push(n);
    if (obj instanceof Group) {
      s.groups++;
      const links = await obj.links();
      s.groupSizes.push(links.length);
      s.maxObjectsInGroup = Math.max(s.maxObjectsInGroup, links.length);
      for (const l of links) {
        if (l.kind !== 'hard') {
          s.links++;
          continue;
        }
        const c = (linkCount.get(l.address!) ?? 0) + 1;
        linkCount.set(l.address!, c);
        s.maxLinksToObject = Math.max(s.maxLinksToObject, c);
      }
      for (const l of [...links].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (l.kind !== 'hard' || visited.has(l.address!)) continue;
        visited.add(l.address!);
        await visit((await obj.get(l.name)) as Group | Dataset | CommittedDatatype);
      }
    } else if (obj instanceof Dataset) await visitDataset(obj, s, types);
    else s.namedDatatypes++;
  };
  const root = objectAddress(file);
  if (root !== undefined) visited.add(root);
  await visit(file);
  s.datatypes = [...types.values()];
  return s;
}

async function visitDataset(ds: Dataset, s: FileStats, types: Map<string, DatatypeStats>): Promise<void> {
  s.datasets++;
  const rank = ds.shape.length;
  s.datasetRanks.set(rank, (s.datasetRanks.get(rank) ?? 0) + 1);
  s.maxRank = Math.max(s.maxRank, rank);
  if (rank === 1) s.dims1.push(ds.shape[0]!);
  const { key, size } = datatypeKey(ds.dtype);
  const t = types.get(key);
  if (t) t.count++;
  else types.set(key, { encoded: key, count: 1, named: 0, descSize: size, elementSize: ds.elementSize });
  const layout = ds.layout;
  switch (layout.class) {
    case 'compact':
      s.layouts.compact++;
      s.rawDataBytes += ds.size * ds.elementSize;
      break;
    case 'contiguous': {
      s.layouts.contiguous++;
      if (isDefinedAddress(layout.address)) s.rawDataBytes += ds.size * ds.elementSize;
      break;
    }
    case 'chunked':
    case 'structured': {
      if (layout.class === 'chunked') s.layouts.chunked++;
      else s.layouts.sparse++;
      let stored = 0;
      await ds.iterateChunks((c) => void (stored += c.size));
      s.rawDataBytes += stored;
      const storage = await ds.storage();
      if (storage instanceof ChunkedStorage) {
        const indexBytes = await storage.indexSizeOnDisk();
        s.chunkIndexBytes += indexBytes;
        if (layout.class === 'structured') {
          s.sparse.push(await sparseStats(ds, storage));
        }
      }
      break;
    }
    default:
      s.layouts.virtual++;
  }
  const ids = new Set<number>([...ds.filters.map((f) => f.id), ...(ds.sectionFilters ?? []).flatMap((p) => p.filters.map((f) => f.id))]);
  if (ids.size === 0) s.unfiltered++;
  for (const id of ids) s.filters.set(id, (s.filters.get(id) ?? 0) + 1);
}

/** Defined elements of a sparse dataset, counted chunk by chunk (bounded memory). */
async function countDefined(ds: Dataset): Promise<number> {
  const chunk = ds.chunks!;
  const shape = ds.shape;
  let n = 0;
  const offsets: number[][] = [];
  await ds.iterateChunks((c) => void offsets.push(c.offset));
  for (const off of offsets) {
    const block = off.map((o, d) => Math.min(chunk[d]!, shape[d]! - o));
    if (block.some((b) => b <= 0)) continue;
    const def = await ds.getDefined(selectHyperslab({ start: off, block }));
    n += selectionCount(def, shape);
  }
  return n;
}
