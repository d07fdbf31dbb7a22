/* index_diff.c — the driver of the index's differential test. `gen DIR SEED` builds a random tree
 * (the generator scenario, index_diff_gen.c); `query FILE PATHS SEED N [rw]` runs, in FILE's
 * directory, N random queries drawn from the scenarios (links and groups, visits and iterations,
 * object info, deprecated calls, attributes, small datasets; read-write modifications between them
 * with rw) and prints a transcript in steps, each headed by its scenario and query; `compare STOCK
 * TURBO` (index_diff_compare.c) names the first step whose answers differ. index_diff.sh runs the
 * queries under stock HDF5 and under h5turbo. */
#include "index_diff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ the random stream, the paths */
uint32_t
ixd_rnd(ixd_t *run, uint32_t n)
{
    run->rng ^= run->rng << 13;
    run->rng ^= run->rng >> 7;
    run->rng ^= run->rng << 17;
    return n ? (uint32_t)(run->rng % n) : 0;
}

uint64_t
ixd_rnd64(ixd_t *run)
{
    ixd_rnd(run, 1);
    return run->rng;
}

void
ixd_add_path(ixd_t *run, const char *p, int kind)
{
    if (run->npaths < IXD_MAXP) {
        run->paths[run->npaths] = strdup(p);
        ASSERT(run->paths[run->npaths]);
        run->kind[run->npaths] = kind;
        run->npaths++;
    }
}

int
ixd_random_of_kind(ixd_t *run, int kind)
{
    for (;;) {
        int i = (int)ixd_rnd(run, (uint32_t)run->npaths);
        if (run->kind[i] == kind)
            return i;
    }
}

int
ixd_random_group(ixd_t *run)
{
    return ixd_random_of_kind(run, IXD_GROUP);
}

const char *const ixd_words[20] = {"a",    "b",      "entry",      "logs", "value", "time", "zeta",
                                   "Alpha", "m10",   "m9",         "sample", "instrument", "x_1", "x_10",
                                   "x_2",  "data",   "NX",         "q",    "r",     "s"};

void
ixd_child_path(ixd_t *run, char *out, size_t n, const char *parent, int k)
{
    snprintf(out, n, "%s%s%s_%d", parent, strcmp(parent, "/") ? "/" : "", ixd_words[ixd_rnd(run, 20)], k);
}

const char *
ixd_random_name(ixd_t *run, char *buf, size_t n)
{
    int r = (int)ixd_rnd(run, 20);
    if (r == 0)
        return "/no_such";
    if (r == 1) {
        snprintf(buf, n, "%s/missing_child", run->paths[ixd_rnd(run, (uint32_t)run->npaths)]);
        return buf;
    }
    if (r == 2) {
        snprintf(buf, n, "missing/%s", ixd_words[ixd_rnd(run, 20)]);
        return buf;
    }
    const char *p = run->paths[ixd_rnd(run, (uint32_t)run->npaths)];
    if (r == 3 && strcmp(p, "/")) {
        snprintf(buf, n, "%s/", p);
        return buf;
    }
    if (r == 4 && strcmp(p, "/")) {
        snprintf(buf, n, "/%s", p); /* "//a/b" */
        return buf;
    }
    if (r == 5 && strcmp(p, "/")) {
        snprintf(buf, n, "%s/inner", p); /* through soft or external links too */
        return buf;
    }
    return p;
}

/* ------------------------------------------------------------------ the transcript's steps */
static void
vstep(const char *scenario, const char *label, const char *fmt, va_list ap)
{
    printf("## %s | %s | ", scenario, label);
    vprintf(fmt, ap);
    printf("\n");
}

void
ixd_step(const char *scenario, const char *label, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstep(scenario, label, fmt, ap);
    va_end(ap);
}

void
ixd_query(const ixd_t *run, const char *scenario, hid_t loc, const char *name, const char *fmt, ...)
{
    char    label[32];
    va_list ap;
    snprintf(label, sizeof(label), "query %d", run->q);
    va_start(ap, fmt);
    vstep(scenario, label, fmt, ap);
    va_end(ap);
    printf("Q%d op=%d loc=%s name=%s: ", run->q, run->op, loc == run->f ? "file" : "grp", name);
}

/* ------------------------------------------------------------------ shared draws and printers */
H5_index_t
ixd_rnd_idx(ixd_t *run)
{
    return ixd_rnd(run, 2) ? H5_INDEX_NAME : H5_INDEX_CRT_ORDER;
}

H5_iter_order_t
ixd_rnd_order(ixd_t *run)
{
    return (H5_iter_order_t)ixd_rnd(run, 3);
}

unsigned
ixd_rnd_fields(ixd_t *run)
{
    static const unsigned f[] = {H5O_INFO_BASIC, H5O_INFO_ALL, H5O_INFO_NUM_ATTRS, H5O_INFO_BASIC | H5O_INFO_TIME,
                                 0};
    return f[ixd_rnd(run, 5)];
}

const char *
ixd_fields_str(unsigned fields)
{
    static const char *const names[8] = {"no fields",        "basic",           "time",
                                         "basic|time",       "num_attrs",       "basic|num_attrs",
                                         "time|num_attrs",   "all fields"};
    return names[fields & 7];
}

const char *
ixd_idx_str(H5_index_t idx)
{
    return idx == H5_INDEX_NAME ? "by name" : "by creation order";
}

const char *
ixd_order_str(H5_iter_order_t order)
{
    return order == H5_ITER_INC ? "increasing" : order == H5_ITER_DEC ? "decreasing" : "native";
}

void
ixd_stop_rule(ixd_t *run, ixd_cb_t *s)
{
    s->run      = run;
    s->n        = 0;
    int r       = (int)ixd_rnd(run, 6);
    s->stop_at  = r == 0 ? 1 + (int)ixd_rnd(run, 5) : r == 1 ? 1 + (int)ixd_rnd(run, 3) : -1;
    s->stop_ret = r == 0 ? 1 + (int)ixd_rnd(run, 3) : -1;
}

herr_t
ixd_stop_or_go(ixd_cb_t *s)
{
    if (++s->n == s->stop_at)
        return s->stop_ret;
    return 0;
}

const char *
ixd_stop_str(const ixd_cb_t *s, char *buf, size_t n)
{
    if (s->stop_at < 0)
        snprintf(buf, n, "to the end");
    else if (s->stop_ret < 0)
        snprintf(buf, n, "failing at call %d", s->stop_at);
    else
        snprintf(buf, n, "stopping at call %d with %d", s->stop_at, s->stop_ret);
    return buf;
}

void
ixd_print_token(const ixd_t *run, const H5O_token_t *tok)
{
    if (run->rw) {
        printf("*");
        return;
    }
    for (int i = 0; i < 8; i++)
        printf("%02x", tok->__data[i]);
}

void
ixd_print_linfo(const ixd_t *run, const H5L_info2_t *li)
{
    printf("type=%d cset=%d corder=%s%lld ", (int)li->type, (int)li->cset, li->corder_valid ? "" : "-",
           li->corder_valid ? (long long)li->corder : 0LL);
    if (li->type == H5L_TYPE_HARD)
        ixd_print_token(run, &li->u.token);
    else
        printf("vs=%zu", li->u.val_size);
}

void
ixd_print_oinfo(const ixd_t *run, const H5O_info2_t *oi, unsigned fields)
{
    if (fields & H5O_INFO_BASIC) {
        printf("fileno=%s tok=", oi->fileno == run->root_fileno ? "same" : "other");
        ixd_print_token(run, &oi->token);
        printf(" type=%d rc=%u ", (int)oi->type, oi->rc);
    }
    else {
        H5O_token_t undef = H5O_TOKEN_UNDEF;
        printf("type=%d rc=%u tokundef=%d ", (int)oi->type, oi->rc, memcmp(&oi->token, &undef, sizeof(undef)) == 0);
    }
    if ((fields & H5O_INFO_TIME) && !run->rw)
        printf("t=%lld,%lld,%lld,%lld ", (long long)oi->atime, (long long)oi->mtime, (long long)oi->ctime,
               (long long)oi->btime);
    printf("na=%llu", (unsigned long long)oi->num_attrs);
}

static herr_t
innermost(unsigned n, const H5E_error2_t *e, void *out)
{
    if (n == 0) {
        char maj[64] = "", min[64] = "";
        H5Eget_msg(e->maj_num, NULL, maj, sizeof(maj));
        H5Eget_msg(e->min_num, NULL, min, sizeof(min));
        snprintf(out, 512, "error(%s / %s: %s)", maj, min, e->desc ? e->desc : "");
    }
    return 0;
}

void
ixd_print_innermost_error(void)
{
    char buf[512] = "error(none)";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, buf);
    H5Eclear2(H5E_DEFAULT);
    printf("%s", buf);
}

void
ixd_print_id(hid_t id)
{
    char name[512] = "";
    H5Iget_name(id, name, sizeof(name));
    printf("[%d %s] ", (int)H5Iget_type(id), name);
}

/* ------------------------------------------------------------------ the query run */

/* The query kinds in the mix the test has always drawn (op = one of 34, uniformly): links and
 * groups 6/34, visits and iterations 4/34, object info and opens 6/34, deprecated calls 3/34,
 * attributes 3/34, small datasets 12/34. */
static const struct {
    const ixd_scenario_t *scenario;
    int                   kind;
} ops[] = {
    {&ixd_links, IXD_LEXISTS},       {&ixd_links, IXD_LINFO},         {&ixd_links, IXD_LINFO_BY_IDX},
    {&ixd_links, IXD_LVAL},          {&ixd_visits, IXD_LITERATE},     {&ixd_visits, IXD_LITERATE_BY_NAME},
    {&ixd_visits, IXD_LVISIT},       {&ixd_objects, IXD_OINFO},       {&ixd_objects, IXD_OINFO_BY_IDX},
    {&ixd_objects, IXD_OEXISTS},     {&ixd_visits, IXD_OVISIT},       {&ixd_links, IXD_GINFO},
    {&ixd_deprecated, IXD_LITERATE1}, {&ixd_deprecated, IXD_OVISIT1}, {&ixd_deprecated, IXD_OINFO1},
    {&ixd_objects, IXD_OOPEN},       {&ixd_links, IXD_GOPEN},         {&ixd_objects, IXD_DOPEN},
    {&ixd_objects, IXD_TOPEN},       {&ixd_attrs, IXD_AOPEN_BY_NAME}, {&ixd_attrs, IXD_AOPEN_AS_LOC},
    {&ixd_attrs, IXD_AOPEN_ON_OBJECT}, {&ixd_dsets, IXD_DLOAD},       {&ixd_dsets, IXD_DLOAD},
    {&ixd_dsets, IXD_DLOAD},         {&ixd_dsets, IXD_DLOAD},         {&ixd_dsets, IXD_DPROBE},
    {&ixd_dsets, IXD_DPROBE},        {&ixd_dsets, IXD_DPROBE},        {&ixd_dsets, IXD_DPROBE},
    {&ixd_dsets, IXD_DPROBE},        {&ixd_dsets, IXD_DPROBE},        {&ixd_dsets, IXD_DPROBE},
    {&ixd_dsets, IXD_DHELD},
};
#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))
_Static_assert(NOPS == 34, "the mix of query kinds changed: same seeds would test other things");

static int
query(ixd_t *run, const char *fname, const char *pname, unsigned seed, int nq, int rw)
{
    FILE *fp = fopen(pname, "r");
    char  line[1200];
    if (!fp)
        return 2;
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = 0;
        ixd_add_path(run, line + 2, line[0] - '0');
    }
    fclose(fp);
    for (int i = 0; i < run->npaths; i++)
        if (strncmp(run->paths[i], "/wide/", 6) == 0 && !strchr(run->paths[i] + 6, '/'))
            run->wide[run->nwide++] = i;
    /* In the file's directory, where the external storage file of a dataset is found (its name is
     * relative, and HDF5 takes such names relative to the current directory). */
    const char *slash = strrchr(fname, '/');
    if (slash) {
        char dir[4096];
        snprintf(dir, sizeof(dir), "%.*s", slash == fname ? 1 : (int)(slash - fname), fname);
        if (chdir(dir) != 0) {
            perror(dir);
            return 2;
        }
        fname = slash + 1;
    }
    run->rng = 0xD1B54A32D192ED03ull ^ ((uint64_t)seed << 20);
    ixd_hot_init(run);
    for (int k = 0; k < IXD_NHELD; k++)
        run->held[k] = H5I_INVALID_HID;
    run->rw = rw;
    ixd_watch_defects();
    /* The file's chunk cache, which datasets opened with the default access list take (and
     * H5Dget_access_plist reports): HDF5's default, another, or a small one; from the seed (no
     * draw). (Not none: with the cache off, HDF5 1.14.5 leaks a decoded chunk of a DEFLATE
     * dataset in this test under stock too, which the sanitizer build reports.) */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (seed % 3 == 1)
        H5Pset_cache(fapl, 0, 37 + seed % 50, (size_t)65536 * (1 + seed % 8), 0.5);
    else if (seed % 3 == 2)
        H5Pset_cache(fapl, 0, 101, 4096, 0.25);
    /* Read-write: a metadata cache that never evicts (64 MiB, fixed). In a file changed in this
     * open, HDF5's native link order of a compact group whose header grew in memory is the order
     * of its messages in memory until the header leaves the cache, then their order on disk; so
     * stock itself answers differently with another cache size (seed 6070, 1000 queries: stock
     * with its default cache and stock with this one differ at query 984), and h5turbo, whose
     * index spares HDF5 reads of headers, evicts fewer. */
    if (rw) {
        H5AC_cache_config_t mdc = {.version = H5AC__CURR_CACHE_CONFIG_VERSION};
        ASSERT_H5(H5Pget_mdc_config(fapl, &mdc));
        mdc.set_initial_size = 1;
        mdc.initial_size = mdc.max_size = mdc.min_size = (size_t)64 << 20;
        mdc.incr_mode       = H5C_incr__off;
        mdc.flash_incr_mode = H5C_flash_incr__off;
        mdc.decr_mode       = H5C_decr__off;
        ASSERT_H5(H5Pset_mdc_config(fapl, &mdc));
    }
    run->f = H5Fopen(fname, rw ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    ASSERT_H5(run->f);
    H5O_info2_t ri;
    ASSERT_H5(H5Oget_info3(run->f, &ri, H5O_INFO_BASIC));
    run->root_fileno = ri.fileno;
    int mods       = 0;
    for (int q = 0; q < nq; q++) {
        char namebuf[1200];
        run->q = q;
        if (rw && ixd_rnd(run, 10) == 0)
            ixd_modify(run, q, &mods);
        if (q % 25 == 24 && run->nhot)
            ixd_hot_replace(run, (int)ixd_rnd(run, IXD_NHOT));
        const char *name = ixd_random_name(run, namebuf, sizeof(namebuf));
        /* In a tree with a wide group, a quarter of the queries name one of its members (or a
         * name it lacks), from the file or from the group: the look-ups the index has native make
         * and keeps in a partial list (index.c's tb_ix_lookup_link), and what follows them. */
        int wide = 0;
        if (run->nwide && ixd_rnd(run, 4) == 0) {
            if (ixd_rnd(run, 8) == 0)
                snprintf(namebuf, sizeof(namebuf), "/wide/absent_%u", ixd_rnd(run, 4));
            else
                snprintf(namebuf, sizeof(namebuf), "%s", run->paths[run->wide[ixd_rnd(run, (uint32_t)run->nwide)]]);
            name = namebuf;
            wide = ixd_rnd(run, 3) == 0 ? 2 : 1;
        }
        /* The location: the file, or a group opened by a random path. */
        hid_t loc = run->f;
        if (wide == 2) {
            if ((loc = H5Gopen2(run->f, "/wide", H5P_DEFAULT)) >= 0)
                name += 6;
            else
                loc = run->f; /* (modified away) */
        }
        else if (!wide && ixd_rnd(run, 8) == 0) {
            /* A group of the other file, reached through an external link: the index of this
             * file must not answer for it. */
            int e = (int)ixd_rnd(run, (uint32_t)run->npaths);
            if (run->kind[e] == IXD_LINK && (loc = H5Gopen2(run->f, run->paths[e], H5P_DEFAULT)) >= 0)
                name = ixd_rnd(run, 2) ? "inner" : "/target/inner";
            else
                loc = run->f;
        }
        else if (!wide && ixd_rnd(run, 3) == 0) {
            int g = ixd_random_group(run);
            loc   = H5Gopen2(run->f, run->paths[g], H5P_DEFAULT);
            if (loc < 0)
                loc = run->f;
            else if (name[0] != '/')
                name = ixd_words[ixd_rnd(run, 20)];
        }
        run->op = (int)ixd_rnd(run, NOPS);
        ops[run->op].scenario->query(run, loc, name, ops[run->op].kind);
        if (loc != run->f)
            H5Gclose(loc);
    }
    ixd_step(IXD_RW, "after the queries", "modifications that succeeded");
    printf("mods=%d\n", mods);
    /* Attributes and datasets still open when the file is closed: they keep it open, and still
     * answer. */
    ixd_late_t late[3], lated[IXD_NHELD + 2];
    int        nlate  = ixd_attrs_late_open(run, &ri, late, 3);
    int        nlated = ixd_dsets_late_open(run, lated, IXD_NHELD + 2);
    H5Fclose(run->f);
    ixd_attrs_late_use(run->f, late, nlate);
    ixd_dsets_late_use(run, lated, nlated);
    return 0;
}

/* Errors are not printed; a call that failed on HDF5's cache defect (index_diff.h) says so in the
 * transcript. */
static herr_t
defect_walk(unsigned n, const H5E_error2_t *e, void *found)
{
    (void)n;
    if (e->desc && strcmp(e->desc, "Read only entry modified??") == 0)
        *(int *)found = 1;
    return 0;
}

static herr_t
defect_check(hid_t estack, void *unused)
{
    (void)unused;
    int found = 0;
    H5Ewalk2(estack, H5E_WALK_UPWARD, defect_walk, &found);
    if (found)
        printf("%s\n", IXD_DEFECT_LINE);
    return 0;
}

void
ixd_watch_defects(void)
{
    H5Eset_auto2(H5E_DEFAULT, defect_check, NULL);
}

int
main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "gen"))
        return ixd_gen(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
    if (argc >= 6 && !strcmp(argv[1], "query")) {
        ixd_t *run = calloc(1, sizeof(*run));
        ASSERT(run);
        int ret = query(run, argv[2], argv[3], (unsigned)strtoul(argv[4], NULL, 10), atoi(argv[5]),
                        argc >= 7 && !strcmp(argv[6], "rw"));
        for (int i = 0; i < run->npaths; i++)
            free(run->paths[i]);
        free(run);
        return ret;
    }
    if (argc == 4 && !strcmp(argv[1], "compare"))
        return ixd_compare(argv[2], argv[3]);
    fprintf(stderr, "usage: index_diff gen DIR SEED | query FILE PATHS SEED N [rw] | compare STOCK TURBO\n");
    return 2;
}
