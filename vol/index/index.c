/* index.c — the link/object index's tables and life cycle: one table set per file (shared by
 * every open of the same device+inode), filled lazily from the connector below one group at a
 * time, dropped when this process changes a writable file, persisted as a sidecar for read-only
 * opens (the sidecar: vol/index/model). The answers themselves are in index_query.c. */
#include "index_ctx.h"
#include "tb_h5walk.h"
#include "tb_pool.h"
#include "tb_sidecar.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

tb_index_stats_t tb_ix_stats;

/* Modification epoch of this process: bumped by every change made through the connector.
 * Writable indexes compare it with what they last saw; read-only ones cannot be changed. */
static uint64_t ix_epoch = 1;
/* Once a file is mounted anywhere, paths may cross files: the index stops answering. */
static int ix_disabled;

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static tb_ix_data_t  *registry;

/* Indexes of read-only files stay in the registry after their last close (refs 0, "kept"): a
 * program that opens a file, asks a little and closes it, again and again (nexusformat opens and
 * closes its file around every access), finds the index at the next open as it left it, once the
 * file's identity is checked as a sidecar's is, instead of reading and checking the sidecar at
 * every open and writing it at every close. A kept index publishes its sidecar at a last close
 * as it grows (kept_publish_due), and what it learned since when it leaves: pushed out by newer
 * ones (KEPT_MAX, KEPT_NBYTES), met by an open it does not fit, at the connector's end, and at
 * process exit. */
#define KEPT_MAX    8
#define KEPT_NBYTES ((uint64_t)512 << 20)
static uint64_t       kept_clock;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static void           data_free(tb_ix_data_t *d);
static void           kept_release(bool all);

static tb_objpool_t ixobj_pool = TB_OBJPOOL_INIT(struct tb_index_obj, 4096);

void
tb_index_drain_publications(void)
{
    kept_release(true);
    tb_ix_publish_drain();
}

void
tb_index_get_stats(tb_index_stats_t *out)
{
    tb_ix_publish_drain(); /* (what queued publications wrote counts) */
    *out = tb_ix_stats;
}

void
tb_index_print_stats(FILE *out)
{
    tb_ix_publish_drain();
    /* One write for the whole line: processes sharing one stderr (MPI ranks under mpiexec) must
     * not cut into each other's lines. */
    char   line[2048];
    size_t n = 0;
#define TB_IX_LINE(...)                                                                            \
    do {                                                                                           \
        int w = snprintf(line + n, sizeof(line) - n, __VA_ARGS__);                                 \
        n     = w < 0 ? n : (n + (size_t)w < sizeof(line) ? n + (size_t)w : sizeof(line) - 1);     \
    } while (0)
    TB_IX_LINE("h5turbo stats: index answered=%zu forwarded=%zu groups_loaded=%zu lookups_left=%zu links_kept=%zu "
               "partial_hits=%zu absent_kept=%zu absent_hits=%zu groups_lazy=%zu "
               "attrs_lazy=%zu dsets_lazy=%zu types_lazy=%zu materialised=%zu visits_replayed=%zu; sidecars",
               tb_ix_stats.answered, tb_ix_stats.forwarded, tb_ix_stats.groups_loaded, tb_ix_stats.lookups_left,
               tb_ix_stats.links_kept, tb_ix_stats.partial_hits, tb_ix_stats.absent_kept, tb_ix_stats.absent_hits,
               tb_ix_stats.groups_lazy,
               tb_ix_stats.attrs_lazy, tb_ix_stats.dsets_lazy, tb_ix_stats.types_lazy,
               tb_ix_stats.groups_materialised + tb_ix_stats.attrs_materialised + tb_ix_stats.dsets_materialised +
                   tb_ix_stats.types_materialised,
               tb_ix_stats.visits_replayed);
    /* Every outcome that happened: loads and writes, and each kind of miss or fallback. */
    int any = 0;
    for (int o = 0; o < TB_SC_NOUTCOMES; o++)
        if (tb_sc_tally[o] || o == TB_SC_LOADED || o == TB_SC_WRITTEN) {
            TB_IX_LINE(" %s=%zu", tb_sc_outcome_key((tb_sc_outcome_t)o), tb_sc_tally[o]);
            any = 1;
        }
    if (tb_ix_stats.sidecar_queued)
        TB_IX_LINE(" queued=%zu", tb_ix_stats.sidecar_queued);
    if (tb_ix_stats.kept_reused)
        TB_IX_LINE(" kept=%zu", tb_ix_stats.kept_reused);
    TB_IX_LINE("%s\n", any ? "" : " none");
#undef TB_IX_LINE
    fputs(line, out);
}

/* Something that can change links, objects or attributes happened through this process: every
 * writable index drops what it holds before its next answer. */
static void
index_modified(void)
{
    ix_epoch++;
}

/* A file was mounted or unmounted: paths may cross files from now on; the index stops answering. */
static void
index_mounted(void)
{
    ix_disabled = 1;
    ix_epoch++;
}

/* An object the index recognised in its file: its token is known (tb_ix_for, index_query.c). */
static bool
index_identity(const tb_obj_t *o, unsigned long *fileno, H5O_token_t *token)
{
    _Static_assert(TB_IX_TOKEN_NBYTES == sizeof(H5O_token_t), "the index keeps whole native tokens");
    if (!o->idx || o->idx->state != TB_IXO_MINE || !o->ctx->index)
        return false;
    *fileno = o->ctx->index->fileno;
    memcpy(token, o->idx->token, sizeof(*token));
    return true;
}

const tb_hooks_t tb_index_hooks = {
    .name         = "index",
    .materialise  = tb_index_materialise,
    .modified     = index_modified,
    .mounted      = index_mounted,
    .file_opened  = tb_index_file_opened,
    .file_closing = tb_index_file_closing,
    .obj_wrapped  = tb_index_obj_wrapped,
    .obj_release  = tb_index_obj_release,
    .ctx_release  = tb_index_ctx_release,
    .identity     = index_identity,
};

/* HDF5's internal end-of-allocation query (exported by its shared libraries; NULL where not). */
extern haddr_t H5F_get_eoa(const void *f, H5FD_mem_t type) __attribute__((weak));
/* HDF5's switch of a file's collective metadata reads (the flag of the file, shared by its opens,
 * and the API context's; HDF5 itself sets the file's to H5P_FORCE_FALSE, -1, around reads only one
 * rank makes, such as chunk-index lookups) and the file's flag: exported by parallel HDF5's shared
 * library, absent from serial builds (H5P_coll_md_read_flag_t is an int-sized enum). */
extern void H5F_set_coll_metadata_reads(void *f, int *file_flag, bool *context_flag) __attribute__((weak));
extern int  H5F_coll_md_read(const void *f) __attribute__((weak));
#define TB_MD_FORCE_FALSE (-1)
/* HDF5's internal eviction of an object's metadata, what its evict-on-close does when a dataset
 * closes, and its list of a file's open objects (the object open at an address, or NULL); both
 * exported by its shared libraries and by the h5py and netCDF4 wheels' (1.14.6, 2.0.0, 2.2.0:
 * same signatures, read from their code), NULL where not. */
extern herr_t H5AC_evict_tagged_metadata(void *f, haddr_t metadata_tag, bool match_global) __attribute__((weak));
extern void  *H5FO_opened(const void *f, haddr_t addr) __attribute__((weak));

bool
tb_ix_can_evict(const tb_ctx_t *ctx)
{
    return H5AC_evict_tagged_metadata != NULL && H5FO_opened != NULL && !ctx->file_mpi;
}

bool
tb_ix_open_below(void *file, const uint8_t *token)
{
    return !file || !H5FO_opened || H5FO_opened(file, (haddr_t)tb_ix_token_addr(token)) != NULL;
}

void
tb_ix_evict_unused(void *file, const uint8_t *token)
{
    /* (not when open elsewhere: its handle would only read its header again) */
    if (!H5AC_evict_tagged_metadata || tb_ix_open_below(file, token))
        return;
    hid_t saved = tb_err_save();
    (void)H5AC_evict_tagged_metadata(file, (haddr_t)tb_ix_token_addr(token), false);
    tb_err_restore(saved);
}

/* A dataset or group marked to evict (a dataset opened by token, or either opened by name and
 * recognised: only where tb_ix_can_evict held) has closed: its object header (and what else HDF5
 * tagged with it) leaves the metadata cache, as under HDF5's evict-on-close. With the index
 * answering the walks and queries, each header is a miss, the adaptive cache grows and every
 * header would stay, decoded (bench/index README). Except an object the program comes back to:
 * one of the last TB_IX_EVICTED objects closed (this open's ring) that is closed again stays, as
 * under stock, until it leaves the ring, and leaves the cache then. MDAnalysis opens a trajectory's
 * datasets again for every frame it reads; evicted at every close, their headers and chunk indexes
 * were read and decoded again per frame (bench/mpi README, mda_chain.py). The ring bounds what
 * stays: nexusformat opens thousands of objects up to four times each in an open of the file
 * (bench/index loader k), and keeping every such object grew its first run's peak RSS by 12 MB. */
static void
evict_closed(const tb_obj_t *o)
{
    struct tb_index_file *f = o->ctx->index;
    if (!f)
        return;
    uint32_t k = 0;
    while (k < TB_IX_EVICTED && memcmp(f->evicted[k].token, o->idx->token, TB_IX_TOKEN_NBYTES) != 0)
        k++;
    if (k < TB_IX_EVICTED) {
        f->evicted[k].kept = true; /* closed again: stays while in the ring */
        return;
    }
    k = f->evicted_at++ % TB_IX_EVICTED;
    if (f->evicted[k].kept) /* (it stayed: it leaves now) */
        tb_ix_evict_unused(f->file_under, f->evicted[k].token);
    memcpy(f->evicted[k].token, o->idx->token, TB_IX_TOKEN_NBYTES);
    f->evicted[k].kept = false;
    tb_ix_evict_unused(f->file_under, o->idx->token);
}

/* What the index read for itself of object oi (through anchor a) leaves HDF5's cache: now, or,
 * with a list (a->later: a visit's, or the handle's the query was made on), once the visit has
 * reported it or the handle closes (tb_ix_evict_later). */
void
tb_ix_evict_read(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi)
{
    tb_ix_later_t *l = a->later;
    if (l && d->objs[oi].evict_later)
        return; /* (waiting already) */
    if (l && l->n == l->cap && l->cap < TB_IX_LATER) {
        uint32_t  cap = l->cap ? l->cap * 4 : 64;
        uint32_t *obj = realloc(l->obj, (cap < TB_IX_LATER ? cap : TB_IX_LATER) * sizeof(*obj));
        if (obj) {
            l->obj = obj;
            l->cap = cap < TB_IX_LATER ? cap : TB_IX_LATER;
        }
    }
    if (!l || !l->cap) {
        tb_ix_evict_unused(a->evict_file, d->objs[oi].token);
        return;
    }
    if (l->n == l->cap) { /* (full: the oldest leaves) */
        tb_ix_evict_later(d, a->evict_file, l->obj[l->oldest]);
        l->obj[l->oldest] = oi;
        l->oldest         = (l->oldest + 1) % l->cap;
    }
    else
        l->obj[l->n++] = oi;
    d->objs[oi].evict_later = 1;
}

void
tb_ix_evict_later(tb_ix_data_t *d, void *evict_file, uint32_t oi)
{
    if (!d->objs[oi].evict_later)
        return;
    d->objs[oi].evict_later = 0;
    tb_ix_evict_unused(evict_file, d->objs[oi].token);
}

void
tb_ix_later_flush(tb_ix_data_t *d, void *evict_file, tb_ix_later_t *l)
{
    for (uint32_t k = 0; k < l->n; k++)
        tb_ix_evict_later(d, evict_file, l->obj[k]);
    free(l->obj);
    l->obj = NULL;
    l->n = l->cap = l->oldest = 0;
}

void
tb_ix_evict_kept(struct tb_index_file *f)
{
    for (uint32_t k = 0; k < TB_IX_EVICTED; k++)
        if (f->evicted[k].kept) {
            f->evicted[k].kept = false;
            tb_ix_evict_unused(f->file_under, f->evicted[k].token);
        }
}

/* ------------------------------------------------------------------ life cycle */

/* Reads the file's in-file fingerprint and fileno from the connector below: TB_OK, or
 * TB_ERR_HDF5 (error on the stack). */
static tb_status_t
file_fingerprint(tb_obj_t *file, unsigned long *fileno_out, uint8_t *root_token_out, uint64_t *eoa_out)
{
    H5VL_loc_params_t      loc = {.obj_type = H5I_FILE, .type = H5VL_OBJECT_BY_SELF};
    H5O_info2_t            oi;
    H5VL_object_get_args_t ga = {.op_type = H5VL_OBJECT_GET_INFO};
    ga.args.get_info.fields   = H5O_INFO_BASIC;
    ga.args.get_info.oinfo    = &oi;
    if (H5VLobject_get(file->under, &loc, file->under_vol_id, &ga, H5P_DATASET_XFER_DEFAULT, NULL) < 0)
        return TB_ERR_HDF5;
    *fileno_out = oi.fileno;
    memcpy(root_token_out, &oi.token, TB_IX_TOKEN_NBYTES);
    if (eoa_out) {
        haddr_t eoa = HADDR_UNDEF;
        if (file->ctx->file_mpi) {
            /* H5Fget_eoa's operation refuses drivers without SWMR support (MPI-IO among them);
             * HDF5's own query is what it would have answered (the native file object below is
             * HDF5's file: index_file_opened checked the connector). */
            if (!H5F_get_eoa || (eoa = H5F_get_eoa(file->under, H5FD_MEM_DEFAULT)) == HADDR_UNDEF)
                return TB_ERR_HDF5;
        }
        else {
            H5VL_native_file_optional_args_t na;
            na.get_eoa.eoa           = &eoa;
            H5VL_optional_args_t opt = {.op_type = H5VL_NATIVE_FILE_GET_EOA, .args = &na};
            if (H5VLfile_optional(file->under, file->under_vol_id, &opt, H5P_DATASET_XFER_DEFAULT, NULL) < 0)
                return TB_ERR_HDF5;
        }
        *eoa_out = (uint64_t)eoa;
    }
    return TB_OK;
}

/* stat of the file an open reads. With the POSIX driver (sec2), of its descriptor: the file HDF5
 * actually opened, whatever happened to its name since. A driver doing MPI I/O (file_mpi) has no
 * descriptor (its handle is an MPI_File), so of the name HDF5 opened (the in-file fingerprint the
 * sidecar records must still match what this open reads). TB_OK; TB_ERR_HDF5 (no handle), TB_ERR_IO
 * (stat failed) or TB_ERR_UNSUPPORTED (not a regular file, or another driver), errors cleared. */
static tb_status_t
file_stat(tb_obj_t *file, const char *name, struct stat *st)
{
    if (file->ctx->file_mpi) {
        if (!file->ctx->under_native)
            return TB_ERR_UNSUPPORTED;
        if (!name || stat(name, st) != 0)
            return TB_ERR_IO;
    }
    else {
        int fd = tb_file_sec2_fd(file);
        if (fd < 0)
            return TB_ERR_HDF5;
        if (fstat(fd, st) != 0)
            return TB_ERR_IO;
    }
    return S_ISREG(st->st_mode) ? TB_OK : TB_ERR_UNSUPPORTED;
}

/* An access list's collective-metadata-read flag (H5Pset_all_coll_metadata_ops; HDF5's
 * H5P_coll_md_read_flag_t, 1 the user's "true"; the property exists in serial builds too), 0
 * where it has none. With 1 on a file's list each metadata read is a collective of all the file's
 * ranks, and a rank answering from its index while another reads would leave the reader waiting. */
static int
md_read_flag(hid_t plist)
{
    static const char prop[] = "collective_metadata_read";
    hid_t             saved  = tb_err_save();
    int               flag   = 0;
    if (plist < 0 || H5Pexist(plist, prop) <= 0 || H5Pget(plist, prop, &flag) < 0)
        flag = 0;
    tb_err_restore(saved);
    return flag;
}

static void
identity_from_stat(const struct stat *st, tb_ix_identity_t *id)
{
    id->dev      = (uint64_t)st->st_dev;
    id->ino      = (uint64_t)st->st_ino;
    id->size     = (uint64_t)st->st_size;
    id->mtime_ns = tb_ns(st->st_mtim);
    id->ctime_ns = tb_ns(st->st_ctim);
}

/* The absolute path the sidecar records for data file `name` (malloc'd; NULL when it cannot be
 * told): the sidecar's messages, the cache's collection of sidecars whose file is gone and an MPI
 * job's rank 0 use it, all by opening or stat'ing it, so the working folder joined to a relative
 * name serves them, for one getcwd where realpath reads every folder on the way as a link (two
 * system calls of each file a program of many files opens here; on a parallel file system each is
 * a metadata operation). A sidecar kept beside its file (`beside`) is placed by the file's real
 * folder: realpath there. */
static char *
file_path(const char *name, tb_sc_where_t where)
{
    if (where == TB_SC_BESIDE)
        return realpath(name, NULL);
    while (name[0] == '.' && name[1] == '/') { /* ("./x" said as "x") */
        name += 2;
        while (*name == '/')
            name++;
    }
    if (name[0] == '/')
        return strdup(name);
    char cwd[PATH_MAX];
    if (!name[0] || !getcwd(cwd, sizeof(cwd)))
        return NULL;
    size_t n = strlen(cwd), m = strlen(name);
    char  *p = malloc(n + m + 2);
    if (p)
        snprintf(p, n + m + 2, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, name);
    return p;
}

/* Whether the file changed less than 2 s ago: such a file's sidecars are neither used nor written
 * (tb_changed_lately). */
static bool
too_recent(const tb_ix_identity_t *id)
{
    return tb_changed_lately(id->mtime_ns, id->ctime_ns);
}

/* Adopts sidecar bytes (buf, n: from tb_sc_load or malloc'd, released here), read from `where`,
 * when they describe exactly this file. */
static void
adopt_sidecar(tb_ix_data_t *d, void *buf, size_t n, const char *where)
{
    /* Decoded straight into d (one pass over the bytes), dropped again if it is not sound. */
    tb_ix_identity_t sid;
    tb_status_t      st    = tb_sidecar_decode(buf, n, &sid, d);
    bool             other = st == TB_OK && memcmp(&sid, &d->file.id, sizeof(sid)) != 0;
    /* (another file: the store checked the header already, so only bytes another rank read, of
     * its own copy at this name, get here) */
    if (st == TB_OK && !other)
        st = tb_sidecar_compact(d);
    tb_sc_release(buf);
    if (st != TB_OK || other) {
        tb_ix_data_clear(d);
        tb_ix_stats.sidecar_rejects++;
        tb_sc_note(&d->policy, other ? TB_SC_STALE : st == TB_ERR_NOMEM ? TB_SC_NO_MEMORY : TB_SC_CORRUPT, where);
        return;
    }
    tb_ix_stats.sidecar_loads++;
    tb_sc_note(&d->policy, TB_SC_LOADED, where);
}

/* Reads the sidecar of a read-only file from the store: TB_OK with its bytes, or a miss (counted). */
static tb_status_t
load_sidecar(tb_ix_data_t *d, void **buf_out, size_t *n_out, tb_sc_found_t *found)
{
    tb_sc_outcome_t o = tb_sc_load(&d->policy, &d->file, buf_out, n_out, found);
    d->sc_absent      = o == TB_SC_ABSENT;
    if (o == TB_SC_LOADED)
        return TB_OK;
    if (o != TB_SC_ABSENT)
        tb_ix_stats.sidecar_rejects++;
    return TB_ERR_UNSUPPORTED; /* (a miss) */
}

/* Tries the sidecar of a read-only file; adopts it when it describes exactly this file. */
static void
try_sidecar(tb_ix_data_t *d)
{
    void         *buf = NULL;
    size_t        n   = 0;
    tb_sc_found_t found;
    if (load_sidecar(d, &buf, &n, &found) == TB_OK)
        adopt_sidecar(d, buf, n, found.where);
}

static uint64_t records_of(const tb_ix_data_t *d);

/* Whether the program walked the last read-only file on an MPI driver this process closed (asked
 * at least TB_MPI_WALKED of it: tb_mpi_asked); 0 until one closed. Only rank 0's own matters:
 * it alone decides its builds and broadcasts the outcome. */
static int mpi_walked;

void
tb_ix_mpi_closing(const tb_obj_t *file)
{
    if (file->ctx->file_mpi && !(file->ctx->file_intent & H5F_ACC_RDWR))
        __atomic_store_n(&mpi_walked, file->ctx->mpi_asked >= TB_MPI_WALKED, __ATOMIC_RELAXED);
}

/* What rank 0's loader (below) has to go on: the fresh index it may fill, the open's access list
 * and configuration; and what it did. */
typedef struct ranks_load {
    tb_ix_data_t      *d;
    hid_t              fapl_id;
    const tb_config_t *cfg;
    bool               built; /* out: the bytes encode the index rank 0 built, already its own */
} ranks_load_t;

/* Without a sidecar, rank 0 builds the index for all the ranks opening the file (at least
 * cfg.index_mpi_build_ranks of them), while they wait in the broadcast: the walk of `h5turbo index
 * build` (tb_h5walk.h: every object, its attributes, the contents of small datasets; at most
 * cfg.index_mpi_build objects) through a second open of the file by this process, read-only, with
 * the POSIX driver (no collective: this rank alone) and this connector, which joins this open's
 * fresh index (the registry finds it by device and inode) and so fills it as any program's calls
 * fill it. Every rank then answers from it what each would have read itself; rank 0 publishes it at
 * its last close, as before. The walk costs rank 0 about what a program's own walk of the file
 * would, which a program that opens known paths never makes (bench/mpi: first runs 3-5x slower
 * there), so by default (auto) it builds only where the program walked the job's last file
 * (mpi_walked): never the job's first; and with few ranks, each on a core of its own, the others'
 * reads would not have competed for anything. TB_OK with its encoding; a miss (nothing built, or
 * the walk did not reach this index) otherwise. */
static tb_status_t
build_for_ranks(ranks_load_t *rl, int nranks, void **buf_out, size_t *n_out)
{
    tb_ix_data_t *d    = rl->d;
    bool          autob = rl->cfg->index_mpi_build == TB_INDEX_MPI_BUILD_AUTO;
    const char   *why  = rl->cfg->index_mpi_build == 0                               ? "index_mpi_build=0"
                        : (unsigned long)nranks < rl->cfg->index_mpi_build_ranks ? "fewer than index_mpi_build_ranks"
                        : autob && !__atomic_load_n(&mpi_walked, __ATOMIC_RELAXED)
                            ? "index_mpi_build=auto, and the program did not walk the last file the job closed (or closed none yet)"
                            : NULL;
    if (why) {
        if (rl->cfg->debug)
            fprintf(stderr, "h5turbo index: %s: no index built by rank 0 for the %d ranks opening it (%s)\n",
                    d->file.path, nranks, why);
        return TB_ERR_UNSUPPORTED;
    }
    hid_t saved  = tb_err_save();
    hid_t vol    = H5I_INVALID_HID;
    hid_t fapl   = H5Pcopy(H5P_FILE_ACCESS_DEFAULT);
    hid_t f      = H5I_INVALID_HID;
    void *info   = NULL;
    int   walked = -1;
    /* (the connector and its info as this open has them: its options, the connector below) */
    if (fapl >= 0 && H5Pset_fapl_sec2(fapl) >= 0 && H5Pset_file_locking(fapl, false, true) >= 0 &&
        H5Pget_vol_id(rl->fapl_id, &vol) >= 0 && H5Pget_vol_info(rl->fapl_id, &info) >= 0 &&
        H5Pset_vol(fapl, vol, info) >= 0)
        f = H5Fopen(d->file.path, H5F_ACC_RDONLY, fapl);
    unsigned long bound = autob ? TB_INDEX_MPI_BUILD_AUTO_NOBJ : rl->cfg->index_mpi_build;
    tb_h5walk_t   w     = {bound > LONG_MAX ? LONG_MAX : (long)bound, TB_INDEX_DSET_MAX_NBYTES, NULL, NULL, 0};
    if (f >= 0) {
        walked = tb_h5walk(f, &w);
        if (H5Fclose(f) < 0)
            walked = -1;
    }
    if (info)
        H5VLfree_connector_info(vol, info);
    if (vol >= 0)
        H5Idec_ref(vol);
    if (fapl >= 0)
        H5Pclose(fapl);
    tb_err_restore(saved);
    /* (d->persist: the walk saw the file as this open does; records: it reached this index) */
    tb_status_t st = walked >= 0 && d->persist && records_of(d) > 0
                         ? tb_sidecar_encode(d, &d->file.id, d->file.path, UINT64_MAX, buf_out, n_out)
                         : TB_ERR_UNSUPPORTED;
    rl->built = st == TB_OK;
    if (rl->cfg->debug)
        fprintf(stderr, "h5turbo index: %s: %s by rank 0 for the %d ranks opening it (%ld objects walked%s)\n",
                d->file.path, rl->built ? "index built" : "no index built", nranks, w.nobj,
                walked == 1 ? ", the walk's bound: index_mpi_build" : walked < 0 ? ", the walk failed" : "");
    return st;
}

/* tb_ix_mpi_sidecar's loader on rank 0, when this rank has a fresh index to fill: its sidecar, or
 * the index it builds for all the ranks. */
static tb_status_t
load_for_ranks(void *arg, int nranks, void **buf_out, size_t *n_out)
{
    ranks_load_t *rl = arg;
    tb_sc_found_t found;
    if (!rl->d)
        return TB_ERR_UNSUPPORTED;
    if (load_sidecar(rl->d, buf_out, n_out, &found) == TB_OK)
        return TB_OK;
    return build_for_ranks(rl, nranks, buf_out, n_out);
}

/* The sidecar step of a read-only open on an MPI-IO driver, a collective of the ranks that opened
 * the file: every one of them calls it, with the fresh index it may fill (d) or NULL. Rank 0 reads
 * the sidecar for all, or builds the index for all where there is none, and alone publishes one at
 * close; without the MPI add-on each rank reads its own when `own` (and publishes, the store
 * keeping the race safe). Returns the length of what rank 0 broadcast, the same on every rank (0:
 * none), or -1 without the add-on. */
static int64_t
mpi_sidecar(tb_obj_t *file, tb_ix_data_t *d, hid_t fapl_id, bool own)
{
    void        *buf  = NULL;
    size_t       n    = 0;
    int          rank = -1;
    ranks_load_t rl   = {d, fapl_id, &file->ctx->cfg, false};
    tb_status_t  st   = tb_ix_mpi_sidecar(file->under, file->under_vol_id, file->ctx->cfg.debug, load_for_ranks, &rl,
                                          &buf, &n, &rank);
    if (d && rank > 0)
        d->persist = 0; /* (also no check at close: that only decides the publication) */
    if (st == TB_ERR_UNSUPPORTED) {
        if (d && own)
            try_sidecar(d);
        return -1;
    }
    if (st == TB_OK && n > 0 && d && !rl.built) {
        char where[4096];
        snprintf(where, sizeof(where), "%s (from rank 0 of the ranks opening it: its sidecar or the index it built)",
                 d->file.path);
        adopt_sidecar(d, buf, n, where);
    }
    else
        tb_sc_release(buf);
    return n <= INT64_MAX ? (int64_t)n : INT64_MAX;
}

/* Metadata reads of read-only MPI-IO files under the index. Collective ones (asked on the file's
 * access list with H5Pset_all_coll_metadata_ops, or on any call's access list) make each metadata
 * read a collective of the file's ranks, so a rank answering from its index while another reads
 * below would leave the reader waiting, and so would a lazy object made real on some ranks only
 * (their own data reads). So wherever the index serves such a file, every rank makes the file's
 * metadata reads independent, as HDF5 itself does around reads only one rank makes (its
 * chunk-index lookups): every call is then local to the rank making it, whatever each rank's index
 * holds. tb_index_file_opened does so before its own steps (*md_flag, *md_ctx: what the flags
 * were), and here, after the sidecar step, decides: with collective reads asked of the file, the
 * index serves it only where rank 0 found a sidecar (the same decision on every rank: the length
 * it broadcast) or an earlier open here made its reads independent already, since a first run
 * with independent reads would make every rank read what rank 0 reads for all; otherwise the flags
 * are put back and this open goes without the index, as stock. */
static void
md_reads_settle(tb_obj_t *file, const char *name, int asked, int64_t sidecar_n, int md_flag, bool md_ctx)
{
    tb_ctx_t *ctx  = file->ctx;
    bool      keep = asked != 1 || sidecar_n > 0 || md_flag == TB_MD_FORCE_FALSE;
    if (!keep) {
        H5F_set_coll_metadata_reads(file->under, &md_flag, &md_ctx);
        tb_index_ctx_release(ctx);
    }
    else
        ctx->md_asked = asked;
    if (ctx->cfg.debug && asked == 1)
        fprintf(stderr,
                keep              ? "h5turbo: %s: metadata reads made independent on every rank (collective metadata "
                                    "reads asked; the index answers from the sidecar rank 0 read or the index it built)\n"
                : sidecar_n < 0 ? "h5turbo: %s: index off (the file driver does MPI I/O, metadata reads are "
                                  "collective, and no MPI add-on hands rank 0's sidecar to the others)\n"
                                : "h5turbo: %s: index off (the file driver does MPI I/O, metadata reads are "
                                  "collective, and rank 0 neither found a sidecar nor built an index: rank 0's debug "
                                  "messages say why)\n",
                name);
}

void
tb_index_fapl_done(const tb_obj_t *file, hid_t fapl_id)
{
    /* HDF5 copies the file's flag into the list: a file whose reads were made independent above
     * reports what its open asked. (Of a file opened twice here with different flags each open
     * reports its own, where native reports the first open's for both: the flag is the file's.) */
    int asked = file->ctx->md_asked;
    if (asked == -2 || !H5F_coll_md_read || H5F_coll_md_read(file->under) != TB_MD_FORCE_FALSE)
        return;
    hid_t saved = tb_err_save();
    (void)H5Pset(fapl_id, "collective_metadata_read", &asked);
    tb_err_restore(saved);
}

/* Where this open's sidecars go, from its configuration (d owns the copy of the folder). */
static void
policy_from_config(tb_sc_policy_t *p, const tb_config_t *cfg)
{
    p->where            = cfg->index_where == TB_INDEX_BESIDE   ? TB_SC_BESIDE
                          : cfg->index_where == TB_INDEX_IN_DIR ? TB_SC_DIR
                                                                 : TB_SC_CACHE;
    p->dir              = p->where == TB_SC_DIR ? strdup(cfg->index_dir) : NULL;
    p->cache_max_nbytes = cfg->index_cache_max_nbytes;
    p->debug            = cfg->debug;
    if (p->where == TB_SC_DIR && !p->dir)
        p->where = TB_SC_CACHE;
}

/* Whether an open with configuration cfg would put sidecars where p does. */
static bool
policy_matches(const tb_sc_policy_t *p, const tb_config_t *cfg)
{
    tb_sc_policy_t q;
    policy_from_config(&q, cfg);
    bool same = q.where == p->where && q.cache_max_nbytes == p->cache_max_nbytes && q.debug == p->debug &&
                (q.where != TB_SC_DIR || (p->dir && strcmp(q.dir, p->dir) == 0));
    free((char *)q.dir);
    return same;
}

/* A kept index of file `id` that this open cannot take (the file changed since, or the open
 * writes, is an MPI one, or puts sidecars elsewhere), taken out of the registry for the caller
 * to release; NULL when there is none. Under registry_mu. */
static tb_ix_data_t *
kept_misfit(const tb_ix_identity_t *id, bool read_only, const tb_config_t *cfg)
{
    for (tb_ix_data_t **pp = &registry; *pp; pp = &(*pp)->next) {
        tb_ix_data_t *d = *pp;
        if (d->dev != id->dev || d->ino != id->ino)
            continue;
        if (d->refs > 0 ||
            (read_only && memcmp(id, &d->file.id, sizeof(*id)) == 0 && policy_matches(&d->policy, cfg)))
            return NULL;
        *pp = d->next;
        return d;
    }
    return NULL;
}

void
tb_index_file_opened(tb_obj_t *file, const char *name, unsigned flags, hid_t fapl_id, int created)
{
    tb_ctx_t *ctx = file->ctx;
    if (ctx->cfg.index == TB_INDEX_OFF || ctx->index)
        return;
    if (flags & H5F_ACC_SWMR_READ)
        return; /* another process is writing: nothing may be cached */
    int writable = created || (flags & H5F_ACC_RDWR);
    /* A driver doing MPI I/O (known before anything copies the file's access list: a copy
     * duplicates its communicator): read-only opens only, of a file that is one whole HDF5 file at
     * its name (MPI-IO, whose handle index_mpi.c takes for an MPI_File; not subfiling), with
     * independent metadata reads (made so: md_reads_settle). There every call the index answers
     * is local to the rank making it, whatever the other ranks' indexes hold; opens for writing
     * make every metadata change collective. */
    const char *why_off  = NULL;
    int         md_asked = ctx->file_mpi ? md_read_flag(fapl_id) : 0;
    bool        md_indep = ctx->file_mpi && ctx->under_native && H5F_set_coll_metadata_reads && H5F_coll_md_read;
    if (ctx->file_mpi && writable)
        why_off = "the file is open for writing";
    else if (md_asked == 1 && !(ctx->cfg.index == TB_INDEX_PERSISTENT && md_indep))
        why_off = "metadata reads are collective, which needs a persistent index and HDF5's switch of them";
    else if (ctx->file_mpi && !(tb_fapl_driver_features(fapl_id) & H5FD_FEAT_DEFAULT_VFD_COMPATIBLE))
        why_off = "its file is not one whole HDF5 file (subfiling)"; /* (whose identity the name gives) */
    if (why_off) {
        if (ctx->cfg.debug)
            fprintf(stderr, "h5turbo: %s: index off (the file driver does MPI I/O, and %s)\n", name, why_off);
        return;
    }
    /* From here on, an MPI-IO open (read-only, persistent index) takes part in the sidecar step
     * of all the file's ranks whatever this rank finds (mpi_sidecar), its metadata reads made
     * independent first (md_reads_settle). */
    bool    mpi_step  = ctx->file_mpi && ctx->cfg.index == TB_INDEX_PERSISTENT;
    int     md_flag   = TB_MD_FORCE_FALSE;
    bool    md_ctx    = false;
    int64_t sidecar_n = 0;
    if (md_indep)
        H5F_set_coll_metadata_reads(file->under, &md_flag, &md_ctx); /* (now what they were) */
    /* Native underneath only (tokens, native optional operations and the ID wrapping of
     * iteration callbacks all assume it), with the POSIX driver or one doing MPI I/O: only then is
     * the file one whose identity can be taken. */
    struct stat           st;
    tb_ix_identity_t      id;
    int                   persist = !writable && ctx->cfg.index == TB_INDEX_PERSISTENT;
    unsigned long         fileno  = 0;
    struct tb_index_file *f       = NULL;
    memset(&id, 0, sizeof(id));
    if (ix_disabled || file_stat(file, name, &st) != TB_OK)
        goto skip;
    identity_from_stat(&st, &id);
    if (file_fingerprint(file, &fileno, id.root_token, persist ? &id.eoa : NULL) != TB_OK) {
        H5Eclear2(H5E_DEFAULT);
        goto skip;
    }
    if (!(f = calloc(1, sizeof(*f))))
        goto skip;
    tb_ix_publish_wait_for(id.dev, id.ino); /* (this process's own last index of it, if queued) */
    f->fileno      = fileno;
    f->standin_vol = H5I_INVALID_HID;
    f->debug       = ctx->cfg.debug;

    pthread_mutex_lock(&registry_mu);
    tb_ix_data_t *misfit = kept_misfit(&id, persist && !ctx->file_mpi, &ctx->cfg);
    pthread_mutex_unlock(&registry_mu);
    /* (What it learned is published when it still describes the file: a write may change it now.) */
    if (misfit && (writable || memcmp(&id, &misfit->file.id, sizeof(id)) == 0))
        tb_ix_data_finish(misfit);
    else if (misfit)
        data_free(misfit);
    pthread_mutex_lock(&registry_mu);
    tb_ix_data_t *d     = registry;
    tb_ix_data_t *fresh = NULL; /* a new index this open may fill from a sidecar */
    while (d && !(d->dev == id.dev && d->ino == id.ino))
        d = d->next;
    if (d && d->refs == 0) { /* (kept, and fits: kept_misfit said) */
        d->kept_at = 0;
        tb_ix_stats.kept_reused++;
        if (d->policy.debug)
            fprintf(stderr, "h5turbo: %s: index kept from this process's last open of it\n", d->file.path);
    }
    if (d) {
        d->refs++;
        if (writable) {
            d->writable = 1;
            d->persist  = 0;
        }
    }
    else if ((d = calloc(1, sizeof(*d)))) {
        d->refs        = 1;
        d->dev         = id.dev;
        d->ino         = id.ino;
        d->writable    = writable;
        d->epoch       = ix_epoch;
        d->file.id     = id;
        d->file.uid    = (uint32_t)st.st_uid;
        d->file.gid    = (uint32_t)st.st_gid;
        d->file.mode   = (uint32_t)st.st_mode;
        d->have_id     = persist;
        d->persist     = persist;
        policy_from_config(&d->policy, &ctx->cfg);
        d->file.path = file_path(name, d->policy.where);
        if (ctx->cfg.index_spill_nbytes != SIZE_MAX)
            d->spill = tb_ix_spill_new(ctx->cfg.index_spill_nbytes == TB_INDEX_SPILL_AUTO
                                           ? TB_IX_SPILL_AUTO
                                           : ctx->cfg.index_spill_nbytes,
                                       tb_sc_spill_open, &d->policy);
        if (persist && !d->file.path)
            d->persist = 0;
        if (d->persist && too_recent(&id)) {
            tb_sc_note(&d->policy, TB_SC_TOO_RECENT, d->file.path);
            d->persist = 0;
        }
        if (d->persist && !mpi_step)
            try_sidecar(d);
        fresh    = d->persist ? d : NULL;
        d->next  = registry;
        registry = d;
    }
    pthread_mutex_unlock(&registry_mu);
    if (!d) {
        free(f);
        goto skip;
    }
    /* (After the registry's lock: a collective must not hold it. The new index is this open's
     * alone until the open returns: HDF5 serialises VOL callbacks.) */
    if (mpi_step)
        sidecar_n = mpi_sidecar(file, fresh, fapl_id, md_asked != 1);
    f->d          = d;
    f->file_under = file->under;
    ctx->index    = f;
    if (md_indep)
        md_reads_settle(file, name, md_asked, sidecar_n, md_flag, md_ctx);
    return;
skip:
    if (mpi_step)
        sidecar_n = mpi_sidecar(file, NULL, fapl_id, md_asked != 1);
    if (md_indep)
        md_reads_settle(file, name, md_asked, sidecar_n, md_flag, md_ctx);
}

void
tb_ix_check_unchanged(struct tb_index_file *f, tb_obj_t *file)
{
    tb_ix_data_t *d = f->d;
    if (!d->persist)
        return;
    /* What HDF5 read must still be the file described: a rewrite in place while it was open
     * (same inode) changes size, mtime or ctime. */
    struct stat       st;
    tb_ix_identity_t now = d->file.id;
    if (file_stat(file, d->file.path, &st) == TB_OK)
        identity_from_stat(&st, &now);
    else
        now.size = ~d->file.id.size;
    if (memcmp(&now, &d->file.id, sizeof(now)) != 0) {
        tb_sc_note(&d->policy, TB_SC_CHANGED, d->file.path);
        d->persist = 0;
    }
}

/* Whether the index of a read-only file learned something its sidecar is to keep. */
static bool
wants_publish(const tb_ix_data_t *d)
{
    return d->persist && d->dirty && d->file.path && d->have_id;
}

static uint64_t
records_of(const tb_ix_data_t *d)
{
    return (uint64_t)d->nobj + d->ngroup + d->nattr + d->ndset;
}

/* Whether a kept index is due to publish at a last close: the first time, then once it has twice
 * the records of its last publication, and 64 more. */
static bool
kept_publish_due(const tb_ix_data_t *d)
{
    uint64_t p = d->published_records;
    return p == 0 || records_of(d) >= (p + 64 > 2 * p ? p + 64 : 2 * p);
}

/* Publishes d's sidecar (any thread: d is the caller's alone, out of the registry or kept with no
 * open of it). */
static void
publish(tb_ix_data_t *d)
{
    if (!wants_publish(d))
        return;
    /* In an MPI job, a sidecar that appeared since none was there is another rank's (tb_sc_policy_t's
     * yield): the ranks opening one file with the POSIX driver (each its own open) publish it
     * once, not each (the others read it back at their closes before). */
    d->policy.yield = d->sc_absent && tb_ix_mpi_family() != NULL;
    if (tb_sc_publish(&d->policy, &d->file, d) == TB_SC_WRITTEN)
        __atomic_fetch_add(&tb_ix_stats.sidecar_writes, 1, __ATOMIC_RELAXED);
    d->dirty             = 0; /* (tried: a kept index tries again once it learns more) */
    d->published_records = records_of(d);
}

static void
data_free(tb_ix_data_t *d)
{
    tb_ix_data_clear(d);
    tb_ix_spill_free(d->spill);
    free((char *)d->file.path);
    free((char *)d->policy.dir);
    free(d);
}

void
tb_ix_data_finish(tb_ix_data_t *d)
{
    publish(d);
    data_free(d);
}

/* Memory held by d's tables (allocations, not counting allocator overhead): records, hash tables,
 * permutations, the strings they own and the sidecar's strings kept for the rest. The small-dataset
 * cache (records, encodings, contents) is d->dset_nbytes, counted in the index_data budget. */
static void
tb_ix_memory(const tb_ix_data_t *d, size_t *nlinks_out, size_t *nbytes_out)
{
    size_t n = (size_t)d->objcap * sizeof(tb_ix_obj_t) + (d->oht ? ((size_t)d->oht_mask + 1) * sizeof(*d->oht) : 0) +
               (size_t)d->groupcap * sizeof(tb_ix_group_t) + (size_t)d->attrcap * sizeof(tb_ix_attr_t) +
               (d->sc_buf ? (size_t)d->sc_strbytes : 0);
    for (uint32_t k = 0; k < d->ndset; k++) /* counted in dset_nbytes, with their records */
        if (!d->dsets[k].owned)
            n -= (size_t)d->dsets[k].type_nbytes + d->dsets[k].space_nbytes + d->dsets[k].value_nbytes;
    size_t links = 0;
    for (uint32_t g = 0; g < d->ngroup; g++) {
        const tb_ix_group_t *x = &d->groups[g];
        links += x->nlinks;
        n += (x->ht ? ((size_t)x->ht_mask + 1) * 4 : 0) + (x->by_name ? (size_t)x->nlinks * 4 : 0) +
             (x->by_corder ? (size_t)x->nlinks * 4 : 0);
        if (!x->owned)
            continue; /* its links are in the table decoded from the sidecar */
        n += (size_t)x->nlinks * sizeof(tb_ix_link_t);
        for (uint32_t k = 0; k < x->nlinks; k++)
            n += x->links[k].name_len + 1u + (x->links[k].type ? x->links[k].val_size : 0u);
    }
    if (d->sc_links)
        for (uint32_t g = 0; g < d->ngroup; g++)
            if (!d->groups[g].owned)
                n += (size_t)d->groups[g].nlinks * sizeof(tb_ix_link_t);
    for (uint32_t k = 0; k < d->nattr; k++)
        if (d->attrs[k].owned)
            n += d->attrs[k].name_len + 1u +
                 (d->attrs[k].cached ? d->attrs[k].type_nbytes + d->attrs[k].space_nbytes + d->attrs[k].value_nbytes
                                     : 0u);
    *nlinks_out = links;
    *nbytes_out = n;
}

/* The approximate memory of d's tables, its links taken as one of about 16 bytes of name per
 * object (tb_ix_memory counts exactly, walking every group and link: too slow for every close). */
static uint64_t
approx_nbytes(const tb_ix_data_t *d)
{
    return (uint64_t)d->objcap * sizeof(tb_ix_obj_t) + (uint64_t)d->groupcap * sizeof(tb_ix_group_t) +
           (uint64_t)d->attrcap * sizeof(tb_ix_attr_t) + (uint64_t)d->dsetcap * sizeof(tb_ix_dset_t) +
           (uint64_t)d->nobj * (sizeof(tb_ix_link_t) + 16) + d->dset_nbytes + (d->sc_buf ? d->sc_strbytes : 0);
}

static void
kept_at_exit(void)
{
    kept_release(true);
}

static void
kept_register(void)
{
    atexit(kept_at_exit); /* (a handler of this plugin: also run if HDF5 unloads it first) */
}

/* Takes kept indexes out of the registry (all, or those past KEPT_MAX and KEPT_NBYTES, least
 * recently closed first) and publishes what each learned since its last publication. */
static void
kept_release(bool all)
{
    for (;;) {
        pthread_mutex_lock(&registry_mu);
        tb_ix_data_t **oldest = NULL;
        unsigned       n      = 0;
        uint64_t       nbytes = 0;
        for (tb_ix_data_t **pp = &registry; *pp; pp = &(*pp)->next)
            if ((*pp)->refs == 0) {
                n++;
                nbytes += approx_nbytes(*pp);
                if (!oldest || (*pp)->kept_at < (*oldest)->kept_at)
                    oldest = pp;
            }
        tb_ix_data_t *d = NULL;
        if (oldest && (all || n > KEPT_MAX || nbytes > KEPT_NBYTES)) {
            d       = *oldest;
            *oldest = d->next;
        }
        pthread_mutex_unlock(&registry_mu);
        if (!d)
            return;
        tb_ix_data_finish(d);
    }
}

void
tb_index_ctx_release(tb_ctx_t *ctx)
{
    struct tb_index_file *f = ctx->index;
    if (!f)
        return;
    ctx->index       = NULL;
    tb_ix_data_t *d = f->d;
    /* The last close of a read-only file publishes what its index learned: here, or in an MPI job
     * on the publisher thread (index_publish.c), off the path every rank waits on; one whose index
     * this process keeps (above), the first time and then as it grows. */
    pthread_mutex_lock(&registry_mu);
    int  last = --d->refs == 0;
    bool keep = last && d->persist && d->have_id && d->file.path && !d->writable && !ctx->file_mpi &&
                !ix_disabled && !tb_ix_publish_in_background();
    if (keep)
        d->kept_at = ++kept_clock;
    else if (last) {
        tb_ix_data_t **pp = &registry;
        while (*pp != d)
            pp = &(*pp)->next;
        *pp = d->next;
    }
    pthread_mutex_unlock(&registry_mu);
    bool later = last && !keep && wants_publish(d) && tb_ix_publish_in_background();
    if (last && !later && (!keep || kept_publish_due(d)))
        publish(d);
    if (last) {
        if (f->debug) {
            size_t nlinks = 0, nbytes = 0;
            tb_ix_memory(d, &nlinks, &nbytes);
            fprintf(stderr,
                    "h5turbo index: released %s: answered=%zu forwarded=%zu groups_loaded=%zu sidecar "
                    "loads=%zu rejects=%zu writes=%zu; groups lazy=%zu materialised=%zu; attributes lazy=%zu "
                    "materialised=%zu; datasets cached=%zu lazy=%zu materialised=%zu by_token=%zu; named datatypes "
                    "lazy=%zu materialised=%zu; %u objects %u attributes "
                    "%u dataset records (%llu bytes) %zu links %zu bytes (%.1f bytes/entry)\n",
                    d->file.path ? d->file.path : "?", tb_ix_stats.answered, tb_ix_stats.forwarded,
                    tb_ix_stats.groups_loaded, tb_ix_stats.sidecar_loads, tb_ix_stats.sidecar_rejects,
                    __atomic_load_n(&tb_ix_stats.sidecar_writes, __ATOMIC_RELAXED), tb_ix_stats.groups_lazy,
                    tb_ix_stats.groups_materialised,
                    tb_ix_stats.attrs_lazy, tb_ix_stats.attrs_materialised, tb_ix_stats.dsets_cached,
                    tb_ix_stats.dsets_lazy, tb_ix_stats.dsets_materialised, tb_ix_stats.dsets_by_token,
                    tb_ix_stats.types_lazy, tb_ix_stats.types_materialised, d->nobj,
                    d->nattr, d->ndset, (unsigned long long)d->dset_nbytes, nlinks, nbytes,
                    nlinks ? (double)nbytes / (double)nlinks : 0.0);
            uint64_t in_file, allocated;
            tb_ix_spill_sizes(d->spill, &in_file, &allocated);
            if (in_file)
                fprintf(stderr, "h5turbo index: %s: spill file %llu bytes mapped (the index allocated %llu "
                        "bytes in all)\n", d->file.path ? d->file.path : "?", (unsigned long long)in_file,
                        (unsigned long long)allocated);
        }
        if (keep) {
            pthread_once(&kept_once, kept_register);
            kept_release(false);
        }
        else if (later)
            tb_ix_publish_queue(d);
        else
            data_free(d);
    }
    free(f);
}

void
tb_index_obj_release(tb_obj_t *o)
{
    if (o->idx) {
        if (o->idx->evict && o->under)
            evict_closed(o);
        if (o->idx->later.obj) { /* (what its queries read leaves now) */
            struct tb_index_file *f = o->ctx->index;
            if (f && f->d)
                tb_ix_later_flush(f->d, f->file_under, &o->idx->later);
            else
                free(o->idx->later.obj);
        }
        if (o->idx->lazy)
            tb_ix_lazy_free(o->idx->lazy);
        tb_ix_pending_free(o->idx->pending);
        free(o->idx->path);
        tb_objpool_put(&ixobj_pool, o->idx);
        o->idx = NULL;
    }
}

struct tb_index_obj *
tb_ix_obj_state(tb_obj_t *o)
{
    if (!o->idx)
        o->idx = tb_objpool_get(&ixobj_pool);
    return o->idx;
}

void *
tb_ix_open_by_token(void *loc_obj, H5I_type_t loc_type, hid_t vol, const uint8_t *token, H5I_type_t *type_out,
                     hid_t dxpl_id)
{
    H5O_token_t       tok;
    H5VL_loc_params_t bt = {.obj_type = loc_type, .type = H5VL_OBJECT_BY_TOKEN};
    memcpy(&tok, token, sizeof(tok));
    bt.loc_data.loc_by_token.token = &tok;
    *type_out                      = H5I_BADID;
    return H5VLobject_open(loc_obj, &bt, vol, type_out, dxpl_id, NULL);
}

void
tb_index_obj_opened(void *child, H5I_type_t type, tb_obj_t *parent, const H5VL_loc_params_t *loc,
                    const char *name)
{
    struct tb_index_file *f = parent->ctx->index;
    if (!child || !f || f->d->writable)
        return; /* (writable files: renames would move paths the index does not follow) */
    if (loc->type == H5VL_OBJECT_BY_NAME)
        name = loc->loc_data.loc_by_name.name;
    else if (loc->type != H5VL_OBJECT_BY_SELF)
        return;
    const char *base = loc->obj_type == H5I_FILE ? "/" : (parent->idx ? parent->idx->path : NULL);
    if (!name || (!base && name[0] != '/'))
        return;
    tb_ix_learn_opened(child, type, parent, loc->obj_type, base, name);
}

void
tb_index_attr_opened(void *attr, const tb_obj_t *parent, const H5VL_loc_params_t *loc)
{
    if (!attr || !parent->idx || !parent->idx->path)
        return;
    /* On the object itself: by self, or by a relative name of "." components only (napi5's
     * H5Aopen_by_name(g, ".", ...)); native names the attribute by the object's path. */
    const char *name = loc->type == H5VL_OBJECT_BY_NAME  ? loc->loc_data.loc_by_name.name
                       : loc->type == H5VL_OBJECT_BY_IDX ? loc->loc_data.loc_by_idx.name
                                                         : NULL;
    if (loc->type != H5VL_OBJECT_BY_SELF && !(name && name[0] == '.' && tb_ix_names_self(name)))
        return;
    struct tb_index_obj *x = tb_ix_obj_state(attr);
    if (x && !x->path) {
        x->path  = strdup(parent->idx->path);
        x->state = TB_IXO_FOREIGN; /* an attribute: never a location for the index */
    }
}

tb_status_t
tb_ix_for(tb_obj_t *o, H5I_type_t obj_type, uint8_t *token_out, tb_ix_data_t **d_out)
{
    struct tb_index_file *f = o->ctx->index;
    if (!f || ix_disabled)
        return TB_ERR_UNSUPPORTED;
    tb_ix_data_t *d = f->d;
    if (d->writable && d->epoch != ix_epoch) {
        /* Never free what a running iteration walks: answer nothing until it ends. */
        if (d->busy)
            return TB_ERR_UNSUPPORTED;
        tb_ix_data_clear(d);
        d->epoch = ix_epoch;
    }
    struct tb_index_obj *x = o->idx;
    if (!x) {
        if (!(x = tb_objpool_get(&ixobj_pool)))
            return TB_ERR_NOMEM;
        o->idx = x;
    }
    if (x->state == TB_IXO_UNKNOWN) {
        /* Which file is o in? Its fileno says, and its token comes with it. */
        H5VL_loc_params_t      loc = {.obj_type = obj_type, .type = H5VL_OBJECT_BY_SELF};
        H5O_info2_t            oi;
        H5VL_object_get_args_t ga = {.op_type = H5VL_OBJECT_GET_INFO};
        ga.args.get_info.fields   = H5O_INFO_BASIC;
        ga.args.get_info.oinfo    = &oi;
        if (obj_type != H5I_FILE && obj_type != H5I_GROUP && obj_type != H5I_DATASET && obj_type != H5I_DATATYPE)
            return TB_ERR_UNSUPPORTED;
        if (H5VLobject_get(o->under, &loc, o->under_vol_id, &ga, H5P_DATASET_XFER_DEFAULT, NULL) < 0) {
            H5Eclear2(H5E_DEFAULT);
            x->state = TB_IXO_FOREIGN;
        }
        else {
            x->state = oi.fileno == f->fileno ? TB_IXO_MINE : TB_IXO_FOREIGN;
            memcpy(x->token, &oi.token, TB_IX_TOKEN_NBYTES);
        }
    }
    if (x->state != TB_IXO_MINE)
        return TB_ERR_UNSUPPORTED;
    memcpy(token_out, x->token, TB_IX_TOKEN_NBYTES);
    *d_out = d;
    return TB_OK;
}

tb_status_t
tb_ix_self_rec(tb_obj_t *o, tb_ix_data_t *d, const uint8_t *tok, uint32_t *oi_out)
{
    struct tb_index_obj *x = o->idx;
    uint32_t             k = x ? x->rec - 1 : TB_IX_NONE;
    if (x && x->rec && k < d->nobj && memcmp(d->objs[k].token, tok, TB_IX_TOKEN_NBYTES) == 0) {
        *oi_out = k;
        return TB_OK;
    }
    tb_status_t st = tb_ix_obj_get(d, tok, &k);
    if (st != TB_OK)
        return st;
    if (x)
        x->rec = k + 1;
    *oi_out = k;
    return TB_OK;
}

/* ------------------------------------------------------------------ loading */

typedef struct collect {
    tb_ix_data_t *d; /* where hard-link targets get their object records */
    tb_ix_link_t *links;
    uint32_t       n, cap;
    char          *blob;
    size_t         blen, bcap;
    tb_status_t    st;  /* why the iteration was stopped (TB_OK: it was not) */
    uint32_t       max; /* stop past this many links (0: no limit) */
    bool           big; /* it stopped there */
} collect_t;

/* Appends n bytes to the blob; their offset in *off_out. TB_OK, or TB_ERR_NOMEM. */
static tb_status_t
blob_append(collect_t *c, const void *p, size_t n, size_t *off_out)
{
    if (c->blen + n > c->bcap) {
        size_t cap = c->bcap ? c->bcap : 256;
        while (cap < c->blen + n)
            cap *= 2;
        char *b = realloc(c->blob, cap);
        if (!b)
            return TB_ERR_NOMEM;
        c->blob = b;
        c->bcap = cap;
    }
    memcpy(c->blob + c->blen, p, n);
    *off_out = c->blen;
    c->blen += n;
    return TB_OK;
}

static herr_t
collect_cb(hid_t group, const char *name, const H5L_info2_t *info, void *op_data)
{
    collect_t *c = op_data;
    (void)group;
    void *links;
    if (c->max && c->n == c->max) {
        c->big = true;
        return H5_ITER_STOP;
    }
    if ((c->st = tb_ix_reserve(c->links, &c->cap, (uint64_t)c->n + 1, sizeof(*c->links), 16, &links)) != TB_OK)
        return H5_ITER_ERROR;
    c->links = links;
    size_t len = strlen(name), off;
    if (len > UINT32_MAX - 1) {
        c->st = TB_ERR_UNSUPPORTED; /* (a name the record cannot hold) */
        return H5_ITER_ERROR;
    }
    if ((c->st = blob_append(c, name, len + 1, &off)) != TB_OK)
        return H5_ITER_ERROR;
    tb_ix_link_t *l = &c->links[c->n++];
    memset(l, 0, sizeof(*l));
    l->name         = (const char *)(uintptr_t)off; /* an offset until the blob stops moving */
    l->name_len     = (uint32_t)len;
    l->type         = (uint8_t)info->type;
    l->cset         = (uint8_t)info->cset;
    l->corder_valid = (uint8_t)info->corder_valid;
    l->corder       = info->corder;
    if (info->type == H5L_TYPE_HARD) {
        uint8_t tok[TB_IX_TOKEN_NBYTES];
        memcpy(tok, &info->u.token, TB_IX_TOKEN_NBYTES);
        if ((c->st = tb_ix_obj_get(c->d, tok, &l->obj)) != TB_OK)
            return H5_ITER_ERROR;
    }
    else {
        if (info->u.val_size > UINT32_MAX) {
            c->st = TB_ERR_UNSUPPORTED; /* (a value the record cannot hold) */
            return H5_ITER_ERROR;
        }
        l->val_size = (uint32_t)info->u.val_size;
    }
    return H5_ITER_CONT;
}

void
tb_ix_close_under(void *obj, H5I_type_t type, hid_t vol)
{
    if (!obj)
        return;
    if (type == H5I_GROUP)
        H5VLgroup_close(obj, vol, H5P_DATASET_XFER_DEFAULT, NULL);
    else if (type == H5I_DATASET)
        H5VLdataset_close(obj, vol, H5P_DATASET_XFER_DEFAULT, NULL);
    else if (type == H5I_DATATYPE)
        H5VLdatatype_close(obj, vol, H5P_DATASET_XFER_DEFAULT, NULL);
}

tb_status_t
tb_ix_ask_info(tb_ix_data_t *d, uint32_t oi, void *under, const H5VL_loc_params_t *loc, hid_t vol)
{
    H5O_info2_t            info;
    H5VL_object_get_args_t ga = {.op_type = H5VL_OBJECT_GET_INFO};
    ga.args.get_info.fields   = H5O_INFO_ALL;
    ga.args.get_info.oinfo    = &info;
    if (H5VLobject_get(under, loc, vol, &ga, H5P_DATASET_XFER_DEFAULT, NULL) < 0)
        return TB_ERR_HDF5;
    if (info.num_attrs > UINT32_MAX)
        return TB_ERR_UNSUPPORTED;
    tb_ix_obj_t *r = &d->objs[oi];
    r->has_info     = 1;
    r->type         = (uint8_t)info.type;
    r->rc           = info.rc;
    r->num_attrs    = (uint32_t)info.num_attrs;
    r->atime        = info.atime;
    r->mtime        = info.mtime;
    r->ctime        = info.ctime;
    r->btime        = info.btime;
    d->dirty        = 1;
    return TB_OK;
}

void
tb_ix_keep_native_info(tb_ix_data_t *d, uint32_t oi, unsigned have, const H5O_native_info_t *ni)
{
    uint32_t k = d->objs[oi].ninfo;
    if (k == TB_IX_NONE) {
        void *arr;
        if (tb_ix_spill_reserve(d->spill, TB_IX_LANE_NINFOS, d->ninfos, &d->ninfocap, (uint64_t)d->nninfo + 1,
                                sizeof(*d->ninfos), 64, &arr) != TB_OK)
            return; /* (out of memory: not kept) */
        d->ninfos = arr;
        k         = d->nninfo++;
        memset(&d->ninfos[k], 0, sizeof(d->ninfos[k]));
        d->objs[oi].ninfo = k;
    }
    tb_ix_ninfo_t *x = &d->ninfos[k];
    if (have & TB_IX_NI_HDR) {
        x->version      = ni->hdr.version;
        x->nmesgs       = ni->hdr.nmesgs;
        x->nchunks      = ni->hdr.nchunks;
        x->flags        = ni->hdr.flags;
        x->space_total  = ni->hdr.space.total;
        x->space_meta   = ni->hdr.space.meta;
        x->space_mesg   = ni->hdr.space.mesg;
        x->space_free   = ni->hdr.space.free;
        x->mesg_present = ni->hdr.mesg.present;
        x->mesg_shared  = ni->hdr.mesg.shared;
    }
    if (have & TB_IX_NI_META) {
        x->obj_index_size  = ni->meta_size.obj.index_size;
        x->obj_heap_size   = ni->meta_size.obj.heap_size;
        x->attr_index_size = ni->meta_size.attr.index_size;
        x->attr_heap_size  = ni->meta_size.attr.heap_size;
    }
    x->have  = (uint8_t)(x->have | have);
    d->dirty = 1;
}

/* Whether the index holds the halves `have` (TB_IX_NI_*) of object oi's native info (none asked:
 * true). */
static bool
has_native_info(const tb_ix_data_t *d, uint32_t oi, unsigned have)
{
    uint32_t k = d->objs[oi].ninfo;
    return !have || (k != TB_IX_NONE && (d->ninfos[k].have & have) == have);
}

tb_status_t
tb_ix_ask_native_info(tb_ix_data_t *d, uint32_t oi, void *under, const H5VL_loc_params_t *loc, hid_t vol,
                      unsigned have)
{
    H5O_native_info_t ni;
    if (has_native_info(d, oi, have))
        return TB_OK;
    unsigned fields = ((have & TB_IX_NI_HDR) ? H5O_NATIVE_INFO_HDR : 0u) |
                      ((have & TB_IX_NI_META) ? H5O_NATIVE_INFO_META_SIZE : 0u);
    if (tb_native_info(under, loc, vol, fields, &ni, H5P_DATASET_XFER_DEFAULT) < 0)
        return TB_ERR_HDF5;
    tb_ix_keep_native_info(d, oi, have, &ni);
    return TB_OK;
}

/* Link `name` of a group open below, as a location (the default link access list). */
static H5VL_loc_params_t
name_loc(const char *name)
{
    H5VL_loc_params_t loc = {.obj_type = H5I_GROUP, .type = H5VL_OBJECT_BY_NAME};
    loc.loc_data.loc_by_name.name    = name;
    loc.loc_data.loc_by_name.lapl_id = H5P_LINK_ACCESS_DEFAULT;
    return loc;
}

bool
tb_ix_member_known(const tb_ix_data_t *d, uint32_t oi, unsigned want_ninfo)
{
    return d->objs[oi].has_info && has_native_info(d, oi, want_ninfo);
}

tb_status_t
tb_ix_child_info(tb_ix_data_t *d, uint32_t gi, uint32_t k, void *grp, const tb_ix_anchor_t *a, unsigned want_ninfo)
{
    const tb_ix_link_t *l = &d->groups[gi].links[k];
    if (l->type != H5L_TYPE_HARD)
        return TB_OK;
    uint32_t oi    = l->obj;
    bool     info  = !d->objs[oi].has_info;
    bool     ninfo = !has_native_info(d, oi, want_ninfo);
    if (!info && !ninfo)
        return TB_OK;
    H5VL_loc_params_t loc = name_loc(l->name);
    tb_status_t       st  = info ? tb_ix_ask_info(d, oi, grp, &loc, a->vol) : TB_OK;
    if (st != TB_OK)
        return st;
    /* The native info a 1.8 visit's adapter asks of every object it reports (H5Ovisit1's: all
     * of it), asked while the header is in HDF5's cache: the adapter's own call came after the
     * header had left, and read it again (h5py's visit, native's reads of the file doubled).
     * Where this fails (a damaged B-tree the metadata sizes walk), the load fails, and the
     * visit goes on natively, where the adapter's call fails as it does under stock. */
    if (ninfo && (st = tb_ix_ask_native_info(d, oi, grp, &loc, a->vol, want_ninfo)) != TB_OK)
        return st;
    /* (A member group's header is read again soon, to list its links; it leaves then.) */
    if (d->objs[oi].type != H5O_TYPE_GROUP)
        tb_ix_evict_read(d, a, oi);
    return TB_OK;
}

/* Fetches the info of every hard-link target of loaded group gi that lacks it, through `grp`:
 * TB_OK, or the status of the question that failed. */
static tb_status_t
load_child_infos(tb_ix_data_t *d, uint32_t gi, void *grp, const tb_ix_anchor_t *a)
{
    tb_status_t st = TB_OK;
    for (uint32_t k = 0; k < d->groups[gi].nlinks && st == TB_OK; k++)
        st = tb_ix_child_info(d, gi, k, grp, a, 0);
    return st;
}

/* Values of the soft and user-defined links collected in c, appended to its blob, read through
 * `grp` (the group they are in): TB_OK, TB_ERR_HDF5, TB_ERR_NOMEM. */
static tb_status_t
collect_values(collect_t *c, void *grp, hid_t vol)
{
    for (uint32_t k = 0; k < c->n; k++) {
        tb_ix_link_t *l = &c->links[k];
        if (l->type == H5L_TYPE_HARD)
            continue;
        void *val = malloc(l->val_size ? l->val_size : 1);
        if (!val)
            return TB_ERR_NOMEM;
        H5VL_loc_params_t    loc = name_loc(c->blob + (uintptr_t)l->name);
        H5VL_link_get_args_t lg  = {.op_type = H5VL_LINK_GET_VAL};
        lg.args.get_val.buf              = val;
        lg.args.get_val.buf_size         = l->val_size;
        size_t      off;
        tb_status_t st = H5VLlink_get(grp, &loc, vol, &lg, H5P_DATASET_XFER_DEFAULT, NULL) < 0
                             ? TB_ERR_HDF5
                             : blob_append(c, val, l->val_size, &off);
        free(val);
        if (st != TB_OK)
            return st;
        l->val = (const void *)(uintptr_t)off;
    }
    return TB_OK;
}

/* Room in the group table for one more record: TB_OK, or TB_ERR_NOMEM. */
static tb_status_t
group_room(tb_ix_data_t *d)
{
    void       *groups;
    tb_status_t st = tb_ix_spill_reserve(d->spill, TB_IX_LANE_GROUPS, d->groups, &d->groupcap,
                                         (uint64_t)d->ngroup + 1, sizeof(*d->groups), 16, &groups);
    if (st == TB_OK)
        d->groups = groups;
    return st;
}

void *
tb_ix_group_below(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, bool *opened_out, tb_status_t *st_out)
{
    *opened_out = false;
    if (a->group_token && memcmp(a->group_token, d->objs[oi].token, TB_IX_TOKEN_NBYTES) == 0)
        return a->under;
    H5I_type_t gtype = H5I_GROUP;
    void      *grp   = tb_ix_open_by_token(a->under, a->type, a->vol, d->objs[oi].token, &gtype, H5P_DATASET_XFER_DEFAULT);
    *st_out          = TB_ERR_HDF5;
    if (grp && gtype != H5I_GROUP) {
        tb_ix_close_under(grp, gtype, a->vol);
        *st_out = TB_ERR_UNSUPPORTED;
        return NULL;
    }
    *opened_out = grp != NULL;
    return grp;
}

/* Whether group grp (open below) keeps its links in the 1.8 format (a link info message in its
 * header, file format message type 0x0002: compact or dense storage), whose link count native
 * reads from its header or its name index's header, where a symbol table's (type 0x0011) walks
 * its whole B-tree: asked of its header (in HDF5's cache, the group being open). */
static bool
links_counted_cheaply(void *grp, hid_t vol)
{
    H5O_native_info_t ni;
    H5VL_loc_params_t self  = {.obj_type = H5I_GROUP, .type = H5VL_OBJECT_BY_SELF};
    hid_t             saved = tb_err_save();
    bool ok = tb_native_info(grp, &self, vol, H5O_NATIVE_INFO_HDR, &ni, H5P_DATASET_XFER_DEFAULT) >= 0 &&
              (ni.hdr.mesg.present >> 0x0002 & 1);
    tb_err_restore(saved);
    return ok;
}

static uint8_t
kind_of(const H5G_info_t *ginfo)
{
    return ginfo->storage_type == H5G_STORAGE_TYPE_SYMBOL_TABLE ? TB_IX_KIND_STAB : TB_IX_KIND_LINFO;
}

/* tb_ix_load_group, or with `max`, only a group of at most that many links: of a larger one,
 * TB_ERR_UNSUPPORTED, and *big_out set. */
static tb_status_t
load_group(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, void *under_grp, bool want_info,
           uint32_t max, bool *big_out)
{
    /* Members' info is read only when a query needs it (want_info): a member the application
     * opens gets its info from its open header (a quarter of the cost of reading it by name
     * here), one it never asks about costs nothing (callgrind, bench/index loaders b and i: a
     * first open 2 % cheaper than loading every small group's members; writable files read only
     * what native would anyway). */
    uint32_t gi      = d->objs[oi].group;
    bool     partial = gi != TB_IX_NONE && d->groups[gi].partial; /* (listed whole in its place) */
    if (gi != TB_IX_NONE && !partial && !want_info)
        return TB_OK;
    /* A file open for writing: native's own calls answer. Reading a whole group's links where
     * native would look one up changes what HDF5 does next in such a file (index_diff, 1,500
     * queries, seed 6036: a link added by H5Ocopy went into a new header chunk instead of free
     * space, so the native order of that group's links differed from stock's). */
    if (d->writable)
        return TB_ERR_UNSUPPORTED;
    if (gi != TB_IX_NONE && !partial) {
        bool missing = false;
        for (uint32_t k = 0; k < d->groups[gi].nlinks && !missing; k++) {
            const tb_ix_link_t *l = &d->groups[gi].links[k];
            if (l->type == H5L_TYPE_HARD)
                missing = !d->objs[l->obj].has_info;
        }
        if (!missing)
            return TB_OK;
    }

    void       *grp    = under_grp;
    bool        opened = false;
    collect_t   c      = {.d = d, .max = max};
    tb_status_t ret    = TB_ERR_HDF5;
    if (!grp && !(grp = tb_ix_group_below(d, a, oi, &opened, &ret)))
        goto done;
    if (gi == TB_IX_NONE || partial) {
        H5VL_loc_params_t     self = {.obj_type = H5I_GROUP, .type = H5VL_OBJECT_BY_SELF};
        H5G_info_t            ginfo;
        H5VL_group_get_args_t gg    = {.op_type = H5VL_GROUP_GET_INFO};
        gg.args.get_info.loc_params = self;
        gg.args.get_info.ginfo      = &ginfo;
        bool counted                = false;
        /* A probe (`max`) of a group whose link count is cheap (the 1.8 format) counts its links
         * first: one of more than `max` is not read. (A large dense group's probe read 64 links
         * from its fractal heap, spread over its blocks, to learn that it has more: 2.7M
         * instructions for 20,000 links, a first run reading ten of them at 0.85x of stock's
         * instructions.) The kind is taken from the file's groups so far where they were all of
         * one kind, else asked of the header: asking every probed group cost loaders b, i and d
         * 1 % on their first runs (their groups hold a few links each). A symbol-table group
         * taken for the other kind is counted by its whole B-tree, as listing it would cost. */
        if (max && d->listed_kinds != TB_IX_KIND_STAB) {
            bool linfo = d->listed_kinds == TB_IX_KIND_LINFO;
            if (!linfo && !(linfo = links_counted_cheaply(grp, a->vol)))
                d->listed_kinds |= TB_IX_KIND_STAB;
            if (linfo) {
                if (H5VLgroup_get(grp, a->vol, &gg, H5P_DATASET_XFER_DEFAULT, NULL) < 0)
                    goto done;
                counted = true;
                d->listed_kinds |= kind_of(&ginfo);
                if (ginfo.nlinks > max) {
                    *big_out = true;
                    ret      = TB_ERR_UNSUPPORTED;
                    goto done;
                }
            }
        }
        H5VL_link_specific_args_t la = {.op_type = H5VL_LINK_ITER};
        la.args.iterate.recursive    = 0;
        la.args.iterate.idx_type     = H5_INDEX_NAME;
        la.args.iterate.order        = H5_ITER_NATIVE;
        la.args.iterate.idx_p        = NULL;
        la.args.iterate.op           = collect_cb;
        la.args.iterate.op_data      = &c;
        if (H5VLlink_specific(grp, &self, a->vol, &la, H5P_DATASET_XFER_DEFAULT, NULL) < 0 || c.st != TB_OK) {
            if (c.st != TB_OK)
                ret = c.st; /* (collect_cb stopped the iteration) */
            goto done;
        }
        if (c.big) { /* (more than `max` links: not listed whole, and a symbol-table group not
                      * counted, which costs its whole B-tree; its header stays, native's to look
                      * in) */
            *big_out = true;
            ret      = TB_ERR_UNSUPPORTED;
            goto done;
        }
        if (!counted) {
            if (H5VLgroup_get(grp, a->vol, &gg, H5P_DATASET_XFER_DEFAULT, NULL) < 0)
                goto done;
            d->listed_kinds |= kind_of(&ginfo);
        }
        if (ginfo.nlinks != c.n) {
            ret = TB_ERR_UNSUPPORTED; /* (links the iteration did not report) */
            goto done;
        }
        if ((ret = collect_values(&c, grp, a->vol)) != TB_OK)
            goto done;
        if (!partial && (ret = group_room(d)) != TB_OK)
            goto done;
        tb_ix_group_t g = {0};
        /* Trimmed to size, or moved to the spill (names are still offsets): most groups hold a
         * handful of links, and a large file has many groups. */
        c.links = tb_ix_spill_adopt(d->spill, c.links, (size_t)c.n * sizeof(*c.links));
        c.blob  = tb_ix_spill_adopt(d->spill, c.blob, c.blen);
        for (uint32_t k = 0; k < c.n; k++) {
            c.links[k].name = c.blob + (uintptr_t)c.links[k].name;
            if (c.links[k].type != H5L_TYPE_HARD)
                c.links[k].val = c.blob + (uintptr_t)c.links[k].val;
        }
        g.links        = c.links;
        g.nlinks       = c.n;
        g.blob         = c.blob;
        g.owned        = 1;
        g.obj          = oi;
        g.storage_type = (uint8_t)ginfo.storage_type;
        g.mounted      = (uint8_t)ginfo.mounted;
        g.max_corder   = ginfo.max_corder;
        c.links        = NULL;
        c.blob         = NULL;
        if ((ret = tb_ix_group_finish(&g)) != TB_OK) {
            tb_ix_group_free(d->spill, &g);
            goto done;
        }
        if (partial) /* (the same record, whole now: what pointed at it still does) */
            tb_ix_group_free(d->spill, &d->groups[gi]);
        else
            gi = d->ngroup++;
        d->groups[gi]     = g;
        d->objs[oi].group = gi;
        d->objs[oi].type  = H5O_TYPE_GROUP;
        d->dirty          = 1;
        tb_ix_stats.groups_loaded++;
    }
    ret = TB_OK;
    if (want_info)
        ret = load_child_infos(d, gi, grp, a);
done:
    if (ret != TB_OK)
        H5Eclear2(H5E_DEFAULT);
    free(c.links);
    free(c.blob);
    if (opened) {
        tb_ix_close_under(grp, H5I_GROUP, a->vol);
        /* (A visit entering the group has reported it: it leaves now. A handle's list keeps it.) */
        if (ret == TB_OK && a->later && !a->later->reports)
            tb_ix_evict_read(d, a, oi);
        else if (ret == TB_OK)
            tb_ix_evict_unused(a->evict_file, d->objs[oi].token);
    }
    return ret;
}

tb_status_t
tb_ix_load_group(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, void *under_grp, bool want_info)
{
    return load_group(d, a, oi, under_grp, want_info, 0, NULL);
}

/* A partial list keeps names native found no link of up to this many records. */
#define TB_IX_ABSENT_MAX 65536

/* Native's look-up of `name` (len bytes, no NUL) in group object oi, which the index has not listed
 * whole: its link kept in the group's partial list (one made for it if it has no record), its
 * index there in *k_out; or, when native says the group has no such link, the name kept as absent
 * and *k_out TB_IX_NONE. TB_OK; TB_ERR_UNSUPPORTED when native's look-up failed otherwise (its
 * forwarded call says why, as it does) or the file is open for writing; TB_ERR_HDF5,
 * TB_ERR_NOMEM. */
static tb_status_t
lookup_native(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, const char *name, size_t len, uint32_t *k_out)
{
    if (d->writable || len > UINT32_MAX - 1)
        return TB_ERR_UNSUPPORTED;
    char        buf[256];
    char       *nm     = len < sizeof(buf) ? buf : malloc(len + 1);
    bool        opened = false;
    collect_t   c      = {.d = d};
    tb_status_t ret    = TB_ERR_NOMEM;
    void       *grp    = NULL;
    if (!nm)
        return ret;
    memcpy(nm, name, len);
    nm[len] = '\0';
    if (!(grp = tb_ix_group_below(d, a, oi, &opened, &ret)))
        goto done;
    H5L_info2_t          info;
    H5VL_loc_params_t    loc = name_loc(nm);
    H5VL_link_get_args_t lg  = {.op_type = H5VL_LINK_GET_INFO};
    lg.args.get_info.linfo   = &info;
    tb_ix_link_t              l;
    bool                      exists = true, asked = false;
    H5VL_link_specific_args_t ls     = {.op_type = H5VL_LINK_EXISTS};
    ls.args.exists.exists            = &exists;
    /* For an H5Lexists, whether the name is there first: a missing name's failed H5Lget_info
     * pushes and clears an error stack (7.9k instructions of such a look-up in wide_group.py's
     * 20,000-link group; a name that is there costs the H5Lexists more). */
    if (d->exists_first) {
        asked = true;
        if (H5VLlink_specific(grp, &loc, a->vol, &ls, H5P_DATASET_XFER_DEFAULT, NULL) < 0) {
            ret = TB_ERR_UNSUPPORTED;
            goto done;
        }
    }
    if (!exists || H5VLlink_get(grp, &loc, a->vol, &lg, H5P_DATASET_XFER_DEFAULT, NULL) < 0) {
        /* No such link, or a look-up that failed: native's H5Lexists tells them apart (false,
         * without an error, only for a missing last name). */
        ret         = TB_ERR_UNSUPPORTED;
        uint32_t gi = d->objs[oi].group;
        if (exists) {
            H5Eclear2(H5E_DEFAULT);
            if (asked || H5VLlink_specific(grp, &loc, a->vol, &ls, H5P_DATASET_XFER_DEFAULT, NULL) < 0 || exists)
                goto done;
        }
        if (gi != TB_IX_NONE && d->groups[gi].nlinks >= TB_IX_ABSENT_MAX)
            goto done;
        memset(&l, 0, sizeof(l));
        l.name     = nm;
        l.name_len = (uint32_t)len;
        l.obj      = TB_IX_NONE;
        l.absent   = 1;
    }
    else {
        /* The record as a listing makes it (collect_cb), then kept in the partial list. */
        if (collect_cb(H5I_INVALID_HID, nm, &info, &c) != H5_ITER_CONT) {
            ret = c.st;
            goto done;
        }
        if ((ret = collect_values(&c, grp, a->vol)) != TB_OK)
            goto done;
        l      = c.links[0];
        l.name = c.blob + (uintptr_t)l.name;
        if (l.type != H5L_TYPE_HARD)
            l.val = c.blob + (uintptr_t)l.val;
    }
    uint32_t gi = d->objs[oi].group;
    if (gi == TB_IX_NONE) {
        if ((ret = group_room(d)) != TB_OK)
            goto done;
        gi                = d->ngroup++;
        d->groups[gi]     = (tb_ix_group_t){.obj = oi, .partial = 1, .owned = 1}; /* (no blocks yet) */
        d->objs[oi].group = gi;
        d->objs[oi].type  = H5O_TYPE_GROUP;
    }
    if ((ret = tb_ix_group_add(&d->groups[gi], &l, k_out)) == TB_OK) {
        d->dirty = 1;
        tb_ix_stats.links_kept++;
        if (l.absent)
            *k_out = TB_IX_NONE;
    }
done:
    if (ret != TB_OK)
        H5Eclear2(H5E_DEFAULT);
    free(c.links);
    free(c.blob);
    if (nm != buf)
        free(nm);
    if (opened)
        tb_ix_close_under(grp, H5I_GROUP, a->vol);
    return ret;
}

tb_status_t
tb_ix_member_info(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, uint32_t k)
{
    bool        opened;
    tb_status_t st  = TB_ERR_HDF5;
    void       *grp = tb_ix_group_below(d, a, oi, &opened, &st);
    if (grp) {
        const tb_ix_link_t *l   = &d->groups[d->objs[oi].group].links[k];
        H5VL_loc_params_t   loc = name_loc(l->name);
        st = l->type == H5L_TYPE_HARD ? tb_ix_ask_info(d, l->obj, grp, &loc, a->vol) : TB_ERR_UNSUPPORTED;
        if (opened)
            tb_ix_close_under(grp, H5I_GROUP, a->vol);
    }
    if (st != TB_OK)
        H5Eclear2(H5E_DEFAULT);
    return st;
}

tb_status_t
tb_ix_lookup_link(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, const char *name, size_t len,
                  uint32_t *k_out)
{
    uint32_t gi = d->objs[oi].group;
    if (gi != TB_IX_NONE) {
        uint32_t k = tb_ix_link_find(&d->groups[gi], name, len);
        if (k != TB_IX_NONE || !d->groups[gi].partial) {
            if (d->groups[gi].partial)
                tb_ix_stats.partial_hits++;
            *k_out = k != TB_IX_NONE && d->groups[gi].links[k].absent ? TB_IX_NONE : k;
            return TB_OK;
        }
    }
    if (!a)
        return TB_ERR_UNSUPPORTED;
    tb_status_t st;
    uint32_t    k = 0;
    while (k < TB_IX_DEFER &&
           !(d->defer[k].obj1 == oi + 1 && memcmp(d->defer[k].token, d->objs[oi].token, TB_IX_TOKEN_NBYTES) == 0))
        k++;
    uint32_t n = k < TB_IX_DEFER ? d->defer[k].lookups + 1 : 1; /* (this look-up's count) */
    bool     big = true;
    if ((n == 1 && gi == TB_IX_NONE) || (n >= TB_IX_LOOKUP_PROBE && (n & (n - 1)) == 0)) {
        /* The first look-up, and then the TB_IX_LOOKUP_PROBE-th, twice that, ...: listed if it
         * has at most TB_IX_LOOKUP_FIRST links, or TB_IX_LOOKUP_LIST a look-up so far (the _STAB
         * limits where a try is an iteration). (A group with a partial list, from this run or a
         * sidecar's, was found larger at a first.) */
        bool     stab  = d->listed_kinds == TB_IX_KIND_STAB;
        uint64_t max   = (uint64_t)(stab ? TB_IX_LOOKUP_LIST_STAB : TB_IX_LOOKUP_LIST) * n;
        uint32_t least = stab && n == 1 ? TB_IX_LOOKUP_FIRST_STAB : TB_IX_LOOKUP_FIRST;
        if (max < least)
            max = least;
        big = false;
        st  = load_group(d, a, oi, NULL, false, max < UINT32_MAX ? (uint32_t)max : UINT32_MAX - 1, &big);
        if (!big) {
            if (st == TB_OK)
                *k_out = tb_ix_link_find(&d->groups[d->objs[oi].group], name, len);
            return st;
        }
    }
    if (k == TB_IX_DEFER) {
        k                = d->defer_next++ % TB_IX_DEFER;
        d->defer[k].obj1 = oi + 1;
        memcpy(d->defer[k].token, d->objs[oi].token, TB_IX_TOKEN_NBYTES);
    }
    d->defer[k].lookups = n;
    tb_ix_stats.lookups_left++;
    return lookup_native(d, a, oi, name, len, k_out);
}
