"""netcdf_walk.py — the index under netCDF readers, stock HDF5 vs h5turbo's first open (no sidecar) and
second open (its sidecar), in one run: a file of GROUPS groups of 50 variables each (every variable
with six attributes, as CF files carry), opened and walked as a netCDF reader does: every group's
variables, their attribute names, `units` and shape. READER netCDF4 (the default: netCDF-C through
the netCDF4 wheel, its own HDF5 2.2.0) asks H5Aexists of attributes most objects lack, reads every
attribute through H5Aiterate and H5Aopen, asks every variable's creation and access property lists
and reads its dimension scales' reference lists (DIMENSION_LIST); READER h5netcdf (on h5py, the one
xarray's h5netcdf engine uses) dereferences those lists and names every scale it reaches with
H5Iget_name, which native answers by searching the file; READER xarray opens the file as a tree
(`xarray.open_datatree`, engine netcdf4) and loads every variable: xarray asks each variable's
filters, and netCDF-C then asks HDF5 whether the zstd and bzip2 filters are available, which
HDF5 answers by searching the plugin folder (h5turbo's, under h5turbo) every time.
Usage: python netcdf_walk.py PLUGIN_DIR [GROUPS [ROUNDS [READER]]] (60, 7, netCDF4; or h5netcdf,
xarray). Each load runs in a fresh process, the modes taking turns, ROUNDS rounds; prints the
median CPU seconds of open-walk-close and the ratios stock/first and stock/second, and checks that
every mode saw the same values."""
import os
import sys

import turns

VARS = 50


def make(path, groups):
    import netCDF4

    groups = int(groups)
    import numpy as np

    with netCDF4.Dataset(path, "w") as ds:
        for gi in range(groups):
            g = ds.createGroup(f"run{gi:02d}")
            g.createDimension("time", 100)
            g.createDimension("x", 10)
            g.setncattr("source", "model run")
            g.setncattr("run", gi)
            for vi in range(VARS):
                v = g.createVariable(f"var{vi:03d}", "f4", ("time", "x"))
                v.units = "K"
                v.long_name = f"variable {vi}"
                v.valid_min = 0.0
                v.valid_max = 400.0
                v.standard_name = "air_temperature"
                v.cell_methods = "time: mean"
                v[:] = np.full((100, 10), vi, "f4")


def load(path, reader):
    """One open-walk-close in this process: prints CPU seconds and what it saw."""
    import time

    acc = 0.0
    if reader == "h5netcdf":
        import h5netcdf

        t0 = time.process_time()
        with h5netcdf.File(path, "r") as ds:
            for g in ds.groups.values():
                for v in g.variables.values():
                    acc += len(v.attrs) + len(v.attrs["units"]) + v.shape[0] + float(v.attrs["valid_max"])
                    acc += len(v.dimensions)
    elif reader == "xarray":
        import xarray

        t0 = time.process_time()
        with xarray.open_datatree(path, engine="netcdf4") as tree:
            for node in tree.subtree:
                for v in node.ds.data_vars.values():
                    acc += float(v.values.sum()) + len(v.attrs) + len(v.attrs["units"]) + float(v.attrs["valid_max"])
    else:
        import netCDF4

        t0 = time.process_time()
        with netCDF4.Dataset(path) as ds:
            for g in ds.groups.values():
                for v in g.variables.values():
                    acc += len(v.ncattrs()) + len(v.units) + v.shape[0] + float(v.valid_max)
    print(f"{time.process_time() - t0:.6f} {acc}")


def main():
    plugins = os.path.abspath(sys.argv[1])
    groups = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    reader = sys.argv[4] if len(sys.argv) > 4 else "netCDF4"
    with turns.made_file(__file__, "walk.nc", groups) as (tmp, path):
        med = turns.medians(__file__, [path, reader], tmp, plugins, rounds)
        print(f"{reader} walk, {groups} groups x {VARS} variables, medians of {rounds} (CPU s):")
        print(f"  stock {med['stock']:.3f}  first open {med['first']:.3f} ({med['stock'] / med['first']:.2f}x)"
              f"  second open {med['second']:.3f} ({med['stock'] / med['second']:.2f}x)")


if __name__ == "__main__":
    turns.dispatch(make, load, main)
