/* index_diff_links.c — the link and group queries of the index's differential test: H5Lexists,
 * H5Lget_info2, H5Lget_info_by_idx2 with H5Lget_name_by_idx, H5Lget_val, H5Gget_info(_by_name) and
 * H5Gopen2, each answer printed for the transcript. */
#include "index_diff.h"

#include <stdio.h>
#include <string.h>

#define SCENARIO "links and groups"

static void
query(ixd_t *run, hid_t loc, const char *name, int kind)
{
    herr_t r;
    switch (kind) {
        case IXD_LEXISTS:
            ixd_query(run, SCENARIO, loc, name, "H5Lexists of %s", name);
            printf("Lexists=%d\n", (int)H5Lexists(loc, name, H5P_DEFAULT));
            break;
        case IXD_LINFO: {
            H5L_info2_t li;
            ixd_query(run, SCENARIO, loc, name, "H5Lget_info2 of %s", name);
            r = H5Lget_info2(loc, name, &li, H5P_DEFAULT);
            printf("Lget_info r=%d ", r);
            if (r >= 0)
                ixd_print_linfo(run, &li);
            printf("\n");
            break;
        }
        case IXD_LINFO_BY_IDX: {
            H5L_info2_t     li;
            H5_index_t      it    = ixd_rnd_idx(run);
            H5_iter_order_t o     = ixd_rnd_order(run);
            hsize_t         n     = ixd_rnd(run, 6);
            const char     *group = ixd_rnd(run, 2) ? "." : name;
            char            nb[16] = "";
            size_t          nbsize = ixd_rnd(run, 2) ? sizeof(nb) : 4;
            ixd_query(run, SCENARIO, loc, name,
                      "H5Lget_info_by_idx2 of link %llu of %s %s, %s, then H5Lget_name_by_idx of \".\" into %zu "
                      "bytes",
                      (unsigned long long)n, group, ixd_idx_str(it), ixd_order_str(o), nbsize);
            r = H5Lget_info_by_idx2(loc, group, it, o, n, &li, H5P_DEFAULT);
            printf("Lget_info_by_idx(%d,%d,%llu) r=%d ", it, o, (unsigned long long)n, r);
            if (r >= 0)
                ixd_print_linfo(run, &li);
            ssize_t len = H5Lget_name_by_idx(loc, ".", it, o, n, nb, nbsize, H5P_DEFAULT);
            printf(" name_by_idx=%zd '%s'\n", len, len >= 0 ? nb : "");
            break;
        }
        case IXD_LVAL: {
            char buf[64];
            memset(buf, 'x', sizeof(buf));
            size_t sz = ixd_rnd(run, 2) ? sizeof(buf) : 5;
            ixd_query(run, SCENARIO, loc, name, "H5Lget_val of %s into %zu bytes", name, sz);
            r = H5Lget_val(loc, name, buf, sz, H5P_DEFAULT);
            printf("Lget_val r=%d ", r);
            if (r >= 0)
                for (size_t i = 0; i < sz; i++)
                    printf("%02x", (unsigned char)buf[i]);
            printf("\n");
            break;
        }
        case IXD_GINFO: {
            H5G_info_t gi;
            int        self = ixd_rnd(run, 2) != 0;
            if (self)
                ixd_query(run, SCENARIO, loc, name, "H5Gget_info of the location");
            else
                ixd_query(run, SCENARIO, loc, name, "H5Gget_info_by_name of %s", name);
            r = self ? H5Gget_info(loc, &gi) : H5Gget_info_by_name(loc, name, &gi, H5P_DEFAULT);
            printf("Gget_info r=%d", r);
            if (r >= 0)
                printf(" st=%d n=%llu maxc=%lld m=%d", (int)gi.storage_type, (unsigned long long)gi.nlinks,
                       (long long)gi.max_corder, (int)gi.mounted);
            printf("\n");
            break;
        }
        default: { /* IXD_GOPEN */
            /* A third of them with a group access list of their own (a link traversal limit). */
            int gapl_own = ixd_rnd(run, 3) == 0;
            ixd_query(run, SCENARIO, loc, name,
                      "H5Gopen2 of %s%s, its H5Iget_name and H5Lexists(x_1) from it", name,
                      gapl_own ? " with a group access list" : "");
            hid_t gapl = H5P_DEFAULT;
            if (gapl_own) {
                gapl = H5Pcreate(H5P_GROUP_ACCESS);
                H5Pset_nlinks(gapl, 7);
            }
            hid_t g = H5Gopen2(loc, name, gapl);
            if (gapl != H5P_DEFAULT)
                H5Pclose(gapl);
            printf("Gopen r=%d", g >= 0);
            if (g >= 0) {
                char nb[1024] = "";
                H5Iget_name(g, nb, sizeof(nb));
                printf(" name=%s exists(x)=%d", nb, (int)H5Lexists(g, "x_1", H5P_DEFAULT));
                H5Gclose(g);
            }
            printf("\n");
            break;
        }
    }
}

const ixd_scenario_t ixd_links = {SCENARIO, query};
