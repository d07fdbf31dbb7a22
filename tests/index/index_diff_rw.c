/* index_diff_rw.c — the read-write modifications of the index's differential test, made between
 * queries of a read-write run: groups created, hard and soft links made, links deleted, moved and
 * copied, attributes created and deleted, objects copied; the index must drop what it holds of a
 * file this process changes. */
#include "index_diff.h"

#include <stdio.h>

/* What the draws of ixd_modify that take a source and a new path do. */
static const char *const changes[] = {"", "H5Lcreate_hard", "H5Lcreate_soft", "", "H5Lmove", "H5Lcopy", "", "",
                                      "H5Ocopy"};

void
ixd_modify(ixd_t *run, int k, int *ok)
{
    char  p[1200], label[48];
    hid_t f    = run->f;
    int   what = (int)ixd_rnd(run, 9);
    int   src  = (int)ixd_rnd(run, (uint32_t)run->npaths);
    int   grp  = ixd_random_group(run);
    ixd_child_path(run, p, sizeof(p), run->paths[grp], 1000 + k);
    snprintf(label, sizeof(label), "modification before query %d", k);
    if (what == 0)
        ixd_step(IXD_RW, label, "H5Gcreate2 of %s", p);
    else if (what == 3)
        ixd_step(IXD_RW, label, "H5Ldelete of %s", run->paths[src]);
    else if (what == 6)
        ixd_step(IXD_RW, label, "H5Acreate2 of %s@new%d", run->paths[src], k);
    else if (what == 7)
        ixd_step(IXD_RW, label, "H5Adelete_by_name of %s@attr0", run->paths[src]);
    else
        ixd_step(IXD_RW, label, "%s of %s as %s", changes[what], run->paths[src], p);
    herr_t r = -1;
    switch (what) {
        case 0: {
            int   kind;
            hid_t gcpl = ixd_random_gcpl(run, &kind);
            hid_t g    = H5Gcreate2(f, p, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            H5Pclose(gcpl);
            if (g >= 0) {
                ixd_add_path(run, p, IXD_GROUP);
                H5Gclose(g);
                r = 0;
            }
            break;
        }
        case 1:
            if ((r = H5Lcreate_hard(f, run->paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                ixd_add_path(run, p, run->kind[src]);
            break;
        case 2:
            if ((r = H5Lcreate_soft(run->paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                ixd_add_path(run, p, IXD_LINK);
            break;
        case 3:
            if (src)
                r = H5Ldelete(f, run->paths[src], H5P_DEFAULT);
            break;
        case 4:
            if (src && (r = H5Lmove(f, run->paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                ixd_add_path(run, p, run->kind[src]);
            break;
        case 5:
            if (src && (r = H5Lcopy(f, run->paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                ixd_add_path(run, p, run->kind[src]);
            break;
        case 6: {
            hid_t o = H5Oopen(f, run->paths[src], H5P_DEFAULT);
            if (o >= 0) {
                hid_t s = H5Screate(H5S_SCALAR);
                char  an[32];
                snprintf(an, sizeof(an), "new%d", k);
                hid_t a = H5Acreate2(o, an, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
                r       = a;
                if (a >= 0)
                    H5Aclose(a);
                H5Sclose(s);
                H5Oclose(o);
            }
            break;
        }
        case 7:
            r = H5Adelete_by_name(f, run->paths[src], "attr0", H5P_DEFAULT);
            break;
        default:
            if (src && (r = H5Ocopy(f, run->paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                ixd_add_path(run, p, run->kind[src]);
            break;
    }
    printf("MOD %d %s -> %s: %d\n", what, run->paths[src], p, r >= 0);
    *ok += r >= 0;
}
