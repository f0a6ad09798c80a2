#!/usr/bin/python3
"""h5py (HDF5 1.10, global-heap variable-length strings) side of bench/vl.ts.

Usage: vl_h5py.py CMD H5 [DATA] -> one JSON line {"s": seconds, "cpu": CPU seconds} (HDF5 calls only:
perf_counter and process_time).
  write H5 DATA   DATA = the bench's strings: u32 count, u32 byte lengths[count], then the UTF-8 bytes.
                  Creates H5 with one dataset 's' of h5py.string_dtype() holding them (file create + close timed).
  read H5         reads 's' whole, decoded to str (asstr) -> {"s", "n"}
  random H5 IDX   IDX = u32 count, u32 indices: reads d[i] one string at a time, decoded -> {"s", "n"}
"""
import json
import sys
import time

import h5py
import numpy as np


def load_strings(path):
    raw = np.fromfile(path, dtype=np.uint8)
    n = int(raw[:4].view("<u4")[0])
    lens = raw[4 : 4 + 4 * n].view("<u4").astype(np.int64)
    ends = np.cumsum(lens)
    blob = raw[4 + 4 * n :].tobytes()
    starts = ends - lens
    return [blob[a:b].decode("utf-8") for a, b in zip(starts.tolist(), ends.tolist())]


def main():
    cmd, h5 = sys.argv[1], sys.argv[2]
    if cmd == "write":
        strings = np.array(load_strings(sys.argv[3]), dtype=object)
        t, c = time.perf_counter(), time.process_time()
        with h5py.File(h5, "w") as f:
            f.create_dataset("s", data=strings, dtype=h5py.string_dtype())
        print(json.dumps({"s": time.perf_counter() - t, "cpu": time.process_time() - c}))
    elif cmd == "read":
        t, c = time.perf_counter(), time.process_time()
        with h5py.File(h5, "r") as f:
            v = f["s"].asstr()[()]
        s, cpu = time.perf_counter() - t, time.process_time() - c
        print(json.dumps({"s": s, "cpu": cpu, "n": len(v), "first": v[0], "last": v[-1]}))
    elif cmd == "random":
        raw = np.fromfile(sys.argv[3], dtype=np.uint8)
        n = int(raw[:4].view("<u4")[0])
        idx = raw[4 : 4 + 4 * n].view("<u4").tolist()
        t, c = time.perf_counter(), time.process_time()
        out = []
        with h5py.File(h5, "r") as f:
            d = f["s"].asstr()
            for i in idx:
                out.append(d[i])
        s, cpu = time.perf_counter() - t, time.process_time() - c
        print(json.dumps({"s": s, "cpu": cpu, "n": len(out), "first": out[0]}))
    else:
        raise SystemExit(f"unknown command {cmd}")


main()
