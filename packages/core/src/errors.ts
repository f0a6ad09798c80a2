/**
 * Typed errors of chunkform. Every error names what it was working on (object path, on-disk
 * structure, file address) so a user can tell *where* a file is bad, not just that it is.
 * @module
 */

/** Where an error happened: any of the object path, the on-disk structure and its file address. */
export interface ErrorLocation {
  /** HDF5 path of the object (group, dataset, attribute) being read or written. */
  path?: string;
  /** Name of the on-disk structure, as the HDF5 specification names it (e.g. "superblock"). */
  structure?: string;
  /** File address of the structure. */
  address?: number;
}

function describe(message: string, loc: ErrorLocation): string {
  const parts: string[] = [];
  if (loc.path !== undefined) parts.push(`object "${loc.path}"`);
  if (loc.structure !== undefined) parts.push(loc.structure);
  if (loc.address !== undefined && loc.address >= 0) parts.push(`at address ${loc.address}`);
  return parts.length ? `${parts.join(', ')}: ${message}` : message;
}

/** Base class of every error chunkform throws on purpose. */
export class H5Error extends Error {
  /** Object path, if known. */
  readonly path?: string;
  /** On-disk structure, if known. */
  readonly structure?: string;
  /** File address, if known. */
  readonly address?: number;
  /** The message without the location prefix. */
  readonly detail: string;

  constructor(message: string, loc: ErrorLocation = {}) {
    super(describe(message, loc));
    this.name = new.target.name;
    this.detail = message;
    if (loc.path !== undefined) this.path = loc.path;
    if (loc.structure !== undefined) this.structure = loc.structure;
    if (loc.address !== undefined) this.address = loc.address;
  }

  /**
   * A copy of this error with an object path filled in (used when errors cross the object layer).
   * Keeps an existing path unless `replace` (used to make a dataset path more precise, e.g. add the chunk).
   */
  withPath(path: string, replace = false): H5Error {
    if (this.path !== undefined && !replace) return this;
    const Ctor = this.constructor as new (m: string, l: ErrorLocation) => H5Error;
    const e = Object.create(Ctor.prototype) as H5Error;
    Object.assign(e, this, { path, message: describe(this.detail, { path, structure: this.structure, address: this.address }) });
    Object.defineProperty(e, 'stack', { value: this.stack, writable: true, configurable: true });
    return e;
  }
}

/** The bytes do not follow the HDF5 file format (bad signature, impossible field value ...). */
export class FormatError extends H5Error {}

/** A structure ends past the end of the file or of its enclosing block. */
export class TruncatedError extends FormatError {}

/** A checksum stored in the file does not match the bytes it covers. */
export class ChecksumError extends FormatError {
  readonly expected: number;
  readonly actual: number;
  constructor(structure: string, address: number, expected: number, actual: number, path?: string) {
    super(
      `checksum mismatch (stored 0x${expected.toString(16).padStart(8, '0')}, computed 0x${actual.toString(16).padStart(8, '0')})`,
      { structure, address, ...(path !== undefined ? { path } : {}) },
    );
    this.expected = expected;
    this.actual = actual;
  }
}

/** A valid HDF5 feature that this version of chunkform does not implement. */
export class UnsupportedError extends H5Error {}

/** A path, attribute or link that does not exist. */
export class NotFoundError extends H5Error {}

/** Why a file path could not be opened (see {@link FileAccessError}). */
export type FileAccessReason = 'not-found' | 'is-directory' | 'exists' | 'permission-denied';

/**
 * A file path that cannot be opened as asked: it does not exist (or a parent folder is missing),
 * it is a directory, it already exists (modes `'w-'` / `'x'`), or the operating system denies
 * access. The message names the path; `cause` holds the system error, if any.
 */
export class FileAccessError extends H5Error {
  /** What went wrong. */
  readonly reason: FileAccessReason;
  /** The path as given. */
  readonly filePath: string;
  constructor(filePath: string, reason: FileAccessReason, cause?: unknown) {
    const what = {
      'not-found': 'no such file',
      'is-directory': 'it is a directory, not a file',
      exists: 'the file already exists (use mode "w" to overwrite it or "a" to open it)',
      'permission-denied': 'permission denied',
    }[reason];
    super(`cannot open "${filePath}": ${what}`);
    this.reason = reason;
    this.filePath = filePath;
    if (cause !== undefined) Object.defineProperty(this, 'cause', { value: cause, writable: true, configurable: true });
  }
}

/** A write was attempted on a file opened read-only, or an object was used after close. */
export class InvalidStateError extends H5Error {}

/** Arguments that do not fit the object (wrong shape, wrong data length, bad dtype ...). */
export class ValueError extends H5Error {}

/** A selection that lies outside the dataspace or is malformed. */
export class SelectionError extends H5Error {}

/** A filter in a pipeline that no registered package provides. */
export class UnknownFilterError extends H5Error {
  readonly filterId: number;
  constructor(filterId: number, filterName: string | undefined, hint: string | undefined, loc: ErrorLocation = {}) {
    super(
      `filter ${filterId}${filterName ? ` ("${filterName}")` : ''} is not registered` +
        (hint ? `; it is provided by ${hint}` : ''),
      loc,
    );
    this.filterId = filterId;
  }
}

/** Details of a {@link FilterError}. */
export interface FilterErrorInfo {
  /** HDF5 filter id. */
  filterId?: number;
  /** Filter name. */
  filterName?: string;
  /** Chunk coordinates (the chunk's offset in chunks, one per dimension). */
  chunk?: readonly number[];
  /** The error the filter threw, if any. */
  cause?: unknown;
}

/** A filter failed to encode or decode a chunk (corrupt compressed data, bad client data ...). */
export class FilterError extends H5Error {
  /** HDF5 filter id, if known. */
  readonly filterId?: number;
  /** Filter name, if known. */
  readonly filterName?: string;
  /** Coordinates of the chunk, if known. */
  readonly chunk?: readonly number[];

  constructor(message: string, info: FilterErrorInfo = {}, loc: ErrorLocation = {}) {
    super(message, loc);
    if (info.filterId !== undefined) this.filterId = info.filterId;
    if (info.filterName !== undefined) this.filterName = info.filterName;
    if (info.chunk !== undefined) this.chunk = info.chunk;
    if (info.cause !== undefined) Object.defineProperty(this, 'cause', { value: info.cause, writable: true, configurable: true });
  }
}

/**
 * An operation would need more memory than allowed: a read larger than the `maxReadBytes` limit
 * (see `openFile`), or an array larger than the platform can allocate.
 */
export class ResourceLimitError extends H5Error {
  /** Bytes the operation asked for. */
  readonly requested: number;
  /** The limit it exceeded (bytes). */
  readonly limit: number;
  constructor(message: string, requested: number, limit: number, loc: ErrorLocation = {}) {
    super(message, loc);
    this.requested = requested;
    this.limit = limit;
  }
}

/**
 * A remote file could not be read as asked: the server refused or failed the request (after retries), ignores
 * `Range` requests, or the file changed while it was read. `path` is the URL.
 */
export class RemoteSourceError extends H5Error {}

/**
 * A plug-in registration that would make lookups ambiguous: a second, different provider for a chunk
 * format key, chunk index type (or index type code) or filter id that the container already has.
 * Pass `{ replace: true }` to replace the registered one on purpose.
 */
export class RegistrationError extends H5Error {
  /** The registry ("chunk format", "chunk index", "filter"). */
  readonly registry: string;
  /** The taken key (e.g. `"structured:0"`, `"fixed-array"`, `"1"`). */
  readonly key: string;
  constructor(registry: string, key: string, message: string) {
    super(message);
    this.registry = registry;
    this.key = key;
  }
}

/**
 * A dataset needs a plug-in that is not registered in the file's container: a chunk format for its
 * layout, or a chunk index for its index type. The message names the dataset, the registry key and
 * the package to install.
 */
export class MissingPluginError extends UnsupportedError {
  /** The registry key that has no provider (e.g. `"structured:0"`, `"chunked"`, `"btree2"`). */
  readonly key: string;
  /** The npm package that provides it, when chunkform knows one. */
  readonly packageName?: string;
  constructor(message: string, key: string, packageName: string | undefined, loc: ErrorLocation = {}) {
    super(message, loc);
    this.key = key;
    if (packageName !== undefined) this.packageName = packageName;
  }
}

/**
 * A layout message names a chunk index type code that neither HDF5 defines nor a registered
 * third-party chunk index provider claims. `code` is the code from the file.
 */
export class UnknownIndexTypeError extends UnsupportedError {
  /** The index type code of the layout message. */
  readonly code: number;
  constructor(code: number, loc: ErrorLocation = {}) {
    super(`unknown chunk index type code ${code}; no registered chunk index provider claims it (register one with \`code: ${code}\`)`, loc);
    this.code = code;
  }
}
