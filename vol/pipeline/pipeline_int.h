/* pipeline_int.h — what the files of the chunk pipeline share: the per-dataset state (filter
 * stages, chunk shape, fill value), the plan of one H5Dread/H5Dwrite (file box, user-buffer
 * mapping, chunks touched), and the chunk codec and copy helpers. Internal to vol/pipeline*.c. */
#ifndef TB_PIPELINE_INT_H
#define TB_PIPELINE_INT_H

#include "pipeline.h"
#include "tb_h5query.h"

#if defined(__has_include)
#if __has_include("tb_blosc_codec.h")
#include "tb_blosc_codec.h"
#define TB_PIPE_HAVE_BLOSC 1
#endif
#endif

#define TB_PIPE_MAX_STAGES 8
#define TB_PIPE_RANK       H5S_MAX_RANK

typedef enum tb_stage_kind {
    TB_STAGE_SHUFFLE,
    TB_STAGE_DEFLATE,
    TB_STAGE_FLETCHER32,
    TB_STAGE_BLOSC
} tb_stage_kind_t;

/* One filter of the dataset's pipeline, in HDF5's order (index 0 is applied first on write and
 * last on read; bit i of a chunk's filter mask says filter i was skipped). */
typedef struct tb_pipe_stage {
    tb_stage_kind_t kind;
    unsigned         param;     /* shuffle: element size; deflate: level */
    size_t           in_nbytes; /* size of a full chunk entering this stage on write; 0 if unknown */
    int              optional;  /* H5Z_FLAG_OPTIONAL: a failing stage is skipped (filter mask bit) */
#ifdef TB_PIPE_HAVE_BLOSC
    tb_blosc_params_t blosc;
#endif
} tb_pipe_stage_t;

/* Where one stored chunk is (pipeline_map.c): file offset, stored size, filter mask. */
typedef struct tb_pipe_map_entry {
    uint64_t addr; /* UINT64_MAX: not stored */
    uint32_t nbytes, mask;
} tb_pipe_map_entry_t;
#define TB_PIPE_MAP_MAX ((size_t)1 << 22) /* chunks a map may describe (64 MiB of entries) */

/* Per-dataset state, created on first read/write and kept until the wrapper is released. Only
 * the application's thread writes it; workers read it while a job runs. */
typedef struct tb_pipe_dset {
    int              state;        /* 0: not examined yet, 1: eligible, -1: always forward */
    int              rank;
    hsize_t          chunk[TB_PIPE_RANK];
    size_t           type_nbytes;
    size_t           chunk_nelem, chunk_nbytes;
    size_t           buf_nbytes;   /* capacity of a codec buffer: the largest any stage can emit */
    hid_t            type_id;      /* transient copy of the file type, for H5Tequal */
    int              nstages;
    tb_pipe_stage_t stages[TB_PIPE_MAX_STAGES];
    /* Chunks may be stored with a filter mask (tb_pipe_chunk_write says what that asks of direct
     * chunk writes): a stage is optional, or masked chunks were met (tb_pipe_masked). */
    int              masked;
    uint8_t         *fill;         /* one element of the fill value; NULL: chunks start zeroed */
    int              skip_missing; /* reads leave the buffer alone where chunks are unallocated */
    size_t           cache_nbytes; /* the dataset's chunk cache (rdcc_nbytes) */
    /* Which dataset this is: two handles on one dataset share its chunks (write-behind). */
    unsigned long        fileno;   /* H5O_info2_t.fileno: one per open file, shared by reopens */
    H5O_token_t          token;
    int                  have_token;
    struct tb_behind_q *behind;   /* write-behind queue (pipeline_behind.c), NULL until used */
    /* Read-only sec2 files: every chunk's place, for preads from the workers (pipeline_map.c).
     * Built by the application's thread before a job starts, or while the job that walks it
     * runs (the workers read only the entries of chunks it released); read-only otherwise. */
    int                  map_state; /* 0: not tried yet, 1: built, 2: to be walked by a read's job
                                     * (tb_pipe_map_start), -1: not available */
    hsize_t              nchunk_dim[TB_PIPE_RANK];
    tb_pipe_map_entry_t *map;
    size_t               map_nchunks;
    /* Decoded chunks of reads that took only part of them (pipeline_cache.c), at most cache_max
     * (from the access list's chunk cache, as HDF5 sizes its own; 0: none); of every read whose
     * chunks fit once `keep_all` is set: when a chunk this handle decoded lately (`recent`, the
     * offsets of the last TB_PIPE_RECENT chunks it decoded and did not keep) is read again, as
     * HDF5's own cache keeps every filtered chunk it decodes. Application's thread only; a job
     * reads the entries it was handed while it runs. */
    size_t                  cache_max, cache_n;
    uint64_t                cache_gen, cache_tick;
    struct tb_pipe_cached *cache;
    int                     keep_all;
    size_t                  recent_n, recent_at;
    hsize_t (*recent)[TB_PIPE_RANK];
    /* The chunk a small read last tried to bring into that cache and that was not kept
     * (tb_pipe_cache_unkept). */
    int     unkept_valid;
    hsize_t unkept[TB_PIPE_RANK];
} tb_pipe_dset_t;

/* What a plan's file selection is. Reads take all five; writes boxes, strided and block plans. */
typedef enum tb_plan_kind {
    TB_PLAN_BOX,     /* one box */
    TB_PLAN_STRIDED, /* a regular hyperslab: along each dimension a run, or single elements
                      * `fstride` apart */
    TB_PLAN_POINTS,  /* a point selection, in the order the points were given */
    TB_PLAN_BLOCKS,  /* any other hyperslab: a union of disjoint boxes */
    TB_PLAN_RUNS     /* any other pair of selections, listed as runs (reads) */
} tb_plan_kind_t;

/* A run plan's stretch of elements contiguous in one chunk's buffer and in the user's. */
typedef struct tb_pipe_run {
    size_t coff; /* first element's offset in the chunk buffer (elements) */
    size_t uoff; /* ... in the user's buffer (bytes) */
    size_t len;  /* elements */
} tb_pipe_run_t;

/* One H5Dread/H5Dwrite: the file selection, where each element of it lives in the user's buffer,
 * and the chunks it touches. Along dimension d the selection has fcount[d] elements; the k-th
 * lies at fstart + k * fstride (fstride 1 for a run). HDF5 pairs the selection's elements in
 * row-major order with those of the memory selection. */
typedef struct tb_pipe_plan {
    tb_plan_kind_t kind;
    int     rank;
    size_t  es;                       /* element size in the user's buffer (the memory type's) */
    int     convert;                  /* the memory type differs from the file type: elements go
                                       * through H5Tconvert on the application's thread */
    hsize_t dims[TB_PIPE_RANK];      /* current extent */
    hsize_t fstart[TB_PIPE_RANK];    /* file box, or the regular hyperslab's pattern */
    hsize_t fcount[TB_PIPE_RANK];
    hsize_t fstride[TB_PIPE_RANK];
    size_t  mstride[TB_PIPE_RANK];   /* bytes between neighbours along each file dim, in the buffer */
    size_t  mbase;                    /* byte offset of the box's first element in the buffer */
    hsize_t clo[TB_PIPE_RANK];       /* chunks touched: scaled [clo, chi) per dim */
    hsize_t chi[TB_PIPE_RANK];
    size_t  nchunks;
    size_t  npoints;
    int     generic;                  /* runs listed from a selection pair no other plan takes */
    /* Strided and point plans: the element offsets of the chunks touched, rank per chunk, in
     * chunk order (NULL for a box: every chunk of [clo, chi) is touched). */
    hsize_t *coffs;
    /* Point plans: the points sorted by chunk (stable, so that each chunk's keep the given
     * order), their byte offsets in the user's buffer (NULL when the points came grouped by
     * chunk: the k-th goes to mbase + k * es, or with mem_all where its coordinates say), and
     * where each chunk's points start (nchunks + 1 entries; run plans: its runs). */
    hsize_t *pts;
    size_t  *pt_user_off;
    size_t  *pt_first;
    /* Run plans: the runs grouped by chunk, each chunk's in HDF5's order. */
    tb_pipe_run_t *runs;
    size_t         nruns;
    /* Block plans: the selection's boxes (HDF5's block list: first and last element per dim,
     * 2 x rank each), and where the k-th selected element goes in the user's buffer: mem_all (also
     * point plans), a buffer shaped like the dataset (from the element's coordinates), else the
     * k-th element of one memory box (mcount, byte strides mbst from mbase; mcontig: its elements
     * follow one another). */
    hsize_t *blocks;
    size_t   nblocks;
    int      mem_all, mcontig, mrank;
    hsize_t  mcount[TB_PIPE_RANK];
    size_t   mbst[TB_PIPE_RANK];
} tb_pipe_plan_t;

/* The part of one chunk a plan touches. */
typedef struct tb_pipe_region {
    hsize_t cnt[TB_PIPE_RANK];       /* extent of the intersection (selected elements per dim) */
    size_t  cstride[TB_PIPE_RANK];   /* bytes between them in the chunk buffer */
    size_t  pt0, pt1;                /* point plans: the chunk's points [pt0, pt1) (run plans: runs) */
    hsize_t coff[TB_PIPE_RANK];      /* block plans: the chunk's offset */
    size_t  chunk_off;                /* byte offset of its first element in the chunk buffer */
    size_t  user_off;                 /* ... and in the user's buffer */
    int     full;                     /* it covers every in-extent element of the chunk */
    int     edge;                     /* the chunk reaches past the extent */
    int     direct;                   /* full, not edge, and laid out in the user's buffer exactly as
                                       * in the chunk: codecs may read/write the user's buffer */
} tb_pipe_region_t;

/* ---- pipeline.c, for pipeline_behind.c and pipeline_map.c */
extern tb_pipe_stats_t tb_pipe_stats_g; /* application's thread only */
/* The counters are printed at library close (H5TURBO_STATS): registered once, by what uses them. */
void tb_pipe_register_stats(void);
/* What is stored for one chunk (its size in *nbytes_out when TB_PIPE_STORED_YES); what native
 * pushed for a chunk not stored is cleared. Native's storage-size query flushes a dirty cached
 * copy of the chunk first, so what it reports is what a direct read will see. */
typedef enum {
    TB_PIPE_STORED_FAILED   = -1,
    TB_PIPE_STORED_NONE     = 0,
    TB_PIPE_STORED_YES      = 1,
    TB_PIPE_STORED_NO_INDEX = 2 /* (the dataset has no chunk index yet) */
} tb_pipe_stored_t;
tb_pipe_stored_t tb_pipe_chunk_stored(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id, size_t *nbytes_out);
/* Native's direct read of the stored chunk at offset into buf (buf_nbytes long: at least what
 * tb_pipe_chunk_stored said), its filter mask in *mask_out. */
herr_t tb_pipe_chunk_read(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id, uint32_t *mask_out, void *buf,
                          size_t buf_nbytes);
herr_t tb_pipe_chunk_write(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id, uint32_t mask, size_t nbytes,
                            const void *buf);
/* A look-up of the chunk at offset, its answer and errors dropped: after direct writes of other
 * chunks, that HDF5 forgets the mask it kept of the last one (tb_pipe_chunk_write). */
void tb_pipe_chunk_forget(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id);
/* Whether the chunk at offset is stored with a filter mask (1; 0 no or not stored; -1 not known),
 * which then marks the dataset (tb_pipe_masked): before a write of that one chunk alone. */
int tb_pipe_chunk_stored_masked(tb_obj_t *o, const hsize_t *offset, hid_t dxpl_id);

/* ---- pipeline_behind.c (application's thread) */
/* Queues the write of plan's chunks (all fully covered, none past the extent) and returns before
 * they are filtered and written: 1 when queued, 0 when the caller must write synchronously. */
int  tb_pipe_behind_write(tb_obj_t *o, tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, hid_t dxpl_id,
                           const void *buf);
/* Frees p's queue after writing what is pending through o. */
void tb_pipe_behind_release(tb_obj_t *o, tb_pipe_dset_t *p);

/* ---- pipeline_select.c */
/* Builds the plan; 0 when the selections are not ones the pipeline handles (forward).
 * mem_type_nbytes: the size of an element in the user's buffer; convert: it is not the file
 * type (no chunk is then laid out in the user's buffer as in the file); how: TB_PIPE_PLAN_WRITE
 * boxes, regular hyperslabs and unions of boxes (the selections whose plans can cover a chunk
 * whole: other writes are native's); TB_PIPE_PLAN_DENSE also lists selections element by element
 * that are dense in their chunks (else only sparse ones are: tests take everything). A plan made
 * is released with tb_pipe_plan_free. */
#define TB_PIPE_PLAN_DENSE    2
#define TB_PIPE_PLAN_WRITE    4
int  tb_pipe_plan_make(const tb_pipe_dset_t *p, const hsize_t *dims, hid_t file_space_id, hid_t mem_space_id,
                        size_t mem_type_nbytes, int convert, int how, tb_pipe_plan_t *plan_out);
void tb_pipe_plan_free(tb_pipe_plan_t *plan);
/* The element offset of the i-th chunk the plan touches (row-major order of chunk indices). */
void tb_pipe_chunk_offset(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, size_t i, hsize_t *offset_out);
void tb_pipe_region(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const hsize_t *offset,
                     tb_pipe_region_t *r_out);
/* Copies the region between a chunk buffer and the user's buffer (gather: the plans writes
 * take). The functions returning int return 0 when memory ran out (block plans list a chunk's
 * rows), having copied nothing or part. */
int  tb_pipe_gather(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                     uint8_t *chunk, const uint8_t *user);
int  tb_pipe_scatter(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                     const uint8_t *chunk, uint8_t *user);
/* Conversion: a region's elements as one dense array in row-major order (the order in which
 * HDF5 converts them), between it and a chunk buffer (file type) or the user's buffer (memory
 * type). */
size_t tb_pipe_region_nelem(const tb_pipe_dset_t *p, const tb_pipe_region_t *r);
int    tb_pipe_pack_chunk(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                          const uint8_t *chunk, uint8_t *dense);
void tb_pipe_pack_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                        const uint8_t *user, uint8_t *dense);
/* Writes: a dense array of the region's elements (file type) into a chunk buffer (box plans). */
void tb_pipe_unpack_chunk(const tb_pipe_dset_t *p, const tb_pipe_region_t *r, const uint8_t *dense, uint8_t *chunk);
int  tb_pipe_unpack_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                         const uint8_t *dense, uint8_t *user);
/* Sets nelem dense elements (file type) to the fill value (or zeros). */
void tb_pipe_fill_dense(const tb_pipe_dset_t *p, uint8_t *dense, size_t nelem);
/* Sets a whole chunk buffer to the fill value (or zeros). */
void tb_pipe_fill_chunk(const tb_pipe_dset_t *p, uint8_t *chunk);
/* Writes the fill value (or zeros) into the region of the user's buffer. */
int  tb_pipe_fill_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                       uint8_t *user);

/* ---- pipeline_map.c */
/* Hooks (application's thread): read-only sec2 files are noted with their descriptor when
 * opened and forgotten when the application closes them. */
void tb_pipe_file_opened(tb_obj_t *file, const char *name, unsigned flags, hid_t fapl_id, int created);
void tb_pipe_file_closing(tb_obj_t *file);
void tb_pipe_ctx_release(tb_ctx_t *ctx);
/* The descriptor of o's file when it is a noted one and the dataset lies in it (fileno: the
 * dataset's own, from H5Oget_info; external links lead elsewhere); -1 otherwise. */
int  tb_pipe_file_fd(const tb_obj_t *o, unsigned long fileno);
/* Datasets of a noted file that examine() found not to be the pipeline's (contiguous or compact,
 * chunked without filters, a type or filter it does not take: what the dataset's creation list
 * and type say, which do not change in a read-only file): whether the dataset at `token` of file
 * `fileno` is one (`add`: it is now). False for datasets of files not noted. */
bool tb_pipe_file_not_ours(const tb_obj_t *o, unsigned long fileno, const H5O_token_t *token, bool add);
/* Builds p's chunk map (application's thread): 1 built, 0 not possible (too many chunks, none
 * stored, or the addresses do not match a direct chunk read). */
int  tb_pipe_map_build(tb_obj_t *o, tb_pipe_dset_t *p, const hsize_t *dims, hid_t dxpl_id, int fd);
/* A walk of the chunk index overlapped with a read's decoding: tb_pipe_map_start checks the
 * read's first chunk (at `first`) and installs a map of no stored chunk (1; 0 when the walk
 * cannot be overlapped: an index not walked in row-major order of the chunks, or that chunk not
 * stored; -1 when the map is unusable); tb_pipe_map_walk then fills it on the application's
 * thread, calling progress(ctx, lin) after each entry it fills (lin: the chunk's row-major index;
 * progress returns 0 to stop the walk as failed), and returns 1 when it took every entry. Once no
 * thread reads it any more, tb_pipe_map_drop frees the map of a walk that failed (state -1: no
 * map for this dataset) or never ran (state 0: tried again at the next read). */
typedef int (*tb_pipe_map_progress_fn)(void *ctx, size_t lin);
int  tb_pipe_map_start(tb_obj_t *o, tb_pipe_dset_t *p, const hsize_t *dims, const hsize_t *first, hid_t dxpl_id,
                       int fd);
int  tb_pipe_map_walk(tb_obj_t *o, tb_pipe_dset_t *p, hid_t dxpl_id, tb_pipe_map_progress_fn progress, void *ctx);
void tb_pipe_map_drop(tb_pipe_dset_t *p, int state);
/* The row-major index in p's chunk grid (p->nchunk_dim, set with the map) of the chunk at offset:
 * the map's index of it. */
size_t tb_pipe_map_lin(const tb_pipe_dset_t *p, const hsize_t *offset);
/* The entry of the chunk at offset, NULL when it is not stored (any thread). */
const tb_pipe_map_entry_t *tb_pipe_map_find(const tb_pipe_dset_t *p, const hsize_t *offset);
/* Reads a stored chunk (any thread): TB_OK or TB_ERR_IO. */
tb_status_t tb_pipe_map_pread(int fd, const tb_pipe_map_entry_t *e, void *buf);

/* ---- pipeline_cache.c (application's thread) */
#define TB_PIPE_CACHE_MAX 512 /* decoded chunks one dataset handle keeps at most */
#define TB_PIPE_RECENT 64     /* offsets of chunks decoded and not kept one handle remembers */
/* Sizes p's cache from the dataset's chunk-cache settings (H5Pget_chunk_cache of its access
 * list): as many chunks as fit in rdcc_nbytes, none when rdcc_nbytes or rdcc_nslots is 0 or a
 * chunk is larger than rdcc_nbytes (HDF5 does not cache those either). */
void           tb_pipe_cache_config(tb_pipe_dset_t *p, size_t rdcc_nslots, size_t rdcc_nbytes);
/* The decoded chunk at offset (chunk_nbytes, file type), or NULL. Everything cached is dropped
 * first when anything may have written chunks since it was cached (tb_pipe_cache_written). */
const uint8_t *tb_pipe_cache_find(tb_pipe_dset_t *p, const hsize_t *offset);
/* Keeps `data` (a tb_buf of chunk_nbytes, now owned by the cache) as the chunk at offset,
 * evicting the least recently used when full. */
void           tb_pipe_cache_put(tb_pipe_dset_t *p, const hsize_t *offset, uint8_t *data);
void           tb_pipe_cache_drop(tb_pipe_dset_t *p);
/* Whether the chunk at offset is cached or was decoded lately by this handle (and not kept): a
 * read of it that native would serve from its own cache, had native decoded it. */
int            tb_pipe_cache_seen(tb_pipe_dset_t *p, const hsize_t *offset);
/* Notes the chunk at offset decoded and not kept (where tb_pipe_cache_reread looks). */
void           tb_pipe_cache_note_decoded(tb_pipe_dset_t *p, const hsize_t *offset);
/* Whether the chunk at offset, not cached, was decoded lately (sets keep_all when it was). */
int            tb_pipe_cache_reread(tb_pipe_dset_t *p, const hsize_t *offset);
/* A chunk a small read ran through the pipeline to bring into the cache, which did not keep it
 * (unallocated, a failed decode): remembered (the last one), so that small reads of it go to
 * native rather than through a full read each (tb_pipe_read). tb_pipe_cache_unkept tells. */
void           tb_pipe_cache_note_unkept(tb_pipe_dset_t *p, const hsize_t *offset);
int            tb_pipe_cache_unkept(const tb_pipe_dset_t *p, const hsize_t *offset);
/* Something may have written chunks of some dataset (any H5Dwrite through the connector, a
 * direct chunk write, a change of extent...): every cache is stale. */
void           tb_pipe_cache_written(void);

/* ---- pipeline_codec.c (any thread; no HDF5 calls) */
/* Prepares stage sizes and p->buf_nbytes once the stages are known. TB_ERR_UNSUPPORTED when a
 * stage cannot be run by the pipeline. */
tb_status_t tb_pipe_stages_prepare(tb_pipe_dset_t *p);
/* Filters a full chunk (chunk_nbytes at `in`) through every stage. bufs: two buffers of
 * p->buf_nbytes. *out points into one of them (or is `in`, when every stage was skipped).
 * *mask_out: the filter mask to store with the chunk, a bit per optional stage that failed as
 * HDF5's filter would and was skipped. inner_threads: threads a codec that can split one chunk
 * (Blosc) may use; 1 when the job already runs a chunk per thread. */
tb_status_t tb_pipe_encode(const tb_pipe_dset_t *p, const void *in, void *bufs[2], const void **out,
                             size_t *out_nbytes, uint32_t *mask_out, unsigned inner_threads);
/* Undoes the stages not skipped by `mask` on raw (raw_nbytes, writable; checksums are removed in
 * place). `direct`, when not NULL, is where the chunk_nbytes of output should go if the last
 * stage can write there. *out is the decoded chunk: direct, raw, or one of bufs. edc: verify
 * fletcher32. TB_ERR_CORRUPT / TB_ERR_CHECKSUM on bad input, including a size that is not
 * chunk_nbytes. inner_threads as for tb_pipe_encode. */
tb_status_t tb_pipe_decode(const tb_pipe_dset_t *p, void *raw, size_t raw_nbytes, uint32_t mask, int edc,
                             void *bufs[2], void *direct, const void **out, unsigned inner_threads);

#endif
