/* index_diff.h — what the scenarios of the index's differential test share with its driver
 * (index_diff.c): the state of one run, passed explicitly, the random stream, the tree's paths,
 * the transcript's step headers that name a scenario and a query, and each scenario's entry points. */
#ifndef IXD_INDEX_DIFF_H
#define IXD_INDEX_DIFF_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "tb_test.h"

/* ------------------------------------------------------------------ the state of a run */

/* What a path of the tree is (the paths file holds them as "KIND PATH" lines, these numbers). */
enum {
    IXD_OTHER = 0, /* another object (a committed datatype) */
    IXD_GROUP = 1,
    IXD_LINK  = 2, /* a soft or external link */
    IXD_DSET  = 3,
    IXD_SMALL = 4  /* a small dataset (the generator's gen_small) or a path to one */
};

#define IXD_MAXP  4096 /* paths at most: the tree's, and those modifications add */
#define IXD_NHOT  8    /* small datasets the queries come back to */
#define IXD_NHELD 3    /* datasets held open across queries */

typedef struct ixd {
    uint64_t rng; /* xorshift state: a run is a function of its seed */
    char    *paths[IXD_MAXP];
    int      kind[IXD_MAXP];
    int      npaths;
    /* The members of the tree's wide group (index_diff_gen.c), by their index in paths. */
    int wide[IXD_MAXP];
    int nwide;
    /* A read-write run: objects it creates get the clock's time, and their file addresses depend on
     * which headers were read before (HDF5 rewrites some headers it reads), which the index changes:
     * neither is printed. */
    int           rw;
    hid_t         f;           /* the file the queries run on */
    unsigned long root_fileno; /* its fileno: infos print "same" or "other" */
    int           hot[IXD_NHOT], nhot;
    hid_t         held[IXD_NHELD];
    char          held_name[IXD_NHELD][1200];
    /* The query being run: its number and the driver's draw of its kind (ixd_query prints both). */
    int q, op;
} ixd_t;

/* A uniform draw in [0, n) (0 when n is 0), and the raw state after one more step. */
uint32_t ixd_rnd(ixd_t *run, uint32_t n);
uint64_t ixd_rnd64(ixd_t *run);

void ixd_add_path(ixd_t *run, const char *p, int kind);
int  ixd_random_of_kind(ixd_t *run, int kind); /* the index of a random path of that kind */
int  ixd_random_group(ixd_t *run);
/* A name a query asks for: mostly a path of the tree, sometimes a missing one, one with a trailing
 * or doubled slash, or one through a soft or external link; into buf when it is built. */
const char *ixd_random_name(ixd_t *run, char *buf, size_t n);
/* A new child path of parent, named from a word and k. */
void ixd_child_path(ixd_t *run, char *out, size_t n, const char *parent, int k);
extern const char *const ixd_words[20];

/* ------------------------------------------------------------------ the transcript
 * Each step of a run begins with a header line "## SCENARIO | LABEL | WHAT" that says which
 * scenario and query the lines after it belong to; `index_diff compare` names the first step whose
 * lines differ between stock HDF5 and h5turbo. ixd_query prints a query's header (label "query
 * N") and its "QN op=K loc=L name=P: " line; the description is printf-formatted. */
void ixd_step(const char *scenario, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ixd_query(const ixd_t *run, const char *scenario, hid_t loc, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ------------------------------------------------------------------ shared draws and printers */

/* An iteration callback's state: print each call, stop (or fail) after a chosen number of calls. */
typedef struct ixd_cb {
    const ixd_t *run;
    int          n, stop_at, stop_ret;
    unsigned     fields; /* H5Ovisit: the fields asked for */
} ixd_cb_t;
void   ixd_stop_rule(ixd_t *run, ixd_cb_t *s);
herr_t ixd_stop_or_go(ixd_cb_t *s);
/* The rule in words: "to the end", "failing at call 2", "stopping at call 3 with 1". */
const char *ixd_stop_str(const ixd_cb_t *s, char *buf, size_t n);

H5_index_t      ixd_rnd_idx(ixd_t *run);
H5_iter_order_t ixd_rnd_order(ixd_t *run);
unsigned        ixd_rnd_fields(ixd_t *run);
const char     *ixd_fields_str(unsigned fields); /* H5O_INFO_* in words */
const char     *ixd_idx_str(H5_index_t idx);
const char     *ixd_order_str(H5_iter_order_t order);

void ixd_print_token(const ixd_t *run, const H5O_token_t *tok);
void ixd_print_linfo(const ixd_t *run, const H5L_info2_t *li);
void ixd_print_oinfo(const ixd_t *run, const H5O_info2_t *oi, unsigned fields);
/* The most specific error of the stack (what h5py turns into its exception), then clears it. */
void ixd_print_innermost_error(void);
void ixd_print_id(hid_t id); /* [type name] of an ID handed to a callback */

/* ------------------------------------------------------------------ scenarios */

/* generator (index_diff_gen.c): `gen DIR SEED`. Also the values of datasets, which the small-dataset
 * scenario writes too: n elements of type t in t's own representation, deterministic from the
 * stream, variable-length parts allocated from the pool. */
int ixd_gen(const char *dir, unsigned seed);
/* A random group creation property list (symbol table, compact or dense, creation order tracked,
 * indexed or not; *kind_out says which), for the generator and for modifications. */
hid_t ixd_random_gcpl(ixd_t *run, int *kind_out);
#define IXD_NPOOL 4096
typedef struct ixd_pool {
    void *p[IXD_NPOOL];
    int   n;
} ixd_pool_t;
void ixd_make_data(ixd_t *run, ixd_pool_t *pool, hid_t t, size_t n, unsigned char *buf);
void ixd_pool_free(ixd_pool_t *pool);

/* Each query scenario answers the kinds of query the driver draws for it (`kind`), at location loc
 * (the file, or a group opened by a random path) for a random name. */
typedef void (*ixd_query_fn)(ixd_t *run, hid_t loc, const char *name, int kind);
typedef struct ixd_scenario {
    const char  *name;
    ixd_query_fn query;
} ixd_scenario_t;

/* link and group queries (index_diff_links.c) */
enum { IXD_LEXISTS, IXD_LINFO, IXD_LINFO_BY_IDX, IXD_LVAL, IXD_GINFO, IXD_GOPEN };
extern const ixd_scenario_t ixd_links;
/* visits and iterations (index_diff_visit.c) */
enum { IXD_LITERATE, IXD_LITERATE_BY_NAME, IXD_LVISIT, IXD_OVISIT };
extern const ixd_scenario_t ixd_visits;
/* object info and opens (index_diff_objects.c) */
enum { IXD_OINFO, IXD_OINFO_BY_IDX, IXD_OEXISTS, IXD_OOPEN, IXD_DOPEN, IXD_TOPEN };
extern const ixd_scenario_t ixd_objects;
/* deprecated calls (index_diff_deprecated.c) */
enum { IXD_LITERATE1, IXD_OVISIT1, IXD_OINFO1 };
extern const ixd_scenario_t ixd_deprecated;
/* H5Gget_objinfo's answer r and statbuf, on the current line (header details: read-only runs). */
void ixd_print_stat(const ixd_t *run, herr_t r, const H5G_stat_t *sb);
/* Objects opened after the queries and used again after H5Fclose (they keep the file open, and
 * still answer), with what the transcript calls them. */
typedef struct ixd_late {
    hid_t id;
    char  what[1300];
} ixd_late_t;

/* attributes (index_diff_attrs.c) */
enum { IXD_AOPEN_BY_NAME, IXD_AOPEN_AS_LOC, IXD_AOPEN_ON_OBJECT };
extern const ixd_scenario_t ixd_attrs;
const char *ixd_random_attr_name(ixd_t *run); /* one the tree has, or does not */
void        ixd_print_attr(hid_t f, hid_t a); /* everything loaders and h5py ask of an open attribute */
/* Up to max attributes opened by path (none of the root group), then what they answer after
 * H5Fclose (f: the closed file's ID). */
int  ixd_attrs_late_open(ixd_t *run, const H5O_info2_t *root, ixd_late_t *late, int max);
void ixd_attrs_late_use(hid_t f, const ixd_late_t *late, int n);

/* small datasets (index_diff_dsets.c; what is asked of one open dataset in index_diff_dquery.c) */
enum { IXD_DLOAD, IXD_DPROBE, IXD_DHELD };
extern const ixd_scenario_t ixd_dsets;
void ixd_hot_init(ixd_t *run);
void ixd_hot_replace(ixd_t *run, int slot);
/* The datasets held open by the queries and two more opened now, then what they answer after
 * H5Fclose. */
int  ixd_dsets_late_open(ixd_t *run, ixd_late_t *late, int max);
void ixd_dsets_late_use(ixd_t *run, const ixd_late_t *late, int n);
/* index_diff_dquery.c: the memory types reads use (a kind for a file type, the type, its name), and
 * each thing asked of an open dataset, printed. */
extern const char *const ixd_mt_names[];
int     ixd_pick_mem_type(ixd_t *run, hid_t ft);
hid_t   ixd_make_mem_type(hid_t ft, int k); /* a new type to close, or -1 */
int     ixd_type_has(hid_t t, int what);    /* a variable-length part (what 0) or a reference (1) */
hsize_t ixd_dset_npoints(hid_t d);
void    ixd_read_whole(ixd_t *run, hid_t d, hid_t mt, const char *label, hid_t dxpl);
void    ixd_read_picked(ixd_t *run, hid_t d);
void    ixd_ds_space(hid_t d);
void    ixd_ds_type(hid_t d);
void    ixd_ds_storage(ixd_t *run, hid_t d);
void    ixd_ds_read_spaces(ixd_t *run, hid_t d);
void    ixd_ds_read_part(ixd_t *run, hid_t d);
void    ixd_ds_dcpl(hid_t d);
void    ixd_ds_dapl(hid_t d);
void    ixd_ds_oinfo(ixd_t *run, hid_t d);
void    ixd_ds_attrs(ixd_t *run, hid_t f, hid_t d);
void    ixd_ds_names(hid_t d);
void    ixd_ds_counts(hid_t f);
/* read-write modifications (index_diff_rw.c): one random change of links, objects or attributes
 * before query q; *ok counts those that succeeded. */
#define IXD_RW "read-write modifications"
void ixd_modify(ixd_t *run, int q, int *ok);

/* The line a run prints in a step where an HDF5 call failed on a defect of HDF5 1.14's metadata
 * cache ("Read only entry modified??": a dense group's fractal-heap free-space header found
 * dirtied while protected read-only, seen in read-write runs when H5Ovisit1 asks every object's
 * heap sizes). It depends on what the cache holds at that moment, which any other reader of the
 * same metadata changes; compare compares the transcripts up to the step where stock's shows it.
 * ixd_watch_defects has HDF5 report such failures instead of printing errors. */
#define IXD_DEFECT_LINE                                                                                    \
    "  (HDF5 metadata cache defect in this call: \"Read only entry modified??\"; not compared from here)"
void ixd_watch_defects(void);
/* The transcripts' comparison (index_diff_compare.c): 0 identical, 1 (the first difference named
 * on stdout), 2 unreadable. */
int ixd_compare(const char *stock, const char *turbo);

#endif
