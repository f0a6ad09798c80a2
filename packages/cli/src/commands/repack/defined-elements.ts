/**
 * The `--defined-elements` argument of `chunkform repack`: the region DDL that
 * `chunkform dump --sparse-locations` prints (docs/cli.md, "repack"), so the two round-trip:
 *
 *     [REGION_TYPE] BLOCK (a,b)-(c,d), (e,f)-(g,h) ... [REGION_TYPE] POINT (i,j), (k,l) ...
 *
 * Blocks are inclusive corners, points single elements; sections may repeat in any order and
 * newlines count as spaces. The parse is a small hand-written scanner (the grammar is four tokens)
 * with errors that name the column and what was expected.
 * @module
 */
import { ValueError } from '@chunkform/core';

/** A parsed `--defined-elements` list: boxes in inclusive corner form, one rank. */
export interface DefinedElements {
  rank: number;
  /** Flat `[start0, end0, start1, end1, …]` per box, end exclusive (the shape core's block selections take). */
  boxes: number[];
  /** Number of BLOCK and POINT items (for messages). */
  items: number;
}

/** A `--defined-elements` argument that is not valid DDL. */
export class DefinedElementsError extends ValueError {}

class Scanner {
  at = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }

  done(): boolean {
    this.skipSpace();
    return this.at >= this.text.length;
  }

  peek(): string {
    this.skipSpace();
    return this.text[this.at] ?? '';
  }

  /** The upper-case word at the cursor (letters and '_'), consumed, or '' when none. */
  word(): string {
    this.skipSpace();
    const m = /^[A-Za-z_]+/.exec(this.text.slice(this.at));
    if (!m) return '';
    this.at += m[0].length;
    return m[0].toUpperCase();
  }

  expect(ch: string, what: string): void {
    if (this.peek() !== ch) this.fail(`expected ${what}`);
    this.at++;
  }

  fail(message: string): never {
    const found = this.at < this.text.length ? `'${this.text.slice(this.at, this.at + 12).split(/\s/)[0]}'` : 'the end';
    throw new DefinedElementsError(`--defined-elements: ${message} at column ${this.at + 1}, found ${found}`);
  }

  /** `(n, n, …)`: a coordinate tuple. */
  tuple(): number[] {
    this.expect('(', "'(' to start a coordinate");
    const out: number[] = [];
    for (;;) {
      this.skipSpace();
      const m = /^\d+/.exec(this.text.slice(this.at));
      if (!m) this.fail('expected a non-negative integer coordinate');
      const v = Number(m[0]);
      if (!Number.isSafeInteger(v)) this.fail('coordinate is too large');
      out.push(v);
      this.at += m[0].length;
      const c = this.peek();
      if (c === ',') {
        this.at++;
        continue;
      }
      if (c === ')') {
        this.at++;
        return out;
      }
      this.fail("expected ',' or ')' in a coordinate");
    }
  }
}

/**
 * Parses a `--defined-elements` list.
 * @throws DefinedElementsError naming the column of the first problem (unknown keyword, a bad
 * coordinate, corners of different ranks, a block whose end precedes its start, an empty list).
 */
export function parseDefinedElements(text: string): DefinedElements {
  const s = new Scanner(text);
  const boxes: number[] = [];
  let rank = -1;
  let items = 0;
  const checkRank = (t: number[]): void => {
    if (rank < 0) rank = t.length;
    else if (t.length !== rank) s.fail(`coordinate has ${t.length} dimensions where earlier ones have ${rank}`);
  };
  if (s.done()) throw new DefinedElementsError('--defined-elements: the list is empty (give BLOCK (a,b)-(c,d), … and/or POINT (a,b), …)');
  while (!s.done()) {
    const start = s.at;
    let kw = s.word();
    if (kw === 'REGION_TYPE') kw = s.word();
    if (kw !== 'BLOCK' && kw !== 'POINT') {
      s.at = start;
      s.skipSpace();
      s.fail("expected BLOCK or POINT (optionally after REGION_TYPE)");
    }
    for (;;) {
      const from = s.at;
      const a = s.tuple();
      checkRank(a);
      if (kw === 'BLOCK') {
        s.expect('-', "'-' between the corners of a block");
        const b = s.tuple();
        checkRank(b);
        for (let d = 0; d < rank; d++) {
          if (b[d]! < a[d]!) {
            s.at = from;
            s.skipSpace();
            s.fail(`block end (${b.join(',')}) is before its start (${a.join(',')}) in dimension ${d}`);
          }
          boxes.push(a[d]!, b[d]! + 1);
        }
      } else {
        for (let d = 0; d < rank; d++) boxes.push(a[d]!, a[d]! + 1);
      }
      items++;
      if (s.peek() === ',') {
        s.at++;
        continue;
      }
      break;
    }
  }
  return { rank, boxes, items };
}
