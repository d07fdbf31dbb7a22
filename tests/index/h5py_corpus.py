"""h5py_corpus.py OUTDIR FILE... — writes to OUTDIR/FILE.txt everything h5py can tell of each FILE,
the way generic h5py readers ask it (a viewer, a converter, a NeXus or netCDF loader): every link
by visit and by iteration, link classes and values, object info, attribute names in both orders
with types, shapes and values, every dataset's metadata (type, shape, layout, filters, fill value,
storage, dimension scales) and contents (whole up to 1 MiB, else a box of 1 MiB from the start and
a strided slice), references followed, named datatypes, `in` and get() of every path and of
variants. Errors print as their class and message; a transcript ends with END. Run under stock HDF5
and under h5turbo by corpus.sh; the transcripts must be identical, file by file."""
import hashlib
import re
import sys

import h5py
import numpy as np

from corpus_common import SMALL, corner_and_strided


def show_value(v):
    """A stable text for a value h5py returned: bytes of plain arrays (hashed when long), Python
    objects (strings, references) by value."""
    if isinstance(v, np.ndarray):
        if v.dtype.hasobject:
            return repr([show_value(x) for x in v.ravel().tolist()][:64])
        b = v.tobytes()
        return "%s %s %s" % (v.dtype.str, v.shape, b.hex() if len(b) <= 64 else hashlib.sha1(b).hexdigest())
    if isinstance(v, (h5py.Reference, h5py.RegionReference)):
        return "ref(%s)" % bool(v)
    if isinstance(v, (np.void, np.generic)):
        return show_value(np.asarray(v))
    return repr(v)[:200]


def vlen_of_regrefs(dt):
    """Variable-length sequences of region references, in any compound member: reading them, h5py
    3.16 corrupts the heap under stock HDF5 as well (h5repack_attr_refs.h5: stock died in free())."""
    if dt.names:
        return any(vlen_of_regrefs(dt.fields[n][0]) for n in dt.names)
    base = h5py.check_vlen_dtype(dt)
    return base is not None and h5py.check_ref_dtype(base) is h5py.RegionReference


def attempt(label, fn):
    try:
        r = fn()
    except Exception as e:  # h5py turns HDF5's errors into exceptions; their text must match too
        text = re.sub(r"0x[0-9a-f]+", "0x?", str(e))[:200]  # (addresses in Python's own errors)
        # (except where a filter's plugin was not found: HDF5 names the plugin path, which h5turbo
        # sets and stock does not)
        print(label, "error", type(e).__name__, "no plugin" if "plugin" in text else text)
        return None
    return r


def deref(f, refs):
    out = []
    for r in np.asarray(refs, dtype=object).ravel()[:16]:
        if isinstance(r, h5py.RegionReference):
            out.append(attempt("RR", lambda: (f[r].name, show_value(f[r][r]))))
        elif isinstance(r, h5py.Reference):
            out.append(attempt("R", lambda: f[r].name if r else None))
    return out


def attrs_of(f, p, obj):
    a = obj.attrs
    names = attempt("AK " + p, lambda: list(a.keys()))
    print("AK", p, names)
    if names is None:
        return
    for n in names:
        aid = attempt("AI %s %s" % (p, n), lambda: a.get_id(n))
        if aid is not None:
            print("AI", p, n, aid.dtype.str, aid.dtype.names, aid.shape, aid.get_storage_size())
        if aid is not None and vlen_of_regrefs(aid.dtype):
            print("AV", p, n, "skipped")  # (h5py corrupts the heap reading them, under stock too)
            continue
        v = attempt("AV %s %s" % (p, n), lambda: a[n])
        if v is not None:
            print("AV", p, n, show_value(v))
            if getattr(v, "dtype", None) is not None and v.dtype.kind == "O" and h5py.check_dtype(ref=v.dtype):
                print("AR", p, n, deref(f, v))
    print("AG", p, attempt("AG", lambda: a.get("NX_class", "-")), attempt("AG", lambda: a.get("units", "-")),
          "NX_class" in a, "missing" in a, len(a))
    # Creation order, where it is tracked (HDF5 refuses it elsewhere: the error must match).
    print("AO", p, attempt("AO " + p, lambda: collect(h5py.h5a.iterate, obj.id, index_type=h5py.h5.INDEX_CRT_ORDER)))


def collect(iterate, oid, **kw):
    """The names an H5Aiterate/H5Literate-style call hands its callback, in its order."""
    names = []
    iterate(oid, lambda n, *rest: names.append(n) and None, **kw)
    return names


def filter_of(plist, i):
    """A filter's id, flags and client data: the first 16 values and their number (h5py 3.15.1's
    get_filter, with its HDF5 1.14.6, returns uninitialised memory after the 16th, stock alike)."""
    fid, flags, cd = plist.get_filter(i)[:3]
    return fid, flags, len(cd), tuple(cd[:16])


def dataset(f, p, d):
    print("DS", p, d.shape, d.dtype.str, d.dtype.names, d.chunks, d.maxshape, d.compression,
          d.compression_opts, d.shuffle, d.fletcher32, d.scaleoffset, d.is_virtual, d.external)
    print("DF", p, show_value(attempt("DF " + p, lambda: d.fillvalue)))
    print("DZ", p, attempt("DZ " + p, lambda: d.id.get_storage_size()),
          attempt("DZ " + p, lambda: d.id.get_space_status()), attempt("DZ " + p, lambda: d.id.get_offset()))
    plist = d.id.get_create_plist()
    print("DP", p, plist.get_layout(), plist.get_nfilters(),
          [filter_of(plist, i) for i in range(plist.get_nfilters())], plist.get_fill_time(),
          plist.get_alloc_time(), attempt("DP", lambda: plist.get_obj_track_times()))
    print("DD", p, [[attempt("DD", lambda: (s.name, len(s))) for s in dim.values()] for dim in d.dims]
          if d.ndim else None, [dim.label for dim in d.dims] if d.ndim else None)
    nbytes = d.size * d.dtype.itemsize if d.shape is not None else 0
    if vlen_of_regrefs(d.dtype):
        print("DV", p, "skipped")
    elif d.shape is None:
        print("DV", p, "null")
    elif nbytes <= SMALL:
        v = attempt("DV " + p, lambda: d[()])
        print("DV", p, show_value(v))
        if v is not None and d.dtype.kind == "O" and h5py.check_dtype(ref=d.dtype):
            print("DR", p, deref(f, v))
        if d.ndim and d.shape[0] > 1:
            print("DS0", p, show_value(attempt("DS0 " + p, lambda: d[1:])))
            print("DSS", p, show_value(attempt("DSS " + p, lambda: d[::2])))
        if d.dtype.kind in "iuf" and d.dtype.names is None and d.size:
            print("DA", p, show_value(attempt("DA " + p, lambda: d.astype("f8")[()])))
    else:
        corner, strided = corner_and_strided(d.shape, d.dtype.itemsize)
        print("DV", p, show_value(attempt("DV " + p, lambda: d[corner])))
        print("DSS", p, show_value(attempt("DSS " + p, lambda: d[strided])))


def walk(path):
    f = attempt("OPEN " + path, lambda: h5py.File(path, "r"))
    if f is None:
        return
    print("FILE", path, f.libver, f.userblock_size, f.driver)
    names = []
    attempt("VISIT", lambda: f.visititems(lambda n, o: names.append((n, type(o).__name__)) and None))
    print("VISIT", names)
    if hasattr(f, "visititems_links"):
        links = []
        attempt("VL", lambda: f.visititems_links(lambda n, l: links.append((n, type(l).__name__)) and None))
        print("VL", links)
    todo = ["/"] + ["/" + n for n, _ in names]
    for p in todo:
        o = attempt("GET " + p, lambda: f[p])
        if o is None:
            continue
        print("O", p, type(o).__name__, o.name, attempt("PARENT", lambda: o.parent.name))
        i = attempt("OI " + p, lambda: h5py.h5o.get_info(o.id))
        if i is not None:
            print("OI", p, i.type, i.rc, i.num_attrs, i.hdr.nmesgs, i.hdr.space.total)
        attempt("A " + p, lambda: attrs_of(f, p, o))
        if isinstance(o, h5py.Group):
            keys = attempt("K " + p, lambda: list(o.keys()))
            print("K", p, keys, len(o))
            for k in keys or []:
                l = attempt("L", lambda: o.get(k, getlink=True))
                kind = type(l).__name__
                extra = (l.path if isinstance(l, h5py.SoftLink) else
                         (l.filename, l.path) if isinstance(l, h5py.ExternalLink) else "")
                print("L", p, k, kind, extra, attempt("LC", lambda: type(o.get(k, getclass=True)).__name__
                                                      if kind == "HardLink" else None))
                q = p.rstrip("/") + "/" + k
                print("IN", q, attempt("IN", lambda: q in f), attempt("IN", lambda: k in o),
                      attempt("IN", lambda: (q + "/x") in f))
            print("GI", p, attempt("GI", lambda: o.id.get_num_objs()),
                  attempt("GI", lambda: [o.id.get_objname_by_idx(i) for i in range(min(8, len(o)))]),
                  attempt("GI", lambda: [o.id.get_objtype_by_idx(i) for i in range(min(8, len(o)))]))
            # Iteration by name, then in creation order where tracked (h5py's track_order groups).
            print("GO", p, attempt("GO", lambda: collect(lambda i, cb, **kw: i.links.iterate(cb, **kw), o.id)),
                  attempt("GO", lambda: collect(lambda i, cb, **kw: i.links.iterate(cb, **kw), o.id,
                                                idx_type=h5py.h5.INDEX_CRT_ORDER)))
        elif isinstance(o, h5py.Dataset):
            attempt("D " + p, lambda: dataset(f, p, o))
        elif isinstance(o, h5py.Datatype):
            print("T", p, attempt("T " + p, lambda: (o.dtype.str, o.dtype.names)))
    f.close()


for path in sys.argv[2:]:
    with open("%s/%s.txt" % (sys.argv[1], path.replace("/", "_")), "w", buffering=1) as out:
        sys.stdout = out
        walk(path)
        print("END")
        out.flush()
