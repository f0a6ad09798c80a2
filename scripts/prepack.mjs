#!/usr/bin/env node
// `prepack` of every package (npm pack / npm publish / pnpm pack run it in the package's folder):
// builds dist/ and turns the workspace manifest into the published one, so that a tarball packed
// by plain `npm pack` from a fresh clone installs and runs anywhere:
//   - `exports` / `imports` point at dist/ (the `publishConfig` entries; in the workspace they
//     point at the TypeScript sources),
//   - `workspace:` dependency ranges become the sibling packages' versions,
//   - `publishConfig.exports/imports` and `devDependencies` are dropped.
// The workspace manifest is kept as `package.json.workspace` and put back by postpack.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = process.cwd();
const manifestPath = join(pkgDir, 'package.json');
const backupPath = join(pkgDir, 'package.json.workspace');
const packagesDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages');

if (existsSync(backupPath)) {
  throw new Error(`${backupPath} exists: a previous pack did not finish; run "node ../../scripts/postpack.mjs" in ${pkgDir} first`);
}

const original = readFileSync(manifestPath, 'utf8');
const pkg = JSON.parse(original);

/** Versions of the workspace's packages, by name. */
function workspaceVersions() {
  const versions = new Map();
  for (const name of readdirSync(packagesDir)) {
    const file = join(packagesDir, name, 'package.json');
    if (!existsSync(file)) continue;
    const p = JSON.parse(readFileSync(file, 'utf8'));
    versions.set(p.name, p.version);
  }
  return versions;
}

/** `workspace:*` → `1.2.3`, `workspace:^` → `^1.2.3`, `workspace:~` → `~1.2.3`, `workspace:<range>` → `<range>`. */
function resolveWorkspaceRange(name, range, versions) {
  if (!range.startsWith('workspace:')) return range;
  const spec = range.slice('workspace:'.length);
  const version = versions.get(name);
  if (version === undefined) throw new Error(`${pkg.name}: dependency ${name} (${range}) is not a package of this workspace`);
  if (spec === '*') return version;
  if (spec === '^' || spec === '~') return spec + version;
  return spec;
}

// Build first: a failed build leaves the manifest untouched.
if (pkg.scripts?.build) execFileSync('npm', ['run', '--silent', 'build'], { cwd: pkgDir, stdio: 'inherit' });

const versions = workspaceVersions();
const published = { ...pkg };
const pc = { ...(pkg.publishConfig ?? {}) };
if (pc.exports) published.exports = pc.exports;
if (pc.imports) published.imports = pc.imports;
delete pc.exports;
delete pc.imports;
if (Object.keys(pc).length > 0) published.publishConfig = pc;
else delete published.publishConfig;
for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
  if (!pkg[field]) continue;
  published[field] = Object.fromEntries(Object.entries(pkg[field]).map(([n, r]) => [n, resolveWorkspaceRange(n, r, versions)]));
}
delete published.devDependencies;

writeFileSync(backupPath, original);
writeFileSync(manifestPath, `${JSON.stringify(published, null, 2)}\n`);
