/* index_diff.c — differential test of the link/object index: `gen DIR SEED` builds a random tree
 * (symbol-table, compact and dense groups, creation order tracked or not, hard links to one object
 * by several paths, soft, dangling and external links, datasets, committed datatypes, attributes);
 * `query FILE PATHS SEED N [rw]` runs random queries (interleaved with modifications when rw) and
 * prints a transcript of every answer. Run under stock HDF5 and under h5turbo; the transcripts
 * must be identical (index_diff.sh). */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                           \
    do {                                                                                                   \
        if ((x) < 0) {                                                                                     \
            fprintf(stderr, "index_diff: %s failed at line %d\n", #x, __LINE__);                           \
            exit(2);                                                                                       \
        }                                                                                                  \
    } while (0)

static uint64_t rng_state;
static uint32_t
rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (uint32_t)(rng_state % n) : 0;
}

/* ------------------------------------------------------------------ paths */
#define MAXP 4096
static char *paths[MAXP];
static int   is_group[MAXP];
static int   npaths;

static void
add_path(const char *p, int grp)
{
    if (npaths < MAXP) {
        paths[npaths]    = strdup(p);
        is_group[npaths] = grp;
        npaths++;
    }
}

static int
random_group(void)
{
    for (;;) {
        int i = (int)rnd((uint32_t)npaths);
        if (is_group[i] == 1)
            return i;
    }
}

static const char *words[] = {"a", "b", "entry", "logs", "value", "time", "zeta", "Alpha", "m10", "m9",
                              "sample", "instrument", "x_1", "x_10", "x_2", "data", "NX", "q", "r", "s"};

static void
child_path(char *out, size_t n, const char *parent, int k)
{
    snprintf(out, n, "%s%s%s_%d", parent, strcmp(parent, "/") ? "/" : "", words[rnd(20)], k);
}

/* ------------------------------------------------------------------ gen */
static hid_t
random_gcpl(int *kind_out)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    int   kind = (int)rnd(5);
    switch (kind) {
        case 0: /* symbol table (default, earliest format) */
            break;
        case 1: /* compact, creation order tracked */
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED);
            break;
        case 2: /* compact, tracked + indexed */
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
            break;
        case 3: /* dense, tracked + indexed */
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
            H5Pset_link_phase_change(gcpl, 0, 0);
            break;
        default: /* dense, tracked, not indexed */
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED);
            H5Pset_link_phase_change(gcpl, 0, 0);
            break;
    }
    *kind_out = kind;
    return gcpl;
}

static void
add_attrs(hid_t obj)
{
    int na = (int)rnd(4);
    for (int i = 0; i < na; i++) {
        char  name[32];
        hid_t s = H5Screate(H5S_SCALAR);
        snprintf(name, sizeof(name), "attr%d", i);
        hid_t a = H5Acreate2(obj, name, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
        int   v = i;
        H5Awrite(a, H5T_NATIVE_INT, &v);
        H5Aclose(a);
        H5Sclose(s);
    }
    /* NeXus-like and other kinds the index caches or not: a fixed-length string, a small array,
     * one too large to cache, a variable-length string, a compound. */
    int kinds = (int)rnd(32);
    if (kinds & 1) {
        hid_t s = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 7 + rnd(3));
        hid_t a = H5Acreate2(obj, "NX_class", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, "NXentry\0\0");
        H5Aclose(a), H5Tclose(t), H5Sclose(s);
    }
    if (kinds & 2) {
        hsize_t dims = 5;
        double  v[5] = {1.5, -2, 3.25, 1e300, (double)rnd(100)};
        hid_t   s = H5Screate_simple(1, &dims, NULL);
        hid_t   a = H5Acreate2(obj, "vec", H5T_IEEE_F64BE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, v);
        H5Aclose(a), H5Sclose(s);
    }
    if (kinds & 4) {
        hsize_t dims = 100;
        int     v[100];
        for (int i = 0; i < 100; i++)
            v[i] = i * 3;
        hid_t s = H5Screate_simple(1, &dims, NULL);
        hid_t a = H5Acreate2(obj, "big", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT, v);
        H5Aclose(a), H5Sclose(s);
    }
    if (kinds & 8) {
        hid_t       s = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
        const char *v = "variable";
        H5Tset_size(t, H5T_VARIABLE);
        hid_t a = H5Acreate2(obj, "vstr", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, &v);
        H5Aclose(a), H5Tclose(t), H5Sclose(s);
    }
    if (kinds & 16) {
        struct {
            int    i;
            double d;
        } v       = {7, 0.5};
        hid_t t   = H5Tcreate(H5T_COMPOUND, sizeof(v));
        H5Tinsert(t, "i", 0, H5T_NATIVE_INT);
        H5Tinsert(t, "d", sizeof(double), H5T_NATIVE_DOUBLE);
        hid_t s = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(obj, "cmp", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, &v);
        H5Aclose(a), H5Tclose(t), H5Sclose(s);
    }
}

static int
gen(const char *dir, unsigned seed)
{
    char fname[4096], ename[4096], pname[4096];
    rng_state = 0x9E3779B97F4A7C15ull ^ seed;
    snprintf(fname, sizeof(fname), "%s/tree.h5", dir);
    snprintf(ename, sizeof(ename), "%s/ext.h5", dir);
    snprintf(pname, sizeof(pname), "%s/paths.txt", dir);
    hid_t ef = H5Fcreate(ename, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(ef);
    hid_t eg = H5Gcreate2(ef, "target", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(eg, "inner", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(eg);
    H5Fclose(ef);

    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (seed % 3 == 1)
        H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t f = H5Fcreate(fname, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    CHECK(f);
    H5Pclose(fcpl);
    npaths = 0;
    add_path("/", 1);
    int nobj = 40 + (int)rnd(120);
    for (int k = 0; k < nobj; k++) {
        char p[1024];
        int  parent = random_group();
        child_path(p, sizeof(p), paths[parent], k);
        int what = (int)rnd(100);
        if (what < 35) {
            int   kind;
            hid_t gcpl = random_gcpl(&kind);
            hid_t g    = H5Gcreate2(f, p, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            CHECK(g);
            add_attrs(g);
            H5Gclose(g);
            H5Pclose(gcpl);
            add_path(p, 1);
        }
        else if (what < 60) {
            hsize_t dims = 1 + rnd(8);
            hid_t   s    = H5Screate_simple(1, &dims, NULL);
            hid_t   d    = H5Dcreate2(f, p, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            CHECK(d);
            add_attrs(d);
            H5Dclose(d);
            H5Sclose(s);
            add_path(p, 0);
        }
        else if (what < 65) {
            hid_t t = H5Tcopy(H5T_NATIVE_DOUBLE);
            CHECK(H5Tcommit2(f, p, t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            H5Tclose(t);
            add_path(p, 0);
        }
        else if (what < 80) {
            int t = (int)rnd((uint32_t)npaths);
            if (t == 0 || is_group[t] == 2)
                continue;
            CHECK(H5Lcreate_hard(f, paths[t], f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, is_group[t]);
        }
        else if (what < 90) {
            int t = (int)rnd((uint32_t)npaths);
            CHECK(H5Lcreate_soft(rnd(4) ? paths[t] : "/no/such/thing", f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, 2);
        }
        else {
            CHECK(H5Lcreate_external("ext.h5", rnd(3) ? "/target" : "/missing", f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, 2);
        }
    }
    H5Fclose(f);
    FILE *fp = fopen(pname, "w");
    if (!fp)
        return 2;
    for (int i = 0; i < npaths; i++)
        fprintf(fp, "%d %s\n", is_group[i], paths[i]);
    fclose(fp);
    return 0;
}

/* ------------------------------------------------------------------ transcript */
static int rw_mode; /* see query(): file addresses of objects created during a read-write run */

static void
print_token(const H5O_token_t *t)
{
    if (rw_mode) {
        printf("*");
        return;
    }
    for (int i = 0; i < 8; i++)
        printf("%02x", t->__data[i]);
}

static void
print_linfo(const H5L_info2_t *li)
{
    printf("type=%d cset=%d corder=%s%lld ", (int)li->type, (int)li->cset, li->corder_valid ? "" : "-",
           li->corder_valid ? (long long)li->corder : 0LL);
    if (li->type == H5L_TYPE_HARD)
        print_token(&li->u.token);
    else
        printf("vs=%zu", li->u.val_size);
}

static unsigned long root_fileno;

static void
print_oinfo(const H5O_info2_t *oi, unsigned fields)
{
    if (fields & H5O_INFO_BASIC) {
        printf("fileno=%s tok=", oi->fileno == root_fileno ? "same" : "other");
        print_token(&oi->token);
        printf(" type=%d rc=%u ", (int)oi->type, oi->rc);
    }
    else {
        H5O_token_t undef = H5O_TOKEN_UNDEF;
        printf("type=%d rc=%u tokundef=%d ", (int)oi->type, oi->rc, memcmp(&oi->token, &undef, sizeof(undef)) == 0);
    }
    if ((fields & H5O_INFO_TIME) && !rw_mode)
        printf("t=%lld,%lld,%lld,%lld ", (long long)oi->atime, (long long)oi->mtime, (long long)oi->ctime,
               (long long)oi->btime);
    printf("na=%llu", (unsigned long long)oi->num_attrs);
}

/* Iteration callbacks: print each call; stop (or fail) after a chosen number of calls. */
typedef struct cb_state {
    int n, stop_at, stop_ret;
} cb_state_t;

static herr_t
stop_or_go(cb_state_t *s)
{
    if (++s->n == s->stop_at)
        return s->stop_ret;
    return 0;
}

static void
print_id(hid_t id)
{
    char name[512] = "";
    H5Iget_name(id, name, sizeof(name));
    printf("[%d %s] ", (int)H5Iget_type(id), name);
}

static herr_t
link_cb(hid_t g, const char *name, const H5L_info2_t *li, void *op_data)
{
    cb_state_t *s = op_data;
    if (s->n == 0)
        print_id(g);
    printf("  L %s ", name);
    print_linfo(li);
    printf("\n");
    return stop_or_go(s);
}

static unsigned visit_fields;
static herr_t
obj_cb(hid_t o, const char *name, const H5O_info2_t *oi, void *op_data)
{
    cb_state_t *s = op_data;
    if (s->n == 0)
        print_id(o);
    printf("  O %s ", name);
    print_oinfo(oi, visit_fields);
    printf("\n");
    return stop_or_go(s);
}

static herr_t
link1_cb(hid_t g, const char *name, const H5L_info1_t *li, void *op_data)
{
    (void)g;
    printf("  L1 %s type=%d addr=%llu\n", name, (int)li->type,
           li->type == H5L_TYPE_HARD && !rw_mode ? (unsigned long long)li->u.address : 0ULL);
    return stop_or_go(op_data);
}

static herr_t
obj1_cb(hid_t o, const char *name, const H5O_info1_t *oi, void *op_data)
{
    (void)o;
    printf("  O1 %s type=%d rc=%u addr=%llu na=%llu\n", name, (int)oi->type, oi->rc,
           rw_mode ? 0ULL : (unsigned long long)oi->addr, (unsigned long long)oi->num_attrs);
    return stop_or_go(op_data);
}

static const char *
random_name(void)
{
    static char buf[1200];
    int         r = (int)rnd(20);
    if (r == 0)
        return "/no_such";
    if (r == 1) {
        snprintf(buf, sizeof(buf), "%s/missing_child", paths[rnd((uint32_t)npaths)]);
        return buf;
    }
    if (r == 2) {
        snprintf(buf, sizeof(buf), "missing/%s", words[rnd(20)]);
        return buf;
    }
    const char *p = paths[rnd((uint32_t)npaths)];
    if (r == 3 && strcmp(p, "/")) {
        snprintf(buf, sizeof(buf), "%s/", p);
        return buf;
    }
    if (r == 4 && strcmp(p, "/")) {
        snprintf(buf, sizeof(buf), "/%s", p); /* "//a/b" */
        return buf;
    }
    if (r == 5 && strcmp(p, "/")) {
        snprintf(buf, sizeof(buf), "%s/inner", p); /* through soft or external links too */
        return buf;
    }
    return p;
}

static H5_index_t
rnd_idx(void)
{
    return rnd(2) ? H5_INDEX_NAME : H5_INDEX_CRT_ORDER;
}
static H5_iter_order_t
rnd_order(void)
{
    return (H5_iter_order_t)rnd(3);
}
static unsigned
rnd_fields(void)
{
    static const unsigned f[] = {H5O_INFO_BASIC, H5O_INFO_ALL, H5O_INFO_NUM_ATTRS, H5O_INFO_BASIC | H5O_INFO_TIME,
                                 0};
    return f[rnd(5)];
}

static void
stop_rule(cb_state_t *s)
{
    s->n        = 0;
    int r       = (int)rnd(6);
    s->stop_at  = r == 0 ? 1 + (int)rnd(5) : r == 1 ? 1 + (int)rnd(3) : -1;
    s->stop_ret = r == 0 ? 1 + (int)rnd(3) : -1;
}

static void
modify(hid_t f, int k, int *ok)
{
    char p[1200];
    int  what = (int)rnd(9);
    int  src  = (int)rnd((uint32_t)npaths);
    int  grp  = random_group();
    child_path(p, sizeof(p), paths[grp], 1000 + k);
    herr_t r = -1;
    switch (what) {
        case 0: {
            int   kind;
            hid_t gcpl = random_gcpl(&kind);
            hid_t g    = H5Gcreate2(f, p, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            H5Pclose(gcpl);
            if (g >= 0) {
                add_path(p, 1);
                H5Gclose(g);
                r = 0;
            }
            break;
        }
        case 1:
            if ((r = H5Lcreate_hard(f, paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, is_group[src]);
            break;
        case 2:
            if ((r = H5Lcreate_soft(paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, 2);
            break;
        case 3:
            if (src)
                r = H5Ldelete(f, paths[src], H5P_DEFAULT);
            break;
        case 4:
            if (src && (r = H5Lmove(f, paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, is_group[src]);
            break;
        case 5:
            if (src && (r = H5Lcopy(f, paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, is_group[src]);
            break;
        case 6: {
            hid_t o = H5Oopen(f, paths[src], H5P_DEFAULT);
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
            r = H5Adelete_by_name(f, paths[src], "attr0", H5P_DEFAULT);
            break;
        default:
            if (src && (r = H5Ocopy(f, paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, is_group[src]);
            break;
    }
    printf("MOD %d %s -> %s: %d\n", what, paths[src], p, r >= 0);
    *ok += r >= 0;
}

static const char *attr_names[] = {"attr0", "attr1", "attr3", "NX_class", "vec", "big", "vstr", "cmp", "nope"};

/* Everything an application asks of an open attribute, the way loaders and h5py do. */
static void
print_attr(hid_t f, hid_t a)
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
    printf(" class=%d size=%zu np=%lld vstr=%d", (int)H5Tget_class(t), ts, (long long)np, (int)H5Tis_variable_str(t));
    if (np > 0 && (size_t)np * ts <= sizeof(buf) && H5Tget_class(t) != H5T_VLEN && H5Tis_variable_str(t) == 0) {
        memset(buf, 0, sizeof(buf));
        printf(" read=%d:", (int)H5Aread(a, t, buf));
        for (size_t i = 0; i < (size_t)np * ts && i < 48; i++)
            printf("%02x", buf[i]);
        /* and converted, as a loader reading into its own type does */
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

static int
query(const char *fname, const char *pname, unsigned seed, int nq, int rw)
{
    FILE *fp = fopen(pname, "r");
    char  line[1200];
    if (!fp)
        return 2;
    npaths = 0;
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = 0;
        add_path(line + 2, line[0] - '0');
    }
    fclose(fp);
    rng_state = 0xD1B54A32D192ED03ull ^ ((uint64_t)seed << 20);
    /* In a read-write run, objects created get the clock's time, and their file addresses depend
     * on which object headers were read before (HDF5 rewrites some headers it reads, merging null
     * messages), which the index changes: neither is printed. */
    rw_mode = rw;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(fname, rw ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f);
    H5O_info2_t ri;
    CHECK(H5Oget_info3(f, &ri, H5O_INFO_BASIC));
    root_fileno = ri.fileno;
    int mods    = 0;
    for (int q = 0; q < nq; q++) {
        if (rw && rnd(10) == 0)
            modify(f, q, &mods);
        const char *name = random_name();
        /* The location: the file, or a group opened by a random path. */
        hid_t loc = f;
        if (rnd(8) == 0) {
            /* A group of the other file, reached through an external link: the index of this
             * file must not answer for it. */
            int e = (int)rnd((uint32_t)npaths);
            if (is_group[e] == 2 && (loc = H5Gopen2(f, paths[e], H5P_DEFAULT)) >= 0)
                name = rnd(2) ? "inner" : "/target/inner";
            else
                loc = f;
        }
        else if (rnd(3) == 0) {
            int g = random_group();
            loc   = H5Gopen2(f, paths[g], H5P_DEFAULT);
            if (loc < 0)
                loc = f;
            else if (name[0] != '/')
                name = words[rnd(20)];
        }
        int        op = (int)rnd(22);
        cb_state_t s;
        herr_t     r;
        printf("Q%d op=%d loc=%s name=%s: ", q, op, loc == f ? "file" : "grp", name);
        switch (op) {
            case 0:
                printf("Lexists=%d\n", (int)H5Lexists(loc, name, H5P_DEFAULT));
                break;
            case 1: {
                H5L_info2_t li;
                r = H5Lget_info2(loc, name, &li, H5P_DEFAULT);
                printf("Lget_info r=%d ", r);
                if (r >= 0)
                    print_linfo(&li);
                printf("\n");
                break;
            }
            case 2: {
                H5L_info2_t li;
                H5_index_t  it = rnd_idx();
                H5_iter_order_t o = rnd_order();
                hsize_t     n  = rnd(6);
                r = H5Lget_info_by_idx2(loc, rnd(2) ? "." : name, it, o, n, &li, H5P_DEFAULT);
                printf("Lget_info_by_idx(%d,%d,%llu) r=%d ", it, o, (unsigned long long)n, r);
                if (r >= 0)
                    print_linfo(&li);
                char    nb[16] = "";
                ssize_t len    = H5Lget_name_by_idx(loc, ".", it, o, n, nb, rnd(2) ? sizeof(nb) : 4, H5P_DEFAULT);
                printf(" name_by_idx=%zd '%s'\n", len, len >= 0 ? nb : "");
                break;
            }
            case 3: {
                char buf[64];
                memset(buf, 'x', sizeof(buf));
                size_t sz = rnd(2) ? sizeof(buf) : 5;
                r         = H5Lget_val(loc, name, buf, sz, H5P_DEFAULT);
                printf("Lget_val r=%d ", r);
                if (r >= 0)
                    for (size_t i = 0; i < sz; i++)
                        printf("%02x", (unsigned char)buf[i]);
                printf("\n");
                break;
            }
            case 4:
            case 5: {
                H5_index_t      it  = rnd_idx();
                H5_iter_order_t o   = rnd_order();
                hsize_t         idx = rnd(3) == 0 ? rnd(8) : 0;
                stop_rule(&s);
                printf("Literate(%d,%d,%llu)\n", it, o, (unsigned long long)idx);
                if (op == 4)
                    r = H5Literate2(loc, it, o, &idx, link_cb, &s);
                else
                    r = H5Literate_by_name2(loc, name, it, o, &idx, link_cb, &s, H5P_DEFAULT);
                printf("  -> r=%d idx=%llu\n", r, (unsigned long long)idx);
                break;
            }
            case 6: {
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                stop_rule(&s);
                printf("Lvisit(%d,%d)\n", it, o);
                r = rnd(2) ? H5Lvisit2(loc, it, o, link_cb, &s) : H5Lvisit_by_name2(loc, name, it, o, link_cb, &s, H5P_DEFAULT);
                printf("  -> r=%d\n", r);
                break;
            }
            case 7: {
                H5O_info2_t oi;
                unsigned    fl = rnd_fields();
                r              = rnd(2) ? H5Oget_info_by_name3(loc, name, &oi, fl, H5P_DEFAULT)
                                        : H5Oget_info3(loc, &oi, fl);
                printf("Oget_info(%u) r=%d ", fl, r);
                if (r >= 0)
                    print_oinfo(&oi, fl);
                printf("\n");
                break;
            }
            case 8: {
                H5O_info2_t     oi;
                unsigned        fl = rnd_fields();
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                hsize_t         n  = rnd(5);
                r = H5Oget_info_by_idx3(loc, rnd(2) ? "." : name, it, o, n, &oi, fl, H5P_DEFAULT);
                printf("Oget_info_by_idx(%d,%d,%llu,%u) r=%d ", it, o, (unsigned long long)n, fl, r);
                if (r >= 0)
                    print_oinfo(&oi, fl);
                printf("\n");
                break;
            }
            case 9:
                printf("Oexists=%d\n", (int)H5Oexists_by_name(loc, name, H5P_DEFAULT));
                break;
            case 10: {
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                visit_fields       = rnd_fields();
                stop_rule(&s);
                printf("Ovisit(%d,%d,%u)\n", it, o, visit_fields);
                r = rnd(2) ? H5Ovisit3(loc, it, o, obj_cb, &s, visit_fields)
                           : H5Ovisit_by_name3(loc, name, it, o, obj_cb, &s, visit_fields, H5P_DEFAULT);
                printf("  -> r=%d\n", r);
                break;
            }
            case 11: {
                H5G_info_t gi;
                r = rnd(2) ? H5Gget_info(loc, &gi) : H5Gget_info_by_name(loc, name, &gi, H5P_DEFAULT);
                printf("Gget_info r=%d", r);
                if (r >= 0)
                    printf(" st=%d n=%llu maxc=%lld m=%d", (int)gi.storage_type, (unsigned long long)gi.nlinks,
                           (long long)gi.max_corder, (int)gi.mounted);
                printf("\n");
                break;
            }
            case 12: {
                hsize_t idx = 0;
                stop_rule(&s);
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                printf("Literate1(%d,%d)\n", it, o);
                r = H5Literate1(loc, it, o, &idx, link1_cb, &s);
                printf("  -> r=%d idx=%llu\n", r, (unsigned long long)idx);
                break;
            }
            case 13: {
                stop_rule(&s);
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                printf("Ovisit1(%d,%d)\n", it, o);
                r = H5Ovisit1(loc, it, o, obj1_cb, &s);
                printf("  -> r=%d\n", r);
                break;
            }
            case 14: {
                H5O_info1_t oi;
                r = H5Oget_info_by_name1(loc, name, &oi, H5P_DEFAULT);
                printf("Oget_info1 r=%d", r);
                if (r >= 0)
                    printf(" type=%d rc=%u addr=%llu na=%llu hdr.nmesgs=%u", (int)oi.type, oi.rc,
                           rw_mode ? 0ULL : (unsigned long long)oi.addr, (unsigned long long)oi.num_attrs,
                           rw_mode ? 0u : oi.hdr.nmesgs);
                printf("\n");
                break;
            }
            case 15: {
                hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
                printf("Oopen r=%d", o >= 0);
                if (o >= 0) {
                    H5O_info2_t oi;
                    char        nb[1024] = "";
                    H5Iget_name(o, nb, sizeof(nb));
                    H5Oget_info3(o, &oi, H5O_INFO_BASIC);
                    printf(" itype=%d name=%s ", (int)H5Iget_type(o), nb);
                    print_oinfo(&oi, H5O_INFO_BASIC);
                    H5Oclose(o);
                }
                printf("\n");
                break;
            }
            case 17:
            case 18: {
                hid_t o = op == 17 ? H5Dopen2(loc, name, H5P_DEFAULT) : H5Topen2(loc, name, H5P_DEFAULT);
                printf("%s r=%d", op == 17 ? "Dopen" : "Topen", o >= 0);
                if (o >= 0) {
                    char nb[1024] = "", an[64] = "";
                    printf(" len=%zd", H5Iget_name(o, nb, 8));
                    H5Iget_name(o, nb, sizeof(nb));
                    printf(" name=%s", nb);
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
            case 19:
            case 20: {
                const char *an = attr_names[rnd(sizeof(attr_names) / sizeof(attr_names[0]))];
                printf("Aexists(%s)=%d", an, (int)H5Aexists_by_name(loc, name, an, H5P_DEFAULT));
                hid_t a = H5Aopen_by_name(loc, name, an, H5P_DEFAULT, H5P_DEFAULT);
                printf(" Aopen=%d", a >= 0);
                if (a >= 0) {
                    print_attr(f, a);
                    if (op == 20) {
                        /* The attribute as a location, after which it is the real one. */
                        H5O_info2_t oi;
                        printf(" Oinfo=%d", (int)H5Oget_info3(a, &oi, H5O_INFO_BASIC));
                        print_oinfo(&oi, H5O_INFO_BASIC);
                        print_attr(f, a);
                    }
                    H5Aclose(a);
                }
                printf("\n");
                break;
            }
            case 21: {
                /* A group opened by path, then H5Aopen on it (BY_SELF), two attributes open at once,
                 * and the IDs H5Fget_obj_ids hands out for them. */
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
                        print_attr(f, a1), H5Aclose(a1);
                    if (a2 >= 0)
                        print_attr(f, a2), H5Aclose(a2);
                    H5Oclose(g);
                }
                printf("\n");
                break;
            }
            default: {
                hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
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
        if (loc != f)
            H5Gclose(loc);
    }
    printf("mods=%d\n", mods);
    /* Attributes still open when the file is closed: they keep it open, and still answer. */
    hid_t late[3];
    int   nlate = 0;
    for (int k = 0; k < npaths && nlate < 3; k++) {
        const char *an = rnd(2) ? "NX_class" : "attr0";
        hid_t       a  = H5Aopen_by_name(f, paths[k], an, H5P_DEFAULT, H5P_DEFAULT);
        if (a >= 0) {
            printf("late%d: %s of %s\n", nlate, an, paths[k]);
            late[nlate++] = a;
        }
    }
    printf("late=%d\n", nlate);
    H5Fclose(f);
    for (int k = 0; k < nlate; k++) {
        printf("late%d:", k);
        print_attr(f, late[k]);
        printf("\n");
        H5Aclose(late[k]);
    }
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "gen"))
        return gen(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
    if (argc >= 6 && !strcmp(argv[1], "query"))
        return query(argv[2], argv[3], (unsigned)strtoul(argv[4], NULL, 10), atoi(argv[5]),
                     argc >= 7 && !strcmp(argv[6], "rw"));
    fprintf(stderr, "usage: index_diff gen DIR SEED | query FILE PATHS SEED N [rw]\n");
    return 2;
}
