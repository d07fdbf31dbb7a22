"""nexus_walk.py — example: an unmodified h5py script that walks a NeXus-style file and prints the
NX_class of every group. Run it stock, then with h5turbo active, e.g.
    build/bin/h5turbo run -- .venv/bin/python examples/nexus_walk.py FILE.h5
(h5py must be built against the same HDF5 as the plugins: see README, Troubleshooting)."""
import sys

import h5py


def main(path):
    classes = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Group):
            nx = obj.attrs.get("NX_class", b"")
            nx = nx.decode() if isinstance(nx, bytes) else str(nx)
            classes[nx] = classes.get(nx, 0) + 1

    with h5py.File(path, "r") as f:
        f.visititems(visit)
        top = sorted(f.keys())
    for nx, n in sorted(classes.items()):
        print(f"{nx or '(none)'}: {n} groups")
    print("top-level:", ", ".join(top))


if __name__ == "__main__":
    main(sys.argv[1])
