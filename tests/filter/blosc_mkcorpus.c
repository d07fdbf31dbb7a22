/* blosc_mkcorpus.c — writes the seed corpus of the decode fuzzer (tests/filter/corpus/): small
 * frames of every compressor and shuffle mode with several blocks (so the parallel decoder
 * runs), plain-copy and empty frames, and truncated ones. Run by hand when the corpus changes:
 *   build-blosc/tests/filter/blosc_mkcorpus tests/filter/corpus */
#include "tb_blosc_codec.h"
#include "blosc_test_data.h"

#include <blosc.h>
#include <stdio.h>
#include <stdlib.h>

static void
save(const char *dir, const char *name, const uint8_t *buf, size_t n)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(buf, 1, n, fp) != n) {
        perror(path);
        exit(1);
    }
    fclose(fp);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    uint8_t     src[6000], frame[6100];
    char        name[64];
    for (unsigned comp = 0; comp <= TB_BLOSC_ZSTD; comp++) {
        if (!tb_blosc_compressor_available(comp))
            continue;
        for (unsigned sh = 0; sh <= 2; sh++) {
            unsigned ts = sh == 0 ? 1 : (comp % 2 ? 4 : 2);
            test_fill(src, sizeof(src), ts, PATTERN_SMOOTH, comp * 3 + sh);
            /* A forced small block size gives several blocks and a short last one. */
            int n = blosc_compress_ctx(5, (int)sh, ts, sizeof(src) - 8, src, frame, sizeof(frame),
                                       tb_blosc_compressor_name(comp), 1024, 1);
            if (n <= 0)
                return 1;
            snprintf(name, sizeof(name), "frame_%s_sh%u", tb_blosc_compressor_name(comp), sh);
            save(dir, name, frame, (size_t)n);
            if (sh == 1) {
                snprintf(name, sizeof(name), "trunc_%s", tb_blosc_compressor_name(comp));
                save(dir, name, frame, (size_t)n * 2 / 3);
            }
        }
    }
    test_fill(src, 600, 1, PATTERN_RANDOM, 5);
    int n = blosc_compress_ctx(5, 1, 4, 600, src, frame, sizeof(frame), "lz4", 0, 1);
    save(dir, "memcpyed_random", frame, (size_t)n);
    n = blosc_compress_ctx(5, 1, 8, 8, src, frame, sizeof(frame), "blosclz", 0, 1);
    save(dir, "one_element", frame, (size_t)n);
    n = blosc_compress_ctx(5, 1, 8, 0, src, frame, sizeof(frame), "blosclz", 0, 1);
    save(dir, "empty", frame, (size_t)n);
    return 0;
}
