#!/usr/bin/env node
// Launcher of the `chunkform` command. In the repository it runs the TypeScript sources through
// tsx (a root devDependency); in an installed package without tsx it runs the compiled dist/.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// Keep V8's young generation at its initial size (1 MiB semi-spaces) instead of letting it grow to
// 16 MiB: the commands stream through short-lived objects, so a small young generation costs no
// time and keeps `dump`'s peak memory ≈ 25 MB lower (bench/dump.ts).
setFlagsFromString('--semi-space-growth-factor=1');

const src = new URL('../src/main.ts', import.meta.url);
const dist = new URL('../dist/main.js', import.meta.url);

let entry = dist;
if (existsSync(src)) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    entry = src;
  } catch (err) {
    if (!existsSync(dist)) {
      process.stderr.write(`chunkform: cannot load the TypeScript sources (tsx not found: ${err.message})\n`);
      process.exit(1);
    }
  }
}
const { main } = await import(entry.href);
await main(process.argv.slice(2));
