"""programs.py — h5turbo under programs written elsewhere, each the way its users call it, stock HDF5
vs h5turbo's first run (no sidecar) and second run (its sidecar), in one run: xarray (netCDF4 and
h5netcdf engines, a tree of groups, twelve files through open_mfdataset), pandas (an HDFStore of 100
tables, a query through a data column's index and a range of rows), PyTables' coordinates, silx's
h5todict, h5py reading every attribute of a file made with libver "latest" (dense attribute storage)
and compressed frames row by row, by fancy indexing, chunk by chunk, in windows of 50 frames across
8-frame chunks (as dask tasks not aligned with the chunks take them) and from memory (io.BytesIO, the
core driver); pynwb reading an NWB session whole; and two writers (netCDF4 with zlib, h5py's many small
datasets). Each load runs in a fresh process per mode, the modes taking turns (bench/index/turns.py);
prints medians of wall and CPU seconds (CPU counts h5turbo's pipeline threads too) and checks that
every mode read the same values.
Usage: python programs.py PLUGIN_DIR [ROUNDS [PROGRAM...]] (5, all)."""
import hashlib
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "index"))
import turns  # noqa: E402

READERS = ("xarray_netcdf4", "xarray_h5netcdf", "xarray_tree", "xarray_mfdataset", "pandas_store",
           "pandas_where", "pytables_coords", "silx_h5todict", "h5py_attrs_latest", "h5py_rows", "h5py_fancy",
           "h5py_chunks", "h5py_windows", "h5py_memory", "pynwb_read")
WRITERS = ("netcdf4_write", "h5py_write")
# (no sidecar: of files h5turbo creates, nor of files in memory, where the index is off)
NO_SIDECAR = WRITERS + ("h5py_memory",)


def make(path, prog):
    import numpy as np

    rng = np.random.default_rng(1)
    if prog in ("xarray_netcdf4", "xarray_h5netcdf"):
        import xarray as xr

        ds = xr.Dataset({f"v{i:02d}": (("t", "x"), rng.random((100, 50)), {"units": "K", "long_name": f"var {i}"})
                         for i in range(40)}, coords={"t": np.arange(100), "x": np.arange(50)}, attrs={"title": "p"})
        ds.to_netcdf(path, engine="netcdf4")
    elif prog == "pynwb_read":
        import warnings

        warnings.simplefilter("ignore")
        make_nwb(path, rng)
    elif prog == "xarray_tree":
        import netCDF4

        with netCDF4.Dataset(path, "w") as n:
            for gi in range(20):
                g = n.createGroup(f"run{gi:02d}")
                g.createDimension("time", 100)
                g.createDimension("x", 10)
                for vi in range(50):
                    v = g.createVariable(f"var{vi:03d}", "f4", ("time", "x"))
                    v.units, v.valid_max = "K", 400.0
                    v[:] = np.full((100, 10), vi, "f4")
    elif prog == "xarray_mfdataset":
        import xarray as xr

        os.makedirs(path)
        for k in range(12):
            ds = xr.Dataset({f"v{i}": (("t", "x"), rng.random((50, 40)).astype("f4"), {"units": "m"}) for i in range(10)},
                            coords={"t": np.arange(50) + 50 * k, "x": np.arange(40)})
            ds.to_netcdf(os.path.join(path, f"p{k:02d}.nc"), engine="netcdf4",
                         encoding={f"v{i}": {"zlib": True} for i in range(10)})
    elif prog in ("pandas_store", "pandas_where", "pytables_coords"):
        import warnings

        import pandas as pd

        warnings.simplefilter("ignore")
        if prog == "pandas_store":
            with pd.HDFStore(path, "w") as st:
                for i in range(100):
                    st.put(f"k{i:03d}", pd.DataFrame({"a": np.arange(50.0) + i, "b": np.arange(50)}), format="table")
        else:
            df = pd.DataFrame({"a": np.arange(200000.0), "b": np.arange(200000) % 97, "c": rng.random(200000)})
            df.to_hdf(path, key="t", format="table", data_columns=["b"], complevel=1, complib="zlib")
    elif prog == "silx_h5todict":
        import h5py

        with h5py.File(path, "w") as f:
            for g in range(30):
                for s in range(10):
                    grp = f.create_group(f"scan{g}/sub{s}")
                    grp.attrs["NX_class"] = "NXcollection"
                    for d in range(5):
                        grp[f"d{d}"] = np.arange(10.0) * d
    elif prog == "h5py_attrs_latest":
        import h5py

        with h5py.File(path, "w", libver="latest") as f:
            for g in range(200):
                grp = f.create_group(f"g{g:03d}")
                for a in range(30):  # (more than 8: dense storage)
                    grp.attrs[f"attr_{a:02d}"] = np.arange(a % 5 + 1) * g
                grp["d"] = np.arange(10)
    elif prog.startswith("h5py_") and prog != "h5py_write":
        import h5py

        with h5py.File(path, "w") as f:
            a = (np.arange(400 * 128 * 128) % 4093).astype("u2").reshape(400, 128, 128)
            f.create_dataset("d", data=a, chunks=(8, 128, 128), compression="gzip", shuffle=True)
            g = f.create_group("meta")
            for i in range(200):
                g.attrs[f"a{i}"] = i * 1.5


def make_nwb(path, rng):
    """An NWB file as an electrophysiology session writes one (pynwb): subject, 64 electrodes in 4
    groups, raw and LFP series, 30 behaviour series, trials, units with spike times, 40 more series."""
    from datetime import datetime, timezone

    import numpy as np
    from pynwb import NWBHDF5IO, NWBFile, TimeSeries
    from pynwb.behavior import Position, SpatialSeries
    from pynwb.ecephys import LFP, ElectricalSeries
    from pynwb.file import Subject

    nwb = NWBFile(session_description="bench", identifier="bench", experimenter=["A"], lab="lab",
                  session_start_time=datetime(2024, 1, 1, tzinfo=timezone.utc),
                  subject=Subject(subject_id="m1", species="Mus musculus", age="P90D", sex="F"))
    dev = nwb.create_device(name="probe0")
    for s in range(4):
        grp = nwb.create_electrode_group(name=f"shank{s}", description="d", location="CA1", device=dev)
        for e in range(16):
            nwb.add_electrode(group=grp, location="CA1", x=float(e), y=float(s), z=0.0, imp=1.0, filtering="none")
    region = nwb.create_electrode_table_region(list(range(64)), "all")
    nwb.add_acquisition(ElectricalSeries(name="raw", data=rng.integers(-1000, 1000, (20000, 64), dtype="i2"),
                                         electrodes=region, starting_time=0.0, rate=30000.0))
    pos = Position()
    for i in range(30):
        pos.add_spatial_series(SpatialSeries(name=f"pos{i}", data=rng.random((500, 2)), reference_frame="origin",
                                             timestamps=np.arange(500) / 50.0))
    nwb.create_processing_module(name="behavior", description="b").add(pos)
    nwb.create_processing_module(name="ecephys", description="e").add(
        LFP(electrical_series=ElectricalSeries(name="lfp", data=rng.random((2000, 64)), electrodes=region, rate=1000.0)))
    for i in range(100):
        nwb.add_trial(start_time=float(i), stop_time=float(i) + 0.5)
    nwb.add_unit_column(name="quality", description="q")
    for u in range(50):
        nwb.add_unit(spike_times=np.sort(rng.random(200) * 100), quality="good" if u % 2 else "mua")
    for i in range(40):
        nwb.add_acquisition(TimeSeries(name=f"ts{i}", data=rng.random(300), unit="V", rate=10.0, description=f"s{i}"))
    with NWBHDF5IO(path, "w") as io:
        io.write(nwb)


def nwb_digest(obj, h, seen):
    """Every field of every NWB object reached from obj, array contents read."""
    import numpy as np

    if id(obj) in seen:
        return
    seen.add(id(obj))
    h.update(type(obj).__name__.encode() + str(getattr(obj, "name", "")).encode())
    for f in sorted(obj.fields):
        v = obj.fields[f]
        h.update(f.encode())
        items = list(v.values()) if isinstance(v, dict) else list(v) if isinstance(v, (list, tuple)) else [v]
        for x in items:
            if isinstance(getattr(x, "fields", None), dict):
                nwb_digest(x, h, seen)
            elif hasattr(x, "shape") and hasattr(x, "dtype"):
                a = np.asarray(x[()])
                h.update(repr(a.tolist()).encode() if a.dtype == object else a.tobytes())
            else:
                h.update(repr(x).encode())


def load(path, prog):
    """One load in this process: prints CPU seconds, a digest of what it read, wall seconds."""
    import numpy as np

    h = hashlib.sha256()
    if prog.startswith("xarray"):
        import xarray as xr
    if prog.startswith("pandas") or prog == "pytables_coords":
        import warnings

        import pandas as pd
        import tables

        warnings.simplefilter("ignore")
    if prog.startswith("h5py"):
        import io

        import h5py
    if prog == "silx_h5todict":
        from silx.io.dictdump import h5todict
    if prog == "netcdf4_write":
        import netCDF4
    if prog == "pynwb_read":
        import warnings

        from pynwb import NWBHDF5IO

        warnings.simplefilter("ignore")  # (the file's name does not end in .nwb)
    c0, w0 = time.process_time(), time.perf_counter()
    if prog in ("xarray_netcdf4", "xarray_h5netcdf"):
        with xr.open_dataset(path, engine="netcdf4" if prog == "xarray_netcdf4" else "h5netcdf") as ds:
            ds.load()
            for k, v in ds.data_vars.items():
                h.update(k.encode() + str(sorted(v.attrs.items())).encode() + v.values.tobytes())
    elif prog == "xarray_tree":
        with xr.open_datatree(path, engine="netcdf4") as tree:
            for node in tree.subtree:
                for k, v in node.ds.data_vars.items():
                    h.update(k.encode() + str(sorted(v.attrs.items())).encode() + v.values.tobytes())
    elif prog == "xarray_mfdataset":
        with xr.open_mfdataset(os.path.join(path, "p*.nc"), engine="netcdf4", combine="by_coords") as ds:
            for k, v in sorted(ds.data_vars.items()):
                h.update(np.asarray(v.values).tobytes())
    elif prog == "pandas_store":
        with pd.HDFStore(path, "r") as st:
            for k in st.keys():
                h.update(st.select(k).to_numpy().tobytes())
    elif prog == "pandas_where":
        h.update(pd.read_hdf(path, "t", where="b == 5 or b == 17").to_numpy().tobytes())
        h.update(pd.read_hdf(path, "t", start=1000, stop=50000).to_numpy().tobytes())
    elif prog == "pytables_coords":
        with tables.open_file(path) as f:
            t = f.root.t.table
            coords = np.sort(np.random.default_rng(3).choice(t.nrows, 4000, replace=False))
            for _ in range(3):
                h.update(t.read(1000, 50000).tobytes())
                h.update(t.read_coordinates(coords).tobytes())
    elif prog == "silx_h5todict":
        dd = h5todict(path)
        for g in sorted(dd):
            for s in sorted(dd[g]):
                for d in sorted(dd[g][s]):
                    h.update(np.asarray(dd[g][s][d]).tobytes())
    elif prog == "h5py_attrs_latest":
        with h5py.File(path, "r") as f:
            for name, grp in f.items():
                for k, v in grp.attrs.items():
                    h.update(k.encode() + np.asarray(v).tobytes())
                h.update(str(len(grp.attrs)).encode() + str("attr_07" in grp.attrs).encode())
    elif prog == "h5py_rows":
        with h5py.File(path, "r") as f:
            for i in range(0, 400, 2):
                h.update(f["d"][i].tobytes())
    elif prog == "h5py_fancy":
        with h5py.File(path, "r") as f:
            d = f["d"]
            h.update(d[[1, 17, 33, 200, 399], 5:70, :].tobytes() + d[::7, 3, :].tobytes())
            h.update(d[100:300, 64, 64].tobytes() + str(dict(f["meta"].attrs)).encode())
    elif prog == "h5py_chunks":
        with h5py.File(path, "r") as f:
            d = f["d"]
            for s in d.iter_chunks():
                h.update(d[s].tobytes())
    elif prog == "h5py_windows":
        with h5py.File(path, "r") as f:
            d = f["d"]
            for i in range(0, 400, 50):
                h.update(d[i:i + 50].tobytes())
    elif prog == "h5py_memory":
        with open(path, "rb") as raw, h5py.File(io.BytesIO(raw.read()), "r") as f:
            h.update(f["d"][::3].tobytes())
        with h5py.File(path, "r", driver="core") as f:
            h.update(f["d"][::5].tobytes())
    elif prog == "pynwb_read":
        with NWBHDF5IO(path, "r") as io:
            nwb = io.read()
            nwb_digest(nwb, h, set())
            for table in (nwb.trials, nwb.units):
                h.update(table.to_dataframe().to_csv().encode())
    elif prog == "netcdf4_write":
        out = path + ".w.nc"
        with netCDF4.Dataset(out, "w") as n:
            n.createDimension("t", None)
            n.createDimension("y", 256)
            n.createDimension("x", 256)
            v = n.createVariable("v", "f4", ("t", "y", "x"), zlib=True, complevel=4, shuffle=True, chunksizes=(1, 256, 256))
            for i in range(64):
                v[i] = (np.arange(256 * 256, dtype="f4").reshape(256, 256) + i) % 1000
        with netCDF4.Dataset(out) as n:
            h.update(np.ma.getdata(n["v"][:]).tobytes())
        os.unlink(out)
    elif prog == "h5py_write":
        out = path + ".w.h5"
        with h5py.File(out, "w") as f:
            for g in range(100):
                grp = f.create_group(f"g{g}")
                grp.attrs["NX_class"] = "NXlog"
                for d in range(10):
                    grp.create_dataset(f"d{d}", data=np.arange(20.0) + d).attrs["units"] = "s"
        with h5py.File(out, "r") as f:
            f.visititems(lambda n, o: h.update(n.encode()))
        os.unlink(out)
    print(f"{time.process_time() - c0:.6f} {h.hexdigest()[:16]} {time.perf_counter() - w0:.6f}")


def main():
    plugins = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    progs = sys.argv[3:] or READERS + WRITERS
    print(f"medians of {rounds} (s): stock, h5turbo's first run, its second run; ratios stock / h5turbo")
    print(f"{'program':18} {'wall: stock':>11} {'first':>7} {'second':>7} {'x':>13}   {'CPU: stock':>10} "
          f"{'first':>7} {'second':>7} {'x':>13}")
    for prog in progs:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "data")
            subprocess.run([sys.executable, __file__, "--make", path, prog], check=True)
            time.sleep(2.1)  # h5turbo neither trusts nor writes sidecars of files changed in the last 2 s
            m = turns.medians(__file__, [path, prog], tmp, plugins, rounds, sidecar=prog not in NO_SIDECAR, wall=True)
            row = [f"{prog:18}"]
            for k in (1, 0):
                s, a, b = m["stock"][k], m["first"][k], m["second"][k]
                row.append(f"{s:11.3f} {a:7.3f} {b:7.3f} {s / a:5.2f}x/{s / b:5.2f}x")
            print("   ".join(row), flush=True)


if __name__ == "__main__":
    turns.dispatch(make, load, main)
