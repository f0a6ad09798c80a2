/**
 * Small pieces shared by the tool commands' commander definitions.
 * @module
 */
import type { CommandIO } from './io.js';

/** What a command definition gets from the program: its streams and a way to set the exit code. */
export interface CommandContext {
  io: CommandIO;
  setCode: (code: number) => void;
}

/** commander's collector for a repeatable option (`-l A -l B` → `['A', 'B']`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
