#!/usr/bin/env node
// Launcher of the `chunkform` command. In the repository it runs the TypeScript sources through
// tsx (a root devDependency); in an installed package without tsx it runs the compiled dist/.
import { existsSync } from 'node:fs';

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
