"""h5py_features.py make DIR | read DIR — h5py features no benchmark of ours takes: filters h5turbo
does not implement (LZF, which h5py registers in-process; scale-offset; bitshuffle, zstd and Blosc
with zstd from hdf5plugin), a virtual dataset over another file, external and soft links, direct
chunk writes and reads, creation-ordered groups and attributes, a log appended to in later opens
("a" mode), compound fields, unwritten chunks read as the fill value. `make` writes a.h5 (and b.h5,
the virtual dataset's sources and the external link's target); `read` prints one digest per item:
what is read whole, a strided box, converted to float32, and what h5py reports of each creation
list. h5py_features.sh compares stock's lines with h5turbo's."""
import hashlib
import os
import sys
import zlib

import h5py
import hdf5plugin
import numpy as np

mode, d = sys.argv[1], sys.argv[2]
A, B = os.path.join(d, "a.h5"), os.path.join(d, "b.h5")
rng = np.random.default_rng(7)
frames = rng.poisson(30, (40, 64, 96)).astype("u2")


def H(x):
    return hashlib.sha1(np.ascontiguousarray(x).tobytes()).hexdigest()[:12]


if mode == "make":
    with h5py.File(B, "w") as f:
        for i in range(4):
            f.create_dataset(f"src{i}", data=frames[i * 10:(i + 1) * 10], chunks=(2, 64, 96), compression="gzip")
        f["target"] = np.arange(17.0)
    with h5py.File(A, "w", track_order=True) as f:
        f.create_dataset("lzf", data=frames, chunks=(4, 64, 96), compression="lzf", shuffle=True)
        f.create_dataset("so", data=frames, chunks=(4, 64, 96), scaleoffset=0)
        f.create_dataset("sof", data=frames.astype("f4") / 7, chunks=(4, 64, 96), scaleoffset=2)
        f.create_dataset("bshuf", data=frames, chunks=(4, 64, 96), **hdf5plugin.Bitshuffle())
        f.create_dataset("zstd", data=frames, chunks=(4, 64, 96), **hdf5plugin.Zstd())
        f.create_dataset("blosc_zstd", data=frames, chunks=(4, 64, 96),
                         **hdf5plugin.Blosc(cname="zstd", clevel=3, shuffle=hdf5plugin.Blosc.BITSHUFFLE))
        lay = h5py.VirtualLayout(shape=(40, 64, 96), dtype="u2")
        for i in range(4):
            lay[i * 10:(i + 1) * 10] = h5py.VirtualSource("b.h5", f"src{i}", shape=(10, 64, 96))
        f.create_virtual_dataset("vds", lay, fillvalue=7)
        f["ext"] = h5py.ExternalLink("b.h5", "/")
        f["soft"] = h5py.SoftLink("/lzf")
        g = f.create_group("ordered", track_order=True)
        for n in ["zeta", "alpha", "mid", "beta"]:
            g.create_dataset(n, data=np.arange(3))
            g.attrs[n] = n
        f.create_dataset("direct", shape=(8, 64, 96), dtype="u2", chunks=(1, 64, 96), compression="gzip", shuffle=True)
        f.create_dataset("log", shape=(0, 3), maxshape=(None, 3), chunks=(16, 3), dtype="f8", compression="gzip",
                         fillvalue=-1)
        ct = np.dtype([("t", "f8"), ("v", "i4"), ("name", "S8")])
        rec = np.zeros(50, ct)
        rec["t"], rec["v"], rec["name"] = np.arange(50) / 3, np.arange(50) * 7, b"abc"
        f.create_dataset("table", data=rec, chunks=(10,), compression="gzip")
        fill = f.create_dataset("fill", shape=(20, 64, 96), dtype="i4", chunks=(4, 64, 96), compression="gzip",
                                fillvalue=-5)
        fill[3:9] = 11
    # Direct chunk writes (shuffled, then DEFLATE: the dataset's own filters), then appends in
    # later opens, as loggers do.
    with h5py.File(A, "r+") as f:
        ds = f["direct"]
        for i in range(8):
            planes = frames[i].reshape(-1).view("u1").reshape(-1, 2).T.copy().tobytes()
            ds.id.write_direct_chunk((i, 0, 0), zlib.compress(planes, 3), filter_mask=0)
    for k in range(5):
        with h5py.File(A, "a") as f:
            lg = f["log"]
            n = lg.shape[0]
            lg.resize((n + 7, 3))
            lg[n:] = np.arange(21.0).reshape(7, 3) + k
    sys.exit(0)
out = []
with h5py.File(A, "r") as f:
    names = []
    f.visit(names.append)
    out.append(("visit", ",".join(names)))
    out.append(("ordered", ",".join(f["ordered"].keys()) + "|" + ",".join(f["ordered"].attrs.keys())))
    for n in ["lzf", "so", "sof", "bshuf", "zstd", "blosc_zstd", "vds", "direct", "fill", "soft"]:
        ds = f[n]
        out.append((n, H(ds[...])))
        out.append((n + "[::3,5:40,::2]", H(ds[::3, 5:40, ::2])))
        out.append((n + " f4", H(ds.astype("f4")[2:9])))
        dcpl = ds.id.get_create_plist()
        # (id, flags, values; not scale-offset's values, whose end varies from one stock run to the
        # next: h5py reads them past what HDF5 sets)
        filters = [dcpl.get_filter(i)[:2 if dcpl.get_filter(i)[0] == h5py.h5z.FILTER_SCALEOFFSET else 3]
                   for i in range(dcpl.get_nfilters())]
        out.append((n + " dcpl", repr((ds.compression, ds.compression_opts, ds.shuffle, ds.scaleoffset, ds.chunks,
                                       ds.fillvalue, ds.is_virtual, filters))))
    out.append(("vds sources", repr([(s.file_name, s.dset_name) for s in f["vds"].virtual_sources()])))
    out.append(("ext", H(f["ext/target"][...]) + " " + H(f["ext/src2"][3:7])))
    out.append(("direct raw", H(np.frombuffer(f["direct"].id.read_direct_chunk((3, 0, 0))[1], "u1"))))
    out.append(("log", H(f["log"][...]) + repr(f["log"].shape)))
    t = f["table"]
    out.append(("table", H(t[...]) + " " + H(t["v"]) + " " + H(t.fields(["t", "name"])[10:20])))
    out.append(("attrs", repr(list(f["ordered"].attrs.items()))))
# (HDF5 counts every transient datatype the application holds with H5F_OBJ_ALL: h5py's own, and
# before the index held its types as the library's, the index's too)
out.append(("open objects at the end", repr(h5py.h5f.get_obj_count(h5py.h5f.OBJ_ALL, h5py.h5f.OBJ_ALL))))
for k, v in out:
    print(k, v)
