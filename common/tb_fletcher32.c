/* tb_fletcher32.c — HDF5's Fletcher-32 variant, computed with 64-bit sums and reduced once per
 * large block instead of every 360 words; the result is the same bits (see tb_fletcher32). */
#include "tb_fletcher32.h"

#include <string.h>

/* HDF5 folds its sums with end-around carry, so a sum is kept as a value in [1, 0xffff] when the
 * true integer sum is non-zero and as 0 only when it is zero. Both true sums (of the words, and of
 * the running sums) are zero exactly when every word is zero. So the result is each true sum
 * modulo 65535, with 0 mapped to 0xffff whenever some word is non-zero. */
static uint32_t
canonical(uint64_t s, int nonzero)
{
    uint32_t r = (uint32_t)(s % 65535u);
    return (nonzero && r == 0) ? 0xffffu : r;
}

uint32_t
tb_fletcher32(const void *data, size_t nbytes)
{
    const uint8_t *p       = data;
    size_t         nwords  = nbytes / 2;
    uint64_t       s1      = 0, s2 = 0;
    int            nonzero = 0;

    /* Blocks of 2^20 words: s1 stays below 2^37 and s2 below 2^58 before each reduction. */
    while (nwords) {
        size_t blk = nwords > ((size_t)1 << 20) ? ((size_t)1 << 20) : nwords;
        nwords -= blk;
        /* Four words per step: s2 gains 4*s1 plus the words weighted by how many running sums
         * they enter within the step. Halves the dependency chain of the one-word loop. */
        for (; blk >= 4; blk -= 4, p += 8) {
            uint32_t w0 = ((uint32_t)p[0] << 8) | p[1];
            uint32_t w1 = ((uint32_t)p[2] << 8) | p[3];
            uint32_t w2 = ((uint32_t)p[4] << 8) | p[5];
            uint32_t w3 = ((uint32_t)p[6] << 8) | p[7];
            s2 += 4 * s1 + 4 * (uint64_t)w0 + 3 * (uint64_t)w1 + 2 * (uint64_t)w2 + w3;
            s1 += (uint64_t)w0 + w1 + w2 + w3;
        }
        for (; blk > 0; blk--, p += 2) {
            s1 += ((uint32_t)p[0] << 8) | p[1];
            s2 += s1;
        }
        nonzero |= s1 != 0;
        s1 %= 65535u;
        s2 %= 65535u;
    }
    if (nbytes % 2) {
        /* An odd trailing byte counts as the high half of one more word. */
        s1 += (uint32_t)p[0] << 8;
        s2 += s1;
        nonzero |= s1 != 0;
    }
    return (canonical(s2, nonzero) << 16) | canonical(s1, nonzero);
}

void
tb_fletcher32_append(void *buf, size_t nbytes)
{
    uint32_t c = tb_fletcher32(buf, nbytes);
    uint8_t *d = (uint8_t *)buf + nbytes;
    d[0]       = (uint8_t)(c & 0xff);
    d[1]       = (uint8_t)((c >> 8) & 0xff);
    d[2]       = (uint8_t)((c >> 16) & 0xff);
    d[3]       = (uint8_t)((c >> 24) & 0xff);
}

tb_status_t
tb_fletcher32_verify(const void *buf, size_t nbytes)
{
    if (nbytes < TB_FLETCHER32_NBYTES)
        return TB_ERR_CORRUPT;
    const uint8_t *s      = (const uint8_t *)buf + nbytes - TB_FLETCHER32_NBYTES;
    uint32_t       stored = (uint32_t)s[0] | ((uint32_t)s[1] << 8) | ((uint32_t)s[2] << 16) | ((uint32_t)s[3] << 24);
    uint32_t       c      = tb_fletcher32(buf, nbytes - TB_FLETCHER32_NBYTES);
    /* HDF5 before 1.6.3 stored the checksum with the bytes of each 16-bit half swapped; HDF5
     * still accepts that form, and so do we. */
    uint32_t reversed = ((c & 0x00ff00ffu) << 8) | ((c >> 8) & 0x00ff00ffu);
    return (stored == c || stored == reversed) ? TB_OK : TB_ERR_CHECKSUM;
}
