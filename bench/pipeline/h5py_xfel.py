"""h5py_xfel.py — the chunk pipeline as h5py programs use it, stock HDF5 vs h5turbo in one run:
European XFEL's corrected-data writer (float32 frames, gzip 1 + shuffle + fletcher32, one chunk
per frame, 32 frames per call), the same frames written every other one (`ds[i:j:2] = ...`) and
by sorted index lists (`ds[idx] = ...`), reading them back, and a processing step reading raw
uint16 frames into float32 (read_direct into a float32 buffer, and ds.astype('f4')[...]).
Usage: python h5py_xfel.py PLUGIN_DIR [FRAMES] [ROUNDS]. Each case runs in a fresh process per
mode, the modes taking turns, ROUNDS rounds (5); prints the median seconds and the ratio, and
checks that h5turbo's files and reads equal stock's."""
import os
import statistics
import subprocess
import sys
import tempfile

CASES = ("write_corrected", "write_strided", "write_fancy", "read_corrected", "read_direct_f32", "astype_f32")
WRITES = ("write_corrected", "write_strided", "write_fancy")
SHAPE = (512, 128)
PER_CALL = 32


def frames(n, dtype, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    # Detector-like: smooth signal plus noise, so that DEFLATE has something to find.
    base = np.linspace(0, 4000, SHAPE[0] * SHAPE[1]).reshape(SHAPE)
    out = np.empty((n,) + SHAPE, dtype=dtype)
    for i in range(n):
        out[i] = (base + rng.normal(0, 30, SHAPE)).astype(dtype)
    return out


def child(case, path, n):
    """One timed case in this process; prints seconds and a checksum."""
    import time

    import h5py
    import numpy as np

    if case in WRITES:
        data = frames(n, np.float32, 1)
        # write_fancy: each call a sorted set of PER_CALL frames scattered over the run (h5py makes
        # it a union of boxes); write_strided: even frames, then odd ones, PER_CALL a call.
        perm = np.random.default_rng(3).permutation(n)
        t0 = time.perf_counter()
        with h5py.File(path, "w") as f:
            ds = f.create_dataset("data", shape=(n,) + SHAPE, dtype="f4", chunks=(1,) + SHAPE,
                                  compression="gzip", compression_opts=1, shuffle=True, fletcher32=True)
            if case == "write_corrected":
                for i in range(0, n, PER_CALL):
                    ds[i:i + PER_CALL] = data[i:i + PER_CALL]
            elif case == "write_strided":
                for first in (0, 1):
                    for i in range(first, n, 2 * PER_CALL):
                        ds[i:i + 2 * PER_CALL:2] = data[i:i + 2 * PER_CALL:2]
            else:
                for i in range(0, n, PER_CALL):
                    idx = np.sort(perm[i:i + PER_CALL])
                    ds[idx] = data[idx]
        t = time.perf_counter() - t0
        print(t, float(data.sum(dtype=np.float64)))
        return
    t0 = time.perf_counter()
    acc = 0.0
    with h5py.File(path, "r") as f:
        if case == "read_corrected":
            ds = f["data"]
            for i in range(0, n, PER_CALL):
                acc += float(ds[i:i + PER_CALL].sum(dtype=np.float64))
        else:
            ds = f["raw"]
            buf = np.empty((PER_CALL,) + SHAPE, dtype=np.float32)
            for i in range(0, n, PER_CALL):
                if case == "read_direct_f32":
                    ds.read_direct(buf, np.s_[i:i + PER_CALL], np.s_[0:PER_CALL])
                    acc += float(buf.sum(dtype=np.float64))
                else:
                    acc += float(ds.astype("f4")[i:i + PER_CALL].sum(dtype=np.float64))
    print(time.perf_counter() - t0, acc)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    plugins = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 320
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    import h5py
    import numpy as np

    work = tempfile.mkdtemp(prefix="tb_h5py_xfel.")
    raw = os.path.join(work, "raw.h5")  # the input of the reading cases, written by stock HDF5
    with h5py.File(raw, "w") as f:
        f.create_dataset("raw", data=frames(n, np.uint16, 2), chunks=(1,) + SHAPE, compression="gzip",
                         compression_opts=1, shuffle=True)
        f.create_dataset("data", data=frames(n, np.float32, 1), chunks=(1,) + SHAPE, compression="gzip",
                         compression_opts=1, shuffle=True, fletcher32=True)
    stock_env = {k: v for k, v in os.environ.items() if k not in ("HDF5_VOL_CONNECTOR", "HDF5_PLUGIN_PATH")}
    turbo_env = dict(stock_env, HDF5_VOL_CONNECTOR="h5turbo", HDF5_PLUGIN_PATH=plugins,
                     XDG_CACHE_HOME=os.path.join(work, "cache"))
    times = {(c, m): [] for c in CASES for m in ("stock", "turbo")}
    sums = {}
    for _ in range(rounds):
        for c in CASES:
            for m, env in (("stock", stock_env), ("turbo", turbo_env)):
                path = os.path.join(work, f"{c}_{m}.h5") if c in WRITES else raw
                out = subprocess.run([sys.executable, __file__, "--child", c, path, str(n)], env=env,
                                     capture_output=True, text=True, check=True).stdout.split()
                times[(c, m)].append(float(out[0]))
                sums.setdefault((c, m), out[1])
    # What h5turbo wrote must read back as stock's, by stock HDF5.
    same, sizes = True, None
    for c in WRITES:
        with h5py.File(os.path.join(work, f"{c}_stock.h5"), "r") as a, \
                h5py.File(os.path.join(work, f"{c}_turbo.h5"), "r") as b:
            same = same and bool(np.array_equal(a["data"][()], b["data"][()]))
            if c == "write_corrected":
                sizes = (a["data"].id.get_storage_size(), b["data"].id.get_storage_size())
    print(f"h5py {h5py.__version__}, {n} frames of {SHAPE[0]}x{SHAPE[1]}, {PER_CALL} frames per call, "
          f"median of {rounds} rounds (modes taking turns, a process each)")
    print(f"{'case':22} {'stock s':>9} {'h5turbo s':>10} {'ratio':>7}  data")
    for c in CASES:
        s, t = statistics.median(times[(c, 'stock')]), statistics.median(times[(c, 'turbo')])
        ok = sums[(c, "stock")] == sums[(c, "turbo")]
        print(f"{c:22} {s:9.3f} {t:10.3f} {s / t:6.2f}x  {'same' if ok else 'DIFFERENT'}")
    print(f"written files: h5turbo's data read back by stock {'equal' if same else 'DIFFERENT'}; "
          f"stored bytes (write_corrected) stock {sizes[0]}, h5turbo {sizes[1]} ({sizes[1] / sizes[0]:.2f}x)")
    subprocess.run(["rm", "-rf", work])
    if not same or any(sums[(c, "stock")] != sums[(c, "turbo")] for c in CASES):
        sys.exit(1)


if __name__ == "__main__":
    main()
