/**
 * Runs `chunkform dump` on one file: DDL (h5dump) or JSON on stdout, data lines to the `-o` file,
 * or raw values to the `-b … -o` file.
 * @module
 */
import { createWriteStream, openSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { Dataset, type Group, type H5File } from '@chunkform/core';
import type { CliContext } from '../../cli/io.js';
import { startProgress } from '../../cli/progress.js';
import { LineWriter } from '../../cli/sink.js';
import { accessError, withFile } from '../../cli/with-file.js';
import { BinaryWriter } from './binary.js';
import { DdlDumper } from './ddl.js';
import { writeContents } from './contents.js';
import { writeJsonDump } from './json.js';
import type { DumpPlan } from './options.js';

/** Number of dataset elements the plan prints (for the progress bar). */
async function plannedElements(root: Group, plan: DumpPlan): Promise<number> {
  let n = 0;
  for (const t of plan.targets) {
    if (t.kind === 'attribute') continue;
    try {
      const obj = t.path === '/' ? root : await root.get(t.path);
      if (obj instanceof Dataset) n += obj.size;
    } catch {
      // reported when the target is dumped
    }
  }
  return n;
}

/** Opens the `-o` file for writing (a clear error now rather than a stream error later). */
function openOutput(path: string): number {
  try {
    return openSync(path, 'w');
  } catch (e) {
    throw accessError(path, e) ?? e;
  }
}

/** Dumps `file` per `plan`; resolves to the number of objects that could not be read completely. */
export async function runDump(ctx: CliContext, file: string, plan: DumpPlan): Promise<number> {
  const w = new LineWriter(ctx.io.stdout);
  const dataStream = plan.output ? createWriteStream('', { fd: openOutput(plan.output) }) : undefined;
  let ok = false;
  try {
    const errors = await withFile(file, async (f: H5File) => {
      if (plan.json) return writeJsonDump(w, f, file, plan.targets[0]!.path, plan.header);
      if (plan.contents !== undefined) return writeContents(w, file, f, plan.contents === 1);
      const total = await plannedElements(f, plan);
      const progress = await startProgress(ctx.io, total, basename(file), { quiet: ctx.globals().quiet === true, outputToFile: plan.output !== undefined });
      try {
        const d = new DdlDumper(w, plan, (n) => progress.tick(n), dataStream && (plan.binary ? new BinaryWriter(dataStream, plan.binary) : new LineWriter(dataStream, true)));
        await d.file(file, f);
        for (const m of d.messages.slice(0, 5)) ctx.io.stderr.write(`chunkform: ${m}\n`);
        return d.errors;
      } finally {
        progress.stop();
      }
    });
    ok = true;
    return errors;
  } finally {
    await w.flush();
    if (dataStream) {
      await new Promise<void>((resolve, reject) => dataStream.end((e?: Error | null) => (e ? reject(e) : resolve())));
      if (!ok) rmSync(plan.output!, { force: true });
    }
  }
}
