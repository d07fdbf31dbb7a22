/* info.c — the connector's info: "under_vol=<value|name>;under_info={...};threads=8;index=off".
 * Parsing, printing, copying and comparing, and getting it (or the default) from a FAPL. */
#include "tb_callbacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tb_info_t *
info_alloc_default(void)
{
    tb_info_t *info = calloc(1, sizeof(*info));
    if (!info)
        return NULL;
    info->under_vol_id = H5VL_NATIVE;
    H5Iinc_ref(info->under_vol_id);
    tb_config_defaults(&info->cfg);
    return info;
}

static void *
info_copy(const void *src_v)
{
    const tb_info_t *src = src_v;
    tb_info_t       *dst;
    if (!src)
        return info_alloc_default();
    if (!(dst = calloc(1, sizeof(*dst)))) {
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot copy connector info");
        return NULL;
    }
    dst->under_vol_id = src->under_vol_id;
    dst->cfg          = src->cfg;
    H5Iinc_ref(dst->under_vol_id);
    if (src->under_vol_info &&
        H5VLcopy_connector_info(dst->under_vol_id, &dst->under_vol_info, src->under_vol_info) < 0) {
        H5Idec_ref(dst->under_vol_id);
        free(dst);
        return NULL;
    }
    return dst;
}

static herr_t
info_cmp(int *cmp_out, const void *a_v, const void *b_v)
{
    const tb_info_t *a = a_v, *b = b_v;
    *cmp_out = 0;
    if (!a || !b) {
        *cmp_out = (a != NULL) - (b != NULL);
        return 0;
    }
    if (H5VLcmp_connector_cls(cmp_out, a->under_vol_id, b->under_vol_id) < 0)
        return -1;
    if (*cmp_out)
        return 0;
    if (H5VLcmp_connector_info(cmp_out, a->under_vol_id, a->under_vol_info, b->under_vol_info) < 0)
        return -1;
    if (*cmp_out)
        return 0;
    *cmp_out = memcmp(&a->cfg, &b->cfg, sizeof(a->cfg));
    return 0;
}

static herr_t
info_free(void *info_v)
{
    tb_info_t *info = info_v;
    if (!info)
        return 0;
    hid_t saved = tb_err_save();
    if (info->under_vol_info)
        H5VLfree_connector_info(info->under_vol_id, info->under_vol_info);
    H5Idec_ref(info->under_vol_id);
    tb_err_restore(saved);
    free(info);
    return 0;
}

static herr_t
info_to_str(const void *info_v, char **str_out)
{
    const tb_info_t  *info        = info_v;
    H5VL_class_value_t under_value = H5_VOL_NATIVE;
    char              *under_str   = NULL;
    char               opts[256];
    if (!info) {
        *str_out = NULL;
        return 0;
    }
    if (H5VLget_value(info->under_vol_id, &under_value) < 0)
        return -1;
    if (H5VLconnector_info_to_str(info->under_vol_info, info->under_vol_id, &under_str) < 0)
        return -1;
    size_t olen = tb_config_to_str(&info->cfg, opts, sizeof(opts));
    size_t n    = 64 + (under_str ? strlen(under_str) : 0) + olen;
    *str_out    = H5allocate_memory(n, 0);
    if (!*str_out) {
        H5free_memory(under_str);
        return -1;
    }
    snprintf(*str_out, n, "under_vol=%u;under_info={%s}%s%s", (unsigned)under_value,
             under_str ? under_str : "", olen ? ";" : "", olen ? opts : "");
    H5free_memory(under_str);
    return 0;
}

/* The connector below, by value or name. HDF5's built-in pass-through (value 1) is not found by
 * H5VLregister_connector_by_value until something registered it, so register it here. */
static hid_t
load_connector(const char *name, int by_value, H5VL_class_value_t value)
{
#ifdef H5VL_PASSTHRU_VALUE
    if ((by_value && value == H5VL_PASSTHRU_VALUE) || (!by_value && strcmp(name, "pass_through") == 0)) {
        hid_t id = H5VL_PASSTHRU;
        if (id >= 0)
            H5Iinc_ref(id);
        return id;
    }
#endif
    return by_value ? H5VLregister_connector_by_value(value, H5P_DEFAULT)
                    : H5VLregister_connector_by_name(name, H5P_DEFAULT);
}

/* Finds the '}' matching the '{' at s[0]; NULL if unbalanced. */
static const char *
match_brace(const char *s)
{
    int depth = 0;
    for (; *s; s++) {
        if (*s == '{')
            depth++;
        else if (*s == '}' && --depth == 0)
            return s;
    }
    return NULL;
}

static herr_t
str_to_info(const char *str, void **info_out)
{
    tb_info_t *info       = calloc(1, sizeof(*info));
    char       *under_str  = NULL;
    int         have_under = 0;
    char        errmsg[256];
    if (!info) {
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot allocate connector info");
        return -1;
    }
    info->under_vol_id = H5I_INVALID_HID;
    tb_config_defaults(&info->cfg);
    const char *p = str ? str : "";
    while (*p) {
        while (*p == ';' || *p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        const char *eq = p;
        while (*eq && *eq != '=' && *eq != ';')
            eq++;
        if (*eq != '=') {
            TB_PUSH("vol", TB_ERR_ARG, "malformed h5turbo option '%.*s' (expected key=value)", (int)(eq - p), p);
            goto fail;
        }
        size_t      klen = (size_t)(eq - p);
        const char *v    = eq + 1, *vend;
        if (*v == '{') {
            const char *close = match_brace(v);
            if (!close) {
                TB_PUSH("vol", TB_ERR_ARG, "unbalanced braces in h5turbo option '%.*s'", (int)klen, p);
                goto fail;
            }
            vend = close + 1;
        }
        else {
            vend = v;
            while (*vend && *vend != ';')
                vend++;
        }
        if (klen == 9 && strncmp(p, "under_vol", 9) == 0) {
            char  name[128];
            char *end;
            size_t vlen = (size_t)(vend - v);
            if (vlen == 0 || vlen >= sizeof(name)) {
                TB_PUSH("vol", TB_ERR_ARG, "invalid under_vol value");
                goto fail;
            }
            memcpy(name, v, vlen);
            name[vlen]      = '\0';
            unsigned long n = strtoul(name, &end, 10);
            if (info->under_vol_id >= 0)
                H5Idec_ref(info->under_vol_id);
            info->under_vol_id = load_connector(name, *end == '\0', (H5VL_class_value_t)n);
            if (info->under_vol_id < 0) {
                TB_PUSH("vol", TB_ERR_ARG, "cannot load the connector below h5turbo: under_vol=%s", name);
                goto fail;
            }
            have_under = 1;
        }
        else if (klen == 10 && strncmp(p, "under_info", 10) == 0) {
            const char *b = v, *e = vend;
            if (*b == '{') {
                b++;
                e--;
            }
            free(under_str);
            under_str = strndup(b, (size_t)(e - b));
            if (!under_str)
                goto fail;
        }
        else if (tb_config_set(&info->cfg, p, klen, v, (size_t)(vend - v), errmsg, sizeof(errmsg)) < 0) {
            TB_PUSH("vol", TB_ERR_ARG, "%s", errmsg);
            goto fail;
        }
        p = vend;
    }
    if (!have_under) {
        info->under_vol_id = H5VL_NATIVE;
        H5Iinc_ref(info->under_vol_id);
    }
    if (under_str && *under_str &&
        H5VLconnector_str_to_info(under_str, info->under_vol_id, &info->under_vol_info) < 0) {
        TB_PUSH("vol", TB_ERR_ARG, "the connector below h5turbo rejected under_info={%s}", under_str);
        goto fail;
    }
    free(under_str);
    *info_out = info;
    return 0;
fail:
    free(under_str);
    if (info->under_vol_id >= 0)
        H5Idec_ref(info->under_vol_id);
    free(info);
    return -1;
}

const H5VL_info_class_t tb_info_cls = {sizeof(tb_info_t), info_copy, info_cmp, info_free, info_to_str, str_to_info};

tb_info_t *
tb_info_from_fapl(hid_t fapl_id)
{
    tb_info_t *info = NULL;
    if (H5Pget_vol_info(fapl_id, (void **)&info) < 0)
        return NULL;
    if (!info)
        info = info_alloc_default();
    if (!info)
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot allocate connector info");
    return info;
}

void
tb_info_release(tb_info_t *info)
{
    info_free(info);
}

/* H5VLfile_open and the file-specific calls pick the connector to call from the access list's VOL
 * property, so the list handed below must name the connector below, not us. The pass-through way
 * (H5VLpassthru.c's) is a copy of the list with the property changed; but copying a list runs the
 * copy callback of every property, and the MPI-IO driver's duplicates the communicator (an
 * MPI_Comm_dup: a collective, one per open that stock HDF5 does not make). For a list whose driver
 * does MPI I/O the application's own list is changed in place instead, for the duration of the
 * call, and its VOL property (our ID, the very info it held) put back after it: native reads the
 * property only to choose the connector (the file keeps its own copy of the list, as in a stock
 * run). HDF5's default access list is never changed; it carries a communicator only when
 * HDF5_DRIVER names an MPI driver, and is copied then. */
int
tb_under_fapl_begin(hid_t fapl_id, const tb_info_t *info, bool mpi, tb_under_fapl_t *u_out)
{
    u_out->fapl_id    = H5I_INVALID_HID;
    u_out->our_vol_id = H5I_INVALID_HID;
    u_out->our_info   = NULL;
    u_out->borrowed   = false;
    /* Native below is called through its own class (below.h) or by its ID, and it reads no VOL
     * property of the list (the file's connector comes from the API context, and the access list
     * HDF5 hands back for the file names the file's connector, whatever the list held): the list
     * goes as it is, sparing a copy and a close (about 40k instructions an open, as much again
     * for every H5Fis_accessible, which h5py's is_hdf5 and silx ask before each open). */
    if (info->under_vol_id == tb_below_native_id && tb_below_native_id >= 0) {
        u_out->fapl_id  = fapl_id;
        u_out->borrowed = true;
        return 0;
    }
    if (mpi && fapl_id != H5P_DEFAULT && fapl_id != H5P_FILE_ACCESS_DEFAULT) {
        hid_t our = H5I_INVALID_HID;
        if (H5Pget_vol_id(fapl_id, &our) < 0)
            return -1;
        void *our_info = NULL;
        if (H5Pget_vol_info(fapl_id, &our_info) < 0) {
            H5Idec_ref(our);
            return -1;
        }
        if (H5Pset_vol(fapl_id, info->under_vol_id, info->under_vol_info) < 0) {
            info_free(our_info);
            H5Idec_ref(our);
            return -1;
        }
        u_out->fapl_id    = fapl_id;
        u_out->our_vol_id = our;
        u_out->our_info   = our_info;
        return 0;
    }
    hid_t under = H5Pcopy(fapl_id);
    if (under < 0)
        return -1;
    if (H5Pset_vol(under, info->under_vol_id, info->under_vol_info) < 0) {
        H5Pclose(under);
        return -1;
    }
    u_out->fapl_id = under;
    return 0;
}

int
tb_under_fapl_end(tb_under_fapl_t *u)
{
    int ret = 0;
    if (u->fapl_id < 0 || u->borrowed) {
        u->fapl_id = H5I_INVALID_HID;
        return 0;
    }
    hid_t saved = tb_err_save();
    if (u->our_vol_id >= 0) {
        /* Our info is copied in by our own info class (info_copy), NULL kept NULL. */
        if (H5Pset_vol(u->fapl_id, u->our_vol_id, u->our_info) < 0)
            ret = -1;
        info_free(u->our_info);
        H5Idec_ref(u->our_vol_id);
    }
    else
        H5Pclose(u->fapl_id);
    tb_err_restore(saved);
    if (ret < 0)
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot give the file access list its VOL connector (h5turbo) back");
    u->fapl_id    = H5I_INVALID_HID;
    u->our_vol_id = H5I_INVALID_HID;
    u->our_info   = NULL;
    return ret;
}
