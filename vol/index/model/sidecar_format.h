/* sidecar_format.h — the sidecar's byte layout as tables of named fields (offset, size, meaning):
 * the one description the encoder, the decoder, the publish check and the documentation all use.
 * Pure C, no HDF5. */
#ifndef TB_SIDECAR_FORMAT_H
#define TB_SIDECAR_FORMAT_H

#include <stdint.h>
#include <string.h>

#define SC_MAGIC     "H5TIDX\r\n"
#define SC_VERSION   15u
#define SC_BYTEORDER 0x01020304u
/* An object's `attrs` field: the bits saying its run of attribute records is a partial list, and
 * that a whole list's order is not native's. */
#define SC_ATTRS_PARTIAL   8u
#define SC_ATTRS_UNORDERED 16u
#define SC_ATTRS_CRT_NATIVE 32u /* (with SC_ATTRS_UNORDERED) in native order by creation order */
#define SC_OBJ_OPENED       2u  /* OBJ_HAS_INFO: a dataset opened natively (tb_ix_obj_t.opened) */
#define SC_TRAILER   8u /* checksum of everything before it */

/* One field of a fixed-size record. `size` is 1, 2, 4 or 8 for integers (host byte order, the
 * header's byte-order word says which) or the byte count of an opaque field (magic, tokens). */
typedef struct sc_field {
    const char *name;
    uint16_t    off;
    uint16_t    size;
    const char *meaning;
} sc_field_t;

/* A record kind: its size and its fields, in offset order. */
typedef struct sc_record {
    const char       *name;
    uint32_t          nbytes;
    const sc_field_t *fields;
    uint32_t          nfields;
    const char       *meaning;
} sc_record_t;

/* The fields of each record kind, by name; the tables themselves are in sidecar_format.c. */
enum sc_hdr_field {
    HDR_MAGIC, HDR_VERSION, HDR_BYTEORDER, HDR_TOTAL, HDR_DEV, HDR_INO, HDR_SIZE, HDR_MTIME, HDR_CTIME,
    HDR_EOA, HDR_ROOT_TOKEN, HDR_NOBJ, HDR_NGROUP, HDR_NLINK, HDR_NATTR, HDR_NDSET, HDR_PATH_NBYTES,
    HDR_STRBYTES, HDR_NNINFO, HDR_RESERVED, HDR_NFIELDS
};
enum sc_obj_field {
    OBJ_TOKEN, OBJ_HAS_INFO, OBJ_TYPE, OBJ_ATTRS_LOADED, OBJ_DCACHE, OBJ_RC, OBJ_GROUP, OBJ_DSET, OBJ_NUM_ATTRS,
    OBJ_ATIME, OBJ_MTIME, OBJ_CTIME, OBJ_BTIME, OBJ_ATTR_FIRST, OBJ_NATTR, OBJ_NFIELDS
};
enum sc_grp_field {
    GRP_OBJ, GRP_LINK_FIRST, GRP_NLINKS, GRP_STORAGE, GRP_MOUNTED, GRP_CORDER_STATE, GRP_PARTIAL, GRP_MAX_CORDER, GRP_NFIELDS
};
enum sc_lnk_field {
    LNK_NAME_OFF, LNK_NAME_LEN, LNK_VAL_SIZE, LNK_VAL_OFF, LNK_TYPE, LNK_CSET, LNK_CORDER_VALID, LNK_ABSENT, LNK_CORDER,
    LNK_TOKEN, LNK_NFIELDS
};
enum sc_atr_field {
    ATR_NAME_OFF, ATR_NAME_LEN, ATR_CSET, ATR_CORDER_VALID, ATR_CACHED, ATR_ABSENT, ATR_CORDER, ATR_TYPE_OFF, ATR_TYPE_LEN,
    ATR_SPACE_LEN, ATR_SPACE_OFF, ATR_VALUE_OFF, ATR_VALUE_LEN, ATR_DATA_SIZE, ATR_NFIELDS
};
enum sc_dst_field {
    DST_TYPE_OFF, DST_SPACE_OFF, DST_DCPL_OFF, DST_VALUE_OFF, DST_STORAGE, DST_TYPE_LEN, DST_SPACE_LEN, DST_DCPL_LEN,
    DST_VALUE_LEN, DST_HAVE, DST_LAYOUT, DST_STATUS, DST_NFIELDS
};

enum sc_nin_field {
    NIN_OBJ, NIN_HAVE, NIN_VERSION, NIN_NMESGS, NIN_NCHUNKS, NIN_FLAGS, NIN_TOTAL, NIN_META, NIN_MESG, NIN_FREE,
    NIN_PRESENT, NIN_SHARED, NIN_OBJ_INDEX, NIN_OBJ_HEAP, NIN_ATTR_INDEX, NIN_ATTR_HEAP, NIN_NFIELDS
};

/* The record kinds in file order after the header and the path: header, objects, groups, links,
 * attributes, datasets, native infos. */
enum sc_record_kind { SC_REC_HDR, SC_REC_OBJ, SC_REC_GRP, SC_REC_LNK, SC_REC_ATR, SC_REC_DST, SC_REC_NIN, SC_NRECORDS };
extern const sc_record_t sc_records[SC_NRECORDS];

/* The fixed sizes, spelled once (sidecar_format.c checks them against the tables). */
#define SC_HDR 128u
#define SC_OBJ 80u
#define SC_GRP 32u
#define SC_LNK 56u
#define SC_ATR 64u
#define SC_DST 64u
#define SC_NIN 104u

extern const sc_field_t sc_hdr_fields[HDR_NFIELDS];
extern const sc_field_t sc_obj_fields[OBJ_NFIELDS];
extern const sc_field_t sc_grp_fields[GRP_NFIELDS];
extern const sc_field_t sc_lnk_fields[LNK_NFIELDS];
extern const sc_field_t sc_atr_fields[ATR_NFIELDS];
extern const sc_field_t sc_dst_fields[DST_NFIELDS];
extern const sc_field_t sc_nin_fields[NIN_NFIELDS];

/* Always inlined: with a table entry known at compile time the switch folds to one load (the
 * decoder reads ~20 fields of every record of a 400,000-object sidecar). */
static inline __attribute__((always_inline)) uint64_t
sc_get(const uint8_t *rec, const sc_field_t *f)
{
    uint64_t v8;
    uint32_t v4;
    uint16_t v2;
    switch (f->size) {
        case 1: return rec[f->off];
        case 2: memcpy(&v2, rec + f->off, 2); return v2;
        case 4: memcpy(&v4, rec + f->off, 4); return v4;
        default: memcpy(&v8, rec + f->off, 8); return v8;
    }
}
static inline __attribute__((always_inline)) void
sc_put(uint8_t *rec, const sc_field_t *f, uint64_t v)
{
    uint32_t v4 = (uint32_t)v;
    uint16_t v2 = (uint16_t)v;
    switch (f->size) {
        case 1: rec[f->off] = (uint8_t)v; break;
        case 2: memcpy(rec + f->off, &v2, 2); break;
        case 4: memcpy(rec + f->off, &v4, 4); break;
        default: memcpy(rec + f->off, &v, 8); break;
    }
}
/* Field F of a record of kind K (HDR, OBJ, GRP, LNK, ATR, DST, NIN): SC_GET(o, OBJ, GROUP). */
#define SC_TABLE_HDR sc_hdr_fields
#define SC_TABLE_OBJ sc_obj_fields
#define SC_TABLE_GRP sc_grp_fields
#define SC_TABLE_LNK sc_lnk_fields
#define SC_TABLE_ATR sc_atr_fields
#define SC_TABLE_DST sc_dst_fields
#define SC_TABLE_NIN sc_nin_fields
#define SC_GET(rec, K, F)    sc_get((rec), &SC_TABLE_##K[K##_##F])
#define SC_PUT(rec, K, F, v) sc_put((rec), &SC_TABLE_##K[K##_##F], (v))
#define SC_PTR(rec, K, F)    ((rec) + SC_TABLE_##K[K##_##F].off)

/* Bytes the path section takes for a path of path_len bytes: the path, its NUL, zero padding to 8. */
static inline uint64_t
sc_path_section(uint64_t path_len)
{
    return (path_len + 1 + 7) & ~(uint64_t)7;
}

#endif
