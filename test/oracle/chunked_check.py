#!/usr/bin/python3
"""Checks chunked datasets written (or modified) by chunkform against numpy replaying the same operations.

Usage: /usr/bin/python3 chunked_check.py SPEC.json   (report JSON on stdout)

SPEC: {"file": PATH, "datasets": [CASE]}
CASE: {"path", "dtype" (numpy dtype string, 'str' = variable-length UTF-8), "shape" (at creation),
       "fill" (value or null = 0/empty), "tolerance" (optional: floats may differ by this much; lossy filters),
       "base": {"file", "path"} (optional: start from the values h5py reads there instead of the fill value),
       "values_only" (optional: skip the index type, filters and chunk list),
       "ops": [OP]}
OP:   {"kind": "write", "sel": SEL, "data": [values in selection order]}
      {"kind": "resize", "shape": [...]}
      {"kind": "chunk", "offset": [...], "chunk": [chunk dims], "data": [values of the whole chunk, C order]}
SEL:  {"kind": "all"} | {"kind": "hyperslab", "start", "stride", "count", "block"}
      | {"kind": "blocks", "boxes": [[start, end], ...]} | {"kind": "points", "coords": [[...], ...]}
      | {"kind": "slice", "slices": [[start, stop, step], ...]}
Values: numbers, decimal strings for 64-bit integers, 'NaN'/'Infinity'/'-Infinity', text for strings.

REPORT: {"datasets": {PATH: {"problems": [...], "expected": [values, h5py_dump.py form], "actual" (what h5py read;
         only with a tolerance), "shape", "maxshape",
         "chunks", "compression", "compression_opts", "shuffle", "fletcher32", "scaleoffset", "index",
         "filters": [{"id", "flags", "cd"}], "num_chunks", "chunk_info": [[offset..., mask, address, size]],
         "chunk_info_complete"}}}
"problems" lists every way h5py's view differs from numpy's replay (values compared in h5py_dump.py's JSON form,
so NaN payloads aside, bit-exact incl. -0.0).
"""
import json
import os
import sys

import h5py
import numpy as np
from h5py import h5o

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h5py_dump  # noqa: E402
from make_chunked_fixtures import h5debug_layout  # noqa: E402

CHUNK_INFO_ALL = 400
CHUNK_INFO_SAMPLE = 50


def to_array(values, dt, shape=None):
    dt = np.dtype(dt)
    if dt.kind in 'iu':
        arr = np.array([int(v) for v in values], dtype=dt)
    elif dt.kind == 'f':
        arr = np.array([float(v) for v in values], dtype=dt)
    elif dt.kind == 'b':
        arr = np.array([bool(v) for v in values], dtype=dt)
    elif dt.kind == 'S':
        arr = np.array([v.encode('utf-8') for v in values], dtype=dt)
    elif dt.kind == 'O':
        arr = np.empty(len(values), dtype=object)
        arr[:] = list(values)
    else:
        raise ValueError('unsupported dtype %s' % dt)
    return arr.reshape(shape) if shape is not None else arr


def selection_mask(sel, shape):
    mask = np.zeros(shape, dtype=bool)
    if sel['kind'] == 'hyperslab':
        idx = []
        for d in range(len(shape)):
            ax = []
            for c in range(sel['count'][d]):
                b0 = sel['start'][d] + c * sel['stride'][d]
                ax.extend(range(b0, b0 + sel['block'][d]))
            idx.append(ax)
        mask[np.ix_(*idx)] = True
    elif sel['kind'] == 'blocks':
        for start, end in sel['boxes']:
            mask[tuple(slice(b, e) for b, e in zip(start, end))] = True
    else:
        raise ValueError(sel['kind'])
    return mask


def apply(arr, op, dt, fill):
    kind = op['kind']
    if kind == 'resize':
        new = np.full(op['shape'], fill, dtype=arr.dtype) if fill is not None else np.zeros(op['shape'], dtype=arr.dtype)
        if arr.dtype.kind == 'O' and fill is None:
            new[...] = ''
        overlap = tuple(slice(0, min(a, b)) for a, b in zip(arr.shape, op['shape']))
        new[overlap] = arr[overlap]
        return new
    if kind == 'chunk':
        vals = to_array(op['data'], dt, op['chunk'])
        region = tuple(slice(o, min(o + c, n)) for o, c, n in zip(op['offset'], op['chunk'], arr.shape))
        arr[region] = vals[tuple(slice(0, r.stop - r.start) for r in region)]
        return arr
    sel = op['sel']
    data = to_array(op['data'], dt)
    sk = sel['kind']
    if sk == 'all':
        arr[...] = data.reshape(arr.shape)
    elif sk in ('hyperslab', 'blocks'):
        arr[selection_mask(sel, arr.shape)] = data
    elif sk == 'points':
        arr[tuple(np.array(sel['coords']).T)] = data
    elif sk == 'slice':
        sl = tuple(slice(*x) for x in sel['slices'])
        arr[sl] = data.reshape(arr[sl].shape)
    else:
        raise ValueError(sk)
    return arr


def fill_of(case, dt):
    fill = case.get('fill')
    if fill is None:
        return None
    return to_array([fill], dt)[0]


def check_case(f, case, path):
    dt = h5py.string_dtype('utf-8') if case['dtype'] in ('str', '|O') else np.dtype(case['dtype'])
    fill = fill_of(case, dt)
    if 'base' in case:
        with h5py.File(case['base']['file'], 'r') as b:
            arr = b[case['base']['path']][()]
    else:
        arr = np.full(case['shape'], fill, dtype=dt) if fill is not None else np.zeros(case['shape'], dtype=dt)
        if dt.kind == 'O' and fill is None:
            arr[...] = ''
    for op in case['ops']:
        arr = apply(arr, op, dt, fill)
    rep = {'problems': []}
    prob = rep['problems']
    if case['path'] not in f:
        prob.append('h5py cannot find %s' % case['path'])
        return rep
    d = f[case['path']]
    shape = list(arr.shape)
    expected = h5py_dump.conv_values(arr, arr.dtype if dt.kind != 'O' else d.dtype, shape)
    rep['expected'] = expected
    rep['shape'] = list(d.shape)
    rep['maxshape'] = None if d.maxshape is None else list(d.maxshape)
    if list(d.shape) != shape:
        prob.append('shape: numpy %s, h5py %s' % (shape, list(d.shape)))
        return rep
    try:
        got = h5py_dump.conv_values(d[()], d.dtype, shape)
    except Exception as e:  # noqa: BLE001 - report whatever HDF5 says
        prob.append('h5py could not read the values: %s: %s' % (type(e).__name__, e))
        got = None
    tol = case.get('tolerance')

    def differs(a, b):
        if tol is not None and isinstance(a, float) and isinstance(b, float):
            return not abs(a - b) <= tol
        return json.dumps(a) != json.dumps(b)

    if got is not None and tol is not None:
        rep['actual'] = got
    if got is not None:
        bad = [i for i, (a, b) in enumerate(zip(got, expected)) if differs(a, b)]
        if bad:
            i = bad[0]
            idx = list(np.unravel_index(i, shape)) if shape else []
            prob.append('%d of %d values differ; first at %s: numpy %s, h5py %s'
                        % (len(bad), len(expected), [int(x) for x in idx], json.dumps(expected[i]), json.dumps(got[i])))
    rep['chunks'] = None if d.chunks is None else list(d.chunks)
    rep['compression'] = d.compression
    rep['compression_opts'] = d.compression_opts if not isinstance(d.compression_opts, tuple) else list(d.compression_opts)
    rep['shuffle'] = bool(d.shuffle)
    rep['fletcher32'] = bool(d.fletcher32)
    rep['scaleoffset'] = d.scaleoffset
    if d.chunks is not None and not case.get('values_only'):
        index, filters = h5debug_layout(path, h5o.get_info(d.id).addr)
        rep['index'] = index
        rep['filters'] = filters
        n = d.id.get_num_chunks()
        rep['num_chunks'] = n
        which = range(n) if n <= CHUNK_INFO_ALL else list(range(CHUNK_INFO_SAMPLE)) + list(range(n - CHUNK_INFO_SAMPLE, n))
        info = []
        for i in which:
            c = d.id.get_chunk_info(i)
            info.append([int(x) for x in c.chunk_offset] + [int(c.filter_mask), int(c.byte_offset), int(c.size)])
        rep['chunk_info'] = info
        rep['chunk_info_complete'] = len(info) == n
    return rep


def main(argv):
    with open(argv[1], encoding='utf-8') as fh:
        spec = json.load(fh)
    out = {}
    with h5py.File(spec['file'], 'r') as f:
        for case in spec['datasets']:
            try:
                out[case['path']] = check_case(f, case, spec['file'])
            except Exception as e:  # noqa: BLE001
                out[case['path']] = {'problems': ['checker failed: %s: %s' % (type(e).__name__, e)]}
    sys.stdout.write(json.dumps({'datasets': out}, ensure_ascii=False, allow_nan=False))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
