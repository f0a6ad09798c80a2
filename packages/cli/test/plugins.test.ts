/**
 * CLI plumbing: third-party filters load with `--plugin <path-or-package>` and CHUNKFORM_PLUGINS
 * (the README's examples/filter-plugin delta filter), without them the dump says which filter is
 * missing; `pnpm exec chunkform` works at the repository root; `--help` loads no command code.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginSpecs, resolvePlugin } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/chunkform.js', import.meta.url));
const PLUGIN_DIR = join(ROOT, 'examples/filter-plugin');
let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chunkform-plugins-'));
  file = join(dir, 'delta.h5');
  execFileSync(process.execPath, ['--import', 'tsx', join(PLUGIN_DIR, 'app.ts'), file], { cwd: ROOT });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function chunkform(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, CHUNKFORM_PLUGINS: '', ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ARGS = ['dump', '-d', '/events/timestamp_ns', '-c', '3'];

describe('filter plug-ins', () => {
  it('without the plug-in: exit 1, the missing filter id on stderr', () => {
    const r = chunkform([...ARGS, file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/filter 300 is not registered \(load its plug-in with --plugin or CHUNKFORM_PLUGINS\)/);
  });

  it('--plugin <path> and CHUNKFORM_PLUGINS load the delta filter', () => {
    const expected = '      (0): 1714564800001000000, 1714564800002000919, 1714564800003001757';
    const a = chunkform(['--plugin', './examples/filter-plugin', ...ARGS, file]);
    expect(a.stderr).toBe('');
    expect(a.status).toBe(0);
    expect(a.stdout.split('\n')).toContain(expected);
    const b = chunkform([...ARGS, '--plugin', join(PLUGIN_DIR, 'src/index.ts'), file]);
    expect(b.status).toBe(0);
    expect(b.stdout.split('\n')).toContain(expected);
    const c = chunkform([...ARGS, file], { CHUNKFORM_PLUGINS: PLUGIN_DIR });
    expect(c.status).toBe(0);
    expect(c.stdout.split('\n')).toContain(expected);
  });

  it('a plug-in that cannot be found is a usage error with one line', () => {
    const r = chunkform(['--plugin', 'no-such-chunkform-plugin', 'ls', file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`chunkform: plugin no-such-chunkform-plugin: package not found (looked in node_modules from ${ROOT.replace(/\/$/, '')} upwards)\n`);
  });

  it('resolves package names through node_modules and splits CHUNKFORM_PLUGINS like PATH', () => {
    expect(resolvePlugin('@chunkform/cli', ROOT)).toMatch(/cli\/src\/index\.ts$/);
    expect(pluginSpecs(['b'], 'a::b')).toEqual(['a', 'b']);
  });
});

describe('the chunkform command', () => {
  it('runs with pnpm exec at the repository root', () => {
    const r = spawnSync('pnpm', ['exec', 'chunkform', 'ls', file], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('events');
  });

  it('--help loads only the program and the command definitions', () => {
    const probe = `const loaded = [];
const { register } = await import('tsx/esm/api');
register({ onImport: (url) => loaded.push(url) });
const { run } = await import(${JSON.stringify(join(ROOT, 'packages/cli/src/main.ts'))});
await run(['--help'], { stdout: { write() {} }, stderr: { write() {} } });
console.log(loaded.join('\\n'));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: join(ROOT, 'packages/cli'), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/commands\/dump\/command\.ts/);
    expect(r.stdout).not.toMatch(/packages\/core\/src/);
    expect(r.stdout).not.toMatch(/commands\/dump\/ddl/);
  });
});
