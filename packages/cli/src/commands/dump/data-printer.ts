/**
 * Lays out element texts in lines exactly as h5dump 1.10 does (`h5tools_render_element`): a line
 * starts with the index of its first element (`(2,0): `, unless -y), elements are separated by
 * `, `, a new line starts at each new row of the last dimension, and an element goes to a new line
 * when it would pass the width (h5dump counts 3 columns more than the line holds).
 * @module
 */
import type { LineWriter } from '../../cli/sink.js';
import type { ElementFormatter } from './ddl-values.js';
import { coordAt, extents, type Subset } from './slabs.js';

/** Prints the elements of one DATA block, fed slab by slab. */
export class DataPrinter {
  private line = '';
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

  private newLine(text: string): void {
    if (this.pos > 0) this.w.line(this.line);
    this.line = this.pad + this.prefix(this.pos) + text;
  }

  /** Prints `n` elements of `values` (the next ones in selection order). */
  async block(values: unknown, n: number, fmt: ElementFormatter): Promise<void> {
    const width = this.width;
    for (let i = 0; i < n; i++) {
      const last = this.pos === this.total - 1 || (this.plane > 0 && (this.pos + 1) % this.plane === 0);
      const s = last ? fmt(values, i) : `${fmt(values, i)},`;
      if (this.pos === 0 || this.pos % this.rowLength === 0 || this.line.length + this.slack + s.length + 1 > width) this.newLine(s);
      else this.line += ` ${s}`;
      this.pos++;
      if ((this.pos & 1023) === 0) await this.w.maybeFlush();
    }
    await this.w.maybeFlush();
  }

  /** Prints `n` compound records, each as an indented block of member values. */
  async records(values: unknown, n: number, members: { name: string; f: (x: unknown) => string }[]): Promise<void> {
    const recs = values as ArrayLike<Record<string, unknown>>;
    for (let i = 0; i < n; i++) {
      const last = this.pos === this.total - 1;
      if (this.pos > 0) this.w.line(this.line);
      this.w.line(`${this.pad}${this.prefix(this.pos)}{`);
      const rec = recs[i]!;
      members.forEach((m, j) => this.w.line(`${this.dataPad}      ${m.f(rec[m.name])}${j < members.length - 1 ? ',' : ''}`));
      this.line = `${this.dataPad}   }${last ? '' : ','}`;
      this.pos++;
      await this.w.maybeFlush();
    }
  }

  /** Ends the block (writes the last line). */
  finish(): void {
    if (this.pos > 0) this.w.line(this.line);
  }
}
