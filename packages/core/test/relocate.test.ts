/**
 * planMoves: which changed headers a flush moves copy-on-write and in which order (children before
 * parents, every group up to the root), and the rules that keep a header in place.
 */
import { describe, expect, it } from 'vitest';
import { HeaderModel } from '../src/file/header-model.js';
import type { ObjectHeader } from '../src/format/object-header.js';
import { planMoves, type ObjectGraph, type ParentLink } from '../src/file/relocate.js';

/** root → g → { d, h → e }, root → p (pinned) → q. */
function tree(): Record<string, HeaderModel> {
  const m: Record<string, HeaderModel> = {};
  for (const [i, n] of ['root', 'g', 'd', 'h', 'e', 'p', 'q'].entries()) m[n] = new HeaderModel(1000 + i * 100, [], null);
  return m;
}

function graph(m: Record<string, HeaderModel>, opts: { references?: boolean; fail?: boolean; noRelink?: string[] } = {}): ObjectGraph & { relinked: string[] } {
  const edges: [string, string][] = [
    ['root', 'g'],
    ['g', 'd'],
    ['g', 'h'],
    ['h', 'e'],
    ['root', 'p'],
    ['p', 'q'],
  ];
  const parents = new Map<HeaderModel, ParentLink[]>();
  for (const [p, c] of edges) parents.set(m[c]!, [{ parent: m[p]!, name: c }]);
  const relinked: string[] = [];
  return {
    relinked,
    async survey() {
      if (opts.fail) throw new Error('unreadable group');
      return { parents, references: opts.references === true };
    },
    canRelink: (g) => !(opts.noRelink ?? []).some((n) => m[n] === g),
    pinned: (h) => h === m.p,
    relink: (g, name) => void relinked.push(`${Object.keys(m).find((k) => m[k] === g)}/${name}`),
  };
}

const names = (m: Record<string, HeaderModel>, hs: HeaderModel[]): string[] => hs.map((h) => Object.keys(m).find((k) => m[k] === h)!);

describe('planMoves', () => {
  it('moves a changed header and every group above it, deepest first, each with its parent link', async () => {
    const m = tree();
    const plan = await planMoves(graph(m), m.root!, [m.e!, m.d!], [m.e!, m.d!], () => true);
    const order = names(m, plan.moves.map((x) => x.h));
    expect(order.slice(0, 1)).toEqual(['e']);
    expect(order.indexOf('h')).toBeLessThan(order.indexOf('g'));
    expect(order.indexOf('d')).toBeLessThan(order.indexOf('g'));
    expect(order[order.length - 1]).toBe('root');
    expect(new Set(order)).toEqual(new Set(['e', 'h', 'd', 'g', 'root']));
    expect(plan.moves.find((x) => x.h === m.e)!.link).toEqual({ parent: m.h, name: 'e' });
    expect(plan.moves.find((x) => x.h === m.root)!.link).toBeNull();
  });

  it('keeps in place: a pinned header, the headers under it, a header with reference count 2, one under a group that cannot relink', async () => {
    const m = tree();
    const q = m.q!;
    expect((await planMoves(graph(m), m.root!, [q, m.p!], [q, m.p!], () => true)).moves).toEqual([]);
    const shared = new HeaderModel(m.d!.address, [], { referenceCount: 2 } as ObjectHeader);
    m.d = shared;
    expect((await planMoves(graph(m), m.root!, [shared], [shared], () => true)).moves).toEqual([]);
    const m2 = tree();
    expect((await planMoves(graph(m2, { noRelink: ['h'] }), m2.root!, [m2.e!], [m2.e!], () => true)).moves).toEqual([]);
  });

  it('stops at a parent created since the last flush (its link already points at the new header)', async () => {
    const m = tree();
    const fresh = new Set([m.h!]);
    const plan = await planMoves(graph(m), m.root!, [m.e!], [m.e!, m.h!], (h) => !fresh.has(h));
    expect(names(m, plan.moves.map((x) => x.h))).toEqual(['e']);
  });

  it('moves nothing when the file holds object references or its groups cannot be surveyed', async () => {
    const m = tree();
    expect((await planMoves(graph(m, { references: true }), m.root!, [m.e!], [m.e!], () => true)).moves).toEqual([]);
    expect((await planMoves(graph(m, { fail: true }), m.root!, [m.e!], [m.e!], () => true)).moves).toEqual([]);
  });
});
