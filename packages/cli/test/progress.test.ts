/**
 * The progress bar: drawn on stderr (cli-progress) only when stderr is a terminal and the output is
 * not on the same terminal; `--quiet` and non-terminals get none.
 */
import { describe, expect, it } from 'vitest';
import { startProgress } from '../src/cli/progress.js';

function fakeTty(): { stream: Record<string, unknown>; text: () => string } {
  let out = '';
  const stream = {
    isTTY: true,
    columns: 80,
    write: (s: string) => {
      out += s;
      return true;
    },
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
    on: () => stream,
    removeListener: () => stream,
  };
  return { stream, text: () => out };
}

describe('progress bar', () => {
  it('draws on a terminal stderr when stdout is redirected, and not otherwise', async () => {
    const err = fakeTty();
    const io = { stdout: { write: () => true, isTTY: false }, stderr: err.stream as never };
    const bar = await startProgress(io, 100, 'f.h5', {});
    bar.tick(50);
    bar.stop();
    expect(err.text()).toMatch(/f\.h5 \[/);

    for (const [opts, stdoutTty, stderrTty] of [
      [{ quiet: true }, false, true],
      [{}, true, true],
      [{}, false, false],
    ] as const) {
      const e = fakeTty();
      e.stream['isTTY'] = stderrTty;
      const p = await startProgress({ stdout: { write: () => true, isTTY: stdoutTty }, stderr: e.stream as never }, 100, 'x', opts);
      p.tick(10);
      p.stop();
      expect(e.text()).toBe('');
    }
  });
});
