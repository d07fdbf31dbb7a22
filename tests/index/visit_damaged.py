"""visit_damaged.py — h5py's visits of a file with a damaged group deep in its tree: `make FILE`
writes a small tree with h5py and overwrites the signature of the B-tree node of group a/e (the
group's header stays readable, its links and its metadata sizes do not); `visit FILE MODE` prints
what h5py's visititems ("items"), visit ("plain") or visit_links ("links") report before the error,
and the error. Native reports a, a/b, ... until it reaches a/e (the link visit reports a/e itself),
then fails; under h5turbo the index walks the same way and goes on natively from the group it
cannot load, so that the application gets the same objects, in the same order, and the same error."""
import sys

import h5py
import numpy as np


def make(path):
    with h5py.File(path, "w") as f:
        a = f.create_group("a")
        for n in ("b", "c"):
            g = a.create_group(n)
            for k in range(3):
                g[f"d{k}"] = np.arange(3)
        e = a.create_group("e")
        for k in range(3):
            e[f"x{k}"] = np.arange(2)
        f.create_group("z")["w"] = np.arange(1)
    data = bytearray(open(path, "rb").read())
    # (the groups' B-tree nodes in the order they were made: a, b, c, e, z; the root's comes first)
    trees = [i for i in range(len(data) - 3) if data[i:i + 4] == b"TREE"]
    assert len(trees) == 6, trees
    data[trees[4]:trees[4] + 4] = b"XXXX"
    open(path, "wb").write(data)


def visit(path, mode):
    out = []
    try:
        with h5py.File(path, "r") as f:
            if mode == "items":
                f.visititems(lambda n, o: out.append(f"{n} {type(o).__name__}"))
            elif mode == "links":
                f.visit_links(lambda n: out.append(n))
            else:
                f.visit(lambda n: out.append(n))
    except Exception as e:  # (h5py's message is the top of HDF5's error stack)
        out.append(f"error {type(e).__name__}: {e}")
    print("\n".join(out))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        visit(sys.argv[2], sys.argv[3])
