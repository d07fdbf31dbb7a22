# pipe_xfer.py write FILE | read FILE — h5py's reads with a type conversion (what a processing
# step does with integer detector frames): read_direct into float32 and astype('f4'), and
# selections that cut chunks (a region of interest, every 4th frame, a mask), of a
# gzip+shuffle(+fletcher32) dataset; prints one hash per read. pipe_xfer.sh runs it stock and
# under h5turbo and compares.
import hashlib
import sys

import h5py
import numpy as np


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "write":
        rng = np.random.default_rng(7)
        with h5py.File(path, "w") as f:
            frames = rng.integers(0, 70000, size=(40, 64, 48)).astype(np.uint32)
            frames[0, 0, :8] = [0, 1, 2**24 + 1, 2**32 - 1, 2**31, 16777217, 16777219, 65535]
            f.create_dataset("u32", data=frames, chunks=(1, 64, 48), compression="gzip",
                             compression_opts=1, shuffle=True, fletcher32=True)
            f.create_dataset("i16", data=(frames.astype(np.int64) - 35000).astype(np.int16),
                             chunks=(4, 32, 48), compression="gzip", shuffle=True)
        return
    with h5py.File(path, "r") as f:
        for name in ("u32", "i16"):
            ds = f[name]
            out = np.empty(ds.shape, dtype=np.float32)
            ds.read_direct(out)
            print(name, "read_direct f4", hashlib.sha1(out.tobytes()).hexdigest())
            a = ds.astype("f4")[...]
            print(name, "astype f4", hashlib.sha1(a.tobytes()).hexdigest())
            b = ds.astype("f8")[2:30]
            print(name, "astype f8 [2:30]", hashlib.sha1(b.tobytes()).hexdigest())
            out = np.empty((10,) + ds.shape[1:], dtype=np.float32)
            ds.read_direct(out, np.s_[5:15], np.s_[0:10])
            print(name, "read_direct f4 [5:15]", hashlib.sha1(out.tobytes()).hexdigest())
            for label, sel in (("roi [:, 0:16, :]", np.s_[:, 0:16, :]), ("frames [::4]", np.s_[::4]),
                               ("strided [1::4, ::3, 5:40]", np.s_[1::4, ::3, 5:40])):
                print(name, label, hashlib.sha1(ds[sel].tobytes()).hexdigest())
                print(name, label, "f4", hashlib.sha1(ds.astype("f4")[sel].tobytes()).hexdigest())
            mask = np.zeros(ds.shape, dtype=bool)
            mask[3, 10:20, 7] = True
            mask[17, 5, :] = True
            mask[33, 40:, 40:] = True
            print(name, "mask", hashlib.sha1(ds[mask].tobytes()).hexdigest())


main()
