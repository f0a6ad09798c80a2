/**
 * The DATATYPE and DATASPACE parts of h5dump's DDL (h5dump 1.10 `h5tools_print_datatype` /
 * `h5tools_print_dataspace` output), written as lines at an indent.
 * @module
 */
import type { Dataspace, Datatype } from '@chunkform/core';

/** `H5T_STD_I32LE`, `H5T_IEEE_F64BE`, `H5T_STD_B8LE` ... for atomic numeric types; undefined otherwise. */
export function atomicName(t: Datatype): string | undefined {
  const o = 'order' in t && t.order === 'BE' ? 'BE' : 'LE';
  switch (t.class) {
    case 'integer':
      return `H5T_STD_${t.signed ? 'I' : 'U'}${t.size * 8}${o}`;
    case 'float':
      return t.size === 4 || t.size === 8 ? `H5T_IEEE_F${t.size * 8}${o}` : `H5T_IEEE_F${t.size * 8}${o}`;
    case 'bitfield':
      return `H5T_STD_B${t.size * 8}${o}`;
    case 'time':
      return `H5T_UNIX_D${t.size * 8}${o}`;
    case 'reference':
      return `H5T_REFERENCE { ${t.kind === 'object' ? 'H5T_STD_REF_OBJECT' : 'H5T_STD_REF_DSETREG'} }`;
    default:
      return undefined;
  }
}

/**
 * The datatype as DDL lines. The first line continues the caller's `DATATYPE  ` text (so it has no
 * indent); later lines carry `pad` plus their nesting.
 */
export function datatypeLines(t: Datatype, pad: string): string[] {
  const atomic = atomicName(t);
  if (atomic !== undefined) return [atomic];
  const inner = `${pad}   `;
  switch (t.class) {
    case 'string':
      return [
        'H5T_STRING {',
        `${inner}STRSIZE ${t.length === 'variable' ? 'H5T_VARIABLE' : t.length};`,
        `${inner}STRPAD ${t.padding === 'nullterm' ? 'H5T_STR_NULLTERM' : t.padding === 'nullpad' ? 'H5T_STR_NULLPAD' : 'H5T_STR_SPACEPAD'};`,
        `${inner}CSET ${t.charset === 'utf-8' ? 'H5T_CSET_UTF8' : 'H5T_CSET_ASCII'};`,
        `${inner}CTYPE H5T_C_S1;`,
        `${pad}}`,
      ];
    case 'enum': {
      const out = ['H5T_ENUM {', `${inner}${atomicName(t.base)};`];
      for (const m of t.members) {
        const q = `"${m.name}"`;
        out.push(`${inner}${q.padEnd(19)}${q.length >= 19 ? ' ' : ''}${String(m.value)};`);
      }
      out.push(`${pad}}`);
      return out;
    }
    case 'compound': {
      const out = ['H5T_COMPOUND {'];
      for (const m of t.members) {
        const sub = datatypeLines(m.type, inner);
        sub[0] = `${inner}${sub[0]}`;
        sub[sub.length - 1] += ` "${m.name}";`;
        out.push(...sub);
      }
      out.push(`${pad}}`);
      return out;
    }
    case 'array': {
      const sub = datatypeLines(t.base, pad);
      sub[0] = `H5T_ARRAY { [${t.dims.join('][')}] ${sub[0]}`;
      sub[sub.length - 1] += ' }';
      return sub;
    }
    case 'vlen': {
      const sub = datatypeLines(t.base, pad);
      sub[0] = `H5T_VLEN { ${sub[0]}`;
      sub[sub.length - 1] += ' }';
      return sub;
    }
    case 'opaque':
      return ['H5T_OPAQUE {', `${inner}OPAQUE_TAG "${t.tag}";`, `${pad}}`];
    default:
      return [`H5T_UNKNOWN_CLASS_${(t as { class: string }).class}`];
  }
}

/** `SCALAR`, `NULL` or `SIMPLE { ( 3, 4 ) / ( 3, H5S_UNLIMITED ) }`. */
export function dataspaceText(space: Dataspace, shape: readonly number[], maxShape: readonly (number | null)[] | null): string {
  if (space.kind === 'null') return 'NULL';
  if (space.kind === 'scalar') return 'SCALAR';
  const max = (maxShape ?? shape).map((m) => (m === null ? 'H5S_UNLIMITED' : String(m)));
  return `SIMPLE { ( ${shape.join(', ')} ) / ( ${max.join(', ')} ) }`;
}

/** Writes `DATATYPE  …` lines at `pad`. */
export function writeDatatype(t: Datatype, pad: string, out: (l: string) => void): void {
  const lines = datatypeLines(t, pad);
  lines[0] = `${pad}DATATYPE  ${lines[0]}`;
  for (const l of lines) out(l);
}
