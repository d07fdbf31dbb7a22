/* sidecar_pack.h — small sidecars kept as records of a few append-only files of the reader's cache
 * folder (packs) instead of one file each: a program that publishes many small sidecars (a read of
 * one dataset in each of many files) then creates no file per data file, which costs more than
 * such a file's whole first read on some file systems. Used by sidecar_store.c; the frame scanner
 * is pure, for its fuzz target. */
#ifndef TB_SIDECAR_PACK_H
#define TB_SIDECAR_PACK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The packs' names in the cache folder: TB_SC_PACK_PREFIX and two hex digits, one pack per shard
 * of the data files' identities (a look-up walks one pack, not all of them). */
#define TB_SC_PACK_PREFIX "h5turbo-pack-"
#define TB_SC_PACK_SHARDS 32u
/* A pack starts with this head: its magic and 8 random bytes, which tell a pack made again at the
 * inode of the one before from that one. */
#define TB_SC_PACK_HEAD_MAGIC "H5TPACKH"
#define TB_SC_PACK_HEAD       16u
/* Each record: this frame, then `len` bytes of one sidecar (none: the file's sidecar dropped). */
#define TB_SC_PACK_MAGIC "H5TPACK1"
#define TB_SC_PACK_FRAME 32u
/* Sidecars of at most this many bytes go to a pack; larger ones are files of their own. */
#define TB_SC_PACK_RECORD_MAX (64u * 1024u)
/* A pack grows to at most this many bytes (less when the cache's bound asks it), then starts again
 * empty: what it held is published again at the next closes of those files. */
#define TB_SC_PACK_MAX ((uint64_t)1 << 20)

/* Walks n bytes of a pack that start at file offset `base`: calls record(ctx, dev, ino, offset,
 * len) for every whole record whose frame is sound, in order (a later record of a file replaces an
 * earlier one). A frame that is not sound (a torn append) is skipped up to the next magic. Returns
 * how many bytes were walked: the rest is a record still being appended (or too short to tell),
 * walked again once the pack has grown. Untrusted input: never reads outside buf. */
size_t tb_sc_pack_scan(const uint8_t *buf, size_t n, uint64_t base,
                       void (*record)(void *ctx, uint64_t dev, uint64_t ino, uint64_t off, uint32_t len), void *ctx);

/* The process keeps each shard's pack open once it has used it (at most TB_SC_PACK_SHARDS
 * descriptors, close-on-exec), checked against the pack at the shard's name at every use. */

/* The latest record of data file (dev, ino) in the packs of cache folder dirfd: 1 with a malloc'd
 * copy of its sidecar's bytes, 0 when there is none (or it was dropped), -1 when its pack cannot be
 * read or is not to be trusted (not a regular file of the reader's, writable by others, too large). */
int tb_sc_pack_find(int dirfd, uint64_t dev, uint64_t ino, void **buf_out, size_t *n_out);
/* Appends a record of n bytes (NULL, 0: a drop) for (dev, ino) to its pack in dirfd, creating the
 * pack, or starting it again when the record would take it past max_nbytes; except where keep (may
 * be NULL), shown the pack's record of the file, returns nonzero: 1, nothing appended. 0 when
 * appended; *added_out and *removed_out then say what the cache's total gains and loses: a pack
 * counts as all it may grow to from its creation. -1 when no pack can take it (none to trust, a
 * file system where appends of several processes may interleave, a short write). */
int tb_sc_pack_append(int dirfd, uint64_t dev, uint64_t ino, const void *bytes, size_t n, uint64_t max_nbytes,
                      int (*keep)(void *ctx, const void *had, size_t had_n), void *keep_ctx, uint64_t *added_out,
                      uint64_t *removed_out);
/* Whether entry `name` of a cache folder is a pack. */
int tb_sc_pack_named(const char *name);
/* Whether fd is on a local file system (where appends are atomic and mappings safe). */
int tb_sc_local_fs(int fd);
/* Links the unnamed file fd (O_TMPFILE) in at `name` in dirfd, which fails (-1, errno EEXIST)
 * where anything has that name: 0, or -1 with errno. */
int tb_sc_link_unnamed(int fd, int dirfd, const char *name);
/* Reads n bytes at off: 1, 0 where the file is shorter, -1 on an error. */
int tb_sc_pread_all(int fd, void *buf, size_t n, off_t off);

#endif
