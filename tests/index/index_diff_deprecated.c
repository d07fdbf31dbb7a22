/* index_diff_deprecated.c — the deprecated calls of the index's differential test, as older
 * loaders and h5py make them: H5Literate1, H5Ovisit1 and H5Oget_info_by_name1, which report file
 * addresses and header details instead of tokens. */
#include "index_diff.h"

#include <stdio.h>

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

static herr_t
obj1_cb(hid_t o, const char *name, const H5O_info1_t *oi, void *op_data)
{
    const ixd_cb_t *s = op_data;
    (void)o;
    printf("  O1 %s type=%d rc=%u addr=%llu na=%llu\n", name, (int)oi->type, oi->rc,
           s->run->rw ? 0ULL : (unsigned long long)oi->addr, (unsigned long long)oi->num_attrs);
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
            if (ixd_rnd(run, 2)) { /* as h5py's visit calls it */
                printf("  H5Ovisit_by_name1 \".\"\n");
                r = H5Ovisit_by_name1(loc, ".", it, o, obj1_cb, &s, H5P_DEFAULT);
            }
            else
                r = H5Ovisit1(loc, it, o, obj1_cb, &s);
            printf("  -> r=%d\n", r);
            break;
        default: { /* IXD_OINFO1 */
            H5O_info1_t oi;
            ixd_query(run, SCENARIO, loc, name, "H5Oget_info_by_name1 of %s", name);
            r = H5Oget_info_by_name1(loc, name, &oi, H5P_DEFAULT);
            printf("Oget_info1 r=%d", r);
            if (r >= 0)
                printf(" type=%d rc=%u addr=%llu na=%llu hdr.nmesgs=%u", (int)oi.type, oi.rc,
                       run->rw ? 0ULL : (unsigned long long)oi.addr, (unsigned long long)oi.num_attrs,
                       run->rw ? 0u : oi.hdr.nmesgs);
            printf("\n");
            break;
        }
    }
}

const ixd_scenario_t ixd_deprecated = {SCENARIO, query};
