/* tb_blosc_plugin.c — the HDF5 side of h5turbo's Blosc filter (id 32001): the filter class,
 * set_local (cd_values exactly as hdf5-blosc writes them) and the filter callback, which only
 * moves buffers and errors between HDF5 and the codec in tb_blosc_codec.c. */
#include "tb_bind.h"
#include "tb_blosc_codec.h"
#include "tb_common.h"
#include "tb_hdf5err.h"

#include <hdf5.h>
#include <H5PLextern.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Names this filter in every message it pushes, so a failed read says which filter failed. */
#define PART "Blosc filter (32001)"

/* A filter placed before Blosc in a pipeline can change the chunk size (fletcher32 adds a
 * 4-byte checksum), so a header may claim a little more than cd_values[3]. Anything beyond this
 * allowance is a corrupt header, refused before we allocate for it. */
#define CHUNK_SLACK_NBYTES 4096

/* Blosc format version hdf5-blosc records in cd_values[1]. */
#define BLOSC_FORMAT_VERSION 2

/* hdf5-blosc stores at most 8 values and reads 7; we keep whatever the user gave up to 8. */
#define CD_MAX 8

/* Pushes a message onto the HDF5 error stack even from inside the filter callback. Since 1.14.5
 * HDF5 pauses the default stack around filter calls, which would silently drop it; so, only
 * when the stack is paused: resume it, push, take the message off as a stack of its own,
 * pause again as deep as before, and install the message as the current stack (which ignores
 * the pause and keeps the pause count). Every
 * public H5E call clears the default stack on entry, which is harmless here: HDF5 pushes its
 * own entries only as the failed call unwinds, after we return. */
static void
report_at(const char *func, unsigned line, tb_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The message names the function that failed, not the helper that pushes it. */
#define report(...) report_at(__func__, __LINE__, __VA_ARGS__)

static void
report_at(const char *func, unsigned line, tb_status_t st, const char *fmt, ...)
{
    char    msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
#if H5_VERSION_GE(1, 14, 5)
    hbool_t  paused = 0;
    unsigned depth  = 0;
    while (depth < 64 && H5Eis_paused(H5E_DEFAULT, &paused) >= 0 && paused && H5Eresume_stack(H5E_DEFAULT) >= 0)
        depth++;
    if (depth > 0) {
        tb_push_error(__FILE__, func, line, PART, st, "%s", msg);
        hid_t ours = H5Eget_current_stack();
        for (unsigned i = 0; i < depth; i++)
            H5Epause_stack(H5E_DEFAULT);
        if (ours >= 0)
            H5Eset_current_stack(ours);
        return;
    }
#endif
    tb_push_error(__FILE__, func, line, PART, st, "%s", msg);
}

static herr_t
tb_blosc_set_local(hid_t dcpl, hid_t type, hid_t space)
{
    unsigned flags     = 0;
    size_t   nelmts    = CD_MAX;
    unsigned cd[CD_MAX] = {0};
    hsize_t  chunk[H5S_MAX_RANK];
    TB_UNUSED(space);

    if (H5Pget_filter_by_id2(dcpl, TB_BLOSC_FILTER_ID, &flags, &nelmts, cd, 0, NULL, NULL) < 0)
        return -1;
    if (nelmts > CD_MAX)
        nelmts = CD_MAX;
    /* Slots 0-3 are ours to fill; 4-6 stay as the user gave them (absent means the defaults). */
    if (nelmts < 4)
        nelmts = 4;
    cd[0] = TB_BLOSC_FILTER_REVISION;
    cd[1] = BLOSC_FORMAT_VERSION;

    int ndims = H5Pget_chunk(dcpl, H5S_MAX_RANK, chunk);
    if (ndims < 0)
        return -1;
    size_t type_nbytes = H5Tget_size(type);
    if (type_nbytes == 0)
        return -1;
    /* Shuffle by the base element of an array type, as hdf5-blosc does. */
    size_t base_nbytes = type_nbytes;
    if (H5Tget_class(type) == H5T_ARRAY) {
        hid_t super = H5Tget_super(type);
        if (super < 0)
            return -1;
        base_nbytes = H5Tget_size(super);
        H5Tclose(super);
    }
    cd[2] = base_nbytes > 255 ? 1u : (unsigned)base_nbytes;

    unsigned long long chunk_nbytes = type_nbytes;
    for (int i = 0; i < ndims; i++)
        chunk_nbytes *= chunk[i];
    /* A Blosc 1 frame counts bytes in int32: refuse now what could never be compressed. */
    if (chunk_nbytes > (unsigned long long)INT32_MAX - TB_BLOSC_HEADER_NBYTES) {
        report(TB_ERR_UNSUPPORTED, "chunk of %llu bytes exceeds Blosc 1's 2 GiB frame limit", chunk_nbytes);
        return -1;
    }
    cd[3] = (unsigned)chunk_nbytes;

    /* Refuse settings that could never compress, at dataset creation rather than at first write. */
    tb_blosc_params_t p;
    char               why[256];
    tb_status_t       st = tb_blosc_params_from_cd(nelmts, cd, &p, why, sizeof(why));
    if (st != TB_OK) {
        report(st, "%s", why);
        return -1;
    }
    if (H5Pmodify_filter(dcpl, TB_BLOSC_FILTER_ID, flags, nelmts, cd) < 0)
        return -1;
    return 1;
}

static size_t
filter_compress(const tb_blosc_params_t *p, int optional, size_t nbytes, size_t *buf_size, void **buf)
{
    size_t cap = tb_blosc_max_compressed_nbytes(nbytes);
    void  *out = H5allocate_memory(cap, false);
    size_t out_nbytes = 0;
    if (!out) {
        report(TB_ERR_NOMEM, "cannot allocate %zu bytes for a compressed chunk", cap);
        return 0;
    }
    tb_status_t st = tb_blosc_compress(p, *buf, nbytes, out, cap, &out_nbytes, 0);
    if (st != TB_OK) {
        report(st, "compressing a %zu-byte chunk with %s level %u failed",
                 nbytes, tb_blosc_compressor_name(p->compressor), p->clevel);
        H5free_memory(out);
        return 0;
    }
    /* hdf5-blosc compresses into a buffer of the chunk's size and fails when the frame does not
     * fit; HDF5 then stores an optional filter's chunk unfiltered (PyTables and h5py set Blosc
     * optional). So do we, that the same data is stored the same whichever plugin wrote it. A
     * mandatory filter keeps the frame (a plain copy at worst), where hdf5-blosc fails the write. */
    if (optional && out_nbytes > nbytes) {
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf      = out;
    *buf_size = cap;
    return out_nbytes;
}

static size_t
filter_decompress(const tb_blosc_params_t *p, size_t nbytes, size_t *buf_size, void **buf)
{
    /* The size HDF5 expects back: the chunk size from set_local, with room for a preceding
     * filter's trailer. Without it (a foreign file with fewer cd_values) only Blosc's own limit. */
    size_t            limit = p->chunk_nbytes ? p->chunk_nbytes + CHUNK_SLACK_NBYTES : (size_t)INT32_MAX;
    tb_blosc_frame_t frame;
    char              why[256];
    tb_status_t      st = tb_blosc_frame_info(*buf, nbytes, limit, &frame, why, sizeof(why));
    if (st != TB_OK) {
        report(st, "corrupt chunk (%zu bytes): %s", nbytes, why);
        return 0;
    }
    if (frame.nbytes == 0) {
        report(TB_ERR_CORRUPT, "chunk decompresses to 0 bytes");
        return 0;
    }
    void  *out = H5allocate_memory(frame.nbytes, false);
    size_t out_nbytes = 0;
    if (!out) {
        report(TB_ERR_NOMEM, "cannot allocate %zu bytes for a decompressed chunk", frame.nbytes);
        return 0;
    }
    st = tb_blosc_decompress(*buf, nbytes, out, frame.nbytes, &out_nbytes, 0);
    if (st != TB_OK) {
        report(st, "corrupt chunk: a block of the %zu-byte frame does not decode", nbytes);
        H5free_memory(out);
        return 0;
    }
    H5free_memory(*buf);
    *buf      = out;
    *buf_size = frame.nbytes;
    return out_nbytes;
}

/* HDF5's filter callback: returns the bytes now in *buf, or 0 for failure (with a message). */
static size_t
tb_blosc_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes, size_t *buf_size,
                 void **buf)
{
    tb_blosc_params_t p = {0};
    char               why[256];
    tb_status_t       st = tb_blosc_params_from_cd(cd_nelmts, cd_values, &p, why, sizeof(why));
    if (flags & H5Z_FLAG_REVERSE) {
        /* Decoding needs nothing but the frame; bad compression settings must not block reads. */
        if (st != TB_OK)
            p.chunk_nbytes = cd_nelmts >= 4 ? cd_values[3] : 0;
        return filter_decompress(&p, nbytes, buf_size, buf);
    }
    if (st != TB_OK) {
        report(st, "%s", why);
        return 0;
    }
    return filter_compress(&p, (flags & H5Z_FLAG_OPTIONAL) != 0, nbytes, buf_size, buf);
}

static const H5Z_class2_t tb_blosc_class = {
    H5Z_CLASS_T_VERS,
    (H5Z_filter_t)TB_BLOSC_FILTER_ID,
    1, /* encoder present */
    1, /* decoder present */
    /* The same name hdf5-blosc registers: HDF5 writes it into each dataset's pipeline message,
     * and files should not depend on which implementation wrote them. */
    "blosc",
    NULL,
    tb_blosc_set_local,
    tb_blosc_filter,
};

/* Both entry points first bind the plugin to the HDF5 library calling them (the plugin links
 * none); a library this build cannot serve gets H5PL_TYPE_ERROR / NULL, and HDF5 carries on
 * without the filter. */
TB_EXPORT H5PL_type_t
H5PLget_plugin_type(void)
{
    if (tb_bind_caller(__builtin_return_address(0), "Blosc filter plugin (32001)") < 0)
        return H5PL_TYPE_ERROR;
    return H5PL_TYPE_FILTER;
}

TB_EXPORT const void *
H5PLget_plugin_info(void)
{
    if (tb_bind_caller(__builtin_return_address(0), "Blosc filter plugin (32001)") < 0)
        return NULL;
    return &tb_blosc_class;
}
