/**
 * Project files cite documents a clone of the repository contains: `docs/…` pages (with section numbers
 * that exist), never design documents kept outside the repository.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'api', '.changeset', 'fixtures']);
const EXT = /\.(ts|mts|mjs|js|md|py|json|html)$/;

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name === 'CHANGELOG.md' || name === 'pnpm-lock.yaml') continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) files(p, out);
    else if (EXT.test(name) && st.size < 2_000_000) out.push(p);
  }
  return out;
}

const tops = ['packages', 'examples', 'bench', 'test', 'docs', 'scripts', '.ci'].map((d) => join(root, d));
const all = [
  ...tops.flatMap((d) => (statSync(d, { throwIfNoEntry: false })?.isDirectory() ? files(d) : [])),
  ...['README.md', 'CONTRIBUTING.md', 'BENCHMARKS.md'].map((f) => join(root, f)),
].filter((p) => p !== join(root, 'test', 'doc-citations.test.ts'));

/** Citations of documents outside the repository. */
const OUTSIDE = /\.\.\/shared\b|\bseeds?\/|\bseed 0\d\d\b|\bnotes\/[\w-]+\.md|\bnotes §|perf-anchors|\banchors\.md\b/;

describe('citations', () => {
  it('never point outside the repository', () => {
    const hits: string[] = [];
    for (const p of all) {
      const lines = readFileSync(p, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (OUTSIDE.test(line)) hits.push(`${relative(root, p)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(hits).toEqual([]);
  });

  it('of docs/ pages name pages and sections that exist', () => {
    const sections = new Map<string, Set<string>>();
    const sectionsOf = (page: string): Set<string> | undefined => {
      if (!sections.has(page)) {
        let text: string;
        try {
          text = readFileSync(join(root, 'docs', page), 'utf8');
        } catch {
          return undefined;
        }
        const nums = new Set<string>();
        for (const m of text.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? /gm)) nums.add(m[1]!);
        sections.set(page, nums);
      }
      return sections.get(page);
    };
    const bad: string[] = [];
    for (const p of all) {
      const text = readFileSync(p, 'utf8');
      for (const m of text.matchAll(/(?<![\w/.-])docs\/([\w-]+\.md)(?: §(\d+(?:\.\d+)*))?/g)) {
        const nums = sectionsOf(m[1]!);
        if (!nums) bad.push(`${relative(root, p)}: ${m[0]} (no such page)`);
        else if (m[2] && !nums.has(m[2])) bad.push(`${relative(root, p)}: ${m[0]} (no such section)`);
      }
    }
    expect(bad).toEqual([]);
  });
});
