/**
 * Value formatting shared by `chunkform ls` and `chunkform dump`: conversion of the values the
 * object layer returns (TypedArrays, `bigint`, `string[]`, compound records ...) to JSON-safe values,
 * a compact JSON printer, and one-line text renderings with truncation.
 * @module
 */

/** A value that `JSON.stringify` writes without loss. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

type AnyTypedArray =
  | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/** True for every TypedArray (not for `DataView`). */
export function isTypedArray(value: unknown): value is AnyTypedArray {
  return ArrayBuffer.isView(value) && !(value instanceof DataView);
}

/** A number for JSON: finite numbers unchanged, NaN/±Inf as the strings "NaN", "Infinity", "-Infinity". */
export function numberToJson(n: number): number | string {
  if (Number.isFinite(n)) return n;
  if (Number.isNaN(n)) return 'NaN';
  return n > 0 ? 'Infinity' : '-Infinity';
}

/** A TypedArray as a plain JSON array (64-bit integers become decimal strings). */
function typedArrayToJson(a: AnyTypedArray): JsonValue[] {
  const n = a.length;
  const out: JsonValue[] = new Array<JsonValue>(n);
  if (a instanceof BigInt64Array || a instanceof BigUint64Array) {
    for (let i = 0; i < n; i++) out[i] = a[i]!.toString();
  } else if (a instanceof Float32Array || a instanceof Float64Array) {
    for (let i = 0; i < n; i++) {
      const v = a[i]!;
      out[i] = Number.isFinite(v) ? v : numberToJson(v);
    }
  } else {
    const b = a as Exclude<AnyTypedArray, BigInt64Array | BigUint64Array>;
    for (let i = 0; i < n; i++) out[i] = b[i]!;
  }
  return out;
}

/**
 * Converts a value read from a file to JSON: TypedArrays → arrays, `bigint` → decimal string,
 * NaN/±Inf → "NaN"/"Infinity"/"-Infinity", `undefined` → null, Maps and records → objects,
 * `Date` → ISO string. Anything else becomes its string form.
 */
export function toJson(value: unknown): JsonValue {
  switch (typeof value) {
    case 'number':
      return numberToJson(value);
    case 'bigint':
      return value.toString();
    case 'string':
    case 'boolean':
      return value;
    case 'undefined':
      return null;
    case 'object': {
      if (value === null) return null;
      if (isTypedArray(value)) return typedArrayToJson(value);
      if (Array.isArray(value)) {
        const out: JsonValue[] = new Array<JsonValue>(value.length);
        for (let i = 0; i < value.length; i++) out[i] = toJson(value[i]);
        return out;
      }
      if (value instanceof Date) return value.toISOString();
      if (value instanceof ArrayBuffer) return typedArrayToJson(new Uint8Array(value));
      const obj: { [key: string]: JsonValue } = {};
      const entries = value instanceof Map ? value.entries() : Object.entries(value);
      for (const [k, v] of entries) obj[String(k)] = toJson(v);
      return obj;
    }
    default:
      return String(value);
  }
}

/**
 * Serialises JSON with `indent` spaces per level, but writes arrays of primitives (the bulk of
 * dataset values) on one line. Accepts any tree of plain objects, arrays and JSON primitives (such
 * as a dump document); object fields that are `undefined` are left out. The result parses back
 * with `JSON.parse` to the same value.
 */
export function stringifyJson(value: unknown, indent = 2): string {
  const parts: string[] = [];
  writeJson(value, '', ' '.repeat(indent), parts);
  return parts.join('');
}

function isObjectLike(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

function writePrimitive(v: unknown, out: string[]): void {
  const t = typeof v;
  if (t === 'number') out.push(JSON.stringify(numberToJson(v as number)));
  else if (t === 'string' || t === 'boolean') out.push(JSON.stringify(v));
  else if (t === 'bigint') out.push(JSON.stringify((v as bigint).toString()));
  else out.push('null');
}

function writeJson(v: unknown, pad: string, step: string, out: string[]): void {
  if (!isObjectLike(v)) {
    writePrimitive(v, out);
    return;
  }
  if (!Array.isArray(v) && (isTypedArray(v) || v instanceof Map || v instanceof Date || v instanceof ArrayBuffer)) {
    writeJson(toJson(v), pad, step, out);
    return;
  }
  const inner = pad + step;
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push('[]');
      return;
    }
    let flat = true;
    for (let i = 0; i < v.length; i++) {
      if (isObjectLike(v[i])) {
        flat = false;
        break;
      }
    }
    if (flat) {
      out.push('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) out.push(', ');
        writePrimitive(v[i], out);
      }
      out.push(']');
      return;
    }
    out.push('[\n');
    for (let i = 0; i < v.length; i++) {
      out.push(inner);
      writeJson(v[i], inner, step, out);
      out.push(i + 1 < v.length ? ',\n' : '\n');
    }
    out.push(pad, ']');
    return;
  }
  const rec = v as Record<string, unknown>;
  const keys = Object.keys(rec).filter((k) => rec[k] !== undefined);
  if (keys.length === 0) {
    out.push('{}');
    return;
  }
  out.push('{\n');
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    out.push(inner, JSON.stringify(k), ': ');
    writeJson(rec[k], inner, step, out);
    out.push(i + 1 < keys.length ? ',\n' : '\n');
  }
  out.push(pad, '}');
}

/** A number as text: NaN, Infinity, -Infinity, or its shortest round-trip form. */
export function numberText(n: number): string {
  return Number.isNaN(n) ? 'NaN' : String(n);
}

/** Collects text up to a character budget; `full` turns true once the budget is exceeded. */
class Budget {
  readonly parts: string[] = [];
  length = 0;
  full = false;
  constructor(private readonly limit: number) {}
  push(s: string): boolean {
    if (this.full) return false;
    this.parts.push(s);
    this.length += s.length;
    if (this.length > this.limit) this.full = true;
    return !this.full;
  }
}

function writeText(value: unknown, b: Budget): void {
  switch (typeof value) {
    case 'number':
      b.push(numberText(value));
      return;
    case 'bigint':
    case 'boolean':
      b.push(String(value));
      return;
    case 'string':
      b.push(JSON.stringify(value));
      return;
    case 'undefined':
      b.push('null');
      return;
    case 'object':
      break;
    default:
      b.push(String(value));
      return;
  }
  if (value === null) {
    b.push('null');
    return;
  }
  if (isTypedArray(value) || Array.isArray(value)) {
    const a = value as ArrayLike<unknown>;
    b.push('[');
    for (let i = 0; i < a.length && !b.full; i++) {
      if (i > 0) b.push(', ');
      writeText(a[i], b);
    }
    b.push(']');
    return;
  }
  if (value instanceof Date) {
    b.push(value.toISOString());
    return;
  }
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  b.push('{');
  for (let i = 0; i < entries.length && !b.full; i++) {
    if (i > 0) b.push(', ');
    b.push(`${String(entries[i]![0])}: `);
    writeText(entries[i]![1], b);
  }
  b.push('}');
}

/**
 * A value on one line: strings quoted, arrays as `[a, b]`, records as `{x: 1, y: 2}`, `bigint`
 * as digits, NaN/Infinity bare. Longer than `maxChars` → cut and ended with "...".
 */
export function formatValue(value: unknown, maxChars = Number.POSITIVE_INFINITY): string {
  const b = new Budget(maxChars);
  writeText(value, b);
  const s = b.parts.join('');
  if (!b.full || s.length <= maxChars) return s;
  return `${s.slice(0, Math.max(0, maxChars - 3))}...`;
}

/**
 * The elements of a (flat) value array as text lines of at most `width` characters (an element
 * longer than that gets a line of its own), each element followed by ", " except the last.
 */
export function formatValueLines(values: unknown, width = 76): string[] {
  const items: string[] = [];
  if (isTypedArray(values) || Array.isArray(values)) {
    const a = values as ArrayLike<unknown>;
    for (let i = 0; i < a.length; i++) items.push(formatValue(a[i]));
  } else {
    items.push(formatValue(values));
  }
  const lines: string[] = [];
  let line = '';
  for (let i = 0; i < items.length; i++) {
    const item = i + 1 < items.length ? `${items[i]!},` : items[i]!;
    if (line.length > 0 && line.length + 1 + item.length > width) {
      lines.push(line);
      line = item;
    } else {
      line = line.length > 0 ? `${line} ${item}` : item;
    }
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

/**
 * Dimensions the h5ls way: `{10/Inf, 20}`; `{SCALAR}` for rank 0. A maximum is shown when it
 * differs from the current size, or always with `showMax` (h5ls -v); `null` maxima print as "Inf".
 */
export function formatDims(shape: readonly number[], maxShape: readonly (number | null)[] | null, showMax = false): string {
  if (shape.length === 0) return '{SCALAR}';
  const parts: string[] = [];
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i]!;
    const m = maxShape ? maxShape[i] : d;
    const max = m === null ? 'Inf' : m === undefined ? String(d) : String(m);
    parts.push(showMax || max !== String(d) ? `${d}/${max}` : String(d));
  }
  return `{${parts.join(', ')}}`;
}

/** A list of integers as `{a, b, c}` (chunk dimensions, filter client data). */
export function formatList(values: ArrayLike<number | bigint>): string {
  return `{${Array.from(values, String).join(', ')}}`;
}
