"""h5py_reads.py — what an h5py NeXus loader asks of a file, and how many times HDF5 reads the data
file for it: `make FILE` writes a small NeXus-like tree with h5py (groups with NX_class, chunked
resizable and compressed datasets as h5py makes them, scalars, strings, attributes); `view FILE`
opens it, walks it and prints what it saw, then on stderr the reads of FILE from just before the
open to just after the close (bench/common's libtb_io_count.so preloaded, TB_IO_COUNT_FILE=FILE);
`units FILE` does the same for a loader that opens datasets by path and reads only the attributes it
needs, by name, then a group's members of either kind in turns; `frames FILE` for a trajectory
reader as MDAnalysis' H5MD reader is one: every frame read through new handles of its datasets
(`make-frames FILE` writes such a file); `wide FILE` for a program reading a few members of a
group of thousands of links of the 1.8 format, by name (`make-wide FILE`); `walk FILE` for h5py's
visititems and visit of the whole file, `search FILE` for a visititems that stops at the first
dataset; `descriptor FILE` for Mantid's NexusHDF5Descriptor walk (the 1.8 calls by index) and
`entries FILE` for napi5's (each entry's info by name, then the entry opened), through h5py's
low-level calls."""
import ctypes
import sys

import h5py
import numpy as np


def make(path, nentries=6, nlogs=8):
    with h5py.File(path, "w") as f:
        f.attrs["default"] = "entry0"
        for e in range(nentries):
            g = f.create_group(f"entry{e}")
            g.attrs["NX_class"] = "NXentry"
            g["title"] = f"run {e}"
            g["start_time"] = "2026-12-02T06:00:00"
            det = g.create_group("instrument/detector")
            det.attrs["NX_class"] = "NXdetector"
            det.create_dataset("pixel_id", data=np.arange(64, dtype="i4").reshape(8, 8), chunks=(4, 8),
                               compression="gzip", shuffle=True)
            det.create_dataset("distance", data=1.5 + e)
            det["distance"].attrs["units"] = "m"
            logs = g.create_group("logs")
            logs.attrs["NX_class"] = "NXcollection"
            for k in range(nlogs):
                lg = logs.create_group(f"log{k}")
                lg.attrs["NX_class"] = "NXlog"
                v = lg.create_dataset("value", data=np.linspace(0, k, 10), maxshape=(None,))
                v.attrs["units"] = "K"
                lg.create_dataset("time", data=np.arange(10, dtype="f8"), maxshape=(None,), chunks=(4,))
                lg["time"].attrs["start"] = "2026-12-02T06:00:00"


def reads_counter():
    me = ctypes.CDLL(None)
    io = getattr(me, "tb_bench_io_count", None)
    if io:
        io.restype = ctypes.c_long
        io.argtypes = [ctypes.c_int]
    return (lambda: io(0)) if io else (lambda: -1)


def view(path):
    count = reads_counter()
    before = count()
    out = []
    f = h5py.File(path, "r")
    out.append(f"keys {list(f.keys())} default={f.attrs.get('default')!r}")
    out.append(f"in {'entry0/logs' in f} {'entry0/nope' in f} {'entry1/logs/log3/value' in f}")

    def visit(name, obj):
        nx = obj.attrs.get("NX_class")
        line = f"{name} {type(obj).__name__} {nx!r} attrs={sorted(obj.attrs)}"
        if isinstance(obj, h5py.Dataset):
            line += f" shape={obj.shape} dtype={obj.dtype} chunks={obj.chunks} comp={obj.compression}"
            line += f" maxshape={obj.maxshape} units={obj.attrs.get('units')!r}"
            v = obj[()]
            line += f" value={v.tolist() if hasattr(v, 'tolist') else v!r}"
        out.append(line)

    f.visititems(visit)
    for e in f:
        g = f[e]
        for k in g["logs"]:
            lg = g["logs"][k]
            out.append(f"{e}/{k} {lg['value'][()].sum():.3f} {lg['time'][2:5]} {lg['value'].attrs['units']}")
        out.append(f"{e} {g['title'][()]!r} {g['instrument/detector/distance'][()]}")
    f.close()
    after = count()
    print("\n".join(out))
    print(f"reads {after - before}", file=sys.stderr)


def units(path):
    """A LoadMD-like loader: each log's datasets by path and only the attributes it needs, by name
    (never listed, never asked whether they exist), one it lacks among them."""
    count = reads_counter()
    before = count()
    out = []
    with h5py.File(path, "r") as f:
        for e in f:
            for k in f[e]["logs"]:
                v = f[f"{e}/logs/{k}/value"]
                t = f[f"{e}/logs/{k}/time"]
                try:
                    missing = v.attrs["offset"]
                except KeyError as err:
                    missing = f"KeyError {err}"
                out.append(f"{e}/{k} {v[()].sum():.3f} {v.attrs['units']} {t.attrs['start']} {missing}")
            out.append(f"{e} {f[e].attrs['NX_class']} {f[e + '/instrument/detector/distance'].attrs['units']}")
            # Members of a group taken in turns, a group then a dataset, by name from the group as
            # h5py's g[name] opens them (H5Oopen of what a first open does not know the kind of).
            g = f[e]
            for m in ("logs", "title", "instrument", "start_time", "instrument/detector/distance"):
                o = g[m]
                what = f"{o.shape} {o.dtype}" if isinstance(o, h5py.Dataset) else f"{len(o)} members"
                out.append(f"{o.name} {type(o).__name__} {what} {o.parent.name}")
    after = count()
    print("\n".join(out))
    print(f"reads {after - before}", file=sys.stderr)


def make_frames(path, nframes=48, natoms=200):
    with h5py.File(path, "w") as f:
        g = f.create_group("particles/trajectory")
        for name in ("position", "velocity"):
            d = g.create_dataset(f"{name}/value", (nframes, natoms, 3), dtype="f4", chunks=(1, natoms, 3))
            d[...] = np.arange(nframes * natoms * 3, dtype="f4").reshape(nframes, natoms, 3) * (len(name) / 8)
            g[f"{name}/time"] = np.arange(nframes, dtype="f8") * 0.5
        g["box/edges/value"] = np.full((nframes, 3), 50.0)


def frames(path):
    """Every frame through new handles, as MDAnalysis' H5MD reader reads them: the group looked up,
    then each dataset by its path from it, one row read and the handle dropped."""
    count = reads_counter()
    before = count()
    out = []
    with h5py.File(path, "r") as f:
        n = f["particles/trajectory/position/value"].shape[0]
        for i in range(n):
            g = f["particles/trajectory"]
            pos = np.empty((g["position/value"].shape[1], 3), dtype="f4")
            g["position/value"].read_direct(pos, source_sel=np.s_[i, :])
            vel = g["velocity/value"][i]
            out.append(f"{i} {g['position/time'][i]} {pos.sum():.1f} {vel.sum():.1f} {g['box/edges/value'][i].tolist()}")
    after = count()
    print("\n".join(out))
    print(f"reads {after - before}", file=sys.stderr)


def make_wide(path, nlinks=3000):
    """A file of the 1.8 format (h5py's libver="latest") whose group "wide" keeps its links dense
    (a name index and a fractal heap)."""
    with h5py.File(path, "w", libver="latest") as f:
        g = f.create_group("wide")
        for i in range(nlinks):
            g[f"d{i:05d}"] = np.arange(3) + i


def wide(path, nlinks=3000, k=10):
    """A few members of the wide group by name, and as many names it lacks."""
    count = reads_counter()
    before = count()
    out = []
    with h5py.File(path, "r") as f:
        g = f["wide"]
        for i in range(0, nlinks, nlinks // k):
            out.append(f"d{i:05d} {g[f'd{i:05d}'][()].tolist()} {f'x{i:05d}' in g}")
    after = count()
    print("\n".join(out))
    print(f"reads {after - before}", file=sys.stderr)


def walk(path):
    """Every object's name and kind through visititems (each object opened), then every name
    through visit: h5py's H5Ovisit_by_name1, whose adapter asks each object's header details."""
    count = reads_counter()
    before = count()
    out = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.append(f"{n} {type(o).__name__}"))
        f.visit(lambda n: out.append(n))
    after = count()
    print("\n".join(out))
    print(f"reads {after - before}", file=sys.stderr)


def search(path):
    """A search that stops at the first dataset it meets (visititems returning a value)."""
    count = reads_counter()
    before = count()
    with h5py.File(path, "r") as f:
        hit = f.visititems(lambda n, o: n if isinstance(o, h5py.Dataset) else None)
        out = [f"first dataset {hit} {f[hit].shape}"]
    after = count()
    print("\n".join(out))
    print(f"reads {after - before}", file=sys.stderr)


def descriptor(path):
    """Mantid's NexusHDF5Descriptor, through h5py's low-level calls: for each group its name
    (H5Iget_name), size (H5Gget_num_objs) and NX_class (H5Aopen_by_name with the group's own
    absolute name), then per index each member's type and name (H5Gget_objtype_by_idx,
    H5Gget_objname_by_idx), recursing into member groups opened relative to their group."""
    from h5py import h5a, h5g, h5i

    count = reads_counter()
    before = count()
    out = []

    def group(gid):
        name = h5i.get_name(gid)
        n = gid.get_num_objs()
        if name != b"/":
            try:
                a = h5a.open(gid, b"NX_class", obj_name=name)
                v = np.ndarray((), dtype=a.dtype)
                a.read(v)
                out.append(f"{name.decode()} {n} {v[()]!r}")
            except KeyError:
                out.append(f"{name.decode()} {n} no NX_class")
        for i in range(n):
            kind, member = gid.get_objtype_by_idx(i), gid.get_objname_by_idx(i)
            if kind == h5g.GROUP:
                group(h5g.open(gid, member))
            else:
                out.append(f"{name.decode()}/{member.decode()} {kind}")

    with h5py.File(path, "r") as f:
        group(h5g.open(f.id, b"/"))
    after = count()
    print("\n".join(out))
    print(f"reads {after - before}", file=sys.stderr)


def entries(path):
    """napi5's NXgetnextentry and NXopengroup/NXopendata, through h5py's low-level calls: each
    group's link names (H5Literate), each entry's object info by name (H5Oget_info_by_name), then
    the entry opened relative to its group: a group's NX_class read and its entries walked, a
    dataset's shape and type asked."""
    from h5py import h5a, h5g, h5o

    count = reads_counter()
    before = count()
    out = []

    def group(gid, path):
        for name in list(gid):
            info = h5o.get_info(gid, name)
            obj = h5o.open(gid, name)
            if info.type == h5o.TYPE_GROUP:
                cls = None
                if h5a.exists(obj, b"NX_class"):
                    a = h5a.open(obj, b"NX_class")
                    v = np.ndarray((), dtype=a.dtype)
                    a.read(v)
                    cls = v[()]
                out.append(f"{path}/{name.decode()} {info.num_attrs} {cls!r}")
                group(obj, f"{path}/{name.decode()}")
            else:
                out.append(f"{path}/{name.decode()} {info.type} {obj.shape} {obj.dtype}")

    with h5py.File(path, "r") as f:
        group(f.id, "")
    after = count()
    print("\n".join(out))
    print(f"reads {after - before}", file=sys.stderr)


if __name__ == "__main__":
    {"make": make, "view": view, "units": units, "make-frames": make_frames, "frames": frames,
     "make-wide": make_wide, "wide": wide, "walk": walk, "search": search, "descriptor": descriptor, "entries": entries}[sys.argv[1]](sys.argv[2])
