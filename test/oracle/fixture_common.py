"""Helpers shared by the fixture generators make_fixtures.py and make_chunked_fixtures.py.

Import after `sys.dont_write_bytecode = True` and the oracle directory on sys.path, as h5py_dump.
"""
import hashlib
import json
import os
import sys

import h5py

import h5py_dump

HERE = os.path.dirname(os.path.abspath(__file__))


def stamp(script):
    """The manifest stamp of generator `script`: sha256 of it, h5py_dump.py, this module and the h5py/HDF5 versions
    (computed the same way by test/oracle/fixtures.ts, which regenerates the fixtures when it changes)."""
    h = hashlib.sha256()
    for name in (script, 'h5py_dump.py', 'fixture_common.py'):
        with open(os.path.join(HERE, name), 'rb') as fh:
            h.update(fh.read())
    h.update(h5py.__version__.encode())
    h.update(h5py.version.hdf5_version.encode())
    return h.hexdigest()


def output_dir(argv, script):
    """OUTDIR, the one argument of `script OUTDIR` (created if missing); None after printing the usage."""
    if len(argv) != 2:
        sys.stderr.write('usage: %s OUTDIR\n' % script)
        return None
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    return outdir


def write_dump(path, libver):
    """Writes PATH.json: h5py_dump.py's description of the file at `path`, with its libver."""
    doc = h5py_dump.dump_file(path)
    doc['libver'] = libver
    with open(path + '.json', 'w', encoding='utf-8') as fh:
        json.dump(doc, fh, ensure_ascii=False, allow_nan=False)


def write_manifest(outdir, script, entries):
    """Writes OUTDIR/manifest.json: {"stamp", "h5py", "hdf5", "files": entries}."""
    manifest = {'stamp': stamp(script), 'h5py': h5py.__version__, 'hdf5': h5py.version.hdf5_version, 'files': entries}
    with open(os.path.join(outdir, 'manifest.json'), 'w', encoding='utf-8') as fh:
        json.dump(manifest, fh, indent=1)
