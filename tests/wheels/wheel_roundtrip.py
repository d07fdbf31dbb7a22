"""wheel_roundtrip.py — what an h5py program does, run in a venv of PyPI wheels (h5py bundling its
own HDF5), once with h5turbo active and once without; wheel_roundtrip.sh compares the two.

  write FILE [--hdf5plugin]   groups, attributes, chunked datasets filtered with shuffle+DEFLATE+
                              fletcher32 (the pipeline's), Blosc (32001: ours from the plugin path,
                              or hdf5plugin's with --hdf5plugin), contiguous ones, a resized one
  dump FILE [--hdf5plugin]    one line per object: name, kind, dtype, shape, filters, attributes,
                              and a digest of the data read whole, in slices, by read_direct into
                              float32 and point-wise
  blosc-avail                 prints whether filter 32001 is available without hdf5plugin"""
import hashlib
import sys

import numpy as np

mode, args = sys.argv[1], sys.argv[2:]
if "--hdf5plugin" in args:
    import hdf5plugin  # noqa: F401  (registers hdf5plugin's Blosc as filter 32001)
import h5py

BLOSC = 32001


def write(path):
    rng = np.random.default_rng(7)
    with h5py.File(path, "w") as f:
        f.attrs["title"] = "wheel round trip"
        for e in range(3):
            g = f.create_group(f"entry{e}/logs")
            g.attrs["NX_class"] = "NXcollection"
            for k in range(4):
                lg = g.create_group(f"log{k}")
                lg.attrs["NX_class"] = "NXlog"
                lg["value"] = np.arange(k * 10, dtype="f8") * e
                lg["time"] = np.arange(k * 10, dtype="i8")
        frames = (rng.poisson(30, size=(64, 128, 128))).astype("u2")
        f.create_dataset("detector/data", data=frames, chunks=(1, 128, 128), compression="gzip",
                         compression_opts=1, shuffle=True, fletcher32=True)
        f.create_dataset("detector/mask", data=(frames > 40).astype("u1"), chunks=(8, 128, 128),
                         compression="gzip", shuffle=True)
        # Blosc, LZ4 level 5 with byte shuffle: cd_values as hdf5-blosc documents them.
        f.create_dataset("blosc/f4", data=rng.standard_normal((32, 256, 64)).astype("f4"),
                         chunks=(4, 256, 64), compression=BLOSC, compression_opts=(0, 0, 0, 0, 5, 1, 1))
        f.create_dataset("plain/contig", data=np.arange(50000, dtype="i4"))
        f.create_dataset("plain/small", data=np.arange(10, dtype="i2"))
        d = f.create_dataset("grow", shape=(0, 64), maxshape=(None, 64), chunks=(16, 64), dtype="f8",
                             compression="gzip")
        for i in range(5):
            d.resize((i + 1) * 16, axis=0)
            d[i * 16:(i + 1) * 16] = rng.standard_normal((16, 64))
        f["detector/link"] = h5py.SoftLink("/detector/data")


def digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def dump(path):
    lines = []
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            attrs = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in sorted(obj.attrs.items())}
            if isinstance(obj, h5py.Group):
                lines.append(f"group {name} {attrs} members={sorted(obj.keys())}")
                return
            dcpl = obj.id.get_create_plist()
            filters = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
            parts = [f"dset {name} {obj.dtype} {obj.shape} chunks={obj.chunks} filters={filters} {attrs}",
                     "all=" + digest(obj[()])]
            if obj.ndim >= 1 and obj.shape[0] > 2:
                parts.append("slice=" + digest(obj[1:obj.shape[0] - 1]))
                parts.append("stride=" + digest(obj[::3]))
                idx = np.array(sorted({0, obj.shape[0] // 2, obj.shape[0] - 1}))
                parts.append("fancy=" + digest(obj[idx]))
                if obj.dtype.kind in "iuf":
                    out = np.empty(obj.shape, dtype="f4")
                    obj.read_direct(out)
                    parts.append("f4=" + digest(out))
            lines.append(" ".join(parts))
        lines.append(f"root {sorted(f.keys())} {dict(f.attrs)}")
        f.visititems(visit)
        lines.append("link " + str(f.get("detector/link", getlink=True).path))
    print("\n".join(lines))


if mode == "write":
    write(args[0])
elif mode == "dump":
    dump(args[0])
elif mode == "blosc-avail":
    print("blosc available" if h5py.h5z.filter_avail(BLOSC) else "blosc missing")
else:
    sys.exit(f"unknown mode {mode}")
