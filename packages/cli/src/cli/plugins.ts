/**
 * Loading third-party filter packages into the CLI: `--plugin <package-or-path>` (repeatable) and
 * the environment variable CHUNKFORM_PLUGINS (entries separated like PATH: `:` on POSIX, `;` on Windows).
 *
 * A plug-in module either exports a function `register(container)` (or a default export that is one),
 * which the CLI calls, or exports filter objects (`{ id, encode, decode }`), which are registered as they are.
 * @module
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Container, Filter } from '@chunkform/core';
import { UsageError } from './io.js';

/** The environment variable listing plug-ins. */
export const PLUGINS_ENV = 'CHUNKFORM_PLUGINS';

/** Plug-in specs from the environment and the command line, without duplicates, in that order. */
export function pluginSpecs(cli: readonly string[] | undefined, env: string | undefined = process.env[PLUGINS_ENV]): string[] {
  const fromEnv = (env ?? '').split(delimiter).map((s) => s.trim()).filter((s) => s !== '');
  return [...new Set([...fromEnv, ...(cli ?? [])])];
}

function looksLikePath(spec: string): boolean {
  return spec.startsWith('.') || isAbsolute(spec) || spec.endsWith('.js') || spec.endsWith('.ts') || spec.endsWith('.mjs');
}

/** The ESM entry of a package directory: exports["."] (import/default), then module, main, index.js. */
function packageEntry(dir: string): string {
  const pj = join(dir, 'package.json');
  if (existsSync(pj)) {
    const pkg = JSON.parse(readFileSync(pj, 'utf8')) as { exports?: unknown; module?: string; main?: string };
    let e: unknown = pkg.exports;
    if (e && typeof e === 'object' && '.' in (e as object)) e = (e as Record<string, unknown>)['.'];
    while (e && typeof e === 'object') {
      const o = e as Record<string, unknown>;
      e = o['import'] ?? o['default'] ?? o['node'];
    }
    if (typeof e === 'string') return join(dir, e);
    if (pkg.module) return join(dir, pkg.module);
    if (pkg.main) return join(dir, pkg.main);
  }
  return join(dir, 'index.js');
}

/** Resolves a plug-in spec to a file: a path (file or package directory), or a package under node_modules of the cwd or above. */
export function resolvePlugin(spec: string, cwd = process.cwd()): string {
  if (looksLikePath(spec) || existsSync(resolve(cwd, spec))) {
    const p = resolve(cwd, spec);
    if (!existsSync(p)) throw new UsageError(`plugin ${spec}: no such file or directory`);
    return statSync(p).isDirectory() ? packageEntry(p) : p;
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', spec);
    if (existsSync(candidate)) return packageEntry(candidate);
    if (dirname(dir) === dir) break;
  }
  throw new UsageError(`plugin ${spec}: package not found (looked in node_modules from ${cwd} upwards)`);
}

function isFilter(v: unknown): v is Filter {
  const f = v as Partial<Filter> | null;
  return typeof f === 'object' && f !== null && typeof f.id === 'number' && typeof f.encode === 'function' && typeof f.decode === 'function';
}

/** Imports each plug-in and registers what it provides in `container`. */
export async function loadPlugins(specs: readonly string[], container: Container): Promise<void> {
  const { registerFilter } = await import('@chunkform/core');
  for (const spec of specs) {
    const file = resolvePlugin(spec);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (e) {
      throw new UsageError(`plugin ${spec}: cannot load ${file}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    }
    const register = mod['register'] ?? mod['default'];
    if (typeof register === 'function') {
      await (register as (c: Container) => unknown)(container);
      continue;
    }
    const filters = Object.values(mod).filter(isFilter);
    if (filters.length === 0) throw new UsageError(`plugin ${spec}: exports neither register(container) nor a filter object`);
    // A plug-in named on the command line replaces a stock filter with the same id on purpose.
    for (const f of filters) registerFilter(f, { container, replace: true });
  }
}
