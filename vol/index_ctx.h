/* index_ctx.h — what index.c and index_query.c share beyond the data model: the per-open and
 * per-object state hung on h5t_ctx_t / h5t_obj_t, and the loaders that fill the tables from the
 * connector below. */
#ifndef H5T_INDEX_CTX_H
#define H5T_INDEX_CTX_H

#include "index.h"
#include "index_int.h"

/* One open of a file (ctx->index). */
struct h5t_index_file {
    h5t_ix_data_t *d;
    unsigned long  fileno; /* of this open's shared file: how objects of this file are recognised */
    int            debug;
};

/* Per wrapper (o->idx): which file object it is, learned once. */
enum { H5T_IXO_UNKNOWN = 0, H5T_IXO_MINE, H5T_IXO_FOREIGN };
struct h5t_index_obj {
    int     state;
    uint8_t token[H5T_IX_TOKEN_NBYTES];
    /* The path native HDF5 would have recorded for an object the index opened by token (and
     * for attributes opened from it): what H5Iget_name must return. NULL otherwise. */
    char *path;
};

/* Something in the file to make by-token calls against (the query's location object). */
typedef struct h5t_ix_anchor {
    void      *under;
    hid_t      vol;
    H5I_type_t type;
} h5t_ix_anchor_t;

/* The data of o's file when the index may answer for o (o is in that file), else NULL. Sets
 * token_out to o's own token. Drops stale data of writable files first. */
h5t_ix_data_t *h5t_ix_for(h5t_obj_t *o, H5I_type_t obj_type, uint8_t *token_out);


/* Makes sure the links of group object `oi` are loaded (under_grp: the group already opened
 * below, or NULL to open it by token through `a`). With want_info, also the object info of every
 * hard-link target. 0 on success, -1 when it cannot (caller forwards). */
int h5t_ix_load_group(h5t_ix_data_t *d, const h5t_ix_anchor_t *a, uint32_t oi, void *under_grp, int want_info);
/* Stores the result of an H5Oget_info made below (all fields) in object record `oi`. */
void h5t_ix_store_info(h5t_ix_data_t *d, uint32_t oi, const H5O_info2_t *info);

/* o's per-wrapper state, created zeroed on first need (NULL when out of memory). */
struct h5t_index_obj *h5t_ix_obj_state(h5t_obj_t *o);

/* Counters (index.c) */
extern h5t_index_stats_t h5t_ix_stats;

#endif
