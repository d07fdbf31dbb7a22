"""blosc_interop.py — the hdf5plugin side of the Blosc interop tests (run with .venv-wheels'
python: the h5py wheel and hdf5plugin's own c-blosc build, an implementation independent of ours).
  verify FILE   every /blosc/<name> must have filter 32001 and equal its unfiltered /plain/<name>
  write FILE    every compressor x shuffle x dtype, edge chunks, one-element, multi-block chunks
"""
import sys

import h5py
import hdf5plugin
import numpy as np

CNAMES = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]
SHUFFLES = [hdf5plugin.Blosc.NOSHUFFLE, hdf5plugin.Blosc.SHUFFLE, hdf5plugin.Blosc.BITSHUFFLE]
CMPD = np.dtype([("gain", "<u2"), ("value", "<f4"), ("mask", "u1"), ("t", "<f8")], align=True)
DTYPES = {"u1": np.dtype("u1"), "u2": np.dtype("<u2"), "u4": np.dtype("<u4"), "f8": np.dtype("<f8"), "cmpd": CMPD}


def verify(path):
    ok = bad = 0
    with h5py.File(path, "r") as f:
        for name in f["blosc"]:
            ds, plain = f["blosc"][name], f["plain"][name]
            plist = ds.id.get_create_plist()
            has_blosc = any(plist.get_filter(i)[0] == 32001 for i in range(plist.get_nfilters()))
            try:
                a = ds[()]
            except Exception as e:  # a decode failure is a test failure, with the reason
                print(f"FAIL: {name}: read failed: {e}", file=sys.stderr)
                bad += 1
                continue
            b = plain[()]
            if not has_blosc or a.dtype != b.dtype or a.tobytes() != b.tobytes():
                print(f"FAIL: {name}: differs from its unfiltered twin (blosc={has_blosc})", file=sys.stderr)
                bad += 1
            else:
                ok += 1
    print(f"{path}: {ok} datasets equal to their unfiltered twins (hdf5plugin {hdf5plugin.version}), {bad} failed")
    return 1 if bad or not ok else 0


def data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    ramp = 100 + (np.arange(n) % 300) * 7 + np.where(rng.integers(0, 16, n) == 0, rng.integers(0, 64, n), 0)
    if dtype.names:
        out = np.zeros(n, dtype)
        out["gain"], out["value"], out["mask"], out["t"] = ramp % 65536, ramp * 0.5, ramp % 3, np.arange(n) * 1e-3
        return out.reshape(shape)
    return ramp.astype(dtype).reshape(shape)


def write(path):
    seed = 1
    with h5py.File(path, "w") as f:
        gb, gp = f.create_group("blosc"), f.create_group("plain")

        def pair(name, arr, chunks, **blosc):
            gb.create_dataset(name, data=arr, chunks=chunks, **hdf5plugin.Blosc(**blosc))
            gp.create_dataset(name, data=arr)

        for comp, cname in enumerate(CNAMES):
            for sh in range(3):
                for d, (dname, dt) in enumerate(DTYPES.items()):
                    clevel = (comp * 3 + sh + d) % 10
                    pair(f"c{comp}_s{sh}_{dname}_l{clevel}", data(dt, (37, 53), seed), (16, 20),
                         cname=cname, clevel=clevel, shuffle=SHUFFLES[sh])
                    seed += 1
            pair(f"one_c{comp}_f8", data(DTYPES["f8"], (1,), seed), (1,), cname=cname, clevel=5,
                 shuffle=hdf5plugin.Blosc.SHUFFLE)
            pair(f"big_c{comp}_u2", data(DTYPES["u2"], (700, 1024), seed), (512, 1024), cname=cname,
                 clevel=3 if comp in (2, 4, 5) else 7, shuffle=SHUFFLES[comp % 3])
            seed += 1
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("verify", "write"):
        sys.exit(__doc__)
    sys.exit(verify(sys.argv[2]) if sys.argv[1] == "verify" else write(sys.argv[2]))
