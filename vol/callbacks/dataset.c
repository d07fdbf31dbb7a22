/* dataset.c — H5D callbacks. Reads and writes are where the parallel chunk pipeline hooks in
 * (vol/pipeline); a lazy dataset of the index's small-dataset cache answers what it can and is
 * made real for the rest; everything else is forwarded to the connector below. */
#include "tb_callbacks.h"
#include "index.h"
#include "pipeline.h"

#include <stdlib.h>

/* HDF5 hands multi-dataset I/O as arrays of our objects; the connector below wants its own.
 * Small counts use the stack, so the common single-dataset call allocates nothing. */
#define TB_DSET_STACK 16

static void **
unwrap_dsets(size_t count, void *dset[], void *stack[TB_DSET_STACK])
{
    void **u = count <= TB_DSET_STACK ? stack : malloc(count * sizeof(void *));
    if (!u) {
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot allocate %zu dataset pointers", count);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (((tb_obj_t *)dset[i])->under_vol_id != ((tb_obj_t *)dset[0])->under_vol_id) {
            TB_PUSH("vol", TB_ERR_ARG, "multi-dataset I/O across different connectors");
            if (u != stack)
                free(u);
            return NULL;
        }
        u[i] = ((tb_obj_t *)dset[i])->under;
    }
    return u;
}

static void *
dataset_create(void *obj, const H5VL_loc_params_t *loc, const char *name, hid_t lcpl_id, hid_t type_id,
               hid_t space_id, hid_t dcpl_id, hid_t dapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE | TB_CHANGE, dxpl_id) < 0)
        return NULL;
    return tb_wrap_new(H5VLdataset_create(o->under, loc, o->under_vol_id, name, lcpl_id, type_id, space_id, dcpl_id,
                                          dapl_id, dxpl_id, req),
                       o, req);
}

static void *
dataset_open(void *obj, const H5VL_loc_params_t *loc, const char *name, hid_t dapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    tb_mpi_asked(o, 1);
    int prefix = req ? 0 : tb_index_dset_open_prefix(o, loc, name, dapl_id);
    if (prefix < 0)
        return NULL;
    tb_obj_t *w = prefix ? NULL : tb_index_open(o, loc, name, H5I_DATASET, dapl_id, NULL, dxpl_id, req);
    if (w)
        return w;
    if (tb_enter(o, NULL, TB_USE, dxpl_id) < 0)
        return NULL;
    bool own = !req && dapl_id != H5P_DEFAULT && dapl_id != H5P_DATASET_ACCESS_DEFAULT;
    for (int again = 0;; again++) {
        w       = tb_wrap_new(H5VLdataset_open(o->under, loc, o->under_vol_id, name, dapl_id, dxpl_id, req), o, req);
        int met = own && w && again == 0 ? tb_index_dset_own_apl_opened(w, name, prefix != 0) : 0;
        if (met == 0)
            break;
        if (met < 0) /* (w closed: as the open after it) */
            return NULL;
    }
    tb_index_obj_opened(w, H5I_DATASET, o, loc, name);
    return w;
}

/* Everything the pipeline does not take (ineligible datasets, asynchronous multi-dataset calls)
 * goes to the connector below as one call. `buf` is the caller's; writes only read it. */
static herr_t
forward_io(int write, size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[], hid_t file_space_id[],
           hid_t dxpl_id, void *buf[], void **req)
{
    void *stack[TB_DSET_STACK];
    /* A multi-dataset call may touch chunks write-behind holds for any of them. */
    for (size_t i = 0; i < count; i++)
        if (tb_enter(dset[i], NULL, count == 1 ? TB_USE : TB_USE | TB_DRAIN, dxpl_id) < 0)
            return -1;
    void **u = unwrap_dsets(count, dset, stack);
    if (!u)
        return -1;
    tb_obj_t *o0  = dset[0];
    herr_t    ret = write ? H5VLdataset_write(count, u, o0->under_vol_id, mem_type_id, mem_space_id, file_space_id,
                                              dxpl_id, (const void **)buf, req)
                          : H5VLdataset_read(count, u, o0->under_vol_id, mem_type_id, mem_space_id, file_space_id,
                                             dxpl_id, buf, req);
    tb_req_wrap(req, o0->ctx);
    if (u != stack)
        free(u);
    return ret;
}

/* A multi-dataset call's arguments, for forwarding one dataset of it (multi_forward). */
typedef struct multi_call {
    int    write;
    void **dset;
    hid_t *mem_type_id, *mem_space_id, *file_space_id, dxpl_id;
    void **buf;
} multi_call_t;

static herr_t
multi_forward(size_t i, void *ctx)
{
    multi_call_t *m = ctx;
    return forward_io(m->write, 1, &m->dset[i], &m->mem_type_id[i], &m->mem_space_id[i], &m->file_space_id[i],
                      m->dxpl_id, &m->buf[i], NULL);
}

/* A multi-dataset call through the pipeline: every dataset it takes at once, on the pool as one
 * set (tb_pipe_read_multi, tb_pipe_write_multi), the others forwarded one by one. */
static herr_t
multi_io(int write, size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[], hid_t file_space_id[],
         hid_t dxpl_id, void *buf[])
{
    for (size_t i = 0; i < count; i++)
        if (tb_enter(dset[i], NULL, TB_USE, dxpl_id) < 0)
            return -1;
    if (!tb_pipe_multi_distinct(count, dset, dxpl_id)) /* (native's to refuse, or to do as it does) */
        return forward_io(write, count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, NULL);
    multi_call_t m = {write, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf};
    return write ? tb_pipe_write_multi(count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id,
                                       (const void *const *)buf, multi_forward, &m)
                 : tb_pipe_read_multi(count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf,
                                      multi_forward, &m);
}

/* Whether a multi-dataset call is taken one dataset at a time (multi_io): only when the pipeline
 * may take one of them. On a file whose driver does MPI I/O the call is collective and reaches
 * native whole, as the application made it (one collective, the selection I/O mode it reports);
 * so does any call the pipeline would only forward. */
static bool
multi_split(size_t count, void *dset[])
{
    bool any = false;
    for (size_t i = 0; i < count; i++) {
        const tb_obj_t *o = dset[i];
        if (o->ctx->file_mpi)
            return false;
        any = any || o->ctx->cfg.pipeline;
    }
    return any;
}

static herr_t
dataset_read(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[], hid_t file_space_id[],
             hid_t dxpl_id, void *buf[], void **req)
{
    herr_t    pret;
    tb_obj_t *o = dset[0];
    if (count == 1 && !req && !o->under &&
        tb_index_dset_read(o, mem_type_id[0], mem_space_id[0], file_space_id[0], dxpl_id, buf[0], &pret))
        return pret;
    if (count == 1) {
        if (tb_enter(o, NULL, TB_USE, dxpl_id) < 0)
            return -1;
        if (tb_pipe_read(o, mem_type_id[0], mem_space_id[0], file_space_id[0], dxpl_id, buf[0], req, &pret))
            return pret;
    }
    else if (tb_sync_below(req, o->ctx) && multi_split(count, dset))
        return multi_io(0, count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf);
    pret = forward_io(0, count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf, req);
    if (count == 1 && pret >= 0 && !req)
        tb_index_dset_read_done(o, mem_type_id[0], mem_space_id[0], file_space_id[0], dxpl_id, buf[0]);
    return pret;
}

static herr_t
dataset_write(size_t count, void *dset[], hid_t mem_type_id[], hid_t mem_space_id[], hid_t file_space_id[],
              hid_t dxpl_id, const void *buf[], void **req)
{
    herr_t pret;
    if (count == 1) {
        if (tb_enter(dset[0], NULL, TB_USE, dxpl_id) < 0)
            return -1;
        if (tb_pipe_write(dset[0], mem_type_id[0], mem_space_id[0], file_space_id[0], dxpl_id, buf[0], req, &pret))
            return pret;
    }
    else if (tb_sync_below(req, ((tb_obj_t *)dset[0])->ctx) && multi_split(count, dset))
        return multi_io(1, count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, (void **)buf);
    return forward_io(1, count, dset, mem_type_id, mem_space_id, file_space_id, dxpl_id, (void **)buf, req);
}

static herr_t
dataset_get(void *obj, H5VL_dataset_get_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    if (!o->under && !req && tb_index_dset_get(o, args, &ret))
        return ret;
    /* (what native answers is kept for this dataset's lazy opens to come) */
    TB_FORWARD_THEN(o, TB_USE | TB_DRAIN, dxpl_id, req,
                    H5VLdataset_get(o->under, o->under_vol_id, args, dxpl_id, req), tb_index_dset_get_done(o, args));
}

static herr_t
dataset_specific(void *obj, H5VL_dataset_specific_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_FORWARD(o, TB_USE | TB_DRAIN, dxpl_id, req,
               H5VLdataset_specific(o->under, o->under_vol_id, args, dxpl_id, req));
}

/* The application's direct chunk writes go through the pipeline, which keeps their filter masks
 * right (tb_pipe_app_chunk_write); not in SWMR writers, whose readers could see a chunk between
 * its two writes, nor where the pipeline is off. */
static bool
app_chunk_write(const tb_obj_t *o, const H5VL_optional_args_t *args, void **req)
{
    return args->op_type == H5VL_NATIVE_DATASET_CHUNK_WRITE && !req && o->ctx->under_native &&
           o->ctx->cfg.pipeline && !(o->ctx->file_intent & H5F_ACC_SWMR_WRITE);
}

static herr_t
dataset_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_FORWARD(o, TB_USE | TB_DRAIN, dxpl_id, req,
               app_chunk_write(o, args, req) ? tb_pipe_app_chunk_write(o, args, dxpl_id)
                                             : H5VLdataset_optional(o->under, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
dataset_close(void *obj, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (!o->under) { /* a lazy dataset: nothing open below */
        tb_obj_free(o);
        return 0;
    }
    /* Write what write-behind holds while the dataset is open; a failure is on the error stack,
     * but the close goes on (failing it would leave the ID pointing at a released object). */
    (void)tb_enter(o, NULL, TB_DRAIN, dxpl_id);
    TB_FORWARD_CLOSE(o, req, H5VLdataset_close(o->under, o->under_vol_id, dxpl_id, req));
}

const H5VL_dataset_class_t tb_dataset_cls = {dataset_create, dataset_open,     dataset_read,     dataset_write,
                                              dataset_get,    dataset_specific, dataset_optional, dataset_close};
