"""two_libraries.py — one process with two HDF5 libraries, h5py's wheel (2.0.0) and netCDF4's
(2.2.0), each writing and reading a file, then both asking, in turns, which filters HDF5 finds
(each question of a filter a library lacks searches the plugin folder: h5turbo's plugin files are
asked their type and info again and again); prints a digest line per library and the answers."""
import hashlib
import os
import sys

import h5py
import netCDF4
import numpy as np

d = sys.argv[1]
a = np.random.default_rng(5).standard_normal((64, 4096)).astype("f4")
with h5py.File(f"{d}/h5py.h5", "w") as f:
    f.create_dataset("a", data=a, chunks=(8, 4096), compression="gzip", shuffle=True)
with h5py.File(f"{d}/h5py.h5") as f:
    print("h5py", h5py.version.hdf5_version, hashlib.sha256(f["a"][:].tobytes()).hexdigest()[:16])
with netCDF4.Dataset(f"{d}/nc.nc", "w") as n:
    n.createDimension("r", 64)
    n.createDimension("c", 4096)
    n.createVariable("a", "f4", ("r", "c"), zlib=True, chunksizes=(8, 4096))[:] = a
with netCDF4.Dataset(f"{d}/nc.nc") as n:
    print("netCDF4", netCDF4.__hdf5libversion__, hashlib.sha256(np.ma.getdata(n["a"][:]).tobytes()).hexdigest()[:16])
with netCDF4.Dataset(f"{d}/nc.nc") as n:
    turbo = bool(os.environ.get("HDF5_VOL_CONNECTOR"))  # (Blosc, 32001, is h5turbo's plugin)
    answers = set()
    for _ in range(25):
        # (netCDF4's own answers depend on whether its wheel's plugin folder is searched: asked, not
        # compared)
        n.has_zstd_filter(), n.has_bzip2_filter(), n.has_blosc_filter()
        answers.add((h5py.h5z.filter_avail(32015), h5py.h5z.filter_avail(32001) == turbo))
    print("h5py filters", sorted(answers))
