"""spill_fork.py gen FILE | spill_fork.py FILE — what h5py reads of FILE (every object's name, NX_class-like attributes and
small dataset contents), printed by a parent that keeps the file open, then by forked children
(multiprocessing, fork) that open it again while the parent reads on, then by the parent again:
under h5turbo with the index spilled from its first byte, every view must equal stock's (the
children's index is a private copy of the parent's; neither may see the other's changes)."""
import hashlib
import multiprocessing as mp
import sys

import h5py
import numpy as np


def view(f):
    out = []

    def cb(name, obj):
        line = [name, type(obj).__name__]
        for k in sorted(obj.attrs.keys()):
            line.append(f"{k}={obj.attrs[k]!r}")
        if isinstance(obj, h5py.Dataset) and obj.size <= 64:
            line.append(repr(obj[()].tolist()))
        out.append(" ".join(line))

    f.visititems(cb)
    return "\n".join(out)


def child(path, order):
    # A different order of reads than the parent's: the child's index learns on its own.
    with h5py.File(path, "r") as f:
        names = sorted(f.keys(), reverse=order)
        parts = [view(f[n]) if isinstance(f[n], h5py.Group) else n for n in names]
        return hashlib.sha256((view(f) + "|".join(parts)).encode()).hexdigest()


def gen(path):
    # 40 NXentry-like groups of 60 NXlog-like groups, each with a `value` (with `units`) and a `time`.
    with h5py.File(path, "w", track_order=True) as f:
        for e in range(40):
            g = f.create_group(f"entry{e}")
            g.attrs["NX_class"] = b"NXentry"
            for k in range(60):
                lg = g.create_group(f"log{k}")
                lg.attrs["NX_class"] = b"NXlog"
                v = lg.create_dataset("value", data=np.arange(k % 7 + 1, dtype="f8") * e)
                v.attrs["units"] = b"K"
                lg.create_dataset("time", data=np.arange(3, dtype="i4") + k)


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
        return
    path = sys.argv[1]
    f = h5py.File(path, "r")
    first = view(f)
    ctx = mp.get_context("fork")
    with ctx.Pool(2) as pool:
        res = pool.starmap_async(child, [(path, False), (path, True)])
        again = view(f)  # (the parent reads on while the children run)
        digests = res.get(timeout=240)
    f.close()
    print(hashlib.sha256(first.encode()).hexdigest(), hashlib.sha256(again.encode()).hexdigest())
    for d in digests:
        print(d)


if __name__ == "__main__":
    main()
