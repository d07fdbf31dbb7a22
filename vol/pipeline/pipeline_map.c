/* pipeline_map.c — chunk reads off the application's thread, for files opened read-only on the
 * sec2 driver: the file's descriptor (taken when the file is opened), the addresses of a
 * dataset's chunks (taken once, with H5Dchunk_iter, before a read or while its chunks decode, and
 * checked against a direct chunk read), and a pread of one raw chunk that any thread may do.
 * Nothing changes such a file's chunks while it is open: no writer in this process (read-only),
 * none elsewhere that HDF5 allows (not SWMR). */
#include "pipeline_int.h"
#include "tb_pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read-only sec2 files open through the connector (application's thread only). */
typedef struct tb_pipe_file {
    struct tb_pipe_file *next;
    const tb_ctx_t      *ctx;
    int                  fd;
    unsigned long        fileno;
    /* tb_pipe_file_not_ours' set: open addressing, at most half full; a zero token is an empty
     * slot (no object lies at address 0, the superblock's). */
    H5O_token_t *not_ours;
    size_t       not_ours_n, not_ours_cap;
} tb_pipe_file_t;

static tb_pipe_file_t *files;

void
tb_pipe_file_opened(tb_obj_t *file, const char *name, unsigned flags, hid_t fapl_id, int created)
{
    (void)name;
    (void)fapl_id;
    if (created || (flags & (H5F_ACC_RDWR | H5F_ACC_SWMR_READ | H5F_ACC_SWMR_WRITE)) || !file->ctx->cfg.pipeline)
        return;
    int fd = tb_file_sec2_fd(file);
    if (fd < 0)
        return;
    hid_t saved = tb_err_save();
    H5VL_loc_params_t      lp;
    H5VL_object_get_args_t oa;
    H5O_info2_t            oi;
    memset(&lp, 0, sizeof(lp));
    memset(&oa, 0, sizeof(oa));
    lp.type                 = H5VL_OBJECT_BY_SELF;
    lp.obj_type             = H5I_FILE;
    oa.op_type              = H5VL_OBJECT_GET_INFO;
    oa.args.get_info.oinfo  = &oi;
    oa.args.get_info.fields = H5O_INFO_BASIC;
    if (H5VLobject_get(file->under, &lp, file->under_vol_id, &oa, H5P_DATASET_XFER_DEFAULT, NULL) >= 0) {
        tb_pipe_file_t *f = calloc(1, sizeof(*f));
        if (f) {
            f->ctx    = file->ctx;
            f->fd     = fd;
            f->fileno = oi.fileno;
            f->next   = files;
            files     = f;
        }
    }
    tb_err_restore(saved);
}

static void
forget(const tb_ctx_t *ctx)
{
    for (tb_pipe_file_t **pp = &files; *pp;) {
        tb_pipe_file_t *f = *pp;
        if (f->ctx == ctx) {
            *pp = f->next;
            free(f->not_ours);
            free(f);
        }
        else
            pp = &f->next;
    }
}

/* The descriptor stops being ours to use once the application closes the file (HDF5 may keep it
 * open for objects still open, or close it at once). */
void
tb_pipe_file_closing(tb_obj_t *file)
{
    forget(file->ctx);
}

void
tb_pipe_ctx_release(tb_ctx_t *ctx)
{
    forget(ctx);
}

int
tb_pipe_file_fd(const tb_obj_t *o, unsigned long fileno)
{
    for (const tb_pipe_file_t *f = files; f; f = f->next)
        if (f->ctx == o->ctx && f->fileno == fileno)
            return f->fd;
    return -1;
}

/* Puts t into a set of cap slots (a power of two) with room for it: whether it was not there. */
static bool
token_put(H5O_token_t *set, size_t cap, const H5O_token_t *t)
{
    static const H5O_token_t zero;
    size_t                   i = tb_hash_token(t) & (cap - 1);
    while (memcmp(&set[i], &zero, sizeof(zero)) != 0) {
        if (memcmp(&set[i], t, sizeof(*t)) == 0)
            return false;
        i = (i + 1) & (cap - 1);
    }
    set[i] = *t;
    return true;
}

bool
tb_pipe_file_not_ours(const tb_obj_t *o, unsigned long fileno, const H5O_token_t *token, bool add)
{
    static const H5O_token_t zero;
    tb_pipe_file_t          *f = files;
    while (f && (f->ctx != o->ctx || f->fileno != fileno))
        f = f->next;
    if (!f || memcmp(token, &zero, sizeof(zero)) == 0)
        return false;
    if (!add) {
        if (!f->not_ours_n)
            return false;
        for (size_t i = tb_hash_token(token) & (f->not_ours_cap - 1);; i = (i + 1) & (f->not_ours_cap - 1)) {
            if (memcmp(&f->not_ours[i], token, sizeof(*token)) == 0)
                return true;
            if (memcmp(&f->not_ours[i], &zero, sizeof(zero)) == 0)
                return false;
        }
    }
    if (2 * (f->not_ours_n + 1) > f->not_ours_cap) {
        size_t       cap = f->not_ours_cap ? 2 * f->not_ours_cap : 16;
        H5O_token_t *set = calloc(cap, sizeof(*set));
        if (!set)
            return false; /* (not remembered: examined again next time) */
        for (size_t i = 0; i < f->not_ours_cap; i++)
            if (memcmp(&f->not_ours[i], &zero, sizeof(zero)) != 0)
                token_put(set, cap, &f->not_ours[i]);
        free(f->not_ours);
        f->not_ours     = set;
        f->not_ours_cap = cap;
    }
    f->not_ours_n += token_put(f->not_ours, f->not_ours_cap, token);
    return true;
}

/* ---- the chunk map */
typedef struct map_build {
    const tb_pipe_dset_t   *p;
    tb_pipe_map_entry_t    *e;
    size_t                  n, nstored;
    int                     bad;
    tb_pipe_map_progress_fn progress; /* a walk overlapped with decoding: told of each entry */
    void                   *progress_ctx;
} map_build_t;

size_t
tb_pipe_map_lin(const tb_pipe_dset_t *p, const hsize_t *offset)
{
    size_t lin = 0;
    for (int d = 0; d < p->rank; d++)
        lin = lin * (size_t)p->nchunk_dim[d] + (size_t)(offset[d] / p->chunk[d]);
    return lin;
}

static int
map_cb(const hsize_t *offset, unsigned filter_mask, haddr_t addr, hsize_t size, void *data)
{
    map_build_t *b   = data;
    size_t       lin = tb_pipe_map_lin(b->p, offset);
    int          out = 0; /* (an offset past the extent in some dimension: not a chunk it has) */
    for (int d = 0; d < b->p->rank; d++)
        out |= offset[d] / b->p->chunk[d] >= b->p->nchunk_dim[d];
    if (out || lin >= b->n || size == 0 || size > UINT32_MAX || addr == HADDR_UNDEF) {
        b->bad = 1;
        return H5_ITER_STOP;
    }
    b->e[lin].addr   = (uint64_t)addr;
    b->e[lin].nbytes = (uint32_t)size;
    b->e[lin].mask   = (uint32_t)filter_mask;
    b->nstored++;
    if (b->progress && !b->progress(b->progress_ctx, lin)) {
        b->bad = 1;
        return H5_ITER_STOP;
    }
    return H5_ITER_CONT;
}

/* Entries for every chunk of a dataset of extent dims, none stored (p->nchunk_dim set); NULL
 * when there are too many. */
static tb_pipe_map_entry_t *
map_alloc(tb_pipe_dset_t *p, const hsize_t *dims, size_t *n_out)
{
    size_t n = 1;
    for (int d = 0; d < p->rank; d++) {
        p->nchunk_dim[d] = (dims[d] + p->chunk[d] - 1) / p->chunk[d];
        if (p->nchunk_dim[d] == 0 || n > TB_PIPE_MAP_MAX / (size_t)p->nchunk_dim[d])
            return NULL;
        n *= (size_t)p->nchunk_dim[d];
    }
    tb_pipe_map_entry_t *e = malloc(n * sizeof(*e));
    for (size_t i = 0; e && i < n; i++) {
        e[i].addr   = UINT64_MAX;
        e[i].nbytes = 0;
        e[i].mask   = 0;
    }
    *n_out = n;
    return e;
}

/* Walks the chunk index into b->e (HDF5's H5Dchunk_iter): 1 when every entry was taken. */
static int
map_walk(tb_obj_t *o, map_build_t *b, hid_t dxpl_id)
{
    H5VL_native_dataset_optional_args_t na;
    na.chunk_iter.op      = map_cb;
    na.chunk_iter.op_data = b;
    H5VL_optional_args_t a = {.op_type = H5VL_NATIVE_DATASET_CHUNK_ITER, .args = &na};
    int ok = H5VLdataset_optional(o->under, o->under_vol_id, &a, dxpl_id, NULL) >= 0 && !b->bad;
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* Whether a pread of entry e finds the bytes native's direct chunk read of the chunk at off
 * returns (a user block or a driver with another layout would show here). The chunk's stored size
 * is asked first: HDF5 1.x's direct read takes no buffer size and reads the whole chunk, and an
 * entry that is wrong (the reason to check) may be shorter. */
static int
chunk_matches(tb_obj_t *o, const hsize_t *off, const tb_pipe_map_entry_t *e, hid_t dxpl_id, int fd)
{
    size_t   stored = 0;
    uint32_t mask   = 0;
    if (tb_pipe_chunk_stored(o, off, dxpl_id, &stored) != TB_PIPE_STORED_YES || stored != e->nbytes)
        return 0;
    uint8_t *x  = malloc(e->nbytes), *y = malloc(e->nbytes);
    int      ok = x && y && tb_pipe_chunk_read(o, off, dxpl_id, &mask, x, e->nbytes) >= 0 &&
             tb_pipe_map_pread(fd, e, y) == TB_OK && memcmp(x, y, e->nbytes) == 0 && mask == e->mask;
    free(x);
    free(y);
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

static void
offset_of(const tb_pipe_dset_t *p, size_t lin, hsize_t *off)
{
    for (int d = p->rank - 1; d >= 0; d--) {
        off[d] = (hsize_t)(lin % (size_t)p->nchunk_dim[d]) * p->chunk[d];
        lin /= (size_t)p->nchunk_dim[d];
    }
}

/* The dataset's kind of chunk index: false where native cannot say (what it pushed cleared). */
static bool
index_type(tb_obj_t *o, hid_t dxpl_id, H5D_chunk_index_t *idx_out)
{
    H5VL_native_dataset_optional_args_t ia;
    ia.get_chunk_idx_type.idx_type = idx_out;
    H5VL_optional_args_t a = {.op_type = H5VL_NATIVE_DATASET_GET_CHUNK_INDEX_TYPE, .args = &ia};
    if (H5VLdataset_optional(o->under, o->under_vol_id, &a, dxpl_id, NULL) >= 0)
        return true;
    H5Eclear2(H5E_DEFAULT);
    return false;
}

/* Whether HDF5's H5Dchunk_iter gives this dataset's chunks at their own offsets: not for an
 * extensible array index whose unlimited dimension is not the first. HDF5 1.14.5 turns their
 * coordinates back wrongly: of a (7, unlimited, 5) dataset in chunks of (4, 1, 2), the chunk at
 * (4, 0, 0) is reported at (0, 2, 0), and H5Dget_chunk_info says the same. */
static int
iter_offsets_right(tb_obj_t *o, hid_t dxpl_id)
{
    H5D_chunk_index_t idx;
    if (!index_type(o, dxpl_id, &idx))
        return 0;
    if (idx != H5D_CHUNK_IDX_EARRAY)
        return 1;
    H5VL_dataset_get_args_t g = {.op_type = H5VL_DATASET_GET_SPACE};
    g.args.get_space.space_id = H5I_INVALID_HID;
    hsize_t max[H5S_MAX_RANK];
    int     ok = H5VLdataset_get(o->under, o->under_vol_id, &g, dxpl_id, NULL) >= 0 &&
             H5Sget_simple_extent_dims(g.args.get_space.space_id, NULL, max) > 0 && max[0] == H5S_UNLIMITED;
    if (g.args.get_space.space_id >= 0)
        H5Sclose(g.args.get_space.space_id);
    H5Eclear2(H5E_DEFAULT);
    return ok; /* (an extensible array: the only unlimited dimension is the first) */
}

int
tb_pipe_map_build(tb_obj_t *o, tb_pipe_dset_t *p, const hsize_t *dims, hid_t dxpl_id, int fd)
{
    map_build_t b = {p, NULL, 0, 0, 0, NULL, NULL};
    if (!iter_offsets_right(o, dxpl_id) || !(b.e = map_alloc(p, dims, &b.n)))
        return 0;
    int ok = map_walk(o, &b, dxpl_id) && b.nstored > 0;
    /* The addresses must be where a pread finds the chunks: the first stored one is checked. */
    for (size_t i = 0; ok && i < b.n; i++) {
        if (b.e[i].addr == UINT64_MAX)
            continue;
        hsize_t off[TB_PIPE_RANK];
        offset_of(p, i, off);
        ok = chunk_matches(o, off, &b.e[i], dxpl_id, fd);
        break;
    }
    if (!ok) {
        free(b.e);
        return 0;
    }
    p->map         = b.e;
    p->map_nchunks = b.n;
    return 1;
}

int
tb_pipe_map_start(tb_obj_t *o, tb_pipe_dset_t *p, const hsize_t *dims, const hsize_t *first, hid_t dxpl_id, int fd)
{
    /* Only chunk indexes that H5Dchunk_iter walks in row-major order of the chunks: the v1 and v2
     * B-trees (ordered by the chunks' coordinates), a fixed array (by their row-major index), a
     * single chunk. An extensible array orders them by its unlimited dimension first. */
    H5D_chunk_index_t idx;
    if (!index_type(o, dxpl_id, &idx) || (idx != H5D_CHUNK_IDX_BTREE && idx != H5D_CHUNK_IDX_BT2 &&
                                          idx != H5D_CHUNK_IDX_FARRAY && idx != H5D_CHUNK_IDX_SINGLE))
        return 0;
    /* The addresses must be where a pread finds the chunks: the first chunk of the read is
     * checked (not stored: the map is built before the read instead). */
    tb_pipe_map_entry_t                 e;
    unsigned                            mask = 0;
    haddr_t                             addr = HADDR_UNDEF;
    hsize_t                             size = 0;
    H5VL_native_dataset_optional_args_t ia;
    ia.get_chunk_info_by_coord.offset      = first;
    ia.get_chunk_info_by_coord.filter_mask = &mask;
    ia.get_chunk_info_by_coord.addr        = &addr;
    ia.get_chunk_info_by_coord.size        = &size;
    H5VL_optional_args_t a = {.op_type = H5VL_NATIVE_DATASET_GET_CHUNK_INFO_BY_COORD, .args = &ia};
    if (H5VLdataset_optional(o->under, o->under_vol_id, &a, dxpl_id, NULL) < 0 || addr == HADDR_UNDEF ||
        size == 0 || size > UINT32_MAX) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    e.addr   = (uint64_t)addr;
    e.nbytes = (uint32_t)size;
    e.mask   = mask;
    if (!chunk_matches(o, first, &e, dxpl_id, fd))
        return -1;
    size_t               n;
    tb_pipe_map_entry_t *entries = map_alloc(p, dims, &n);
    if (!entries)
        return -1;
    p->map         = entries;
    p->map_nchunks = n;
    return 1;
}

int
tb_pipe_map_walk(tb_obj_t *o, tb_pipe_dset_t *p, hid_t dxpl_id, tb_pipe_map_progress_fn progress, void *ctx)
{
    map_build_t b = {p, p->map, p->map_nchunks, 0, 0, progress, ctx};
    return map_walk(o, &b, dxpl_id);
}

void
tb_pipe_map_drop(tb_pipe_dset_t *p, int state)
{
    free(p->map);
    p->map         = NULL;
    p->map_nchunks = 0;
    p->map_state   = state;
}

const tb_pipe_map_entry_t *
tb_pipe_map_find(const tb_pipe_dset_t *p, const hsize_t *offset)
{
    size_t lin = tb_pipe_map_lin(p, offset);
    if (lin >= p->map_nchunks || p->map[lin].addr == UINT64_MAX)
        return NULL;
    return &p->map[lin];
}

tb_status_t
tb_pipe_map_pread(int fd, const tb_pipe_map_entry_t *e, void *buf)
{
    size_t done = 0;
    while (done < e->nbytes) {
        ssize_t r = pread(fd, (uint8_t *)buf + done, e->nbytes - done, (off_t)(e->addr + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return TB_ERR_IO;
        done += (size_t)r;
    }
    return TB_OK;
}
