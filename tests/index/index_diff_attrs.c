/* index_diff_attrs.c — the attribute queries of the index's differential test: H5Aexists_by_name
 * and H5Aopen_by_name of names an object has or not, the attribute then used as a location, two
 * attributes open at once on an object opened by path with the IDs H5Fget_obj_ids hands out, and
 * attributes held open across H5Fclose; every open attribute is asked what loaders and h5py ask. */
#include "index_diff.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SCENARIO "attributes"

static const char *const attr_names[] = {"attr0", "attr1", "attr3", "NX_class", "vec",
                                         "big",   "vstr",  "cmp",   "dimlist",  "nope"};

const char *
ixd_random_attr_name(ixd_t *run)
{
    return attr_names[ixd_rnd(run, sizeof(attr_names) / sizeof(attr_names[0]))];
}

/* Everything an application asks of an open attribute, the way loaders and h5py do. */
void
ixd_print_attr(hid_t f, hid_t a)
{
    char       nb[1024] = "", an[8] = "";
    H5A_info_t ai;
    ssize_t    nlen = H5Aget_name(a, sizeof(an), an);
    H5Iget_name(a, nb, sizeof(nb));
    printf(" aname=%s/%zd path=%s", an, nlen, nb);
    if (H5Aget_info(a, &ai) >= 0)
        printf(" info=%d/%lld/%d/%llu", (int)ai.corder_valid, (long long)ai.corder, (int)ai.cset,
               (unsigned long long)ai.data_size);
    printf(" nobj=%zd/%zd", H5Fget_obj_count(f, H5F_OBJ_ATTR), H5Fget_obj_count(f, H5F_OBJ_ALL));
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    if (t < 0 || s < 0) {
        printf(" type/space failed\n");
        return;
    }
    hssize_t      np = H5Sget_simple_extent_npoints(s);
    size_t        ts = H5Tget_size(t);
    unsigned char buf[1024];
    /* The space's encoding: its dataspace message's version too (version 2 in "latest" files). */
    size_t en = 0;
    if (H5Sencode2(s, NULL, &en, H5P_DEFAULT) >= 0 && en <= sizeof(buf) && H5Sencode2(s, buf, &en, H5P_DEFAULT) >= 0) {
        printf(" senc=");
        for (size_t i = 0; i < en; i++)
            printf("%02x", buf[i]);
    }
    printf(" class=%d size=%zu np=%lld vstr=%d", (int)H5Tget_class(t), ts, (long long)np, (int)H5Tis_variable_str(t));
    if (np > 0 && (size_t)np * ts <= sizeof(buf) && H5Tget_class(t) != H5T_VLEN && H5Tis_variable_str(t) == 0) {
        /* In the file type and converted, as a loader reading into its own type does; every other
         * attribute converted first (the first read of a handle is the one h5turbo keeps). */
        static unsigned turn;
        bool            converted_first = turn++ % 2;
        if (!converted_first) {
            memset(buf, 0, sizeof(buf));
            printf(" read=%d:", (int)H5Aread(a, t, buf));
            for (size_t i = 0; i < (size_t)np * ts && i < 48; i++)
                printf("%02x", buf[i]);
        }
        hid_t mt = H5I_INVALID_HID;
        if (H5Tget_class(t) == H5T_INTEGER)
            mt = H5Tcopy(H5T_NATIVE_LLONG);
        else if (H5Tget_class(t) == H5T_FLOAT)
            mt = H5Tcopy(H5T_NATIVE_FLOAT);
        else if (H5Tget_class(t) == H5T_STRING) {
            mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, 4);
        }
        else if (H5Tget_class(t) == H5T_COMPOUND) {
            mt = H5Tcreate(H5T_COMPOUND, sizeof(double));
            H5Tinsert(mt, "d", 0, H5T_NATIVE_DOUBLE);
        }
        if (mt >= 0) {
            memset(buf, 0, sizeof(buf));
            printf(" conv=%d:", (int)H5Aread(a, mt, buf));
            for (size_t i = 0; i < (size_t)np * H5Tget_size(mt) && i < 48; i++)
                printf("%02x", buf[i]);
            H5Tclose(mt);
        }
        if (converted_first) {
            memset(buf, 0, sizeof(buf));
            printf(" read=%d:", (int)H5Aread(a, t, buf));
            for (size_t i = 0; i < (size_t)np * ts && i < 48; i++)
                printf("%02x", buf[i]);
        }
    }
    else if (np > 0 && np <= 8 && H5Tget_class(t) == H5T_VLEN) {
        /* references, as netCDF-C and h5py read a DIMENSION_LIST: in the attribute's own type,
         * each dereferenced (from the file) and named */
        hvl_t v[8];
        memset(v, 0, sizeof(v));
        herr_t r = H5Aread(a, t, v);
        printf(" read=%d:", (int)r);
        for (hssize_t i = 0; r >= 0 && i < np; i++) {
            printf("[%zu", v[i].len);
            for (size_t j = 0; j < v[i].len; j++) {
                hid_t o      = H5Rdereference2(f, H5P_DEFAULT, H5R_OBJECT, (hobj_ref_t *)v[i].p + j);
                char  on[256] = "";
                if (o >= 0)
                    H5Iget_name(o, on, sizeof(on));
                printf(" %s/%d", on, o >= 0 ? (int)H5Iget_type(o) : -1);
                if (o >= 0)
                    H5Oclose(o);
            }
            printf("]");
        }
        if (r >= 0)
            H5Treclaim(t, s, H5P_DEFAULT, v);
    }
    else if (np == 1 && H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        printf(" read=%d", (int)H5Aread(a, t, &v));
        printf(":%s", v ? v : "(null)");
        H5free_memory(v);
    }
    printf(" storage=%llu", (unsigned long long)H5Aget_storage_size(a));
    H5Tclose(t);
    H5Sclose(s);
}

static herr_t
aiter_cb(hid_t obj, const char *name, const H5A_info_t *ai, void *op_data)
{
    char nb[256] = "", an[256] = "";
    H5Iget_name(obj, nb, sizeof(nb));
    /* the attribute opened from the callback's ID: native names it by that ID's path */
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a >= 0) {
        H5Iget_name(a, an, sizeof(an));
        H5Aclose(a);
    }
    printf("  A %s corder=%d/%lld cset=%d size=%llu on %s (type %d) named %s\n", name, (int)ai->corder_valid,
           ai->corder_valid ? (long long)ai->corder : 0LL, (int)ai->cset, (unsigned long long)ai->data_size, nb,
           (int)H5Iget_type(obj), a >= 0 ? an : "(no open)");
    return ixd_stop_or_go(op_data);
}

/* H5Ovisit3 of an opened object, stopped at its first callback (the object itself, "."): the ID
 * native registers for it, and its name. */
static herr_t
ovisit_first_cb(hid_t obj, const char *name, const H5O_info2_t *oi, void *op_data)
{
    (void)op_data;
    char nb[256] = "";
    H5Iget_name(obj, nb, sizeof(nb));
    printf("  O %s type=%d on %s (type %d)\n", name, (int)oi->type, nb, (int)H5Iget_type(obj));
    return 1;
}

static void
query(ixd_t *run, hid_t loc, const char *name, int kind)
{
    hid_t f = run->f;
    if (kind != IXD_AOPEN_ON_OBJECT) {
        const char *an = ixd_random_attr_name(run);
        ixd_query(run, SCENARIO, loc, name, "H5Aexists_by_name and H5Aopen_by_name of %s@%s%s", name, an,
                  kind == IXD_AOPEN_AS_LOC ? ", then the attribute as a location" : "");
        printf("Aexists(%s)=%d", an, (int)H5Aexists_by_name(loc, name, an, H5P_DEFAULT));
        hid_t a = H5Aopen_by_name(loc, name, an, H5P_DEFAULT, H5P_DEFAULT);
        printf(" Aopen=%d", a >= 0);
        if (a >= 0) {
            ixd_print_attr(f, a);
            if (kind == IXD_AOPEN_AS_LOC) {
                /* The attribute as a location, after which it is the real one. */
                H5O_info2_t oi;
                printf(" Oinfo=%d", (int)H5Oget_info3(a, &oi, H5O_INFO_BASIC));
                ixd_print_oinfo(run, &oi, H5O_INFO_BASIC);
                ixd_print_attr(f, a);
            }
            H5Aclose(a);
        }
        printf("\n");
        return;
    }
    if (ixd_rnd(run, 3) == 0) {
        /* An attribute iteration of the object (H5Aiterate_by_name) or of it opened (H5Aiterate2, as
         * napi5 looks for NX_class): order, start index, where it stops, the ID each callback gets. */
        ixd_cb_t        st;
        char            stop[64];
        H5_index_t      it   = ixd_rnd_idx(run);
        H5_iter_order_t o    = ixd_rnd_order(run);
        hsize_t         idx  = (hsize_t)ixd_rnd(run, 4) / 3 * (1 + ixd_rnd(run, 3)); /* mostly 0 */
        int             self = ixd_rnd(run, 2);
        ixd_stop_rule(run, &st);
        ixd_query(run, SCENARIO, loc, name, "H5Aiterate%s of %s, %s, %s, from %llu, %s", self ? "2 (opened; then H5Ovisit3 of it)" : "_by_name",
                  name, ixd_idx_str(it), ixd_order_str(o), (unsigned long long)idx, ixd_stop_str(&st, stop, sizeof(stop)));
        hid_t g = self ? H5Oopen(loc, name, H5P_DEFAULT) : loc;
        herr_t r = g < 0 ? -1
                   : self ? H5Aiterate2(g, it, o, &idx, aiter_cb, &st)
                          : H5Aiterate_by_name(g, name, it, o, &idx, aiter_cb, &st, H5P_DEFAULT);
        printf("Aiterate r=%d idx=%llu\n", (int)r, (unsigned long long)idx);
        if (self && g >= 0) {
            printf("Ovisit r=%d\n", (int)H5Ovisit3(g, H5_INDEX_NAME, H5_ITER_INC, ovisit_first_cb, NULL, H5O_INFO_BASIC));
            H5Oclose(g);
        }
        return;
    }
    /* A group opened by path, then H5Aopen on it (BY_SELF), two attributes open at once, and the IDs
     * H5Fget_obj_ids hands out for them. */
    ixd_query(run, SCENARIO, loc, name, "H5Oopen of %s, then H5Aopen of its NX_class and attr0 at once", name);
    hid_t g = H5Oopen(loc, name, H5P_DEFAULT);
    printf("Oopen+Aopen r=%d", g >= 0);
    if (g >= 0) {
        printf(" Aexists=%d", (int)H5Aexists(g, "NX_class"));
        hid_t a1 = H5Aopen(g, "NX_class", H5P_DEFAULT), a2 = H5Aopen(g, "attr0", H5P_DEFAULT);
        printf(" a1=%d a2=%d", a1 >= 0, a2 >= 0);
        hid_t   ids[8];
        ssize_t n = H5Fget_obj_ids(f, H5F_OBJ_ATTR, 8, ids);
        printf(" ids=%zd", n);
        for (ssize_t i = 0; i < n; i++) {
            char nb[256] = "";
            H5Aget_name(ids[i], sizeof(nb), nb);
            printf(" %s", nb);
        }
        if (a1 >= 0)
            ixd_print_attr(f, a1), H5Aclose(a1);
        if (a2 >= 0)
            ixd_print_attr(f, a2), H5Aclose(a2);
        H5Oclose(g);
    }
    printf("\n");
}

const ixd_scenario_t ixd_attrs = {SCENARIO, query};

/* ------------------------------------------------------------------ held across H5Fclose */
int
ixd_attrs_late_open(ixd_t *run, const H5O_info2_t *root, ixd_late_t *late, int max)
{
    /* Not of the root group (by any path): while an attribute of that name is open on another
     * object, stock HDF5 1.14.5 opens it for the root group too, which has none. */
    int nlate = 0;
    ixd_step(SCENARIO, "after the queries", "attributes opened by path, to be held open across H5Fclose");
    for (int k = 0; k < run->npaths && nlate < max; k++) {
        const char *an = ixd_rnd(run, 2) ? "NX_class" : "attr0";
        H5O_info2_t oi;
        if (H5Oget_info_by_name3(run->f, run->paths[k], &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
            oi.fileno == run->root_fileno && memcmp(&oi.token, &root->token, sizeof(oi.token)) == 0)
            continue;
        hid_t a = H5Aopen_by_name(run->f, run->paths[k], an, H5P_DEFAULT, H5P_DEFAULT);
        if (a >= 0) {
            snprintf(late[nlate].what, sizeof(late[nlate].what), "%s@%s", run->paths[k], an);
            printf("late%d: %s of %s\n", nlate, an, run->paths[k]);
            late[nlate++].id = a;
        }
    }
    printf("late=%d\n", nlate);
    return nlate;
}

void
ixd_attrs_late_use(hid_t f, const ixd_late_t *late, int n)
{
    for (int k = 0; k < n; k++) {
        char label[48];
        snprintf(label, sizeof(label), "late attribute %d", k);
        ixd_step(SCENARIO, label, "what %s answers after H5Fclose", late[k].what);
        printf("late%d:", k);
        ixd_print_attr(f, late[k].id);
        printf("\n");
        H5Aclose(late[k].id);
    }
}
