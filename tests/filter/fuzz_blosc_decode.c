/* fuzz_blosc_decode.c — libFuzzer target for the Blosc decode path (untrusted chunk bytes from
 * a file). Differential: the serial decoder and the block-parallel decoder must agree on every
 * input, and neither may read or write outside its buffers (run under ASan). The same function
 * is replayed over tests/filter/corpus by fuzz_replay.c in every build. */
#include "tb_blosc_codec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bound on what one input may make us allocate, so the fuzzer spends its time decoding. */
#define FUZZ_MAX_NBYTES ((size_t)4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The expected size a caller (HDF5's chunk size) would give: what the header claims, up to
     * our bound, so that both accepted and "larger than expected" frames are exercised. */
    size_t cap = 0;
    if (size >= 8)
        cap = (size_t)data[4] | (size_t)data[5] << 8 | (size_t)data[6] << 16 | (size_t)data[7] << 24;
    if (cap > FUZZ_MAX_NBYTES)
        cap = FUZZ_MAX_NBYTES;

    /* Exact-size copies: any read past the input or write past the output trips ASan. */
    uint8_t *src = malloc(size ? size : 1);
    uint8_t *out1 = malloc(cap ? cap : 1), *out2 = malloc(cap ? cap : 1);
    if (!src || !out1 || !out2)
        abort();
    if (size)
        memcpy(src, data, size);

    char              why[256];
    tb_blosc_frame_t f;
    tb_status_t      info = tb_blosc_frame_info(src, size, cap, &f, why, sizeof(why));
    size_t            n1 = 0, n2 = 0;
    tb_status_t      r1 = tb_blosc_decompress(src, size, out1, cap, &n1, 1);
    tb_status_t      r2 = tb_blosc_decompress(src, size, out2, cap, &n2, 3);

    /* Header validation decides acceptance before any decoding. */
    if (info != TB_OK && (r1 == TB_OK || r2 == TB_OK)) {
        fprintf(stderr, "decoded a frame whose header was refused (%s)\n", why);
        abort();
    }
    if (r1 == TB_OK && n1 != f.nbytes)
        abort();
    /* Serial and parallel paths must agree: both fail, or both give the same bytes. */
    if ((r1 == TB_OK) != (r2 == TB_OK)) {
        fprintf(stderr, "serial decode %d, parallel decode %d\n", (int)r1, (int)r2);
        abort();
    }
    if (r1 == TB_OK && (n1 != n2 || memcmp(out1, out2, n1) != 0)) {
        fprintf(stderr, "serial and parallel decodes differ\n");
        abort();
    }
    free(src), free(out1), free(out2);
    return 0;
}
