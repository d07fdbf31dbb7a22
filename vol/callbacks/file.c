/* file.c — H5F callbacks. Creating or opening a file builds the shared context (connector below,
 * configuration) and tells the subsystems (the index attaches to the file); the probes HDF5 makes
 * with no h5turbo info in the FAPL (is_accessible, delete) fall back to native underneath. A
 * read-only file closed may stay open below for its next open (file_kept.c). */
#include "tb_callbacks.h"
#include "index.h"
#include "pipeline.h"

/* Opens or creates through the connector below, and wraps the result in a fresh context. */
static void *
open_or_create(const char *name, unsigned flags, hid_t fcpl_id, hid_t fapl_id, hid_t dxpl_id, void **req,
               int create)
{
    tb_info_t *info = tb_info_from_fapl(fapl_id);
    void       *under = NULL;
    tb_obj_t  *file  = NULL;
    if (!info)
        return NULL;
    tb_below_learn(info->under_vol_id);
    /* Collective I/O is native's business: known from the driver's features at run time (the HDF5
     * that loaded us may be a parallel one whatever we were built against), asked once per open. */
    bool            mpi = tb_fapl_uses_mpi(fapl_id);
    tb_under_fapl_t under_fapl;
    /* (A file kept open below from an earlier open: shared by this one, or closed first.) */
    int   share     = tb_kept_before(name, flags, create, fapl_id, info->under_vol_id);
    bool  again     = false;
    hid_t kept_fapl = H5I_INVALID_HID; /* (the shared entry's access list, equal to fapl_id) */
    do {
        if (again)
            H5Eclear2(H5E_DEFAULT); /* (the failure of the open made with the file kept) */
        if (tb_under_fapl_begin(fapl_id, info, mpi, &under_fapl) < 0)
            goto done;
        under = create ? tb_below_file_create(info->under_vol_id, name, flags, fcpl_id, under_fapl.fapl_id, dxpl_id,
                                              req)
                       : tb_below_file_open(info->under_vol_id, name, flags, under_fapl.fapl_id, dxpl_id, req);
        if (tb_under_fapl_end(&under_fapl) < 0 && under) {
            H5VLfile_close(under, info->under_vol_id, dxpl_id, NULL);
            under = NULL;
        }
        under = tb_kept_after(share, under, info->under_vol_id, &again, &kept_fapl);
        share = -1;
    } while (again);
    if (under) {
        tb_ctx_t *ctx = tb_ctx_new(info->under_vol_id, &info->cfg);
        if (ctx) {
            ctx->file_intent = create ? (flags | H5F_ACC_RDWR) : flags;
            ctx->file_mpi    = mpi;
            if (ctx->cfg.pipeline && ctx->file_mpi) {
                /* Native filters each rank's chunks itself there (collective filtered I/O): on
                 * our engines. */
                ctx->cfg.pipeline = 0;
                if (ctx->cfg.debug)
                    fprintf(stderr, "h5turbo: %s: pipeline off (the file driver does MPI I/O)\n", name);
                tb_pipe_native_filters_install(ctx->cfg.debug);
            }
            file = tb_obj_new(under, ctx);
            if (file && !create && !(req && *req)) {
                tb_kept_opened(file, flags, fapl_id, kept_fapl);
                kept_fapl = H5I_INVALID_HID;
            }
            if (!(req && *req)) {
                /* The terminal connector's class, asked of the file (a real object) now: HDF5's
                 * "is this native?" check (the 1.8 adapters h5py's keys() and iteration call)
                 * then makes no lazy object real to ask it (services.c's get_conn_cls). */
                const H5VL_class_t *cls   = NULL;
                hid_t               saved = tb_err_save();
                if (H5VLintrospect_get_conn_cls(under, info->under_vol_id, H5VL_GET_CONN_LVL_TERM, &cls) >= 0)
                    ctx->term_cls = cls;
                tb_err_restore(saved);
            }
            tb_req_wrap(req, ctx);
            tb_ctx_unref(ctx); /* the file object holds it now */
        }
        if (!file)
            H5VLfile_close(under, info->under_vol_id, dxpl_id, NULL);
        else if (!(req && *req))
            tb_hooks_file_opened(file, name, flags, fapl_id, create);
    }
done:
    if (kept_fapl >= 0)
        H5Pclose(kept_fapl); /* (not kept again: the open failed, or was a create) */
    tb_info_release(info);
    return file;
}

static void *
file_create(const char *name, unsigned flags, hid_t fcpl_id, hid_t fapl_id, hid_t dxpl_id, void **req)
{
    return open_or_create(name, flags, fcpl_id, fapl_id, dxpl_id, req, 1);
}

static void *
file_open(const char *name, unsigned flags, hid_t fapl_id, hid_t dxpl_id, void **req)
{
    return open_or_create(name, flags, H5P_DEFAULT, fapl_id, dxpl_id, req, 0);
}

static herr_t
file_get(void *obj, H5VL_file_get_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    /* Counting and listing open objects asks each one's native form for its file: lazy objects
     * stand in without being made real (tb_index_standin). */
    int listing = args->op_type == H5VL_FILE_GET_OBJ_COUNT || args->op_type == H5VL_FILE_GET_OBJ_IDS;
    if (listing)
        tb_index_listing(1);
    /* Sizes and contents include chunks write-behind holds. */
    herr_t ret = -1;
    if (tb_enter(o, NULL, TB_USE | TB_DRAIN, dxpl_id) >= 0) {
        ret = H5VLfile_get(o->under, o->under_vol_id, args, dxpl_id, req);
        tb_req_wrap(req, o->ctx);
        if (ret >= 0 && args->op_type == H5VL_FILE_GET_FAPL && !(req && *req))
            tb_index_fapl_done(o, args->args.get_fapl.fapl_id);
    }
    if (listing)
        tb_index_listing(0);
    return ret;
}

/* is_accessible and delete carry a FAPL naming us: hand the connector below one naming it (native
 * below, called directly, takes the list as it is: tb_under_fapl_begin). */
static herr_t
file_specific_with_fapl(H5VL_file_specific_args_t *args, hid_t *fapl_slot, hid_t dxpl_id, void **req)
{
    tb_info_t *info = tb_info_from_fapl(*fapl_slot);
    herr_t      ret  = -1;
    if (!info)
        return -1;
    tb_below_learn(info->under_vol_id);
    H5VL_file_specific_args_t my = *args;
    tb_under_fapl_t           under_fapl;
    if (tb_under_fapl_begin(*fapl_slot, info, tb_fapl_uses_mpi(*fapl_slot), &under_fapl) >= 0) {
        if (my.op_type == H5VL_FILE_IS_ACCESSIBLE)
            my.args.is_accessible.fapl_id = under_fapl.fapl_id;
        else
            my.args.del.fapl_id = under_fapl.fapl_id;
        ret = H5VLfile_specific(NULL, info->under_vol_id, &my, dxpl_id, req);
        if (req && *req) {
            tb_ctx_t *ctx = tb_ctx_new(info->under_vol_id, &info->cfg);
            if (ctx) {
                tb_req_wrap(req, ctx);
                tb_ctx_unref(ctx);
            }
        }
        if (tb_under_fapl_end(&under_fapl) < 0)
            ret = -1;
    }
    tb_info_release(info);
    return ret;
}

static herr_t
file_specific(void *obj, H5VL_file_specific_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    switch (args->op_type) {
        case H5VL_FILE_IS_ACCESSIBLE:
            return file_specific_with_fapl(args, &args->args.is_accessible.fapl_id, dxpl_id, req);
        case H5VL_FILE_DELETE:
            (void)tb_kept_before(args->args.del.filename, H5F_ACC_RDWR, 1, args->args.del.fapl_id, H5I_INVALID_HID);
            return file_specific_with_fapl(args, &args->args.del.fapl_id, dxpl_id, req);
        default:
            break;
    }
    /* Flush, reopen, mount: after chunks write-behind holds. */
    if (tb_enter(o, NULL, TB_USE | TB_DRAIN, dxpl_id) < 0)
        return -1;
    ret = H5VLfile_specific(o->under, o->under_vol_id, args, dxpl_id, req);
    tb_req_wrap(req, o->ctx);
    if (ret >= 0 && args->op_type == H5VL_FILE_REOPEN && *args->args.reopen.file) {
        tb_obj_t *re = tb_obj_new(*args->args.reopen.file, o->ctx);
        if (!re) {
            H5VLfile_close(*args->args.reopen.file, o->under_vol_id, dxpl_id, NULL);
            *args->args.reopen.file = NULL;
            return -1;
        }
        *args->args.reopen.file = re;
    }
    return ret;
}

static herr_t
file_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE | TB_DRAIN, dxpl_id) < 0)
        return -1;
    herr_t ret = H5VLfile_optional(o->under, o->under_vol_id, args, dxpl_id, req);
    tb_req_wrap(req, o->ctx);
    if (ret >= 0 && args->op_type == H5VL_NATIVE_FILE_START_SWMR_WRITE)
        o->ctx->file_intent |= H5F_ACC_SWMR_WRITE; /* the pipeline leaves SWMR writers to native */
    if (ret >= 0 && (args->op_type == H5VL_NATIVE_FILE_SET_MDC_CONFIG ||
                     args->op_type == H5VL_NATIVE_FILE_START_MDC_LOGGING))
        tb_kept_forgo(o->ctx); /* (a file kept so would keep them for the next open) */
    return ret;
}

static herr_t
file_close(void *obj, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    tb_hooks_file_closing(o, dxpl_id);
    if (!req && tb_kept_keep(o)) {
        tb_obj_free(o);
        return 0;
    }
    TB_FORWARD_CLOSE(o, req, H5VLfile_close(o->under, o->under_vol_id, dxpl_id, req));
}

const H5VL_file_class_t tb_file_cls = {file_create, file_open, file_get, file_specific, file_optional, file_close};
