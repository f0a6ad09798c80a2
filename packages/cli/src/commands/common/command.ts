/**
 * Small pieces shared by the tool commands' commander definitions.
 * @module
 */
import type { Command } from 'commander';
import type { CommandIO } from './io.js';

/** What a command definition gets from the program: its streams and a way to set the exit code. */
export interface CommandContext {
  io: CommandIO;
  setCode: (code: number) => void;
  /** Loads what commands need before they run (formats, filters, plug-ins), when the program defers it. */
  prepare?: () => Promise<void>;
}

/** True when `--quiet` was given to the command or to the program. */
export function quietOf(cmd: Command): boolean {
  return cmd.optsWithGlobals<{ quiet?: boolean }>().quiet === true;
}

/** commander's collector for a repeatable option (`-l A -l B` → `['A', 'B']`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
