"""netcdf4_corpus.py OUTDIR FILE... — writes to OUTDIR/FILE.txt everything netCDF4-python (netCDF-C
over HDF5) can tell of each FILE, the way generic netCDF readers ask it (ncdump, xarray's netCDF4
engine, a viewer): groups in order, dimensions (sizes, unlimited), user-defined types, variables
(type, dimensions, shape, chunking, filters, endianness, chunk cache, attributes in order) and
their values (whole up to 1 MiB, else a corner and a strided slice of the first dimension), masked
and scaled as netCDF4 returns them by default and raw (but for compounds with strings, which
netCDF4 misreads). netCDF-C refuses many HDF5 files (references, odd types, no dimension
scales...): its errors print as their class and message and must match too. Values are shown by
their fields and elements, never by their bytes (compound padding is undefined). Run under stock
HDF5 and under h5turbo by corpus.sh; the transcripts must be identical, file by file."""
import hashlib
import os
import re
import sys

import netCDF4
import numpy as np

from corpus_common import SMALL, corner_and_strided


def show_value(v):
    """A stable text for a value netCDF4 returned: elements (with the mask where masked) hashed
    when long, strings and scalars by value."""
    if isinstance(v, np.ma.MaskedArray):
        return "masked %s %s" % (show_value(np.ma.getdata(v)), show_value(np.ma.getmaskarray(v)))
    if isinstance(v, np.ndarray):
        if v.dtype.names or v.dtype.hasobject:
            text = repr(v.tolist())  # (fields and objects by value: no padding bytes)
        else:
            text = v.tobytes().hex()
        return "%s %s %s" % (v.dtype.str, v.shape, text if len(text) <= 128 else hashlib.sha1(text.encode()).hexdigest())
    if isinstance(v, (np.void, np.generic)):
        return show_value(np.asarray(v))
    return repr(v)[:200]


def attempt(label, fn):
    try:
        return fn()
    except Exception as e:  # netCDF-C's and HDF5's errors, as netCDF4 raises them
        text = re.sub(r"0x[0-9a-f]+", "0x?", str(e))[:200]
        # (a filter's missing plugin: HDF5 names the plugin path, which h5turbo sets and stock not)
        print(label, "error", type(e).__name__, "no plugin" if "plugin" in text.lower() else text)
        return None


def attrs_of(label, obj):
    names = attempt("AK " + label, obj.ncattrs)
    print("AK", label, names)
    for n in names or []:
        print("AV", label, n, show_value(attempt("AV %s %s" % (label, n), lambda: obj.getncattr(n))))


def strings_in_compound(dt):
    """A compound with a fixed-length string member, at any depth: netCDF4 1.7.5 sizes such a member
    as one character, so its reads write past its buffer, under stock HDF5 too (PyTables' tables:
    garbage, a crash or "array is too big", differing from run to run)."""
    if not isinstance(dt, np.dtype) or not dt.names:
        return False
    return any(dt.fields[n][0].base.kind == "S" or strings_in_compound(dt.fields[n][0].base) for n in dt.names)


def variable(label, v):
    print("V", label, str(v.dtype), v.dimensions, v.shape,
          attempt("VC " + label, v.chunking), attempt("VF " + label, v.filters),
          attempt("VE " + label, v.endian), attempt("VZ " + label, v.get_var_chunk_cache))
    print("VT", label, type(v.datatype).__name__, getattr(v.datatype, "name", None))
    attrs_of(label, v)
    if strings_in_compound(v.dtype):
        print("VV", label, "skipped")
        return
    shape = v.shape
    itemsize = getattr(v.dtype, "itemsize", 8)  # (str for variable-length strings)
    nbytes = int(np.prod(shape, dtype=np.float64)) * itemsize
    for raw in (False, True):
        attempt("VM " + label, lambda: v.set_auto_maskandscale(not raw))
        if nbytes <= SMALL:
            print("VV", label, raw, show_value(attempt("VV " + label, lambda: v[...])))
            if len(shape) and shape[0] > 1:
                print("VS", label, raw, show_value(attempt("VS " + label, lambda: v[::2])))
        else:
            corner, strided = corner_and_strided(shape, itemsize)
            print("VV", label, raw, show_value(attempt("VV " + label, lambda: v[corner])))
            print("VS", label, raw, show_value(attempt("VS " + label, lambda: v[strided])))


def group(g):
    label = g.path
    print("G", label, g.name, attempt("GP", lambda: g.parent.path if g.parent is not None else None))
    attrs_of(label, g)
    for name, d in attempt("D " + label, lambda: list(g.dimensions.items())) or []:
        print("D", label, name, attempt("DL", lambda: len(d)), attempt("DU", d.isunlimited))
    for kind in ("cmptypes", "vltypes", "enumtypes"):
        for name, t in attempt("T " + label, lambda: list(getattr(g, kind).items())) or []:
            print("T", label, kind, name, str(getattr(t, "dtype", None)), getattr(t, "enum_dict", None))
    for name, v in attempt("V " + label, lambda: list(g.variables.items())) or []:
        attempt("V %s/%s" % (label, name), lambda: variable("%s/%s" % (label.rstrip("/"), name), v))
    for sub in attempt("S " + label, lambda: list(g.groups.values())) or []:
        attempt("S " + label, lambda: group(sub))


def walk(path):
    f = attempt("OPEN " + path, lambda: netCDF4.Dataset(path, "r"))
    if f is None:
        return
    print("FILE", path, f.data_model, f.disk_format, f.file_format)
    group(f)
    attempt("CLOSE", f.close)


# Each file in a child process of its own: netCDF-C leaves the heap damaged after some files it
# refuses (h5diff_attr1.h5: "Can't open HDF5 attribute", then a crash a file or two later, at a
# point that differs from run to run). A child that dies before its transcript's END is marked so
# and the walk goes on; one that dies after it, in netCDF-C's and HDF5's exit handlers (some do,
# stock too), is not.
for path in sys.argv[2:]:
    name = "%s/%s.txt" % (sys.argv[1], path.replace("/", "_"))
    pid = os.fork()
    if pid == 0:
        with open(name, "w", buffering=1) as out:
            sys.stdout = out
            walk(path)
            print("END")
        sys.exit(0)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    with open(name, "a+") as out:
        out.seek(0)
        if status != 0 and out.read().splitlines()[-1:] != ["END"]:
            out.write("died rc %d\nEND\n" % (128 - status if status < 0 else status))
