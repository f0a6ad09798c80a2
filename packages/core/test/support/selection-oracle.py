"""Oracle for encoded selections (H5Sencode / H5Sdecode of the HDF5 C library under h5py).

Reads one JSON request on stdin, prints one JSON answer on stdout:
  {"encode": [case...], "decode": [hex...], "regions": {"file": path, "cases": [case...]}}
case = {"dims": [...], "maxDims": [...|-1] | null, "sel": spec}
spec = {"kind": "all"|"none"} | {"kind": "points", "coords": [[...]...]}
     | {"kind": "hyperslab", "start", "stride", "count", "block"} | {"kind": "blocks", "boxes": [[start, end]...]}

- encode: HDF5's own H5Sencode of each case (hex, or {"error": msg}).
- decode: H5Sdecode of each buffer: extent, selection type and the selected elements as C-order
  linear offsets in iteration order (point order for point selections).
- regions: writes a file whose dataset "refs" holds one old-style region reference per case,
  pointing at a dataset of the case's shape whose values are the linear offsets; the stored
  selection of reference i is then replaced by case["body"] (hex of a serialised selection, no
  header/extent) so another HDF5 (h5wasm, 2.0) can read the elements it selects.
"""
import json
import struct
import sys

import h5py
import numpy as np
from h5py import h5r, h5s


def make_space(dims, max_dims):
    if max_dims is None:
        return h5s.create_simple(tuple(dims))
    return h5s.create_simple(tuple(dims), tuple(h5s.UNLIMITED if m == -1 else m for m in max_dims))


def apply_selection(space, spec):
    k = spec["kind"]
    if k == "all":
        space.select_all()
    elif k == "none":
        space.select_none()
    elif k == "points":
        space.select_elements(np.array(spec["coords"], dtype=np.uint64))
    elif k == "hyperslab":
        space.select_hyperslab(tuple(spec["start"]), tuple(spec["count"]), tuple(spec["stride"]), tuple(spec["block"]))
    elif k == "blocks":
        first = True
        for s, e in spec["boxes"]:
            block = tuple(b - a for a, b in zip(s, e))
            if any(b <= 0 for b in block):
                continue
            op = h5s.SELECT_SET if first else h5s.SELECT_OR
            space.select_hyperslab(tuple(s), (1,) * len(s), None, block, op)
            first = False
        if first:
            space.select_none()
    else:
        raise ValueError(k)


def elements(space):
    dims = space.shape
    total = int(np.prod(dims, dtype=np.uint64)) if len(dims) else 1
    t = space.get_select_type()
    if t == h5s.SEL_NONE:
        return []
    if t == h5s.SEL_ALL:
        return list(range(total))
    if t == h5s.SEL_POINTS:
        pts = space.get_select_elem_pointlist()
        return [int(np.ravel_multi_index(tuple(int(x) for x in p), dims)) for p in pts]
    mask = np.zeros(dims, dtype=bool)
    for blk in space.get_select_hyper_blocklist():
        mask[tuple(slice(int(a), int(b) + 1) for a, b in zip(blk[0], blk[1]))] = True
    return [int(i) for i in np.flatnonzero(mask)]


def do_encode(cases):
    out = []
    for c in cases:
        try:
            space = make_space(c["dims"], c.get("maxDims"))
            apply_selection(space, c["sel"])
            out.append(space.encode().hex())
        except Exception as e:  # noqa: BLE001 - report any library refusal
            out.append({"error": str(e)})
    return out


def do_decode(bufs):
    out = []
    for h in bufs:
        try:
            space = h5s.decode(bytes.fromhex(h))
            dims, maxdims = space.shape, space.get_simple_extent_dims(True)
            names = {h5s.SEL_NONE: "none", h5s.SEL_ALL: "all", h5s.SEL_POINTS: "points", h5s.SEL_HYPERSLABS: "hyperslab"}
            out.append({
                "dims": [int(x) for x in dims],
                "maxDims": [-1 if m == h5s.UNLIMITED else int(m) for m in maxdims],
                "type": names[space.get_select_type()],
                "npoints": int(space.get_select_npoints()),
                "elements": elements(space),
            })
        except Exception as e:  # noqa: BLE001
            out.append({"error": str(e)})
    return out


def heap_objects(buf, addr):
    assert buf[addr:addr + 4] == b"GCOL"
    size = struct.unpack_from("<Q", buf, addr + 8)[0]
    p, end, objs = addr + 16, addr + size, {}
    while p + 16 <= end:
        idx, _rc, _res, sz = struct.unpack_from("<HHIQ", buf, p)
        if idx == 0:
            break
        objs[idx] = (p + 16, sz)
        p += 16 + ((sz + 7) // 8) * 8
    return objs


def do_regions(req):
    path, cases = req["file"], req["cases"]
    with h5py.File(path, "w") as f:
        refs = f.create_dataset("refs", (len(cases),), dtype=h5py.regionref_dtype)
        for i, c in enumerate(cases):
            dims = tuple(c["dims"])
            total = int(np.prod(dims, dtype=np.uint64))
            name = "d%d" % i
            if total <= 2_000_000:
                f.create_dataset(name, data=np.arange(total, dtype="f8").reshape(dims))
            else:
                # Large extents: chunked, values written only over the listed element ranges.
                chunks = tuple(min(n, 64) for n in dims[:-1]) + (min(dims[-1], 65536),)
                d = f.create_dataset(name, shape=dims, dtype="f8", chunks=chunks)
                for lo, hi in c.get("write", []):
                    d[tuple(slice(a, b) for a, b in zip(lo, hi))] = (
                        np.ravel_multi_index(np.indices([b - a for a, b in zip(lo, hi)]).reshape(len(dims), -1)
                                             + np.array(lo, dtype=np.int64).reshape(-1, 1), dims)
                        .reshape([b - a for a, b in zip(lo, hi)]).astype("f8"))
            body = bytes.fromhex(c["body"])
            # Placeholder: a point list at least as long as the body (the heap object is reused in place).
            rank = len(dims)
            npts = max(1, -(-(len(body) - 24) // (4 * rank)))
            space = h5s.create_simple(dims)
            space.select_elements(np.zeros((npts, rank), dtype=np.uint64))
            refs[i] = h5r.create(f.id, name.encode(), h5r.DATASET_REGION, space)
        refs_offset = refs.id.get_offset()
    buf = bytearray(open(path, "rb").read())
    for i, c in enumerate(cases):
        body = bytes.fromhex(c["body"])
        ha, hi = struct.unpack_from("<QI", buf, refs_offset + 12 * i)
        p, sz = heap_objects(buf, ha)[hi]
        assert len(body) <= sz - 8, (len(body), sz)
        buf[p + 8:p + sz] = body + bytes(sz - 8 - len(body))
    open(path, "wb").write(buf)
    return path


def main():
    req = json.load(sys.stdin)
    out = {}
    if "encode" in req:
        out["encode"] = do_encode(req["encode"])
    if "decode" in req:
        out["decode"] = do_decode(req["decode"])
    if "regions" in req:
        out["regions"] = do_regions(req["regions"])
    json.dump(out, sys.stdout)


main()
