/**
 * The classes an open file makes its objects (and the storage of its datasets) with: the read-only ones of `@chunkform/core/read`
 * (objects/read-file.ts) or the full ones of `@chunkform/core` (objects/file.ts). Groups, datasets
 * and attributes reach them through the file context, so a read-only bundle never imports the
 * classes that write.
 * @module
 */
import type { Datatype } from '../format/messages/datatype.js';
import type { CallOrder } from '../file/lock.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderModel } from '../file/header-model.js';
import type { InOrder, ReadAttributes } from './read-attributes.js';
import type { ReadDataset } from './read-dataset.js';
import type { ReadCommittedDatatype, ReadGroup } from './read-group.js';
import type { ChunkedDatasetInfo, ReadChunkedStorage } from '../storage/read-chunked-storage.js';
import type { ReadCompactStorage } from '../storage/read-compact-storage.js';
import type { ReadContiguousStorage } from '../storage/read-contiguous-storage.js';

/** The classes of the objects of one open file. @internal */
export interface ObjectClasses {
  Group: new (ctx: FileContext, model: HeaderModel, path: string) => ReadGroup;
  Dataset: { open(ctx: FileContext, model: HeaderModel, path: string): Promise<ReadDataset> };
  CommittedDatatype: new (ctx: FileContext, model: HeaderModel, path: string, dtype: Datatype) => ReadCommittedDatatype;
  Attributes: new (ctx: FileContext, header: () => Promise<HeaderModel>, path: string, inOrder?: InOrder) => ReadAttributes;
  /** The storage of chunked datasets (`create`: a new, empty chunk index; full classes only). */
  ChunkedStorage: { open(ctx: FileContext, model: HeaderModel, info: ChunkedDatasetInfo, create?: boolean): Promise<ReadChunkedStorage> };
  /** The storage of compact and contiguous datasets (the full classes write). */
  CompactStorage: typeof ReadCompactStorage;
  ContiguousStorage: typeof ReadContiguousStorage;
  /** The call order of a file opened with these classes (file/lock.ts; read-only: file/read-lock.ts). */
  callOrder: () => CallOrder;
}
