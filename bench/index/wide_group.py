"""wide_group.py — the index under programs that open a few members of a wide group, stock HDF5 vs
h5turbo's first run (no sidecar) and second run (its sidecar), in one run: a file whose group
"entries" holds NLINKS small datasets (h5py's default symbol-table group, or with FORMAT latest a
group of the 1.8 format, dense), of which the load reads K spread across it by name
(`g[name][()]`, h5py), K in 10, 100 and 1,000, and K = 100 with as many names the group lacks
asked (`name in g`): the look-ups native makes until a group is worth listing, kept in the
group's partial list (index.c's tb_ix_lookup_link), where a first look-up used to list all of
them.
Usage: python wide_group.py PLUGIN_DIR [ROUNDS [NLINKS [FORMAT]]] (7, 20000, earliest). Each load is
a fresh process, the modes taking turns, ROUNDS rounds; prints the median CPU seconds of
open-reads-close and the ratios stock/first and stock/second per K, and checks that every mode saw
the same values."""
import os
import sys
import time

import turns


def make(path, nlinks, fmt):
    import h5py
    import numpy as np

    with h5py.File(path, "w", libver=fmt) as f:
        g = f.create_group("entries")
        for i in range(int(nlinks)):
            g.create_dataset(f"d{i:06d}", data=np.arange(4) + i)


def load(path, nlinks, k, absent=0):
    import h5py

    nlinks, k, absent = int(nlinks), int(k), int(absent)
    t0 = time.process_time()
    acc = 0
    with h5py.File(path, "r") as f:
        g = f["entries"]
        for i in range(0, nlinks, nlinks // k):
            acc += int(g[f"d{i:06d}"][()].sum())
            if absent:
                acc += f"x{i:06d}" in g
    print(f"{time.process_time() - t0:.6f} {acc}")


def main():
    plugins = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    nlinks = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    fmt = sys.argv[4] if len(sys.argv) > 4 else "earliest"
    with turns.made_file(__file__, "wide.h5", nlinks, fmt) as (tmp, path):
        print(f"h5py reads of K members of a group of {nlinks} links ({fmt} format), medians of {rounds} (CPU s):")
        for k, absent in ((10, 0), (100, 0), (1000, 0), (100, 1)):
            sub = os.path.join(tmp, f"k{k}-{absent}")
            os.mkdir(sub)
            med = turns.medians(__file__, [path, str(nlinks), str(k), str(absent)], sub, plugins, rounds)
            print(f"  K={k:<5d}{' and as many names it lacks' if absent else ''} stock {med['stock']:.4f}  first run {med['first']:.4f} ({med['stock'] / med['first']:.2f}x)"
                  f"  second run {med['second']:.4f} ({med['stock'] / med['second']:.2f}x)", flush=True)


if __name__ == "__main__":
    turns.dispatch(make, load, main)
