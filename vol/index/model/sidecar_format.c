/* sidecar_format.c — the persistent form of a file's index: the field tables of sidecar_format.h,
 * the encoder, and a decoder that treats its input as hostile (every count, offset and cross
 * reference checked before use). Pure C on the data model of index_model.h, no HDF5, no I/O. */
#include "index_model.h"
#include "sidecar_format.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Layout (version 15, host byte order, marked by the byte-order word):
 *   header   SC_HDR bytes            identity of the data file, counts
 *   path     sc_path_section(len)    the data file's absolute path (NUL, zero padding to 8)
 *   objects  SC_OBJ bytes each       their attributes are a contiguous run of the attribute array;
 *                                    a dataset with cached content names its dataset record
 *   groups   SC_GRP bytes each       their links are a contiguous run of the link array
 *   links    SC_LNK bytes each
 *   attrs    SC_ATR bytes each
 *   dsets    SC_DST bytes each
 *   natives  SC_NIN bytes each       H5Oget_native_info answers, in the order of their objects
 *   strings  link names (NUL-terminated), link values, attribute names (NUL-terminated), encoded
 *            datatypes and dataspaces, attribute values, dataset contents
 *   trailer  8 bytes                 checksum of everything before it
 * Version 2 added the attributes, 3 the datasets' contents, 4 the ctime and the path, 5 the
 * datasets' metadata (creation property list, storage size, space status, layout) recorded part by
 * part, 6 where objects keep their attributes, 7 the native infos, 8 the dataspace message version in
 * the dataspace forms, 11 objects' partial attribute lists, 12 a checksum of four lanes (older
 * sidecars are misses, rebuilt once), 13 which datasets were opened natively, 14 groups' partial
 * link lists (and the names they lack), 15 the names objects' partial attribute lists lack. Bytes not named by a
 * field are zero. */
static const uint8_t sc_zero_token[TB_IX_TOKEN_NBYTES];

const sc_field_t sc_hdr_fields[HDR_NFIELDS] = {
    [HDR_MAGIC]        = {"magic", 0, 8, "\"H5TIDX\\r\\n\""},
    [HDR_VERSION]      = {"version", 8, 4, "format version (15)"},
    [HDR_BYTEORDER]    = {"byteorder", 12, 4, "0x01020304 as written by the host"},
    [HDR_TOTAL]        = {"total_nbytes", 16, 8, "size of the whole sidecar, trailer included"},
    [HDR_DEV]          = {"dev", 24, 8, "st_dev of the data file"},
    [HDR_INO]          = {"ino", 32, 8, "st_ino of the data file"},
    [HDR_SIZE]         = {"size", 40, 8, "st_size of the data file"},
    [HDR_MTIME]        = {"mtime_ns", 48, 8, "st_mtim of the data file, ns"},
    [HDR_CTIME]        = {"ctime_ns", 56, 8, "st_ctim of the data file, ns"},
    [HDR_EOA]          = {"eoa", 64, 8, "end of allocation HDF5 read from the superblock"},
    [HDR_ROOT_TOKEN]   = {"root_token", 72, 16, "object token of the root group"},
    [HDR_NOBJ]         = {"nobj", 88, 4, "object records"},
    [HDR_NGROUP]       = {"ngroup", 92, 4, "group records"},
    [HDR_NLINK]        = {"nlink", 96, 4, "link records"},
    [HDR_NATTR]        = {"nattr", 100, 4, "attribute records"},
    [HDR_NDSET]        = {"ndset", 104, 4, "dataset records"},
    [HDR_PATH_NBYTES]  = {"path_nbytes", 108, 4, "length of the data file's path (without NUL)"},
    [HDR_STRBYTES]     = {"strbytes", 112, 8, "size of the strings section"},
    [HDR_NNINFO]       = {"nninfo", 120, 4, "native-info records"},
    [HDR_RESERVED]     = {"reserved", 124, 4, "zero"},
};
const sc_field_t sc_obj_fields[OBJ_NFIELDS] = {
    [OBJ_TOKEN]        = {"token", 0, 16, "object token"},
    [OBJ_HAS_INFO]     = {"has_info", 16, 1, "bit 0: the H5Oget_info fields below are known; bit 1 (datasets, with bit 0): a native open of it succeeded"},
    [OBJ_TYPE]         = {"type", 17, 1, "H5O_type_t (group 0, dataset 1, named datatype 2)"},
    [OBJ_ATTRS_LOADED] = {"attrs", 18, 1, "bit 0: attr_first/nattr list all its attributes; bits 1-2: their storage (0 unknown, 1 object header, 2 dense); bit 3 (never with bit 0): they list some of them; bit 4 (only with bit 0): their order is not native's by name; bit 5 (only with bit 4): it is native's by creation order"},
    [OBJ_DCACHE]       = {"dcache", 19, 1, "datasets: 0 unknown, 1 not cacheable, 2 content cached"},
    [OBJ_RC]           = {"rc", 20, 4, "reference count"},
    [OBJ_GROUP]        = {"group", 24, 4, "its group record, or 0xffffffff"},
    [OBJ_DSET]         = {"dset", 28, 4, "datasets, named datatypes (whose record holds only the type) and groups (only the creation property list): its dataset record, or 0xffffffff"},
    [OBJ_NUM_ATTRS]    = {"num_attrs", 32, 8, "number of attributes (H5O_info2_t)"},
    [OBJ_ATIME]        = {"atime", 40, 8, "access time (H5O_info2_t)"},
    [OBJ_MTIME]        = {"mtime", 48, 8, "modification time"},
    [OBJ_CTIME]        = {"ctime", 56, 8, "change time"},
    [OBJ_BTIME]        = {"btime", 64, 8, "birth time"},
    [OBJ_ATTR_FIRST]   = {"attr_first", 72, 4, "first of its attribute records"},
    [OBJ_NATTR]        = {"nattr", 76, 4, "number of its attribute records"},
};
const sc_field_t sc_grp_fields[GRP_NFIELDS] = {
    [GRP_OBJ]          = {"obj", 0, 4, "the group's object record"},
    [GRP_LINK_FIRST]   = {"link_first", 4, 4, "first of its link records (native order)"},
    [GRP_NLINKS]       = {"nlinks", 8, 4, "number of links"},
    [GRP_STORAGE]      = {"storage_type", 12, 1, "H5G_storage_type_t"},
    [GRP_MOUNTED]      = {"mounted", 13, 1, "H5G_info_t.mounted"},
    [GRP_CORDER_STATE] = {"corder_state", 14, 1, "creation order tracked: 0 unknown, 1 yes, 2 no"},
    [GRP_PARTIAL]      = {"partial", 15, 1, "1: its links are some of the group's (those looked up by name), storage_type, mounted, corder_state and max_corder zero"},
    [GRP_MAX_CORDER]   = {"max_corder", 16, 8, "H5G_info_t.max_corder"},
};
const sc_field_t sc_lnk_fields[LNK_NFIELDS] = {
    [LNK_NAME_OFF]     = {"name_off", 0, 8, "name, in the strings"},
    [LNK_NAME_LEN]     = {"name_len", 8, 4, "its length (a NUL follows)"},
    [LNK_VAL_SIZE]     = {"val_size", 12, 4, "soft/user-defined: size of the value"},
    [LNK_VAL_OFF]      = {"val_off", 16, 8, "soft/user-defined: value, in the strings"},
    [LNK_TYPE]         = {"type", 24, 1, "H5L_type_t (hard 0, soft 1, external 64, ...)"},
    [LNK_CSET]         = {"cset", 25, 1, "character set of the name"},
    [LNK_CORDER_VALID] = {"corder_valid", 26, 1, "1: corder is valid"},
    [LNK_ABSENT]       = {"absent", 27, 1, "1 (partial lists only): the group has no link of this name (type 0, no value, token zero)"},
    [LNK_CORDER]       = {"corder", 32, 8, "creation order"},
    [LNK_TOKEN]        = {"token", 40, 16, "hard: the target's token"},
};
const sc_field_t sc_atr_fields[ATR_NFIELDS] = {
    [ATR_NAME_OFF]     = {"name_off", 0, 8, "name, in the strings"},
    [ATR_NAME_LEN]     = {"name_len", 8, 4, "its length (a NUL follows)"},
    [ATR_CSET]         = {"cset", 12, 1, "character set of the name"},
    [ATR_CORDER_VALID] = {"corder_valid", 13, 1, "1: corder is valid"},
    [ATR_CACHED]       = {"cached", 14, 1, "1: type, space and value follow"},
    [ATR_ABSENT]       = {"absent", 15, 1, "1 (partial lists only): the object has no attribute of this name (nothing else set; data_size 0xffffffff)"},
    [ATR_CORDER]       = {"corder", 16, 8, "creation order"},
    [ATR_TYPE_OFF]     = {"type_off", 24, 8, "H5Tencode bytes, in the strings"},
    [ATR_TYPE_LEN]     = {"type_len", 32, 4, "their length"},
    [ATR_SPACE_LEN]    = {"space_len", 36, 4, "length of the dataspace form"},
    [ATR_SPACE_OFF]    = {"space_off", 40, 8, "dataspace form (index_model.h), in the strings"},
    [ATR_VALUE_OFF]    = {"value_off", 48, 8, "raw value in the file type (a variable-length string's: per element an 8-byte length, or all ones for none, and its bytes; a sequence of object references': per element an 8-byte count and that many 8-byte addresses), in the strings"},
    [ATR_VALUE_LEN]    = {"value_len", 56, 4, "its length (elements x type size)"},
    [ATR_DATA_SIZE]    = {"data_size", 60, 4, "H5A_info_t.data_size (value_len when cached raw), 0xffffffff unknown"},
};
const sc_field_t sc_dst_fields[DST_NFIELDS] = {
    [DST_TYPE_OFF]     = {"type_off", 0, 8, "H5Tencode bytes, in the strings"},
    [DST_SPACE_OFF]    = {"space_off", 8, 8, "dataspace form, in the strings"},
    [DST_DCPL_OFF]     = {"dcpl_off", 16, 8, "H5Pencode2 bytes of the creation property list, in the strings"},
    [DST_VALUE_OFF]    = {"value_off", 24, 8, "whole content in the file type (variable-length strings as an attribute's), in the strings"},
    [DST_STORAGE]      = {"storage_size", 32, 8, "H5Dget_storage_size"},
    [DST_TYPE_LEN]     = {"type_len", 40, 4, "length of the type (0 unless have & 1)"},
    [DST_SPACE_LEN]    = {"space_len", 44, 4, "length of the space (0 unless have & 2)"},
    [DST_DCPL_LEN]     = {"dcpl_len", 48, 4, "length of the creation property list (0 unless have & 4)"},
    [DST_VALUE_LEN]    = {"value_len", 52, 4, "length of the content: elements x type size (0 unless have & 32)"},
    [DST_HAVE]         = {"have", 56, 1, "parts known: 1 type, 2 space, 4 dcpl, 8 storage size, 16 status, 32 content"},
    [DST_LAYOUT]       = {"layout", 57, 1, "H5D_layout_t (with dcpl or content)"},
    [DST_STATUS]       = {"space_status", 58, 1, "H5D_space_status_t (have & 16)"},
};
const sc_field_t sc_nin_fields[NIN_NFIELDS] = {
    [NIN_OBJ]          = {"obj", 0, 4, "its object record (increasing from record to record)"},
    [NIN_HAVE]         = {"have", 4, 1, "halves known: 1 hdr, 2 meta_size (the other half's fields are zero)"},
    [NIN_VERSION]      = {"version", 8, 4, "hdr.version"},
    [NIN_NMESGS]       = {"nmesgs", 12, 4, "hdr.nmesgs"},
    [NIN_NCHUNKS]      = {"nchunks", 16, 4, "hdr.nchunks"},
    [NIN_FLAGS]        = {"flags", 20, 4, "hdr.flags"},
    [NIN_TOTAL]        = {"space_total", 24, 8, "hdr.space.total"},
    [NIN_META]         = {"space_meta", 32, 8, "hdr.space.meta"},
    [NIN_MESG]         = {"space_mesg", 40, 8, "hdr.space.mesg"},
    [NIN_FREE]         = {"space_free", 48, 8, "hdr.space.free"},
    [NIN_PRESENT]      = {"mesg_present", 56, 8, "hdr.mesg.present"},
    [NIN_SHARED]       = {"mesg_shared", 64, 8, "hdr.mesg.shared"},
    [NIN_OBJ_INDEX]    = {"obj_index_size", 72, 8, "meta_size.obj.index_size"},
    [NIN_OBJ_HEAP]     = {"obj_heap_size", 80, 8, "meta_size.obj.heap_size"},
    [NIN_ATTR_INDEX]   = {"attr_index_size", 88, 8, "meta_size.attr.index_size"},
    [NIN_ATTR_HEAP]    = {"attr_heap_size", 96, 8, "meta_size.attr.heap_size"},
};
#define NELEM(a) (uint32_t)(sizeof(a) / sizeof((a)[0]))
const sc_record_t sc_records[SC_NRECORDS] = {
    [SC_REC_HDR] = {"header", SC_HDR, sc_hdr_fields, NELEM(sc_hdr_fields), "one, at offset 0"},
    [SC_REC_OBJ] = {"object", SC_OBJ, sc_obj_fields, NELEM(sc_obj_fields), "nobj, after the path"},
    [SC_REC_GRP] = {"group", SC_GRP, sc_grp_fields, NELEM(sc_grp_fields), "ngroup, after the objects"},
    [SC_REC_LNK] = {"link", SC_LNK, sc_lnk_fields, NELEM(sc_lnk_fields), "nlink, after the groups"},
    [SC_REC_ATR] = {"attribute", SC_ATR, sc_atr_fields, NELEM(sc_atr_fields), "nattr, after the links"},
    [SC_REC_DST] = {"dataset", SC_DST, sc_dst_fields, NELEM(sc_dst_fields), "ndset, after the attributes"},
    [SC_REC_NIN] = {"native info", SC_NIN, sc_nin_fields, NELEM(sc_nin_fields), "nninfo, after the datasets"},
};

/* H5O_type_t, H5G_storage_type_t and H5L_type_t values, spelled out so this file needs no HDF5. */
#define SC_MAX_OBJ_TYPE     2 /* group, dataset, named datatype */
#define SC_OBJ_GROUP        0
#define SC_OBJ_DATASET      1
#define SC_OBJ_DATATYPE     2
#define SC_MAX_STORAGE_TYPE 2 /* symbol table, compact, dense */
#define SC_LINK_HARD        0
#define SC_LINK_SOFT        1
#define SC_LINK_UD_MIN      64
#define SC_MAX_LAYOUT       3 /* compact, contiguous, chunked, virtual */
#define SC_MAX_SPACE_STATUS 2 /* not allocated, partly, allocated */

/* A NUL-terminated, non-empty name of name_len bytes at name_off in the strings. */
static int
name_ok(const uint8_t *strs, uint64_t strbytes, uint64_t name_off, uint64_t name_len)
{
    return name_off <= strbytes && name_len < strbytes - name_off && strs[name_off + name_len] == 0 &&
           memchr(strs + name_off, 0, name_len) == NULL && name_len > 0;
}

/* A run of len bytes at off inside the strings. */
static int
range_ok(uint64_t strbytes, uint64_t off, uint64_t len)
{
    return off <= strbytes && len <= strbytes - off;
}

/* ------------------------------------------------------------------ header */
tb_status_t
tb_sidecar_peek(const void *buf, size_t n, tb_ix_identity_t *id_out, tb_sc_counts_t *counts_out,
                 uint64_t *total_out, const char **path_out)
{
    const uint8_t *b = buf;
    if (!buf || n < SC_HDR || memcmp(SC_PTR(b, HDR, MAGIC), SC_MAGIC, 8) != 0 ||
        SC_GET(b, HDR, VERSION) != SC_VERSION || SC_GET(b, HDR, BYTEORDER) != SC_BYTEORDER)
        return TB_ERR_CORRUPT;
    if (id_out) {
        id_out->dev      = SC_GET(b, HDR, DEV);
        id_out->ino      = SC_GET(b, HDR, INO);
        id_out->size     = SC_GET(b, HDR, SIZE);
        id_out->mtime_ns = (int64_t)SC_GET(b, HDR, MTIME);
        id_out->ctime_ns = (int64_t)SC_GET(b, HDR, CTIME);
        id_out->eoa      = SC_GET(b, HDR, EOA);
        memcpy(id_out->root_token, SC_PTR(b, HDR, ROOT_TOKEN), TB_IX_TOKEN_NBYTES);
    }
    if (counts_out) {
        counts_out->nobj   = (uint32_t)SC_GET(b, HDR, NOBJ);
        counts_out->ngroup = (uint32_t)SC_GET(b, HDR, NGROUP);
        counts_out->nlink  = (uint32_t)SC_GET(b, HDR, NLINK);
        counts_out->nattr  = (uint32_t)SC_GET(b, HDR, NATTR);
        counts_out->ndset  = (uint32_t)SC_GET(b, HDR, NDSET);
        counts_out->nninfo = (uint32_t)SC_GET(b, HDR, NNINFO);
    }
    if (total_out)
        *total_out = SC_GET(b, HDR, TOTAL);
    if (path_out) {
        /* The path only when this buffer holds its whole section. */
        uint64_t plen = SC_GET(b, HDR, PATH_NBYTES);
        *path_out     = NULL;
        if (plen < (uint64_t)n && sc_path_section(plen) <= (uint64_t)n - SC_HDR && b[SC_HDR + plen] == 0 &&
            memchr(b + SC_HDR, 0, (size_t)plen) == NULL)
            *path_out = (const char *)b + SC_HDR;
    }
    return TB_OK;
}

/* ------------------------------------------------------------------ decode */
tb_status_t
tb_sidecar_decode(const void *buf, size_t n, tb_ix_identity_t *id_out, tb_ix_data_t *d)
{
    const uint8_t  *b = buf;
    tb_sc_counts_t c;
    uint64_t        total;
    const char     *path;
    if (n < SC_HDR + SC_TRAILER || tb_sidecar_peek(buf, n, id_out, &c, &total, &path) < 0 || total != (uint64_t)n)
        return TB_ERR_CORRUPT;
    uint64_t chk;
    memcpy(&chk, b + n - SC_TRAILER, 8);
    if (tb_sidecar_checksum(b, n - SC_TRAILER) != chk)
        return TB_ERR_CHECKSUM;
    uint64_t nobj = c.nobj, ngroup = c.ngroup, nlink = c.nlink, nattr = c.nattr, ndset = c.ndset, nnin = c.nninfo;
    uint64_t strbytes = SC_GET(b, HDR, STRBYTES), plen = SC_GET(b, HDR, PATH_NBYTES);
    /* Each term is bounded by n (at most 2^64 / 80 objects could overflow otherwise). */
    if (!path || strbytes > n || plen > n || nobj > n / SC_OBJ || ngroup > n / SC_GRP || nlink > n / SC_LNK ||
        nattr > n / SC_ATR || ndset > n / SC_DST || nnin > n / SC_NIN || SC_GET(b, HDR, RESERVED) != 0)
        return TB_ERR_CORRUPT;
    uint64_t psec = sc_path_section(plen);
    if (SC_HDR + psec + nobj * SC_OBJ + ngroup * SC_GRP + nlink * SC_LNK + nattr * SC_ATR + ndset * SC_DST +
            nnin * SC_NIN + strbytes + SC_TRAILER !=
        (uint64_t)n)
        return TB_ERR_CORRUPT;
    if (nobj >= TB_IX_NONE || ngroup >= TB_IX_NONE || nlink >= TB_IX_NONE || nattr >= TB_IX_NONE ||
        ndset >= TB_IX_NONE || nnin > nobj)
        return TB_ERR_CORRUPT;
    const uint8_t *objs = b + SC_HDR + psec, *grps = objs + nobj * SC_OBJ, *lnks = grps + ngroup * SC_GRP;
    const uint8_t *atrs = lnks + nlink * SC_LNK, *dsts = atrs + nattr * SC_ATR, *nins = dsts + ndset * SC_DST;
    const uint8_t *strs = nins + nnin * SC_NIN;

    /* Objects, groups and links, checked against each other. */
    uint64_t ai = 0; /* (the attribute records the runs so far hold) */
    for (uint64_t k = 0; k < nobj; k++) {
        const uint8_t *o    = objs + k * SC_OBJ;
        uint64_t       g    = SC_GET(o, OBJ, GROUP), has = SC_GET(o, OBJ, HAS_INFO), type = SC_GET(o, OBJ, TYPE);
        uint64_t       al   = SC_GET(o, OBJ, ATTRS_LOADED), dc = SC_GET(o, OBJ, DCACHE), dset = SC_GET(o, OBJ, DSET);
        uint64_t       afirst = SC_GET(o, OBJ, ATTR_FIRST), acount = SC_GET(o, OBJ, NATTR);
        if (has > (1u | SC_OBJ_OPENED) || (has && type > SC_MAX_OBJ_TYPE) ||
            ((has & SC_OBJ_OPENED) && !((has & 1u) && type == SC_OBJ_DATASET)) ||
            al > (SC_ATTRS_CRT_NATIVE | SC_ATTRS_UNORDERED | SC_ATTRS_PARTIAL | 1u | (TB_IX_AS_DENSE << 1)) ||
            (al & (SC_ATTRS_PARTIAL | 1u)) == (SC_ATTRS_PARTIAL | 1u) ||
            (al & (SC_ATTRS_UNORDERED | 1u)) == SC_ATTRS_UNORDERED ||
            (al & (SC_ATTRS_CRT_NATIVE | SC_ATTRS_UNORDERED)) == SC_ATTRS_CRT_NATIVE ||
            SC_GET(o, OBJ, NUM_ATTRS) > UINT32_MAX)
            return TB_ERR_CORRUPT;
        /* Content state only for datasets, dataset records for datasets, named datatypes (holding
         * just the type's binary form) and groups (holding just their creation property list);
         * cached content has a record (whose own check below says it holds the content). */
        if (dc > TB_IX_DC_CACHED || (dc && !(has && type == SC_OBJ_DATASET)) || (dset != TB_IX_NONE && !has) ||
            (dset != TB_IX_NONE && dset >= ndset) || (dc == TB_IX_DC_CACHED && dset == TB_IX_NONE) ||
            (dc == TB_IX_DC_CACHED && !(SC_GET(dsts + dset * SC_DST, DST, HAVE) & TB_IX_DS_VALUE)) ||
            (dset != TB_IX_NONE && type == SC_OBJ_DATATYPE && SC_GET(dsts + dset * SC_DST, DST, HAVE) != TB_IX_DS_TYPE) ||
            (dset != TB_IX_NONE && type == SC_OBJ_GROUP && SC_GET(dsts + dset * SC_DST, DST, HAVE) != TB_IX_DS_DCPL))
            return TB_ERR_CORRUPT;
        /* (a run of records only with one of the two, the runs one after the other, as the encoder
         * writes them: every record in one run, each checked once) */
        if (afirst + acount > nattr || (!(al & (SC_ATTRS_PARTIAL | 1u)) && acount != 0) ||
            (acount != 0 && afirst != ai))
            return TB_ERR_CORRUPT;
        for (uint64_t j = afirst; j < afirst + acount && (al & 1u); j++)
            if (SC_GET(atrs + j * SC_ATR, ATR, ABSENT))
                return TB_ERR_CORRUPT; /* (only a partial list keeps names it lacks) */
        ai += acount;
        if (g != TB_IX_NONE && (g >= ngroup || SC_GET(grps + g * SC_GRP, GRP, OBJ) != k))
            return TB_ERR_CORRUPT;
    }
    if (ai != nattr)
        return TB_ERR_CORRUPT;
    /* (the groups' runs of links one after the other, as the encoder writes them: every link in
     * one group's run, each checked once) */
    uint64_t li = 0;
    for (uint64_t k = 0; k < ngroup; k++) {
        const uint8_t *g   = grps + k * SC_GRP;
        uint64_t       obj = SC_GET(g, GRP, OBJ), first = SC_GET(g, GRP, LINK_FIRST), cnt = SC_GET(g, GRP, NLINKS);
        if (obj >= nobj || SC_GET(objs + obj * SC_OBJ, OBJ, GROUP) != k || first != li || cnt > nlink - li ||
            SC_GET(g, GRP, STORAGE) > SC_MAX_STORAGE_TYPE || SC_GET(g, GRP, MOUNTED) > 1 ||
            SC_GET(g, GRP, CORDER_STATE) > 2 || SC_GET(g, GRP, PARTIAL) > 1)
            return TB_ERR_CORRUPT;
        if (SC_GET(g, GRP, PARTIAL) && (SC_GET(g, GRP, STORAGE) || SC_GET(g, GRP, MOUNTED) ||
                                        SC_GET(g, GRP, CORDER_STATE) || SC_GET(g, GRP, MAX_CORDER)))
            return TB_ERR_CORRUPT; /* (a partial list knows no group info) */
        for (uint64_t j = first; j < first + cnt && !SC_GET(g, GRP, PARTIAL); j++)
            if (SC_GET(lnks + j * SC_LNK, LNK, ABSENT))
                return TB_ERR_CORRUPT; /* (only a partial list keeps names it lacks) */
        li += cnt;
    }
    if (li != nlink)
        return TB_ERR_CORRUPT;
    for (uint64_t k = 0; k < nlink; k++) {
        const uint8_t *l        = lnks + k * SC_LNK;
        uint64_t       val_size = SC_GET(l, LNK, VAL_SIZE), val_off = SC_GET(l, LNK, VAL_OFF);
        uint64_t       type     = SC_GET(l, LNK, TYPE);
        if (!name_ok(strs, strbytes, SC_GET(l, LNK, NAME_OFF), SC_GET(l, LNK, NAME_LEN)))
            return TB_ERR_CORRUPT;
        if (SC_GET(l, LNK, CSET) > 1 || SC_GET(l, LNK, CORDER_VALID) > 1 || SC_GET(l, LNK, ABSENT) > 1)
            return TB_ERR_CORRUPT;
        if (SC_GET(l, LNK, ABSENT) && (type != SC_LINK_HARD || val_size || val_off ||
                                       memcmp(SC_PTR(l, LNK, TOKEN), sc_zero_token, TB_IX_TOKEN_NBYTES) != 0))
            return TB_ERR_CORRUPT;
        if (type == SC_LINK_HARD)
            continue;
        if (type != SC_LINK_SOFT && type < SC_LINK_UD_MIN)
            return TB_ERR_CORRUPT;
        if (!range_ok(strbytes, val_off, val_size))
            return TB_ERR_CORRUPT;
        if (type == SC_LINK_SOFT && (val_size == 0 || memchr(strs + val_off, 0, val_size) == NULL))
            return TB_ERR_CORRUPT;
    }
    for (uint64_t k = 0; k < nattr; k++) {
        const uint8_t *a        = atrs + k * SC_ATR;
        uint64_t       type_len = SC_GET(a, ATR, TYPE_LEN), space_len = SC_GET(a, ATR, SPACE_LEN);
        uint64_t       value_len = SC_GET(a, ATR, VALUE_LEN), cached = SC_GET(a, ATR, CACHED);
        uint64_t       type_off = SC_GET(a, ATR, TYPE_OFF), space_off = SC_GET(a, ATR, SPACE_OFF);
        uint64_t       value_off = SC_GET(a, ATR, VALUE_OFF);
        if (!name_ok(strs, strbytes, SC_GET(a, ATR, NAME_OFF), SC_GET(a, ATR, NAME_LEN)) ||
            SC_GET(a, ATR, CSET) > 1 || SC_GET(a, ATR, CORDER_VALID) > 1 || cached > 1)
            return TB_ERR_CORRUPT;
        if (!cached && (type_len || space_len || value_len))
            return TB_ERR_CORRUPT; /* listed only: nothing else may be claimed */
        if (SC_GET(a, ATR, ABSENT) > 1 ||
            (SC_GET(a, ATR, ABSENT) && (cached || SC_GET(a, ATR, CSET) || SC_GET(a, ATR, CORDER_VALID) ||
                                        SC_GET(a, ATR, CORDER) || SC_GET(a, ATR, DATA_SIZE) != TB_IX_NONE)))
            return TB_ERR_CORRUPT; /* (a name native found no attribute of: nothing else) */
        if (cached && (type_len == 0 || space_len == 0 || value_len > TB_IX_ATTR_MAX_VALUE ||
                       !range_ok(strbytes, type_off, type_len) || !range_ok(strbytes, space_off, space_len) ||
                       !range_ok(strbytes, value_off, value_len) ||
                       !tb_ix_value_consistent(strs + type_off, type_len, strs + space_off, space_len,
                                               strs + value_off, value_len)))
            return TB_ERR_CORRUPT;
        /* (a raw value is the attribute's data; strings and reference sequences are not) */
        if (cached && !tb_ix_type_is_seq_value(strs + type_off, type_len) && SC_GET(a, ATR, DATA_SIZE) != value_len)
            return TB_ERR_CORRUPT;
    }
    for (uint64_t k = 0; k < ndset; k++) {
        const uint8_t *x    = dsts + k * SC_DST;
        uint64_t       have = SC_GET(x, DST, HAVE);
        uint64_t       type_len = SC_GET(x, DST, TYPE_LEN), space_len = SC_GET(x, DST, SPACE_LEN);
        uint64_t       dcpl_len = SC_GET(x, DST, DCPL_LEN), value_len = SC_GET(x, DST, VALUE_LEN);
        uint64_t       type_off = SC_GET(x, DST, TYPE_OFF), space_off = SC_GET(x, DST, SPACE_OFF);
        uint64_t       dcpl_off = SC_GET(x, DST, DCPL_OFF), value_off = SC_GET(x, DST, VALUE_OFF);
        /* A part is there exactly when its bit says so; content needs its type and space. */
        if ((have & ~(uint64_t)TB_IX_DS_ALL) || SC_GET(x, DST, LAYOUT) > SC_MAX_LAYOUT ||
            SC_GET(x, DST, STATUS) > SC_MAX_SPACE_STATUS || (!(have & TB_IX_DS_STATUS) && SC_GET(x, DST, STATUS)) ||
            (!(have & TB_IX_DS_STORAGE) && SC_GET(x, DST, STORAGE)) ||
            ((have & TB_IX_DS_TYPE) != 0) != (type_len != 0) || ((have & TB_IX_DS_SPACE) != 0) != (space_len != 0) ||
            ((have & TB_IX_DS_DCPL) != 0) != (dcpl_len != 0) || ((have & TB_IX_DS_VALUE) != 0) != (value_len != 0) ||
            dcpl_len > TB_IX_DCPL_MAX_NBYTES || value_len > TB_IX_DSET_MAX_VALUE ||
            ((have & TB_IX_DS_VALUE) && (have & (TB_IX_DS_TYPE | TB_IX_DS_SPACE)) != (TB_IX_DS_TYPE | TB_IX_DS_SPACE)) ||
            !range_ok(strbytes, type_off, type_len) || !range_ok(strbytes, space_off, space_len) ||
            !range_ok(strbytes, dcpl_off, dcpl_len) || !range_ok(strbytes, value_off, value_len))
            return TB_ERR_CORRUPT;
        uint64_t npoints;
        if ((have & TB_IX_DS_SPACE) && tb_ix_space_check(strs + space_off, space_len, &npoints) != TB_OK)
            return TB_ERR_CORRUPT;
        if ((have & TB_IX_DS_TYPE) && tb_ix_type_nbytes(strs + type_off, type_len) == 0)
            return TB_ERR_CORRUPT;
        if ((have & TB_IX_DS_VALUE) && /* (type and space are there, and checked just above) */
            (!tb_ix_value_fits(strs + type_off, type_len, npoints, strs + value_off, value_len) ||
             tb_ix_type_is_vref(strs + type_off, type_len))) /* (a form kept for attributes only) */
            return TB_ERR_CORRUPT;
    }
    /* Native infos: one at most per object (increasing), a half's fields zero unless it is known. */
    for (uint64_t k = 0; k < nnin; k++) {
        const uint8_t *x = nins + k * SC_NIN;
        uint64_t       obj = SC_GET(x, NIN, OBJ), have = SC_GET(x, NIN, HAVE);
        if (obj >= nobj || (k > 0 && obj <= SC_GET(x - SC_NIN, NIN, OBJ)) || have == 0 || have > TB_IX_NI_ALL)
            return TB_ERR_CORRUPT;
        for (int f = NIN_VERSION; f < NIN_NFIELDS; f++) {
            bool hdr_field = f < NIN_OBJ_INDEX;
            if (!(have & (hdr_field ? TB_IX_NI_HDR : TB_IX_NI_META)) && sc_get(x, &sc_nin_fields[f]) != 0)
                return TB_ERR_CORRUPT;
        }
    }
    if (!d)
        return TB_OK;

    /* Materialise: one array each, strings pointing into buf. */
    tb_status_t st = TB_ERR_NOMEM;
    d->objs         = malloc((size_t)(nobj ? nobj : 1) * sizeof(*d->objs));
    d->groups       = malloc((size_t)(ngroup ? ngroup : 1) * sizeof(*d->groups));
    d->sc_links     = malloc((size_t)(nlink ? nlink : 1) * sizeof(*d->sc_links));
    d->attrs        = malloc((size_t)(nattr ? nattr : 1) * sizeof(*d->attrs));
    d->dsets        = malloc((size_t)(ndset ? ndset : 1) * sizeof(*d->dsets));
    d->ninfos       = malloc((size_t)(nnin ? nnin : 1) * sizeof(*d->ninfos));
    if (!d->objs || !d->groups || !d->sc_links || !d->attrs || !d->dsets || !d->ninfos)
        goto fail;
    d->ninfocap = (uint32_t)(nnin ? nnin : 1);
    d->dsetcap = (uint32_t)(ndset ? ndset : 1);
    for (uint64_t k = 0; k < ndset; k++) {
        const uint8_t *x = dsts + k * SC_DST;
        tb_ix_dset_t  *r = &d->dsets[k];
        memset(r, 0, sizeof(*r));
        r->have         = (uint8_t)SC_GET(x, DST, HAVE);
        r->type_enc     = strs + SC_GET(x, DST, TYPE_OFF);
        r->type_nbytes  = (uint32_t)SC_GET(x, DST, TYPE_LEN);
        r->space_enc    = strs + SC_GET(x, DST, SPACE_OFF);
        r->space_nbytes = (uint32_t)SC_GET(x, DST, SPACE_LEN);
        r->dcpl_enc     = strs + SC_GET(x, DST, DCPL_OFF);
        r->dcpl_nbytes  = (uint32_t)SC_GET(x, DST, DCPL_LEN);
        r->value        = strs + SC_GET(x, DST, VALUE_OFF);
        r->value_nbytes = (uint32_t)SC_GET(x, DST, VALUE_LEN);
        r->storage_size = SC_GET(x, DST, STORAGE);
        r->layout       = (uint8_t)SC_GET(x, DST, LAYOUT);
        r->space_status = (uint8_t)SC_GET(x, DST, STATUS);
        d->dset_nbytes += sizeof(*r) + r->type_nbytes + r->space_nbytes + r->dcpl_nbytes + r->value_nbytes;
        d->ndset = (uint32_t)k + 1;
    }
    __atomic_fetch_add(&tb_ix_data_nbytes, d->dset_nbytes, __ATOMIC_RELAXED);
    d->attrcap = (uint32_t)(nattr ? nattr : 1);
    for (uint64_t k = 0; k < nattr; k++) {
        const uint8_t *a = atrs + k * SC_ATR;
        tb_ix_attr_t *x = &d->attrs[k];
        memset(x, 0, sizeof(*x));
        x->name         = (const char *)strs + SC_GET(a, ATR, NAME_OFF);
        x->name_len     = (uint32_t)SC_GET(a, ATR, NAME_LEN);
        x->cset         = (uint8_t)SC_GET(a, ATR, CSET);
        x->corder_valid = (uint8_t)SC_GET(a, ATR, CORDER_VALID);
        x->cached       = (uint8_t)SC_GET(a, ATR, CACHED);
        x->absent       = (uint8_t)SC_GET(a, ATR, ABSENT);
        x->corder       = (int64_t)SC_GET(a, ATR, CORDER);
        x->data_size    = (uint32_t)SC_GET(a, ATR, DATA_SIZE);
        if (x->cached) {
            x->type_enc     = strs + SC_GET(a, ATR, TYPE_OFF);
            x->type_nbytes  = (uint32_t)SC_GET(a, ATR, TYPE_LEN);
            x->space_enc    = strs + SC_GET(a, ATR, SPACE_OFF);
            x->space_nbytes = (uint32_t)SC_GET(a, ATR, SPACE_LEN);
            x->value        = strs + SC_GET(a, ATR, VALUE_OFF);
            x->value_nbytes = (uint32_t)SC_GET(a, ATR, VALUE_LEN);
        }
        d->nattr = (uint32_t)k + 1;
    }
    d->objcap   = (uint32_t)(nobj ? nobj : 1);
    d->groupcap = (uint32_t)(ngroup ? ngroup : 1);
    for (uint64_t k = 0; k < nobj; k++) {
        const uint8_t *o = objs + k * SC_OBJ;
        tb_ix_obj_t  *r = &d->objs[k];
        memset(r, 0, sizeof(*r));
        memcpy(r->token, SC_PTR(o, OBJ, TOKEN), TB_IX_TOKEN_NBYTES);
        r->has_info     = SC_GET(o, OBJ, HAS_INFO) & 1u;
        r->opened       = (SC_GET(o, OBJ, HAS_INFO) & SC_OBJ_OPENED) != 0;
        r->type         = (uint8_t)SC_GET(o, OBJ, TYPE);
        r->rc           = (uint32_t)SC_GET(o, OBJ, RC);
        r->group        = (uint32_t)SC_GET(o, OBJ, GROUP);
        r->num_attrs    = (uint32_t)SC_GET(o, OBJ, NUM_ATTRS);
        r->atime        = (int64_t)SC_GET(o, OBJ, ATIME);
        r->mtime        = (int64_t)SC_GET(o, OBJ, MTIME);
        r->ctime        = (int64_t)SC_GET(o, OBJ, CTIME);
        r->btime        = (int64_t)SC_GET(o, OBJ, BTIME);
        uint64_t attrs     = SC_GET(o, OBJ, ATTRS_LOADED);
        r->attrs_loaded    = attrs & 1;
        r->attrs_partial   = (attrs & SC_ATTRS_PARTIAL) != 0;
        r->attrs_unordered = (attrs & SC_ATTRS_UNORDERED) != 0;
        r->attrs_crt_native = (attrs & SC_ATTRS_CRT_NATIVE) != 0;
        r->attr_storage    = (attrs >> 1) & 3;
        r->attr_first   = (uint32_t)SC_GET(o, OBJ, ATTR_FIRST);
        r->nattr        = (uint32_t)SC_GET(o, OBJ, NATTR);
        r->dcache       = (uint8_t)SC_GET(o, OBJ, DCACHE);
        r->dset         = (uint32_t)SC_GET(o, OBJ, DSET);
        r->ninfo        = TB_IX_NONE;
    }
    d->nobj     = (uint32_t)nobj;
    d->root1    = 0; /* (records replaced: look-ups start again) */
    d->rc_valid = 0;
    memset(d->defer, 0, sizeof(d->defer));
    for (uint64_t k = 0; k < nnin; k++) {
        const uint8_t *x = nins + k * SC_NIN;
        tb_ix_ninfo_t *r = &d->ninfos[k];
        r->have            = (uint8_t)SC_GET(x, NIN, HAVE);
        r->version         = (uint32_t)SC_GET(x, NIN, VERSION);
        r->nmesgs          = (uint32_t)SC_GET(x, NIN, NMESGS);
        r->nchunks         = (uint32_t)SC_GET(x, NIN, NCHUNKS);
        r->flags           = (uint32_t)SC_GET(x, NIN, FLAGS);
        r->space_total     = SC_GET(x, NIN, TOTAL);
        r->space_meta      = SC_GET(x, NIN, META);
        r->space_mesg      = SC_GET(x, NIN, MESG);
        r->space_free      = SC_GET(x, NIN, FREE);
        r->mesg_present    = SC_GET(x, NIN, PRESENT);
        r->mesg_shared     = SC_GET(x, NIN, SHARED);
        r->obj_index_size  = SC_GET(x, NIN, OBJ_INDEX);
        r->obj_heap_size   = SC_GET(x, NIN, OBJ_HEAP);
        r->attr_index_size = SC_GET(x, NIN, ATTR_INDEX);
        r->attr_heap_size  = SC_GET(x, NIN, ATTR_HEAP);
        d->objs[SC_GET(x, NIN, OBJ)].ninfo = (uint32_t)k;
        d->nninfo                          = (uint32_t)k + 1;
    }
    /* (duplicate tokens, which would make look-ups ambiguous, are rejected there) */
    if ((st = tb_ix_rehash_objs(d)) != TB_OK)
        goto fail;
    for (uint64_t k = 0; k < nlink; k++) {
        const uint8_t *l = lnks + k * SC_LNK;
        tb_ix_link_t *x = &d->sc_links[k];
        memset(x, 0, sizeof(*x));
        x->name         = (const char *)strs + SC_GET(l, LNK, NAME_OFF);
        x->name_len     = (uint32_t)SC_GET(l, LNK, NAME_LEN);
        x->type         = (uint8_t)SC_GET(l, LNK, TYPE);
        x->cset         = (uint8_t)SC_GET(l, LNK, CSET);
        x->corder_valid = (uint8_t)SC_GET(l, LNK, CORDER_VALID);
        x->corder       = (int64_t)SC_GET(l, LNK, CORDER);
        x->absent       = (uint8_t)SC_GET(l, LNK, ABSENT);
        if (x->absent)
            x->obj = TB_IX_NONE;
        /* (out of memory: the target gets a record, as when the group is loaded) */
        if (x->type == SC_LINK_HARD && !x->absent && tb_ix_obj_get(d, SC_PTR(l, LNK, TOKEN), &x->obj) != TB_OK)
            goto fail;
        if (x->type != SC_LINK_HARD) {
            x->val      = strs + SC_GET(l, LNK, VAL_OFF);
            x->val_size = (uint32_t)SC_GET(l, LNK, VAL_SIZE);
        }
    }
    for (uint64_t k = 0; k < ngroup; k++) {
        const uint8_t  *g = grps + k * SC_GRP;
        tb_ix_group_t *x = &d->groups[k];
        memset(x, 0, sizeof(*x));
        x->obj          = (uint32_t)SC_GET(g, GRP, OBJ);
        x->links        = d->sc_links + SC_GET(g, GRP, LINK_FIRST);
        x->nlinks       = (uint32_t)SC_GET(g, GRP, NLINKS);
        x->storage_type = (uint8_t)SC_GET(g, GRP, STORAGE);
        x->mounted      = (uint8_t)SC_GET(g, GRP, MOUNTED);
        x->corder_state = (uint8_t)SC_GET(g, GRP, CORDER_STATE);
        x->partial      = (uint8_t)SC_GET(g, GRP, PARTIAL);
        x->max_corder   = (int64_t)SC_GET(g, GRP, MAX_CORDER);
        d->ngroup       = (uint32_t)k + 1;
        if (tb_ix_group_finish(x) < 0)
            goto fail;
    }
    d->sc_strs     = strs;
    d->sc_strbytes = strbytes;
    d->dirty       = 0;
    return TB_OK;
fail:
    tb_ix_data_clear(d);
    return st;
}

/* Moves pointer p (into the strings section at old) to the same offset from new. */
#define SC_REBASE(p, old, new) ((p) = (void *)((new) + ((const uint8_t *)(p) - (old))))

tb_status_t
tb_sidecar_compact(tb_ix_data_t *d)
{
    const uint8_t *old = d->sc_strs;
    size_t         n   = (size_t)d->sc_strbytes;
    /* A block of d's own for the strings (the records are in d's tables already). */
    uint8_t *nb = malloc(n ? n : 1);
    if (!nb)
        return TB_ERR_NOMEM;
    if (n)
        memcpy(nb, old, n);
    for (uint32_t g = 0; g < d->ngroup; g++) {
        if (d->groups[g].owned)
            continue;
        for (uint32_t k = 0; k < d->groups[g].nlinks; k++) {
            tb_ix_link_t *l = &d->groups[g].links[k];
            SC_REBASE(l->name, old, nb);
            if (l->type != SC_LINK_HARD)
                SC_REBASE(l->val, old, nb);
        }
    }
    for (uint32_t k = 0; k < d->nattr; k++) {
        tb_ix_attr_t *a = &d->attrs[k];
        if (a->owned)
            continue;
        SC_REBASE(a->name, old, nb);
        if (a->cached) {
            SC_REBASE(a->type_enc, old, nb);
            SC_REBASE(a->space_enc, old, nb);
            SC_REBASE(a->value, old, nb);
        }
    }
    for (uint32_t k = 0; k < d->ndset; k++) {
        tb_ix_dset_t *x = &d->dsets[k];
        if (!(x->owned & TB_IX_DS_TYPE))
            SC_REBASE(x->type_enc, old, nb);
        if (!(x->owned & TB_IX_DS_SPACE))
            SC_REBASE(x->space_enc, old, nb);
        if (!(x->owned & TB_IX_DS_DCPL))
            SC_REBASE(x->dcpl_enc, old, nb);
        if (!(x->owned & TB_IX_DS_VALUE))
            SC_REBASE(x->value, old, nb);
    }
    d->sc_strs = nb;
    d->sc_buf  = nb;
    return TB_OK;
}

/* ------------------------------------------------------------------ encode */

/* A dataset whose record (metadata, content) goes into the sidecar, a named datatype whose record
 * holds its binary form, or a group whose record holds its creation property list (and nothing
 * else: the decoder checks). */
static int
dset_kept(const tb_ix_obj_t *r, const tb_ix_data_t *d)
{
    return r->dset != TB_IX_NONE && r->has_info &&
           (r->type == SC_OBJ_DATASET || (r->type == SC_OBJ_DATATYPE && d->dsets[r->dset].have == TB_IX_DS_TYPE) ||
            (r->type == SC_OBJ_GROUP && d->dsets[r->dset].have == TB_IX_DS_DCPL));
}

/* Whether object r's record carries a run of attribute records: all its attributes or some. */
static int
attrs_listed(const tb_ix_obj_t *r)
{
    return r->attrs_loaded || r->attrs_partial;
}

/* Objects worth keeping: those with info, loaded links, listed attributes or their storage, a
 * content state or a native info. */
static int
obj_kept(const tb_ix_obj_t *r)
{
    return r->has_info || r->group != TB_IX_NONE || attrs_listed(r) || r->attr_storage != TB_IX_AS_UNKNOWN ||
           r->dcache || r->ninfo != TB_IX_NONE;
}

/* Each of the encoder's walks over the object records counts what it reads of a spill, so that
 * index_spill.c lets it go as it goes: the object record, and its dataset record, attribute
 * records and their parts (`reads`; tb_ix_spill_read counts a 64 KiB window once until the next
 * release, however often the walk comes back to it). */
enum { SC_RD_DSET = 1, SC_RD_DPARTS = 2, SC_RD_ATTR = 4, SC_RD_ABLOCK = 8 };

static inline void
sc_walked(const tb_ix_data_t *d, uint32_t k, unsigned reads)
{
    tb_ix_spill_t      *s = d->spill;
    const tb_ix_obj_t *r = &d->objs[k];
    tb_ix_spill_read(s, r, sizeof(*r));
    if (r->dset != TB_IX_NONE && (reads & (SC_RD_DSET | SC_RD_DPARTS))) {
        const tb_ix_dset_t *x = &d->dsets[r->dset];
        tb_ix_spill_read(s, x, sizeof(*x));
        if (reads & SC_RD_DPARTS)
            tb_ix_spill_read(s, x->type_enc, x->type_nbytes + x->space_nbytes + x->dcpl_nbytes + x->value_nbytes);
    }
    for (uint32_t j = 0; (reads & (SC_RD_ATTR | SC_RD_ABLOCK)) && attrs_listed(r) && j < r->nattr; j++) {
        const tb_ix_attr_t *a = &d->attrs[r->attr_first + j];
        tb_ix_spill_read(s, a, sizeof(*a));
        if (reads & SC_RD_ABLOCK)
            tb_ix_spill_read(s, a->name, a->name_len + a->type_nbytes + a->space_nbytes + a->value_nbytes);
    }
}

/* The same for a walk over the group records: group g, and its links when the walk reads them. */
static inline void
sc_walked_group(const tb_ix_data_t *d, uint32_t g, bool links)
{
    if (d->spill)
        tb_ix_spill_walked(d->spill, sizeof(tb_ix_group_t) +
                                         (links ? (size_t)d->groups[g].nlinks * sizeof(tb_ix_link_t) : 0));
}

void
tb_sidecar_counts(const tb_ix_data_t *d, tb_sc_counts_t *out)
{
    memset(out, 0, sizeof(*out));
    out->ngroup = d->ngroup;
    for (uint32_t k = 0; k < d->nobj; k++) {
        sc_walked(d, k, SC_RD_DSET);
        out->nobj += (uint32_t)obj_kept(&d->objs[k]);
        out->nattr += attrs_listed(&d->objs[k]) ? d->objs[k].nattr : 0;
        out->ndset += (uint32_t)dset_kept(&d->objs[k], d);
        out->nninfo += (uint32_t)(d->objs[k].ninfo != TB_IX_NONE);
    }
    for (uint32_t g = 0; g < d->ngroup; g++) {
        sc_walked_group(d, g, false);
        out->nlink += d->groups[g].nlinks;
    }
}

int
tb_sidecar_covers(const tb_sc_counts_t *have, const tb_sc_counts_t *want)
{
    return have->ngroup >= want->ngroup && have->nobj >= want->nobj && have->nattr >= want->nattr &&
           have->ndset >= want->ndset && have->nninfo >= want->nninfo;
}

/* ------------------------------------------------------------------ encoding
 * The sidecar is written as it is encoded, section by section through a 64 KiB stage, so that no
 * buffer of its size exists (a 60,000-object index writes a 16 MB sidecar at close): one walk per
 * section over that section's records only (the dataset and attribute walks count the other's
 * string bytes as they go). The checksum is taken as the bytes pass (8-byte words;
 * every piece but the last is a multiple of 8). */
#define SC_STAGE (64u * 1024u)

/* The checksum: four lanes, word i of the bytes going to lane i mod 4, each lane a multiply-xorshift
 * chain; the lanes are folded together at the end with the bytes past the last whole word. Four
 * independent chains because one is bound by the multiply's latency (a sidecar's decode spent
 * more time checksumming than decoding; 4 MB took ~1 ms). Incremental over word-aligned pieces. */
typedef struct sc_ck {
    uint64_t h[4];
    uint64_t nwords; /* words taken so far (the next word's lane) */
} sc_ck_t;

#define CK_MUL 0xFF51AFD7ED558CCDull

static void
ck_init(sc_ck_t *c, uint64_t n)
{
    for (int k = 0; k < 4; k++)
        c->h[k] = (0x9E3779B97F4A7C15ull ^ n) + (uint64_t)k * 0xD6E8FEB86659FD93ull;
    c->nwords = 0;
}

static inline uint64_t
ck_step(uint64_t h, const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    h ^= w;
    h *= CK_MUL;
    return h ^ (h >> 32);
}

static void
ck_words(sc_ck_t *c, const uint8_t *p, size_t nwords)
{
    size_t i = 0;
    for (; i < nwords && (c->nwords & 3); i++, c->nwords++) /* (to lane 0) */
        c->h[c->nwords & 3] = ck_step(c->h[c->nwords & 3], p + 8 * i);
    uint64_t h0 = c->h[0], h1 = c->h[1], h2 = c->h[2], h3 = c->h[3];
    for (; i + 4 <= nwords; i += 4) {
        h0 = ck_step(h0, p + 8 * i);
        h1 = ck_step(h1, p + 8 * i + 8);
        h2 = ck_step(h2, p + 8 * i + 16);
        h3 = ck_step(h3, p + 8 * i + 24);
        c->nwords += 4;
    }
    c->h[0] = h0, c->h[1] = h1, c->h[2] = h2, c->h[3] = h3;
    for (; i < nwords; i++, c->nwords++)
        c->h[c->nwords & 3] = ck_step(c->h[c->nwords & 3], p + 8 * i);
}

static uint64_t
ck_final(const sc_ck_t *c, const uint8_t *tail, size_t n)
{
    uint64_t h = c->h[0];
    for (int k = 1; k < 4; k++) {
        h ^= c->h[k];
        h *= CK_MUL;
        h ^= h >> 29;
    }
    uint64_t t = 0;
    memcpy(&t, tail, n);
    h ^= t;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
    return h;
}

uint64_t
tb_sidecar_checksum(const void *buf, size_t n)
{
    const uint8_t *p = buf;
    sc_ck_t        c;
    ck_init(&c, n);
    ck_words(&c, p, n / 8);
    return ck_final(&c, p + n / 8 * 8, n % 8);
}

typedef struct sc_out {
    tb_sc_sink_fn sink;
    void         *ctx;
    uint8_t      *stage;
    size_t        fill;
    sc_ck_t       ck;
    uint64_t      h; /* the checksum, once the last bytes went */
    int           failed;
} sc_out_t;

/* Hands the stage's whole words on (all of it when `last`), checksummed. */
static void
out_flush(sc_out_t *o, bool last)
{
    size_t n = last ? o->fill : o->fill / 8 * 8;
    ck_words(&o->ck, o->stage, n / 8);
    if (last)
        o->h = ck_final(&o->ck, o->stage + n / 8 * 8, n % 8);
    if (!o->failed && n && o->sink(o->ctx, o->stage, n) != 0)
        o->failed = 1;
    memmove(o->stage, o->stage + n, o->fill - n);
    o->fill -= n;
}

static void
out_put(sc_out_t *o, const void *src, size_t len)
{
    const uint8_t *p = src;
    while (len) {
        size_t room = SC_STAGE - o->fill, k = len < room ? len : room;
        memcpy(o->stage + o->fill, p, k);
        o->fill += k;
        p += k;
        len -= k;
        if (o->fill == SC_STAGE)
            out_flush(o, false);
    }
}

/* A zeroed record of n bytes (a multiple of 8) in the stage. */
static uint8_t *
out_rec(sc_out_t *o, size_t n)
{
    if (o->fill + n > SC_STAGE)
        out_flush(o, false);
    uint8_t *r = o->stage + o->fill;
    memset(r, 0, n);
    o->fill += n;
    return r;
}

/* Records string offset *so and length len in rec's fields F_OFF and F_LEN, and moves *so past
 * them (the bytes themselves are the strings section's). */
static void
put_span(uint8_t *rec, const sc_field_t *off_f, const sc_field_t *len_f, uint64_t *so, uint32_t len)
{
    sc_put(rec, off_f, *so);
    sc_put(rec, len_f, len);
    *so += len;
}
#define PUT_SPAN(rec, K, F, so, len) put_span((rec), &SC_TABLE_##K[K##_##F##_OFF], &SC_TABLE_##K[K##_##F##_LEN], (so), (len))

/* String bytes of a dataset record, of an attribute record (its name and NUL first) and of a link
 * (name, NUL, value), in the order the strings section holds them. */
static uint64_t
dset_strbytes(const tb_ix_dset_t *x)
{
    return (uint64_t)x->type_nbytes + x->space_nbytes + x->dcpl_nbytes + x->value_nbytes;
}

static uint64_t
attr_strbytes(const tb_ix_attr_t *a)
{
    return (uint64_t)a->name_len + 1 + (a->cached ? (uint64_t)a->type_nbytes + a->space_nbytes + a->value_nbytes : 0);
}

static uint64_t
link_strbytes(const tb_ix_link_t *l)
{
    return (uint64_t)l->name_len + 1 + (l->type != SC_LINK_HARD ? l->val_size : 0);
}

/* One native-info record for object record obj: the halves not known stay zero. */
static void
put_ninfo(uint8_t *p, uint32_t obj, const tb_ix_ninfo_t *x)
{
    SC_PUT(p, NIN, OBJ, obj);
    SC_PUT(p, NIN, HAVE, x->have);
    if (x->have & TB_IX_NI_HDR) {
        SC_PUT(p, NIN, VERSION, x->version);
        SC_PUT(p, NIN, NMESGS, x->nmesgs);
        SC_PUT(p, NIN, NCHUNKS, x->nchunks);
        SC_PUT(p, NIN, FLAGS, x->flags);
        SC_PUT(p, NIN, TOTAL, x->space_total);
        SC_PUT(p, NIN, META, x->space_meta);
        SC_PUT(p, NIN, MESG, x->space_mesg);
        SC_PUT(p, NIN, FREE, x->space_free);
        SC_PUT(p, NIN, PRESENT, x->mesg_present);
        SC_PUT(p, NIN, SHARED, x->mesg_shared);
    }
    if (x->have & TB_IX_NI_META) {
        SC_PUT(p, NIN, OBJ_INDEX, x->obj_index_size);
        SC_PUT(p, NIN, OBJ_HEAP, x->obj_heap_size);
        SC_PUT(p, NIN, ATTR_INDEX, x->attr_index_size);
        SC_PUT(p, NIN, ATTR_HEAP, x->attr_heap_size);
    }
}

/* String bytes of object r's dataset record and of its attribute records. */
static uint64_t
obj_dset_strbytes(const tb_ix_data_t *d, const tb_ix_obj_t *r)
{
    return dset_kept(r, d) ? dset_strbytes(&d->dsets[r->dset]) : 0;
}

static uint64_t
obj_attr_strbytes(const tb_ix_data_t *d, const tb_ix_obj_t *r)
{
    uint64_t n = 0;
    if (attrs_listed(r))
        for (uint32_t j = 0; j < r->nattr; j++)
            n += attr_strbytes(&d->attrs[r->attr_first + j]);
    return n;
}

/* What an encoding of d holds: record counts, string bytes, total length, remap (object index ->
 * record index, or TB_IX_NONE; nobj entries) and where the links' strings start (after every
 * object's: its dataset record's bytes, then its attributes'), so that each section is written
 * by a walk of its own records only. */
typedef struct sc_plan {
    uint64_t        nobj, nlink, nattr, ndset, nnin, strbytes, link_so, psec, n;
    size_t          plen;
    const uint32_t *remap;
} sc_plan_t;

static tb_status_t
plan(const tb_ix_data_t *d, const char *path, uint32_t *remap, sc_plan_t *pl)
{
    memset(pl, 0, sizeof(*pl));
    pl->remap = remap;
    for (uint32_t k = 0; k < d->nobj; k++) {
        sc_walked(d, k, SC_RD_DSET | SC_RD_ATTR);
        const tb_ix_obj_t *r = &d->objs[k];
        remap[k]             = obj_kept(r) ? (uint32_t)pl->nobj++ : TB_IX_NONE;
        if (remap[k] == TB_IX_NONE)
            continue;
        pl->nnin += r->ninfo != TB_IX_NONE;
        pl->ndset += (uint64_t)dset_kept(r, d);
        pl->nattr += attrs_listed(r) ? r->nattr : 0;
        pl->strbytes += obj_dset_strbytes(d, r) + obj_attr_strbytes(d, r);
    }
    pl->link_so = pl->strbytes;
    for (uint32_t g = 0; g < d->ngroup; g++) {
        sc_walked_group(d, g, true);
        pl->nlink += d->groups[g].nlinks;
        for (uint32_t k = 0; k < d->groups[g].nlinks; k++)
            pl->strbytes += link_strbytes(&d->groups[g].links[k]);
    }
    pl->plen = path ? strlen(path) : 0;
    if (pl->nlink >= TB_IX_NONE || pl->nattr >= TB_IX_NONE || pl->ndset >= TB_IX_NONE || pl->plen >= UINT32_MAX)
        return TB_ERR_ARG;
    pl->psec = sc_path_section(pl->plen);
    pl->n    = SC_HDR + pl->psec + pl->nobj * SC_OBJ + (uint64_t)d->ngroup * SC_GRP + pl->nlink * SC_LNK +
            pl->nattr * SC_ATR + pl->ndset * SC_DST + pl->nnin * SC_NIN + pl->strbytes + SC_TRAILER;
    return TB_OK;
}

/* The sections, in the order they follow each other. */
static void
put_objs(const tb_ix_data_t *d, const sc_plan_t *pl, sc_out_t *o)
{
    uint64_t ai = 0, di = 0;
    for (uint32_t k = 0; k < d->nobj; k++) {
        sc_walked(d, k, SC_RD_DSET);
        if (pl->remap[k] == TB_IX_NONE)
            continue;
        const tb_ix_obj_t *r  = &d->objs[k];
        uint8_t            *ob = out_rec(o, SC_OBJ);
        int                 dk = dset_kept(r, d);
        memcpy(SC_PTR(ob, OBJ, TOKEN), r->token, TB_IX_TOKEN_NBYTES);
        SC_PUT(ob, OBJ, HAS_INFO, r->has_info | (r->has_info && r->type == SC_OBJ_DATASET && r->opened ? SC_OBJ_OPENED : 0u));
        SC_PUT(ob, OBJ, TYPE, r->has_info ? r->type : 0);
        SC_PUT(ob, OBJ, RC, r->rc);
        SC_PUT(ob, OBJ, GROUP, r->group);
        SC_PUT(ob, OBJ, NUM_ATTRS, r->num_attrs);
        SC_PUT(ob, OBJ, ATIME, (uint64_t)r->atime);
        SC_PUT(ob, OBJ, MTIME, (uint64_t)r->mtime);
        SC_PUT(ob, OBJ, CTIME, (uint64_t)r->ctime);
        SC_PUT(ob, OBJ, BTIME, (uint64_t)r->btime);
        SC_PUT(ob, OBJ, DSET, dk ? di++ : TB_IX_NONE);
        unsigned dc = r->has_info && r->type == SC_OBJ_DATASET ? r->dcache : 0;
        if (dc == TB_IX_DC_CACHED && !(dk && (d->dsets[r->dset].have & TB_IX_DS_VALUE)))
            dc = TB_IX_DC_UNKNOWN;
        SC_PUT(ob, OBJ, DCACHE, dc);
        SC_PUT(ob, OBJ, ATTRS_LOADED,
               (r->attrs_loaded ? 1u : 0u) | (r->attrs_partial ? SC_ATTRS_PARTIAL : 0u) |
                   (r->attrs_loaded && r->attrs_unordered ? SC_ATTRS_UNORDERED : 0u) |
                   (r->attrs_loaded && r->attrs_unordered && r->attrs_crt_native ? SC_ATTRS_CRT_NATIVE : 0u) |
                   ((unsigned)r->attr_storage << 1));
        if (attrs_listed(r)) {
            SC_PUT(ob, OBJ, ATTR_FIRST, ai);
            SC_PUT(ob, OBJ, NATTR, r->nattr);
            ai += r->nattr;
        }
    }
}

static void
put_groups(const tb_ix_data_t *d, const sc_plan_t *pl, sc_out_t *o)
{
    uint64_t li = 0;
    for (uint32_t g = 0; g < d->ngroup; g++) {
        const tb_ix_group_t *x  = &d->groups[g];
        uint8_t              *gr = out_rec(o, SC_GRP);
        SC_PUT(gr, GRP, OBJ, pl->remap[x->obj]);
        SC_PUT(gr, GRP, LINK_FIRST, li);
        SC_PUT(gr, GRP, NLINKS, x->nlinks);
        SC_PUT(gr, GRP, STORAGE, x->storage_type);
        SC_PUT(gr, GRP, MOUNTED, x->mounted);
        SC_PUT(gr, GRP, CORDER_STATE, x->corder_state);
        SC_PUT(gr, GRP, PARTIAL, x->partial);
        SC_PUT(gr, GRP, MAX_CORDER, (uint64_t)x->max_corder);
        li += x->nlinks;
    }
}

static void
put_links(const tb_ix_data_t *d, const sc_plan_t *pl, sc_out_t *o)
{
    uint64_t so = pl->link_so;
    for (uint32_t g = 0; g < d->ngroup; g++) {
        sc_walked_group(d, g, true);
        for (uint32_t k = 0; k < d->groups[g].nlinks; k++) {
            const tb_ix_link_t *l = &d->groups[g].links[k];
            uint8_t             *p = out_rec(o, SC_LNK);
            SC_PUT(p, LNK, NAME_OFF, so);
            SC_PUT(p, LNK, NAME_LEN, l->name_len);
            SC_PUT(p, LNK, TYPE, l->type);
            SC_PUT(p, LNK, CSET, l->cset);
            SC_PUT(p, LNK, CORDER_VALID, l->corder_valid);
            SC_PUT(p, LNK, CORDER, (uint64_t)l->corder);
            if (l->absent)
                SC_PUT(p, LNK, ABSENT, 1);
            else if (l->type == SC_LINK_HARD)
                memcpy(SC_PTR(p, LNK, TOKEN), d->objs[l->obj].token, TB_IX_TOKEN_NBYTES);
            else {
                SC_PUT(p, LNK, VAL_SIZE, l->val_size);
                SC_PUT(p, LNK, VAL_OFF, so + l->name_len + 1);
            }
            so += link_strbytes(l);
        }
    }
}

static void
put_attrs(const tb_ix_data_t *d, const sc_plan_t *pl, sc_out_t *o)
{
    uint64_t so = 0;
    for (uint32_t k = 0; k < d->nobj; k++) {
        sc_walked(d, k, SC_RD_DSET | SC_RD_ATTR);
        const tb_ix_obj_t *r = &d->objs[k];
        if (pl->remap[k] == TB_IX_NONE)
            continue;
        so += obj_dset_strbytes(d, r);
        if (!attrs_listed(r))
            continue;
        for (uint32_t j = 0; j < r->nattr; j++) {
            const tb_ix_attr_t *a = &d->attrs[r->attr_first + j];
            uint8_t             *p = out_rec(o, SC_ATR);
            SC_PUT(p, ATR, NAME_OFF, so);
            SC_PUT(p, ATR, NAME_LEN, a->name_len);
            SC_PUT(p, ATR, CSET, a->cset);
            SC_PUT(p, ATR, CORDER_VALID, a->corder_valid);
            SC_PUT(p, ATR, CACHED, a->cached);
            SC_PUT(p, ATR, ABSENT, a->absent);
            SC_PUT(p, ATR, CORDER, (uint64_t)a->corder);
            SC_PUT(p, ATR, DATA_SIZE, a->data_size);
            so += (uint64_t)a->name_len + 1;
            if (!a->cached)
                continue;
            PUT_SPAN(p, ATR, TYPE, &so, a->type_nbytes);
            PUT_SPAN(p, ATR, SPACE, &so, a->space_nbytes);
            PUT_SPAN(p, ATR, VALUE, &so, a->value_nbytes);
        }
    }
}

static void
put_dsets(const tb_ix_data_t *d, const sc_plan_t *pl, sc_out_t *o)
{
    uint64_t so = 0;
    for (uint32_t k = 0; k < d->nobj; k++) {
        sc_walked(d, k, SC_RD_DSET | SC_RD_ATTR);
        const tb_ix_obj_t *r = &d->objs[k];
        if (pl->remap[k] == TB_IX_NONE)
            continue;
        if (dset_kept(r, d)) {
            const tb_ix_dset_t *x = &d->dsets[r->dset];
            uint8_t            *p = out_rec(o, SC_DST);
            PUT_SPAN(p, DST, TYPE, &so, x->type_nbytes);
            PUT_SPAN(p, DST, SPACE, &so, x->space_nbytes);
            PUT_SPAN(p, DST, DCPL, &so, x->dcpl_nbytes);
            PUT_SPAN(p, DST, VALUE, &so, x->value_nbytes);
            SC_PUT(p, DST, HAVE, x->have);
            SC_PUT(p, DST, LAYOUT, x->layout);
            SC_PUT(p, DST, STATUS, (x->have & TB_IX_DS_STATUS) ? x->space_status : 0);
            SC_PUT(p, DST, STORAGE, (x->have & TB_IX_DS_STORAGE) ? x->storage_size : 0);
        }
        so += obj_attr_strbytes(d, r);
    }
}

static void
put_ninfos(const tb_ix_data_t *d, const sc_plan_t *pl, sc_out_t *o)
{
    for (uint32_t k = 0; k < d->nobj; k++) {
        sc_walked(d, k, 0);
        if (pl->remap[k] != TB_IX_NONE && d->objs[k].ninfo != TB_IX_NONE)
            put_ninfo(out_rec(o, SC_NIN), pl->remap[k], &d->ninfos[d->objs[k].ninfo]);
    }
}

/* The strings section: the bytes the records above point into, in the order plan() counted them. */
static void
put_strings(const tb_ix_data_t *d, const sc_plan_t *pl, sc_out_t *o)
{
    for (uint32_t k = 0; k < d->nobj; k++) {
        sc_walked(d, k, SC_RD_DSET | SC_RD_DPARTS | SC_RD_ATTR | SC_RD_ABLOCK);
        const tb_ix_obj_t *r = &d->objs[k];
        if (pl->remap[k] == TB_IX_NONE)
            continue;
        if (dset_kept(r, d)) {
            const tb_ix_dset_t *x = &d->dsets[r->dset];
            out_put(o, x->type_enc, x->type_nbytes);
            out_put(o, x->space_enc, x->space_nbytes);
            out_put(o, x->dcpl_enc, x->dcpl_nbytes);
            out_put(o, x->value, x->value_nbytes);
        }
        if (!attrs_listed(r))
            continue;
        for (uint32_t j = 0; j < r->nattr; j++) {
            const tb_ix_attr_t *a = &d->attrs[r->attr_first + j];
            out_put(o, a->name, (size_t)a->name_len + 1);
            if (!a->cached)
                continue;
            out_put(o, a->type_enc, a->type_nbytes);
            out_put(o, a->space_enc, a->space_nbytes);
            out_put(o, a->value, a->value_nbytes);
        }
    }
    for (uint32_t g = 0; g < d->ngroup; g++) {
        sc_walked_group(d, g, true);
        for (uint32_t k = 0; k < d->groups[g].nlinks; k++) {
            const tb_ix_link_t *l = &d->groups[g].links[k];
            out_put(o, l->name, (size_t)l->name_len + 1);
            if (l->type != SC_LINK_HARD)
                out_put(o, l->val, l->val_size);
        }
    }
}

tb_status_t
tb_sidecar_encode_to(const tb_ix_data_t *d, const tb_ix_identity_t *id, const char *path, uint64_t max_nbytes,
                     tb_sc_sink_fn sink, void *ctx, size_t *n_out)
{
    uint32_t   *remap = malloc((size_t)(d->nobj ? d->nobj : 1) * sizeof(*remap));
    uint8_t    *stage = malloc(SC_STAGE);
    tb_ix_spill_release(d->spill); /* (the walks below count what they read from here) */
    sc_plan_t   pl;
    tb_status_t st = remap && stage ? plan(d, path, remap, &pl) : TB_ERR_NOMEM;
    if (st == TB_OK && pl.n > max_nbytes) {
        *n_out = (size_t)pl.n;
        st     = TB_ERR_UNSUPPORTED; /* (over the caller's budget: nothing handed to the sink) */
    }
    if (st != TB_OK) {
        free(remap);
        free(stage);
        return st;
    }
    uint64_t n = pl.n, psec = pl.psec;
    size_t   plen = pl.plen;
    sc_out_t o = {.sink = sink, .ctx = ctx, .stage = stage};
    ck_init(&o.ck, n - SC_TRAILER);
    uint8_t  b[SC_HDR];
    memset(b, 0, sizeof(b));
    memcpy(SC_PTR(b, HDR, MAGIC), SC_MAGIC, 8);
    SC_PUT(b, HDR, VERSION, SC_VERSION);
    SC_PUT(b, HDR, BYTEORDER, SC_BYTEORDER);
    SC_PUT(b, HDR, TOTAL, n);
    SC_PUT(b, HDR, DEV, id->dev);
    SC_PUT(b, HDR, INO, id->ino);
    SC_PUT(b, HDR, SIZE, id->size);
    SC_PUT(b, HDR, MTIME, (uint64_t)id->mtime_ns);
    SC_PUT(b, HDR, CTIME, (uint64_t)id->ctime_ns);
    SC_PUT(b, HDR, EOA, id->eoa);
    memcpy(SC_PTR(b, HDR, ROOT_TOKEN), id->root_token, TB_IX_TOKEN_NBYTES);
    SC_PUT(b, HDR, NOBJ, pl.nobj);
    SC_PUT(b, HDR, NGROUP, d->ngroup);
    SC_PUT(b, HDR, NLINK, pl.nlink);
    SC_PUT(b, HDR, NATTR, pl.nattr);
    SC_PUT(b, HDR, NDSET, pl.ndset);
    SC_PUT(b, HDR, NNINFO, pl.nnin);
    SC_PUT(b, HDR, PATH_NBYTES, plen);
    SC_PUT(b, HDR, STRBYTES, pl.strbytes);
    out_put(&o, b, sizeof(b));
    out_put(&o, path ? path : "", plen);
    static const uint8_t zeros[8];
    out_put(&o, zeros, (size_t)(psec - plen)); /* (the NUL and the padding: 1 to 8 bytes) */
    put_objs(d, &pl, &o);
    put_groups(d, &pl, &o);
    put_links(d, &pl, &o);
    put_attrs(d, &pl, &o);
    put_dsets(d, &pl, &o);
    put_ninfos(d, &pl, &o);
    put_strings(d, &pl, &o);
    out_flush(&o, true);
    uint8_t chk[SC_TRAILER];
    memcpy(chk, &o.h, 8);
    if (!o.failed && sink(ctx, chk, sizeof(chk)) != 0)
        o.failed = 1;
    free(remap);
    free(stage);
    if (o.failed)
        return TB_ERR_IO;
    *n_out = (size_t)n;
    return TB_OK;
}

typedef struct mem_sink {
    uint8_t *b;
    size_t   n, cap;
} mem_sink_t;

static int
to_memory(void *ctx, const void *p, size_t n)
{
    mem_sink_t *m = ctx;
    if (m->n + n > m->cap) {
        size_t   cap = m->cap ? m->cap : SC_STAGE;
        while (cap < m->n + n)
            cap *= 2;
        uint8_t *b = realloc(m->b, cap);
        if (!b)
            return -1;
        m->b   = b;
        m->cap = cap;
    }
    memcpy(m->b + m->n, p, n);
    m->n += n;
    return 0;
}

tb_status_t
tb_sidecar_encode(const tb_ix_data_t *d, const tb_ix_identity_t *id, const char *path, uint64_t max_nbytes,
                  void **buf_out, size_t *n_out)
{
    mem_sink_t  m  = {0};
    tb_status_t st = tb_sidecar_encode_to(d, id, path, max_nbytes, to_memory, &m, n_out);
    if (st != TB_OK) {
        free(m.b);
        return st == TB_ERR_IO ? TB_ERR_NOMEM : st; /* (memory is the only thing that fails here) */
    }
    *buf_out = m.b;
    return TB_OK;
}
