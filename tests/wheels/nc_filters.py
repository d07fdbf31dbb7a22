"""nc_filters.py write|read FILE [--enable] — netCDF4's wheel with the filter plugins it brings
(zstd, bzip2, Blosc): `write` makes a variable with each, `read` prints which filters netCDF-C finds
and a digest of every variable. --enable turns h5turbo on from inside (h5turbo.enable()) first."""
import hashlib
import sys

if "--enable" in sys.argv:
    import h5turbo

    h5turbo.enable()
import netCDF4
import numpy as np

mode, path = sys.argv[1], sys.argv[2]
data = (np.arange(200 * 300) % 977).astype("f4").reshape(200, 300)
if mode == "write":
    with netCDF4.Dataset(path, "w") as n:
        n.createDimension("r", 200)
        n.createDimension("c", 300)
        for comp in ("zstd", "bzip2", "blosc_lz4", "zlib"):
            n.createVariable(comp, "f4", ("r", "c"), compression=comp, chunksizes=(50, 300))[:] = data
else:
    with netCDF4.Dataset(path) as n:
        print("filters: zstd %s bzip2 %s blosc %s" % (n.has_zstd_filter(), n.has_bzip2_filter(), n.has_blosc_filter()))
        for name, v in sorted(n.variables.items()):
            a = np.ma.getdata(v[:])
            print(name, v.filters(), hashlib.sha256(a.tobytes()).hexdigest()[:16], bool((a == data).all()))
