/**
 * Datatype descriptions as h5ls 1.10 prints them (`Type:` lines): "native int", "16-bit
 * big-endian integer", "6-byte null-padded ASCII string", enum and struct blocks.
 * @module
 */
import type { Datatype } from '@chunkform/core';

const NATIVE_INT: Record<number, string> = { 1: 'char', 2: 'short', 4: 'int', 8: 'long' };

/**
 * The h5ls text of `t` (several lines for enums and compounds), continuation lines at `pad`;
 * `simple` (h5ls -S) never says "native".
 */
export function h5lsType(t: Datatype, pad = '               ', simple = false): string {
  switch (t.class) {
    case 'integer': {
      const name = NATIVE_INT[t.size];
      if (t.size === 1 && simple) return `8-bit ${t.signed ? '' : 'unsigned '}integer`;
      if (t.order === 'LE' && name && !simple) {
        if (t.size === 1) return t.signed ? 'native signed char' : 'native unsigned char';
        return `native ${t.signed ? '' : 'unsigned '}${name}`;
      }
      return `${t.size * 8}-bit ${t.order === 'BE' ? 'big' : 'little'}-endian ${t.signed ? '' : 'unsigned '}integer`;
    }
    case 'float':
      if (t.order === 'LE' && t.size === 4 && !simple) return 'native float';
      if (t.order === 'LE' && t.size === 8 && !simple) return 'native double';
      return `IEEE ${t.size * 8}-bit ${t.order === 'BE' ? 'big' : 'little'}-endian float`;
    case 'string': {
      const pad2 = t.padding === 'nullterm' ? 'null-terminated' : t.padding === 'nullpad' ? 'null-padded' : 'space-padded';
      const cset = t.charset === 'utf-8' ? 'UTF-8' : 'ASCII';
      return `${t.length === 'variable' ? 'variable-length' : `${t.length}-byte`} ${pad2} ${cset} string`;
    }
    case 'enum': {
      const lines = [`enum ${h5lsType(t.base, pad, simple)} {`];
      for (const m of t.members) lines.push(`${pad}    ${m.name.padEnd(16)} = ${String(m.value)}`);
      lines.push(`${pad}}`);
      return lines.join('\n');
    }
    case 'compound': {
      const lines = ['struct {'];
      for (const m of t.members) lines.push(`${pad}    ${`"${m.name}"`.padEnd(18)} ${`+${m.offset}`.padEnd(5)} ${h5lsType(m.type, `${pad}    `, simple)}`);
      lines.push(`${pad}} ${t.size} bytes`);
      return lines.join('\n');
    }
    case 'array':
      return `[${t.dims.join(',')}] ${h5lsType(t.base, pad, simple)}`;
    case 'vlen':
      return `variable length of\n${pad}    ${h5lsType(t.base, `${pad}    `, simple)}`;
    case 'opaque':
      return `${t.size}-byte opaque type${t.tag ? `\n${pad}    (tag = "${t.tag}")` : ''}`;
    case 'bitfield':
      return `${t.size * 8}-bit ${t.order === 'BE' ? 'big' : 'little'}-endian bitfield`;
    case 'reference':
      return t.kind === 'object' ? 'object reference' : 'dataset region reference';
    default:
      return `${(t as { class: string }).class} type`;
  }
}
