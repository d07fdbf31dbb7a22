/* index_diff_visit.c — the visits and iterations of the index's differential test: H5Literate2,
 * H5Literate_by_name2, H5Lvisit2/H5Lvisit_by_name2 and H5Ovisit3/H5Ovisit_by_name3 in every index
 * type and order, from a start index, stopped or failed by the callback after a few calls; every
 * callback prints what it was handed. */
#include "index_diff.h"

#include <stdio.h>

#define SCENARIO "visits and iterations"

/* How each callback's line starts: the ID it was handed (at the first call), then a tag and the
 * name. */
static void
cb_begin(const ixd_cb_t *s, hid_t id, const char *tag, const char *name)
{
    if (s->n == 0)
        ixd_print_id(id);
    printf("  %s %s ", tag, name);
}

static herr_t
link_cb(hid_t g, const char *name, const H5L_info2_t *li, void *op_data)
{
    ixd_cb_t *s = op_data;
    cb_begin(s, g, "L", name);
    ixd_print_linfo(s->run, li);
    printf("\n");
    return ixd_stop_or_go(s);
}

static herr_t
obj_cb(hid_t o, const char *name, const H5O_info2_t *oi, void *op_data)
{
    ixd_cb_t *s = op_data;
    cb_begin(s, o, "O", name);
    ixd_print_oinfo(s->run, oi, s->fields);
    printf("\n");
    return ixd_stop_or_go(s);
}

static void
query(ixd_t *run, hid_t loc, const char *name, int kind)
{
    ixd_cb_t        s;
    herr_t          r;
    char            stop[64];
    H5_index_t      it = ixd_rnd_idx(run);
    H5_iter_order_t o  = ixd_rnd_order(run);
    switch (kind) {
        case IXD_LITERATE:
        case IXD_LITERATE_BY_NAME: {
            hsize_t idx = ixd_rnd(run, 3) == 0 ? ixd_rnd(run, 8) : 0;
            ixd_stop_rule(run, &s);
            if (kind == IXD_LITERATE)
                ixd_query(run, SCENARIO, loc, name, "H5Literate2 of the location %s, %s, from %llu, %s",
                          ixd_idx_str(it), ixd_order_str(o), (unsigned long long)idx, ixd_stop_str(&s, stop, 64));
            else
                ixd_query(run, SCENARIO, loc, name, "H5Literate_by_name2 of %s %s, %s, from %llu, %s", name,
                          ixd_idx_str(it), ixd_order_str(o), (unsigned long long)idx, ixd_stop_str(&s, stop, 64));
            printf("Literate(%d,%d,%llu)\n", it, o, (unsigned long long)idx);
            if (kind == IXD_LITERATE)
                r = H5Literate2(loc, it, o, &idx, link_cb, &s);
            else
                r = H5Literate_by_name2(loc, name, it, o, &idx, link_cb, &s, H5P_DEFAULT);
            printf("  -> r=%d idx=%llu\n", r, (unsigned long long)idx);
            break;
        }
        case IXD_LVISIT: {
            ixd_stop_rule(run, &s);
            int self = ixd_rnd(run, 2) != 0;
            ixd_query(run, SCENARIO, loc, name, "%s of %s, %s, %s, %s", self ? "H5Lvisit2" : "H5Lvisit_by_name2",
                      self ? "the location" : name, ixd_idx_str(it), ixd_order_str(o), ixd_stop_str(&s, stop, 64));
            printf("Lvisit(%d,%d)\n", it, o);
            r = self ? H5Lvisit2(loc, it, o, link_cb, &s)
                     : H5Lvisit_by_name2(loc, name, it, o, link_cb, &s, H5P_DEFAULT);
            printf("  -> r=%d\n", r);
            break;
        }
        default: { /* IXD_OVISIT */
            unsigned fields = ixd_rnd_fields(run);
            ixd_stop_rule(run, &s);
            s.fields = fields;
            int self = ixd_rnd(run, 2) != 0;
            ixd_query(run, SCENARIO, loc, name, "%s of %s, %s, %s, %s, %s", self ? "H5Ovisit3" : "H5Ovisit_by_name3",
                      self ? "the location" : name, ixd_idx_str(it), ixd_order_str(o), ixd_fields_str(fields),
                      ixd_stop_str(&s, stop, 64));
            printf("Ovisit(%d,%d,%u)\n", it, o, fields);
            r = self ? H5Ovisit3(loc, it, o, obj_cb, &s, fields)
                     : H5Ovisit_by_name3(loc, name, it, o, obj_cb, &s, fields, H5P_DEFAULT);
            printf("  -> r=%d\n", r);
            break;
        }
    }
}

const ixd_scenario_t ixd_visits = {SCENARIO, query};
