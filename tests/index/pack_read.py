"""pack_read.py DIR — one h5py process reading a little of each of many files, in name order (the
ChainReader pattern of issue #16): a dataset by path, whole, and an attribute of it; one line per
file. pack.sh compares what it prints with stock's and looks at where the sidecars went."""
import glob
import os
import sys

import h5py

for path in sorted(glob.glob(os.path.join(sys.argv[1], "t*.h5"))):
    with h5py.File(path, "r") as f:
        v = f["/particles/all/position/value"]
        print(os.path.basename(path), float(v[()].sum()), v.attrs["unit"].decode())
