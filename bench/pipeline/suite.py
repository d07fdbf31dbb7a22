"""suite.py — the chunk pipeline's workloads for `h5turbo bench` (bench/h5turbo_bench.py loads it):
AGIPD-like frames (gain uint8 + mask uint32, shuffle + deflate 1 + fletcher32, a chunk per frame),
written 32 frames per H5Dwrite and frame by frame, read 32 frames per H5Dread: stock HDF5, the
hand-written XFEL-style reference (thread pool + zlib 1 + H5Dwrite_chunk, no fletcher32) and
h5turbo, for thread counts 1..CPUs; and at every thread count the reads processing steps do
(into uint32 and float32, a region of interest, every 4th frame, points) and writes from float32. Seconds per run (lower is better); bench/pipeline/run.sh is
the standalone driver with the compressed-size guard."""


def make_suite(build, tmp, quick):
    s = Suite("pipeline", "chunk pipeline: AGIPD-like write/read vs threads")
    exe = os.path.join(build, "bench", "pipeline", "tb_bench_agipd")
    nframes = 100 if quick else 800
    # (No "mbytes" parameter: h5turbo_bench.plot's MB/s branch reads a loop variable out of scope.)
    ncpu = os.cpu_count() or 1
    threads = sorted({1, ncpu}) if quick else sorted(set(range(1, ncpu + 1)) | {2 * ncpu})
    src = os.path.join(tmp, "pipe_src.h5")

    def seconds(out):
        return float(out.split()[0].split("=")[1])

    def prepare():
        if not os.path.exists(src):
            subprocess.run([exe, "write", src, str(nframes), "32"], env=env_for("stock", build), check=True,
                           capture_output=True)

    stock_env = env_for("stock", build)
    for t in threads:
        turbo = env_for("h5turbo", build, {"H5TURBO_THREADS": str(t)})
        w = lambda name: os.path.join(tmp, name)  # noqa: E731
        s.add(f"write 32 frames/call @{t}", [
            ("stock", [exe, "write", w("pipe_s.h5"), str(nframes), "32"], stock_env),
            ("xfel reference", [exe, "ref", w("pipe_r.h5"), str(nframes), "32", str(t)], stock_env),
            ("h5turbo", [exe, "write", w("pipe_t.h5"), str(nframes), "32"], turbo),
        ], params={"threads": t}, parse=seconds)
        s.add(f"write frame by frame @{t}", [
            ("stock", [exe, "write", w("pipe_s1.h5"), str(nframes), "1"], stock_env),
            ("xfel reference", [exe, "ref", w("pipe_r1.h5"), str(nframes), "1", str(t)], stock_env),
            ("h5turbo", [exe, "write", w("pipe_t1.h5"), str(nframes), "1"], turbo),
        ], params={"threads": t}, parse=seconds)
        s.add(f"read 32 frames/call @{t}", [
            ("stock", [exe, "read", src, "32"], stock_env),
            ("h5turbo", [exe, "read", src, "32"], turbo),
        ], prepare, params={"threads": t}, parse=seconds)
        for mode in ("u32", "f32", "roi", "stride4", "points", "multi"):
            s.add(f"read {mode} 32 frames/call @{t}", [
                ("stock", [exe, "readx", src, mode, "32"], stock_env),
                ("h5turbo", [exe, "readx", src, mode, "32"], turbo),
            ], prepare, params={"threads": t}, parse=seconds)
        s.add(f"write from float32 32 frames/call @{t}", [
            ("stock", [exe, "writex", w("pipe_sx.h5"), str(nframes), "32"], stock_env),
            ("h5turbo", [exe, "writex", w("pipe_tx.h5"), str(nframes), "32"], turbo),
        ], params={"threads": t}, parse=seconds)
    return s
