/* pipeline.h — the parallel chunk pipeline of the h5turbo connector: what dataset.c, file.c and
 * wrap.c call. H5Dwrite/H5Dread and their multi-dataset forms of eligible datasets (chunked, only
 * shuffle/deflate/fletcher32/Blosc filters, numeric or no type conversion; boxes, strided
 * hyperslabs and unions of boxes, and on reads also points and other pairs listed as runs) are
 * filtered on the thread pool and moved with native direct chunk I/O; everything else is left to
 * the caller to forward. */
#ifndef TB_PIPELINE_H
#define TB_PIPELINE_H

#include "tb_obj.h"

/* Try the pipeline for a one-dataset H5Dwrite/H5Dread. TB_ANSWERED when the call was handled,
 * with its result in *ret_out; TB_FORWARD when the caller must forward the call to the connector
 * below unchanged: not eligible, moving less than H5TURBO_PIPELINE_MIN_NBYTES (16 KiB by default),
 * asynchronous (req) on a connector below other than native (native runs an event set's calls
 * synchronously and makes no request: so does the pipeline, leaving *req alone), or
 * the pipeline failed part-way (native then redoes the whole call, which rewrites or rereads
 * every chunk, and reports any error exactly as HDF5 does). */
tb_answer_t tb_pipe_write(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id,
                   const void *buf, void **req, herr_t *ret_out);
tb_answer_t tb_pipe_read(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id,
                  void *buf, void **req, herr_t *ret_out);

/* Multi-dataset calls through the pipeline at once: the datasets of an H5Dread_multi it takes run
 * as one set on the pool (no dataset waits for the one before it to finish); then, in the
 * caller's order, the reads converted on the application's thread one at a time and forward(i)
 * for each dataset it does not take (the caller passes that dataset's read to the connector
 * below), so that a conversion exception callback sees the datasets in the caller's order.
 * Returns -1 when the call failed (a conversion's, a drain's or a forwarded read's error is on
 * the stack), else 0. */
typedef herr_t (*tb_pipe_forward_fn)(size_t i, void *ctx);
herr_t tb_pipe_read_multi(size_t count, void *const dset[], const hid_t mem_type_id[], const hid_t mem_space_id[],
                          const hid_t file_space_id[], hid_t dxpl_id, void *const buf[], tb_pipe_forward_fn forward,
                          void *forward_ctx);

/* The same for H5Dwrite_multi (write-behind queues the writes it takes, as for H5Dwrite). */
herr_t tb_pipe_write_multi(size_t count, void *const dset[], const hid_t mem_type_id[], const hid_t mem_space_id[],
                           const hid_t file_space_id[], hid_t dxpl_id, const void *const buf[],
                           tb_pipe_forward_fn forward, void *forward_ctx);

/* Whether the datasets of a multi-dataset call are distinct objects (native refuses one named
 * twice; the pipeline's sets assume none is): false also when that cannot be told. */
bool tb_pipe_multi_distinct(size_t count, void *const dset[], hid_t dxpl_id);

/* The pipeline's duties on objects (tb_obj.h): write queued chunks (write-behind) before
 * anything that can observe them, free per-dataset state with the wrapper. */
extern const tb_hooks_t tb_pipe_hooks;

/* o's dataset holds a chunk stored with a filter mask (the application wrote one with
 * H5Dwrite_chunk, or the pipeline read one): its writes through any handle take the care HDF5's
 * direct chunk writes then need (pipeline.c, tb_pipe_chunk_write). */
void tb_pipe_masked(tb_obj_t *o, hid_t dxpl_id);

/* The application's direct chunk write (H5VL_NATIVE_DATASET_CHUNK_WRITE, native below, no
 * request), forwarded. Where its filter mask may differ from the stored chunk's (a mask given, or
 * the dataset known to hold masked chunks) and it is as long as the stored chunk, HDF5 would keep
 * the stored mask (tb_pipe_chunk_write): it is written a byte shorter first, as the pipeline
 * writes its own. A mask given marks the dataset (tb_pipe_masked). */
herr_t tb_pipe_app_chunk_write(tb_obj_t *o, H5VL_optional_args_t *args, hid_t dxpl_id);

/* Frees the per-dataset state of o (called when the wrapper is released). */
void tb_pipe_release(tb_obj_t *o);

/* Write-behind (write_behind=1): H5Dwrite of whole chunks returns once the data is copied; the
 * chunks are filtered on the pool and written by the application's thread later. Every callback
 * that can observe or change stored chunks calls this first: it writes everything pending, of
 * every dataset. Returns -1 (with a message on the error stack) when a deferred write of o's own
 * dataset failed since the last call; o may be NULL. Costs nothing when nothing is pending. */
herr_t tb_pipe_drain(tb_obj_t *o, hid_t dxpl_id);

/* Counters, for tests and H5TURBO_STATS (printed at library close when set). */
typedef struct tb_pipe_stats {
    size_t writes, reads;                 /* calls the pipeline handled */
    size_t chunks_written, chunks_read;   /* chunks encoded / decoded by it */
    size_t chunks_rmw;                    /* partial chunks read-modified-written */
    size_t forwarded_writes, forwarded_reads; /* calls of filtered chunked datasets left to native */
    size_t fallbacks;                     /* calls retried through native after a pipeline failure */
    size_t behind_writes;                 /* calls queued by write-behind (also counted in writes) */
    size_t converted_reads, converted_writes; /* calls with a type conversion (also in reads, writes) */
    size_t chunks_pread;                  /* chunks the workers read themselves (read-only files) */
    size_t worker_conv_writes;            /* converted writes whose conversion the workers did */
    size_t chunks_cache_hits;             /* chunks reads took from the decoded-chunk cache */
    size_t small_cached_reads;            /* small reads within one chunk copied from that cache
                                           * (also in reads) */
    size_t block_reads;                   /* reads of unions of boxes, planned from HDF5's block
                                           * list (also in reads) */
    size_t listed_reads;                  /* reads of other selection pairs, listed as runs
                                           * (also in reads) */
    size_t selection_writes;              /* writes of regular hyperslabs and unions of boxes
                                           * (also in writes) */
    size_t set_reads;                     /* reads of H5Dread_multi run on the pool together with
                                           * another dataset's (also in reads) */
    size_t set_writes;                    /* writes of H5Dwrite_multi run likewise (also in writes) */
    size_t writer_left;                   /* chunks the application's thread, waiting to write
                                           * one, left to the workers rather than filter itself
                                           * (its writes bound the set: write_stream) */
    /* CPU time (ns) with H5TURBO_STATS set, for the serial fraction: of the application's thread
     * in the calls the pipeline handled (synchronous ones), and of chunk codec work (unfilter,
     * filter, copies, in the workers or on the application's thread) within them. What the
     * application's thread spends outside codec work does not parallelise. */
    uint64_t app_ns, codec_app_ns, codec_worker_ns;
    /* ... of the application's thread walking a chunk map beside the decoders (in app_ns:
     * serial, but overlapped with the decoding of the chunks of the read that walks it), and of
     * codec work on those chunks (in the codec counters: what the walk can hide behind). */
    uint64_t map_walk_ns, walk_codec_ns;
} tb_pipe_stats_t;
void tb_pipe_stats(tb_pipe_stats_t *out);

/* HDF5's own deflate, shuffle and fletcher32 filters replaced by ones on the pipeline's engines, for the
 * chunks native filters itself (pipeline_filters.c); once per process, said with `debug`. The
 * chunks those filters encoded and decoded since. */
void tb_pipe_native_filters_install(int debug);
void tb_pipe_native_filter_counts(size_t *filtered_out, size_t *unfiltered_out, size_t *pieced_out);

#endif
