#!/usr/bin/python3
"""h5py (the HDF5 C library) side of bench/sixth-wave.ts: point-group COO and group-creation workloads.

Runs as a server: one JSON command per line on stdin, one JSON reply per line on stdout, so that the
TypeScript bench can interleave repetitions of both libraries in one process pair without paying Python's
start-up per repetition. Timings are measured here with time.perf_counter() around the HDF5 calls only.

Commands:
  {"cmd": "load_points", "path": BIN}  frames written by the bench: u32 frame count F, u32 offsets[F+1],
                                       u32 linear index (y*W+x) per point, u16 value per point; plus "width"
  {"cmd": "coo_write", "path": H5}     4 resizable 1-D datasets (frame u32, y u16, x u16, value u16; chunks of
                                       65,536, gzip 1) appended frame by frame (resize + write), plus a
                                       per-frame offsets dataset; create and close included -> {"s", "cpu"} (CPU seconds of the process)
  {"cmd": "coo_read_frames", "path"}   per frame: the frame's slice of y, x, value (offsets read first) -> {"s", "cpu",
                                       "count", "sum" (of the values, taken after the clock stops)}
  {"cmd": "coo_read_all", "path"}      y, x, value, frame read whole -> {"s", "cpu"}
  {"cmd": "groups", "path", "groups", "per"}  create groups*per empty float32 (16,) datasets in `groups` groups
                                       (file create and close included) -> {"s"}
  {"cmd": "dense_create", "path", "n"}  create n empty float32 (16,) datasets in one group, libver='latest'
  {"cmd": "open_by_name", "path", "names"}  open the file and each dataset g/<name>
  {"cmd": "one_group", "path", "n", "marks": [..]}  create n datasets in one group; seconds per dataset (wall "per", CPU "cpu") of the
                                       `window` creations ending at each mark -> {"per": [...], "s"}
  {"cmd": "load_frames", "path", "frames", "h", "w"}  raw uint16 frames for the dense rows (bench/seventh-wave.ts)
  {"cmd": "dense_write", "path", "chunks", "gzip", "per_frame"}  a chunked uint16 dataset written whole (or
                                       frame by frame); create and close included -> {"s", "cpu"} (CPU seconds of the process)
  {"cmd": "dense_read_into", "path"}   open, read_direct into a reused array, close -> {"s", "cpu", "ok"}
  {"cmd": "windows", "path", "windows", "size"}  size×size windows at (frame, y, x) (u32 triples in a file)
                                       read one by one with open and close; the sum of the values -> {"s", "sum"}
"""
import json
import os
import sys
import time

import h5py
import numpy as np

COO_CHUNK = 65536
state = {}


def load_points(msg):
    raw = np.fromfile(msg["path"], dtype=np.uint8)
    nframes = int(raw[:4].view("<u4")[0])
    off = raw[4 : 4 + 4 * (nframes + 1)].view("<u4").astype(np.int64)
    n = int(off[-1])
    p = 4 + 4 * (nframes + 1)
    lin = raw[p : p + 4 * n].view("<u4")
    vals = raw[p + 4 * n : p + 6 * n].view("<u2")
    w = msg["width"]
    frames = []
    for i in range(nframes):
        a, b = off[i], off[i + 1]
        l = lin[a:b]
        frames.append(
            (
                np.full(b - a, i, dtype="<u4"),
                (l // w).astype("<u2"),
                (l % w).astype("<u2"),
                np.ascontiguousarray(vals[a:b]),
            )
        )
    state["frames"] = frames
    state["offsets"] = off
    return {"frames": nframes, "points": n}


def coo_write(msg):
    frames = state["frames"]
    t0 = time.perf_counter()
    c0 = time.process_time()
    with h5py.File(msg["path"], "w") as f:
        names = ("frame", "y", "x", "value")
        types = ("<u4", "<u2", "<u2", "<u2")
        dss = [f.create_dataset(nm, shape=(0,), maxshape=(None,), dtype=tp, chunks=(COO_CHUNK,), compression="gzip", compression_opts=1) for nm, tp in zip(names, types)]
        total = 0
        for arrays in frames:
            n = len(arrays[3])
            for ds, a in zip(dss, arrays):
                ds.resize((total + n,))
                ds[total : total + n] = a
            total += n
        f.create_dataset("offsets", data=state["offsets"].astype("<u4"))
    return {"s": time.perf_counter() - t0, "cpu": time.process_time() - c0}


def coo_read_frames(msg):
    t0 = time.perf_counter()
    c0 = time.process_time()
    count = 0
    kept = []
    with h5py.File(msg["path"], "r") as f:
        off = f["offsets"][()]
        y, x, v = f["y"], f["x"], f["value"]
        for i in range(len(off) - 1):
            a, b = int(off[i]), int(off[i + 1])
            ys, xs, vs = y[a:b], x[a:b], v[a:b]
            count += len(vs)
            kept.append(vs)
    s = time.perf_counter() - t0
    cpu = time.process_time() - c0
    # checked after the clock stops (as the TypeScript side checks its reads)
    sv = sum(int(vs.sum(dtype=np.int64)) for vs in kept)
    return {"s": s, "cpu": cpu, "count": count, "sum": sv}


def coo_read_all(msg):
    t0 = time.perf_counter()
    c0 = time.process_time()
    with h5py.File(msg["path"], "r") as f:
        fr, y, x, v = f["frame"][()], f["y"][()], f["x"][()], f["value"][()]
    s = time.perf_counter() - t0
    return {"s": s, "cpu": time.process_time() - c0, "count": len(v), "sum": int(v.sum(dtype=np.int64))}


def groups(msg):
    t0 = time.perf_counter()
    c0 = time.process_time()
    with h5py.File(msg["path"], "w") as f:
        for g in range(msg["groups"]):
            grp = f.create_group(f"g{g:03d}")
            for d in range(msg["per"]):
                grp.create_dataset(f"d{d:04d}", shape=(16,), dtype="<f4")
    return {"s": time.perf_counter() - t0, "cpu": time.process_time() - c0}


def one_group(msg):
    marks = msg["marks"]
    n = msg["n"]
    w = msg.get("window", 100)
    at = set(marks) | {m - w for m in marks}
    stamps = [0.0] * (n + 1)
    cpu = {}
    t0 = time.perf_counter()
    with h5py.File(msg["path"], "w") as f:
        grp = f.create_group("g")
        stamps[0] = time.perf_counter()
        cpu[0] = time.process_time()
        for d in range(n):
            grp.create_dataset(f"d{d:05d}", shape=(16,), dtype="<f4")
            stamps[d + 1] = time.perf_counter()
            if d + 1 in at:
                cpu[d + 1] = time.process_time()
    s = time.perf_counter() - t0
    return {"per": [(stamps[m] - stamps[m - w]) / w for m in marks], "cpu": [(cpu[m] - cpu[m - w]) / w for m in marks], "s": s}


def load_frames(msg):
    """Frames written by bench/seventh-wave.ts: raw little-endian uint16, shape (frames, h, w)."""
    state["dense"] = np.fromfile(msg["path"], dtype="<u2").reshape(msg["frames"], msg["h"], msg["w"])
    state["into"] = np.empty_like(state["dense"])
    return {"bytes": int(state["dense"].nbytes)}


def dense_write(msg):
    data = state["dense"]
    gz = {"compression": "gzip", "compression_opts": 1} if msg.get("gzip") else {}
    c0 = time.process_time()
    t0 = time.perf_counter()
    with h5py.File(msg["path"], "w") as f:
        ds = f.create_dataset("frames", shape=data.shape, dtype="<u2", chunks=tuple(msg["chunks"]), **gz)
        if msg.get("per_frame"):
            for i in range(data.shape[0]):
                ds[i] = data[i]
        else:
            ds[...] = data
    return {"s": time.perf_counter() - t0, "cpu": time.process_time() - c0}


def dense_read_into(msg):
    out = state["into"]
    c0 = time.process_time()
    t0 = time.perf_counter()
    with h5py.File(msg["path"], "r") as f:
        f["frames"].read_direct(out)
    s = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {"s": s, "cpu": cpu, "ok": bool(np.array_equal(out, state["dense"]))}


def windows(msg):
    w = np.fromfile(msg["windows"], dtype="<u4").reshape(-1, 3)
    n = msg["size"]
    total = 0
    t0 = time.perf_counter()
    with h5py.File(msg["path"], "r") as f:
        ds = f["frames"]
        for fr, y, x in w:
            total += int(ds[fr, y : y + n, x : x + n].sum(dtype=np.int64))
    return {"s": time.perf_counter() - t0, "sum": total}


def dense_create(msg):
    t0 = time.perf_counter()
    with h5py.File(msg["path"], "w", libver="latest") as f:
        grp = f.create_group("g")
        for d in range(msg["n"]):
            grp.create_dataset(f"d{d:05d}", shape=(16,), dtype="<f4")
    return {"s": time.perf_counter() - t0}


def open_by_name(msg):
    t0 = time.perf_counter()
    with h5py.File(msg["path"], "r") as f:
        for n in msg["names"]:
            if f["g/" + n].shape != (16,):
                raise ValueError(n)
    return {"s": time.perf_counter() - t0}


def main():
    cmds = {"load_points": load_points, "coo_write": coo_write, "coo_read_frames": coo_read_frames, "coo_read_all": coo_read_all, "groups": groups, "one_group": one_group, "load_frames": load_frames, "dense_write": dense_write, "dense_read_into": dense_read_into, "windows": windows, "dense_create": dense_create, "open_by_name": open_by_name}
    print(json.dumps({"ready": True, "h5py": h5py.__version__, "hdf5": h5py.version.hdf5_version}), flush=True)
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            out = cmds[msg["cmd"]](msg)
        except Exception as e:  # reported to the bench, which throws
            out = {"error": f"{type(e).__name__}: {e}"}
        if msg.get("path") and msg["cmd"] in ("groups", "one_group"):
            os.remove(msg["path"])
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
