"""Oracle for the LZ4 filter (32004) tests: Debian h5py (HDF5 1.10.8) + libh5lz4.so from the
hdf5-filter-plugin package (HDF5_PLUGIN_PATH must point at its directory).

  make DIR    write DIR/lz4.h5 with LZ4-filtered datasets (several client data / pipelines), dump
              each chunk as stored (read_direct_chunk) and as unfiltered bytes, and DIR/manifest.json
  batch DIR   for each {"file", "orig", "blockSize"} of DIR/batch.json store DIR/file as the one
              chunk of a uint8 dataset filtered with LZ4, read it back and print JSON [bool equal]
              against DIR/orig; then LZ4-encode DIR/orig with the plugin and write it to
              DIR/file + ".ref" (its stored chunk)
  write DIR   for each entry of DIR/ours.json create a dataset filtered like the case, store our
              encoded chunks with write_direct_chunk, read it back with h5py and print JSON
              {name: bool equal} against the case's values
"""
import json
import os
import sys

import h5py
import numpy as np

RNG = np.random.default_rng(5)


def detector(shape):
    # detector-like frame: mostly low counts with sparse hits
    a = RNG.poisson(0.3, size=shape).astype("u2")
    hits = RNG.random(shape) < 0.01
    a[hits] = RNG.integers(100, 60000, size=int(hits.sum()))
    return a


CASES = {
    "u16_default": dict(data=lambda: detector((64, 96)), chunks=(32, 48), opts=None),
    "u16_block1000": dict(data=lambda: detector((64, 96)), chunks=(32, 48), opts=(1000,)),
    "u16_block777_edge": dict(data=lambda: detector((70, 50)), chunks=(32, 48), opts=(777,)),
    "u8_random": dict(data=lambda: RNG.integers(0, 256, size=(5000,), dtype="u1"), chunks=(3000,), opts=(1024,)),
    "f64_smooth": dict(data=lambda: np.sin(np.arange(4000) / 50.0), chunks=(1000,), opts=None),
    "u32_shuffle": dict(data=lambda: np.arange(3000, dtype="u4") // 7, chunks=(1001,), opts=None, shuffle=True),
    "zeros": dict(data=lambda: np.zeros(20000, dtype="u1"), chunks=(20000,), opts=None),
}


def create(f, name, c, data):
    kw = dict(chunks=c["chunks"], compression=32004, shuffle=c.get("shuffle", False))
    if c["opts"] is not None:
        kw["compression_opts"] = c["opts"]
    return f.create_dataset(name, data=data, **kw)


def make(d):
    manifest = {"hdf5": h5py.version.hdf5_version, "cases": []}
    with h5py.File(os.path.join(d, "lz4.h5"), "w") as f:
        for name, c in CASES.items():
            data = c["data"]()
            np.save(os.path.join(d, name + ".npy"), data)
            ds = create(f, name, c, data)
            twin = f.create_dataset(name + "_plain", data=data, chunks=c["chunks"])
            plist = ds.id.get_create_plist()
            filters = []
            for i in range(plist.get_nfilters()):
                fid, flags, cd, fname = plist.get_filter(i)
                filters.append({"id": fid, "flags": flags, "clientData": list(cd)})
            chunks = []
            for k in range(ds.id.get_num_chunks()):
                info = ds.id.get_chunk_info(k)
                mask, raw = ds.id.read_direct_chunk(info.chunk_offset)
                _, plain = twin.id.read_direct_chunk(info.chunk_offset)
                stem = "%s.%d" % (name, k)
                open(os.path.join(d, stem + ".raw"), "wb").write(raw)
                open(os.path.join(d, stem + ".plain"), "wb").write(plain)
                chunks.append({"offset": list(info.chunk_offset), "mask": mask, "raw": stem + ".raw", "plain": stem + ".plain"})
            manifest["cases"].append({
                "name": name, "elementSize": data.dtype.itemsize, "chunkDims": list(c["chunks"]),
                "filters": filters, "chunks": chunks,
            })
    json.dump(manifest, open(os.path.join(d, "manifest.json"), "w"))


def write(d):
    ours = json.load(open(os.path.join(d, "ours.json")))
    out = {}
    path = os.path.join(d, "ours.h5")
    with h5py.File(path, "w") as f:
        for name, chunks in ours.items():
            c = CASES[name]
            data = np.load(os.path.join(d, name + ".npy"))
            ds = f.create_dataset(name, shape=data.shape, dtype=data.dtype, chunks=c["chunks"], compression=32004,
                                  shuffle=c.get("shuffle", False),
                                  **({"compression_opts": c["opts"]} if c["opts"] is not None else {}))
            for ch in chunks:
                ds.id.write_direct_chunk(tuple(ch["offset"]), open(os.path.join(d, ch["file"]), "rb").read(), ch["mask"])
    with h5py.File(path, "r") as f:
        for name in ours:
            data = np.load(os.path.join(d, name + ".npy"))
            out[name] = bool(np.array_equal(f[name][...], data))
    print(json.dumps(out))


def batch(d):
    items = json.load(open(os.path.join(d, "batch.json")))
    res = []
    path = os.path.join(d, "batch.h5")
    with h5py.File(path, "w") as f:
        for k, it in enumerate(items):
            orig = np.frombuffer(open(os.path.join(d, it["orig"]), "rb").read(), dtype="u1")
            n = max(1, orig.size)
            ds = f.create_dataset("b%d" % k, shape=(n,), dtype="u1", chunks=(n,), compression=32004,
                                  compression_opts=(it["blockSize"],))
            ds.id.write_direct_chunk((0,), open(os.path.join(d, it["file"]), "rb").read(), 0)
            res.append(bool(np.array_equal(ds[...], orig)))
            ref = f.create_dataset("r%d" % k, data=orig, chunks=(n,), compression=32004, compression_opts=(it["blockSize"],))
            open(os.path.join(d, it["file"] + ".ref"), "wb").write(ref.id.read_direct_chunk((0,))[1])
    print(json.dumps(res))


if __name__ == "__main__":
    {"make": make, "write": write, "batch": batch}[sys.argv[1]](sys.argv[2])
