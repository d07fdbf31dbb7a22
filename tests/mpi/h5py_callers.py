#!/usr/bin/env python3
# h5py_callers.py PHASE DIR — parallel h5py used the way MPI programs written elsewhere use it, run on
# every rank of an MPI job (h5py built with MPI, .venv-mpi): each rank writes its transcript of what
# it saw to DIR/PHASE.RANK.txt, which h5py_mpi.sh compares between stock HDF5 and h5turbo.
#   write  — a European XFEL-like parallel writer: a file created with driver="mpio", groups and
#            attributes made by every rank alike, a frame-per-chunk gzip+shuffle+fletcher32 dataset
#            written collectively (each rank its block of frames), a resizable one grown and written
#            collectively, an unfiltered one written independently (each rank its own rows), and an
#            H5MD-like tree of small datasets.
#   read   — the reader side: the file opened read-only with driver="mpio", walked (visititems,
#            keys, `in`, get, attrs), every dataset's metadata (shape, dtype, chunks, compression,
#            filters, fill value), small datasets read whole by every rank, the frames read by
#            their owner, independently and then collectively.
#   sec2   — the same reader with each rank opening the file on its own (no driver: sec2), as the
#            ChainReader pattern does with many files.
#   mda    — MDAnalysis' H5MD reader with driver="mpio" and the communicator: every rank loads the
#            test trajectory and reads its own frames (positions, velocities, forces, box, time).
import hashlib
import os
import sys

import h5py
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
phase, outdir = sys.argv[1], sys.argv[2]
path = os.path.join(outdir, "xfel.h5")
NFRAMES = 8 * size
out = []


def say(*parts):
    out.append(" ".join(str(p) for p in parts))


def digest(a):
    a = np.ascontiguousarray(a)
    return f"{a.dtype.str}{a.shape} {hashlib.sha1(a.tobytes()).hexdigest()[:16]}"


def frames(lo, hi):
    # detector-like: a background, noise, sparse hits; the same values on every run
    rng = np.random.default_rng(lo)
    f = rng.normal(1000, 20, size=(hi - lo, 256, 128)).astype(np.uint16)
    f[:, ::37, ::11] += 3000
    return f


def write():
    mine = slice(rank * NFRAMES // size, (rank + 1) * NFRAMES // size)
    with h5py.File(path, "w", driver="mpio", comm=comm) as f:
        f.attrs["creator"] = "h5py_callers"
        f.attrs["ranks"] = size
        det = f.create_group("INSTRUMENT/DET/image")
        det.attrs["NX_class"] = "NXdetector"
        data = det.create_dataset("data", (NFRAMES, 256, 128), dtype="u2", chunks=(1, 256, 128),
                                  compression="gzip", compression_opts=1, shuffle=True, fletcher32=True)
        data.attrs["units"] = "adu"
        cell = det.create_dataset("cellId", (0,), maxshape=(None,), dtype="u2", chunks=(16,),
                                  compression="gzip")
        rows = det.create_dataset("trainId", (NFRAMES,), dtype="u8")
        with data.collective:
            data[mine] = frames(mine.start, mine.stop)
        cell.resize((NFRAMES,))
        with cell.collective:
            cell[mine] = np.arange(mine.start, mine.stop, dtype="u2") % 352
        rows[mine] = 10_000 + np.arange(mine.start, mine.stop, dtype="u8")   # independent
        h5md = f.create_group("particles/all")
        for name in ("position", "velocity", "force"):
            g = h5md.create_group(name)
            g.create_dataset("step", data=np.arange(4, dtype="i4"))
            g.create_dataset("time", data=np.arange(4, dtype="f8") * 0.5)
            g["time"].attrs["unit"] = "ps"
            g.create_dataset("value", data=np.full((4, 10, 3), len(name), dtype="f4"))
        f.create_group("observables/empty")
        f["parameters/vmd"] = np.bytes_("x" * 40)
    say("written", NFRAMES, "frames")


def describe(f):
    say("root attrs", sorted((k, str(v)) for k, v in f.attrs.items()))
    say("keys", list(f.keys()), "INSTRUMENT/DET" in f, "nope" in f, f.get("nope"))

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            dcpl = obj.id.get_create_plist()
            filters = [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())]
            say("dataset", name, obj.shape, obj.dtype, obj.chunks, obj.compression, obj.compression_opts,
                obj.shuffle, obj.fletcher32, obj.fillvalue, obj.maxshape, filters,
                sorted((k, str(v)) for k, v in obj.attrs.items()))
        else:
            say("group", name, sorted((k, str(v)) for k, v in obj.attrs.items()), len(obj))
    f.visititems(visit)
    for name in ("particles/all/position/step", "particles/all/velocity/time",
                 "particles/all/force/value", "INSTRUMENT/DET/image/cellId",
                 "INSTRUMENT/DET/image/trainId", "parameters/vmd"):
        say("whole", name, digest(f[name][()]))


def read_frames(f):
    data = f["INSTRUMENT/DET/image/data"]
    mine = range(rank, NFRAMES, size)
    say("own frames", [digest(data[i]) for i in mine])
    lo, hi = rank * NFRAMES // size, (rank + 1) * NFRAMES // size
    with data.collective:
        block = data[lo:hi]
    say("collective block", digest(block), "roi", digest(data[lo:hi, 10:20, ::3]))


def read():
    with h5py.File(path, "r", driver="mpio", comm=comm) as f:
        say("driver", f.driver)
        describe(f)
        read_frames(f)


def sec2():
    with h5py.File(path, "r") as f:
        say("driver", f.driver)
        describe(f)
        read_frames(f)


def mda():
    import MDAnalysis as mda_
    from MDAnalysisTests.datafiles import H5MD_xvf, TPR_xvf
    u = mda_.Universe(TPR_xvf, H5MD_xvf, driver="mpio", comm=comm)
    traj = u.trajectory
    say("frames", len(traj), "atoms", u.atoms.n_atoms, "driver", traj._file.driver)
    for ts in traj[rank::size]:
        say("frame", ts.frame, round(ts.time, 6), digest(ts.positions), digest(ts.velocities),
            digest(ts.forces), digest(ts.dimensions))
    traj.close()


{"write": write, "read": read, "sec2": sec2, "mda": mda}[phase]()
comm.Barrier()
with open(os.path.join(outdir, f"{phase}.{rank}.txt"), "w") as fh:
    fh.write("\n".join(out) + "\n")
