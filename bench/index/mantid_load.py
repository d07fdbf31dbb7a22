"""mantid_load.py — the Python loaders of the index benchmark, each timed from the file's open to
its close, written the way h5py programs are written (nothing here knows about h5turbo):
  f  h5py: f.visititems(cb), cb reads obj.attrs.get("NX_class") of every object;
  g  h5py LoadMD-like: per experiment iterate logs, g["value"][()], g["time"][()], v.attrs["units"];
  h  scippnexus (a NeXus reader from PyPI) loading the whole file: snx.File(path)[()];
  j  PyTables (its own HDF5, no h5py): walk_nodes of the whole file, NX_class of every node through
     _v_attrs, and every log's value and time read with the value's units;
  k  nexusformat (a NeXus reader from PyPI, on h5py): nxload of the whole tree, then every entry's
     attributes, and every log's value and time read with the value's units. nexusformat opens and
     closes the file around every access (its NXFile): a thousand opens of one file.
Usage: python mantid_load.py FILE f|g|h|j|k. Prints "wall_seconds cpu_seconds mallocs checksum reads
read_bytes sidecar_reads" like mantid_load; the counts come from bench/common's preloaded
libtb_malloc_count.so / libtb_io_count.so (else -1). TB_REGION_LIB=<libtb_region.so> runs the load
inside tb_bench_region() for callgrind's --toggle-collect."""
import ctypes
import os
import sys
import time

h5py = snx = tables = nx = None  # imported by main, for the loader that needs each


def counters():
    me = ctypes.CDLL(None)
    mallocs = getattr(me, "tb_bench_malloc_calls", None)
    io = getattr(me, "tb_bench_io_count", None)
    if mallocs:
        mallocs.restype = ctypes.c_long
    if io:
        io.restype = ctypes.c_long
        io.argtypes = [ctypes.c_int]

    def read():
        m = mallocs() if mallocs else None
        r = tuple(io(k) for k in (0, 1, 2)) if io else (None, None, None)
        return (m,) + r

    return read


def load_f(path):
    acc = [0.0]

    def visit(name, obj):
        nx = obj.attrs.get("NX_class")
        if nx is not None:
            acc[0] += len(nx) + len(name)

    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return acc[0]


def load_g(path):
    acc = 0.0
    with h5py.File(path, "r") as f:
        ws = f["MDEventWorkspace"]
        for e in ws:
            ex = ws[e]
            if "logs" not in ex:
                continue
            logs = ex["logs"]
            for name in logs:
                g = logs[name]
                v = g["value"]
                value = v[()]
                t = g["time"][()]
                units = v.attrs["units"]
                acc += float(value.sum()) + float(t.sum()) + len(units)
    return acc


def load_h(path):
    with snx.File(path) as f:
        dg = f[()]
    return dg


def load_j(path):
    acc = 0.0
    with tables.open_file(path) as f:
        for node in f.walk_nodes("/"):
            attrs = node._v_attrs
            if "NX_class" in attrs:
                acc += len(attrs["NX_class"])
            if node._v_name == "logs":
                for log in node._f_iter_nodes():
                    value, t = log.value.read(), log.time.read()
                    acc += float(value.sum()) + float(t.sum()) + len(log.value.attrs.units)
    return acc


def load_k(path):
    acc = 0.0
    root = nx.nxload(path, "r")
    stack = [root]
    while stack:
        g = stack.pop()
        for name, v in g.entries.items():
            acc += len(name) + len(v.attrs)
            if isinstance(v, nx.NXgroup):
                stack.append(v)
            elif name == "value":  # (a log's)
                acc += float(v.nxdata.sum()) + float(g["time"].nxdata.sum()) + len(str(v.attrs["units"]))
    root.nxfile.close()
    return acc


def checksum_h(dg):
    """Outside the timed part: the loaded tree's numbers, to compare the modes' results."""
    import scipp as sc

    acc = 0.0
    stack = [dg]
    while stack:
        x = stack.pop()
        if isinstance(x, sc.DataGroup):
            stack.extend(x.values())
        elif isinstance(x, sc.DataArray):
            acc += float(x.data.values.sum()) + x.sizes.get("time", 0)
        elif isinstance(x, sc.Variable) and x.dtype == sc.DType.float64:
            acc += float(x.values.sum())
        elif isinstance(x, str):
            acc += len(x)
    return acc


def main():
    path, loader = sys.argv[1], sys.argv[2]
    global h5py, snx, tables, nx
    fn = {"f": load_f, "g": load_g, "h": load_h, "j": load_j, "k": load_k}.get(loader)
    if fn is None:
        raise SystemExit(f"mantid_load.py: unknown loader {loader!r} (f, g, h, j, k)")
    try:
        if loader == "j":
            import warnings

            import tables
            warnings.simplefilter("ignore", tables.NaturalNameWarning)
        else:
            import h5py
            if loader == "h":
                import scippnexus as snx
            if loader == "k":
                import nexusformat.nexus as nx
    except ImportError as e:
        raise SystemExit(f"mantid_load.py: loader {loader} needs {e.name} (.venv-clients/bin/python has it)")
    read = counters()
    region = os.environ.get("TB_REGION_LIB")
    out, err = [None], [None]

    def body():
        try:
            out[0] = fn(path)
        except BaseException as e:  # re-raised below: ctypes would swallow it
            err[0] = e

    c0 = read()
    t0, p0 = time.perf_counter(), time.process_time()
    if region:
        lib = ctypes.CDLL(region)
        cb = ctypes.CFUNCTYPE(None)(body)
        lib.tb_bench_region(cb)
    else:
        body()
    t1, p1 = time.perf_counter(), time.process_time()
    c1 = read()
    if err[0] is not None:
        raise err[0]
    result = checksum_h(out[0]) if loader == "h" else out[0]
    diff = [(b - a) if a is not None else -1 for a, b in zip(c0, c1)]
    print(f"{t1 - t0:.6f} {p1 - p0:.6f} {diff[0]} {result:.1f} {diff[1]} {diff[2]} {diff[3]}")


if __name__ == "__main__":
    main()
