"""pytables_rw.py — the chunk pipeline as PyTables programs use it (no h5py; PyTables' wheel brings
its own HDF5), stock HDF5 vs h5turbo in one run: an event table (2M rows of a compound type,
appended in one call) and 200 detector frames (a CArray, a chunk per frame), written and read back
whole, a query (`read_where`), a query through an index of the table's `x` column (PyTables finds
the rows in the index, then reads them by their coordinates: a point selection across the table's
chunks), and a region of interest of every frame; DEFLATE 1 + shuffle and Blosc (PyTables' default
compressor, level 5, its own shuffle).
Usage: python pytables_rw.py PLUGIN_DIR [ROUNDS]. Each case runs in a fresh process per mode, the
modes taking turns, ROUNDS rounds (5); prints the median seconds of the timed part (data made
before it) and the ratio, and checks that reads give stock's sums and that h5turbo's files hold
stock's data."""
import os
import statistics
import subprocess
import sys
import tempfile

CASES = ("write", "read_table", "read_where", "read_indexed", "read_frames", "read_roi")
LIBS = ("zlib", "blosc")
ROWS = 2_000_000
FRAMES = (200, 512, 512)


def data():
    import numpy as np

    rng = np.random.default_rng(1)
    rows = np.zeros(ROWS, dtype=[("e", "<i4"), ("flag", "u1"), ("t", "<f8"), ("x", "<f4")])
    rows["t"] = np.arange(ROWS) * 1e-3
    rows["e"] = rng.integers(0, 1000, ROWS)
    rows["x"] = rng.normal(size=ROWS).astype("f4")
    rows["flag"] = rows["e"] % 3
    # Sparse photon counts: most pixels 0, as in a detector frame after correction.
    img = (rng.integers(0, 50, FRAMES) * (rng.random(FRAMES) < 0.3)).astype("u2")
    return rows, img


def child(case, lib, path):
    """One timed case in this process; prints seconds and a checksum."""
    import time

    import tables as tb

    if case == "write":
        rows, img = data()
        filters = tb.Filters(complevel=1 if lib == "zlib" else 5, complib=lib, shuffle=True)
        t0 = time.perf_counter()
        with tb.open_file(path, "w") as f:
            tab = f.create_table("/", "events", rows.dtype, filters=filters, expectedrows=ROWS)
            tab.append(rows)
            f.create_carray("/", "frames", obj=img, filters=filters, chunkshape=(1,) + FRAMES[1:])
        print(time.perf_counter() - t0, int(img.sum()) + float(rows["x"].sum()))
        return
    if case == "index":  # (the input files' index of x, made once by stock HDF5)
        with tb.open_file(path, "a") as f:
            f.root.events.cols.x.create_index()
        return
    t0 = time.perf_counter()
    with tb.open_file(path) as f:
        if case == "read_table":
            s = float(f.root.events.read()["x"].sum())
        elif case == "read_where":
            s = len(f.root.events.read_where("e < 10"))
        elif case == "read_indexed":
            s = float(f.root.events.read_where("(x > 2.5) & (x < 2.6)")["t"].sum())
        elif case == "read_frames":
            s = int(f.root.frames[:].sum())
        else:
            s = int(f.root.frames[:, 100:200, :].sum())
    print(time.perf_counter() - t0, s)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    plugins = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    import numpy as np
    import tables as tb

    work = tempfile.mkdtemp(prefix="tb_pytables.")
    stock_env = {k: v for k, v in os.environ.items() if k not in ("HDF5_VOL_CONNECTOR", "HDF5_PLUGIN_PATH")}
    stock_env["OPENBLAS_NUM_THREADS"] = "1"
    turbo_env = dict(stock_env, HDF5_VOL_CONNECTOR="h5turbo", HDF5_PLUGIN_PATH=plugins,
                     XDG_CACHE_HOME=os.path.join(work, "cache"))

    def run(case, lib, path, env):
        out = subprocess.run([sys.executable, __file__, "--child", case, lib, path], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
        return float(out[0]), out[1]

    for lib in LIBS:  # the reading cases' input, written by stock HDF5
        run("write", lib, os.path.join(work, f"in_{lib}.h5"), stock_env)
        subprocess.run([sys.executable, __file__, "--child", "index", lib, os.path.join(work, f"in_{lib}.h5")],
                       env=stock_env, check=True)
    times, sums = {}, {}
    for _ in range(rounds):
        for lib in LIBS:
            for c in CASES:
                for m, env in (("stock", stock_env), ("turbo", turbo_env)):
                    path = os.path.join(work, f"out_{lib}_{m}.h5" if c == "write" else f"in_{lib}.h5")
                    t, s = run(c, lib, path, env)
                    times.setdefault((lib, c, m), []).append(t)
                    sums.setdefault((lib, c, m), s)
    print(f"PyTables {tb.__version__} (HDF5 {tb.hdf5_version}), {ROWS} rows and {FRAMES[0]} frames of "
          f"{FRAMES[1]}x{FRAMES[2]}, median of {rounds} rounds (modes taking turns, a process each)")
    print(f"{'case':18} {'stock s':>9} {'h5turbo s':>10} {'ratio':>7}  sums")
    ok = True
    for lib in LIBS:
        for c in CASES:
            s, t = statistics.median(times[(lib, c, "stock")]), statistics.median(times[(lib, c, "turbo")])
            same = sums[(lib, c, "stock")] == sums[(lib, c, "turbo")]
            ok = ok and same
            print(f"{lib + ' ' + c:18} {s:9.3f} {t:10.3f} {s / t:6.2f}x  {'same' if same else 'DIFFERENT'}")
        # What h5turbo wrote must read back as stock's (read here without h5turbo).
        with tb.open_file(os.path.join(work, f"out_{lib}_stock.h5")) as a, \
                tb.open_file(os.path.join(work, f"out_{lib}_turbo.h5")) as b:
            same = bool(np.array_equal(a.root.events.read(), b.root.events.read())) and \
                bool(np.array_equal(a.root.frames[:], b.root.frames[:]))
            size = [(f.root.events.size_on_disk, f.root.frames.size_on_disk) for f in (a, b)]
        ok = ok and same
        print(f"{lib}: h5turbo's file {'holds' if same else 'DIFFERS from'} stock's data; stored bytes, table "
              f"{size[1][0] / size[0][0]:.3f}x stock's, frames {size[1][1] / size[0][1]:.3f}x")
    subprocess.run(["rm", "-rf", work])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
