/** Test helper: every chunk's coordinates of a dataset of `dims` in chunks of `chunk`, in row-major order. */
export function allChunks(dims: number[], chunk: number[]): number[][] {
  const counts = dims.map((d, i) => Math.ceil(d / chunk[i]!));
  const out: number[][] = [];
  const rec = (prefix: number[]): void => {
    if (prefix.length === dims.length) return void out.push(prefix);
    for (let c = 0; c < counts[prefix.length]!; c++) rec([...prefix, c]);
  };
  rec([]);
  return out;
}
