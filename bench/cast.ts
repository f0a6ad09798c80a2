/**
 * `readInto` conversion check (issue 10, item 5): the cost of refusing values that would change
 * (`casting: 'same_value'`, the default) against converting unchecked (`'unsafe'`, a TypedArray
 * `set`), on 16 M elements already in memory — the check is one loop over the whole source array.
 * Run alone: `node --import tsx bench/cast.ts`. Best of BENCH_CAST_REPEAT (default 7) runs.
 * @module
 */
import { castInto, type Casting } from '../packages/core/src/values/cast.js';
import type { NumericArray } from '../packages/core/src/values/types.js';
import { bestSeconds } from './timing.js';

const N = 1 << 24;
const REPEAT = Number(process.env.BENCH_CAST_REPEAT ?? 7);

const cases: [string, NumericArray, NumericArray][] = [
  ['float32 → Int16Array', Float32Array.from({ length: N }, (_, i) => (i % 60000) - 30000), new Int16Array(N)],
  ['int32 → Int16Array', Int32Array.from({ length: N }, (_, i) => (i % 60000) - 30000), new Int16Array(N)],
  ['float64 → Float32Array', Float64Array.from({ length: N }, (_, i) => i * 0.5), new Float32Array(N)],
  ['uint16 → Int16Array', Uint16Array.from({ length: N }, (_, i) => i % 30000), new Int16Array(N)],
];

console.log(`readInto conversions, ${N.toLocaleString('en-US')} elements (best of ${REPEAT}):`);
for (const [name, src, out] of cases) {
  const t = (c: Casting): Promise<number> => bestSeconds(REPEAT, () => castInto(src, out, c));
  const unsafe = await t('unsafe');
  const checked = await t('same_value');
  const ms = (s: number): string => `${(s * 1000).toFixed(1)} ms`;
  console.log(`  ${name.padEnd(24)} unsafe ${ms(unsafe).padStart(9)}   same_value ${ms(checked).padStart(9)}   (${((checked / unsafe - 1) * 100).toFixed(0)} % more)`);
}
