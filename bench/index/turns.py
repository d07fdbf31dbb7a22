"""turns.py — what netcdf_walk.py, reopen_loops.py and bench/programs/programs.py share: a load run
in a fresh process per mode (stock HDF5, h5turbo's first run into an empty sidecar cache, its second
run with that cache), the modes taking turns for a number of rounds; each load prints its CPU seconds
and a checksum. The scripts' entry (`dispatch`): `--make ARGS` and `--load ARGS` in the child
processes, else the script's main, which makes its file in a temporary folder (`made_file`)."""
import contextlib
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time


def medians(script, args, tmp, plugins, rounds, sidecar=True, wall=False):
    """Median CPU seconds per mode of `python script --load ARGS...` (with `wall`, the pair of
    medians (CPU, wall) from loads that print their wall seconds third); exits when the modes saw
    different values or, where a `sidecar` is expected, h5turbo wrote none (it was not active)."""
    base = {k: v for k, v in os.environ.items() if k not in ("HDF5_VOL_CONNECTOR", "HDF5_PLUGIN_PATH")}
    base["OPENBLAS_NUM_THREADS"] = "1"
    # (netCDF4's plugin folder after ours, as the h5turbo package's run and enable() put it: netCDF4
    # names it in HDF5_PLUGIN_PATH at its import only when it finds the variable unset)
    spec = importlib.util.find_spec("netCDF4")
    ncplug = os.path.join(spec.submodule_search_locations[0], "plugins") if spec else ""
    if "HDF5_PLUGIN_PATH" not in base and os.path.exists(os.path.join(ncplug, "lib__nczhdf5filters.so")):
        plugins += ":" + ncplug
    turbo = dict(base, HDF5_PLUGIN_PATH=plugins, HDF5_VOL_CONNECTOR="h5turbo")
    times = {"stock": [], "first": [], "second": []}
    walls = {"stock": [], "first": [], "second": []}
    seen = set()
    for r in range(rounds):
        cache = os.path.join(tmp, f"cache{r}")
        os.mkdir(cache, 0o700)
        for mode, env in (("stock", base), ("first", turbo), ("second", turbo)):
            env = dict(env, XDG_CACHE_HOME=cache)
            out = subprocess.run([sys.executable, script, "--load"] + args, env=env, check=True,
                                 capture_output=True, text=True).stdout.split()
            times[mode].append(float(out[0]))
            seen.add(out[1])
            if wall:
                walls[mode].append(float(out[2]))
        if sidecar and not any(f.endswith(".h5turbo-index") for _, _, fs in os.walk(cache) for f in fs):
            sys.exit("h5turbo wrote no sidecar: was it active?")
    if len(seen) != 1:
        sys.exit(f"the modes saw different values: {sorted(seen)}")
    if wall:
        return {m: (statistics.median(times[m]), statistics.median(walls[m])) for m in times}
    return {m: statistics.median(t) for m, t in times.items()}


@contextlib.contextmanager
def made_file(script, name, *make_args):
    """A temporary folder holding the file `name` that `python script --make PATH ARGS...` made,
    old enough for h5turbo to trust and persist (it neither trusts nor writes sidecars of files
    changed in the last 2 s): yields (folder, path)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name)
        subprocess.run([sys.executable, script, "--make", path, *map(str, make_args)], check=True)
        time.sleep(2.1)
        yield tmp, path


def dispatch(make, load, main):
    """Runs make(*ARGS) for `--make ARGS...`, load(*ARGS) for `--load ARGS...`, else main()."""
    if len(sys.argv) > 1 and sys.argv[1] == "--make":
        make(*sys.argv[2:])
    elif len(sys.argv) > 1 and sys.argv[1] == "--load":
        load(*sys.argv[2:])
    else:
        main()
