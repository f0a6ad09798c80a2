#!/usr/bin/python3
"""Canonical JSON description of an HDF5 file, as h5py (the HDF5 C library) sees it.

Usage: /usr/bin/python3 h5py_dump.py FILE [--out JSON]

The interop tests compare chunkform against this JSON, both for files h5py writes and for files
chunkform writes. Format (version 1):

  {"format": 1, "file": NAME, "objects": [OBJ, ...]}         objects in pre-order, links in h5py order
  OBJ (group):    {"path", "kind": "group", "address", "links": [LINK], "attrs": {name: ATTR}, "attr_order"}
  OBJ (dataset):  {"path", "kind": "dataset", "address", "shape", "maxshape", "dtype": DT, "dtype_str",
                   "layout", "chunked", "fill": {"defined", "value"}, "values" | "values_digest", "attrs", "attr_order"}
  OBJ (alias):    {"path", "kind", "address", "alias_of": PATH}    a second hard link to an object seen earlier
  LINK:           {"name", "kind": "hard"|"soft"|"external", "target"?, "file"?, "path"?,
                   "dangling"?, "target_kind"?, "target_address"?}
  ATTR:           {"dtype": DT, "dtype_str", "shape" (null = null dataspace, [] = scalar), "value"}
  DT:             mirrors chunkform's Datatype model (class, size, signed, order, length, charset, padding,
                  base, members, dims), taken from the HDF5 datatype itself (not from numpy); compounds
                  holding variable-length data omit size and offsets (HDF5 reports their memory layout).

Values: flattened in C order. 64-bit integers (and 64-bit enum member values) are decimal strings; floats are
numbers, except NaN/Infinity/-Infinity which are strings; bools are 0/1; enums are their integer values;
fixed strings have trailing NULs stripped; byte strings are decoded as UTF-8; compound elements are objects;
array-typed elements are flat lists. Scalar dataspaces give one value (attributes: the bare value; datasets: a
one-element list); null dataspaces give null. Numeric datasets with more than DIGEST_MIN elements carry
"values_digest": {"sha256", "count", "dtype", "head"} instead of "values": the SHA-256 of the elements stored
little-endian in the numpy type `dtype` (float16 widened to float32, bool as int8) and the first values.
"""
import hashlib
import json
import math
import os
import sys

import h5py
import numpy as np
from h5py import h5d, h5o, h5s, h5t

DIGEST_MIN = 20000

_ORDER = {h5t.ORDER_LE: 'LE', h5t.ORDER_BE: 'BE'}
_PAD = {h5t.STR_NULLTERM: 'nullterm', h5t.STR_NULLPAD: 'nullpad', h5t.STR_SPACEPAD: 'spacepad'}
_LAYOUT = {h5d.COMPACT: 'compact', h5d.CONTIGUOUS: 'contiguous', h5d.CHUNKED: 'chunked'}
_FILL = {h5d.FILL_VALUE_UNDEFINED: 'undefined', h5d.FILL_VALUE_DEFAULT: 'default', h5d.FILL_VALUE_USER_DEFINED: 'user'}


def _s(b):
    return b.decode('utf-8') if isinstance(b, bytes) else str(b)


def has_vlen(tid):
    cls = tid.get_class()
    if cls == h5t.VLEN or (cls == h5t.STRING and tid.is_variable_str()):
        return True
    if cls == h5t.COMPOUND:
        return any(has_vlen(tid.get_member_type(i)) for i in range(tid.get_nmembers()))
    if cls in (h5t.ARRAY, h5t.ENUM):
        return has_vlen(tid.get_super())
    return False


def describe_type(tid):
    """HDF5 datatype -> dict shaped like chunkform's Datatype."""
    cls = tid.get_class()
    size = tid.get_size()
    if cls == h5t.INTEGER:
        return {'class': 'integer', 'size': size, 'signed': tid.get_sign() == h5t.SGN_2, 'order': _ORDER[tid.get_order()]}
    if cls == h5t.FLOAT:
        return {'class': 'float', 'size': size, 'order': _ORDER[tid.get_order()]}
    if cls == h5t.STRING:
        return {
            'class': 'string',
            'length': 'variable' if tid.is_variable_str() else size,
            'charset': 'utf-8' if tid.get_cset() == h5t.CSET_UTF8 else 'ascii',
            'padding': _PAD[tid.get_strpad()],
        }
    if cls == h5t.ENUM:
        base = tid.get_super()
        wide = base.get_size() == 8
        members = []
        for i in range(tid.get_nmembers()):
            v = int(tid.get_member_value(i))
            members.append({'name': _s(tid.get_member_name(i)), 'value': str(v) if wide else v})
        return {'class': 'enum', 'base': describe_type(base), 'members': members}
    if cls == h5t.COMPOUND:
        # HDF5 reports types holding variable-length data with their *memory* layout (pointers), so
        # their size and member offsets say nothing about the file: leave them out.
        file_layout = not has_vlen(tid)
        members = []
        for i in range(tid.get_nmembers()):
            m = {'name': _s(tid.get_member_name(i))}
            if file_layout:
                m['offset'] = tid.get_member_offset(i)
            m['type'] = describe_type(tid.get_member_type(i))
            members.append(m)
        out = {'class': 'compound', 'members': members}
        if file_layout:
            out['size'] = size
        return out
    if cls == h5t.ARRAY:
        return {'class': 'array', 'dims': list(tid.get_array_dims()), 'base': describe_type(tid.get_super())}
    if cls == h5t.VLEN:
        return {'class': 'vlen', 'base': describe_type(tid.get_super())}
    if cls == h5t.OPAQUE:
        return {'class': 'opaque', 'size': size, 'tag': _s(tid.get_tag())}
    if cls == h5t.BITFIELD:
        return {'class': 'bitfield', 'size': size, 'order': _ORDER[tid.get_order()]}
    if cls == h5t.REFERENCE:
        return {'class': 'reference', 'size': size}
    if cls == h5t.TIME:
        return {'class': 'time', 'size': size}
    return {'class': 'unknown', 'size': size}


def conv_elem(v, dt):
    """One element (numpy scalar / void / bytes / str / subarray) of numpy dtype `dt` -> JSON value."""
    if dt.names is not None:
        return {name: conv_elem(v[name], dt.fields[name][0]) for name in dt.names}
    if dt.subdtype is not None:
        base = dt.subdtype[0]
        return [conv_elem(e, base) for e in np.asarray(v).reshape(-1)]
    k = dt.kind
    if k == 'b':
        return 1 if bool(v) else 0
    if k in 'iu':
        iv = int(v)
        return str(iv) if dt.itemsize == 8 else iv
    if k == 'f':
        fv = float(v)
        if math.isnan(fv):
            return 'NaN'
        if math.isinf(fv):
            return 'Infinity' if fv > 0 else '-Infinity'
        return fv
    if k == 'S':
        return bytes(v).rstrip(b'\0').decode('utf-8')
    if k == 'U':
        return str(v)
    if k == 'O':
        if isinstance(v, bytes):
            return v.decode('utf-8')
        if isinstance(v, str):
            return v
        if isinstance(v, np.ndarray):  # vlen sequence
            return [conv_elem(e, v.dtype) for e in v.reshape(-1)]
        return repr(v)
    if k == 'V':
        return list(bytes(v))
    return repr(v)


def _digest_dtype(dt):
    if dt.kind == 'b':
        return np.dtype('<i1')
    if dt.kind == 'f' and dt.itemsize == 2:
        return np.dtype('<f4')
    return dt.newbyteorder('<')


def conv_values(data, dt, shape):
    """Whole data of a dataset/attribute (`shape` = dataspace shape) -> flat list in C order."""
    n = int(np.prod(shape)) if len(shape) else 1
    arr = np.asarray(data)
    if dt.subdtype is not None:
        base, sub = dt.subdtype
        arr = arr.reshape((n,) + tuple(sub))
        return [conv_elem(arr[i], dt) for i in range(n)]
    arr = arr.reshape(n)
    return [conv_elem(arr[i], dt) for i in range(n)]


def values_digest(data, dt, shape):
    n = int(np.prod(shape)) if len(shape) else 1
    arr = np.asarray(data).reshape(n)
    ddt = _digest_dtype(dt)
    raw = arr.astype(ddt).tobytes()
    head = [conv_elem(arr[i], dt) for i in range(min(n, 8))]
    return {'sha256': hashlib.sha256(raw).hexdigest(), 'count': n, 'dtype': ddt.str, 'head': head}


def dump_attrs(obj):
    out = {}
    order = []
    for name in obj.attrs:
        aid = obj.attrs.get_id(name)
        space = aid.get_space()
        stype = space.get_simple_extent_type()
        dt = aid.dtype
        entry = {'dtype': describe_type(aid.get_type()), 'dtype_str': dt.str}
        if stype == h5s.NULL:
            entry['shape'] = None
            entry['value'] = None
        else:
            shape = list(aid.shape)
            entry['shape'] = shape
            data = obj.attrs[name]
            vals = conv_values(data, dt, shape)
            entry['value'] = vals[0] if stype == h5s.SCALAR else vals
        key = _s(name)
        out[key] = entry
        order.append(key)
    return out, order


def dump_dataset(dset, path):
    plist = dset.id.get_create_plist()
    layout = _LAYOUT.get(plist.get_layout(), 'other')
    dt = dset.dtype
    space = dset.id.get_space()
    stype = space.get_simple_extent_type()
    rec = {
        'path': path,
        'kind': 'dataset',
        'address': h5o.get_info(dset.id).addr,
        'dtype': describe_type(dset.id.get_type()),
        'dtype_str': dt.str,
        'layout': layout,
        'chunked': layout == 'chunked',
    }
    fdef = _FILL.get(plist.fill_value_defined(), 'undefined')
    fill = {'defined': fdef, 'value': None}
    if fdef != 'undefined' and not dt.hasobject:
        try:
            fv = np.zeros((1,), dtype=dt)
            plist.get_fill_value(fv)
            fill['value'] = conv_elem(fv[0], dt)
        except Exception:  # vlen fill values etc.
            fill['value'] = None
    rec['fill'] = fill
    if stype == h5s.NULL:
        rec['shape'] = None
        rec['maxshape'] = None
        rec['values'] = None
    else:
        shape = list(dset.shape)
        rec['shape'] = shape
        rec['maxshape'] = None if dset.maxshape is None else [m for m in dset.maxshape]
        data = dset[()]
        n = int(np.prod(shape)) if len(shape) else 1
        if n > DIGEST_MIN and dt.names is None and dt.subdtype is None and dt.kind in 'biuf':
            rec['values_digest'] = values_digest(data, dt, shape)
        else:
            rec['values'] = conv_values(data, dt, shape)
    rec['attrs'], rec['attr_order'] = dump_attrs(dset)
    return rec


def _kind(obj):
    if isinstance(obj, h5py.Group):
        return 'group'
    if isinstance(obj, h5py.Dataset):
        return 'dataset'
    return 'datatype'


def dump_file(filename):
    objects = []
    seen = {}

    def walk(group, path):
        addr = h5o.get_info(group.id).addr
        seen[addr] = path
        rec = {'path': path, 'kind': 'group', 'address': addr, 'links': []}
        rec['attrs'], rec['attr_order'] = dump_attrs(group)
        objects.append(rec)
        children = []
        for name in group:
            lk = group.get(name, getlink=True)
            child = ('/' if path == '/' else path + '/') + name
            if isinstance(lk, h5py.SoftLink):
                ent = {'name': name, 'kind': 'soft', 'target': lk.path}
                try:
                    tgt = group[name]
                    ent['dangling'] = False
                    ent['target_kind'] = _kind(tgt)
                    ent['target_address'] = h5o.get_info(tgt.id).addr
                except (KeyError, OSError):
                    ent['dangling'] = True
                rec['links'].append(ent)
            elif isinstance(lk, h5py.ExternalLink):
                rec['links'].append({'name': name, 'kind': 'external', 'file': lk.filename, 'path': lk.path})
            else:
                rec['links'].append({'name': name, 'kind': 'hard'})
                children.append((name, child))
        for name, child in children:
            obj = group[name]
            caddr = h5o.get_info(obj.id).addr
            if caddr in seen:
                objects.append({'path': child, 'kind': _kind(obj), 'address': caddr, 'alias_of': seen[caddr]})
            elif isinstance(obj, h5py.Group):
                walk(obj, child)
            elif isinstance(obj, h5py.Dataset):
                seen[caddr] = child
                objects.append(dump_dataset(obj, child))
            else:
                seen[caddr] = child
                objects.append({'path': child, 'kind': 'datatype', 'address': caddr})

    with h5py.File(filename, 'r') as f:
        walk(f, '/')
    return {'format': 1, 'file': os.path.basename(filename), 'objects': objects}


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: h5py_dump.py FILE [--out JSON]\n')
        return 2
    out = None
    if '--out' in argv:
        out = argv[argv.index('--out') + 1]
    doc = dump_file(argv[1])
    text = json.dumps(doc, ensure_ascii=False, allow_nan=False)
    if out:
        with open(out, 'w', encoding='utf-8') as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
