"""corpus_common.py — what the corpus walkers (h5py_corpus.py, netcdf4_corpus.py) share: which
parts of a dataset they read. Whole up to SMALL bytes; past that a corner box of at most SMALL
bytes (or one element) and a slice of axis 0 with at most 64 steps across the same box of the
other axes: HDF5's tools files declare datasets of many GiB (sparse or never written) in as many
small chunks, which two walks at once must not try to hold in memory nor read chunk by chunk."""
import numpy as np

SMALL = 1 << 20


def corner_and_strided(shape, itemsize):
    """The two selections (tuples of slices) of a dataset of this shape larger than SMALL."""
    box = list(shape)
    while np.prod(box, dtype=np.float64) * itemsize > SMALL and max(box) > 1:
        i = box.index(max(box))
        box[i] = max(1, box[i] // 2)
    rest = tuple(slice(0, n) for n in box[1:])
    step = max(1, shape[0] // min(64, box[0]))
    return (slice(0, box[0]),) + rest, (slice(None, None, step),) + rest
