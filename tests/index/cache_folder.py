"""cache_folder.py TMP — one h5py process whose sidecar cache folder changes under it: removed,
moved to another XDG_CACHE_HOME, made writable by its group. h5turbo keeps the folder it found
open between files; each step prints where the sidecars are, which cache_folder.sh compares with
where they must be (a kept folder must never outlive what it stood for)."""
import glob
import os
import shutil
import sys

import h5py

tmp = sys.argv[1]
files = sorted(glob.glob(os.path.join(tmp, "f*.h5")))
c1, c2, home = (os.path.join(tmp, n) for n in ("c1", "c2", "home"))


def walk(i):
    with h5py.File(files[i], "r") as f:
        f.visit(lambda name: None)


def count(cache):
    return len(glob.glob(os.path.join(cache, "h5turbo", "*.h5turbo-index")))


os.environ["HOME"] = home
os.environ["XDG_CACHE_HOME"] = c1
walk(0)
print("first file:", count(c1))
shutil.rmtree(c1)
walk(1)
print("folder removed, second file:", count(c1))
os.environ["XDG_CACHE_HOME"] = c2
walk(2)
print("XDG_CACHE_HOME changed, third file:", count(c1), count(c2))
os.chmod(os.path.join(c2, "h5turbo"), 0o770)
walk(3)
print("folder group-writable, fourth file:", count(c2), count(os.path.join(home, ".cache")))
