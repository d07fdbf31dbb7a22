/* index_spill.h — where a large index keeps its tables and records: past a threshold, in an
 * unnamed temporary file of the reader's cache mapped into memory, whose pages the process lets go
 * of as it fills it, so that a first open of a large file holds what stock holds plus the pages it
 * is using (the rest is the kernel's page cache, reclaimable: written to the file when memory is
 * short). Pure C and POSIX; without a spill (NULL) every call is plain malloc/realloc/free. */
#ifndef TB_INDEX_SPILL_H
#define TB_INDEX_SPILL_H

#include "tb_common.h"

#include <stddef.h>
#include <stdint.h>

/* The growable tables of an index: each has its own region of the file and grows in place. */
enum { TB_IX_LANE_OBJS = 0, TB_IX_LANE_DSETS, TB_IX_LANE_GROUPS, TB_IX_LANE_ATTRS,
       TB_IX_LANE_NINFOS, TB_IX_NLANES };

typedef struct tb_ix_spill tb_ix_spill_t;

/* `from` of a spill that decides by itself: past TB_IX_SPILL_AUTO_MIN bytes of its own, it uses
 * its file once the process's spills hold in memory more than a quarter of the rest of the
 * process's resident memory less 2 MiB (what a spill using its file may hold of it on top;
 * /proc/self/statm, looked at every TB_IX_SPILL_AUTO_MIN it grows by; without /proc, at
 * TB_IX_SPILL_AUTO_MIN). An index then adds at most about a quarter to what the application holds,
 * whatever the process's size. */
#define TB_IX_SPILL_AUTO     UINT64_MAX
#define TB_IX_SPILL_AUTO_MIN ((uint64_t)1 << 20)

/* A spill that starts using a file once `from` bytes were allocated through it (or when
 * TB_IX_SPILL_AUTO says); open(arg) then gives it a file descriptor (a private, unnamed, empty
 * file it takes), or -1: none, and it never asks again. NULL when out of memory (the caller goes
 * on without one). */
tb_ix_spill_t *tb_ix_spill_new(uint64_t from, int (*open)(void *arg), void *arg);
/* Releases everything it holds (every table and part it gave out: none may be used after). */
void tb_ix_spill_free(tb_ix_spill_t *s);
/* Drops everything it gave out (every table and part): the index cleared its tables. */
void tb_ix_spill_reset(tb_ix_spill_t *s);

/* Makes room in table `lane` (arr, *cap elements of elem_nbytes) for `need` elements, as
 * tb_ix_reserve does (the table to use from now on in *arr_out). arr may be a malloc'd table (from
 * the sidecar decoder, or before the file was used): it moves into the file when that is in use.
 * TB_OK, or TB_ERR_NOMEM with arr and *cap unchanged. */
tb_status_t tb_ix_spill_reserve(tb_ix_spill_t *s, int lane, void *arr, uint32_t *cap, uint64_t need,
                                size_t elem_nbytes, uint32_t first_cap, void **arr_out);
/* Frees a table of lane `lane` (NULL: nothing). */
void tb_ix_spill_table_free(tb_ix_spill_t *s, int lane, void *arr);

/* A record's part of n bytes (a copy of src), kept until freed or the spill is reset: NULL when
 * out of memory. */
void *tb_ix_spill_keep(tb_ix_spill_t *s, const void *src, size_t n);
/* Takes a malloc'd block p holding n bytes (capacity possibly more): the block to keep, moved
 * into the file (p freed) when that is in use, else p trimmed to n. Never fails: p as it is when
 * it cannot move, or when it is NULL or n is 0. */
void *tb_ix_spill_adopt(tb_ix_spill_t *s, void *p, size_t n);
/* Frees a part from tb_ix_spill_keep or tb_ix_spill_adopt, or any malloc'd block. */
void tb_ix_spill_part_free(tb_ix_spill_t *s, void *p);

/* Lets go of the pages of the file the process holds (they stay in the page cache). */
void tb_ix_spill_release(tb_ix_spill_t *s);
/* Counts n bytes written or read through the spill (whoever walks much of it counts what it
 * reads): every 256 KiB, a look at the process's file-backed pages, and a release when they grew
 * by more than 2 MiB since the last. */
void tb_ix_spill_walked(tb_ix_spill_t *s, size_t n);
/* The same for a read of n bytes at p, which may be anywhere in memory: counts n, and the 64 KiB
 * around it the first time that is read since the last release (what a fault there maps). */
void tb_ix_spill_read(tb_ix_spill_t *s, const void *p, size_t n);

/* What it holds, for the debug line: bytes in the file, and bytes allocated in all. */
void tb_ix_spill_sizes(const tb_ix_spill_t *s, uint64_t *in_file_out, uint64_t *allocated_out);

#endif
