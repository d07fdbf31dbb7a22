/* pipeline_map.c — chunk reads off the application's thread, for files opened read-only on the
 * sec2 driver: the file's descriptor (taken when the file is opened), the addresses of a
 * dataset's chunks (taken once, with H5Dchunk_iter, and checked against a direct chunk read), and
 * a pread of one raw chunk that any thread may do. Nothing changes such a file's chunks while it
 * is open: no writer in this process (read-only), none elsewhere that HDF5 allows (not SWMR). */
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

/* ---- the chunk map */
typedef struct map_build {
    const tb_pipe_dset_t *p;
    tb_pipe_map_entry_t  *e;
    size_t                 n, nstored;
    int                    bad;
} map_build_t;

static int
map_cb(const hsize_t *offset, unsigned filter_mask, haddr_t addr, hsize_t size, void *data)
{
    map_build_t *b   = data;
    size_t       lin = 0;
    for (int d = 0; d < b->p->rank; d++)
        lin = lin * (size_t)b->p->nchunk_dim[d] + (size_t)(offset[d] / b->p->chunk[d]);
    if (lin >= b->n || size == 0 || size > UINT32_MAX || addr == HADDR_UNDEF) {
        b->bad = 1;
        return H5_ITER_STOP;
    }
    b->e[lin].addr   = (uint64_t)addr;
    b->e[lin].nbytes = (uint32_t)size;
    b->e[lin].mask   = (uint32_t)filter_mask;
    b->nstored++;
    return H5_ITER_CONT;
}

int
tb_pipe_map_build(tb_obj_t *o, tb_pipe_dset_t *p, const hsize_t *dims, hid_t dxpl_id, int fd)
{
    size_t n = 1;
    for (int d = 0; d < p->rank; d++) {
        p->nchunk_dim[d] = (dims[d] + p->chunk[d] - 1) / p->chunk[d];
        if (p->nchunk_dim[d] == 0 || n > TB_PIPE_MAP_MAX / (size_t)p->nchunk_dim[d])
            return 0;
        n *= (size_t)p->nchunk_dim[d];
    }
    map_build_t b = {p, calloc(n, sizeof(tb_pipe_map_entry_t)), n, 0, 0};
    if (!b.e)
        return 0;
    for (size_t i = 0; i < n; i++)
        b.e[i].addr = UINT64_MAX;
    H5VL_native_dataset_optional_args_t na;
    na.chunk_iter.op      = map_cb;
    na.chunk_iter.op_data = &b;
    H5VL_optional_args_t a = {.op_type = H5VL_NATIVE_DATASET_CHUNK_ITER, .args = &na};
    int ok = H5VLdataset_optional(o->under, o->under_vol_id, &a, dxpl_id, NULL) >= 0 && !b.bad && b.nstored > 0;
    /* The addresses must be where a pread finds the chunks: check one against native's direct
     * chunk read (a user block or a driver with another layout would show here). */
    for (size_t i = 0; ok && i < n; i++) {
        if (b.e[i].addr == UINT64_MAX)
            continue;
        hsize_t off[TB_PIPE_RANK];
        size_t  lin = i;
        for (int d = p->rank - 1; d >= 0; d--) {
            off[d] = (hsize_t)(lin % (size_t)p->nchunk_dim[d]) * p->chunk[d];
            lin /= (size_t)p->nchunk_dim[d];
        }
        uint8_t *x = malloc(b.e[i].nbytes), *y = malloc(b.e[i].nbytes);
        H5VL_native_dataset_optional_args_t ra;
        ra.chunk_read.offset  = off;
        ra.chunk_read.filters = 0;
        ra.chunk_read.buf     = x;
#if H5_VERS_MAJOR >= 2
        size_t x_nbytes        = b.e[i].nbytes;
        ra.chunk_read.buf_size = &x_nbytes; /* 2.x: the buffer's size in, the chunk's size out */
#endif
        H5VL_optional_args_t r = {.op_type = H5VL_NATIVE_DATASET_CHUNK_READ, .args = &ra};
        ok = x && y && H5VLdataset_optional(o->under, o->under_vol_id, &r, dxpl_id, NULL) >= 0 &&
             tb_pipe_map_pread(fd, &b.e[i], y) == TB_OK && memcmp(x, y, b.e[i].nbytes) == 0 &&
             ra.chunk_read.filters == b.e[i].mask;
        free(x);
        free(y);
        break;
    }
    H5Eclear2(H5E_DEFAULT);
    if (!ok) {
        free(b.e);
        return 0;
    }
    p->map        = b.e;
    p->map_nchunks = n;
    return 1;
}

const tb_pipe_map_entry_t *
tb_pipe_map_find(const tb_pipe_dset_t *p, const hsize_t *offset)
{
    size_t lin = 0;
    for (int d = 0; d < p->rank; d++)
        lin = lin * (size_t)p->nchunk_dim[d] + (size_t)(offset[d] / p->chunk[d]);
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
