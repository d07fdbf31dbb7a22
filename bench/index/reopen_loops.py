"""reopen_loops.py — the index under programs that open a file around every access and close it
again, stock HDF5 vs h5turbo's first run (no sidecar) and second run (its sidecar), in one run:
READER pandas reads each of 200 small tables of an HDFStore with `pd.read_hdf(path, key)` (PyTables
under pandas, its own HDF5 1.14.6; each call opens and closes the file); READER silx reads each of
1,000 small datasets with `silx.io.get_data("file::/path")` (h5py; each call opens and closes the
file). nexusformat's load does the same (bench/index loader k).
Usage: python reopen_loops.py PLUGIN_DIR [ROUNDS [READER]] (5, pandas). Each run is a fresh
process, the modes taking turns, ROUNDS rounds; prints the median CPU seconds of the loop and the
ratios stock/first and stock/second, and checks that every mode saw the same values."""
import os
import sys
import time

import turns

NTABLES, NGROUPS, NDSETS = 200, 50, 20


def make(path, reader):
    import numpy as np

    if reader == "pandas":
        import warnings

        import pandas as pd

        warnings.simplefilter("ignore")
        for i in range(NTABLES):
            df = pd.DataFrame({"a": np.arange(50.0) + i, "b": np.arange(50)})
            df.to_hdf(path, key=f"k{i:03d}", mode="a", format="table")
    else:
        import h5py

        with h5py.File(path, "w") as f:
            for g in range(NGROUPS):
                for d in range(NDSETS):
                    ds = f.create_dataset(f"g{g:02d}/d{d:02d}", data=np.arange(64.0) + g * d)
                    ds.attrs["units"] = "K"


def load(path, reader):
    acc = 0.0
    if reader == "pandas":
        import pandas as pd

        t0 = time.process_time()
        for i in range(NTABLES):
            acc += float(pd.read_hdf(path, f"k{i:03d}")["a"].sum())
    else:
        import silx.io

        t0 = time.process_time()
        for g in range(NGROUPS):
            for d in range(NDSETS):
                acc += float(silx.io.get_data(f"{path}::/g{g:02d}/d{d:02d}").sum())
    print(f"{time.process_time() - t0:.6f} {acc}")


def main():
    plugins = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    reader = sys.argv[3] if len(sys.argv) > 3 else "pandas"
    with turns.made_file(__file__, "store.h5", reader) as (tmp, path):
        med = turns.medians(__file__, [path, reader], tmp, plugins, rounds)
        n = NTABLES if reader == "pandas" else NGROUPS * NDSETS
        print(f"{reader}, {n} opens of one file, medians of {rounds} (CPU s):")
        print(f"  stock {med['stock']:.3f}  first run {med['first']:.3f} ({med['stock'] / med['first']:.2f}x)"
              f"  second run {med['second']:.3f} ({med['stock'] / med['second']:.2f}x)")


if __name__ == "__main__":
    turns.dispatch(make, load, main)
