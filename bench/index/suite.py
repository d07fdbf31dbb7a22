"""suite.py — the link/object index's workloads for `h5turbo bench` (bench/h5turbo_bench.py loads
it): Mantid-like files, the C loaders a (visit + NX_class), b (LoadMD-like), c (NeXus getnextentry),
d (NeXus API as napi5 calls HDF5), e (Mantid's NexusHDF5Descriptor walk), i (LoadMD-like, group-
relative opens) and the Python loaders f (h5py visititems), g (h5py LoadMD-like), h (scippnexus)
and k (nexusformat, thousands of opens of the file per load; h and k not with --quick); and
netCDF-C's walk of netcdf_walk.py (not with --quick). Stock HDF5, stock with a large metadata
cache (C loaders), h5turbo first open (no sidecar) and second open (sidecar).
Seconds from H5Fopen to H5Fclose (lower is better); bench/index/run.sh is the standalone driver
with malloc, read, RSS and instruction counts."""


def make_suite(build, tmp, quick):
    here = os.path.dirname(os.path.abspath(make_suite.__code__.co_filename))
    root = os.path.dirname(os.path.dirname(here))
    pyload = os.path.join(here, "mantid_load.py")
    py = os.path.join(root, ".venv", "bin", "python")
    pynx = os.path.join(root, ".venv-clients", "bin", "python")
    has_nx = not quick and os.path.exists(pynx) and subprocess.run(
        [pynx, "-c", "import scippnexus, nexusformat.nexus, h5py"], env=env_for("stock", build),
        capture_output=True).returncode == 0
    s = Suite("index", "link/object index: Mantid-like load time vs experiments")
    gen = os.path.join(build, "bench", "index", "mantid_gen")
    load = os.path.join(build, "bench", "index", "mantid_load")
    cache = os.path.join(tmp, "index-cache")
    turbo = env_for("h5turbo", build, {"H5TURBO_INDEX": "persistent", "XDG_CACHE_HOME": cache})
    stock = env_for("stock", build)
    drop = 'rm -f "$1"/h5turbo/*.h5turbo-index; shift; exec "$@"'
    for nexp in ([10] if quick else [10, 40]):
        for loader in "abcdeifg" + ("hk" if has_nx else ""):
            # a b c keep their file; the others read the units/start attributes of --units.
            units = loader not in "abc"
            path = os.path.join(tmp, f"mantid_{nexp}{'_nx' if units else ''}.h5")

            def prepare(path=path, nexp=nexp, units=units):
                if not os.path.exists(path):
                    subprocess.run([gen, path, str(nexp)] + (["500", "--units"] if units else []), env=stock,
                                   check=True)
                # Old enough to be persisted: no sidecar for a file changed within the last 2 s.
                time.sleep(max(0.0, 2.1 - (time.time() - os.stat(path).st_ctime)))

            if loader in "fghk":
                cmd = [pynx if loader in "hk" else py, pyload, path, loader]
                modes = [("stock", cmd, stock)]
            else:
                cmd = [load, path, loader]
                modes = [("stock", cmd, stock), ("stock bigcache", cmd + ["bigcache"], stock)]
            modes += [("h5turbo first open", ["sh", "-c", drop, "sh", cache] + cmd, turbo),
                      ("h5turbo second open", cmd, turbo)]
            s.add(f"loader {loader} @{nexp}", modes, prepare, params={"experiments": nexp})
    # netCDF-C's walk (netcdf_walk.py: the netCDF4 wheel, its own HDF5 2.2.0) of 60 groups x 50
    # variables; in the table and results.json, not on the plot (no experiments).
    has_nc = not quick and os.path.exists(pynx) and subprocess.run(
        [pynx, "-c", "import netCDF4"], env=stock, capture_output=True).returncode == 0
    if has_nc:
        walk = os.path.join(here, "netcdf_walk.py")
        ncpath = os.path.join(tmp, "walk60.nc")

        def prepare_nc():
            if not os.path.exists(ncpath):
                subprocess.run([pynx, walk, "--make", ncpath, "60"], env=stock, check=True)
            time.sleep(max(0.0, 2.1 - (time.time() - os.stat(ncpath).st_ctime)))

        cmd = [pynx, walk, "--load", ncpath, "netCDF4"]
        s.add("netCDF4 walk, 60 groups", [("stock", cmd, stock),
                                          ("h5turbo first open", ["sh", "-c", drop, "sh", cache] + cmd, turbo),
                                          ("h5turbo second open", cmd, turbo)], prepare_nc)
    return s
