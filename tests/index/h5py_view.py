"""h5py_view.py FILE PATHS — prints what h5py sees of FILE: visititems, keys() of every group,
`in` for every listed path (and variants), get(getlink=True) classes, attrs keys, objects as
dictionary keys and compared (h5py hashes them with H5Gget_objinfo), h5o.get_info and len(attrs)
of every group and dataset (H5Oget_info1), a dataset opened with an external-file prefix of its
own, and the contents, shape and dtype of every listed small dataset (read twice: h5turbo's
index may have cached it by then). Run under stock HDF5 and under h5turbo by h5py_view.sh; the
outputs must be identical."""
import sys
import h5py

f = h5py.File(sys.argv[1], "r")
lines = [line.rstrip("\n") for line in open(sys.argv[2])]
paths = [line[2:] for line in lines]
small = [line[2:] for line in lines if line.startswith("4 ")]

def show(name, obj):
    kind = type(obj).__name__
    print("V", name, kind, sorted(obj.attrs.keys()))
    if isinstance(obj, h5py.Group):
        print("K", name, list(obj.keys()))
f.visititems(show)
f.visititems_links(lambda n, l: print("VL", n, type(l).__name__)) if hasattr(f, "visititems_links") else None
print("K /", list(f.keys()))
for p in paths:
    for q in (p, p + "/missing", p.lstrip("/"), p + "/inner"):
        try:
            print("IN", q, q in f)
        except Exception as e:  # h5py raises for some broken paths
            print("IN", q, "error", type(e).__name__)
    try:
        print("L", p, type(f.get(p, getlink=True)).__name__)
    except Exception as e:
        print("L", p, "error", type(e).__name__)
    try:
        o = f.get(p)
        print("G", p, type(o).__name__, o.name if o is not None else None)
    except Exception as e:
        print("G", p, "error", type(e).__name__)
# Objects as dictionary keys (hash: H5Gget_objinfo of "."), equality, and the 1.8 object info.
seen = {}
def remember(name, obj):
    seen.setdefault(obj, []).append(name)
f.visititems(remember)
print("H", len(seen), sorted(len(v) for v in seen.values())[-3:])
for p in paths[:40]:
    try:
        a, b = f[p], f[p]
        print("EQ", p, a == b, hash(a) == hash(b), a in seen)
        if isinstance(a, (h5py.Group, h5py.Dataset)):
            i = h5py.h5o.get_info(a.id)
            print("OI", p, i.type, i.rc, i.num_attrs, i.addr, i.hdr.nmesgs, i.hdr.space.total, len(a.attrs))
    except Exception as e:
        print("EQ", p, "error", type(e).__name__)
# A dataset opened with an access list of its own (an external-file prefix): native refuses one
# already open under another prefix, so whatever h5turbo held open for the get_info calls above
# (a stand-in for a lazy dataset) must be closed by then.
seen.clear()  # (no handle of ours may hold it open: native refuses under stock then too)
a = b = None
first = next((p for p in paths[:40] if isinstance(f.get(p), h5py.Dataset)), None)
if first is not None:
    dapl = h5py.h5p.create(h5py.h5p.DATASET_ACCESS)
    dapl.set_efile_prefix(b"/nonexistent/h5py-view")
    try:
        h5py.h5d.open(f.id, first.encode(), dapl=dapl).close()
        print("PREFIX", first, "opened")
    except Exception as e:
        print("PREFIX", first, "error", type(e).__name__)
for p in small * 2:
    try:
        d = f[p]
        v = d[()]
        # Values holding Python objects (variable-length strings, references) by value, not bytes.
        shown = v.tolist() if getattr(v, "dtype", None) is not None and v.dtype.hasobject else (
            v.tobytes() if hasattr(v, "tobytes") else v)
        print("D", p, d.shape, d.dtype.str, d.dtype.names, repr(shown)[:160])
    except Exception as e:
        print("D", p, "error", type(e).__name__)
f.close()
