/* index_diff_deprecated.c — the deprecated calls of the index's differential test, as older
 * loaders, h5py and PyTables make them: H5Literate1, H5Ovisit1 (and H5Ovisit2 with some of its
 * fields), H5Oget_info_by_name1, H5Gget_objinfo and H5Lget_info1, which report file addresses and
 * header details instead of tokens, and the native info (H5Oget_native_info) those header details
 * come from. */
#include "index_diff.h"

#include <stdio.h>
#include <string.h>

#define SCENARIO "deprecated calls"

static herr_t
link1_cb(hid_t g, const char *name, const H5L_info1_t *li, void *op_data)
{
    const ixd_cb_t *s = op_data;
    (void)g;
    printf("  L1 %s type=%d addr=%llu\n", name, (int)li->type,
           li->type == H5L_TYPE_HARD && !s->run->rw ? (unsigned long long)li->u.address : 0ULL);
    return ixd_stop_or_go(op_data);
}

/* The header and metadata sizes (H5O_hdr_info_t, H5_ih_info_t) of the 1.8 info and of native
 * info, every field; read-only runs only (HDF5 rewrites headers it reads in a read-write run). */
static void
print_native(const ixd_t *run, const H5O_hdr_info_t *h, const H5_ih_info_t *obj, const H5_ih_info_t *attr)
{
    if (run->rw)
        return;
    if (h)
        printf(" hdr=v%u/%u/%u/%#x space=%llu/%llu/%llu/%llu mesg=%#llx/%#llx", h->version, h->nmesgs, h->nchunks,
               h->flags, (unsigned long long)h->space.total, (unsigned long long)h->space.meta,
               (unsigned long long)h->space.mesg, (unsigned long long)h->space.free,
               (unsigned long long)h->mesg.present, (unsigned long long)h->mesg.shared);
    if (obj)
        printf(" meta=%llu/%llu/%llu/%llu", (unsigned long long)obj->index_size, (unsigned long long)obj->heap_size,
               (unsigned long long)attr->index_size, (unsigned long long)attr->heap_size);
}

void
ixd_print_stat(const ixd_t *run, herr_t r, const H5G_stat_t *sb)
{
    printf(" Gget_objinfo r=%d", r);
    if (r < 0)
        return;
    printf(" fileno=%s type=%d nlink=%u linklen=%zu", sb->fileno[0] == run->root_fileno ? "same" : "other",
           (int)sb->type, sb->nlink, sb->linklen);
    if (!run->rw) /* (a read-write run changes headers and their times) */
        printf(" objno=%lu/%lu mtime=%lld ohdr=%llu/%llu/%u/%u", sb->objno[0], sb->objno[1], (long long)sb->mtime,
               (unsigned long long)sb->ohdr.size, (unsigned long long)sb->ohdr.free, sb->ohdr.nmesgs,
               sb->ohdr.nchunks);
}

static herr_t
obj1_cb(hid_t o, const char *name, const H5O_info1_t *oi, void *op_data)
{
    const ixd_cb_t *s = op_data;
    (void)o;
    printf("  O1 %s type=%d rc=%u addr=%llu na=%llu", name, (int)oi->type, oi->rc,
           s->run->rw ? 0ULL : (unsigned long long)oi->addr, (unsigned long long)oi->num_attrs);
    print_native(s->run, &oi->hdr, &oi->meta_size.obj, &oi->meta_size.attr);
    printf("\n");
    return ixd_stop_or_go(op_data);
}

/* The draws of a deprecated walk from the location (its callback's stop rule, then index type and
 * order), its header, and its first line, "Literate1(...)" for "H5Literate1". */
static void
walk_begin(ixd_t *run, hid_t loc, const char *name, const char *call, ixd_cb_t *s, H5_index_t *it,
           H5_iter_order_t *o)
{
    char stop[64];
    ixd_stop_rule(run, s);
    *it = ixd_rnd_idx(run);
    *o  = ixd_rnd_order(run);
    ixd_query(run, SCENARIO, loc, name, "%s of the location %s, %s, %s", call, ixd_idx_str(*it), ixd_order_str(*o),
              ixd_stop_str(s, stop, sizeof(stop)));
    printf("%s(%d,%d)\n", call + 2, *it, *o);
}

static void
query(ixd_t *run, hid_t loc, const char *name, int kind)
{
    ixd_cb_t        s;
    herr_t          r;
    H5_index_t      it;
    H5_iter_order_t o;
    switch (kind) {
        case IXD_LITERATE1: {
            hsize_t idx = 0;
            walk_begin(run, loc, name, "H5Literate1", &s, &it, &o);
            r = H5Literate1(loc, it, o, &idx, link1_cb, &s);
            printf("  -> r=%d idx=%llu\n", r, (unsigned long long)idx);
            break;
        }
        case IXD_OVISIT1:
            walk_begin(run, loc, name, "H5Ovisit1", &s, &it, &o);
            switch (ixd_rnd(run, 3)) {
                case 0: /* as h5py's visit calls it */
                    printf("  H5Ovisit_by_name1 \".\"\n");
                    r = H5Ovisit_by_name1(loc, ".", it, o, obj1_cb, &s, H5P_DEFAULT);
                    break;
                case 1:
                    r = H5Ovisit1(loc, it, o, obj1_cb, &s);
                    break;
                default: { /* some of the fields: the adapter asks the halves of native info they name */
                    static const unsigned vf[] = {H5O_INFO_BASIC | H5O_INFO_HDR, H5O_INFO_META_SIZE | H5O_INFO_NUM_ATTRS,
                                                  H5O_INFO_BASIC | H5O_INFO_TIME, H5O_INFO_ALL};
                    unsigned              f    = vf[ixd_rnd(run, 4)];
                    printf("  H5Ovisit2 fields=%#x\n", f);
                    r = H5Ovisit2(loc, it, o, obj1_cb, &s, f);
                }
            }
            printf("  -> r=%d\n", r);
            break;
        default: { /* IXD_OINFO1, and the native info it is made of */
            if (ixd_rnd(run, 3) == 0) {
                static const unsigned nf[] = {H5O_NATIVE_INFO_HDR, H5O_NATIVE_INFO_META_SIZE, H5O_NATIVE_INFO_ALL};
                unsigned          fl       = nf[ixd_rnd(run, 3)];
                int               self     = ixd_rnd(run, 4) == 0;
                H5O_native_info_t ni;
                memset(&ni, 0xab, sizeof(ni)); /* (native zeroes the half not asked for) */
                ixd_query(run, SCENARIO, loc, name, "H5Oget_native_info%s(%u) of %s", self ? "" : "_by_name", fl,
                          self ? "the location" : name);
                r = self ? H5Oget_native_info(loc, &ni, fl) : H5Oget_native_info_by_name(loc, name, &ni, fl, H5P_DEFAULT);
                printf("Oget_native_info(%u) r=%d", fl, r);
                if (r >= 0)
                    print_native(run, &ni.hdr, &ni.meta_size.obj, &ni.meta_size.attr);
                printf("\n");
                break;
            }
            H5O_info1_t oi;
            /* (and H5Gget_objinfo of the same name, following its last link or not: no draw, so
             * that a seed tests what it always did) */
            int follow = (int)(strlen(name) % 2);
            ixd_query(run, SCENARIO, loc, name, "H5Oget_info_by_name1 of %s, then H5Gget_objinfo of it (follow_link %d)",
                      name, follow);
            r = H5Oget_info_by_name1(loc, name, &oi, H5P_DEFAULT);
            printf("Oget_info1 r=%d", r);
            if (r >= 0) {
                printf(" type=%d rc=%u addr=%llu na=%llu", (int)oi.type, oi.rc,
                       run->rw ? 0ULL : (unsigned long long)oi.addr, (unsigned long long)oi.num_attrs);
                print_native(run, &oi.hdr, &oi.meta_size.obj, &oi.meta_size.attr);
                /* The same of the object opened (no draw): h5py's h5o.get_info(obj.id) and
                 * len(obj.attrs), of a lazy object on a second open of a read-only file. */
                hid_t       obj = H5Oopen(loc, name, H5P_DEFAULT);
                H5O_info1_t si;
                herr_t      rs = obj >= 0 ? H5Oget_info1(obj, &si) : -1;
                printf(" self r=%d", rs);
                if (rs >= 0) {
                    printf(" type=%d rc=%u addr=%llu na=%llu", (int)si.type, si.rc,
                           run->rw ? 0ULL : (unsigned long long)si.addr, (unsigned long long)si.num_attrs);
                    print_native(run, &si.hdr, &si.meta_size.obj, &si.meta_size.attr);
                }
                if (obj >= 0)
                    H5Oclose(obj);
            }
            H5G_stat_t sb;
            r = H5Gget_objinfo(loc, name, (hbool_t)follow, &sb);
            ixd_print_stat(run, r, &sb);
            if (r < 0)
                ixd_print_innermost_error();
            /* And H5Lget_info1 of it (no draw): PyTables' Group._g_get_objinfo, whose address
             * comes from the location's native object. */
            H5L_info1_t l1;
            r = H5Lget_info1(loc, name, &l1, H5P_DEFAULT);
            printf(" Lget_info1 r=%d", r);
            if (r >= 0)
                printf(" type=%d cset=%d addr=%llu", (int)l1.type, (int)l1.cset,
                       l1.type == H5L_TYPE_HARD && !run->rw ? (unsigned long long)l1.u.address : 0ULL);
            printf("\n");
            break;
        }
    }
}

const ixd_scenario_t ixd_deprecated = {SCENARIO, query};
