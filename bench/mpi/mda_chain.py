#!/usr/bin/env python3
# mda_chain.py — issue #16's seed pattern with the real client: MDAnalysis' ChainReader over M H5MD
# files on N MPI ranks (parallel h5py from .venv-mpi), every rank loading every file and analysing
# its own frames, as MDAnalysis' parallel analyses split a trajectory.
#   gen DIR M FRAMES ATOMS  — M H5MD files written by MDAnalysis' own H5MDWriter (serial, one rank)
#   read DIR DRIVER         — on every rank: Universe.load_new(the M files) with DRIVER (mpio: driver="mpio"
#                             and the communicator; sec2: h5py's default), then frames rank::N, their
#                             positions' and box's sums; prints the slowest rank's seconds (from a
#                             barrier to the end of its loop) and a checksum gathered from every rank.
import glob
import os
import sys
import time

import numpy as np


def gen(d, m, frames, atoms):
    import MDAnalysis as mda
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(1)
    for i in range(m):
        u = mda.Universe.empty(atoms, trajectory=True, velocities=True, forces=True)
        path = os.path.join(d, f"chain-{i:03d}.h5md")
        with mda.Writer(path, n_atoms=atoms, author="h5turbo bench", chunks=(1, atoms, 3), timeunit="ps",
                        lengthunit="Angstrom", velocityunit="Angstrom/ps", forceunit="kJ/(mol*Angstrom)") as w:
            for f in range(frames):
                ts = u.trajectory.ts
                ts.frame = f
                ts.time = float(i * frames + f)
                ts.dimensions = [50.0, 50.0, 50.0, 90.0, 90.0, 90.0]
                ts.positions = rng.random((atoms, 3), dtype=np.float32) * 50
                ts.velocities = rng.random((atoms, 3), dtype=np.float32)
                ts.forces = rng.random((atoms, 3), dtype=np.float32)
                w.write(u)


def read(d, driver):
    from mpi4py import MPI
    import MDAnalysis as mda
    comm = MPI.COMM_WORLD
    files = sorted(glob.glob(os.path.join(d, "chain-*.h5md")))
    kw = {"driver": "mpio", "comm": comm} if driver == "mpio" else {}
    comm.Barrier()
    t0 = time.perf_counter()
    import h5py
    with h5py.File(files[0], "r", **kw) as f:
        atoms = f["particles/trajectory/position/value"].shape[1]
    u = mda.Universe.empty(atoms, trajectory=False)
    u.load_new(files, format="H5MD", **kw)
    s = 0.0
    n = 0
    for ts in u.trajectory[comm.rank::comm.size]:
        s += float(ts.positions.sum(dtype=np.float64)) + float(ts.dimensions.sum()) + ts.time
        n += 1
    t = time.perf_counter() - t0
    u.trajectory.close()
    times = comm.gather(t)
    sums = comm.gather((n, s))
    if comm.rank == 0:
        print(f"time: slowest={max(times):.4f} mean={sum(times) / len(times):.4f}")
        print(f"result: files={len(files)} frames={sum(x[0] for x in sums)} checksum={sum(x[1] for x in sums):.6e}")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        read(sys.argv[2], sys.argv[3])
