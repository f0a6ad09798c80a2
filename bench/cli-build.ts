/**
 * The `chunkform` CLI as an installed package runs it — compiled JavaScript, no TypeScript loader —
 * for the tool benchmarks (bench/dump.ts, bench/tools-repack.ts, bench/cli-memory.ts). In the
 * repository, bin/chunkform.js runs the sources through tsx, whose loader and transpiler add ≈ 50 MB
 * and ≈ 0.5 s to every start; an install runs dist/. This bundles packages/cli/src/main.ts with
 * esbuild (code splitting keeps the commands' lazy imports) into a temporary folder.
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** A compiled CLI: `node <script> <args>` runs it; `dispose()` removes it. */
export interface CompiledCli {
  script: string;
  dispose(): void;
}

/** Bundles the CLI into a temporary folder. */
export async function compileCli(): Promise<CompiledCli> {
  const dir = mkdtempSync(join(tmpdir(), 'chunkform-cli-'));
  await build({
    entryPoints: [fileURLToPath(new URL('../packages/cli/src/main.ts', import.meta.url))],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: join(dir, 'dist'),
    logLevel: 'warning',
    // CommonJS dependencies (commander) require Node built-ins
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  const script = join(dir, 'chunkform.mjs');
  writeFileSync(script, "const { main } = await import('./dist/main.js');\nawait main(process.argv.slice(2));\n");
  return { script, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
