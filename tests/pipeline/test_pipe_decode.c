/* test_pipe_decode.c — the pipeline's chunk decoder on untrusted bytes: for every filter order
 * (shuffle, deflate, fletcher32, Blosc when built), valid chunks decode to the original data
 * (directly into a destination too), and mutated chunks (flipped bits, truncation, garbage
 * appended, random bytes, random filter masks) give an error or data of the right size, never a
 * crash or a write outside the buffers (run under ASan in the sanitizer build). An optional Blosc
 * stage that cannot shrink a chunk is skipped (its mask bit), as hdf5-blosc's filter fails there. */
#include "pipeline_int.h"
#include "tb_pool.h"
#include "tb_test.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static uint32_t
rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static void
make_dset(tb_pipe_dset_t *p, const char *filters, size_t es, size_t nelem)
{
    memset(p, 0, sizeof(*p));
    p->rank        = 1;
    p->chunk[0]    = nelem;
    p->type_nbytes = es;
    p->chunk_nelem = nelem;
    p->chunk_nbytes = nelem * es;
    for (const char *f = filters; *f; f++) {
        tb_pipe_stage_t *s = &p->stages[p->nstages++];
        memset(s, 0, sizeof(*s));
        switch (*f) {
            case 's': s->kind = TB_STAGE_SHUFFLE; s->param = (unsigned)es; break;
            case 'z': s->kind = TB_STAGE_DEFLATE; s->param = 1; break;
            case 'Z': s->kind = TB_STAGE_DEFLATE; s->param = 7; break;
            case 'f': s->kind = TB_STAGE_FLETCHER32; break;
#ifdef TB_PIPE_HAVE_BLOSC
            case 'b':
                s->kind = TB_STAGE_BLOSC;
                s->blosc.typesize = (unsigned)es;
                s->blosc.clevel = 5;
                s->blosc.shuffle = 1;
                s->blosc.compressor = 1; /* lz4 */
                s->blosc.chunk_nbytes = nelem * es;
                break;
#endif
        }
    }
    ASSERT_EQ(tb_pipe_stages_prepare(p), TB_OK);
}

int
main(void)
{
    static const char *orders[] = {"s", "f", "z", "sz", "szf", "fsz", "zf", "fz", "zs", "Zf", "szzf",
#ifdef TB_PIPE_HAVE_BLOSC
                                   "b", "bf", "sbf",
#endif
    };
    static const size_t sizes[] = {1, 2, 4, 8, 3};
    for (size_t o = 0; o < sizeof(orders) / sizeof(*orders); o++)
        for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
            tb_pipe_dset_t p;
            size_t          es = sizes[k], nelem = 3000 + k * 17;
            make_dset(&p, orders[o], es, nelem);
            uint8_t *data = malloc(p.chunk_nbytes);
            for (size_t i = 0; i < p.chunk_nbytes; i++)
                data[i] = (uint8_t)(i % es == 0 ? (i / es) % 7 : rnd() % 3 == 0);
            void       *eb[2] = {tb_buf_get(p.buf_nbytes), tb_buf_get(p.buf_nbytes)};
            void       *db[2] = {tb_buf_get(p.buf_nbytes), tb_buf_get(p.buf_nbytes)};
            uint8_t    *dest  = malloc(p.chunk_nbytes);
            const void *enc   = NULL, *dec = NULL;
            size_t      n     = 0;
            uint32_t    skipped = 1;
            ASSERT_EQ(tb_pipe_encode(&p, data, eb, &enc, &n, &skipped, 1), TB_OK);
            ASSERT_EQ(skipped, 0u); /* no optional stage here */
            /* The raw chunk as read from a file: a buffer of exactly its size (ASan sees overruns),
             * with room to mutate. */
            size_t   cap = n + 64;
            uint8_t *raw = malloc(cap);
            memcpy(raw, enc, n);
            ASSERT_EQ(tb_pipe_decode(&p, raw, n, 0, 1, db, NULL, &dec, 1), TB_OK);
            ASSERT(memcmp(dec, data, p.chunk_nbytes) == 0);
            memcpy(raw, enc, n);
            ASSERT_EQ(tb_pipe_decode(&p, raw, n, 0, 1, db, dest, &dec, 1), TB_OK);
            ASSERT(memcmp(dec, data, p.chunk_nbytes) == 0);

            for (int trial = 0; trial < 300; trial++) {
                size_t m = n;
                memcpy(raw, enc, n);
                switch (trial % 5) {
                    case 0: raw[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8)); break;
                    case 1: m = rnd() % n; break;
                    case 2:
                        m = n + 1 + rnd() % 63;
                        for (size_t i = n; i < m; i++)
                            raw[i] = (uint8_t)rnd();
                        break;
                    case 3:
                        for (size_t i = 0; i < n; i++)
                            raw[i] = (uint8_t)rnd();
                        break;
                    case 4: break;
                }
                uint8_t *exact = malloc(m ? m : 1);
                memcpy(exact, raw, m);
                uint32_t     mask = trial % 5 == 4 ? rnd() % 16 : 0;
                uint8_t     *to   = trial % 3 ? dest : NULL;
                tb_status_t st   = tb_pipe_decode(&p, exact, m, mask, trial % 2, db, to, &dec, 1);
                ASSERT(st == TB_OK || st == TB_ERR_CORRUPT || st == TB_ERR_CHECKSUM);
                if (st == TB_OK)
                    ASSERT(dec != NULL);
                free(exact);
            }
            free(raw);
            free(dest);
            free(data);
            tb_buf_put(eb[0]);
            tb_buf_put(eb[1]);
            tb_buf_put(db[0]);
            tb_buf_put(db[1]);
        }
#ifdef TB_PIPE_HAVE_BLOSC
    /* Optional Blosc: incompressible bytes leave the stage out (bit 1 after a shuffle, bit 0
     * alone; fletcher32 after it still runs), compressible ones keep it. */
    static const char *opt_orders[] = {"b", "sb", "bf", "sbf"};
    for (size_t o = 0; o < sizeof(opt_orders) / sizeof(*opt_orders); o++)
        for (int noisy = 0; noisy <= 1; noisy++) {
            tb_pipe_dset_t p;
            make_dset(&p, opt_orders[o], 2, 5000);
            int bstage = opt_orders[o][0] == 's' ? 1 : 0;
            p.stages[bstage].optional = 1;
            uint8_t *data = malloc(p.chunk_nbytes);
            for (size_t i = 0; i < p.chunk_nbytes; i++)
                data[i] = noisy ? (uint8_t)rnd() : (uint8_t)(i / 64);
            void       *eb[2] = {tb_buf_get(p.buf_nbytes), tb_buf_get(p.buf_nbytes)};
            void       *db[2] = {tb_buf_get(p.buf_nbytes), tb_buf_get(p.buf_nbytes)};
            const void *enc = NULL, *dec = NULL;
            size_t      n = 0;
            uint32_t    mask = 0;
            ASSERT_EQ(tb_pipe_encode(&p, data, eb, &enc, &n, &mask, 1), TB_OK);
            int fl = opt_orders[o][strlen(opt_orders[o]) - 1] == 'f';
            if (noisy) {
                ASSERT_EQ(mask, 1u << bstage);
                ASSERT_EQ(n, p.chunk_nbytes + (fl ? 4u : 0u));
            }
            else {
                ASSERT_EQ(mask, 0u);
                ASSERT(n < p.chunk_nbytes);
            }
            uint8_t *raw = malloc(n);
            memcpy(raw, enc, n);
            ASSERT_EQ(tb_pipe_decode(&p, raw, n, mask, 1, db, NULL, &dec, 1), TB_OK);
            ASSERT(memcmp(dec, data, p.chunk_nbytes) == 0);
            free(raw);
            free(data);
            tb_buf_put(eb[0]), tb_buf_put(eb[1]), tb_buf_put(db[0]), tb_buf_put(db[1]);
        }
#endif
    return 0;
}
