"""reopen.py FILE PATHS MOD_OTHER MOD_SELF — h5py used as nexusformat uses it (its NXFile opens
the file around every access and closes it again): every listed object of FILE read in an open of
its own; then two copies of the same tree read that way, changed (MOD_OTHER by another process,
MOD_SELF by this one, opened "r+"), and read again. Prints what it saw; reopen.sh runs it under
stock HDF5 and under h5turbo, whose outputs must be identical."""
import subprocess
import sys

import h5py


def show(path, p):
    with h5py.File(path, "r") as f:
        o = f.get(p)
        if o is None:
            print("G", p, None)
            return
        attrs = []
        for k in sorted(o.attrs.keys()):
            try:
                v = o.attrs[k]
                attrs.append((k, repr(v.tolist() if hasattr(v, "tolist") else v)[:80]))
            except Exception as e:  # (a type h5py cannot read)
                attrs.append((k, type(e).__name__))
        print("G", p, type(o).__name__, attrs)
        if isinstance(o, h5py.Group):
            print("K", p, list(o.keys()))
        elif isinstance(o, h5py.Dataset):
            print("S", p, o.shape, o.dtype.str, o.chunks, o.compression)
            if o.shape is not None and o.size <= 64 and not o.dtype.hasobject:
                try:
                    print("D", p, o[()].tobytes().hex()[:160])
                except Exception as e:  # (a type h5py cannot read)
                    print("D", p, type(e).__name__)


def walk(path, paths):
    for p in paths:
        show(path, p)
    with h5py.File(path, "r") as f:
        names = []
        f.visit(names.append)
        print("V", path.rsplit("/", 1)[-1], len(names), names[:20])


def change(path):
    with h5py.File(path, "r+") as f:
        f.create_group("added").attrs["by"] = "reopen.py"
        f.attrs["changed"] = 1
        first = next((k for k in f if isinstance(f[k], h5py.Group)), None)
        if first is not None:
            f[first].attrs["changed"] = 2


if sys.argv[1] == "--change":
    change(sys.argv[2])
    sys.exit(0)
tree, paths_file, mod_other, mod_self = sys.argv[1:5]
paths = ["/"] + [line[2:].rstrip("\n") for line in open(paths_file)] + ["/added"]
walk(tree, paths)
walk(tree, paths[::-1])
# A copy read (its index kept between the opens), changed by another process, read again.
walk(mod_other, paths)
subprocess.run([sys.executable, __file__, "--change", mod_other], check=True)
walk(mod_other, paths)
# A copy read, changed by this process, read again.
walk(mod_self, paths)
change(mod_self)
walk(mod_self, paths)
