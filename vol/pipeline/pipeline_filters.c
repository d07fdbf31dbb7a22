/* pipeline_filters.c — HDF5's own filter pipeline given the pipeline's engines, for the chunks
 * the chunk pipeline does not take: DEFLATE (standard zlib streams: libdeflate, or ISA-L over the
 * byte planes our shuffle made), the byte shuffle (SIMD) and Fletcher-32 registered in place of
 * the built-in filters 1, 2 and 3 (HDF5's registration replaces a filter of the same number), with
 * native's arguments, buffers and results. Installed at the first open of a file whose driver does
 * MPI I/O, where parallel HDF5 filters each rank's chunks itself, one after another, in its
 * collective filtered path. */
#include "pipeline_int.h"
#include "tb_deflate.h"
#include "tb_fletcher32.h"
#include "tb_config.h"
#include "tb_shuffle.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HDF5's own routine behind H5Zregister, which refuses to replace the predefined filters (numbers
 * below 256) that the library itself may; exported by HDF5 builds that do not hide internal
 * symbols (how HDF5 builds itself). Absent: native's filters stay. */
extern herr_t H5Z_register(const H5Z_class2_t *cls) __attribute__((weak));

/* Chunks the installed filters encoded and decoded (any thread HDF5 runs them on), and those the
 * deflate filter coded in pieces on several threads. */
static size_t filtered, unfiltered, pieced;

void
tb_pipe_native_filter_counts(size_t *filtered_out, size_t *unfiltered_out, size_t *pieced_out)
{
    *filtered_out   = __atomic_load_n(&filtered, __ATOMIC_RELAXED);
    *unfiltered_out = __atomic_load_n(&unfiltered, __ATOMIC_RELAXED);
    *pieced_out     = __atomic_load_n(&pieced, __ATOMIC_RELAXED);
}

/* What the shuffle filter last produced on this thread. HDF5 runs a chunk's filters one after
 * another on one thread, so a deflate filter handed that very buffer knows it holds byte planes.
 * A stale match (the buffer freed, another chunk's at the same address) only changes how the
 * stream is coded: it is a standard zlib stream either way. */
static __thread struct {
    const void *buf;
    size_t      nbytes, elem_nbytes;
} shuffled;

/* Threads the deflate filter may use for one chunk: H5TURBO_THREADS (or BLOSC_NTHREADS) when
 * set; otherwise this process's cores shared among the MPI ranks on its node (OpenMPI's and
 * MPICH's local rank counts), so that ranks with a core each keep to their one. */
static unsigned
filter_threads(void)
{
    static unsigned n; /* (asked on the application's thread: filters run there) */
    if (n)
        return n;
    bool        asked = getenv("H5TURBO_THREADS") || getenv("BLOSC_NTHREADS");
    unsigned    t     = tb_threads_from_env(); /* (the cores, when neither is set) */
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!local)
        local = getenv("MPI_LOCALNRANKS");
    long ranks = local ? strtol(local, NULL, 10) : 1;
    if (!asked && ranks > 1)
        t = (unsigned)(t / (unsigned long)ranks);
    return n = t ? t : 1;
}

/* Hands *buf over for out (of out_size bytes), as a filter must: both HDF5's allocations. */
static void
replace_buf(void **buf, size_t *buf_size, void *out, size_t out_size)
{
    H5free_memory(*buf);
    *buf      = out;
    *buf_size = out_size;
}

/* Native's H5Z__filter_deflate: cd_values[0] the level (0..9); decoding grows its output until
 * the stream fits, and leaves *buf_size the room it took. */
static size_t
filter_deflate(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes, size_t *buf_size,
               void **buf)
{
    if (cd_nelmts != 1 || cd_values[0] > 9) {
        TB_PUSH("pipeline", TB_ERR_ARG, "invalid deflate aggression level");
        return 0;
    }
    if (flags & H5Z_FLAG_REVERSE) {
        /* (from four times the stream, native's first guess being the stream's room: a decode
         * that runs out of room is begun again with twice as much) */
        size_t cap = *buf_size > nbytes ? *buf_size : nbytes;
        cap        = cap < SIZE_MAX / 4 ? 4 * cap : cap;
        for (;; cap *= 2) {
            void  *out = H5allocate_memory(cap, false);
            size_t got = 0;
            if (!out) {
                TB_PUSH("pipeline", TB_ERR_NOMEM, "memory allocation failed for deflate uncompression");
                return 0;
            }
            tb_status_t st = tb_deflate_decompress_sized(*buf, nbytes, out, cap, &got);
            if (st == TB_OK) {
                replace_buf(buf, buf_size, out, cap);
                __atomic_fetch_add(&unfiltered, 1, __ATOMIC_RELAXED);
                return got;
            }
            H5free_memory(out);
            if (st != TB_ERR_ARG || cap > SIZE_MAX / 2) {
                TB_PUSH("pipeline", st, "inflate() failed");
                return 0;
            }
        }
    }
    size_t cap = tb_deflate_bound(nbytes), got = 0;
    void  *out = H5allocate_memory(cap, false);
    if (!out) {
        TB_PUSH("pipeline", TB_ERR_NOMEM, "unable to allocate deflate destination buffer");
        return 0;
    }
    /* Whether the shuffle filter ran before, and on what element size, this filter is not told;
     * it knows when the shuffle was ours (its buffer). Then levels 1 and 2 are coded by ISA-L's
     * level 3 over the planes, runs of planes on several threads where the rank has the cores
     * (bench/mpi/filters.sh, shuffled uint16 frames: 0.95x and 1.02x zlib's bytes at 2.5x-2.6x its
     * speed, where ISA-L's level 1 stores 1.17x and libdeflate's level 1 runs at 1.7x); anything
     * else by libdeflate at the level asked (ISA-L's default blocks store shuffled planes up to
     * 17 % larger than zlib, and its level 3 beyond 1.05x zlib's level 3 and up on those frames). */
    tb_status_t st;
    bool        planes = shuffled.buf == *buf && shuffled.nbytes == nbytes;
    shuffled.buf       = NULL;
    if (planes && cd_values[0] >= 1 && cd_values[0] <= 2 && strcmp(tb_deflate_engine(3), "isa-l") == 0) {
        tb_deflate_layout_t layout = {shuffled.elem_nbytes, 1};
        unsigned            pieces = 1;
        st = tb_deflate_compress_threads(3, *buf, nbytes, &layout, filter_threads(), out, cap, &got, &pieces);
        if (st == TB_OK && pieces > 1)
            __atomic_fetch_add(&pieced, 1, __ATOMIC_RELAXED);
    }
    else
        st = tb_deflate_compress_unknown((int)cd_values[0], *buf, nbytes, out, cap, &got);
    if (st != TB_OK) {
        H5free_memory(out);
        TB_PUSH("pipeline", st, "deflate failed");
        return 0;
    }
    replace_buf(buf, buf_size, out, nbytes); /* (native reports the input's size as the room) */
    __atomic_fetch_add(&filtered, 1, __ATOMIC_RELAXED);
    return got;
}

/* Native's H5Z__filter_fletcher32: decoding checks (unless error detection is off) and keeps
 * the buffer, four bytes shorter; encoding appends the checksum in a new buffer. */
static size_t
filter_fletcher32(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes, size_t *buf_size,
                  void **buf)
{
    (void)cd_nelmts;
    (void)cd_values;
    if (flags & H5Z_FLAG_REVERSE) {
        if (nbytes < TB_FLETCHER32_NBYTES ||
            (!(flags & H5Z_FLAG_SKIP_EDC) && tb_fletcher32_verify(*buf, nbytes) != TB_OK)) {
            TB_PUSH("pipeline", TB_ERR_CHECKSUM, "data error detected by Fletcher32 checksum");
            return 0;
        }
        __atomic_fetch_add(&unfiltered, 1, __ATOMIC_RELAXED);
        return nbytes - TB_FLETCHER32_NBYTES;
    }
    void *out = H5allocate_memory(nbytes + TB_FLETCHER32_NBYTES, false);
    if (!out) {
        TB_PUSH("pipeline", TB_ERR_NOMEM, "unable to allocate Fletcher32 checksum destination buffer");
        return 0;
    }
    memcpy(out, *buf, nbytes);
    tb_fletcher32_append(out, nbytes);
    replace_buf(buf, buf_size, out, nbytes + TB_FLETCHER32_NBYTES);
    __atomic_fetch_add(&filtered, 1, __ATOMIC_RELAXED);
    return nbytes + TB_FLETCHER32_NBYTES;
}

/* Native's H5Z__set_local_shuffle: the filter's one parameter is the dataset type's size. */
static herr_t
set_local_shuffle(hid_t dcpl_id, hid_t type_id, hid_t space_id)
{
    (void)space_id;
    unsigned flags     = 0, cd_values[1] = {0};
    size_t   cd_nelmts = 0; /* (the user's parameters: none) */
    if (H5Pget_filter_by_id2(dcpl_id, H5Z_FILTER_SHUFFLE, &flags, &cd_nelmts, cd_values, 0, NULL, NULL) < 0)
        return -1;
    size_t size = H5Tget_size(type_id);
    if (size == 0 || size > UINT_MAX) {
        TB_PUSH("pipeline", TB_ERR_ARG, "bad datatype size");
        return -1;
    }
    cd_values[0] = (unsigned)size;
    return H5Pmodify_filter(dcpl_id, H5Z_FILTER_SHUFFLE, flags, 1, cd_values);
}

/* Native's H5Z__filter_shuffle: buffers of more than one element of more than one byte are
 * (un)shuffled into a new buffer (a trailing partial element copied as it is); others pass. */
static size_t
filter_shuffle(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes, size_t *buf_size,
               void **buf)
{
    if (cd_nelmts != 1 || cd_values[0] == 0) {
        TB_PUSH("pipeline", TB_ERR_ARG, "invalid shuffle parameters");
        return 0;
    }
    size_t es = cd_values[0];
    if (es <= 1 || nbytes / es <= 1)
        return nbytes;
    void *out = H5allocate_memory(nbytes, false);
    if (!out) {
        TB_PUSH("pipeline", TB_ERR_NOMEM, "memory allocation failed for shuffle buffer");
        return 0;
    }
    if (flags & H5Z_FLAG_REVERSE) {
        tb_unshuffle(*buf, out, nbytes, es);
        __atomic_fetch_add(&unfiltered, 1, __ATOMIC_RELAXED);
    }
    else {
        tb_shuffle(*buf, out, nbytes, es);
        __atomic_fetch_add(&filtered, 1, __ATOMIC_RELAXED);
    }
    replace_buf(buf, buf_size, out, nbytes);
    if (!(flags & H5Z_FLAG_REVERSE)) {
        shuffled.buf         = out;
        shuffled.nbytes      = nbytes;
        shuffled.elem_nbytes = es;
    }
    return nbytes;
}

static const H5Z_class2_t deflate_cls    = {H5Z_CLASS_T_VERS, H5Z_FILTER_DEFLATE, 1, 1, "deflate",
                                            NULL, NULL, filter_deflate};
static const H5Z_class2_t shuffle_cls    = {H5Z_CLASS_T_VERS, H5Z_FILTER_SHUFFLE, 1, 1, "shuffle",
                                            NULL, set_local_shuffle, filter_shuffle};
static const H5Z_class2_t fletcher32_cls = {H5Z_CLASS_T_VERS, H5Z_FILTER_FLETCHER32, 1, 1, "fletcher32",
                                            NULL, NULL, filter_fletcher32};

void
tb_pipe_native_filters_install(int debug)
{
    static int installed; /* (the application's thread: file opens) */
    if (installed)
        return;
    hid_t saved = tb_err_save();
    installed   = H5Z_register && H5Z_register(&deflate_cls) >= 0 && H5Z_register(&shuffle_cls) >= 0 &&
                      H5Z_register(&fletcher32_cls) >= 0
                      ? 1
                      : -1;
    tb_err_restore(saved);
    tb_pipe_register_stats();
    if (debug)
        fprintf(stderr, "h5turbo: HDF5's deflate, shuffle and fletcher32 filters %s\n",
                installed > 0 ? "now run on h5turbo's engines (libdeflate)" : "could not be replaced");
}
