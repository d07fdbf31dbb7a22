/* pipeline_int.h — what the files of the chunk pipeline share: the per-dataset state (filter
 * stages, chunk shape, fill value), the plan of one H5Dread/H5Dwrite (file box, user-buffer
 * mapping, chunks touched), and the chunk codec and copy helpers. Internal to vol/pipeline*.c. */
#ifndef H5T_PIPELINE_INT_H
#define H5T_PIPELINE_INT_H

#include "pipeline.h"

#if defined(__has_include)
#if __has_include("h5t_blosc_codec.h")
#include "h5t_blosc_codec.h"
#define H5T_PIPE_HAVE_BLOSC 1
#endif
#endif

#define H5T_PIPE_MAX_STAGES 8
#define H5T_PIPE_RANK       H5S_MAX_RANK

typedef enum h5t_stage_kind {
    H5T_STAGE_SHUFFLE,
    H5T_STAGE_DEFLATE,
    H5T_STAGE_FLETCHER32,
    H5T_STAGE_BLOSC
} h5t_stage_kind_t;

/* One filter of the dataset's pipeline, in HDF5's order (index 0 is applied first on write and
 * last on read; bit i of a chunk's filter mask says filter i was skipped). */
typedef struct h5t_pipe_stage {
    h5t_stage_kind_t kind;
    unsigned         param;     /* shuffle: element size; deflate: level */
    size_t           in_nbytes; /* size of a full chunk entering this stage on write; 0 if unknown */
#ifdef H5T_PIPE_HAVE_BLOSC
    h5t_blosc_params_t blosc;
#endif
} h5t_pipe_stage_t;

/* Per-dataset state, created on first read/write and kept until the wrapper is released. Only
 * the application's thread writes it; workers read it while a job runs. */
typedef struct h5t_pipe_dset {
    int              state;        /* 0: not examined yet, 1: eligible, -1: always forward */
    int              rank;
    hsize_t          chunk[H5T_PIPE_RANK];
    size_t           type_nbytes;
    size_t           chunk_nelem, chunk_nbytes;
    size_t           buf_nbytes;   /* capacity of a codec buffer: the largest any stage can emit */
    hid_t            type_id;      /* transient copy of the file type, for H5Tequal */
    int              nstages;
    h5t_pipe_stage_t stages[H5T_PIPE_MAX_STAGES];
    uint8_t         *fill;         /* one element of the fill value; NULL: chunks start zeroed */
    int              skip_missing; /* reads leave the buffer alone where chunks are unallocated */
    /* Which dataset this is: two handles on one dataset share its chunks (write-behind). */
    unsigned long        fileno;   /* H5O_info2_t.fileno: one per open file, shared by reopens */
    H5O_token_t          token;
    int                  have_token;
    struct h5t_behind_q *behind;   /* write-behind queue (pipeline_behind.c), NULL until used */
} h5t_pipe_dset_t;

/* One H5Dread/H5Dwrite: the file box, where each element of it lives in the user's buffer, and
 * the range of chunks the box touches. */
typedef struct h5t_pipe_plan {
    int     rank;
    size_t  es;                       /* element size */
    hsize_t dims[H5T_PIPE_RANK];      /* current extent */
    hsize_t fstart[H5T_PIPE_RANK];    /* file box */
    hsize_t fcount[H5T_PIPE_RANK];
    size_t  mstride[H5T_PIPE_RANK];   /* bytes between neighbours along each file dim, in the buffer */
    size_t  mbase;                    /* byte offset of the box's first element in the buffer */
    hsize_t clo[H5T_PIPE_RANK];       /* chunks touched: scaled [clo, chi) per dim */
    hsize_t chi[H5T_PIPE_RANK];
    size_t  nchunks;
    size_t  npoints;
} h5t_pipe_plan_t;

/* The part of one chunk a plan touches. */
typedef struct h5t_pipe_region {
    hsize_t cnt[H5T_PIPE_RANK];       /* extent of the intersection */
    size_t  chunk_off;                /* byte offset of its first element in the chunk buffer */
    size_t  user_off;                 /* ... and in the user's buffer */
    int     full;                     /* it covers every in-extent element of the chunk */
    int     edge;                     /* the chunk reaches past the extent */
    int     direct;                   /* full, not edge, and laid out in the user's buffer exactly as
                                       * in the chunk: codecs may read/write the user's buffer */
} h5t_pipe_region_t;

/* ---- pipeline.c, for pipeline_behind.c */
extern h5t_pipe_stats_t h5t_pipe_stats_g; /* application's thread only */
herr_t h5t_pipe_chunk_write(h5t_obj_t *o, const hsize_t *offset, hid_t dxpl_id, size_t nbytes, const void *buf);

/* ---- pipeline_behind.c (application's thread) */
/* Queues the write of plan's chunks (all fully covered, none past the extent) and returns before
 * they are filtered and written: 1 when queued, 0 when the caller must write synchronously. */
int  h5t_pipe_behind_write(h5t_obj_t *o, h5t_pipe_dset_t *p, const h5t_pipe_plan_t *plan, hid_t dxpl_id,
                           const void *buf);
/* Frees p's queue after writing what is pending through o. */
void h5t_pipe_behind_release(h5t_obj_t *o, h5t_pipe_dset_t *p);

/* ---- pipeline_select.c */
/* Builds the plan; 0 when the selections are not ones the pipeline handles (forward). */
int  h5t_pipe_plan_make(const h5t_pipe_dset_t *p, const hsize_t *dims, hid_t file_space_id, hid_t mem_space_id,
                        h5t_pipe_plan_t *plan_out);
/* The element offset of the i-th chunk the plan touches (row-major order of chunk indices). */
void h5t_pipe_chunk_offset(const h5t_pipe_dset_t *p, const h5t_pipe_plan_t *plan, size_t i, hsize_t *offset_out);
void h5t_pipe_region(const h5t_pipe_dset_t *p, const h5t_pipe_plan_t *plan, const hsize_t *offset,
                     h5t_pipe_region_t *r_out);
/* Copies the region between a chunk buffer and the user's buffer. */
void h5t_pipe_gather(const h5t_pipe_dset_t *p, const h5t_pipe_plan_t *plan, const h5t_pipe_region_t *r,
                     uint8_t *chunk, const uint8_t *user);
void h5t_pipe_scatter(const h5t_pipe_dset_t *p, const h5t_pipe_plan_t *plan, const h5t_pipe_region_t *r,
                      const uint8_t *chunk, uint8_t *user);
/* Sets a whole chunk buffer to the fill value (or zeros). */
void h5t_pipe_fill_chunk(const h5t_pipe_dset_t *p, uint8_t *chunk);
/* Writes the fill value (or zeros) into the region of the user's buffer. */
void h5t_pipe_fill_user(const h5t_pipe_dset_t *p, const h5t_pipe_plan_t *plan, const h5t_pipe_region_t *r,
                        uint8_t *user);

/* ---- pipeline_codec.c (any thread; no HDF5 calls) */
/* Prepares stage sizes and p->buf_nbytes once the stages are known. H5T_ERR_UNSUPPORTED when a
 * stage cannot be run by the pipeline. */
h5t_status_t h5t_pipe_stages_prepare(h5t_pipe_dset_t *p);
/* Filters a full chunk (chunk_nbytes at `in`) through every stage. bufs: two buffers of
 * p->buf_nbytes. *out points into one of them. inner_threads: threads a codec that can split one
 * chunk (Blosc) may use; 1 when the job already runs a chunk per thread. */
h5t_status_t h5t_pipe_encode(const h5t_pipe_dset_t *p, const void *in, void *bufs[2], const void **out,
                             size_t *out_nbytes, unsigned inner_threads);
/* Undoes the stages not skipped by `mask` on raw (raw_nbytes, writable; checksums are removed in
 * place). `direct`, when not NULL, is where the chunk_nbytes of output should go if the last
 * stage can write there. *out is the decoded chunk: direct, raw, or one of bufs. edc: verify
 * fletcher32. H5T_ERR_CORRUPT / H5T_ERR_CHECKSUM on bad input, including a size that is not
 * chunk_nbytes. inner_threads as for h5t_pipe_encode. */
h5t_status_t h5t_pipe_decode(const h5t_pipe_dset_t *p, void *raw, size_t raw_nbytes, uint32_t mask, int edc,
                             void *bufs[2], void *direct, const void **out, unsigned inner_threads);

#endif
