/** LineWriter: lines encoded as UTF-8 as they are queued, digits written without strings, long lines. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { decimalDigits, LineWriter } from '../src/cli/sink.js';

function collector(): { w: LineWriter; text: () => string } {
  let out = '';
  return { w: new LineWriter({ write: (s: string) => (out += s) }), text: () => out };
}

describe('LineWriter', () => {
  it('writes integers digit by digit, equal to String()', async () => {
    const { w, text } = collector();
    const xs = [0, 1, 9, 10, 99, 100, 99999, 100000, 999999, 1000000, -1, -128, 127, 65535, -2147483648, 4294967295, 2 ** 53 - 1];
    for (const x of xs) {
      w.int(x);
      w.ascii(44);
    }
    await w.flush();
    expect(text()).toBe(xs.map((x) => `${x},`).join(''));
    for (const x of xs.filter((v) => v >= 0)) expect(decimalDigits(x)).toBe(String(x).length);
  });

  it('keeps lines, open lines and non-ASCII text intact across blocks', async () => {
    const { w, text } = collector();
    const expected: string[] = [];
    for (let i = 0; i < 20000; i++) {
      const s = i % 7 === 0 ? `ünïcødé ✓ ${i}` : `line ${i}`;
      w.openLine(s);
      w.text(' +');
      w.int(i);
      w.endLine();
      expected.push(`${s} +${i}`);
      await w.maybeFlush();
    }
    const long = 'x'.repeat(300000);
    w.line(long);
    expected.push(long);
    await w.flush();
    expect(text()).toBe(`${expected.join('\n')}\n`);
  });

  it('hands a Node stream bytes, and a new block while the stream still holds the last one', async () => {
    const chunks: Buffer[] = [];
    const stream = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _enc, done) {
        chunks.push(Buffer.from(chunk));
        setImmediate(done);
      },
    });
    const w = new LineWriter(stream);
    for (let i = 0; i < 30000; i++) {
      w.line(`value ${i}`);
      await w.maybeFlush();
    }
    await w.flush();
    await new Promise<void>((resolve) => stream.end(resolve));
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    expect(lines).toHaveLength(30001);
    expect(lines[29999]).toBe('value 29999');
    expect(lines.slice(0, -1).every((l, i) => l === `value ${i}`)).toBe(true);
  });

  it('newlineFirst puts the newline before each line (h5dump -o data files)', async () => {
    let out = '';
    const w = new LineWriter({ write: (s: string) => (out += s) }, true);
    w.openLine('a');
    w.int(1);
    w.endLine();
    w.line('b');
    await w.flush();
    expect(out).toBe('\na1\nb');
  });
});
