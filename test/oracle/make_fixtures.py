#!/usr/bin/python3
"""Writes the interop fixture files with h5py (HDF5 C library) and their companion JSON.

Usage: /usr/bin/python3 make_fixtures.py OUTDIR

For each fixture family F and libver V in (earliest, latest) writes OUTDIR/F_V.h5 and OUTDIR/F_V.h5.json
(the JSON is h5py_dump.py's description of the file). OUTDIR/manifest.json lists everything:
  {"stamp": ..., "files": [{"file", "json", "libver", "family", "corrupt": bool}], "h5py", "hdf5"}
Object modification times are switched off everywhere so the bytes are reproducible.
"""
import os
import sys

import h5py
import numpy as np
from h5py import h5a, h5d, h5f, h5g, h5p, h5s, h5t

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_common  # noqa: E402

LIBVERS = ('earliest', 'latest')
TRACKED = h5p.CRT_ORDER_TRACKED | h5p.CRT_ORDER_INDEXED


# ----------------------------------------------------------------------------------------------- helpers

def new_file(path, libver, track_order=False):
    fapl = h5p.create(h5p.FILE_ACCESS)
    low = h5f.LIBVER_EARLIEST if libver == 'earliest' else h5f.LIBVER_LATEST
    fapl.set_libver_bounds(low, h5f.LIBVER_LATEST)
    fcpl = h5p.create(h5p.FILE_CREATE)
    fcpl.set_obj_track_times(False)
    if track_order:
        fcpl.set_link_creation_order(TRACKED)
        fcpl.set_attr_creation_order(TRACKED)
    fid = h5f.create(path.encode(), h5f.ACC_TRUNC, fapl=fapl, fcpl=fcpl)
    return h5py.File(fid)


def group(parent, name, track_order=False):
    """A group without modification times (h5py's create_group cannot switch them off)."""
    gcpl = h5p.create(h5p.GROUP_CREATE)
    gcpl.set_obj_track_times(False)
    if track_order:
        gcpl.set_link_creation_order(TRACKED)
        gcpl.set_attr_creation_order(TRACKED)
    return h5py.Group(h5g.create(parent.id, name.encode('utf-8'), gcpl=gcpl))


def nested(parent, path):
    g = parent
    for part in path.strip('/').split('/'):
        g = g[part] if part in g else group(g, part)
    return g


def compact_dcpl():
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_layout(h5d.COMPACT)
    dcpl.set_obj_track_times(False)
    return dcpl


def array_dataset(parent, name, base_tid, dims, data):
    """A dataset whose element type is an HDF5 array type (h5py's high level would unroll it)."""
    tid = h5t.array_create(base_tid, tuple(dims))
    sid = h5s.create_simple((data.shape[0],))
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(False)
    dsid = h5d.create(parent.id, name.encode(), tid, sid, dcpl=dcpl)
    dsid.write(h5s.ALL, h5s.ALL, np.ascontiguousarray(data), mtype=tid)
    return dsid


def int_values(dt):
    info = np.iinfo(dt)
    vals = [info.min, info.max, 0, 1, 42, info.max - 1]
    if info.min < 0:
        vals += [-1, -42, info.min + 1]
    return np.array(vals, dtype=dt)


def float_values(dt):
    fi = np.finfo(np.dtype(dt).newbyteorder('='))
    vals = [0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, float(fi.max), float(fi.tiny),
            float(fi.tiny) / 4, 1.0 / 3.0, np.pi, -1e-3]
    return np.array(vals, dtype=dt)


UTF8_STRINGS = ['ascii', 'héllo wörld', '日本語テキスト', '', 'emoji 🎉🚀', 'ß', 'x' * 100]
STR_VLEN_UTF8 = h5py.string_dtype('utf-8')
STR_VLEN_ASCII = h5py.string_dtype('ascii')


# ----------------------------------------------------------------------------------------------- families

def fam_groups(f, libver):
    a = group(f, 'a')
    a.attrs['level'] = np.int32(1)
    b = group(a, 'b')
    c = group(b, 'c')
    group(c, 'd')
    b.create_dataset('data', data=np.arange(12, dtype='<i4').reshape(3, 4))
    a['rel'] = h5py.SoftLink('b/data')  # relative soft link

    comp = group(f, 'compact')
    for n in ['e', 'b', 'd', 'a', 'c']:
        group(comp, n)
    eight = group(f, 'eight')
    for i in range(8):
        eight.create_dataset('d%d' % (7 - i), data=np.array([i], dtype='<i2'))
    dense = group(f, 'dense')
    for i in range(9):
        group(dense, 'n%d' % ((i * 5) % 9))
    d50 = group(f, 'dense50')
    for i in range(50):
        name = ['item %02d' % i, 'ünï%02d' % i, 'Z%02d' % i, '_%02d' % i][i % 4]
        if i % 3 == 0:
            d50.create_dataset(name, data=np.array([i, -i], dtype='<i8'))
        else:
            group(d50, name)
    many = group(f, 'many')
    for i in range(2100):
        j = (i * 7919) % 2100
        if j % 500 == 0:
            many.create_dataset('m%04d' % j, data=np.array([j], dtype='<u4'))
        else:
            group(many, 'm%04d' % j)

    o = group(f, 'ordered', track_order=True)
    for n in ['z', 'a', 'm', 'b', 'y']:
        group(o, n)
    od = group(f, 'ordered_dense', track_order=True)
    for i in range(20):
        group(od, 'k%02d' % (19 - i) if i % 2 else 'j%02d' % i)

    f['soft_to_data'] = h5py.SoftLink('/a/b/data')
    f['soft_to_group'] = h5py.SoftLink('/a/b')
    f['dangling'] = h5py.SoftLink('/does/not/exist')
    f['ext'] = h5py.ExternalLink('ext_target.h5', '/target/data')
    f['ext_missing'] = h5py.ExternalLink('missing_file.h5', '/x')
    f['alias_data'] = b['data']
    u = group(f, 'ünïcödé ✓')
    u.create_dataset('ďata', data=np.array([1.5, 2.5], dtype='<f4'))


def fam_dtypes(f, libver):
    gi = group(f, 'int')
    for kind in 'iu':
        for size in (1, 2, 4, 8):
            for order, tag in (('<', 'le'), ('>', 'be')):
                dt = np.dtype('%s%s%d' % (order, kind, size))
                gi.create_dataset('%s%d_%s' % (kind, size, tag), data=int_values(dt))
    gf = group(f, 'float')
    for size in (2, 4, 8):
        for order, tag in (('<', 'le'), ('>', 'be')):
            dt = np.dtype('%sf%d' % (order, size))
            gf.create_dataset('f%d_%s' % (size, tag), data=float_values(dt))
    f.create_dataset('bool', data=np.array([True, False, True, True, False]))

    ge = group(f, 'enum')
    ge.create_dataset('u1', data=np.array([0, 2, 1, 2], dtype='u1'),
                      dtype=h5py.enum_dtype({'RED': 0, 'GREEN': 1, 'BLUE': 2}, basetype='u1'))
    ge.create_dataset('i2_be', data=np.array([-5, 300, 0], dtype='>i2'),
                      dtype=h5py.enum_dtype({'NEG': -5, 'BIG': 300, 'ZERO': 0}, basetype='>i2'))
    ge.create_dataset('i8', data=np.array([2 ** 40, -(2 ** 62)], dtype='<i8'),
                      dtype=h5py.enum_dtype({'HUGE': 2 ** 40, 'VERY_NEG': -(2 ** 62)}, basetype='<i8'))

    gs = group(f, 'str')
    gs.create_dataset('fixed_S10', data=np.array([b'hello', b'', b'exactly10!', b'a b'], dtype='S10'))
    gs.create_dataset('fixed_S1', data=np.array([b'x', b'', b'z'], dtype='S1'))
    gs.create_dataset('fixed_2d', data=np.array([[b'ab', b'cd', b'ef'], [b'gh', b'', b'kl']], dtype='S3'))
    fu = h5py.string_dtype('utf-8', 24)
    ds = gs.create_dataset('fixed_utf8', shape=(4,), dtype=fu)
    ds.id.write(h5s.ALL, h5s.ALL, np.array([s.encode() for s in ['héllo', 'ü', '', '日本']], dtype='S24'),
                mtype=ds.id.get_type())
    gs.create_dataset('vlen_ascii', data=np.array([b'abc', b'', b'a longer ascii string', b'z'], dtype=object),
                      dtype=STR_VLEN_ASCII)
    gs.create_dataset('vlen_utf8', data=np.array(UTF8_STRINGS, dtype=object), dtype=STR_VLEN_UTF8)
    gs.create_dataset('vlen_scalar', data='single ✓', dtype=STR_VLEN_UTF8)
    gs.create_dataset('vlen_2d', data=np.array([['a', 'bb'], ['', 'dddd']], dtype=object), dtype=STR_VLEN_UTF8)

    gc = group(f, 'compound')
    simple = np.dtype([('a', '<i4'), ('b', '<f8'), ('c', 'S5')])
    gc.create_dataset('simple', data=np.array([(1, 1.5, b'one'), (-2, -0.0, b''), (3, np.nan, b'three')], dtype=simple))
    point = np.dtype([('x', '<f4'), ('y', '<f4')])
    nested_dt = np.dtype([('id', '<u2'), ('pos', point), ('arr', '<i2', (3,)), ('name', STR_VLEN_UTF8),
                          ('tag', 'S4'), ('big', '<u8')])
    gc.create_dataset('nested', data=np.array([
        (1, (0.5, -1.0), [1, 2, 3], 'first ✓', b'ab', 2 ** 64 - 1),
        (2, (2.5, 3.0), [-4, 5, -6], '', b'abcd', 0),
    ], dtype=nested_dt))
    be = np.dtype([('i', '>i4'), ('f', '>f8'), ('u', '>u2')])
    gc.create_dataset('big_endian', data=np.array([(1, 2.5, 3), (-7, -1e300, 65535)], dtype=be))
    deep = np.dtype([('outer', [('mid', [('inner', '<i1'), ('pad', '<f2')]), ('m', '<f8', (2, 2))])])
    gc.create_dataset('deep', data=np.array([(((-3, 0.5), [[1, 2], [3, 4]]),)], dtype=deep))

    ga = group(f, 'array')
    array_dataset(ga, 'i4_2x3', h5t.STD_I32LE, (2, 3), np.arange(24, dtype='<i4').reshape(4, 2, 3) - 12)
    array_dataset(ga, 'f8_be_3', h5t.IEEE_F64BE, (3,), np.array([[1.5, -2.0, np.inf], [0.0, 1e-300, -0.0]], dtype='>f8'))
    array_dataset(ga, 'u1_4', h5t.STD_U8LE, (4,), np.array([[1, 2, 3, 255]], dtype='u1'))

    gn = group(f, 'nd')
    gn.create_dataset('i4_3x4', data=np.arange(12, dtype='<i4').reshape(3, 4))
    gn.create_dataset('f4_2x3x4', data=(np.arange(24, dtype='<f4') / 7).reshape(2, 3, 4))
    gn.create_dataset('u2_be_2x2x2x2', data=np.arange(16, dtype='>u2').reshape(2, 2, 2, 2))


def fam_dspace(f, libver):
    f.create_dataset('scalar_i4', data=np.int32(-42))
    f.create_dataset('scalar_f8', data=np.float64(2.5))
    f.create_dataset('scalar_u8', data=np.uint64(2 ** 64 - 2))
    f.create_dataset('scalar_vlen', data='scalar ✓', dtype=STR_VLEN_UTF8)
    f.create_dataset('scalar_S8', data=np.bytes_(b'fixed'))
    f.create_dataset('scalar_compound', data=np.array((7, 0.25), dtype=[('n', '<i2'), ('v', '<f4')])[()])
    f.create_dataset('null_f4', data=h5py.Empty('<f4'))
    f.create_dataset('null_i2', data=h5py.Empty('>i2'))
    f.create_dataset('zero', shape=(0,), dtype='<i4')
    f.create_dataset('zero_2d', shape=(3, 0), dtype='<f8')
    f.create_dataset('contig', data=np.linspace(-1, 1, 101))
    f.create_dataset('contig_2d', data=np.arange(60, dtype='<i2').reshape(6, 10))
    f.create_dataset('compact_i4', data=np.arange(10, dtype='<i4') * -3, dcpl=compact_dcpl())
    f.create_dataset('compact_f8_2d', data=np.arange(6, dtype='<f8').reshape(2, 3) / 4, dcpl=compact_dcpl())
    f.create_dataset('compact_S6', data=np.array([b'abc', b'defghi'], dtype='S6'), dcpl=compact_dcpl())
    f.create_dataset('compact_vlen', data=np.array(['x', 'ÿ'], dtype=object), dtype=STR_VLEN_UTF8,
                     dcpl=compact_dcpl())
    f.create_dataset('fill_i4', shape=(10,), dtype='<i4', fillvalue=-7)
    f.create_dataset('fill_f8', shape=(2, 3), dtype='<f8', fillvalue=1.5)
    f.create_dataset('fill_u8_be', shape=(4,), dtype='>u8', fillvalue=2 ** 63 + 5)
    f.create_dataset('fill_S5', shape=(3,), dtype='S5', fillvalue=b'xy')
    f.create_dataset('fill_f2', shape=(3,), dtype='<f2', fillvalue=-0.5)
    cdt = np.dtype([('a', '<i4'), ('b', '<f4')])
    f.create_dataset('fill_compound', shape=(2,), dtype=cdt, fillvalue=np.array((3, -1.25), dtype=cdt)[()])
    f.create_dataset('fill_default', shape=(5,), dtype='<i2')
    f.create_dataset('fill_scalar', shape=(), dtype='<f4', fillvalue=9.75)
    # chunked only where max dims need it: assert metadata only (chunked reading comes later)
    f.create_dataset('unlimited', data=np.arange(12, dtype='<i4').reshape(4, 3), maxshape=(None, 3))
    f.create_dataset('unlimited_2', shape=(0, 0), dtype='<f8', maxshape=(None, None))
    f.create_dataset('maxshape_fixed', data=np.arange(5, dtype='<u1'), maxshape=(10,))


def fam_attrs(f, libver):
    A = f.attrs
    A['int'] = np.int32(-5)
    A['float'] = np.float64(0.1)
    A['f2'] = np.float16(1.5)
    A['f4_be'] = np.array(np.float32(-3.25), dtype='>f4')[()]
    A['i8'] = np.int64(-(2 ** 62) - 3)
    A['u8'] = np.uint64(2 ** 64 - 1)
    A['u1_arr'] = np.array([1, 2, 255], dtype='u1')
    A['i2_be_arr'] = np.array([-1, 256, 32767], dtype='>i2')
    A['f8_2d'] = np.arange(6, dtype='<f8').reshape(2, 3) - 2.5
    A['nan_inf'] = np.array([np.nan, np.inf, -np.inf, -0.0], dtype='<f8')
    A.create('vlen_str', 'hello ✓', dtype=STR_VLEN_UTF8)
    A.create('vlen_empty', '', dtype=STR_VLEN_UTF8)
    A.create('vlen_ascii', b'plain', dtype=STR_VLEN_ASCII)
    A.create('vlen_arr', np.array(UTF8_STRINGS, dtype=object), dtype=STR_VLEN_UTF8)
    A['fixed_str'] = np.bytes_(b'fixed')
    A['fixed_arr'] = np.array([b'a', b'bcd', b''], dtype='S4')
    ftid = h5t.py_create(h5py.string_dtype('utf-8', 8))
    aid = h5a.create(f.id, b'fixed_utf8', ftid, h5s.create(h5s.SCALAR))
    aid.write(np.array('ünï'.encode(), dtype='S8'), mtype=ftid)
    aid.close()
    A['bool'] = np.bool_(True)
    A['bool_arr'] = np.array([False, True])
    A.create('enum', np.array(2, dtype='i1'), dtype=h5py.enum_dtype({'A': 0, 'B': 1, 'C': 2}, basetype='i1'))
    A['null'] = h5py.Empty('<i4')
    A['null_str'] = h5py.Empty(STR_VLEN_UTF8)
    cdt = np.dtype([('x', '<i4'), ('s', 'S3'), ('v', STR_VLEN_UTF8)])
    A.create('compound', np.array((1, b'ab', 'vé'), dtype=cdt)[()], dtype=cdt)
    A.create('compound_arr', np.array([(1, b'ab', 'x'), (2, b'', '')], dtype=cdt), dtype=cdt)
    A.create('array_typed', np.arange(6, dtype='<i4').reshape(2, 3), dtype=np.dtype(('<i4', (3,))))
    A['tëmp ünïcode'] = np.int16(7)
    A['zero_len'] = np.zeros((0,), dtype='<f4')

    g = group(f, 'compact_group')
    for n, v in (('c', 3), ('a', 1), ('b', 2)):
        g.attrs[n] = np.int32(v)
    g = group(f, 'dense_group')
    for i in range(20):
        g.attrs['attr%02d' % ((i * 7) % 20)] = np.arange(i + 1, dtype='<i8')
    g = group(f, 'continuation_group')  # enough attribute bytes to need header continuation blocks
    for i in range(40):
        g.attrs['long_attribute_name_%02d' % i] = np.full(24, i, dtype='<f8')
    g = group(f, 'tracked', track_order=True)
    for n in ['zeta', 'alpha', 'mu', 'beta']:
        g.attrs[n] = np.bytes_(n.encode())
    g = group(f, 'tracked_dense', track_order=True)
    for i in range(12):
        g.attrs['t%02d' % (11 - i)] = np.int32(i)

    d = f.create_dataset('ds', data=np.arange(4, dtype='<f4'))
    d.attrs['units'] = 'm/s'
    d.attrs['scale'] = np.float32(0.5)
    d.attrs['range'] = np.array([0, 10], dtype='<i2')
    d.attrs.create('label', np.bytes_(b'lbl'), dtype='S3')
    d2 = f.create_dataset('ds_many', data=np.arange(3, dtype='<u2'))
    for i in range(12):
        d2.attrs['a%02d' % i] = np.int32(i * i)
    d3 = f.create_dataset('ds_tracked', data=np.arange(3, dtype='<i1'), track_order=True)
    for n in ['z', 'y', 'x']:
        d3.attrs[n] = np.int8(ord(n))

    g = group(f, 'big_attr')
    try:
        g.attrs['big'] = np.arange(8960, dtype='<f8') * 0.25  # 71,680 bytes
    except Exception:
        del f['big_attr']  # attributes > 64 kB need dense storage (not available with libver=earliest)


def fam_big(f, libver):
    f.create_dataset('big_f8', data=np.arange(1_000_000, dtype='<f8') * 0.5 - 1000.0)
    if libver == 'latest':
        f.create_dataset('big_i4_be', data=(np.arange(1_000_000, dtype='>i4') * 2654435761 % 2 ** 31).astype('>i4'))


def fam_small_groups(f, libver):
    g = group(f, 'g')
    for i in range(12):
        group(g, 'c%02d' % ((i * 5) % 12))
    sub = group(g['c00'], 'sub')
    sub.create_dataset('d', data=np.arange(6, dtype='<i2'))
    f['soft'] = h5py.SoftLink('/g/c00/sub/d')
    f['ext'] = h5py.ExternalLink('other.h5', '/x')
    o = group(f, 'o', track_order=True)
    for n in ['b', 'a', 'c']:
        group(o, n)


def fam_small_attrs(f, libver):
    f.attrs['i'] = np.int32(1)
    f.attrs['f'] = np.array([1.5, -2.5], dtype='>f8')
    f.attrs.create('s', 'text ✓', dtype=STR_VLEN_UTF8)
    f.attrs['S'] = np.bytes_(b'abc')
    g = group(f, 'g')
    for i in range(10):
        g.attrs['a%d' % i] = np.int16(i)
    d = f.create_dataset('d', data=np.arange(4, dtype='<u4'))
    d.attrs['unit'] = np.bytes_(b'm')
    d.attrs['null'] = h5py.Empty('<i4')


def fam_small_vlen(f, libver):
    f.create_dataset('v', data=np.array(['a', 'ü', '', 'long string here'], dtype=object), dtype=STR_VLEN_UTF8)
    f.create_dataset('vs', data='scalar', dtype=STR_VLEN_UTF8)
    cdt = np.dtype([('n', '<i4'), ('s', STR_VLEN_UTF8)])
    f.create_dataset('c', data=np.array([(1, 'x'), (2, 'yz')], dtype=cdt))
    f.attrs.create('va', np.array(['p', 'q'], dtype=object), dtype=STR_VLEN_UTF8)
    f.create_dataset('fixed', data=np.array([b'ab', b'cde'], dtype='S3'), dcpl=compact_dcpl())


def fam_ext_target(f, libver):
    t = group(f, 'target')
    t.create_dataset('data', data=np.array([10, 20, 30], dtype='<i4'))


# family name -> (builder, libvers, used by the corrupt-input test)
FAMILIES = {
    'groups': (fam_groups, LIBVERS, False),
    'dtypes': (fam_dtypes, LIBVERS, False),
    'dspace': (fam_dspace, LIBVERS, False),
    'attrs': (fam_attrs, LIBVERS, False),
    'big': (fam_big, LIBVERS, False),
    'small_groups': (fam_small_groups, LIBVERS, True),
    'small_attrs': (fam_small_attrs, LIBVERS, True),
    'small_vlen': (fam_small_vlen, LIBVERS, True),
    'ext_target': (fam_ext_target, ('earliest',), False),
}


def main(argv):
    outdir = fixture_common.output_dir(argv, 'make_fixtures.py')
    if outdir is None:
        return 2
    entries = []
    for family, (build, libvers, corrupt) in FAMILIES.items():
        for libver in libvers:
            name = family + '.h5' if family == 'ext_target' else '%s_%s.h5' % (family, libver)
            path = os.path.join(outdir, name)
            f = new_file(path, libver)
            try:
                build(f, libver)
            finally:
                f.close()
            fixture_common.write_dump(path, libver)
            entries.append({'file': name, 'json': name + '.json', 'libver': libver, 'family': family,
                            'corrupt': corrupt, 'size': os.path.getsize(path)})
    fixture_common.write_manifest(outdir, 'make_fixtures.py', entries)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
