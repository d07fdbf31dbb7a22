/* index_diff_objects.c — the object info and open queries of the index's differential test:
 * H5Oget_info3 (by name or of the location) and H5Oget_info_by_idx3 with every field set,
 * H5Oexists_by_name, and H5Oopen / H5Dopen2 / H5Topen2 with the name H5Iget_name then reports and
 * an attribute opened from the object. */
#include "index_diff.h"

#include <stdio.h>

#define SCENARIO "object info"

/* A creation property list as the application sees it (closed here): every property, through its
 * encoding, and the attribute creation order. */
static void
print_cpl(hid_t cpl)
{
    printf(" cpl=%d", cpl >= 0);
    if (cpl < 0)
        return;
    unsigned      aco = 0;
    size_t        n   = 0;
    unsigned char enc[2048];
    herr_t        ar  = H5Pget_attr_creation_order(cpl, &aco);
    uint64_t      h   = 1469598103934665603ull;
    if (H5Pencode2(cpl, NULL, &n, H5P_DEFAULT) >= 0 && n <= sizeof(enc) && H5Pencode2(cpl, enc, &n, H5P_DEFAULT) >= 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ enc[i]) * 1099511628211ull;
    hid_t pc = H5Pget_class(cpl);
    printf(" aco=%d:%u class=%d enc=%zu:%016llx", (int)ar, aco, H5Pequal(pc, H5P_GROUP_CREATE) > 0, n,
           (unsigned long long)h);
    H5Pclose_class(pc);
    H5Pclose(cpl);
}

static void
query(ixd_t *run, hid_t loc, const char *name, int kind)
{
    herr_t r;
    switch (kind) {
        case IXD_OINFO: {
            H5O_info2_t oi;
            unsigned    fl      = ixd_rnd_fields(run);
            int         by_name = ixd_rnd(run, 2) != 0;
            if (by_name)
                ixd_query(run, SCENARIO, loc, name, "H5Oget_info_by_name3 of %s, %s", name, ixd_fields_str(fl));
            else
                ixd_query(run, SCENARIO, loc, name, "H5Oget_info3 of the location, %s", ixd_fields_str(fl));
            r = by_name ? H5Oget_info_by_name3(loc, name, &oi, fl, H5P_DEFAULT) : H5Oget_info3(loc, &oi, fl);
            printf("Oget_info(%u) r=%d ", fl, r);
            if (r >= 0)
                ixd_print_oinfo(run, &oi, fl);
            printf("\n");
            break;
        }
        case IXD_OINFO_BY_IDX: {
            H5O_info2_t     oi;
            unsigned        fl    = ixd_rnd_fields(run);
            H5_index_t      it    = ixd_rnd_idx(run);
            H5_iter_order_t o     = ixd_rnd_order(run);
            hsize_t         n     = ixd_rnd(run, 5);
            const char     *group = ixd_rnd(run, 2) ? "." : name;
            ixd_query(run, SCENARIO, loc, name, "H5Oget_info_by_idx3 of link %llu of %s %s, %s, %s",
                      (unsigned long long)n, group, ixd_idx_str(it), ixd_order_str(o), ixd_fields_str(fl));
            r = H5Oget_info_by_idx3(loc, group, it, o, n, &oi, fl, H5P_DEFAULT);
            printf("Oget_info_by_idx(%d,%d,%llu,%u) r=%d ", it, o, (unsigned long long)n, fl, r);
            if (r >= 0)
                ixd_print_oinfo(run, &oi, fl);
            printf("\n");
            break;
        }
        case IXD_OEXISTS:
            ixd_query(run, SCENARIO, loc, name, "H5Oexists_by_name of %s", name);
            printf("Oexists=%d\n", (int)H5Oexists_by_name(loc, name, H5P_DEFAULT));
            break;
        case IXD_OOPEN: {
            /* Half the time as h5py opens f[name] and reads obj.attrs.get(...): a link access list
             * of its own (an external link file access list set), H5Oget_info1, and attributes by
             * H5Aopen_by_name(obj, ".", ...), one of them missing (h5py's KeyError comes from
             * the innermost error, printed here). */
            int as_h5py = ixd_rnd(run, 2) != 0;
            /* Else one of the other ways to it: by name; the n-th link in it, by index
             * (H5Oopen_by_idx); by its token (H5Oopen_by_token); through an object reference. */
            static const char *const ways[4] = {"H5Oopen", "H5Oopen_by_idx", "H5Oopen_by_token", "H5Ropen_object"};
            int             way = as_h5py ? 0 : ixd_rnd(run, 4);
            H5_index_t      bit = ixd_rnd_idx(run);
            H5_iter_order_t bor = ixd_rnd_order(run);
            hsize_t         bn  = (hsize_t)ixd_rnd(run, 3);
            ixd_query(run, SCENARIO, loc, name, "%s of %s%s, its H5Iget_name and H5Oget_info3", ways[way], name,
                      as_h5py ? " as h5py opens it, then NX_class and a missing attribute through \".\""
                      : way == 1 ? " (a link in it by index)" : "");
            if (way == 1)
                printf("by_idx(%s,%s,%llu) ", ixd_idx_str(bit), ixd_order_str(bor), (unsigned long long)bn);
            hid_t lapl = H5P_DEFAULT, fapl = H5I_INVALID_HID;
            if (as_h5py) {
                lapl = H5Pcreate(H5P_LINK_ACCESS);
                fapl = H5Pcreate(H5P_FILE_ACCESS);
                H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
                H5Pset_elink_fapl(lapl, fapl);
            }
            hid_t o = H5I_INVALID_HID;
            if (way == 0)
                o = H5Oopen(loc, name, lapl);
            else if (way == 1)
                o = H5Oopen_by_idx(loc, name, bit, bor, bn, H5P_DEFAULT);
            else if (way == 2) {
                H5O_info2_t ti;
                if (H5Oget_info_by_name3(loc, name, &ti, H5O_INFO_BASIC, H5P_DEFAULT) >= 0)
                    o = H5Oopen_by_token(loc, ti.token);
            }
            else {
                H5R_ref_t ref;
                if (H5Rcreate_object(loc, name, H5P_DEFAULT, &ref) >= 0) {
                    o = H5Ropen_object(&ref, H5P_DEFAULT, H5P_DEFAULT);
                    H5Rdestroy(&ref);
                }
            }
            printf("Oopen r=%d", o >= 0);
            if (o >= 0) {
                H5O_info2_t oi;
                char        nb[1024] = "";
                if (way >= 2 && ixd_rnd(run, 2)) {
                    /* what is asked of it before its name (native names a by-token open by a search) */
                    if (H5Iget_type(o) == H5I_GROUP) {
                        H5G_info_t gi = {0};
                        herr_t     gr = H5Gget_info(o, &gi);
                        printf(" ginfo=%d:%llu", (int)gr, (unsigned long long)gi.nlinks);
                    }
                    else if (H5Iget_type(o) == H5I_DATASET) {
                        hid_t sp = H5Dget_space(o);
                        printf(" npoints=%lld", sp >= 0 ? (long long)H5Sget_simple_extent_npoints(sp) : -1LL);
                        if (sp >= 0)
                            H5Sclose(sp);
                    }
                }
                H5Iget_name(o, nb, sizeof(nb));
                H5Oget_info3(o, &oi, H5O_INFO_BASIC);
                printf(" itype=%d name=%s ", (int)H5Iget_type(o), nb);
                ixd_print_oinfo(run, &oi, H5O_INFO_BASIC);
                if (as_h5py) {
                    /* h5py's obj.file on every object it makes: the file's ID and its intent. */
                    hid_t         fid = H5Iget_file_id(o);
                    unsigned      intent = 0;
                    unsigned long fno    = 0;
                    if (fid >= 0) {
                        H5Fget_intent(fid, &intent);
                        H5Fget_fileno(fid, &fno);
                        H5Fclose(fid);
                    }
                    printf(" file=%d intent=%u %s", fid >= 0, intent, fno == run->root_fileno ? "same" : "other");
                    const char *names[2] = {"NX_class", "tb_missing"};
                    for (int k = 0; k < 2; k++) {
                        hid_t a = H5Aopen_by_name(o, ".", names[k], H5P_DEFAULT, H5P_DEFAULT);
                        printf(" %s=", names[k]);
                        if (a >= 0) {
                            char an[64] = "";
                            H5Aget_name(a, sizeof(an), an);
                            printf("%s", an);
                            H5Aclose(a);
                        }
                        else
                            ixd_print_innermost_error();
                    }
                    /* h5py's h5o.get_info, and its hash of every object (H5Gget_objinfo of ".") */
                    H5O_info1_t o1;
                    herr_t      r1 = H5Oget_info1(o, &o1);
                    printf(" info1=%d type=%d na=%d", (int)r1, r1 >= 0 ? (int)o1.type : -1,
                           r1 >= 0 ? (int)o1.num_attrs : -1);
                    if (r1 >= 0 && !run->rw)
                        printf(" addr=%llu nmesgs=%u", (unsigned long long)o1.addr, o1.hdr.nmesgs);
                    H5G_stat_t sb;
                    ixd_print_stat(run, H5Gget_objinfo(o, ".", 0, &sb), &sb);
                    /* h5py's obj.attrs iteration: the creation property list's attribute order first */
                    H5I_type_t it = H5Iget_type(o);
                    if (it == H5I_GROUP || it == H5I_DATASET)
                        print_cpl(it == H5I_GROUP ? H5Gget_create_plist(o) : H5Dget_create_plist(o));
                }
                H5Oclose(o);
            }
            if (as_h5py) {
                H5Pclose(fapl);
                H5Pclose(lapl);
            }
            printf("\n");
            break;
        }
        default: { /* IXD_DOPEN, IXD_TOPEN */
            int dset = kind == IXD_DOPEN;
            ixd_query(run, SCENARIO, loc, name, "%s of %s, its H5Iget_name, and H5Aopen of its attr0",
                      dset ? "H5Dopen2" : "H5Topen2", name);
            hid_t o = dset ? H5Dopen2(loc, name, H5P_DEFAULT) : H5Topen2(loc, name, H5P_DEFAULT);
            printf("%s r=%d", dset ? "Dopen" : "Topen", o >= 0);
            if (o >= 0) {
                char nb[1024] = "", an[64] = "";
                printf(" len=%zd", H5Iget_name(o, nb, 8));
                H5Iget_name(o, nb, sizeof(nb));
                printf(" name=%s", nb);
                if (!dset) { /* the type HDF5 built from what the connector gave it */
                    size_t        n = 0;
                    unsigned char enc[512];
                    H5Tencode(o, NULL, &n);
                    printf(" class=%d size=%zu committed=%d enc=%zu", (int)H5Tget_class(o), H5Tget_size(o),
                           (int)H5Tcommitted(o), n);
                    if (n <= sizeof(enc) && H5Tencode(o, enc, &n) >= 0) {
                        uint64_t h = 1469598103934665603ull;
                        for (size_t i = 0; i < n; i++)
                            h = (h ^ enc[i]) * 1099511628211ull;
                        printf(":%016llx", (unsigned long long)h);
                    }
                    hid_t tcpl = H5Tget_create_plist(o);
                    printf(" tcpl=%d", tcpl >= 0);
                    if (tcpl >= 0)
                        H5Pclose(tcpl);
                }
                if (H5Aexists(o, "attr0") > 0) {
                    hid_t a = H5Aopen(o, "attr0", H5P_DEFAULT);
                    H5Iget_name(a, nb, sizeof(nb));
                    H5Aget_name(a, sizeof(an), an);
                    printf(" attr=%s on %s", an, nb);
                    H5Aclose(a);
                }
                H5Oclose(o);
            }
            printf("\n");
            break;
        }
    }
}

const ixd_scenario_t ixd_objects = {SCENARIO, query};
