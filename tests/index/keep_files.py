"""keep_files.py DIR — what a program sees around the read-only files h5turbo keeps open below after
it closes them (vol/callbacks/file_kept.c: from a second close, 2 s after the file's last change),
printed as a transcript that stock HDF5 must print too:
a file read, closed and read again; written between two reads by another process that takes
HDF5's file lock (it must get it: the kept file holds none), by this process opening it "r+", and
replaced by a new file of the same name ("w"), and removed then made again; a dataset left open
after its file's close (read afterwards); other access lists (driver "core", libver bounds, a chunk
cache size, file locking off); a child forked while the file is kept; a file opened "r+" whose external link leads to it,
written through; a metadata cache configuration set on an open file; a file of 300 tables read one
table per open through a small metadata cache.
the count of open files HDF5 reports after each close."""
import multiprocessing
import os
import subprocess
import sys
import time

import h5py
import numpy as np

d = sys.argv[1]
path = os.path.join(d, "k.h5")


def make(version):
    with h5py.File(path, "w") as f:
        g = f.create_group("g")
        g.attrs["version"] = version
        g.create_dataset("x", data=np.arange(20) * version, chunks=(5,), compression="gzip")
        f["y"] = np.arange(3.0) + version


def show(tag, **kw):
    with h5py.File(path, "r", **kw) as f:
        print(tag, f["g"].attrs["version"], f["g/x"][...].sum(), f["y"][...].tolist(), sorted(f.keys()))
    print(tag, "files open after the close:", h5py.h5f.get_obj_count(h5py.h5f.OBJ_ALL, h5py.h5f.OBJ_FILE))


def kept(tag):
    """Reads the file twice, 2 s after its last change: h5turbo keeps it open below from then on."""
    time.sleep(2.1)
    show(tag)
    show(tag + ", again")


def other_process(version, quiet=False):
    # (a child with HDF5's file locking on: stock's reader holds no lock once it closed, neither may
    # h5turbo's kept file)
    code = ("import h5py,sys\n"
            "with h5py.File(sys.argv[1], 'r+') as f:\n"
            "    f['g'].attrs['version'] = int(sys.argv[2]); f['g/x'][...] = f['g/x'][...] * 0 + int(sys.argv[2])\n")
    env = {k: v for k, v in os.environ.items() if k not in ("HDF5_VOL_CONNECTOR", "HDF5_PLUGIN_PATH")}
    env.pop("HDF5_USE_FILE_LOCKING", None)
    subprocess.run([sys.executable, "-c", code, path, str(version)], check=True, env=env,
                   stderr=subprocess.DEVNULL if quiet else None)


def fixed_cache(c, nbytes):
    """Metadata cache configuration c set to nbytes, never resized."""
    c.set_initial_size, c.initial_size, c.min_size, c.max_size = True, nbytes, nbytes, nbytes
    c.incr_mode, c.flash_incr_mode, c.decr_mode = 0, 0, 0
    return c


def writer_while_open(tag, version):
    """Opens the file again (a kept file is shared): its lock is held again, as stock's open holds
    one, so a writer elsewhere is refused while it is open."""
    with h5py.File(path, "r") as f:
        try:
            other_process(version, quiet=True)
            print(f"a writer while it is open{tag}: allowed")
        except subprocess.CalledProcessError:
            print(f"a writer while it is open{tag}: refused")
        print(f"read while it is open{tag}:", f["g"].attrs["version"])


make(1)
kept("first")
other_process(7)
show("after another process wrote")
kept("before the writer")
writer_while_open("", 11)
kept("before r+")
with h5py.File(path, "r+") as f:
    f["g"].attrs["version"] = 8
    f.create_dataset("z", data=[1, 2])
show("after this process wrote")
kept("before w")
make(9)
show("after w")
kept("before remove")
os.remove(path)
make(10)
show("after remove and make")
kept("before the dataset left open")
# A dataset left open after its file's close (the default access list: the weak close degree,
# the file stays open below until the dataset closes), read afterwards, then the file reopened.
fid = h5py.h5f.open(path.encode(), h5py.h5f.ACC_RDONLY)
dsid = h5py.h5d.open(fid, b"g/x")
fid.close()
buf = np.zeros(20, dtype="i8")
dsid.read(h5py.h5s.ALL, h5py.h5s.ALL, buf)
print("dataset after its file's close:", buf.sum())
show("with that dataset open")
dsid.close()
show("after it closed")
# The strong close degree closes the file's objects with it: a dataset left open is closed too.
fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
fapl.set_fclose_degree(h5py.h5f.CLOSE_STRONG)
fid = h5py.h5f.open(path.encode(), h5py.h5f.ACC_RDONLY, fapl)
dsid = h5py.h5d.open(fid, b"g/x")
fid.close()
print("dataset after its file's strong close: valid" if dsid.valid else "dataset after its file's strong close: closed")
show("after the strong close")
show("core driver", driver="core")
show("libver latest", libver="latest")
show("another chunk cache", rdcc_nbytes=1 << 16)
show("locking off", locking=False)
show("back to the default")
for i in range(5):
    show(f"loop {i}")
# A child forked while the file is kept reads it too (its parent's kept file is not its own), then
# the parent reads it again and a writer elsewhere is still refused while the parent has it open.
kept("before the fork")


def child(q):
    with h5py.File(path, "r") as f:
        q.put(int(f["g"].attrs["version"]))
    with h5py.File(path, "r") as f:
        q.put(int(f["g/x"][...].sum()))


ctx = multiprocessing.get_context("fork")
q = ctx.Queue()
p = ctx.Process(target=child, args=(q,))
p.start()
got = [q.get(), q.get()]
p.join()
print("the forked child read:", got, "exit", p.exitcode)
show("after the child")
writer_while_open(" after the fork", 12)
# A file opened for writing whose external link leads to the file read just now (and kept): native
# opens the link's target for writing too, which a file kept open read-only would refuse.
master = os.path.join(d, "master.h5")
with h5py.File(master, "w") as m:
    m["data"] = h5py.ExternalLink("k.h5", "/g")
kept("before the master")
with h5py.File(master, "r+") as m:
    m["data/x"][0:2] = [100, 200]
    print("through the master's link:", m["data/x"][0:4].tolist(), m["data"].attrs["version"])
show("after the master wrote through its link")
# A metadata cache configuration set on an open file is that open's: the next open starts from its
# access list's, as stock's new open does (a file kept with it would hand it on).
kept("before a cache configuration")
with h5py.File(path, "r") as f:
    f.id.set_mdc_config(fixed_cache(f.id.get_mdc_config(), 1 << 17))
for i in range(2):
    with h5py.File(path, "r") as f:
        print("cache size after a configuration set by an earlier open:", f.id.get_mdc_config().max_size)
# A program reading another dataset at every open (pandas' read_hdf of many tables, PyTables with its
# metadata cache of 1 MiB): the kept file's cache, emptied when half full at a close (H5TURBO_STATS:
# trimmed), must give every value.
many = os.path.join(d, "many.h5")
with h5py.File(many, "w") as f:
    for i in range(300):
        ds = f.create_dataset(f"t{i:03d}/table", data=np.arange(40) + i, chunks=(10,), compression="gzip")
        ds.attrs["NROWS"] = 40
        f[f"t{i:03d}"].attrs["pandas_type"] = "frame_table"


def small_cache():
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_mdc_config(fixed_cache(fapl.get_mdc_config(), 1 << 16))
    return h5py.File(h5py.h5f.open(many.encode(), h5py.h5f.ACC_RDONLY, fapl))


time.sleep(2.1)
total = 0
for i in range(300):
    with small_cache() as f:
        g = f[f"t{i:03d}"]
        total += int(g["table"][...].sum()) + int(g["table"].attrs["NROWS"]) + len(g.attrs["pandas_type"])
print("300 tables, one per open:", total)
with small_cache() as f:
    print("and the first again:", f["t000/table"][...].tolist()[:5], f["t000"].attrs["pandas_type"])
