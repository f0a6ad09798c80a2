/**
 * Which changed object headers a flush moves copy-on-write, and in which order. A header that
 * existed at the last flush is not rewritten in place: it is written to new space and the link to
 * it in its parent group is updated, which changes the parent, which moves too — up to a new root
 * group header, which the superblock (the one in-place write of a commit) points at.
 *
 * Some objects must keep their address; they are *pinned* and keep the in-place write of chunk 0
 * (atomic per object, not across objects): see {@link ObjectGraph} and `H5File.flush`.
 * @module
 */
import type { HeaderModel } from './header-model.js';

/** One hard link to an object: the group holding it and the link's name. */
export interface ParentLink {
  parent: HeaderModel;
  name: string;
}

/** What the file's group structure tells the flush (implemented by the object layer). */
export interface ObjectGraph {
  /**
   * The hard links to every object reachable from the root group (objects no link reaches are
   * absent), and whether the file stores object references — addresses other objects hold, so no
   * object may move. `changed` are the headers the flush writes (checked for new references).
   */
  survey(root: HeaderModel, changed: readonly HeaderModel[]): Promise<{ parents: Map<HeaderModel, ParentLink[]>; references: boolean }>;
  /** True when the link storage of group `g` can point a link at a new address copy-on-write. */
  canRelink(g: HeaderModel): boolean;
  /** True when the object's address must not change (e.g. a committed datatype, which shared messages name by address). */
  pinned(h: HeaderModel): boolean;
  /** Points the link `name` of group `g` at `address` (g becomes a changed header). */
  relink(g: HeaderModel, name: string, address: number): void | Promise<void>;
}

/** The flush's plan: headers to move (children before their parents) and headers written in place. */
export interface MovePlan {
  /** Headers to move, deepest first; each with the link in its parent to update (none for the root). */
  moves: { h: HeaderModel; link: ParentLink | null }[];
}

/**
 * Plans the moves for the changed headers `old` (headers that existed at the last flush). A header
 * moves unless it is pinned: linked more than once (reference count or several links), linked from
 * nowhere (its link was deleted), named by address elsewhere ({@link ObjectGraph.pinned}), in a file
 * holding object references, or under a group that cannot relink it (link storage without
 * copy-on-write support, or itself pinned).
 * Every group on the way from a moving header to the root moves too. When the survey of the
 * file's groups fails (a group whose links cannot be read), nothing moves.
 */
export async function planMoves(graph: ObjectGraph, root: HeaderModel, old: readonly HeaderModel[], changed: readonly HeaderModel[], isOld: (h: HeaderModel) => boolean): Promise<MovePlan> {
  if (changed.length === 0) return { moves: [] };
  let survey: Awaited<ReturnType<ObjectGraph['survey']>>;
  try {
    // (also when no old header changed: the new headers are checked for object references)
    survey = await graph.survey(root, changed);
  } catch {
    // A group whose links cannot be read: who links to what is not known, so nothing moves (the
    // changed headers are rewritten in place, as for pinned objects).
    return { moves: [] };
  }
  const { parents, references } = survey;
  if (references || old.length === 0) return { moves: [] };
  const movable = new Map<HeaderModel, boolean>();
  const canMove = (h: HeaderModel, depth = 0): boolean => {
    const known = movable.get(h);
    if (known !== undefined) return known;
    let ok: boolean;
    const links = parents.get(h) ?? [];
    if ((h.source?.referenceCount ?? 1) > 1 || links.length > 1 || graph.pinned(h) || depth > 4096) ok = false;
    else if (h === root) ok = true;
    // No link leads to it (its link was deleted in this session): it keeps its address.
    else if (links.length === 0) ok = false;
    else {
      const p = links[0]!.parent;
      ok = p !== h && graph.canRelink(p) && (!isOld(p) || canMove(p, depth + 1));
    }
    movable.set(h, ok);
    return ok;
  };
  // The moving headers and every old group above them; depth orders children before parents.
  const depthOf = new Map<HeaderModel, number>();
  for (const h of old) {
    if (!canMove(h)) continue;
    const chain: HeaderModel[] = [];
    for (let x: HeaderModel | undefined = h; x && !depthOf.has(x) && isOld(x); x = x === root ? undefined : parents.get(x)?.[0]?.parent) chain.push(x);
    for (const x of chain) depthOf.set(x, 0);
  }
  const depth = (h: HeaderModel): number => {
    let d = 0;
    for (let x = h; x !== root && parents.get(x)?.[0]; x = parents.get(x)![0]!.parent) d++;
    return d;
  };
  for (const h of depthOf.keys()) depthOf.set(h, depth(h));
  const moves = [...depthOf.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([h]) => ({ h, link: h === root ? null : (parents.get(h)?.[0] ?? null) }));
  return { moves };
}
