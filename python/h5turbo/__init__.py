"""h5turbo for Python: where the pip package's HDF5 plugins are, and how to turn them on.

The plugins (a VOL connector and the Blosc filter 32001) load into whichever HDF5 the process
uses (h5py's, netCDF4's or PyTables' wheel, or a system one) and bind to it. HDF5 reads its two
environment variables once, when the library initialises, so h5turbo must be enabled before
h5py (or netCDF4, tables) is imported, or from outside: ``h5turbo run -- python app.py``.
"""
import ctypes
import os

__all__ = ["plugin_dir", "connector_string", "environ", "enable", "hdf5_initialised",
           "HDF5AlreadyInitialisedError"]

try:
    from importlib.metadata import version as _version
    __version__ = _version("h5turbo")
except Exception:  # pragma: no cover - running from a source tree
    __version__ = "0.1.0"


class HDF5AlreadyInitialisedError(RuntimeError):
    """enable() was called after an HDF5 library in this process had initialised: it has read
    HDF5_PLUGIN_PATH and HDF5_VOL_CONNECTOR already and would not see them."""


def plugin_dir():
    """The folder to give HDF5_PLUGIN_PATH: the front plugins, with the builds for HDF5 1.14
    (hdf5-1/) and 2.x (hdf5-2/) below it."""
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plugins")
    if not os.path.isfile(os.path.join(d, "libh5turbo_vol.so")):
        raise FileNotFoundError(f"h5turbo: no plugins in {d} (a broken installation?)")
    return d


def _options(threads=None, index=None, write_behind=False):
    opts = []
    if threads is not None:
        if int(threads) < 1:
            raise ValueError(f"h5turbo: threads must be >= 1, not {threads!r}")
        opts.append(f"threads={int(threads)}")
    if index is not None:
        if index not in ("off", "memory", "persistent"):
            raise ValueError(f"h5turbo: index must be off, memory or persistent, not {index!r}")
        opts.append(f"index={index}")
    if write_behind:
        opts.append("write_behind=1")
    return ";".join(opts)


def connector_string(previous=None, **options):
    """HDF5_VOL_CONNECTOR for h5turbo with OPTIONS (threads=, index=, write_behind=), stacked over
    the connector PREVIOUS names (default: the current HDF5_VOL_CONNECTOR), as `h5turbo run` does:
    "pass_through under_vol=0;under_info={}" becomes
    "h5turbo under_vol=pass_through;under_info={under_vol=0;under_info={}}"."""
    opts = _options(**options)
    prev = os.environ.get("HDF5_VOL_CONNECTOR", "") if previous is None else previous
    name, _, info = prev.strip().partition(" ")
    info = info.strip()
    sep = ";" if opts else ""
    if name and name not in ("h5turbo", "native"):
        return f"h5turbo under_vol={name};under_info={{{info}}}{sep}{opts}"
    if name == "h5turbo" and info:
        return f"h5turbo {info}{sep}{opts}"
    return f"h5turbo {opts}" if opts else "h5turbo"


def _netcdf4_plugins():
    """The folder of HDF5 filter plugins that netCDF4's wheel brings (zstd, bzip2, Blosc, szip), as
    netCDF4 finds it when it puts it in HDF5_PLUGIN_PATH at its import, or None (not installed, or
    a build without them). Found without importing netCDF4 (which would start its HDF5)."""
    import importlib.util
    try:
        spec = importlib.util.find_spec("netCDF4")
    except (ImportError, ValueError):
        return None
    for d in (spec.submodule_search_locations or []) if spec else []:
        p = os.path.join(d, "plugins")
        if os.path.exists(os.path.join(p, "lib__nczhdf5filters.so")):
            return p
    return None


def environ(base=None, **options):
    """A copy of BASE (default os.environ) with h5turbo active: our plugin folder first in
    HDF5_PLUGIN_PATH (what was there kept after it), HDF5_VOL_CONNECTOR as connector_string().
    Where HDF5_PLUGIN_PATH was unset, netCDF4's plugin folder follows ours: netCDF4 sets the
    variable to that folder when it finds it unset, and would not once h5turbo set it."""
    env = dict(os.environ if base is None else base)
    d = plugin_dir()
    prev = env.get("HDF5_PLUGIN_PATH", "")
    if "HDF5_PLUGIN_PATH" not in env:
        nc = _netcdf4_plugins()
        env["HDF5_PLUGIN_PATH"] = d + ":" + nc if nc else d
    elif not prev:
        env["HDF5_PLUGIN_PATH"] = d
    elif d not in prev.split(":"):
        env["HDF5_PLUGIN_PATH"] = d + ":" + prev
    env["HDF5_VOL_CONNECTOR"] = connector_string(env.get("HDF5_VOL_CONNECTOR", ""), **options)
    return env


def _mapped_hdf5_libraries():
    """Paths of the HDF5 libraries mapped into this process (from /proc/self/maps)."""
    libs = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(None, 5)[5].strip() if len(line.split(None, 5)) == 6 else ""
                base = os.path.basename(path)
                if base.startswith("libhdf5") and ".so" in base and not base.startswith("libhdf5_hl") \
                        and path not in libs:
                    libs.append(path)
    except OSError:
        pass
    return libs


def hdf5_initialised():
    """The HDF5 libraries in this process that have initialised (and so have read the plugin
    variables): each mapped libhdf5 whose H5_libinit_g says so; one that does not export that
    flag counts as initialised (every wheel initialises HDF5 when its module is imported)."""
    found = []
    for path in _mapped_hdf5_libraries():
        try:
            lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4) | ctypes.RTLD_LOCAL)
            flag = ctypes.c_bool.in_dll(lib, "H5_libinit_g").value
        except (OSError, ValueError):
            flag = True
        if flag:
            found.append(path)
    return found


def enable(**options):
    """Turn h5turbo on for HDF5 libraries this process initialises from now on: sets
    HDF5_PLUGIN_PATH and HDF5_VOL_CONNECTOR in os.environ (children inherit them too).
    OPTIONS: threads=N, index="off"|"memory"|"persistent", write_behind=True.

    Raises HDF5AlreadyInitialisedError, and changes nothing, when an HDF5 library in this process
    has initialised already (h5py, netCDF4 or tables imported before): that library would never
    see the variables. Call enable() before those imports, or start the program with
    `h5turbo run -- python app.py`. Returns the variables it set."""
    late = hdf5_initialised()
    if late:
        raise HDF5AlreadyInitialisedError(
            "h5turbo.enable() is too late: HDF5 is already initialised in this process (" + ", ".join(late) +
            "), and reads HDF5_PLUGIN_PATH/HDF5_VOL_CONNECTOR only at its start. Call h5turbo.enable() "
            "before importing h5py/netCDF4/tables, or run the program as `h5turbo run -- python app.py`.")
    env = environ(**options)
    changed = {k: env[k] for k in ("HDF5_PLUGIN_PATH", "HDF5_VOL_CONNECTOR")}
    os.environ.update(changed)
    return changed
