#!/usr/bin/python3
"""Writes the chunked-storage interop fixtures with h5py (HDF5 C library) and their companion JSON.

Usage: /usr/bin/python3 make_chunked_fixtures.py OUTDIR

Files (each with FILE.json = h5py_dump.py's description and FILE.extra.json = chunk details):
  chunked_latest.h5 / chunked_earliest.h5   every chunk index type (latest: single chunk, implicit, fixed array
        incl. paged, extensible array incl. super blocks and paged data blocks, v2 B-tree with depth >= 1;
        earliest: the same datasets, all indexed by v1 B-trees) x filters (none, gzip, shuffle+gzip, fletcher32,
        scale-offset, n-bit), never-written chunks, edge chunks, resized datasets, 1-D..4-D, several dtypes;
        plus selection reads (strided hyperslab, union of blocks, points, numpy slices) with HDF5's result.
  lzf.h5            a dataset compressed with LZF (id 32000), a filter chunkform does not provide.
  corrupt_*.h5      one small dataset per index structure, for the corrupt-input suite.
  btree1_v108.h5    libver ('v108', 'latest'): superblock 2 with v1 B-tree chunk indexes, for r+ writes.

FILE.extra.json: {"datasets": {PATH: {"index", "chunks", "filters": [{"id", "flags", "cd"}], "num_chunks",
  "chunk_info": [[offset..., filter_mask, byte_offset, size]] (index order; all chunks when "chunk_info_complete",
  else the first and last 100), "chunk_offsets_unreliable" (HDF5 1.10.8 reports wrong chunk offsets for extensible
  arrays whose unlimited dimension is not the first), "direct": [[offset, filter_mask | null, sha256 | null]]
  (H5Dread_chunk at up to 40 grid positions; null where no chunk is stored), "selections": [SEL]}}}
  SEL: {"kind": "hyperslab", "start", "stride", "count", "block", "values"} | {"kind": "union", "boxes":
  [[start, end], ...] (end exclusive), "values"} | {"kind": "points", "coords", "values"} | {"kind": "slice",
  "slices": [[start, stop, step]], "shape", "values"}; values as h5py_dump.py converts them, read by HDF5 with the
  selection (checked against numpy on the full array).
OUTDIR/manifest.json: {"stamp", "h5py", "hdf5", "files": [{"file", "json", "extra", "libver", "family", "size"}]}
"""
import hashlib
import itertools
import json
import os
import re
import subprocess
import sys

import h5py
import numpy as np
from h5py import h5d, h5f, h5o, h5p, h5s, h5t, h5z

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_common  # noqa: E402
import h5py_dump  # noqa: E402

LIBVERS = ('earliest', 'latest')
FILTERS = ('none', 'gzip', 'shuffle_gzip', 'fletcher32', 'scaleoffset', 'nbit')


def new_file(path, libver):
    fapl = h5p.create(h5p.FILE_ACCESS)
    low = {'earliest': h5f.LIBVER_EARLIEST, 'v108': h5f.LIBVER_V18, 'latest': h5f.LIBVER_LATEST}[libver]
    fapl.set_libver_bounds(low, h5f.LIBVER_LATEST)
    fcpl = h5p.create(h5p.FILE_CREATE)
    fcpl.set_obj_track_times(False)
    fid = h5f.create(path.encode(), h5f.ACC_TRUNC, fapl=fapl, fcpl=fcpl)
    return h5py.File(fid)


def values_for(dt, n, seed=0):
    """Deterministic, varied, somewhat compressible values of numpy dtype `dt`."""
    i = np.arange(n, dtype=np.int64) + seed * 1009
    dt = np.dtype(dt)
    if dt.kind == 'b':
        return (i * 7 % 3 == 0)
    if dt.kind in 'iu':
        bits = dt.itemsize * 8
        if bits <= 16:
            span = 2 ** (bits - 1) - 1 if dt.kind == 'i' else 2 ** bits - 1
            v = (i * 7919 + 13) % (span + 1)
            if dt.kind == 'i':
                v = v - span // 2
        else:
            v = (i * 7919 + 13) % 100003 - (50000 if dt.kind == 'i' else 0)
            if bits == 64:
                v = v * (2 ** 31 + 11)
        return v.astype(dt)
    if dt.kind == 'f':
        return (np.sin(i * 0.37) * 1000 + i * 0.25).astype(dt)
    raise ValueError(dt)


def filter_kwargs(filt, dt):
    if filt == 'none':
        return {}
    if filt == 'gzip':
        return {'compression': 'gzip', 'compression_opts': 4}
    if filt == 'shuffle_gzip':
        return {'shuffle': True, 'compression': 'gzip', 'compression_opts': 1}
    if filt == 'fletcher32':
        return {'fletcher32': True}
    if filt == 'scaleoffset':
        return {'scaleoffset': 0 if np.dtype(dt).kind in 'iu' else 3}
    if filt == 'nbit':
        return {'compression': h5z.FILTER_NBIT}
    if filt == 'gzip_fletcher32':
        return {'compression': 'gzip', 'fletcher32': True}
    if filt == 'shuffle_gzip_fletcher32':
        return {'shuffle': True, 'compression': 'gzip', 'compression_opts': 6, 'fletcher32': True}
    raise ValueError(filt)


EXTRA = {}  # path -> extra info (collected per file)


def make(parent, name, shape, dtype, chunks, maxshape=None, fill=None, filt='none', early=False, write='all',
         index=None, seed=0):
    """Creates a chunked dataset; `write`: 'all', 'none', a tuple of slices, or a callable(dset, values)."""
    dcpl = h5p.create(h5p.DATASET_CREATE)
    if early:
        dcpl.set_alloc_time(h5d.ALLOC_TIME_EARLY)
    kw = dict(filter_kwargs(filt, dtype))
    if fill is not None:
        kw['fillvalue'] = fill
    d = parent.create_dataset(name, shape=shape, dtype=dtype, chunks=chunks, maxshape=maxshape,
                              track_times=False, dcpl=dcpl, **kw)
    full = values_for(dtype, int(np.prod(shape)), seed).reshape(shape)
    if write == 'all':
        d[...] = full
    elif callable(write):
        write(d, full)
    elif write != 'none':
        d[write] = full[write]
    EXTRA[d.name] = {'index': index}
    return d


def add_selections(d, sels):
    """Reads each selection with HDF5 (low-level dataspace selections), checks numpy agrees, records it."""
    full = d[()]
    shape = d.shape
    out = []
    for s in sels:
        fspace = d.id.get_space()
        kind = s['kind']
        if kind == 'hyperslab':
            fspace.select_hyperslab(tuple(s['start']), tuple(s['count']), tuple(s['stride']), tuple(s['block']))
            mask = np.zeros(shape, dtype=bool)
            idx = []
            for dd in range(len(shape)):
                ax = []
                for c in range(s['count'][dd]):
                    b0 = s['start'][dd] + c * s['stride'][dd]
                    ax.extend(range(b0, b0 + s['block'][dd]))
                idx.append(ax)
            mask[np.ix_(*idx)] = True
            expect = full[mask]
        elif kind == 'union':
            mask = np.zeros(shape, dtype=bool)
            for k, (start, end) in enumerate(s['boxes']):
                count = tuple(e - b for b, e in zip(start, end))
                fspace.select_hyperslab(tuple(start), count, op=h5s.SELECT_SET if k == 0 else h5s.SELECT_OR)
                mask[tuple(slice(b, e) for b, e in zip(start, end))] = True
            expect = full[mask]
        elif kind == 'points':
            coords = np.array(s['coords'], dtype=np.uint64)
            fspace.select_elements(coords)
            expect = full[tuple(np.array(s['coords']).T)]
        elif kind == 'slice':
            sl = tuple(slice(*x) for x in s['slices'])
            hs = d[sl]
            expect = full[sl]
            if hs.shape != expect.shape or hs.tobytes() != expect.tobytes():
                raise AssertionError('h5py slice and numpy disagree for %s %r' % (d.name, s))
            rec = dict(s)
            rec['shape'] = list(hs.shape)
            rec['values'] = h5py_dump.conv_values(hs, d.dtype, list(hs.shape))
            out.append(rec)
            continue
        else:
            raise ValueError(kind)
        n = fspace.get_select_npoints()
        mspace = h5s.create_simple((n,))
        got = np.empty((n,), dtype=d.dtype)
        d.id.read(mspace, fspace, got)
        if got.tobytes() != np.ascontiguousarray(expect).tobytes():
            raise AssertionError('HDF5 and numpy disagree on selection %r of %s' % (s, d.name))
        rec = dict(s)
        rec['values'] = h5py_dump.conv_values(got, d.dtype, [n])
        out.append(rec)
    EXTRA[d.name]['selections'] = out


# ----------------------------------------------------------------------------------------------- content

def index_geometries(libver):
    """name -> (shape, chunks, maxshape, early, write, expected index (latest))."""
    part2 = (slice(0, 7), slice(0, 6))  # leaves never-written chunks, touches edge chunks partially
    return {
        'single': ((7, 5), (7, 5), None, False, 'all', 'single'),
        'fa': ((10, 11), (3, 4), None, False, part2, 'fixed-array'),
        'fa_grow': ((6, 5), (4, 4), (13, 9), False, 'all', 'fixed-array'),
        'fa_paged': ((40, 33), (1, 1), None, False, (slice(0, 29), slice(0, 33)), 'fixed-array'),
        'ea': ((23,), (4,), (None,), False, (slice(0, 13),), 'extensible-array'),
        'ea_2d': ((10, 6), (3, 4), (None, 6), False, (slice(2, 8), slice(0, 5)), 'extensible-array'),
        'ea_big': ((5000,), (1,), (None,), False, (slice(0, 4700),), 'extensible-array'),
        'bt2': ((10, 9), (3, 4), (None, None), False, part2, 'btree2'),
        'bt2_deep': ((30, 31), (1, 1), (None, None), False, (slice(0, 30), slice(0, 29)), 'btree2'),
    }


def fam_indexes(f, libver):
    earliest = libver == 'earliest'
    for gname, (shape, chunks, maxshape, early, write, index) in index_geometries(libver).items():
        g = f.create_group(gname, track_order=False)
        for filt in FILTERS:
            make(g, filt, shape, '<i4', chunks, maxshape=maxshape, fill=-7 if filt != 'nbit' else 5,
                 filt=filt, early=early, write=write, index='btree1' if earliest else index,
                 seed=len(gname) + len(filt))
        # never written at all
        make(g, 'unwritten', shape, '<i2', chunks, maxshape=maxshape, fill=11, write='none',
             index='btree1' if earliest else index)
    # extensible array whose later data blocks (2048 elements, super block 13) are paged; most chunks never written
    g = f.create_group('ea_paged')
    for filt in ('none', 'gzip'):
        def sparse(d, full):
            for a, b in ((0, 50), (131100, 131300), (131500, 132000)):
                d[a:b] = full[a:b]
        make(g, filt, (132000,), '<u1', (1,), maxshape=(None,), fill=254, filt=filt, write=sparse,
             index='btree1' if earliest else 'extensible-array')
    g = f.create_group('implicit')
    make(g, 'none', (9, 10), '<i4', (4, 3), fill=-1, early=True, write=(slice(0, 5), slice(0, 4)),
         index='btree1' if earliest else 'implicit')
    make(g, 'full', (8, 6), '<f8', (4, 3), early=True, write='all', index='btree1' if earliest else 'implicit')
    make(g, 'unwritten', (5, 5), '<u2', (2, 2), fill=9, early=True, write='none',
         index='btree1' if earliest else 'implicit')
    g = f.create_group('early')  # early allocation with filters: a fixed array
    make(g, 'gzip', (9, 10), '<i4', (4, 3), fill=3, filt='gzip', early=True, write=(slice(0, 5), slice(0, 4)),
         index='btree1' if earliest else 'fixed-array')
    # v1 B-tree depth >= 1 in the earliest file (more than 64 chunks), also in latest: fixed array
    g = f.create_group('many')
    make(g, 'gzip_fletcher32', (20, 20), '<u2', (2, 2), filt='gzip_fletcher32', write=(slice(0, 17), slice(0, 20)),
         index='btree1' if earliest else 'fixed-array')
    make(g, 'shuffle_gzip_fletcher32', (12, 12, 3), '<f4', (1, 2, 3), maxshape=(None, 12, 3),
         filt='shuffle_gzip_fletcher32', index='btree1' if earliest else 'extensible-array')


def fam_dtypes(f, libver):
    earliest = libver == 'earliest'
    g = f.create_group('dtypes')
    ix = 'btree1' if earliest else 'btree2'
    numeric = ['i1', 'u1', '<i2', '>i2', '<u2', '<i4', '>u4', '<i8', '>u8', '<f4', '>f4', '<f8', '>f8']
    for dt in numeric:
        tag = dt.replace('<', 'le_').replace('>', 'be_')
        make(g, tag + '_shuffle_gzip', (9, 7), dt, (4, 3), maxshape=(None, None), filt='shuffle_gzip',
             write=(slice(0, 8), slice(0, 7)), index=ix)
    # scale-offset on floats (lossy: the expected values are what HDF5 reads back) and integers of every width
    for dt in ['<f4', '>f8']:
        make(g, dt.replace('<', 'le_').replace('>', 'be_') + '_scaleoffset', (11, 6), dt, (4, 4), fill=0.5,
             filt='scaleoffset', write=(slice(0, 9), slice(0, 6)), index='btree1' if earliest else 'fixed-array')
    for dt in ['i1', 'u1', '>i2', '<u4', '<i8', '>u8']:
        make(g, dt.replace('<', 'le_').replace('>', 'be_') + '_scaleoffset', (40,), dt, (16,),
             filt='scaleoffset', write=(slice(0, 35),), index='btree1' if earliest else 'fixed-array')
    for dt in ['i1', '>u2', '<f4', '>f8', '<i8']:
        make(g, dt.replace('<', 'le_').replace('>', 'be_') + '_nbit', (40,), dt, (16,),
             filt='nbit', write='all', index='btree1' if earliest else 'fixed-array')
    # n-bit on an integer type with reduced precision (12 bits at bit offset 2)
    tid = h5t.STD_I32LE.copy()
    tid.set_precision(12)
    tid.set_offset(2)
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_chunk((8,))
    dcpl.set_filter(h5z.FILTER_NBIT, h5z.FLAG_OPTIONAL)
    dcpl.set_obj_track_times(False)
    dsid = h5d.create(g.id, b'i4_prec12_nbit', tid, h5s.create_simple((30,)), dcpl=dcpl)
    dsid.write(h5s.ALL, h5s.ALL, (np.arange(30, dtype='<i4') * 137 % 4000 - 2000).astype('<i4'))
    EXTRA[g.name + '/i4_prec12_nbit'] = {'index': 'btree1' if earliest else 'fixed-array'}
    # non-numeric element types
    cdt = np.dtype([('a', '<i4'), ('b', '<f8'), ('s', 'S3')])
    d = g.create_dataset('compound_gzip', shape=(13,), dtype=cdt, chunks=(4,), compression='gzip', track_times=False,
                         maxshape=(None,))
    d[0:10] = np.array([(i, i / 4, b'x%d' % i) for i in range(10)], dtype=cdt)
    EXTRA[d.name] = {'index': 'btree1' if earliest else 'extensible-array'}
    d = g.create_dataset('S6_shuffle_gzip', shape=(5, 3), dtype='S6', chunks=(2, 2), shuffle=True, compression='gzip',
                         track_times=False)
    d[...] = np.array([[b'ab', b'', b'abcdef'], [b'x', b'yy', b'zzz'], [b'1', b'22', b'333'], [b'q', b'r', b's'],
                       [b'', b'', b'end']], dtype='S6')
    EXTRA[d.name] = {'index': 'btree1' if earliest else 'fixed-array'}
    d = g.create_dataset('vlen_gzip', shape=(7,), dtype=h5py.string_dtype('utf-8'), chunks=(3,), compression='gzip',
                         track_times=False)
    d[0:6] = np.array(['a', 'ünï', '', 'longer text ✓', 'x', 'yy'], dtype=object)
    EXTRA[d.name] = {'index': 'btree1' if earliest else 'fixed-array'}
    d = g.create_dataset('bool_gzip', data=values_for('?', 30), chunks=(7,), compression='gzip', track_times=False)
    EXTRA[d.name] = {'index': 'btree1' if earliest else 'fixed-array'}
    edt = h5py.enum_dtype({'OFF': 0, 'ON': 1, 'UNKNOWN': 255}, basetype='u1')
    d = g.create_dataset('enum_fletcher32', shape=(10,), dtype=edt, chunks=(4,), fletcher32=True, track_times=False)
    d[...] = np.array([0, 1, 255, 1, 0, 0, 1, 255, 255, 1], dtype='u1')
    EXTRA[d.name] = {'index': 'btree1' if earliest else 'fixed-array'}
    d = g.create_dataset('f8_fill_nan', shape=(10,), dtype='<f8', chunks=(3,), fillvalue=np.nan, track_times=False)
    d[2:4] = [1.5, -0.0]
    EXTRA[d.name] = {'index': 'btree1' if earliest else 'fixed-array'}


def fam_dims(f, libver):
    earliest = libver == 'earliest'
    g = f.create_group('dims')
    fa = 'btree1' if earliest else 'fixed-array'
    ea = 'btree1' if earliest else 'extensible-array'
    bt = 'btree1' if earliest else 'btree2'
    make(g, 'd1_fa', (17,), '<f4', (5,), write=(slice(3, 12),), fill=-1.5, index=fa)
    make(g, 'd1_ea_gzip', (17,), '<i8', (5,), maxshape=(None,), filt='gzip', write='all', index=ea)
    make(g, 'd2_fa_gzip', (13, 7), '<u2', (5, 3), filt='gzip', write='all', index=fa)
    make(g, 'd3_fa', (5, 6, 7), '<i4', (2, 3, 4), write='all', index=fa)
    make(g, 'd3_bt2_shuffle_gzip', (5, 6, 7), '<f8', (2, 3, 4), maxshape=(None, None, 7), filt='shuffle_gzip',
         write=(slice(0, 4), slice(1, 6), slice(0, 7)), index=bt)
    make(g, 'd3_ea_fletcher32', (5, 6, 7), '<i2', (2, 5, 3), maxshape=(5, None, 7), filt='fletcher32',
         write='all', index=ea)
    make(g, 'd4_fa_gzip', (3, 4, 5, 6), '<i4', (2, 3, 2, 4), filt='gzip', write='all', index=fa)
    make(g, 'd4_ea', (3, 4, 5, 6), '<u1', (2, 3, 2, 4), maxshape=(None, 4, 5, 6),
         write=(slice(0, 3), slice(0, 4), slice(1, 5), slice(0, 5)), fill=200, index=ea)
    make(g, 'd4_bt2_scaleoffset', (3, 4, 5, 6), '<i4', (2, 3, 2, 4), maxshape=(None, None, None, None),
         filt='scaleoffset', write='all', index=bt)
    make(g, 'd4_single_nbit', (3, 4, 5, 6), '<i2', (3, 4, 5, 6), filt='nbit', write='all',
         index='btree1' if earliest else 'single')


def fam_resize(f, libver):
    earliest = libver == 'earliest'
    g = f.create_group('resize')
    fa = 'btree1' if earliest else 'fixed-array'
    ea = 'btree1' if earliest else 'extensible-array'
    bt = 'btree1' if earliest else 'btree2'

    def grow_1d(d, full):
        d[0:10] = full[0:10]
        d.resize((25,))
        d[18:22] = np.arange(4, dtype=d.dtype) + 1

    make(g, 'ea_grown', (10,), '<i4', (4,), maxshape=(None,), fill=-3, write=grow_1d, index=ea)
    make(g, 'ea_grown_gzip', (10,), '<i4', (4,), maxshape=(None,), fill=-3, filt='gzip', write=grow_1d, index=ea)

    def shrink_grow(d, full):
        d[...] = full
        d.resize((7, 6))
        d.resize((12, 12))  # the region cut off reads as fill again

    make(g, 'bt2_shrunk_grown', (12, 12), '<i4', (5, 5), maxshape=(None, None), fill=4, write=shrink_grow, index=bt)
    make(g, 'bt2_shrunk_grown_shuffle_gzip', (12, 12), '<f4', (5, 5), maxshape=(None, None), fill=4,
         filt='shuffle_gzip', write=shrink_grow, index=bt)

    def shrink(d, full):
        d[...] = full
        d.resize((13, 9))

    make(g, 'fa_shrunk', (20, 20), '<u2', (6, 4), maxshape=(20, 20), write=shrink, index=fa)
    make(g, 'fa_shrunk_fletcher32', (20, 20), '<u2', (6, 4), maxshape=(20, 20), filt='fletcher32', write=shrink,
         index=fa)

    def grow_2d(d, full):
        d[...] = full
        d.resize((11, 6))
        d[9:11, 0:3] = -1

    make(g, 'ea_2d_grown', (4, 6), '<i8', (3, 4), maxshape=(None, 6), fill=2, write=grow_2d, index=ea)

    def shrink_1d(d, full):
        d[...] = full
        d.resize((3,))

    make(g, 'ea_shrunk', (30,), '<f8', (4,), maxshape=(None,), write=shrink_1d, index=ea)


SELECTIONS = {
    '/fa/gzip': [
        {'kind': 'hyperslab', 'start': [1, 0], 'stride': [3, 4], 'count': [3, 3], 'block': [2, 3]},
        {'kind': 'union', 'boxes': [[[0, 0], [4, 5]], [[2, 3], [9, 11]], [[8, 0], [10, 2]]]},
        {'kind': 'points', 'coords': [[9, 10], [0, 0], [5, 5], [3, 7], [0, 10], [6, 2]]},
        {'kind': 'slice', 'slices': [[2, 9, 3], [None, None, 2]]},
    ],
    '/bt2_deep/shuffle_gzip': [
        {'kind': 'hyperslab', 'start': [2, 1], 'stride': [7, 5], 'count': [4, 6], 'block': [3, 2]},
        {'kind': 'union', 'boxes': [[[0, 0], [30, 1]], [[10, 10], [20, 20]], [[15, 15], [25, 31]]]},
        {'kind': 'points', 'coords': [[29, 30], [0, 0], [12, 17], [29, 0], [3, 28]]},
    ],
    '/ea_big/none': [
        {'kind': 'hyperslab', 'start': [5], 'stride': [997], 'count': [5], 'block': [3]},
        {'kind': 'union', 'boxes': [[[0], [10]], [[4690], [4720]], [[4995], [5000]]]},
        {'kind': 'points', 'coords': [[4999], [0], [1234], [4699], [4700]]},
    ],
    '/dims/d3_bt2_shuffle_gzip': [
        {'kind': 'hyperslab', 'start': [0, 1, 0], 'stride': [2, 2, 3], 'count': [3, 2, 2], 'block': [1, 2, 2]},
        {'kind': 'union', 'boxes': [[[0, 0, 0], [2, 2, 7]], [[1, 1, 1], [5, 6, 3]]]},
        {'kind': 'points', 'coords': [[4, 5, 6], [0, 0, 0], [2, 3, 1], [4, 0, 6]]},
        {'kind': 'slice', 'slices': [[1, None, 2], [None, None, 1], [1, 7, 4]]},
    ],
    '/dims/d4_fa_gzip': [
        {'kind': 'hyperslab', 'start': [0, 1, 0, 1], 'stride': [2, 2, 2, 3], 'count': [2, 2, 3, 2], 'block': [1, 1, 1, 2]},
        {'kind': 'union', 'boxes': [[[0, 0, 0, 0], [1, 4, 5, 2]], [[1, 2, 2, 2], [3, 4, 5, 6]]]},
        {'kind': 'points', 'coords': [[2, 3, 4, 5], [0, 0, 0, 0], [1, 2, 3, 4]]},
    ],
}


def fam_selections(f, libver):
    for path, sels in SELECTIONS.items():
        add_selections(f[path], sels)


CHUNK_SAMPLE = 100
DIRECT_SAMPLE = 40


def chunk_details(d):
    plist = d.id.get_create_plist()
    filters = []
    for i in range(plist.get_nfilters()):
        code, flags, cd, _name = plist.get_filter(i)
        filters.append({'id': int(code), 'flags': int(flags), 'cd': [int(x) for x in cd]})
    n = d.id.get_num_chunks()
    # get_chunk_info(i) walks the index from its start (quadratic over all chunks), so datasets with many
    # chunks record a sample: the first and last CHUNK_SAMPLE in index order
    if n <= 3 * CHUNK_SAMPLE:
        which = range(n)
    else:
        which = list(range(CHUNK_SAMPLE)) + list(range(n - CHUNK_SAMPLE, n))
    info = []
    for i in which:
        c = d.id.get_chunk_info(i)
        info.append([int(x) for x in c.chunk_offset] + [int(c.filter_mask), int(c.byte_offset), int(c.size)])
    # HDF5 1.10.8's H5Dget_chunk_info(_by_coord) report wrong offsets for an extensible array whose unlimited
    # dimension is not the first (the index "swizzles" the dimensions); its read path (read_direct_chunk) is right
    swizzled = d.maxshape is not None and None in d.maxshape[1:] and d.maxshape.count(None) == 1
    # direct chunk reads (H5Dread_chunk) at up to DIRECT_SAMPLE grid positions: [offset, mask, sha256] or
    # [offset, null, null] where no chunk is stored
    grid = [range(0, ext, c) for ext, c in zip(d.shape, d.chunks)]
    positions = list(itertools.product(*grid))
    if len(positions) > DIRECT_SAMPLE:
        step = len(positions) / DIRECT_SAMPLE
        positions = [positions[int(k * step)] for k in range(DIRECT_SAMPLE)] + [positions[-1]]
    direct = []
    for off in positions:
        stored = d.id.get_chunk_info_by_coord(off) if not swizzled else None
        try:
            mask, raw = d.id.read_direct_chunk(off)
            direct.append([list(off), int(mask), hashlib.sha256(raw).hexdigest()])
        except Exception:
            if stored is not None and stored.byte_offset is not None:
                raise
            direct.append([list(off), None, None])
    return {'chunks': list(d.chunks), 'filters': filters, 'num_chunks': n, 'chunk_info': info,
            'chunk_info_complete': len(info) == n, 'chunk_offsets_unreliable': bool(swizzled), 'direct': direct}


H5DEBUG_INDEX = {'v1 B-tree': 'btree1', 'Single Chunk': 'single', 'Implicit': 'implicit', 'Fixed Array': 'fixed-array',
                 'Extensible Array': 'extensible-array', 'v2 B-tree': 'btree2'}


def h5debug_layout(path, address):
    """(chunk index type, filter pipeline) as stored in the object header, read from h5debug's description
    (h5py's get_filter returns garbage in some client data slots, e.g. scale-offset's 16..18)."""
    out = subprocess.run(['h5debug', path, str(address)], capture_output=True, text=True, check=True).stdout
    m = re.search(r'Index Type:\s+(.+)', out)
    if not m:
        raise AssertionError('h5debug shows no chunk index type for object %d of %s' % (address, path))
    filters = []
    pm = re.search(r"`filter pipeline'(.*?)(?:\nMessage \d+\.\.\.|\Z)", out, re.S)
    if pm:
        for fm in re.finditer(r'Filter identification:\s+0x([0-9a-f]+)(.*?)(?=Filter at position|\Z)', pm.group(1), re.S):
            body = fm.group(2)
            flags = int(re.search(r'Flags:\s+0x([0-9a-f]+)', body).group(1), 16)
            cd = [int(v) for v in re.findall(r'CD value \d+\s+(\d+)', body)]
            filters.append({'id': int(fm.group(1), 16), 'flags': flags, 'cd': cd})
    return H5DEBUG_INDEX[m.group(1).strip()], filters


def write_extra(path):
    with h5py.File(path, 'r') as f:
        for p, e in EXTRA.items():
            e.update(chunk_details(f[p]))
            actual, filters = h5debug_layout(path, h5o.get_info(f[p].id).addr)
            if [x['id'] for x in filters] != [x['id'] for x in e['filters']]:
                raise AssertionError('%s %s: h5debug and h5py disagree on the filters' % (path, p))
            e['filters'] = filters
            if e['index'] is not None and e['index'] != actual:
                raise AssertionError('%s %s: HDF5 chose a %s index, the fixture expects %s' % (path, p, actual, e['index']))
            e['index'] = actual
    with open(path + '.extra.json', 'w', encoding='utf-8') as fh:
        json.dump({'datasets': EXTRA}, fh, ensure_ascii=False, allow_nan=False)


# ----------------------------------------------------------------------------------------------- corrupt-input files

def corrupt_files(outdir):
    """Small files, one chunked dataset '/d' each (plus '/e' where a second structure helps)."""
    specs = {
        # name: (libver, shape, chunks, maxshape, filters kwargs, dtype, write)
        'corrupt_fa': ('latest', (12, 12), (2, 2), None, {}, '<i4', 'all'),
        'corrupt_fa_paged': ('latest', (1100,), (1,), None, {}, '<u1', (slice(0, 1050),)),
        'corrupt_ea': ('latest', (400,), (1,), (None,), {}, '<i2', 'all'),
        'corrupt_bt2': ('latest', (16, 16), (1, 1), (None, None), {}, '<u2', 'all'),
        'corrupt_bt2_gzip': ('latest', (16, 16), (1, 1), (None, None), {'compression': 'gzip'}, '<u2', 'all'),
        'corrupt_btree1': ('earliest', (20, 20), (2, 2), None, {}, '<i4', 'all'),
        'corrupt_single_gzip': ('latest', (50,), (50,), None, {'compression': 'gzip'}, '<f8', 'all'),
        'corrupt_gzip': ('latest', (64,), (16,), None, {'compression': 'gzip'}, '<i4', 'all'),
        'corrupt_fletcher32': ('latest', (64,), (16,), None, {'fletcher32': True}, '<i4', 'all'),
        'corrupt_shuffle_gzip_fletcher32': ('latest', (64,), (16,), (None,),
                                            {'shuffle': True, 'compression': 'gzip', 'fletcher32': True}, '<i4', 'all'),
    }
    entries = []
    for name, (libver, shape, chunks, maxshape, kw, dt, write) in specs.items():
        EXTRA.clear()
        path = os.path.join(outdir, name + '.h5')
        f = new_file(path, libver)
        try:
            d = f.create_dataset('d', shape=shape, dtype=dt, chunks=chunks, maxshape=maxshape, track_times=False,
                                 **kw)
            full = values_for(dt, int(np.prod(shape))).reshape(shape)
            if write == 'all':
                d[...] = full
            else:
                d[write] = full[write]
            EXTRA['/d'] = {'index': None}
        finally:
            f.close()
        entries.append(finish(path, libver, 'corrupt'))
    return entries


def lzf_file(outdir):
    EXTRA.clear()
    path = os.path.join(outdir, 'lzf.h5')
    f = new_file(path, 'latest')
    try:
        # compressible values: LZF (optional) that fails to shrink a chunk is skipped and the chunk stored raw
        d = f.create_dataset('lzf', data=(np.arange(60, dtype='<i4') // 7).reshape(6, 10), chunks=(3, 5),
                             compression='lzf', track_times=False)
        EXTRA[d.name] = {'index': 'fixed-array'}
        d = f.create_dataset('gzip', data=values_for('<i4', 60).reshape(6, 10), chunks=(3, 5), compression='gzip',
                             track_times=False)
        EXTRA[d.name] = {'index': 'fixed-array'}
        d = f.create_dataset('plain', data=values_for('<i4', 60).reshape(6, 10), chunks=(3, 5), track_times=False)
        EXTRA[d.name] = {'index': 'fixed-array'}
    finally:
        f.close()
    return [finish(path, 'latest', 'lzf')]


def btree1_v108_file(outdir):
    """Superblock 2 (writable by chunkform) with v1 B-tree chunk indexes (layout message 3), for r+ tests."""
    EXTRA.clear()
    path = os.path.join(outdir, 'btree1_v108.h5')
    f = new_file(path, 'v108')
    try:
        make(f, 'none', (20, 20), '<i4', (2, 2), fill=-2, write=(slice(0, 17), slice(0, 20)), index='btree1')
        make(f, 'gzip', (10, 11), '<i4', (3, 4), fill=-7, filt='gzip', write=(slice(0, 7), slice(0, 6)), index='btree1')
        make(f, 'unlimited', (23,), '<i2', (4,), maxshape=(None,), fill=3, write=(slice(0, 13),), index='btree1')
    finally:
        f.close()
    return [finish(path, 'v108', 'btree1_v108')]


def finish(path, libver, family):
    write_extra(path)
    fixture_common.write_dump(path, libver)
    name = os.path.basename(path)
    return {'file': name, 'json': name + '.json', 'extra': name + '.extra.json', 'libver': libver,
            'family': family, 'size': os.path.getsize(path)}


def main(argv):
    outdir = fixture_common.output_dir(argv, 'make_chunked_fixtures.py')
    if outdir is None:
        return 2
    entries = []
    for libver in LIBVERS:
        EXTRA.clear()
        path = os.path.join(outdir, 'chunked_%s.h5' % libver)
        f = new_file(path, libver)
        try:
            fam_indexes(f, libver)
            fam_dtypes(f, libver)
            fam_dims(f, libver)
            fam_resize(f, libver)
            fam_selections(f, libver)
        finally:
            f.close()
        entries.append(finish(path, libver, 'chunked'))
    entries += corrupt_files(outdir)
    entries += lzf_file(outdir)
    entries += btree1_v108_file(outdir)
    fixture_common.write_manifest(outdir, 'make_chunked_fixtures.py', entries)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
