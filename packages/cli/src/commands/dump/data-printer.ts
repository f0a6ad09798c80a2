/**
 * Lays out element texts in lines exactly as h5dump 1.10 does (`h5tools_render_element`): a line
 * starts with the index of its first element (`(2,0): `, unless -y), elements are separated by
 * `, `, a new line starts at each new row of the last dimension, and an element goes to a new line
 * when it would pass the width (h5dump counts 3 columns more than the line holds).
 * @module
 */
import { decimalDigits, type LineWriter } from '../../cli/sink.js';
import type { ElementFormatter } from './ddl-values.js';
import { coordAt, extents, type Subset } from './slabs.js';

/** Prints the elements of one DATA block, fed slab by slab. */
export class DataPrinter {
  /** Length of the current line (open in the writer; ASCII, so characters are bytes). */
  private lineLength = 0;
  private pos = 0;
  private readonly ext: number[];
  private readonly rowLength: number;
  private readonly total: number;
  /** Indent of the data lines (one level deeper with -y, as h5dump does). */
  private readonly pad: string;
  /** Columns h5dump counts beyond the line's length when it decides on a wrap. */
  private readonly slack: number;
  /** h5dump prints a subset of rank ≥ 3 plane by plane: no comma after a plane's last element. */
  private readonly plane: number;

  constructor(
    private readonly w: LineWriter,
    /** Indent of the `DATA {` line. */
    private readonly dataPad: string,
    private readonly width: number,
    private readonly noindex: boolean,
    private readonly subset: Subset | null,
    planeBreaks = false,
  ) {
    this.ext = subset ? extents(subset) : [];
    this.total = this.ext.reduce((a, b) => a * b, 1);
    this.rowLength = this.ext.length > 0 ? this.ext[this.ext.length - 1]! : 1;
    this.pad = noindex ? `${dataPad}   ` : dataPad;
    this.slack = noindex ? 0 : 3;
    const r = this.ext.length;
    this.plane = planeBreaks && r >= 3 ? this.ext[r - 1]! * this.ext[r - 2]! : 0;
  }

  /** The `(i,j,…): ` prefix of the element at selection position `p`. */
  private prefix(p: number): string {
    if (this.noindex) return '';
    if (!this.subset || this.ext.length === 0) return `(${p}): `;
    const c: number[] = new Array(this.ext.length);
    let r = p;
    for (let d = this.ext.length - 1; d >= 0; d--) {
      const e = this.ext[d]!;
      c[d] = coordAt(this.subset, d, r % e);
      r = Math.floor(r / e);
    }
    return `(${c.join(',')}): `;
  }

  /** Ends the current line (if any) and opens the next with its indent and index prefix. */
  private newLine(): void {
    if (this.pos > 0) this.w.endLine();
    const head = this.pad + this.prefix(this.pos);
    this.w.openLine(head);
    this.lineLength = head.length;
  }

  /** Is element `pos` the last one of the block or of a plane? */
  private isLast(): boolean {
    return this.pos === this.total - 1 || (this.plane > 0 && (this.pos + 1) % this.plane === 0);
  }

  /** Starts a new line for an element of `len` characters (comma included) if h5dump would, else a space. */
  private place(len: number): void {
    if (this.pos === 0 || this.pos % this.rowLength === 0 || this.lineLength + this.slack + len + 1 > this.width) this.newLine();
    else {
      this.w.ascii(32);
      this.lineLength++;
    }
    this.lineLength += len;
  }

  /**
   * Prints `n` elements of `values` (the next ones in selection order). `integers`: the values are
   * of an integer datatype (printed in decimal; TypedArrays of up to 32 bits take a faster path).
   */
  async block(values: unknown, n: number, fmt: ElementFormatter, integers = false): Promise<void> {
    if (integers && isSafeIntegerArray(values)) return this.integers(values, n);
    for (let i = 0; i < n; i++) {
      const last = this.isLast();
      const s = fmt(values, i);
      this.place(s.length + (last ? 0 : 1));
      this.w.text(last ? s : `${s},`);
      this.pos++;
      if ((this.pos & 255) === 0) await this.w.maybeFlush();
    }
    await this.w.maybeFlush();
  }

  /** {@link block} for integers of up to 32 bits: digits written as bytes, no string per element. */
  private async integers(values: IntegerArray, n: number): Promise<void> {
    const w = this.w;
    for (let i = 0; i < n; i++) {
      const last = this.isLast();
      const x = values[i]!;
      this.place(decimalDigits(x < 0 ? -x : x) + (x < 0 ? 1 : 0) + (last ? 0 : 1));
      w.int(x);
      if (!last) w.ascii(44);
      this.pos++;
      if (w.full) await w.flush();
    }
    await w.maybeFlush();
  }

  /** Prints `n` compound records, each as an indented block of member values. */
  async records(values: unknown, n: number, members: { name: string; f: (x: unknown) => string }[]): Promise<void> {
    const recs = values as ArrayLike<Record<string, unknown>>;
    for (let i = 0; i < n; i++) {
      const last = this.pos === this.total - 1;
      if (this.pos > 0) this.w.endLine();
      this.w.line(`${this.pad}${this.prefix(this.pos)}{`);
      const rec = recs[i]!;
      members.forEach((m, j) => this.w.line(`${this.dataPad}      ${m.f(rec[m.name])}${j < members.length - 1 ? ',' : ''}`));
      this.w.openLine(`${this.dataPad}   }${last ? '' : ','}`);
      this.pos++;
      await this.w.maybeFlush();
    }
  }

  /** Ends the block (writes the last line). */
  finish(): void {
    if (this.pos > 0) this.w.endLine();
  }
}

/** TypedArrays of integers of up to 32 bits. */
export type IntegerArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;

/** TypedArrays of integers that print exactly with {@link LineWriter.int}. */
export function isSafeIntegerArray(v: unknown): v is IntegerArray {
  return v instanceof Int8Array || v instanceof Uint8Array || v instanceof Int16Array || v instanceof Uint16Array || v instanceof Int32Array || v instanceof Uint32Array;
}
