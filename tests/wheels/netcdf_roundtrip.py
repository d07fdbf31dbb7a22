"""netcdf_roundtrip.py — what a netCDF4 program does (netCDF4's wheel, its own libnetcdf and HDF5
2.2), for netcdf_roundtrip.sh to run with and without h5turbo and compare.

  write FILE   dimensions (one unlimited), compressed chunked variables (zlib+shuffle, big enough
               for the pipeline), attributes, a group, a variable appended to in steps
  dump FILE    one line per variable and attribute, with digests of whole and sliced reads"""
import hashlib
import sys

import netCDF4
import numpy as np


def write(path):
    rng = np.random.default_rng(3)
    with netCDF4.Dataset(path, "w") as d:
        d.title = "netCDF4 round trip"
        d.createDimension("time", None)
        d.createDimension("y", 128)
        d.createDimension("x", 256)
        t = d.createVariable("t", "f4", ("time", "y", "x"), zlib=True, complevel=1, shuffle=True,
                             chunksizes=(4, 128, 256))
        t.units = "K"
        for k in range(4):
            t[k * 8:(k + 1) * 8] = rng.standard_normal((8, 128, 256)).astype("f4")
        q = d.createVariable("q", "u2", ("y", "x"), zlib=True, complevel=4, chunksizes=(32, 256))
        q[:] = rng.integers(0, 4000, size=(128, 256), dtype="u2")
        g = d.createGroup("instrument")
        g.serial = "A-17"
        g.createDimension("n", 1000)
        g.createVariable("counts", "i8", ("n",))[:] = np.arange(1000)


def digest(a):
    return hashlib.sha256(np.ascontiguousarray(np.ma.getdata(a)).tobytes()).hexdigest()[:16]


def dump(path):
    out = []
    with netCDF4.Dataset(path) as d:
        def walk(g, prefix):
            out.append(f"group {prefix or '/'} dims={[(n, len(x)) for n, x in g.dimensions.items()]} "
                       f"attrs={[(a, str(g.getncattr(a))) for a in g.ncattrs()]}")
            for name, v in g.variables.items():
                line = (f"var {prefix}/{name} {v.dtype} {v.shape} {v.filters()} {v.chunking()} "
                        f"attrs={[(a, str(v.getncattr(a))) for a in v.ncattrs()]} all={digest(v[:])}")
                if v.ndim >= 1 and v.shape[0] > 4:
                    line += f" slice={digest(v[2:v.shape[0] - 1])} stride={digest(v[::3])}"
                out.append(line)
            for name, sub in g.groups.items():
                walk(sub, f"{prefix}/{name}")
        walk(d, "")
    print("\n".join(out))


{"write": write, "dump": dump}[sys.argv[1]](sys.argv[2])
