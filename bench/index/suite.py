"""suite.py — the link/object index's workloads for `h5turbo bench` (bench/h5turbo_bench.py loads
it): Mantid-like files, loaders a (visit + NX_class), b (LoadMD-like), c (NeXus getnextentry),
stock HDF5, stock with a large metadata cache, h5turbo first open (no sidecar) and second open
(sidecar). Seconds from H5Fopen to H5Fclose (lower is better); bench/index/run.sh is the
standalone driver with malloc counts."""


def make_suite(build, tmp, quick):
    s = Suite("index", "link/object index: Mantid-like load time vs experiments")
    gen = os.path.join(build, "bench", "index", "mantid_gen")
    load = os.path.join(build, "bench", "index", "mantid_load")
    cache = os.path.join(tmp, "index-cache")
    turbo = env_for("h5turbo", build, {"H5TURBO_INDEX": "persistent", "XDG_CACHE_HOME": cache})
    for nexp in ([10] if quick else [10, 40]):
        path = os.path.join(tmp, f"mantid_{nexp}.h5")

        def prepare(path=path, nexp=nexp):
            if not os.path.exists(path):
                subprocess.run([gen, path, str(nexp)], env=env_for("stock", build), check=True)
            # Old enough to be persisted: no sidecar for a file changed within the last 2 s.
            time.sleep(max(0.0, 2.1 - (time.time() - os.stat(path).st_ctime)))

        for loader in "abc":
            first = ["sh", "-c", 'rm -f "$1"/h5turbo/*.h5turbo-index; exec "$2" "$3" "$4"', "sh", cache, load, path,
                     loader]
            s.add(f"loader {loader} @{nexp}", [
                ("stock", [load, path, loader], env_for("stock", build)),
                ("stock bigcache", [load, path, loader, "bigcache"], env_for("stock", build)),
                ("h5turbo first open", first, turbo),
                ("h5turbo second open", [load, path, loader], turbo),
            ], prepare, params={"experiments": nexp})
    return s
