"""suite.py — the Blosc filter's workloads for `h5turbo bench` (bench/h5turbo_bench.py loads it):
stock DEFLATE 1 + shuffle, the hdf5-blosc reference (1 thread), h5turbo's filter with 1 thread and
with all threads; write and read throughput in MB/s (higher is better)."""


def make_suite(build, tmp, quick):
    s = Suite("blosc", "Blosc filter: write/read MB/s")
    exe = os.path.join(build, "bench", "blosc", "tb_bench_blosc")
    ref = os.path.join(os.environ.get("H5TURBO_DEPS_DIR", os.path.expanduser("~/.cache/h5turbo/deps")),
                       "hdf5-blosc-ref", "plugin")
    ours = os.path.join(build, "plugins-blosc-only")
    ncpu = len(os.sched_getaffinity(0))
    path = os.path.join(tmp, "blosc.h5")
    workloads = ["agipd32", "float"] if quick else ["agipd1", "agipd32", "float"]
    for w in workloads:
        for direction, field in (("write", 0), ("read", 1)):
            def parse(out, field=field):
                return float(out.split()[field])
            base = env_for("stock", build)
            modes = [("stock deflate1+shuffle", [exe, w, "deflate:1", path], base),
                     ("hdf5-blosc lz4 1t", [exe, w, "blosc:lz4:5:1", path], {**base, "HDF5_PLUGIN_PATH": ref}),
                     ("h5turbo lz4 1t", [exe, w, "blosc:lz4:5:1", path],
                      {**base, "HDF5_PLUGIN_PATH": ours, "H5TURBO_THREADS": "1"}),
                     (f"h5turbo lz4 {ncpu}t", [exe, w, "blosc:lz4:5:1", path],
                      {**base, "HDF5_PLUGIN_PATH": ours, "H5TURBO_THREADS": str(ncpu)})]
            s.add(f"{w} {direction}", modes, parse=parse, unit="MB/s", higher_better=True)
    return s
