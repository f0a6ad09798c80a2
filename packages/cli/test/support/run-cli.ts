/** Runs one `chunkform` command line in-process and collects its output (shared by the CLI tests). */
import { run } from '../../src/index.js';

/** The exit code and what the command wrote to stdout and stderr. */
export async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stdout, stderr };
}
