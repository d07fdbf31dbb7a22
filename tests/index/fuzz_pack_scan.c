/* fuzz_pack_scan.c — libFuzzer target for the scanner of sidecar packs (sidecar_pack.h: bytes from
 * the reader's cache folder, which a crash or a killed writer may have left torn). Each input is
 * walked whole and in two parts split where its first byte says (as a process walks a pack that
 * grew since): both walks must find the same records, all inside the input; each record's bytes
 * then go to the sidecar decoder. Replayed over tests/index/corpus-pack by fuzz_replay.c in every
 * build. */
#include "index_model.h"
#include "sidecar_pack.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECORDS 4096

typedef struct {
    uint64_t dev[MAX_RECORDS], ino[MAX_RECORDS], off[MAX_RECORDS];
    uint32_t len[MAX_RECORDS];
    size_t   n, size;
} found_t;

static void
record(void *ctx, uint64_t dev, uint64_t ino, uint64_t off, uint32_t len)
{
    found_t *f = ctx;
    if (off > f->size || len > f->size - off)
        abort(); /* a record outside the bytes walked */
    if (f->n < MAX_RECORDS) {
        f->dev[f->n] = dev;
        f->ino[f->n] = ino;
        f->off[f->n] = off;
        f->len[f->n] = len;
    }
    f->n++;
}

static found_t whole, parts;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    memset(&whole, 0, sizeof(whole));
    memset(&parts, 0, sizeof(parts));
    whole.size = parts.size = size;
    size_t walked = tb_sc_pack_scan(data, size, 0, record, &whole);
    if (walked > size)
        abort();
    size_t split  = size ? (size_t)data[0] * size / 256 : 0;
    size_t first  = tb_sc_pack_scan(data, split, 0, record, &parts);
    size_t second = first + tb_sc_pack_scan(data + first, size - first, first, record, &parts);
    if (first > split || second != walked || parts.n != whole.n ||
        memcmp(parts.off, whole.off, sizeof(whole.off)) != 0 || memcmp(parts.len, whole.len, sizeof(whole.len)) != 0 ||
        memcmp(parts.ino, whole.ino, sizeof(whole.ino)) != 0)
        abort(); /* a pack walked as it grew must say what it says walked at once */
    for (size_t k = 0; k < whole.n && k < MAX_RECORDS; k++)
        (void)tb_sidecar_decode(data + whole.off[k], whole.len[k], NULL, NULL);
    return 0;
}
