/**
 * A group's links in the order h5py lists them (creation order when the group tracks it, else the
 * UTF-8 byte order of the names, as HDF5's v2 B-tree name index and symbol tables order them), kept
 * sorted incrementally: each name is encoded to UTF-8 once, a new link is placed by binary search and a
 * name is found through a map, so N creations in one group cost O(N log N) comparisons plus the array
 * insertions (a memmove).
 * @module
 */
import { FormatError } from '../errors.js';
import type { LinkMessage } from '../format/messages/link.js';
import { utf8Encode } from '../format/bytes.js';


/** Orders two UTF-8 byte strings as C's strcmp orders names (HDF5's name order). */
export function compareNameBytes(x: Uint8Array, y: Uint8Array): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Orders names by their UTF-8 bytes, as HDF5's name index does (strcmp). */
export function compareNames(a: string, b: string): number {
  return compareNameBytes(utf8Encode(a), utf8Encode(b));
}

/** The links of one group, sorted as h5py lists them. */
export class LinkList {
  /** Links in listing order (do not modify: use {@link insertLink}). */
  readonly links: LinkMessage[];
  /** UTF-8 bytes of each name, parallel to `links` (name order only). @internal */
  readonly keys: Uint8Array[] | undefined;
  /** @internal */
  readonly byName = new Map<string, LinkMessage>();

  /**
   * Sorts `links` (decoded from any link storage). Duplicate names are a format error naming the
   * group header at `address`.
   */
  constructor(links: LinkMessage[], readonly byCreationOrder: boolean, address: number) {
    for (const l of links) {
      if (this.byName.has(l.name)) throw new FormatError(`duplicate link name "${l.name}"`, { structure: 'group', address });
      this.byName.set(l.name, l);
    }
    if (byCreationOrder) {
      this.links = links.slice().sort((a, b) => (a.creationOrder ?? 0) - (b.creationOrder ?? 0));
      return;
    }
    const keys = links.map((l) => utf8Encode(l.name));
    const order = links.map((_, i) => i).sort((i, j) => compareNameBytes(keys[i]!, keys[j]!));
    this.links = order.map((i) => links[i]!);
    this.keys = order.map((i) => keys[i]!);
  }

  /** Number of links. */
  get size(): number {
    return this.links.length;
  }

  /** The link called `name`, if any. */
  get(name: string): LinkMessage | undefined {
    return this.byName.get(name);
  }

  /** True when a link is called `name`. */
  has(name: string): boolean {
    return this.byName.has(name);
  }
}

// The changes (group writes): functions rather than methods, so a read-only bundle leaves them out.

/** Replaces the link with the same name as `link` (e.g. a new target address), keeping its place. */
export function replaceLink(list: LinkList, link: LinkMessage): void {
  const old = list.byName.get(link.name);
  if (!old) return;
  list.byName.set(link.name, link);
  const i = list.keys ? position(list.keys, utf8Encode(link.name)) : list.links.indexOf(old);
  if (list.links[i] === old) list.links[i] = link;
}

/** Adds a link whose name is new (the caller checks) at its place in the order. */
export function insertLink(list: LinkList, link: LinkMessage): void {
  list.byName.set(link.name, link);
  const { links, keys } = list;
  if (!keys) {
    // creation order: a new link has the largest index unless the caller supplied one
    let i = links.length;
    const o = link.creationOrder ?? 0;
    while (i > 0 && (links[i - 1]!.creationOrder ?? 0) > o) i--;
    links.splice(i, 0, link);
    return;
  }
  const key = utf8Encode(link.name);
  const at = position(keys, key);
  links.splice(at, 0, link);
  keys.splice(at, 0, key);
}

/** Index of the first name in `keys` not ordered before `key` (binary search). */
function position(keys: readonly Uint8Array[], key: Uint8Array): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareNameBytes(keys[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
