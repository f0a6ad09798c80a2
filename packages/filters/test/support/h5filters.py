"""Oracle for the filter tests (Debian h5py, HDF5 1.10.8).

  make  DIR          write one HDF5 file per case into DIR with dataset "d" (filtered), "orig" (same
                     type, chunks and fill value, no filters, the data written to "d") and "twin"
                     (likewise, holding what h5py reads back from "d"), the raw chunks of the three,
                     and DIR/manifest.json describing them.
  write DIR CASE     overwrite the chunks of CASE's "d" with DIR/CASE.ours.<i>.bin (masks in
                     DIR/CASE.ours.json) via write_direct_chunk, read "d" back with h5py and print
                     JSON {"equal": bool, "maxdiff": float} against the values h5py read originally.
"""
import json
import struct
import warnings
import os
import sys

import h5py
import numpy as np
from h5py import h5d, h5p, h5s, h5t, h5z

RNG = np.random.default_rng(1234)
warnings.simplefilter("ignore")


def custom_int(base, precision, offset):
    t = base.copy()
    t.set_precision(precision)
    t.set_offset(offset)
    return t


def custom_float20():
    # 20 significant bits at offset 7: sign 26, exponent 20..25 (6 bits), mantissa 7..19 (13 bits)
    t = h5t.IEEE_F32LE.copy()
    t.set_fields(26, 20, 6, 7, 13)
    t.set_offset(7)
    t.set_precision(20)
    t.set_size(4)
    t.set_ebias(31)
    return t


def lowlevel(f, tid, shape, chunks, data, dcpl_setup, fill=None, name=b"d"):
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    if fill is not None:
        dcpl.set_fill_value(fill)
    dcpl_setup(dcpl)
    space = h5s.create_simple(shape)
    dsid = h5d.create(f.id, name, tid, space, dcpl=dcpl)
    ds = h5py.Dataset(dsid)
    ds[...] = data
    return ds


# Each builder writes "d" (filtered) and "orig" (same type, chunks and fill, unfiltered, the data
# as given — for lossy filters "d" reads back differently).
def hl(**kw):
    def build(f):
        d = f.create_dataset("d", **kw)
        plain = {k: v for k, v in kw.items() if k in ("data", "dtype", "chunks", "fillvalue")}
        f.create_dataset("orig", **plain)
        return d
    return build


def ll(tid, shape, chunks, data, setup, fill=None):
    def build(f):
        lowlevel(f, tid, shape, chunks, data, lambda dcpl: None, fill, b"orig")
        return lowlevel(f, tid, shape, chunks, data, setup, fill)
    return build


def nbit(dcpl):
    dcpl.set_filter(h5z.FILTER_NBIT)


def cases():
    u16 = (np.arange(64 * 64, dtype=np.uint16).reshape(64, 64) * 7 + 100) % 4000
    f64 = RNG.normal(0, 1, (50, 40))
    i32 = (np.arange(100, dtype=np.int32) - 50) * 1000
    c = {}
    c["gzip1_u16"] = hl(data=u16, chunks=(32, 32), compression="gzip", compression_opts=1)
    c["gzip9_f64_edges"] = hl(data=f64, chunks=(16, 16), compression="gzip", compression_opts=9)
    c["shuffle_gzip_i32"] = hl(data=i32, chunks=(30,), shuffle=True, compression="gzip", compression_opts=4)
    c["shuffle_only_f64"] = hl(data=f64, chunks=(10, 10), shuffle=True)
    c["fletcher_u8_odd"] = hl(data=np.arange(13, dtype=np.uint8), chunks=(13,), fletcher32=True)
    c["fletcher_shuffle_gzip"] = hl(data=u16, chunks=(64, 16), shuffle=True, compression="gzip", fletcher32=True)

    def fletcher_then_shuffle(dcpl):
        dcpl.set_fletcher32()
        dcpl.set_shuffle()
    c["fletcher_then_shuffle_f64"] = ll(h5t.IEEE_F64LE, (50, 40), (5, 7), f64, fletcher_then_shuffle)
    c["so_int32_auto"] = hl(data=np.arange(100, dtype=np.int32).reshape(10, 10) + 1000, chunks=(10, 10), scaleoffset=0)
    c["so_int16_neg"] = hl(data=(np.arange(300, dtype=np.int16) * 37 % 500 - 250).astype(np.int16), chunks=(64,), scaleoffset=0)
    c["so_uint8"] = hl(data=(np.arange(200) % 17 + 3).astype(np.uint8), chunks=(50,), scaleoffset=0)
    c["so_int64_big"] = hl(data=np.arange(40, dtype=np.int64) * (2 ** 40) - 2 ** 50, chunks=(16,), scaleoffset=0)
    c["so_uint16_fill"] = hl(data=np.where(np.arange(90) % 7 == 0, 9, np.arange(90) + 20).astype(np.uint16), chunks=(30,), scaleoffset=0, fillvalue=9)
    c["so_int32_minbits5"] = hl(data=(np.arange(64, dtype=np.int32) % 20) - 5, chunks=(32,), scaleoffset=5)
    c["so_int32_full"] = hl(data=np.array([-2 ** 31, 2 ** 31 - 1] * 8, dtype=np.int32), chunks=(16,), scaleoffset=0)
    c["so_be_int32"] = hl(data=np.arange(50, dtype=np.int32) * 3 - 70, dtype=">i4", chunks=(25,), scaleoffset=0)
    c["so_f32_d2"] = hl(data=np.linspace(-3, 3, 200).astype(np.float32), chunks=(50,), scaleoffset=2)
    c["so_f64_d3"] = hl(data=RNG.normal(10, 5, (30, 30)), chunks=(10, 15), scaleoffset=3)
    c["so_f64be_fill"] = hl(data=np.where(np.arange(60) % 5 == 0, 1.5, np.linspace(0, 2, 60)), dtype=">f8", chunks=(20,), scaleoffset=3, fillvalue=1.5)
    c["so_f32_wide"] = hl(data=np.array([0, 1e10, -1e10, 5], dtype=np.float32), chunks=(4,), scaleoffset=2)
    c["so_f32_gzip"] = hl(data=np.linspace(0, 100, 1000).astype(np.float32), chunks=(250,), scaleoffset=1, compression="gzip")

    u32 = (np.arange(500, dtype=np.uint32) * 13) % 4096
    c["nbit_u32_p12"] = ll(custom_int(h5t.STD_U32LE, 12, 0), (500,), (128,), u32, nbit)
    c["nbit_u16_p10_o3"] = ll(custom_int(h5t.STD_U16LE, 10, 3), (100,), (40,), (np.arange(100) * 9 % 1024).astype(np.uint16), nbit)
    c["nbit_i16_p9"] = ll(custom_int(h5t.STD_I16LE, 9, 0), (100,), (50,), (np.arange(100) * 5 % 512 - 256).astype(np.int16), nbit)
    c["nbit_be_u32_p17_o5"] = ll(custom_int(h5t.STD_U32BE, 17, 5), (80,), (20,), (np.arange(80) * 1601 % 131072).astype(np.uint32), nbit)
    c["nbit_f32_p20"] = ll(custom_float20(), (64,), (32,), np.linspace(-8, 8, 64).astype(np.float32), nbit)

    ct = h5t.create(h5t.COMPOUND, 16)
    ct.insert(b"a", 0, custom_int(h5t.STD_U32LE, 17, 0))
    ct.insert(b"b", 4, h5t.STD_U8LE)
    ct.insert(b"s", 5, fixed_string(3))
    ct.insert(b"c", 8, custom_int(h5t.STD_I64LE, 33, 2))
    cdata = np.zeros(30, dtype=[("a", "<u4"), ("b", "u1"), ("s", "S3"), ("c", "<i8")])
    cdata["a"] = np.arange(30) * 4001 % 131072
    cdata["b"] = np.arange(30) * 3
    cdata["s"] = [b"x%02d" % i for i in range(30)]
    cdata["c"] = (np.arange(30) - 15) * 100000
    c["nbit_compound"] = ll(ct, (30,), (12,), cdata, nbit)

    at = h5t.array_create(custom_int(h5t.STD_U16LE, 9, 0), (3,))
    c["nbit_array_u16"] = ll(at, (20,), (8,), (np.arange(60) * 7 % 512).astype(np.uint16).reshape(20, 3), nbit)
    c["nbit_shuffle_gzip"] = ll(custom_int(h5t.STD_U32LE, 12, 0), (500,), (100,), u32, lambda d: (d.set_filter(h5z.FILTER_NBIT), d.set_shuffle(), d.set_deflate(3)))
    return c


def fixed_string(n):
    t = h5t.C_S1.copy()
    t.set_size(n)
    return t


def true_client_data(path, cd):
    """h5py's get_filter returns at most 16 correct client data values (the rest is garbage):
    read the full list from the pipeline message in the file (located by its first 16 values)."""
    if len(cd) <= 16:
        return cd
    data = open(path, "rb").read()
    pat = struct.pack("<16I", *cd[:16])
    at = data.find(pat)
    assert at >= 0 and data.find(pat, at + 1) < 0, "pipeline message not found"
    return list(struct.unpack_from("<%dI" % len(cd), data, at))


def chunk_list(dset):
    out = []
    for i in range(dset.id.get_num_chunks()):
        info = dset.id.get_chunk_info(i)
        out.append(tuple(int(x) for x in info.chunk_offset))
    return out


def make(outdir):
    manifest = {"h5py": h5py.version.version, "hdf5": h5py.version.hdf5_version, "cases": []}
    for name, build in cases().items():
        path = os.path.join(outdir, name + ".h5")
        with h5py.File(path, "w") as f:
            build(f)
        # reopen: values read in the writing session would come from the chunk cache, unfiltered
        with h5py.File(path, "r+") as f:
            d = f["d"]
            dcpl = d.id.get_create_plist()
            filters = []
            for i in range(dcpl.get_nfilters()):
                fid, flags, cd, fname = dcpl.get_filter(i)
                filters.append({"id": int(fid), "flags": int(flags), "clientData": [int(v) for v in cd], "name": fname.decode()})
            values = d[...]
            with h5py.File(os.path.join(outdir, name + ".values.h5"), "w") as vf:
                vf["v"] = values
            tid = d.id.get_type()
            tdcpl = h5p.create(h5p.DATASET_CREATE)
            tdcpl.set_chunk(d.chunks)
            try:
                if d.dtype.subdtype is not None:
                    raise ValueError("array type")
                fill = np.zeros((1,), dtype=values.dtype)
                dcpl.get_fill_value(fill)
                tdcpl.set_fill_value(fill)
            except (ValueError, TypeError):
                pass  # no conversion path for the fill value (custom types): the default (zeros) it is
            tw = h5py.Dataset(h5d.create(f.id, b"twin", tid, h5s.create_simple(d.shape), dcpl=tdcpl))
            tw[...] = values
            f.flush()
            chunks = []
            for k, off in enumerate(chunk_list(d)):
                mask, raw = d.id.read_direct_chunk(off)
                tmask, traw = tw.id.read_direct_chunk(off)
                omask, oraw = f["orig"].id.read_direct_chunk(off)
                assert tmask == 0 and omask == 0
                of = "%s.orig%d.bin" % (name, k)
                open(os.path.join(outdir, of), "wb").write(oraw)
                rf = "%s.chunk%d.bin" % (name, k)
                tf = "%s.twin%d.bin" % (name, k)
                open(os.path.join(outdir, rf), "wb").write(raw)
                open(os.path.join(outdir, tf), "wb").write(traw)
                coords = [o // c for o, c in zip(off, d.chunks)]
                chunks.append({"offset": list(off), "coords": coords, "mask": int(mask), "raw": rf, "twin": tf, "orig": of})
            manifest["cases"].append({
                "name": name, "file": name + ".h5", "shape": list(d.shape), "chunkDims": list(d.chunks),
                "elementSize": int(tid.get_size()), "dtype": str(values.dtype), "filters": filters, "chunks": chunks,
            })
    for case in manifest["cases"]:
        for flt in case["filters"]:
            flt["clientData"] = true_client_data(os.path.join(outdir, case["file"]), flt["clientData"])
    json.dump(manifest, open(os.path.join(outdir, "manifest.json"), "w"), indent=1)


def write(outdir, name):
    spec = json.load(open(os.path.join(outdir, name + ".ours.json")))
    path = os.path.join(outdir, name + ".h5")
    with h5py.File(path, "r+") as f:
        d = f["d"]
        for ch in spec["chunks"]:
            data = open(os.path.join(outdir, ch["file"]), "rb").read()
            d.id.write_direct_chunk(tuple(ch["offset"]), data, ch["mask"])
        f.flush()
    with h5py.File(path, "r") as f:
        got = f["d"][...]
    with h5py.File(os.path.join(outdir, name + ".values.h5"), "r") as vf:
        want = vf["v"][...]
    if want.dtype.names:
        equal = all(np.array_equal(got[n], want[n]) for n in want.dtype.names)
        maxdiff = 0.0 if equal else float("nan")
    else:
        equal = bool(np.array_equal(got, want))
        maxdiff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if got.size else 0.0
    print(json.dumps({"equal": equal, "maxdiff": maxdiff}))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: h5filters.py make DIR | write DIR CASE")
