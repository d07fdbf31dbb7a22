/* pipeline.c — the parallel chunk pipeline: eligibility of a dataset and of each dataset of an
 * H5Dwrite/H5Dread (or a multi-dataset call), and the streaming jobs, run as one set per call.
 * Writes: workers gather and filter chunks, the application's thread writes them with native
 * direct chunk writes in chunk order. Reads: the application's thread reads raw chunks ahead (or
 * walks the chunk map while the workers pread them), workers unfilter and scatter them. Only the
 * application's thread calls HDF5; on any failure a dataset's whole call is redone through
 * native, which then reports as HDF5 does. */
#include "pipeline_int.h"
#include "tb_pool.h"
#include "tb_threadpool.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ statistics */
/* Updated by the application's thread only (VOL callbacks are serialised by HDF5). */
tb_pipe_stats_t        tb_pipe_stats_g;
static int              stats_registered;

void
tb_pipe_stats(tb_pipe_stats_t *out)
{
    *out = tb_pipe_stats_g;
}

static void
print_stats(void *ctx)
{
    const tb_pipe_stats_t *s = &tb_pipe_stats_g;
    size_t                 nf, nu, np;
    (void)ctx;
    tb_pipe_native_filter_counts(&nf, &nu, &np);
    FILE *out = tb_stats_stream();
    fprintf(out,
            "h5turbo stats: pipeline writes=%zu reads=%zu chunks_written=%zu chunks_read=%zu chunks_rmw=%zu "
            "forwarded_writes=%zu forwarded_reads=%zu fallbacks=%zu behind_writes=%zu converted_reads=%zu "
            "converted_writes=%zu worker_conv_writes=%zu chunks_pread=%zu chunks_cache_hits=%zu small_cached_reads=%zu block_reads=%zu "
            "listed_reads=%zu selection_writes=%zu set_reads=%zu set_writes=%zu writer_left=%zu app_cpu_ms=%.1f "
            "codec_app_cpu_ms=%.1f codec_worker_cpu_ms=%.1f map_walk_cpu_ms=%.1f walk_codec_cpu_ms=%.1f "
            "native_filtered=%zu native_unfiltered=%zu native_pieced=%zu\n",
            s->writes, s->reads, s->chunks_written, s->chunks_read, s->chunks_rmw, s->forwarded_writes,
            s->forwarded_reads, s->fallbacks, s->behind_writes, s->converted_reads, s->converted_writes,
            s->worker_conv_writes, s->chunks_pread, s->chunks_cache_hits, s->small_cached_reads, s->block_reads,
            s->listed_reads, s->selection_writes, s->set_reads, s->set_writes, s->writer_left, (double)s->app_ns / 1e6,
            (double)s->codec_app_ns / 1e6, (double)__atomic_load_n(&s->codec_worker_ns, __ATOMIC_RELAXED) / 1e6,
            (double)s->map_walk_ns / 1e6, (double)__atomic_load_n(&s->walk_codec_ns, __ATOMIC_RELAXED) / 1e6, nf,
            nu, np);
    tb_stats_done(out);
    stats_registered = 0;
}

/* CPU time of the calling thread, in ns (for the serial-fraction counters). */
static uint64_t
thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Adds codec CPU time since t0 to the application's or the workers' counter (any thread);
 * returns it. */
static uint64_t
account_codec(uint64_t t0, pthread_t owner)
{
    uint64_t ns = thread_cpu_ns() - t0;
    if (pthread_equal(pthread_self(), owner))
        tb_pipe_stats_g.codec_app_ns += ns;
    else
        __atomic_fetch_add(&tb_pipe_stats_g.codec_worker_ns, ns, __ATOMIC_RELAXED);
    return ns;
}

void
tb_pipe_register_stats(void)
{
    if (!stats_registered && tb_config_process()->stats) {
        stats_registered = 1;
        H5atclose(print_stats, NULL);
    }
}

/* ------------------------------------------------------------------ calls to the connector below */
static hid_t
dset_get_id(tb_obj_t *o, H5VL_dataset_get_t op, hid_t dxpl_id)
{
    H5VL_dataset_get_args_t a;
    memset(&a, 0, sizeof(a));
    a.op_type = op;
    if (H5VLdataset_get(o->under, o->under_vol_id, &a, dxpl_id, NULL) < 0)
        return H5I_INVALID_HID;
    switch (op) {
        case H5VL_DATASET_GET_DAPL: return a.args.get_dapl.dapl_id;
        case H5VL_DATASET_GET_SPACE: return a.args.get_space.space_id;
        case H5VL_DATASET_GET_TYPE: return a.args.get_type.type_id;
        default: return H5I_INVALID_HID;
    }
}

static herr_t
native_opt(tb_obj_t *o, int op, H5VL_native_dataset_optional_args_t *na, hid_t dxpl_id)
{
    H5VL_optional_args_t a;
    a.op_type = op;
    a.args    = na;
    return H5VLdataset_optional(o->under, o->under_vol_id, &a, dxpl_id, NULL);
}

herr_t
tb_pipe_chunk_read(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id, uint32_t *mask_out, void *buf,
                   size_t buf_nbytes)
{
    H5VL_native_dataset_optional_args_t na;
    na.chunk_read.offset  = offset;
    na.chunk_read.filters = 0;
    na.chunk_read.buf     = buf;
#if H5_VERS_MAJOR >= 2
    na.chunk_read.buf_size = &buf_nbytes; /* 2.x: the buffer's size in, the chunk's size out */
#else
    (void)buf_nbytes;
#endif
    herr_t r              = native_opt(o, H5VL_NATIVE_DATASET_CHUNK_READ, &na, dxpl_id);
    *mask_out             = na.chunk_read.filters;
    return r;
}

/* A chunk written directly with its filter mask. HDF5's direct chunk write (1.14.5, 2.2.0) then
 * keeps, in the dataset's cache of its last chunk look-up, the chunk's new address with the mask
 * it had BEFORE (0 for a new chunk): its next look-up of that chunk, for a read or a write that
 * merges into it (native's, or the pipeline's own direct read), decodes it with that old mask,
 * and fails or reads garbage where an optional stage was skipped for it (or was not, and had been
 * before). Any look-up of another chunk replaces that cache; so after writing two or more chunks
 * of any dataset (an earlier program may have stored masked chunks there) the pipeline looks up
 * its first one (forget_last), and it leaves writes of one chunk (and write-behind) of a dataset
 * known to hold masked chunks to native; before a write of one chunk over a stored one, and before
 * write-behind queues a chunk, it asks whether that chunk is masked (tb_pipe_chunk_stored_masked). */
herr_t
tb_pipe_chunk_write(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id, uint32_t mask, size_t nbytes,
                    const void *buf)
{
    H5VL_native_dataset_optional_args_t na;
    na.chunk_write.offset  = offset;
    na.chunk_write.filters = mask;
    na.chunk_write.size    = (uint32_t)nbytes;
    na.chunk_write.buf     = buf;
    return native_opt(o, H5VL_NATIVE_DATASET_CHUNK_WRITE, &na, dxpl_id);
}

static herr_t
find_not_allocated(unsigned n, const H5E_error2_t *e, void *found)
{
    (void)n;
    if (e->desc && strcmp(e->desc, "chunk storage is not allocated") == 0)
        *(int *)found = 1;
    return 0;
}

tb_pipe_stored_t
tb_pipe_chunk_stored(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id, size_t *nbytes_out)
{
    hsize_t                             sz = 0;
    H5VL_native_dataset_optional_args_t na;
    na.get_chunk_storage_size.offset = offset;
    na.get_chunk_storage_size.size   = &sz;
    if (native_opt(o, H5VL_NATIVE_DATASET_GET_CHUNK_STORAGE_SIZE, &na, dxpl_id) >= 0) {
        /* Success without a size: the dataset has no chunk index yet. */
        if (sz == 0)
            return TB_PIPE_STORED_NO_INDEX;
        if (sz > UINT32_MAX)
            return TB_PIPE_STORED_FAILED;
        *nbytes_out = (size_t)sz;
        return TB_PIPE_STORED_YES;
    }
    int found = 0;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_not_allocated, &found);
    H5Eclear2(H5E_DEFAULT);
    return found ? TB_PIPE_STORED_NONE : TB_PIPE_STORED_FAILED;
}

/* Whether the chunk at offset is stored with a filter mask: 1 yes, 0 no (or not stored), -1 not
 * known (a failed look-up or read). A write of that one chunk with no look-up of another chunk
 * after it (a one-chunk write, a write-behind drain of one) would leave HDF5's cache of its last
 * look-up with that mask (tb_pipe_chunk_write); the caller leaves such a write to native. Only
 * the chunk's read tells its mask: a look-up, and where the chunk is stored a direct read of it
 * (the look-up by coordinate walks the whole chunk index). */
int
tb_pipe_chunk_stored_masked(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id)
{
    size_t           nbytes = 0;
    uint32_t         mask   = 0;
    tb_pipe_stored_t st     = tb_pipe_chunk_stored(o, offset, dxpl_id, &nbytes);
    if (st != TB_PIPE_STORED_YES)
        return st == TB_PIPE_STORED_FAILED ? -1 : 0;
    void *b = tb_buf_get(nbytes);
    int   r = !b || tb_pipe_chunk_read(o, offset, dxpl_id, &mask, b, nbytes) < 0 ? -1 : mask != 0;
    tb_buf_put(b);
    if (r > 0)
        tb_pipe_masked(o, dxpl_id);
    return r;
}

void
tb_pipe_chunk_forget(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id)
{
    size_t nbytes;
    hid_t  saved = tb_err_save();
    (void)tb_pipe_chunk_stored(o, offset, dxpl_id, &nbytes);
    tb_err_restore(saved);
}

/* ------------------------------------------------------------------ eligibility of a dataset */
/* Fixed-size types HDF5 moves without conversion when memory and file types are equal:
 * no variable-length data and no references (which HDF5 converts even between equal types). */
static int
type_plain(hid_t t)
{
    switch (tb_h5t_class(t)) {
        case H5T_INTEGER:
        case H5T_FLOAT:
        case H5T_BITFIELD:
        case H5T_OPAQUE:
        case H5T_TIME:
        case H5T_ENUM:
            return 1;
        case H5T_STRING:
            return H5Tis_variable_str(t) == 0;
        case H5T_ARRAY: {
            hid_t super = H5Tget_super(t);
            int   ok    = super >= 0 && type_plain(super);
            if (super >= 0)
                H5Tclose(super);
            return ok;
        }
        case H5T_COMPOUND: {
            int n = H5Tget_nmembers(t);
            if (n < 0)
                return 0;
            for (int i = 0; i < n; i++) {
                hid_t m  = H5Tget_member_type(t, (unsigned)i);
                int   ok = m >= 0 && type_plain(m);
                if (m >= 0)
                    H5Tclose(m);
                if (!ok)
                    return 0;
            }
            return 1;
        }
        default:
            return 0;
    }
}

/* Reads one filter of the DCPL into a stage; 0 when the pipeline cannot run it exactly. */
static int
stage_from_dcpl(hid_t dcpl, unsigned idx, tb_pipe_stage_t *s)
{
    unsigned     flags = 0, cfg = 0, cd[16];
    size_t       ncd = 16;
    H5Z_filter_t id  = H5Pget_filter2(dcpl, idx, &flags, &ncd, cd, 0, NULL, &cfg);
    memset(s, 0, sizeof(*s));
    switch (id) {
        case H5Z_FILTER_SHUFFLE:
            /* HDF5's filter refuses anything but one non-zero parameter; so do we. */
            if (ncd != 1 || cd[0] == 0)
                return 0;
            s->kind  = TB_STAGE_SHUFFLE;
            s->param = cd[0];
            return 1;
        case H5Z_FILTER_DEFLATE:
            if (ncd != 1 || cd[0] > 9)
                return 0;
            s->kind  = TB_STAGE_DEFLATE;
            s->param = cd[0];
            return 1;
        case H5Z_FILTER_FLETCHER32:
            s->kind = TB_STAGE_FLETCHER32;
            return 1;
#ifdef TB_PIPE_HAVE_BLOSC
        case TB_BLOSC_FILTER_ID:
            if (ncd > 16 || tb_blosc_params_from_cd(ncd, cd, &s->blosc, NULL, 0) != TB_OK ||
                !tb_blosc_compressor_available(s->blosc.compressor))
                return 0;
            s->kind     = TB_STAGE_BLOSC;
            s->optional = (flags & H5Z_FLAG_OPTIONAL) != 0;
            return 1;
#endif
        default:
            return 0;
    }
}

/* Which dataset this is, for write-behind: two handles on one dataset share its chunks. (Not
 * through H5VL_OBJECT_GET_FILE: native marks the file as having an ID when asked, and a file
 * opened through an external link then never closes.) */
static void
dataset_identity(tb_obj_t *o, hid_t dxpl_id, tb_pipe_dset_t *p)
{
    H5VL_loc_params_t      lp;
    H5VL_object_get_args_t ga;
    H5O_info2_t            oi;
    if (tb_hooks_identity(o, &p->fileno, &p->token)) { /* (the index knows it: nothing asked) */
        p->have_token = 1;
        return;
    }
    memset(&lp, 0, sizeof(lp));
    memset(&ga, 0, sizeof(ga));
    lp.type                 = H5VL_OBJECT_BY_SELF;
    lp.obj_type             = H5I_DATASET;
    ga.op_type              = H5VL_OBJECT_GET_INFO;
    ga.args.get_info.oinfo  = &oi;
    ga.args.get_info.fields = H5O_INFO_BASIC;
    if (H5VLobject_get(o->under, &lp, o->under_vol_id, &ga, dxpl_id, NULL) >= 0) {
        p->fileno     = oi.fileno;
        p->token      = oi.token;
        p->have_token = 1;
    }
}

/* Decides once per dataset handle whether the pipeline can serve it (layout, filters, type, fill
 * value and the file's mode do not change while it is open). Sets p->state to 1 or -1. In files
 * open read-only, a dataset found not to be the pipeline's by what its creation list and type say
 * is remembered as such for the rest of the open (tb_pipe_file_not_ours): a program that opens
 * the same dataset again for every read (MDAnalysis' H5MD reader, a frame per open) had its
 * creation list copied and looked at each time, ~35k instructions a handle. */
static void
examine(tb_obj_t *o, tb_pipe_dset_t *p, hid_t dxpl_id)
{
    hid_t dcpl = H5I_INVALID_HID, type = H5I_INVALID_HID;
    bool  settled = false; /* not ours for what the creation list and type say (their queries
                            * failing included: the list is HDF5's own copy), not for a failed
                            * call of ours */
    p->state      = -1;
    p->type_id    = H5I_INVALID_HID;

    /* Direct chunk I/O is a native operation: only with native right below us. */
    if (!o->ctx->under_native)
        return;
    /* Most small datasets are contiguous: said without copying the creation property list. */
    if (tb_dset_contig_addr(o->under, o->under_vol_id, dxpl_id) != HADDR_UNDEF)
        return;
    /* Which dataset this is, in read-only files: to know that the dataset lies in the file whose
     * descriptor the workers may read (pipeline_map.c) and whether it was found not ours before.
     * Asked only past the contiguous datasets (an object-info query, where the index does not
     * know the object, is not free on a file of small ones). */
    bool read_only = !(o->ctx->file_intent & H5F_ACC_RDWR);
    if (read_only) {
        dataset_identity(o, dxpl_id, p);
        if (p->have_token && tb_pipe_file_not_ours(o, p->fileno, &p->token, false))
            return;
    }
    /* Unfiltered chunks gain nothing from the pipeline: a header without a filter pipeline message
     * is told so without copying the creation list (~24k instructions a handle, with its close,
     * for every chunked dataset without filters: h5py's resizable ones, H5MD's trajectories). */
    if (tb_dset_filtered(o->under, o->under_vol_id, dxpl_id) == 0) {
        settled = true;
        goto done;
    }
    if ((dcpl = tb_dset_dcpl(o, dxpl_id)) < 0)
        return;
    settled = true;
    if (H5Pget_layout(dcpl) != H5D_CHUNKED)
        goto done;
    p->rank = H5Pget_chunk(dcpl, TB_PIPE_RANK, p->chunk);
    if (p->rank < 1)
        goto done;
    /* Unfiltered partial edge chunks would need a second format: leave them to native. */
    unsigned opts = 0;
    if (H5Pget_chunk_opts(dcpl, &opts) < 0 || (opts & H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS))
        goto done;
    int nf = H5Pget_nfilters(dcpl);
    if (nf < 1 || nf > TB_PIPE_MAX_STAGES)
        goto done; /* unfiltered chunks gain nothing from the pipeline */
    for (int i = 0; i < nf; i++) {
        if (!stage_from_dcpl(dcpl, (unsigned)i, &p->stages[i]))
            goto done;
        p->masked |= p->stages[i].optional;
    }
    p->nstages = nf;

    settled = false;
    if ((type = dset_get_id(o, H5VL_DATASET_GET_TYPE, dxpl_id)) < 0)
        goto done;
    settled = true;
    if (!type_plain(type))
        goto done;
    p->type_nbytes = tb_h5t_size(type);
    if (p->type_nbytes == 0)
        goto done;
    p->chunk_nelem = 1;
    for (int d = 0; d < p->rank; d++) {
        if (p->chunk[d] == 0 || p->chunk[d] > UINT32_MAX)
            goto done;
        p->chunk_nelem *= (size_t)p->chunk[d];
    }
    p->chunk_nbytes = p->chunk_nelem * p->type_nbytes;
    if (p->chunk_nbytes > UINT32_MAX)
        goto done;
    /* Past here a dataset is the pipeline's unless a call fails. */
    settled = false;
    /* A transient copy: the dataset's own type may be a committed one, which keeps its file open. */
    if ((p->type_id = H5Tcopy(type)) < 0)
        goto done;

    /* Fill value, as HDF5 applies it: new chunks start as the fill value when one is set by the
     * user and written at allocation or "if set"; otherwise zeroed. Reads leave the buffer alone
     * where chunks are missing when fill values are never written or not defined. */
    H5D_fill_value_t fst = H5D_FILL_VALUE_UNDEFINED;
    H5D_fill_time_t  ft  = H5D_FILL_TIME_IFSET;
    if (H5Pfill_value_defined(dcpl, &fst) < 0 || H5Pget_fill_time(dcpl, &ft) < 0)
        goto done;
    p->skip_missing = ft == H5D_FILL_TIME_NEVER ||
                      (ft == H5D_FILL_TIME_IFSET && fst != H5D_FILL_VALUE_USER_DEFINED &&
                       fst != H5D_FILL_VALUE_DEFAULT);
    if (fst == H5D_FILL_VALUE_USER_DEFINED && ft != H5D_FILL_TIME_NEVER) {
        if (!(p->fill = malloc(p->type_nbytes)) || H5Pget_fill_value(dcpl, p->type_id, p->fill) < 0)
            goto done;
        size_t k = 0;
        while (k < p->type_nbytes && p->fill[k] == 0)
            k++;
        if (k == p->type_nbytes) { /* an all-zero fill value is the same as none */
            free(p->fill);
            p->fill = NULL;
        }
    }
    if (tb_pipe_stages_prepare(p) != TB_OK)
        goto done;
    /* The dataset's chunk cache: sparse reads touching more chunks than it holds decode every
     * chunk in native too, so they are worth the pipeline however few bytes they move. */
    p->cache_nbytes = (size_t)1 << 20;
    size_t cache_nslots = 521; /* HDF5's defaults */
    hid_t  dapl         = dset_get_id(o, H5VL_DATASET_GET_DAPL, dxpl_id);
    if (dapl >= 0) {
        size_t nslots = 0, nbytes = 0;
        double w0     = 0;
        if (H5Pget_chunk_cache(dapl, &nslots, &nbytes, &w0) >= 0) {
            if (nbytes != H5D_CHUNK_CACHE_NBYTES_DEFAULT)
                p->cache_nbytes = nbytes;
            if (nslots != H5D_CHUNK_CACHE_NSLOTS_DEFAULT)
                cache_nslots = nslots;
        }
        H5Pclose(dapl);
    }
    /* Our decoded-chunk cache, sized as HDF5 sizes its own for this dataset. */
    tb_pipe_cache_config(p, cache_nslots, p->cache_nbytes);
    /* ... and for write-behind, which needs it only of the datasets the pipeline takes. */
    if (o->ctx->cfg.write_behind && !p->have_token)
        dataset_identity(o, dxpl_id, p);
    p->state = 1;
done:
    if (p->state < 0 && settled && read_only && p->have_token)
        (void)tb_pipe_file_not_ours(o, p->fileno, &p->token, true);
    if (type >= 0)
        H5Tclose(type);
    H5Eclear2(H5E_DEFAULT);
}

/* The state of every dataset ineligible() finds contiguous: shared (a small dataset's read would
 * otherwise allocate one), never freed, never changed (nothing runs for a dataset in state -1). */
static tb_pipe_dset_t not_ours = {.state = -1, .type_id = H5I_INVALID_HID};

void
tb_pipe_release(tb_obj_t *o)
{
    tb_pipe_dset_t *p = (tb_pipe_dset_t *)o->pipe;
    if (p == &not_ours) {
        o->pipe = NULL;
        return;
    }
    if (!p)
        return;
    if (p->behind)
        tb_pipe_behind_release(o, p);
    if (p->type_id >= 0) {
        hid_t saved = tb_err_save();
        H5Tclose(p->type_id);
        tb_err_restore(saved);
    }
    tb_pipe_cache_drop(p);
    free(p->cache);
    free(p->recent);
    free(p->fill);
    free(p->map);
    free(p);
    o->pipe = NULL;
}

/* o's pipeline state, examined on first use (NULL: no memory for it). */
static tb_pipe_dset_t *
examined(tb_obj_t *o, hid_t dxpl_id)
{
    if (!o->pipe) {
        tb_pipe_dset_t *p = calloc(1, sizeof(*p));
        if (!p)
            return NULL;
        o->pipe = (struct tb_pipe_dset *)p;
        examine(o, p, dxpl_id);
    }
    return (tb_pipe_dset_t *)o->pipe;
}

/* A direct write of a chunk whose filter mask may differ from the stored chunk's. HDF5 keeps the
 * old mask of a chunk written again at the length it had (1.14.5, 2.1.1; its own writes too:
 * PyTables/PyTables#1325): where the stored chunk is as long (`same` 1; -1: ask its length), the
 * chunk is written a byte shorter first, which moves it and records the mask, then whole by the
 * caller. */
static herr_t
shorter_first(tb_obj_t *o, const hsize_t *off, hid_t dxpl_id, uint32_t mask, size_t nbytes, const void *buf,
              int same)
{
    if (nbytes < 2 || !same)
        return 0;
    if (same < 0) {
        size_t old   = 0;
        hid_t  saved = tb_err_save(); /* (the question's errors are not the call's) */
        same         = tb_pipe_chunk_stored(o, off, dxpl_id, &old) == TB_PIPE_STORED_YES && old == nbytes;
        tb_err_restore(saved);
    }
    return same ? tb_pipe_chunk_write(o, off, dxpl_id, mask, nbytes - 1, buf) : 0;
}

/* Datasets (file number, token) without an optional stage where a chunk stored with a filter mask
 * was met in this process: the application wrote one directly (H5Dwrite_chunk with a mask, as
 * writers that store raw the chunks no filter shrinks do), or the pipeline read one. Their writes
 * take the care that tb_pipe_chunk_write describes, through every handle, later ones included.
 * Application's thread only; an entry per such dataset for the life of the process (kept after its
 * file closes: a file number is never used again). */
typedef struct {
    unsigned long fileno;
    H5O_token_t   token;
} masked_dset_t;
static masked_dset_t *masked_g;
static size_t         masked_n, masked_cap;

static bool
masked_listed(const tb_pipe_dset_t *p)
{
    for (size_t i = 0; i < masked_n; i++)
        if (masked_g[i].fileno == p->fileno && memcmp(&masked_g[i].token, &p->token, sizeof(p->token)) == 0)
            return true;
    return false;
}

/* Whether p (o's) may hold chunks stored with a filter mask, as far as this process knows. */
static int
masks_known(tb_obj_t *o, tb_pipe_dset_t *p, hid_t dxpl_id)
{
    if (!p->masked && masked_n) {
        if (!p->have_token)
            dataset_identity(o, dxpl_id, p);
        p->masked = p->have_token && masked_listed(p);
    }
    return p->masked;
}

/* o's pipeline state, where it keeps its identity and what is known of its masks; *scratch
 * (zeroed) where o has none of its own (the shared not_ours of contiguous datasets, a failed
 * allocation). */
static tb_pipe_dset_t *
state_of(tb_obj_t *o, hid_t dxpl_id, tb_pipe_dset_t *scratch)
{
    tb_pipe_dset_t *p = examined(o, dxpl_id);
    if (p && p != &not_ours)
        return p;
    memset(scratch, 0, sizeof(*scratch));
    return scratch;
}

void
tb_pipe_masked(tb_obj_t *o, hid_t dxpl_id)
{
    hid_t          saved = tb_err_save();
    tb_pipe_dset_t scratch, *p = state_of(o, dxpl_id, &scratch);
    p->masked = 1;
    if (!p->have_token)
        dataset_identity(o, dxpl_id, p);
    tb_err_restore(saved);
    if (!p->have_token || masked_listed(p))
        return;
    if (masked_n == masked_cap) {
        size_t         cap = masked_cap ? 2 * masked_cap : 8;
        masked_dset_t *g   = realloc(masked_g, cap * sizeof(*g));
        if (!g)
            return; /* (this handle's state still says so) */
        masked_g   = g;
        masked_cap = cap;
    }
    masked_g[masked_n].fileno = p->fileno;
    masked_g[masked_n].token  = p->token;
    masked_n++;
}

herr_t
tb_pipe_app_chunk_write(tb_obj_t *o, H5VL_optional_args_t *args, hid_t dxpl_id)
{
    const H5VL_native_dataset_optional_args_t *na    = args->args;
    uint32_t                                   mask  = na->chunk_write.filters;
    hid_t                                      saved = tb_err_save();
    tb_pipe_dset_t                             scratch, *p = state_of(o, dxpl_id, &scratch);
    int                                        ask   = mask || masks_known(o, p, dxpl_id);
    tb_err_restore(saved);
    if (shorter_first(o, na->chunk_write.offset, dxpl_id, mask, na->chunk_write.size, na->chunk_write.buf,
                      ask ? -1 : 0) < 0)
        return -1;
    herr_t ret = H5VLdataset_optional(o->under, o->under_vol_id, args, dxpl_id, NULL);
    if (ret >= 0 && mask)
        tb_pipe_masked(o, dxpl_id);
    return ret;
}

/* Integer and floating-point types: HDF5 converts them element by element, with no background
 * buffer, so converting a chunk's elements with H5Tconvert gives what H5Dread/H5Dwrite give. */
static int
type_numeric(hid_t t)
{
    H5T_class_t c = tb_h5t_class(t);
    return c == H5T_INTEGER || c == H5T_FLOAT;
}

/* The dataset's state, or NULL when this call must be forwarded. *convert_out: the memory type
 * is a numeric type other than the file's (elements go through H5Tconvert). */
static tb_pipe_dset_t *
ready(tb_obj_t *o, hid_t mem_type_id, hid_t dxpl_id, int writing, int *edc_out, int *convert_out)
{
    tb_pipe_dset_t *p = examined(o, dxpl_id);
    if (!p)
        return NULL;
    /* The file's mode is checked per call: H5Fstart_swmr_write can change it. SWMR readers and
     * writers are left to native, which knows their ordering rules; writes to a file opened
     * read-only too (native reports the error). */
    unsigned intent = o->ctx->file_intent;
    if (p->state != 1 || (intent & (H5F_ACC_SWMR_WRITE | H5F_ACC_SWMR_READ)) ||
        (writing && !(intent & H5F_ACC_RDWR)))
        return NULL;
    *convert_out = 0;
    htri_t eq    = tb_h5t_equal(mem_type_id, p->type_id);
    if (eq < 0)
        return NULL;
    if (eq == 0) {
        if (!type_numeric(p->type_id) || !type_numeric(mem_type_id) || tb_h5t_size(mem_type_id) == 0)
            return NULL;
        *convert_out = 1;
    }
    *edc_out = 1;
    if (dxpl_id != H5P_DATASET_XFER_DEFAULT) {
        if (tb_dxpl_has_transform(dxpl_id))
            return NULL; /* (a data transform changes values on the way: native's job) */
        *edc_out = H5Pget_edc_check(dxpl_id) != H5Z_DISABLE_EDC;
    }
    return p;
}

static int
current_dims(tb_obj_t *o, const tb_pipe_dset_t *p, hid_t dxpl_id, hsize_t *dims)
{
    hid_t space = dset_get_id(o, H5VL_DATASET_GET_SPACE, dxpl_id);
    if (space < 0)
        return 0;
    int ok = H5Sget_simple_extent_ndims(space) == p->rank && tb_h5s_dims(space, dims, NULL) >= 0;
    H5Sclose(space);
    return ok;
}


static unsigned
job_threads(const tb_obj_t *o)
{
    return o->ctx->cfg.threads ? o->ctx->cfg.threads : tb_threads_from_env();
}

/* ------------------------------------------------------------------ sets of jobs */
/* What the threads of a set of jobs (the reads or the writes of one call) share. */
typedef struct set_core {
    unsigned        inner_threads; /* per chunk: all of them for a one-chunk set, else 1 */
    int             timing;        /* H5TURBO_STATS: account codec CPU time */
    pthread_t       owner;         /* the application's thread */
    pthread_mutex_t mu;            /* protects the set's and its jobs' shared fields */
    pthread_cond_t  cv;
} set_core_t;

/* Runs a set of `total` chunks on the pool: as many workers as there are threads but one, at most
 * one a chunk but one, each running worker(set), and app(set) on the application's thread, with
 * HDF5's error printing off (chunk probes fail by design). */
static void
set_run(set_core_t *c, void *set, size_t total, unsigned threads, tb_task_fn worker, void (*app)(void *))
{
    c->owner         = pthread_self();
    c->timing        = tb_config_process()->stats;
    c->inner_threads = total == 1 ? threads : 1;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    tb_quiet_t q;
    tb_quiet_on(&q);
    tb_taskgroup_t g;
    tb_taskgroup_init(&g, threads);
    size_t helpers = threads > 1 ? threads - 1 : 0;
    if (total && helpers > total - 1)
        helpers = total - 1;
    for (size_t k = 0; k < helpers; k++)
        tb_taskgroup_submit(&g, worker, set);
    app(set);
    tb_taskgroup_wait(&g);
    tb_quiet_off(&q);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
}

/* ------------------------------------------------------------------ write job */
/* A conversion the workers do on writes (see narrow_for): 0, or -1 when the chunk must go
 * through H5Tconvert. */
typedef int (*tb_narrow_fn)(const void *src, void *dst, size_t n);

typedef enum { WK_FULL, WK_FILL, WK_RMW } wkind_t;

typedef struct wchunk {
    wkind_t      kind;
    void        *raw;      /* RMW: the stored chunk (filtered), tb_buf */
    size_t       raw_nbytes;
    uint32_t     raw_mask;
    void        *bufs[2];  /* codec buffers, tb_buf */
    const void  *out;      /* the filtered chunk, in one of bufs */
    size_t       out_nbytes;
    uint32_t     out_mask; /* the optional stages skipped */
    tb_status_t st;
    int          done;     /* set mutex */
} wchunk_t;

struct wset;

/* One dataset's write. Fields above `next` are written before the workers start and only read
 * afterwards; the rest are protected by the set's mutex. */
typedef struct wjob {
    struct wset           *s;
    tb_obj_t              *o;
    const tb_pipe_dset_t *p;
    const tb_pipe_plan_t *plan;
    const uint8_t         *user;
    wchunk_t              *c;
    size_t                 n, window;
    int                    edc;
    tb_narrow_fn           narrow;        /* conversion by the workers, or NULL */
    hid_t                  dxpl_id;
    size_t                 next;    /* next chunk to claim */
    size_t                 written; /* chunks written (and released) so far */
    int                    abort;
} wjob_t;

/* The writes of one call on the pool at once (one job for H5Dwrite, one per dataset the pipeline
 * takes for H5Dwrite_multi): the workers filter the jobs' chunks in order, moving to the next job
 * once a job's chunks are all claimed, while the application's thread writes them in order. */
typedef struct wset {
    set_core_t c; /* its mutex protects the jobs' fields from `next` on, and what follows them */
    wjob_t   **jobs;
    size_t     njobs;
    unsigned   workers;       /* workers running the set (not counting the application's thread) */
    uint64_t   wr_ns, wr_n;   /* the application's thread's chunk writes: wall time, count */
    uint64_t   enc_ns, enc_n; /* chunks filtered (any thread): wall time, count */
} wset_t;

/* The ratio of a chunk's write to its filtering (wall time, 1/65536ths) of the last set that
 * measured both (0: none yet): what write_stream goes by until its own set has measured both. */
static uint32_t write_ratio_g;

static uint64_t
mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void
wchunk_release(wchunk_t *c)
{
    tb_buf_put(c->raw);
    tb_buf_put(c->bufs[0]);
    tb_buf_put(c->bufs[1]);
    c->raw = c->bufs[0] = c->bufs[1] = NULL;
}

static void encode_chunk(wjob_t *j, size_t i);

/* Gathers and filters chunk i (any thread). */
static void
encode_one(wjob_t *j, size_t i)
{
    uint64_t t0 = j->s->c.timing ? thread_cpu_ns() : 0;
    encode_chunk(j, i);
    if (j->s->c.timing)
        account_codec(t0, j->s->c.owner);
}

static void
encode_chunk(wjob_t *j, size_t i)
{
    const tb_pipe_dset_t *p = j->p;
    wchunk_t              *c = &j->c[i];
    hsize_t                off[TB_PIPE_RANK];
    tb_pipe_region_t      r;
    tb_pipe_chunk_offset(p, j->plan, i, off);
    tb_pipe_region(p, j->plan, off, &r);
    c->bufs[0] = tb_buf_get(p->buf_nbytes);
    c->bufs[1] = tb_buf_get(p->buf_nbytes);
    if (!c->bufs[0] || !c->bufs[1]) {
        c->st = TB_ERR_NOMEM;
        return;
    }
    const void *in;
    if (c->kind == WK_FULL && r.direct) {
        in = j->user + r.user_off; /* the chunk lies in the user's buffer as it will in the file */
    }
    else {
        uint8_t *chunk = c->bufs[0];
        if (c->kind == WK_RMW) {
            const void  *dec = NULL;
            tb_status_t st  = tb_pipe_decode(p, c->raw, c->raw_nbytes, c->raw_mask, j->edc, c->bufs, NULL, &dec,
                                                 j->s->c.inner_threads);
            if (st != TB_OK) {
                c->st = st;
                return;
            }
            if (dec == c->raw)
                memcpy(chunk, dec, p->chunk_nbytes);
            else
                chunk = (uint8_t *)(uintptr_t)dec;
        }
        else if (c->kind == WK_FILL)
            tb_pipe_fill_chunk(p, chunk);
        /* A whole chunk laid out in the user's buffer as in the file (but for the type): converted
         * straight from there into the chunk buffer. */
        int    contig = r.full && !r.edge;
        size_t cs     = j->plan->es;
        for (int d = p->rank - 1; d >= 0 && contig; d--) {
            if (p->chunk[d] > 1 && j->plan->mstride[d] != cs)
                contig = 0;
            cs *= (size_t)p->chunk[d];
        }
        if (j->narrow && contig) {
            if (j->narrow(j->user + r.user_off, chunk, p->chunk_nelem) < 0) {
                c->st = TB_ERR_UNSUPPORTED;
                return;
            }
        }
        else if (j->narrow) {
            /* The region's elements (memory type), converted, into the chunk. */
            size_t   nelem = tb_pipe_region_nelem(p, &r);
            uint8_t *src = tb_buf_get(nelem * j->plan->es), *dense = tb_buf_get(nelem * p->type_nbytes);
            if (!src || !dense)
                c->st = TB_ERR_NOMEM;
            else {
                tb_pipe_pack_user(p, j->plan, &r, j->user, src);
                if (j->narrow(src, dense, nelem) < 0)
                    c->st = TB_ERR_UNSUPPORTED;
                else
                    tb_pipe_unpack_chunk(p, &r, dense, chunk);
            }
            tb_buf_put(src);
            tb_buf_put(dense);
            if (c->st != TB_OK)
                return;
        }
        else if (!tb_pipe_gather(p, j->plan, &r, chunk, j->user)) {
            c->st = TB_ERR_NOMEM;
            return;
        }
        in = chunk;
    }
    c->st = tb_pipe_encode(p, in, c->bufs, &c->out, &c->out_nbytes, &c->out_mask, j->s->c.inner_threads);
}


/* Filters chunk i of job j (any thread, the set's mutex not held; returns with it held, the
 * chunk done) and adds its wall time to the set's. */
static void
encode_timed(wset_t *s, wjob_t *j, size_t i)
{
    uint64_t t0 = mono_ns();
    encode_one(j, i);
    uint64_t dt = mono_ns() - t0;
    pthread_mutex_lock(&s->c.mu);
    s->enc_ns += dt;
    s->enc_n++;
    j->c[i].done = 1;
}

/* A worker: filters the set's chunks in order, job after job, each job at most `window` chunks
 * ahead of what the application's thread has written of it. */
static void
write_worker(void *arg)
{
    wset_t *s = arg;
    /* Run inline on the application's thread (no worker could be had, or the group is being
     * drained): that thread does its share in write_stream already. */
    if (pthread_equal(pthread_self(), s->c.owner))
        return;
    pthread_mutex_lock(&s->c.mu);
    s->workers++;
    for (size_t k = 0; k < s->njobs; k++) {
        wjob_t *j = s->jobs[k];
        for (;;) {
            while (!j->abort && j->next < j->n && j->next - j->written >= j->window)
                pthread_cond_wait(&s->c.cv, &s->c.mu);
            if (j->abort || j->next >= j->n)
                break;
            size_t i = j->next++;
            pthread_mutex_unlock(&s->c.mu);
            encode_timed(s, j, i);
            pthread_cond_broadcast(&s->c.cv);
        }
    }
    s->workers--;
    pthread_mutex_unlock(&s->c.mu);
}

/* Whether the application's thread, waiting for chunk w of job j to be filtered, should filter
 * chunk h->next of job h itself: always when that is chunk w (nobody has it) or no worker runs;
 * otherwise only where the workers alone cannot keep up with its writes (workers x a chunk's
 * write < a chunk's filtering). Where they can, its writes bound the set, and a chunk it filters
 * holds back the write of chunk w, ready meanwhile, by up to a chunk's filtering (on 16 cores the
 * module writes spent 92 of 242 ms there: bench/pipeline README, thread sweep). Until the set has
 * measured both, the last set's ratio stands in; with neither, it filters. */
/* A chunk's write over its filtering (wall time), as set s measured them; -1 before it has both. */
static double
set_write_ratio(const wset_t *s)
{
    if (!s->wr_n || !s->enc_n || !s->enc_ns)
        return -1;
    return ((double)s->wr_ns / (double)s->wr_n) / ((double)s->enc_ns / (double)s->enc_n);
}

static int
app_filters(const wset_t *s, const wjob_t *j, size_t w, const wjob_t *h)
{
    if ((h == j && h->next == w) || s->workers == 0)
        return 1;
    double ratio = set_write_ratio(s);
    if (ratio < 0) {
        uint32_t g = __atomic_load_n(&write_ratio_g, __ATOMIC_RELAXED);
        if (!g)
            return 1;
        ratio = g / 65536.0;
    }
    return (double)s->workers * ratio < 1.0;
}

/* Chunk c of job j, written directly (tb_pipe_chunk_write), a byte shorter first where its filter
 * mask may change at the stored length (shorter_first): a merged chunk whose mask changes; where
 * the dataset may hold masked chunks, one written whole (the stored chunk's length asked, its mask
 * not known). */
static herr_t
write_chunk(const wjob_t *j, const hsize_t *off, const wchunk_t *c)
{
    int same = c->kind == WK_RMW ? c->raw_nbytes == c->out_nbytes && c->raw_mask != c->out_mask
                                 : c->kind == WK_FULL && j->p->masked ? -1 : 0;
    if (shorter_first(j->o, off, j->dxpl_id, c->out_mask, c->out_nbytes, c->out, same) < 0)
        return -1;
    return tb_pipe_chunk_write(j->o, off, j->dxpl_id, c->out_mask, c->out_nbytes, c->out);
}

/* After job j wrote (or tried) its first `written` chunks: a look-up of another chunk than the last
 * written, that HDF5 forgets the mask it kept of that one (tb_pipe_chunk_write): the first (out of
 * native's chunk cache since its own direct write), or, where only one was written before a
 * failure, the next. For every dataset: the masks of chunks an earlier program stored are not
 * known, and a look-up costs ~1,400 instructions a call. */
static void
forget_last(const wjob_t *j, size_t written)
{
    if (written == 0 || (written == 1 && j->n < 2))
        return;
    hsize_t off[TB_PIPE_RANK];
    tb_pipe_chunk_offset(j->p, j->plan, written >= 2 ? 0 : 1, off);
    tb_pipe_chunk_forget(j->o, off, j->dxpl_id);
}

/* The application's thread: writes job k's chunks in order as they become ready, filtering
 * chunks itself while the next one to write is not ready yet where app_filters says so (a
 * failure: the job's `abort`). */
static void
write_stream(wset_t *s, size_t k)
{
    wjob_t *j      = s->jobs[k];
    int     failed = 0;
    size_t  w = 0, left = SIZE_MAX;
    pthread_mutex_lock(&s->c.mu);
    while (w < j->n && !failed) {
        if (j->c[w].done) {
            pthread_mutex_unlock(&s->c.mu);
            wchunk_t *c = &j->c[w];
            hsize_t   off[TB_PIPE_RANK];
            tb_pipe_chunk_offset(j->p, j->plan, w, off);
            uint64_t t0 = mono_ns();
            if (c->st != TB_OK || c->out_nbytes > UINT32_MAX || write_chunk(j, off, c) < 0)
                failed = 1;
            uint64_t dt = mono_ns() - t0;
            wchunk_release(c);
            w++;
            pthread_mutex_lock(&s->c.mu);
            s->wr_ns += dt;
            s->wr_n++;
            j->written = w;
            pthread_cond_broadcast(&s->c.cv);
            continue;
        }
        /* Filter a chunk of this job or, all of its own claimed, of a later one (a job of one
         * chunk a worker took would leave this thread idle) while chunk w is not ready, where
         * that does not hold back the writes (app_filters). */
        wjob_t *h = NULL;
        for (size_t q = k; q < s->njobs && !h; q++)
            if (!s->jobs[q]->abort && s->jobs[q]->next < s->jobs[q]->n &&
                s->jobs[q]->next - s->jobs[q]->written < s->jobs[q]->window)
                h = s->jobs[q];
        if (h && app_filters(s, j, w, h)) {
            size_t i = h->next++;
            pthread_mutex_unlock(&s->c.mu);
            encode_timed(s, h, i);
            pthread_cond_broadcast(&s->c.cv);
            continue;
        }
        if (h && left != w) {
            tb_pipe_stats_g.writer_left++;
            left = w;
        }
        pthread_cond_wait(&s->c.cv, &s->c.mu);
    }
    if (failed) {
        j->abort = 1;
        pthread_cond_broadcast(&s->c.cv);
    }
    pthread_mutex_unlock(&s->c.mu);
    forget_last(j, w);
}

/* Sets up job j for one eligible write: 1 ready; 0 left to native (it covers no chunk whole, or
 * one chunk of a dataset that may hold masked chunks); -1 failed (a stored chunk to merge could not be
 * read: the caller redoes the write through native). Chunks not wholly written are read here
 * (read-modify-write). */
static int
write_prepare(wjob_t *j, tb_obj_t *o, const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, hid_t dxpl_id,
              const void *buf, int edc, tb_narrow_fn narrow)
{
    size_t n = plan->nchunks, nfull = 0;
    if (p->masked && n < 2)
        return 0; /* (no other chunk to look up after it: tb_pipe_chunk_write) */
    wchunk_t *c = calloc(n, sizeof(*c));
    if (!c)
        return -1;
    hsize_t           off[TB_PIPE_RANK];
    tb_pipe_region_t r;
    for (size_t i = 0; i < n; i++) {
        tb_pipe_chunk_offset(p, plan, i, off);
        tb_pipe_region(p, plan, off, &r);
        c[i].kind = WK_FULL;
        if (r.full && !r.edge)
            nfull++;
        else
            c[i].kind = WK_FILL; /* refined below */
    }
    /* Only partial chunks: native's chunk cache merges repeated small writes into one chunk far
     * better than a read-modify-write per call would. */
    if (nfull == 0) {
        free(c);
        return 0;
    }
    /* Chunks not wholly written (partial, or reaching past the extent) keep what is stored
     * outside the selection, as HDF5 does: read them now, merge on the workers. */
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        if (c[i].kind != WK_FILL)
            continue;
        size_t nbytes = 0;
        tb_pipe_chunk_offset(p, plan, i, off);
        switch (tb_pipe_chunk_stored(o, off, dxpl_id, &nbytes)) {
            case TB_PIPE_STORED_NONE:
            case TB_PIPE_STORED_NO_INDEX: /* nothing written yet (a one-chunk dataset has no partial chunk here) */
                break;
            case TB_PIPE_STORED_YES:
                if (!(c[i].raw = tb_buf_get(nbytes)) ||
                    tb_pipe_chunk_read(o, off, dxpl_id, &c[i].raw_mask, c[i].raw, nbytes) < 0)
                    ok = 0;
                else if (c[i].raw_mask && !p->masked)
                    tb_pipe_masked(o, dxpl_id); /* (p is o's: masked from here on) */
                c[i].raw_nbytes = nbytes;
                c[i].kind       = WK_RMW;
                tb_pipe_stats_g.chunks_rmw++;
                break;
            case TB_PIPE_STORED_FAILED:
                ok = 0;
                break;
        }
    }
    /* One chunk written whole over a stored one: asked whether that is masked (an earlier program
     * may have stored it so; this process would know otherwise). Masked: p (o's) is marked, and
     * the write goes to native below; not known: a failure, which native redoes. */
    if (ok && n == 1 && c[0].kind == WK_FULL && !p->masked) {
        tb_pipe_chunk_offset(p, plan, 0, off);
        ok = tb_pipe_chunk_stored_masked(o, off, dxpl_id) >= 0;
    }
    if (!ok || (p->masked && n < 2)) { /* (a masked chunk just met) */
        for (size_t i = 0; i < n; i++)
            wchunk_release(&c[i]);
        free(c);
        return ok ? 0 : -1;
    }
    memset(j, 0, sizeof(*j));
    j->o       = o;
    j->p       = p;
    j->plan    = plan;
    j->user    = buf;
    j->c       = c;
    j->n       = n;
    j->edc     = edc;
    j->narrow  = narrow;
    j->dxpl_id = dxpl_id;
    unsigned threads = job_threads(o);
    size_t   window  = o->ctx->cfg.inflight_nbytes / (2 * p->buf_nbytes);
    j->window        = window > 2 * (size_t)threads ? window : 2 * (size_t)threads;
    return 1;
}

static void
write_app(void *arg)
{
    wset_t *s = arg;
    for (size_t k = 0; k < s->njobs; k++)
        write_stream(s, k);
}

/* Runs the jobs listed on the pool as one set (the application's thread writes job after job; a
 * job that fails stops alone, its `abort`); each job's own result is write_done's. */
static void
write_jobs_run(wjob_t **jobs, size_t n, unsigned threads)
{
    wset_t s;
    memset(&s, 0, sizeof(s));
    s.jobs       = jobs;
    s.njobs      = n;
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        jobs[k]->s = &s;
        total += jobs[k]->n;
    }
    set_run(&s.c, &s, total, threads, write_worker, write_app);
    double r = set_write_ratio(&s) * 65536.0;
    if (r >= 0) {
        uint32_t g = r < 1.0 ? 1u : r > 4294967295.0 ? UINT32_MAX : (uint32_t)r;
        __atomic_store_n(&write_ratio_g, g, __ATOMIC_RELAXED);
    }
}

/* A job's result once its set ran, its memory freed: 1 done; -1 failed before finishing (the
 * caller redoes the whole write through native, which rewrites every chunk); -2 `narrow` refused
 * a chunk (the caller converts with H5Tconvert and writes again). */
static int
write_done(wjob_t *j)
{
    int refused = 0;
    for (size_t i = 0; i < j->n; i++) {
        refused |= j->c[i].st == TB_ERR_UNSUPPORTED;
        wchunk_release(&j->c[i]);
    }
    free(j->c);
    j->c = NULL;
    if (!j->abort)
        tb_pipe_stats_g.chunks_written += j->n;
    return !j->abort ? 1 : refused ? -2 : -1;
}

/* Runs one eligible write (write_prepare's 0 or -1, else write_done's result). */
static int
run_write(tb_obj_t *o, const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, hid_t dxpl_id, const void *buf,
          int edc, tb_narrow_fn narrow)
{
    wjob_t j;
    int    rc = write_prepare(&j, o, p, plan, dxpl_id, buf, edc, narrow);
    if (rc != 1)
        return rc;
    wjob_t *one = &j;
    write_jobs_run(&one, 1, job_threads(o));
    return write_done(&j);
}

/* ------------------------------------------------------------------ conversions in the workers */
/* Conversions between native numeric types that keep every value exactly (wider integers of a
 * signedness that holds every source value, integers into a float type whose mantissa holds them,
 * float into double) cannot raise a conversion exception, and HDF5's own conversion of them is a
 * C cast: the same result, computed by the workers. In place, from the back (the destination
 * element is at least as large). */
typedef void (*tb_widen_fn)(void *buf, size_t n);

#define TB_WIDEN(name, S, D)                                                                              \
    static void name(void *buf, size_t n)                                                                 \
    {                                                                                                     \
        const S *s = buf;                                                                                 \
        D       *d = buf;                                                                                 \
        for (size_t i = n; i-- > 0;) {                                                                    \
            S v  = s[i];                                                                                  \
            d[i] = (D)v;                                                                                  \
        }                                                                                                 \
    }
TB_WIDEN(widen_u8_u16, uint8_t, uint16_t)
TB_WIDEN(widen_u8_i16, uint8_t, int16_t)
TB_WIDEN(widen_u8_u32, uint8_t, uint32_t)
TB_WIDEN(widen_u8_i32, uint8_t, int32_t)
TB_WIDEN(widen_u8_u64, uint8_t, uint64_t)
TB_WIDEN(widen_u8_i64, uint8_t, int64_t)
TB_WIDEN(widen_u8_f32, uint8_t, float)
TB_WIDEN(widen_u8_f64, uint8_t, double)
TB_WIDEN(widen_i8_i16, int8_t, int16_t)
TB_WIDEN(widen_i8_i32, int8_t, int32_t)
TB_WIDEN(widen_i8_i64, int8_t, int64_t)
TB_WIDEN(widen_i8_f32, int8_t, float)
TB_WIDEN(widen_i8_f64, int8_t, double)
TB_WIDEN(widen_u16_u32, uint16_t, uint32_t)
TB_WIDEN(widen_u16_i32, uint16_t, int32_t)
TB_WIDEN(widen_u16_u64, uint16_t, uint64_t)
TB_WIDEN(widen_u16_i64, uint16_t, int64_t)
TB_WIDEN(widen_u16_f32, uint16_t, float)
TB_WIDEN(widen_u16_f64, uint16_t, double)
TB_WIDEN(widen_i16_i32, int16_t, int32_t)
TB_WIDEN(widen_i16_i64, int16_t, int64_t)
TB_WIDEN(widen_i16_f32, int16_t, float)
TB_WIDEN(widen_i16_f64, int16_t, double)
TB_WIDEN(widen_u32_u64, uint32_t, uint64_t)
TB_WIDEN(widen_u32_i64, uint32_t, int64_t)
TB_WIDEN(widen_u32_f64, uint32_t, double)
TB_WIDEN(widen_i32_i64, int32_t, int64_t)
TB_WIDEN(widen_i32_f64, int32_t, double)
TB_WIDEN(widen_f32_f64, float, double)
/* Integers into a float type too narrow for some of them: HDF5 raises a precision exception
 * for those, and without a callback on the transfer list converts them with the C cast. */
TB_WIDEN(cast_u32_f32, uint32_t, float)
TB_WIDEN(cast_i32_f32, int32_t, float)
TB_WIDEN(cast_u64_f64, uint64_t, double)
TB_WIDEN(cast_i64_f64, int64_t, double)

/* Narrowing in place, from the front. */
#define TB_NARROW(name, S, D)                                                                             \
    static void name(void *buf, size_t n)                                                                 \
    {                                                                                                     \
        const S *s = buf;                                                                                 \
        D       *d = buf;                                                                                 \
        for (size_t i = 0; i < n; i++) {                                                                  \
            S v  = s[i];                                                                                  \
            d[i] = (D)v;                                                                                  \
        }                                                                                                 \
    }
TB_NARROW(cast_u64_f32, uint64_t, float)
TB_NARROW(cast_i64_f32, int64_t, float)

/* Which native numeric type t is: 0..9 for u8 i8 u16 i16 u32 i32 u64 i64 f32 f64, else -1. */
static int
native_index(hid_t t)
{
    const hid_t nat[10] = {H5T_NATIVE_UINT8,  H5T_NATIVE_INT8,  H5T_NATIVE_UINT16, H5T_NATIVE_INT16,
                           H5T_NATIVE_UINT32, H5T_NATIVE_INT32, H5T_NATIVE_UINT64, H5T_NATIVE_INT64,
                           H5T_NATIVE_FLOAT,  H5T_NATIVE_DOUBLE};
    for (int k = 0; k < 10; k++)
        if (tb_h5t_equal(t, nat[k]) > 0)
            return k;
    return -1;
}

/* The conversion from file type f to memory type m the workers can do, or NULL (H5Tconvert
 * does it). cb: the transfer list has a conversion exception callback. */
static tb_widen_fn
widen_for(hid_t f, hid_t m, int cb)
{
    /* [source][destination], in native_index order. */
    static const tb_widen_fn table[10][10] = {
        [0] = {[2] = widen_u8_u16, [3] = widen_u8_i16, [4] = widen_u8_u32, [5] = widen_u8_i32, [6] = widen_u8_u64,
               [7] = widen_u8_i64, [8] = widen_u8_f32, [9] = widen_u8_f64},
        [1] = {[3] = widen_i8_i16, [5] = widen_i8_i32, [7] = widen_i8_i64, [8] = widen_i8_f32, [9] = widen_i8_f64},
        [2] = {[4] = widen_u16_u32, [5] = widen_u16_i32, [6] = widen_u16_u64, [7] = widen_u16_i64, [8] = widen_u16_f32,
               [9] = widen_u16_f64},
        [3] = {[5] = widen_i16_i32, [7] = widen_i16_i64, [8] = widen_i16_f32, [9] = widen_i16_f64},
        [4] = {[6] = widen_u32_u64, [7] = widen_u32_i64, [9] = widen_u32_f64},
        [5] = {[7] = widen_i32_i64, [9] = widen_i32_f64},
        [8] = {[9] = widen_f32_f64},
    };
    static const tb_widen_fn table_no_cb[10][10] = {
        [4] = {[8] = cast_u32_f32}, [5] = {[8] = cast_i32_f32},
        [6] = {[8] = cast_u64_f32, [9] = cast_u64_f64}, [7] = {[8] = cast_i64_f32, [9] = cast_i64_f64},
    };
    int src = native_index(f), dst = src < 0 ? -1 : native_index(m);
    if (dst < 0)
        return NULL;
    return table[src][dst] ? table[src][dst] : cb ? NULL : table_no_cb[src][dst];
}

/* Floating point into integers on writes, without a conversion exception callback: HDF5's
 * conversion (H5T_CONV_Fx_NOEX) is "above the type's maximum: the maximum; below its minimum:
 * the minimum; else the C cast". That is exact C except for NaN and for a value equal to the
 * maximum rounded up into the float type (2^31 for int32 from float), where the cast is
 * undefined and the result is whatever HDF5's compiled code gives: a chunk holding one of those
 * is refused (-1) and the write converts through H5Tconvert instead. From src into dst. */

#define TB_NARROW_F(name, S, D, DMIN, DMAX)                                                               \
    static int name(const void *src, void *dst, size_t n)                                                 \
    {                                                                                                     \
        const S *s        = src;                                                                          \
        D       *d        = dst;                                                                          \
        const S  hi       = (S)(DMAX), lo = (S)(DMIN);                                                    \
        const int hi_exact = (long double)hi == (long double)(DMAX);                                      \
        int      bad      = 0;                                                                            \
        /* One pass; what it stores for a refused element (NaN as 0, the rounded-up maximum as the     \
         * maximum) is never used. */                                                                     \
        for (size_t i = 0; i < n; i++) {                                                                  \
            S   v   = s[i];                                                                               \
            int nan = v != v;                                                                             \
            S   w   = nan ? (S)0 : v;                                                                     \
            bad |= nan | (!hi_exact & (w == hi));                                                         \
            d[i] = (hi_exact ? w > hi : w >= hi) ? (D)(DMAX) : w < lo ? (D)(DMIN) : (D)w;                \
        }                                                                                                 \
        return bad ? -1 : 0;                                                                              \
    }
TB_NARROW_F(narrow_f32_u8, float, uint8_t, 0, UINT8_MAX)
TB_NARROW_F(narrow_f32_i8, float, int8_t, INT8_MIN, INT8_MAX)
TB_NARROW_F(narrow_f32_u16, float, uint16_t, 0, UINT16_MAX)
TB_NARROW_F(narrow_f32_i16, float, int16_t, INT16_MIN, INT16_MAX)
TB_NARROW_F(narrow_f32_u32, float, uint32_t, 0, UINT32_MAX)
TB_NARROW_F(narrow_f32_i32, float, int32_t, INT32_MIN, INT32_MAX)
TB_NARROW_F(narrow_f32_u64, float, uint64_t, 0, UINT64_MAX)
TB_NARROW_F(narrow_f32_i64, float, int64_t, INT64_MIN, INT64_MAX)
TB_NARROW_F(narrow_f64_u8, double, uint8_t, 0, UINT8_MAX)
TB_NARROW_F(narrow_f64_i8, double, int8_t, INT8_MIN, INT8_MAX)
TB_NARROW_F(narrow_f64_u16, double, uint16_t, 0, UINT16_MAX)
TB_NARROW_F(narrow_f64_i16, double, int16_t, INT16_MIN, INT16_MAX)
TB_NARROW_F(narrow_f64_u32, double, uint32_t, 0, UINT32_MAX)
TB_NARROW_F(narrow_f64_i32, double, int32_t, INT32_MIN, INT32_MAX)
TB_NARROW_F(narrow_f64_u64, double, uint64_t, 0, UINT64_MAX)
TB_NARROW_F(narrow_f64_i64, double, int64_t, INT64_MIN, INT64_MAX)

/* The worker conversion from memory type m (float or double) into file type f (a native
 * integer), or NULL. */
static tb_narrow_fn
narrow_for(hid_t m, hid_t f)
{
    static const tb_narrow_fn table[2][8] = {
        {narrow_f32_u8, narrow_f32_i8, narrow_f32_u16, narrow_f32_i16, narrow_f32_u32, narrow_f32_i32, narrow_f32_u64,
         narrow_f32_i64},
        {narrow_f64_u8, narrow_f64_i8, narrow_f64_u16, narrow_f64_i16, narrow_f64_u32, narrow_f64_i32, narrow_f64_u64,
         narrow_f64_i64},
    };
    int src = native_index(m), dst = src >= 8 ? native_index(f) : -1;
    return dst >= 0 && dst < 8 ? table[src - 8][dst] : NULL;
}

/* ------------------------------------------------------------------ read job */
typedef struct rchunk {
    void        *raw; /* NULL: not stored */
    size_t       raw_nbytes;
    uint32_t     mask;
    tb_status_t st;
    /* Conversion: the chunk's part of the selection as a dense array, file type on the way in,
     * memory type once converted (tb_buf; NULL: nothing to convert, the buffer stays as it is). */
    void        *conv;
    size_t       conv_nbytes;
    int          decoded; /* set mutex: conv may be converted */
    /* The decoded-chunk cache (set before the job starts): the chunk as cached (nothing to read
     * or decode), or whether to keep it once decoded; the kept copy (tb_buf of chunk_nbytes) is
     * handed to the cache after the job. */
    const uint8_t *cached;
    int            keep;
    uint8_t       *kept;
} rchunk_t;

struct rset;

/* One dataset's read. Fields above `nread` are written before the workers start and only read
 * afterwards; the rest are protected by the set's mutex. */
typedef struct rjob {
    struct rset           *s;
    tb_obj_t              *o;
    const tb_pipe_dset_t *p;
    const tb_pipe_plan_t *plan;
    uint8_t               *user;
    rchunk_t              *c;
    size_t                 n, hits;
    int                    edc;
    tb_widen_fn            widen;  /* conversion done by the workers (NULL: H5Tconvert) */
    int                    fd;     /* >= 0: every chunk is "read" at once, decoders pread it (p->map) */
    int                    walk;   /* fd >= 0: the chunk map is walked by this job (read_fd), chunks
                                    * "read" as the walk passes them */
    hid_t                  mem_type_id, dxpl_id; /* conversion: the application's thread only */
    size_t                 nread;    /* chunks [0, nread) are read and may be decoded */
    size_t                 next;     /* next chunk to claim for decoding */
    size_t                 ndecoded;
    size_t                 nconverted; /* conversion: chunks [0, nconverted) are in the user's buffer */
    int                    abort, failed;
    int                    conv_failed; /* H5Tconvert failed: its error stands, native is not asked again */
    int                    no_index; /* nothing stored yet: left to native (not a failure) */
} rjob_t;

/* The reads of one call on the pool at once: one job for H5Dread, one per dataset the pipeline
 * takes for H5Dread_multi. The application's thread reads the jobs' chunks in order (or lets the
 * decoders pread them), the workers decode them in the same order, moving to the next job as soon
 * as a job's chunks are all claimed: no dataset waits for the one before it to finish. */
typedef struct rset {
    set_core_t c; /* its mutex protects `inflight` and the jobs' fields from `nread` on */
    rjob_t   **jobs;
    size_t     njobs;
    size_t     inflight_max;
    size_t     inflight; /* raw bytes read and not yet decoded, decoded bytes not yet converted */
} rset_t;

static void decode_chunk(rjob_t *j, size_t i);

/* Unfilters chunk i into the user's buffer, or into its conversion array (any thread). */
static void
decode_one(rjob_t *j, size_t i)
{
    uint64_t t0 = j->s->c.timing ? thread_cpu_ns() : 0;
    decode_chunk(j, i);
    if (j->s->c.timing) {
        uint64_t ns = account_codec(t0, j->s->c.owner);
        if (j->walk)
            __atomic_fetch_add(&tb_pipe_stats_g.walk_codec_ns, ns, __ATOMIC_RELAXED);
    }
}

static void
decode_chunk(rjob_t *j, size_t i)
{
    const tb_pipe_dset_t *p = j->p;
    rchunk_t              *c = &j->c[i];
    hsize_t                off[TB_PIPE_RANK];
    tb_pipe_region_t      r;
    int                    convert = j->plan->convert;
    size_t                 nelem   = 0;
    tb_pipe_chunk_offset(p, j->plan, i, off);
    tb_pipe_region(p, j->plan, off, &r);
    if (j->fd >= 0 && !c->cached) {
        const tb_pipe_map_entry_t *e = tb_pipe_map_find(p, off);
        if (e) {
            if (!(c->raw = tb_buf_get(e->nbytes)))
                c->st = TB_ERR_NOMEM;
            else
                c->st = tb_pipe_map_pread(j->fd, e, c->raw);
            c->raw_nbytes = e->nbytes;
            c->mask       = e->mask;
            if (c->st != TB_OK)
                goto out;
        }
    }
    if (convert && (c->raw || c->cached || !p->skip_missing)) {
        /* Room for the region's elements in whichever of the two types is larger: conversions
         * run in place. */
        size_t es      = p->type_nbytes > j->plan->es ? p->type_nbytes : j->plan->es;
        nelem          = tb_pipe_region_nelem(p, &r);
        c->conv_nbytes = nelem * es;
        if (!(c->conv = tb_buf_get(c->conv_nbytes))) {
            c->st = TB_ERR_NOMEM;
            goto out;
        }
        if (!c->raw && !c->cached) /* HDF5 converts a missing chunk's fill value like stored elements */
            tb_pipe_fill_dense(p, c->conv, nelem);
    }
    if (c->cached) {
        if (!(convert ? tb_pipe_pack_chunk(p, j->plan, &r, c->cached, c->conv)
                      : tb_pipe_scatter(p, j->plan, &r, c->cached, j->user)))
            c->st = TB_ERR_NOMEM;
        goto widen;
    }
    if (!c->raw) {
        if (!p->skip_missing && !convert && !tb_pipe_fill_user(p, j->plan, &r, j->user))
            c->st = TB_ERR_NOMEM;
        goto widen;
    }
    void *bufs[2] = {tb_buf_get(p->buf_nbytes), tb_buf_get(p->buf_nbytes)};
    if (!bufs[0] || !bufs[1])
        c->st = TB_ERR_NOMEM;
    else {
        uint8_t    *direct = r.direct ? j->user + r.user_off : NULL;
        const void *dec    = NULL;
        if (c->keep && (c->kept = tb_buf_get(p->chunk_nbytes)) != NULL)
            direct = c->kept; /* decoded into the copy to keep, the selection taken from there */
        c->st = tb_pipe_decode(p, c->raw, c->raw_nbytes, c->mask, j->edc, bufs, direct, &dec, j->s->c.inner_threads);
        if (c->st == TB_OK && c->kept) {
            if (dec != c->kept)
                memcpy(c->kept, dec, p->chunk_nbytes);
            dec    = c->kept;
            direct = NULL;
        }
        if (c->st == TB_OK && convert) {
            if (!tb_pipe_pack_chunk(p, j->plan, &r, dec, c->conv))
                c->st = TB_ERR_NOMEM;
        }
        else if (c->st == TB_OK && dec != direct && !tb_pipe_scatter(p, j->plan, &r, dec, j->user))
            c->st = TB_ERR_NOMEM;
    }
    tb_buf_put(bufs[0]);
    tb_buf_put(bufs[1]);
widen:
    /* A lossless widening needs no H5Tconvert (no exception can arise, every value is kept):
     * done here, in parallel, straight into the user's buffer. */
    if (c->st == TB_OK && c->conv && j->widen) {
        j->widen(c->conv, nelem);
        if (!tb_pipe_unpack_user(p, j->plan, &r, c->conv, j->user))
            c->st = TB_ERR_NOMEM;
        tb_buf_put(c->conv);
        c->conv        = NULL;
        c->conv_nbytes = 0;
    }
out:
    tb_buf_put(c->raw);
    c->raw = NULL;
}


/* Claims and decodes one chunk of j; called with the set's mutex held, returns with it held. */
static void
decode_claimed(rjob_t *j)
{
    rset_t *s      = j->s;
    size_t  i      = j->next++;
    size_t  nbytes = j->c[i].raw_nbytes;
    pthread_mutex_unlock(&s->c.mu);
    decode_one(j, i);
    pthread_mutex_lock(&s->c.mu);
    j->ndecoded++;
    s->inflight -= nbytes;
    s->inflight += j->c[i].conv_nbytes;
    j->c[i].decoded = 1;
    if (j->c[i].st != TB_OK)
        j->failed = j->abort = 1;
    pthread_cond_broadcast(&s->c.cv);
}

/* Conversion, on the application's thread: converts the decoded chunks that are next in order
 * (HDF5's order: chunk by chunk, each chunk's elements in row-major order, so that a conversion
 * exception callback on the transfer list sees the same sequence) and copies them to the user's
 * buffer. Called with the set's mutex held, returns with it held. */
static void
convert_ready(rjob_t *j)
{
    rset_t *s = j->s;
    while (!j->abort && j->nconverted < j->n && j->c[j->nconverted].decoded) {
        size_t    i = j->nconverted;
        rchunk_t *c = &j->c[i];
        pthread_mutex_unlock(&s->c.mu);
        int ok = 1, nomem = 0;
        if (c->conv) {
            hsize_t           off[TB_PIPE_RANK];
            tb_pipe_region_t r;
            tb_pipe_chunk_offset(j->p, j->plan, i, off);
            tb_pipe_region(j->p, j->plan, off, &r);
            size_t nelem = tb_pipe_region_nelem(j->p, &r);
            if (H5Tconvert(j->p->type_id, j->mem_type_id, nelem, c->conv, NULL, j->dxpl_id) < 0)
                ok = 0;
            else if (!tb_pipe_unpack_user(j->p, j->plan, &r, c->conv, j->user))
                nomem = 1;
            tb_buf_put(c->conv);
            c->conv = NULL;
        }
        pthread_mutex_lock(&s->c.mu);
        s->inflight -= c->conv_nbytes;
        j->nconverted++;
        if (j->fd >= 0)
            pthread_cond_broadcast(&s->c.cv); /* decoders held back by inflight may go on */
        if (!ok || nomem) {
            /* (Out of memory: native reads it all again.) */
            j->conv_failed = !ok;
            j->failed = j->abort = 1;
            pthread_cond_broadcast(&s->c.cv); /* workers waiting for chunks to decode stop */
        }
    }
}

/* Whether decoders of j hold back: its chunks are pread by them and converted on the
 * application's thread, and converted chunks are piling up (set mutex held). */
static int
holds_back(const rjob_t *j)
{
    return j->fd >= 0 && j->plan->convert && !j->widen && j->s->inflight > j->s->inflight_max;
}

/* A worker: decodes the set's chunks in order, job after job. */
static void
read_worker(void *arg)
{
    rset_t *s = arg;
    if (pthread_equal(pthread_self(), s->c.owner))
        return;
    pthread_mutex_lock(&s->c.mu);
    for (size_t k = 0; k < s->njobs; k++) {
        rjob_t *j = s->jobs[k];
        for (;;) {
            /* (Reading itself, a decoder also holds back while converted chunks pile up.) */
            while (!j->abort && j->next < j->n && (j->next >= j->nread || holds_back(j)))
                pthread_cond_wait(&s->c.cv, &s->c.mu);
            if (j->abort || j->next >= j->n)
                break;
            decode_claimed(j);
        }
    }
    pthread_mutex_unlock(&s->c.mu);
}

/* The row-major index of chunk i of job j in its dataset's chunk grid (the map's index). */
static size_t
job_chunk_lin(const rjob_t *j, size_t i)
{
    hsize_t off[TB_PIPE_RANK];
    tb_pipe_chunk_offset(j->p, j->plan, i, off);
    return tb_pipe_map_lin(j->p, off);
}

/* A walk of the chunk map releasing job j's chunks as it passes them: the walk comes in
 * row-major order of the chunks (tb_pipe_map_start), so a chunk it passed without an entry is
 * not stored. */
typedef struct walk_feed {
    rjob_t *j;
    size_t  next_lin; /* chunk nread's index: released once the walk reaches it */
    size_t  last;     /* the walk's last index, +1 */
} walk_feed_t;

static int
walk_progress(void *ctx, size_t lin)
{
    walk_feed_t *w = ctx;
    rjob_t      *j = w->j;
    if (lin + 1 <= w->last)
        return 0; /* (not in order after all: chunks released may have been taken as not stored) */
    w->last = lin + 1;
    if (lin < w->next_lin)
        return 1;
    size_t nr = j->nread; /* (only this thread changes it) */
    while (nr < j->n && job_chunk_lin(j, nr) <= lin)
        nr++;
    w->next_lin = nr < j->n ? job_chunk_lin(j, nr) : SIZE_MAX;
    pthread_mutex_lock(&j->s->c.mu);
    j->nread  = nr;
    int going = !j->abort;
    pthread_cond_broadcast(&j->s->c.cv);
    pthread_mutex_unlock(&j->s->c.mu);
    return going;
}

/* Walks job j's chunk map while the workers decode the chunks it passes: 1 when the map is whole
 * (every chunk then released), 0 when the walk failed (the job fails: native reads it again; the
 * map is dropped once the set ran, read_done). */
static int
walk_map(rset_t *s, rjob_t *j)
{
    tb_pipe_dset_t *p  = (tb_pipe_dset_t *)(uintptr_t)j->p;
    uint64_t        t0 = s->c.timing ? thread_cpu_ns() : 0;
    walk_feed_t     w  = {j, job_chunk_lin(j, 0), 0};
    int             ok = tb_pipe_map_walk(j->o, p, j->dxpl_id, walk_progress, &w);
    if (t0)
        tb_pipe_stats_g.map_walk_ns += thread_cpu_ns() - t0;
    p->map_state = ok ? 1 : 2; /* (2 until read_done drops it) */
    return ok;
}

/* The application's thread, first pass over job k: reads its raw chunks in order, while the
 * bytes read and not yet decoded (of every job) stay under inflight_max, decoding (and
 * converting) itself the chunks of this job or an earlier one while it may not read further. A
 * job whose decoders pread their chunks is only released to them here. */
static void
read_feed(rset_t *s, size_t k)
{
    rjob_t *j       = s->jobs[k];
    int     convert = j->plan->convert;
    int     walked  = !j->walk || walk_map(s, j);
    pthread_mutex_lock(&s->c.mu);
    if (j->fd >= 0 && walked) {
        j->nread = j->n;
        pthread_cond_broadcast(&s->c.cv);
    }
    if (!walked)
        j->failed = j->abort = 1;
    pthread_mutex_unlock(&s->c.mu);
    for (size_t i = 0; i < j->n && j->fd < 0; i++) {
        pthread_mutex_lock(&s->c.mu);
        if (convert)
            convert_ready(j);
        while (!j->abort && s->inflight > s->inflight_max) {
            rjob_t *h = NULL; /* the first job with a chunk read and not claimed */
            for (size_t q = 0; q <= k && !h; q++)
                if (!s->jobs[q]->abort && s->jobs[q]->next < s->jobs[q]->nread)
                    h = s->jobs[q];
            if (h)
                decode_claimed(h);
            else if (j->ndecoded < j->nread)
                pthread_cond_wait(&s->c.cv, &s->c.mu);
            else
                break; /* (what is in flight is other jobs', in the workers' hands) */
            if (convert)
                convert_ready(j);
        }
        int stop = j->abort;
        pthread_mutex_unlock(&s->c.mu);
        if (stop)
            break;

        rchunk_t *c = &j->c[i];
        hsize_t   off[TB_PIPE_RANK];
        size_t    nbytes = 0;
        int       bad    = 0;
        tb_pipe_chunk_offset(j->p, j->plan, i, off);
        switch (c->cached ? TB_PIPE_STORED_NONE : tb_pipe_chunk_stored(j->o, off, j->dxpl_id, &nbytes)) {
            case TB_PIPE_STORED_NONE:
                break;
            case TB_PIPE_STORED_YES:
                if (!(c->raw = tb_buf_get(nbytes)) ||
                    tb_pipe_chunk_read(j->o, off, j->dxpl_id, &c->mask, c->raw, nbytes) < 0)
                    bad = 1;
                else if (c->mask && !j->p->masked)
                    tb_pipe_masked(j->o, j->dxpl_id);
                c->raw_nbytes = nbytes;
                break;
            case TB_PIPE_STORED_NO_INDEX: /* no chunk index yet: native knows the fill rules for this case */
                j->no_index = 1;
                bad         = 1;
                break;
            case TB_PIPE_STORED_FAILED:
                bad = 1;
                break;
        }
        pthread_mutex_lock(&s->c.mu);
        if (bad)
            j->failed = j->abort = 1;
        else {
            j->nread = i + 1;
            s->inflight += c->raw_nbytes;
        }
        pthread_cond_broadcast(&s->c.cv);
        pthread_mutex_unlock(&s->c.mu);
        if (bad)
            break;
    }
}

/* The application's thread, second pass over job k (after every job was fed): decodes what is
 * left of it, converts, and waits for the chunks the workers claimed (its outcome: read_done). */
static void
read_finish(rset_t *s, size_t k)
{
    rjob_t *j       = s->jobs[k];
    int     convert = j->plan->convert;
    pthread_mutex_lock(&s->c.mu);
    if (j->failed)
        j->abort = 1;
    while (!j->abort && j->next < j->n) {
        if (convert) { /* (which lets go of the mutex: the workers may claim what was left) */
            convert_ready(j);
            if (j->abort || j->next >= j->n)
                break;
        }
        /* (Chunks the decoders pread: converted ones may not pile up.) */
        if (holds_back(j))
            pthread_cond_wait(&s->c.cv, &s->c.mu);
        else
            decode_claimed(j);
    }
    /* The later jobs' chunks nobody claimed yet, before waiting for what the workers claimed of
     * this one (a job of one chunk a worker took would leave this thread idle). Not with a
     * conversion on this thread: such a job runs alone. */
    for (size_t q = k + 1; q < s->njobs; q++) {
        rjob_t *h = s->jobs[q];
        while (!h->abort && h->next < h->nread && !(h->plan->convert && !h->widen))
            decode_claimed(h);
    }
    /* Wait for the chunks other threads claimed (also after an abort: they own their buffers). */
    for (;;) {
        if (convert)
            convert_ready(j);
        if (j->ndecoded >= (j->abort ? j->next : j->n) && (j->abort || !convert || j->nconverted >= j->n))
            break;
        pthread_cond_wait(&s->c.cv, &s->c.mu);
    }
    /* (Chunks read and never decoded no longer count against the other jobs' reading.) */
    for (size_t i = j->next; i < j->nread; i++)
        s->inflight -= j->c[i].raw_nbytes;
    pthread_mutex_unlock(&s->c.mu);
}

/* Sets up job j for one eligible read (chunks taken from the decoded-chunk cache marked). 0 when
 * memory runs out (the read is native's). */
static int
read_prepare(rjob_t *j, tb_obj_t *o, tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, hid_t mem_type_id,
             hid_t dxpl_id, void *buf, int edc, tb_widen_fn widen, int fd, int walk)
{
    size_t    n = plan->nchunks;
    rchunk_t *c = calloc(n, sizeof(*c));
    if (!c)
        return 0;
    memset(j, 0, sizeof(*j));
    /* The decoded-chunk cache: chunks kept serve this read; and of its chunks (its last cache_max
     * ones when they do not all fit, as HDF5's cache ends up holding the last chunks a larger read
     * decoded), the ones it takes only part of (all of them in a small read, which HDF5's cache
     * would keep) are kept, and every one once this handle has read a chunk it decoded lately
     * again (keep_all). */
    if (p->cache_max) {
        int small = plan->npoints * plan->es < o->ctx->cfg.pipeline_min_nbytes;
        for (size_t i = 0; i < n; i++) {
            hsize_t           off[TB_PIPE_RANK];
            tb_pipe_region_t r;
            tb_pipe_chunk_offset(p, plan, i, off);
            if ((c[i].cached = tb_pipe_cache_find(p, off)) != NULL)
                j->hits++;
            else if (n <= p->cache_max || i >= n - p->cache_max) {
                /* (Also chunks read with the checksum off: native's cache keeps those too, and
                 * a later read asking for the check gets them unchecked, as here.) */
                tb_pipe_region(p, plan, off, &r);
                c[i].keep = small || !r.full || p->keep_all || tb_pipe_cache_reread(p, off);
            }
        }
    }
    j->o           = o;
    j->p           = p;
    j->plan        = plan;
    j->user        = buf;
    j->c           = c;
    j->n           = n;
    j->edc         = edc;
    j->widen       = widen;
    j->fd          = fd;
    j->walk        = walk;
    j->mem_type_id = mem_type_id;
    j->dxpl_id     = dxpl_id;
    return 1;
}

static void
read_app(void *arg)
{
    rset_t *s = arg;
    for (size_t k = 0; k < s->njobs; k++)
        read_feed(s, k);
    for (size_t k = 0; k < s->njobs; k++)
        read_finish(s, k);
}

/* Runs the jobs listed on the pool as one set; each job's own result is read_done's. */
static void
read_jobs_run(rjob_t **jobs, size_t n, unsigned threads, size_t inflight_max)
{
    rset_t s;
    memset(&s, 0, sizeof(s));
    s.jobs         = jobs;
    s.njobs        = n;
    s.inflight_max = inflight_max;
    size_t total   = 0;
    for (size_t k = 0; k < n; k++) {
        jobs[k]->s = &s;
        total += jobs[k]->n;
    }
    set_run(&s.c, &s, total, threads, read_worker, read_app);
}

/* A job's result once its set ran, its chunks kept and its memory freed: 1 done; 0 left to native
 * (nothing stored yet); -1 failed (the caller reads again through native, which then reports the
 * error HDF5 reports); -2 the conversion failed (H5Tconvert's error is on the stack, as H5Dread's
 * own would be: the read fails). */
static int
read_done(rjob_t *j)
{
    int ok = !j->failed;
    for (size_t i = 0; i < j->n; i++) {
        rchunk_t *c = &j->c[i];
        tb_buf_put(c->raw);
        tb_buf_put(c->conv);
        hsize_t off[TB_PIPE_RANK];
        if (c->kept && ok && c->st == TB_OK) {
            tb_pipe_chunk_offset(j->p, j->plan, i, off);
            tb_pipe_cache_put((tb_pipe_dset_t *)(uintptr_t)j->p, off, c->kept);
        }
        else {
            tb_buf_put(c->kept);
            if (ok && !c->cached) { /* (decoded, or unallocated) */
                tb_pipe_chunk_offset(j->p, j->plan, i, off);
                tb_pipe_cache_note_decoded((tb_pipe_dset_t *)(uintptr_t)j->p, off);
            }
        }
    }
    free(j->c);
    j->c = NULL;
    if (j->walk && j->p->map_state != 1) /* (its walk failed: no map for this dataset) */
        tb_pipe_map_drop((tb_pipe_dset_t *)(uintptr_t)j->p, -1);
    if (ok) {
        tb_pipe_stats_g.chunks_read += j->n - j->hits;
        tb_pipe_stats_g.chunks_cache_hits += j->hits;
        if (j->fd >= 0)
            tb_pipe_stats_g.chunks_pread += j->n - j->hits;
    }
    return ok ? 1 : j->conv_failed ? -2 : j->no_index ? 0 : -1;
}

/* ------------------------------------------------------------------ conversion on write */
/* The box's elements in row-major order are also in chunk order (each chunk's part one run,
 * chunks in increasing order): true when, before the first dimension crossing chunks, the box is
 * one element thick, and after it, within one chunk. */
static int
box_order_is_chunk_order(const tb_pipe_plan_t *plan)
{
    int d0 = 0;
    while (d0 < plan->rank && plan->chi[d0] - plan->clo[d0] == 1)
        d0++;
    for (int d = 0; d < d0; d++)
        if (plan->fcount[d] != 1)
            return 0;
    for (int d = d0 + 1; d < plan->rank; d++)
        if (plan->chi[d] - plan->clo[d] != 1)
            return 0;
    return 1;
}

/* Whether any chunk of the plan is written whole (else the write is left to native). */
static int
plan_has_full_chunk(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan)
{
    hsize_t           off[TB_PIPE_RANK];
    tb_pipe_region_t r;
    for (size_t i = 0; i < plan->nchunks; i++) {
        tb_pipe_chunk_offset(p, plan, i, off);
        tb_pipe_region(p, plan, off, &r);
        if (r.full && !r.edge)
            return 1;
    }
    return 0;
}

/* Converts the elements a write selects from the memory type into the file type, on the
 * application's thread, as H5Dwrite does: chunk by chunk, each chunk's elements in row-major
 * order, through H5Tconvert with the transfer list. Returns a buffer (free) holding them as a
 * dense array of the file box, and in *splan_out the plan that writes from it; NULL when the
 * write is better left to native (too large, or the conversion failed). */
static void *
convert_for_write(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, size_t limit_nbytes, hid_t mem_type_id,
                  hid_t dxpl_id, const uint8_t *user, tb_pipe_plan_t *splan_out)
{
    size_t fes = p->type_nbytes, mes = plan->es, big = fes > mes ? fes : mes;
    if (plan->npoints > limit_nbytes / big)
        return NULL;
    *splan_out         = *plan;
    splan_out->es      = fes;
    splan_out->convert = 0;
    splan_out->mbase   = 0;
    int    dense       = 1;
    size_t fs = fes, ms = mes;
    for (int d = plan->rank - 1; d >= 0; d--) {
        splan_out->mstride[d] = fs;
        if (plan->fcount[d] > 1 && plan->mstride[d] != ms)
            dense = 0;
        fs *= (size_t)plan->fcount[d];
        ms *= (size_t)plan->fcount[d];
    }
    uint8_t *out = malloc(plan->npoints * big);
    if (!out)
        return NULL;
    if (dense && box_order_is_chunk_order(plan)) {
        /* One conversion of the whole selection visits the elements in the same order. */
        memcpy(out, user + plan->mbase, plan->npoints * mes);
        if (H5Tconvert(mem_type_id, p->type_id, plan->npoints, out, NULL, dxpl_id) < 0) {
            free(out);
            return NULL;
        }
        return out;
    }
    uint8_t *tmp = malloc(p->chunk_nelem * big);
    if (!tmp) {
        free(out);
        return NULL;
    }
    hsize_t           off[TB_PIPE_RANK];
    tb_pipe_region_t r, rs;
    for (size_t i = 0; i < plan->nchunks; i++) {
        tb_pipe_chunk_offset(p, plan, i, off);
        tb_pipe_region(p, plan, off, &r);
        tb_pipe_region(p, splan_out, off, &rs);
        size_t n = tb_pipe_region_nelem(p, &r);
        tb_pipe_pack_user(p, plan, &r, user, tmp);
        if (H5Tconvert(mem_type_id, p->type_id, n, tmp, NULL, dxpl_id) < 0) {
            free(tmp);
            free(out);
            return NULL;
        }
        tb_pipe_unpack_user(p, splan_out, &rs, tmp, out);
    }
    free(tmp);
    return out;
}

/* A conversion exception callback on the transfer list: native runs the write, so that the
 * callback sees each exception once even when the write fails part-way. */
static int
has_conv_cb(hid_t dxpl_id)
{
    H5T_conv_except_func_t op   = NULL;
    void                  *data = NULL;
    if (dxpl_id == H5P_DATASET_XFER_DEFAULT)
        return 0;
    return H5Pget_type_conv_cb(dxpl_id, &op, &data) < 0 || op != NULL;
}

/* The descriptor the decoders may pread this read's chunks from, or -1 (the application's
 * thread reads them through native). Read-only files on the sec2 driver; the dataset's chunk map
 * is taken at its first read that touches a sixteenth of its chunks (or any read of a dataset of
 * up to 65536 chunks): walking the chunk index costs about what reading the touched chunks'
 * index entries one by one does then. The walk (HDF5's index code, serial: ~770 instructions a
 * chunk) runs beside that read's decoders when it can (*walk set: the job walks it, releasing
 * each chunk to the decoders as the walk passes it), else before the read. */
static int
read_fd(tb_obj_t *o, tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const hsize_t *dims, hid_t dxpl_id, int *walk)
{
    *walk = 0;
    if (p->map_state < 0 || !p->have_token || (o->ctx->file_intent & (H5F_ACC_RDWR | H5F_ACC_SWMR_READ)))
        return -1;
    int fd = tb_pipe_file_fd(o, p->fileno);
    if (fd < 0)
        return -1;
    if (p->map_state == 0) {
        size_t total = 1;
        for (int d = 0; d < p->rank; d++)
            total *= (size_t)((dims[d] + p->chunk[d] - 1) / p->chunk[d]);
        if (total > 65536 && plan->nchunks < total / 16)
            return -1;
        hsize_t first[TB_PIPE_RANK];
        tb_pipe_chunk_offset(p, plan, 0, first);
        int st = tb_pipe_map_start(o, p, dims, first, dxpl_id, fd);
        if (st == 1) {
            p->map_state = 2;
            *walk        = 1;
            return fd;
        }
        p->map_state = st == 0 && tb_pipe_map_build(o, p, dims, dxpl_id, fd) ? 1 : -1;
    }
    return p->map_state == 1 ? fd : -1;
}

/* ------------------------------------------------------------------ entry points */
/* Whether the dataset is known not to be the pipeline's, the commonest case told first: a
 * contiguous dataset (most small ones are) is recognised by one native query, without the quieted
 * error stack and the creation property list examine() needs. */
static bool
ineligible(tb_obj_t *o, hid_t dxpl_id)
{
    const tb_pipe_dset_t *known = (const tb_pipe_dset_t *)o->pipe;
    if (known)
        return known->state < 0;
    if (!o->under || tb_dset_contig_addr(o->under, o->under_vol_id, dxpl_id) == HADDR_UNDEF)
        return false;
    o->pipe = (struct tb_pipe_dset *)&not_ours;
    return true;
}

/* Whether a write to a dataset not examined yet moves fewer bytes than the pipeline takes: such a
 * write is native's whatever the dataset is, so it is told without examining it (h5py's
 * create_dataset(data=...) of a small array writes a new contiguous dataset, which has no address
 * yet for ineligible() to recognise: examining it copied its creation list, 20,000 instructions a
 * dataset). The selection's count comes from the memory space, else the file space, else (both
 * "all") the dataset's extent; anything else (H5S_BLOCK, H5S_PLIST) is examined. */
static bool
small_write(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id)
{
    size_t min = o->ctx->cfg.pipeline_min_nbytes;
    if (!min || o->pipe)
        return false;
    hid_t    sel = mem_space_id != H5S_ALL ? mem_space_id : file_space_id;
    hid_t    own = H5I_INVALID_HID;
    hssize_t n   = -1;
    if (sel == H5S_ALL)
        sel = own = dset_get_id(o, H5VL_DATASET_GET_SPACE, dxpl_id);
    if (sel >= 0 && H5Iget_type(sel) == H5I_DATASPACE)
        n = H5Sget_select_npoints(sel);
    if (own >= 0)
        H5Sclose(own);
    size_t es = n > 0 ? tb_h5t_size(mem_type_id) : 0;
    return es > 0 && (size_t)n * es < min;
}

/* The call (read_call_t, write_call_t) whose job `j` is. */
#define CALL_OF(type, job) ((type *)(void *)((char *)(job) - offsetof(type, j)))

/* One dataset's write through the pipeline, in three steps so that a multi-dataset call can run
 * the writes of all its datasets as one set: write_begin (everything up to the job),
 * write_jobs_run of the set, write_end. */
typedef struct write_call {
    tb_obj_t       *o;
    tb_pipe_dset_t *p;
    tb_pipe_plan_t  plan;
    wjob_t          j;
    int             made, job, rc; /* a plan to free; a job prepared, to run; else its result */
    int             edc, convert, behind, drain_failed;
    tb_narrow_fn    narrow;
    void           *converted; /* H5Tconvert's output, the job's buffer (malloc) */
    const void     *buf;
    hid_t           mem_type_id, dxpl_id;
    uint64_t        t0;
} write_call_t;

typedef enum { WB_FORWARD, WB_ANSWERED, WB_JOB } write_begun_t;

static tb_answer_t write_end(write_call_t *wc, int account, herr_t *ret_out);

/* Everything before a write's job runs: WB_JOB when wc->j is prepared (the caller runs it and
 * calls write_end); else the write is over, answered (*ret_out) or to be forwarded. req: the
 * call's request pointer (NULL: synchronous). */
static write_begun_t
write_begin(write_call_t *wc, tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id,
            hid_t dxpl_id, const void *buf, void **req, herr_t *ret_out)
{
    memset(wc, 0, sizeof(*wc));
    wc->o           = o;
    wc->mem_type_id = mem_type_id;
    wc->dxpl_id     = dxpl_id;
    wc->buf         = buf;
    /* Every H5Dwrite through the connector, taken or forwarded: decoded chunks kept by any
     * handle may be stale now. */
    tb_pipe_cache_written();
    /* (An asynchronous call below other than native's is that connector's to run.) */
    if (!o->ctx->cfg.pipeline || !buf || !tb_sync_below(req, o->ctx) || ineligible(o, dxpl_id) ||
        small_write(o, mem_type_id, mem_space_id, file_space_id, dxpl_id)) {
        /* Forwarded: but not ahead of chunks write-behind still holds. */
        if (tb_pipe_drain(o, dxpl_id) < 0) {
            *ret_out = -1;
            return WB_ANSWERED;
        }
        return WB_FORWARD;
    }
    tb_pipe_register_stats();
    wc->t0 = tb_config_process()->stats ? thread_cpu_ns() : 0;
    tb_quiet_t q;
    tb_quiet_on(&q);
    tb_pipe_dset_t *p = wc->p = ready(o, mem_type_id, dxpl_id, 1, &wc->edc, &wc->convert);
    hsize_t         dims[TB_PIPE_RANK];
    size_t          mes = p && wc->convert ? tb_h5t_size(mem_type_id) : p ? p->type_nbytes : 0;
    wc->made = p && !(wc->convert && has_conv_cb(dxpl_id)) && current_dims(o, p, dxpl_id, dims) &&
               tb_pipe_plan_make(p, dims, file_space_id, mem_space_id, mes, wc->convert, TB_PIPE_PLAN_WRITE,
                                 &wc->plan);
    /* A conversion lays the selection out as a dense array of the plan's shape (convert_for_write,
     * the workers' narrowing): not for a union of boxes, whose rows a block plan places itself. */
    if (wc->made && wc->convert && wc->plan.kind == TB_PLAN_BLOCKS) {
        tb_pipe_plan_free(&wc->plan);
        wc->made = 0;
    }
    int planned = wc->made && wc->plan.npoints * wc->plan.es >= o->ctx->cfg.pipeline_min_nbytes;
    /* Conversion first (application's thread), then the filters in parallel from its output.
     * Float into integers without write-behind: the workers convert (narrow_for), else first
     * H5Tconvert on this thread. */
    wc->narrow = planned && wc->convert && !o->ctx->cfg.write_behind ? narrow_for(mem_type_id, p->type_id) : NULL;
    if (wc->narrow && !plan_has_full_chunk(p, &wc->plan))
        planned = 0;
    if (planned && wc->convert && !wc->narrow) {
        tb_pipe_plan_t splan;
        planned = plan_has_full_chunk(p, &wc->plan) &&
                  (wc->converted = convert_for_write(p, &wc->plan, o->ctx->cfg.inflight_nbytes, mem_type_id,
                                                     dxpl_id, wc->buf, &splan)) != NULL;
        if (planned) {
            wc->plan = splan;
            wc->buf  = wc->converted;
        }
    }
    if (planned && !masks_known(o, p, dxpl_id) && o->ctx->cfg.write_behind && wc->plan.kind == TB_PLAN_BOX)
        wc->behind = tb_pipe_behind_write(o, p, &wc->plan, dxpl_id, wc->buf);
    if (!wc->behind && tb_pipe_drain(o, dxpl_id) < 0)
        wc->drain_failed = 1;
    if (wc->behind)
        wc->rc = 1;
    else if (planned && !wc->drain_failed) {
        wc->rc  = write_prepare(&wc->j, o, p, &wc->plan, dxpl_id, wc->buf, wc->edc, wc->narrow);
        wc->job = wc->rc == 1;
    }
    tb_quiet_off(&q);
    if (wc->job)
        return WB_JOB;
    return write_end(wc, 1, ret_out) == TB_ANSWERED ? WB_ANSWERED : WB_FORWARD;
}

/* After a write's job ran (or none was prepared): a conversion the workers refused done again
 * through H5Tconvert, the counters; TB_ANSWERED with *ret_out, or TB_FORWARD (native then writes
 * it all). `account`: the application thread's CPU time since write_begin counts for the serial
 * fraction. */
static tb_answer_t
write_end(write_call_t *wc, int account, herr_t *ret_out)
{
    tb_quiet_t q;
    tb_quiet_on(&q);
    tb_pipe_dset_t *p  = wc->p;
    int             rc = wc->job ? write_done(&wc->j) : wc->rc;
    wc->job            = 0;
    if (rc == 1 && wc->narrow && !wc->behind)
        tb_pipe_stats_g.worker_conv_writes++;
    if (rc == -2) { /* a chunk the workers could not convert exactly: all through H5Tconvert */
        tb_pipe_plan_t splan;
        rc = (wc->converted = convert_for_write(p, &wc->plan, wc->o->ctx->cfg.inflight_nbytes, wc->mem_type_id,
                                                wc->dxpl_id, wc->buf, &splan)) != NULL
                 ? run_write(wc->o, p, &splan, wc->dxpl_id, wc->converted, wc->edc, NULL)
                 : 0;
    }
    int done = rc == 1;
    if (rc < 0)
        tb_pipe_stats_g.fallbacks++;
    free(wc->converted);
    wc->converted = NULL;
    int selection = done && wc->plan.kind != TB_PLAN_BOX;
    if (wc->made)
        tb_pipe_plan_free(&wc->plan);
    wc->made = 0;
    if (p && !done && !wc->drain_failed)
        tb_pipe_stats_g.forwarded_writes++;
    if (!wc->drain_failed)
        H5Eclear2(H5E_DEFAULT);
    tb_quiet_off(&q);
    if (wc->drain_failed) {
        *ret_out = -1;
        return TB_ANSWERED;
    }
    if (!done)
        return TB_FORWARD;
    tb_pipe_stats_g.writes++;
    if (wc->convert)
        tb_pipe_stats_g.converted_writes++;
    if (selection)
        tb_pipe_stats_g.selection_writes++;
    if (wc->t0 && account && !wc->behind)
        tb_pipe_stats_g.app_ns += thread_cpu_ns() - wc->t0;
    *ret_out = 0;
    return TB_ANSWERED;
}

tb_answer_t
tb_pipe_write(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id,
               const void *buf, void **req, herr_t *ret_out)
{
    write_call_t wc;
    switch (write_begin(&wc, o, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, req, ret_out)) {
        case WB_FORWARD:
            return TB_FORWARD;
        case WB_ANSWERED:
            return TB_ANSWERED;
        case WB_JOB:
            break;
    }
    wjob_t *one = &wc.j;
    write_jobs_run(&one, 1, job_threads(o));
    return write_end(&wc, 1, ret_out);
}

/* A prepared write given up before it ran (its job, plan and converted copy freed). */
static void
write_cancel(write_call_t *wc)
{
    if (wc->job) {
        for (size_t i = 0; i < wc->j.n; i++)
            wchunk_release(&wc->j.c[i]);
        free(wc->j.c);
    }
    if (wc->made)
        tb_pipe_plan_free(&wc->plan);
    free(wc->converted);
    wc->job = wc->made = 0;
    wc->converted      = NULL;
}

herr_t
tb_pipe_write_multi(size_t count, void *const dset[], const hid_t mem_type_id[], const hid_t mem_space_id[],
                    const hid_t file_space_id[], hid_t dxpl_id, const void *const buf[], tb_pipe_forward_fn forward,
                    void *forward_ctx)
{
    write_call_t *calls = calloc(count, sizeof(*calls));
    wjob_t      **set   = calloc(count, sizeof(*set)); /* the jobs run as one set */
    char          *left  = calloc(count, 1); /* forwarded after the set, in the caller's order */
    herr_t         ret   = 0;
    size_t         n     = 0;
    if (!calls || !set || !left) { /* (one at a time, as single writes) */
        free(calls);
        free(set);
        free(left);
        for (size_t i = 0; i < count && ret >= 0; i++)
            if (!tb_pipe_write(dset[i], mem_type_id[i], mem_space_id[i], file_space_id[i], dxpl_id, buf[i], NULL,
                               &ret))
                ret = forward(i, forward_ctx);
        return ret;
    }
    for (size_t i = 0; i < count && ret == 0; i++)
        switch (write_begin(&calls[i], dset[i], mem_type_id[i], mem_space_id[i], file_space_id[i], dxpl_id, buf[i],
                            NULL, &ret)) {
            case WB_FORWARD:
                left[i] = 1;
                break;
            case WB_ANSWERED:
                break;
            case WB_JOB:
                set[n++] = &calls[i].j;
                break;
        }
    if (ret < 0) { /* (a drain failed: the call's error) */
        for (size_t k = 0; k < n; k++)
            write_cancel(CALL_OF(write_call_t, set[k]));
        n = 0;
    }
    if (n) {
        tb_obj_t *o0 = set[0]->o;
        uint64_t  t0 = CALL_OF(write_call_t, set[0])->t0;
        write_jobs_run(set, n, job_threads(o0));
        for (size_t k = 0; k < n; k++) {
            write_call_t *wc = CALL_OF(write_call_t, set[k]);
            herr_t        r  = 0;
            if (write_end(wc, 0, &r) == TB_FORWARD)
                left[wc - calls] = 1; /* (failed part-way: native writes it all again) */
            else if (n > 1)
                tb_pipe_stats_g.set_writes++;
        }
        if (t0)
            tb_pipe_stats_g.app_ns += thread_cpu_ns() - t0;
    }
    for (size_t i = 0; i < count && ret >= 0; i++)
        if (left[i])
            ret = forward(i, forward_ctx);
    free(calls);
    free(set);
    free(left);
    return ret;
}

/* Whether the datasets of a multi-dataset call are distinct objects (native refuses one named
 * twice, and the pipeline's sets assume none is): each dataset's file and token, as the pipeline
 * took them, or asked of native. */
bool
tb_pipe_multi_distinct(size_t count, void *const dset[], hid_t dxpl_id)
{
    typedef struct {
        unsigned long fileno;
        H5O_token_t   token;
    } ident_t;
    ident_t *id = calloc(count, sizeof(*id));
    if (!id)
        return false;
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        tb_obj_t             *o = dset[i];
        const tb_pipe_dset_t *p = (const tb_pipe_dset_t *)o->pipe;
        if (p && p->have_token) {
            id[i].fileno = p->fileno;
            id[i].token  = p->token;
        }
        else {
            tb_pipe_dset_t t;
            memset(&t, 0, sizeof(t));
            if (o->under)
                dataset_identity(o, dxpl_id, &t);
            ok           = t.have_token;
            id[i].fileno = t.fileno;
            id[i].token  = t.token;
        }
        for (size_t k = 0; k < i && ok; k++)
            ok = id[k].fileno != id[i].fileno || memcmp(&id[k].token, &id[i].token, sizeof(H5O_token_t)) != 0;
    }
    H5Eclear2(H5E_DEFAULT);
    free(id);
    return ok;
}

/* A read the pipeline would leave to native anyway, known for the price of two selection
 * queries instead of a plan: under the minimum size and within one chunk (a row of a frame, a
 * pixel; a dozen microseconds less per call, more than such a read costs native). Each HDF5 call
 * here costs a few hundred instructions, about 3 % of what native spends on such a read, so no
 * more are made than needed: the memory type's size only when the selection could reach the
 * minimum with an element of 16 bytes (the native numeric types are at most that; a wider integer
 * made with H5Tset_size only makes this forward a read the pipeline might have taken: the result
 * is native's either way), and no rank query (the bounds land in arrays of HDF5's largest rank,
 * the dataset's rank of them zeroed first: a file space of another rank, which native rejects, at
 * worst forwards). */
static int
small_in_one_chunk(tb_obj_t *o, const tb_pipe_dset_t *p, hid_t mem_type_id, hid_t file_space_id,
                   hssize_t *npoints_out, hsize_t *lo, hsize_t *hi)
{
    size_t min = o->ctx->cfg.pipeline_min_nbytes;
    if (p->state != 1 || min == 0 || file_space_id == H5S_ALL)
        return 0;
    hssize_t npoints = H5Sget_select_npoints(file_space_id);
    if (npoints < 0 || (size_t)npoints >= min) {
        H5Eclear2(H5E_DEFAULT);
        return 0; /* (not small whatever the type) */
    }
    if ((size_t)npoints * 16 >= min) {
        size_t es = tb_h5t_size(mem_type_id);
        if (es == 0 || (size_t)npoints * es >= min) {
            H5Eclear2(H5E_DEFAULT);
            return 0;
        }
    }
    for (int d = 0; d < p->rank; d++)
        lo[d] = hi[d] = 0;
    if (H5Sget_select_bounds(file_space_id, lo, hi) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    for (int d = 0; d < p->rank; d++)
        if (lo[d] / p->chunk[d] != hi[d] / p->chunk[d])
            return 0;
    *npoints_out = npoints;
    return 1;
}

/* Where a memory selection of npoints elements puts runs of `run` elements (a small read's rows,
 * in order): "all", or a box (a selection that fills its bounding box, offset included) lying
 * whole in its extent, whose elements are one after another in memory or rows of exactly `run`. */
typedef struct mem_box {
    int     rank, contiguous;
    hsize_t run;   /* the runs' length, elements */
    hsize_t first; /* the box's first element, row-major in the extent */
    hsize_t dims[TB_PIPE_RANK + 1], lo[TB_PIPE_RANK + 1], ext[TB_PIPE_RANK + 1];
} mem_box_t;

static int
mem_box(hid_t ms, hssize_t npoints, hsize_t run, mem_box_t *mb)
{
    H5S_sel_type t = tb_h5s_select_type(ms);
    int          r = H5Sget_simple_extent_ndims(ms);
    if ((t != H5S_SEL_ALL && t != H5S_SEL_HYPERSLABS) || r < 0 || r > TB_PIPE_RANK + 1 ||
        H5Sget_select_npoints(ms) != npoints || tb_h5s_dims(ms, mb->dims, NULL) < 0)
        return 0;
    hsize_t hi[TB_PIPE_RANK + 1], box = 1;
    mb->rank = r ? r : 1;
    mb->run  = run;
    if (r == 0) { /* (a scalar space: one element) */
        mb->dims[0] = 1;
        mb->lo[0] = hi[0] = 0;
    }
    else if (t == H5S_SEL_ALL)
        for (int d = 0; d < r; d++) {
            mb->lo[d] = 0;
            hi[d]     = mb->dims[d] - 1;
        }
    else if (H5Sget_select_bounds(ms, mb->lo, hi) < 0)
        return 0;
    for (int d = 0; d < mb->rank; d++) {
        if (hi[d] >= mb->dims[d]) /* (outside its extent: native's error to report) */
            return 0;
        mb->ext[d] = hi[d] - mb->lo[d] + 1;
        box *= mb->ext[d];
    }
    if (box != (hsize_t)npoints)
        return 0;
    /* One after another when every dimension after the first one the box does not take whole
     * (or is more than one element of) is taken whole. */
    int d = 0;
    while (d < mb->rank && mb->ext[d] == 1)
        d++;
    mb->contiguous = 1;
    for (int k = d + 1; k < mb->rank; k++)
        mb->contiguous &= mb->ext[k] == mb->dims[k];
    mb->first = 0;
    for (int k = 0; k < mb->rank; k++)
        mb->first = mb->first * mb->dims[k] + mb->lo[k];
    return mb->contiguous || mb->ext[mb->rank - 1] == run;
}

/* The element of memory where run r (of a small read's rows, in order) starts. */
static hsize_t
mem_box_run(const mem_box_t *mb, size_t r)
{
    if (mb->contiguous)
        return mb->first + (hsize_t)r * mb->run;
    hsize_t coord[TB_PIPE_RANK + 1], rest = r, lin = 0; /* the row's place in the box */
    for (int d = mb->rank - 2; d >= 0; d--) {
        coord[d] = rest % mb->ext[d];
        rest /= mb->ext[d];
    }
    for (int d = 0; d < mb->rank - 1; d++)
        lin = lin * mb->dims[d] + mb->lo[d] + coord[d];
    return lin * mb->dims[mb->rank - 1] + mb->lo[mb->rank - 1];
}

/* A small read within the chunk at `off` (small_in_one_chunk: npoints elements, bounds lo..hi)
 * served from the decoded-chunk cache: 1 served; 0 leave it to native; -1 the read may fill the cache
 * (the caller runs it through the pipeline, which keeps the chunk), so that the next small reads
 * of that chunk (the other rows of a frame) come from here. Native spends about 11,000
 * instructions on a row of a cached chunk; this costs the queries below and a copy. Only the
 * plainest form, whose result is a copy of the chunk's bytes: a read-only file, a transfer list
 * without a data transform, the memory type the file's (H5Tequal), the file selection exactly the box of its
 * bounds (a hyperslab or "all" with as many elements; points may repeat or come in another
 * order), and the memory selection "all" or one box of as many elements (mem_box), which HDF5
 * fills in the file selection's row-major order. Anything else is native's, as before. */
static int
small_from_cache(tb_obj_t *o, tb_pipe_dset_t *p, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id,
                 hid_t dxpl_id, hssize_t npoints, const hsize_t *lo, const hsize_t *hi, const hsize_t *off,
                 void *buf)
{
    if (!p->cache_max || (o->ctx->file_intent & (H5F_ACC_RDWR | H5F_ACC_SWMR_READ | H5F_ACC_SWMR_WRITE)) ||
        mem_space_id == H5S_ALL)
        return 0;
    /* A transfer list of its own (h5py passes one with every read): only a data transform
     * changes what a copy gives (error detection does not: a kept chunk serves any read, as a
     * chunk in native's chunk cache does). */
    if (tb_dxpl_has_transform(dxpl_id))
        return 0;
    hsize_t ext[TB_PIPE_RANK], box = 1;
    for (int d = 0; d < p->rank; d++) {
        ext[d] = hi[d] - lo[d] + 1;
        box *= ext[d];
    }
    /* (A selection moved past the extent by H5Soffset_simple may still lie in the chunk's
     * overhang: native refuses the read.) */
    if (box != (hsize_t)npoints || H5Sselect_valid(file_space_id) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    H5S_sel_type fsel = tb_h5s_select_type(file_space_id);
    mem_box_t    mb;
    if ((fsel != H5S_SEL_HYPERSLABS && fsel != H5S_SEL_ALL) ||
        !mem_box(mem_space_id, npoints, ext[p->rank - 1], &mb) || tb_h5t_equal(mem_type_id, p->type_id) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    const uint8_t *chunk = tb_pipe_cache_find(p, off);
    if (!chunk)
        return tb_pipe_cache_unkept(p, off) ? 0 : -1;
    /* Row-major runs along the last dimension, from the chunk's own row-major layout, into the
     * memory box's rows (or one after another). */
    size_t   es = p->type_nbytes, run = (size_t)ext[p->rank - 1] * es;
    hsize_t  idx[TB_PIPE_RANK] = {0};
    uint8_t *out = buf;
    for (size_t r = 0;; r++) {
        hsize_t lin = 0;
        for (int d = 0; d < p->rank; d++)
            lin = lin * p->chunk[d] + (lo[d] - off[d]) + (d < p->rank - 1 ? idx[d] : 0);
        memcpy(out + mem_box_run(&mb, r) * es, chunk + lin * es, run);
        int d = p->rank - 2;
        while (d >= 0 && ++idx[d] == ext[d])
            idx[d--] = 0;
        if (d < 0)
            break;
    }
    return 1;
}

/* One dataset's read through the pipeline, in three steps so that a multi-dataset call can run
 * the reads of all its datasets as one set: read_begin (everything up to the job),
 * read_jobs_run of the set, read_end. */
typedef struct read_call {
    tb_obj_t       *o;
    tb_pipe_dset_t *p;
    tb_pipe_plan_t  plan;
    rjob_t          j;
    int             planned, job; /* a plan to free; a job prepared, to run */
    int             convert, fill_cache;
    hsize_t         small_off[TB_PIPE_RANK]; /* fill_cache: the small read's chunk */
    uint64_t        t0;
} read_call_t;

/* Whether the plan reads a chunk this handle has cached or decoded lately: native's cache would
 * hold it, had native decoded it; forwarded, native would decode it again, alone. */
static int
plan_seen(tb_pipe_dset_t *p, const tb_pipe_plan_t *plan)
{
    if (!p->cache_max || (!p->cache_n && !p->recent_n))
        return 0;
    for (size_t i = 0; i < plan->nchunks; i++) {
        hsize_t off[TB_PIPE_RANK];
        tb_pipe_chunk_offset(p, plan, i, off);
        if (tb_pipe_cache_seen(p, off))
            return 1;
    }
    return 0;
}

typedef enum { RB_FORWARD, RB_ANSWERED, RB_JOB } read_begun_t;

static tb_answer_t read_end(read_call_t *rc, int account, herr_t *ret_out);

/* Everything before a read's job runs: RB_JOB when rc->j is prepared (the caller runs it and calls
 * read_end); else the read is over, answered (*ret_out) or to be forwarded. req: the call's
 * request pointer (NULL: synchronous). */
static read_begun_t
read_begin(read_call_t *rc, tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id,
           void *buf, void **req, herr_t *ret_out)
{
    /* Whatever path the read takes, chunks write-behind holds must be stored first. */
    if (tb_pipe_drain(o, dxpl_id) < 0) {
        *ret_out = -1;
        return RB_ANSWERED;
    }
    /* (An asynchronous call below other than native's is that connector's to run; an ineligible
     * dataset costs one HDF5 call here, once. rc, nearly 3 KiB, is cleared only for the reads
     * that go on: a forwarded read's is never looked at.) */
    if (!o->ctx->cfg.pipeline || !buf || !tb_sync_below(req, o->ctx) || ineligible(o, dxpl_id))
        return RB_FORWARD;
    memset(rc, 0, sizeof(*rc));
    rc->o = o;
    tb_pipe_dset_t *known = (tb_pipe_dset_t *)o->pipe;
    hssize_t         small_n;
    hsize_t          lo[TB_PIPE_RANK], hi[TB_PIPE_RANK];
    if (known && small_in_one_chunk(o, known, mem_type_id, file_space_id, &small_n, lo, hi)) {
        for (int d = 0; d < known->rank; d++)
            rc->small_off[d] = lo[d] / known->chunk[d] * known->chunk[d]; /* (its chunk's offset) */
        int r = small_from_cache(o, known, mem_type_id, mem_space_id, file_space_id, dxpl_id, small_n, lo, hi,
                                 rc->small_off, buf);
        if (r > 0) {
            tb_pipe_stats_g.reads++;
            tb_pipe_stats_g.small_cached_reads++;
            *ret_out = 0;
            return RB_ANSWERED;
        }
        if (r == 0) {
            tb_pipe_stats_g.forwarded_reads++;
            return RB_FORWARD;
        }
        rc->fill_cache = 1; /* a small read run through the pipeline to keep its chunk */
    }
    tb_pipe_register_stats();
    rc->t0 = tb_config_process()->stats ? thread_cpu_ns() : 0;
    tb_quiet_t q;
    tb_quiet_on(&q);
    int             edc = 1;
    tb_pipe_dset_t *p   = rc->p = ready(o, mem_type_id, dxpl_id, 0, &edc, &rc->convert);
#if H5_VERS_MAJOR >= 2
    /* HDF5 2.x converts a nonzero fill value for unwritten chunks once rather than element by
     * element, so a conversion exception callback would see other calls than under native:
     * forwarded (tests/pipeline/pipe_xfer.sh, TB_XFER_HDF5_2). */
    if (p && rc->convert && p->fill && has_conv_cb(dxpl_id)) {
        tb_pipe_stats_g.forwarded_reads++;
        p = rc->p = NULL;
    }
#endif
    hsize_t dims[TB_PIPE_RANK];
    size_t  mes = p && rc->convert ? tb_h5t_size(mem_type_id) : p ? p->type_nbytes : 0;
    rc->planned = p && current_dims(o, p, dxpl_id, dims) &&
                  tb_pipe_plan_make(p, dims, file_space_id, mem_space_id, mes, rc->convert,
                                    o->ctx->cfg.pipeline_min_nbytes ? 0 : TB_PIPE_PLAN_DENSE, &rc->plan);
    if (rc->planned) {
        const tb_pipe_plan_t *plan = &rc->plan;
        /* Reads native's chunk cache serves better are native's: small ones, and ones that
         * cover no chunk whole when the chunks fit in that cache (frame by frame through
         * chunks of several frames: native decodes each chunk once, the pipeline would decode
         * it for every frame). Unless they touch more chunks than the cache holds: native
         * then decodes every chunk each time too. pipeline_min 0 takes everything (tests). */
        size_t min  = o->ctx->cfg.pipeline_min_nbytes;
        int    fits = plan->nchunks <= p->cache_nbytes / p->chunk_nbytes;
        /* ... unless our own cache keeps the chunks such reads take a piece at a time. Small
         * reads only to bring their chunk into it for the small reads to come, which
         * small_from_cache serves for a copy (through a plan, a row of a frame costs more
         * than native's read of it). */
        int ours = p->cache_max && plan->nchunks <= p->cache_max &&
                   (plan->npoints * plan->es >= min || rc->fill_cache);
        if (min == 0 || ours || (plan->nchunks > 1 && !fits) ||
            (plan->npoints * plan->es >= min && (!fits || plan_has_full_chunk(p, plan))) ||
            plan_seen(p, plan))
        {
            int walk, fd = read_fd(o, p, plan, dims, dxpl_id, &walk);
            rc->job = read_prepare(&rc->j, o, p, plan, mem_type_id, dxpl_id, buf, edc,
                                   rc->convert ? widen_for(p->type_id, mem_type_id, has_conv_cb(dxpl_id)) : NULL, fd,
                                   walk);
            if (walk && !rc->job)
                tb_pipe_map_drop(p, 0); /* (its walk never ran: tried again next time) */
        }
    }
    tb_quiet_off(&q);
    if (rc->job)
        return RB_JOB;
    return read_end(rc, 1, ret_out) == TB_ANSWERED ? RB_ANSWERED : RB_FORWARD;
}

/* After a read's job ran (or none was prepared): its counters, what the decoded-chunk cache
 * learned; TB_ANSWERED with *ret_out, or TB_FORWARD. `account`: the application thread's CPU
 * time since read_begin counts for the serial fraction. */
static tb_answer_t
read_end(read_call_t *rc, int account, herr_t *ret_out)
{
    int rr          = rc->job ? read_done(&rc->j) : 0;
    int done        = rr == 1;
    int conv_failed = rr == -2;
    rc->job         = 0;
    if (done && rc->plan.kind == TB_PLAN_BLOCKS)
        tb_pipe_stats_g.block_reads++;
    else if (done && rc->plan.generic)
        tb_pipe_stats_g.listed_reads++;
    if (rr == -1)
        tb_pipe_stats_g.fallbacks++;
    if (rc->planned)
        tb_pipe_plan_free(&rc->plan);
    rc->planned = 0;
    if (rc->p) {
        if (!done && !conv_failed)
            tb_pipe_stats_g.forwarded_reads++;
        if (rc->fill_cache && !tb_pipe_cache_find(rc->p, rc->small_off))
            tb_pipe_cache_note_unkept(rc->p, rc->small_off); /* (its next small reads are native's) */
    }
    /* A failed conversion is the read's error, as in H5Dread: its stack stays. */
    if (!conv_failed)
        H5Eclear2(H5E_DEFAULT);
    if (conv_failed) {
        *ret_out = -1;
        return TB_ANSWERED;
    }
    if (!done)
        return TB_FORWARD;
    tb_pipe_stats_g.reads++;
    if (rc->convert)
        tb_pipe_stats_g.converted_reads++;
    if (rc->t0 && account)
        tb_pipe_stats_g.app_ns += thread_cpu_ns() - rc->t0;
    *ret_out = 0;
    return TB_ANSWERED;
}

tb_answer_t
tb_pipe_read(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id, void *buf,
              void **req, herr_t *ret_out)
{
    read_call_t rc;
    switch (read_begin(&rc, o, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, req, ret_out)) {
        case RB_FORWARD:
            return TB_FORWARD;
        case RB_ANSWERED:
            return TB_ANSWERED;
        case RB_JOB:
            break;
    }
    rjob_t *one = &rc.j;
    read_jobs_run(&one, 1, job_threads(o), o->ctx->cfg.inflight_nbytes);
    return read_end(&rc, 1, ret_out);
}

/* A prepared read given up before it ran (its job and plan freed, nothing counted). */
static void
read_cancel(read_call_t *rc)
{
    if (rc->job && rc->j.walk)
        tb_pipe_map_drop(rc->p, 0); /* (its walk never ran: tried again next time) */
    if (rc->job)
        free(rc->j.c); /* (nothing in it is allocated before the job runs) */
    if (rc->planned)
        tb_pipe_plan_free(&rc->plan);
    rc->job = rc->planned = 0;
}

herr_t
tb_pipe_read_multi(size_t count, void *const dset[], const hid_t mem_type_id[], const hid_t mem_space_id[],
                   const hid_t file_space_id[], hid_t dxpl_id, void *const buf[], tb_pipe_forward_fn forward,
                   void *forward_ctx)
{
    read_call_t *calls = calloc(count, sizeof(*calls));
    rjob_t     **set   = calloc(count, sizeof(*set)); /* the jobs run as one set */
    /* What is left after the set, in the caller's order: 0 answered, 1 forwarded, 2 read alone */
    char   *left = calloc(count, 1);
    herr_t  ret  = 0;
    size_t  n    = 0;
    if (!calls || !set || !left) {
        free(calls);
        free(set);
        free(left);
        for (size_t i = 0; i < count && ret >= 0; i++)
            ret = forward(i, forward_ctx);
        return ret;
    }
    for (size_t i = 0; i < count && ret == 0; i++) {
        switch (read_begin(&calls[i], dset[i], mem_type_id[i], mem_space_id[i], file_space_id[i], dxpl_id, buf[i],
                           NULL, &ret)) {
            case RB_FORWARD:
                left[i] = 1;
                break;
            case RB_ANSWERED:
                break;
            case RB_JOB:
                /* A conversion on the application's thread can fail, with its error as the
                 * call's, and a conversion exception callback sees the datasets' exceptions in
                 * the caller's order: such reads run after the set, one at a time in that order
                 * with the forwarded ones (read again from the start: the set may change the
                 * decoded-chunk cache their jobs would take chunks from). The set's own reads
                 * (the file type, or a widening the workers do) raise no exception. */
                if (calls[i].convert && !calls[i].j.widen) {
                    read_cancel(&calls[i]);
                    left[i] = 2;
                }
                else
                    set[n++] = &calls[i].j;
                break;
        }
    }
    if (ret < 0) { /* (a drain failed: the call's error) */
        for (size_t k = 0; k < n; k++)
            read_cancel(CALL_OF(read_call_t, set[k]));
        n = 0;
    }
    if (n) {
        tb_obj_t *o0 = set[0]->o;
        uint64_t  t0 = CALL_OF(read_call_t, set[0])->t0;
        read_jobs_run(set, n, job_threads(o0), o0->ctx->cfg.inflight_nbytes);
        for (size_t k = 0; k < n; k++) {
            read_call_t *rc = CALL_OF(read_call_t, set[k]);
            herr_t       r  = 0; /* (no conversion here can fail) */
            if (read_end(rc, 0, &r) == TB_FORWARD)
                left[rc - calls] = 1; /* (failed part-way: native reads it again) */
            else if (n > 1)
                tb_pipe_stats_g.set_reads++;
        }
        if (t0)
            tb_pipe_stats_g.app_ns += thread_cpu_ns() - t0;
    }
    for (size_t i = 0; i < count && ret >= 0; i++) {
        if (left[i] == 2 &&
            tb_pipe_read(dset[i], mem_type_id[i], mem_space_id[i], file_space_id[i], dxpl_id, buf[i], NULL, &ret))
            continue;
        if (left[i])
            ret = forward(i, forward_ctx);
    }
    free(calls);
    free(set);
    free(left);
    return ret;
}

/* The callbacks drain before anything that may observe or change stored chunks: direct chunk
 * writes, changes of extent, copies, flushes, but also plain queries; which one is not said. In
 * files open for writing any of them may change chunks, so decoded chunks kept are dropped; in
 * read-only files nothing can (writes through another handle of the file that is open for
 * writing drain through that handle, or are H5Dwrites). A drain of everything (a file closing, a
 * multi-dataset call) drops them too. */
static herr_t
drain_hook(tb_obj_t *o, hid_t dxpl_id)
{
    if (!o || (o->ctx->file_intent & H5F_ACC_RDWR))
        tb_pipe_cache_written();
    return tb_pipe_drain(o, dxpl_id);
}

const tb_hooks_t tb_pipe_hooks = {
    .name         = "pipeline",
    .drain        = drain_hook,
    .file_opened  = tb_pipe_file_opened,
    .file_closing = tb_pipe_file_closing,
    .obj_release  = tb_pipe_release,
    .ctx_release  = tb_pipe_ctx_release,
};
