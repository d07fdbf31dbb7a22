/* test_pool.c — free lists hand back zeroed objects, reuse them without malloc once warm, and
 * size-classed buffers are big enough, aligned, and reused. */
#include "tb_pool.h"
#include "tb_test.h"

#include <stdint.h>
#include <string.h>

typedef struct thing {
    char bytes[48];
} thing_t;

int
main(void)
{
    static tb_objpool_t p = TB_OBJPOOL_INIT(thing_t, 8);
    thing_t *a = tb_objpool_get(&p), *b = tb_objpool_get(&p);
    ASSERT(a && b && a != b);
    memset(a, 0xff, sizeof(*a));
    tb_objpool_put(&p, a);
    thing_t *c = tb_objpool_get(&p);
    ASSERT(c == a);
    for (size_t i = 0; i < sizeof(c->bytes); i++)
        ASSERT_EQ(c->bytes[i], 0);
    ASSERT_EQ(p.n_malloc, 2);
    /* Warm: after the first cycle (which needs a third object), get/put does not malloc. */
    for (int i = 0; i < 1000; i++)
        tb_objpool_put(&p, tb_objpool_get(&p));
    ASSERT_EQ(p.n_malloc, 3);
    ASSERT_EQ(p.n_live, 2);
    /* Beyond max_free, objects are freed, not hoarded. */
    thing_t *many[20];
    for (int i = 0; i < 20; i++)
        many[i] = tb_objpool_get(&p);
    for (int i = 0; i < 20; i++)
        tb_objpool_put(&p, many[i]);
    ASSERT(p.nfree <= 8);
    tb_objpool_put(&p, b);
    tb_objpool_put(&p, c);
    tb_objpool_trim(&p);
    ASSERT_EQ(p.nfree, 0);

    tb_pool_stats_t s0, s1;
    tb_buf_stats(&s0);
    void *x = tb_buf_get(100000);
    ASSERT(x && ((uintptr_t)x % 64) == 0);
    ASSERT(tb_buf_capacity(x) >= 100000);
    memset(x, 1, 100000);
    tb_buf_put(x);
    void *y = tb_buf_get(70000); /* same class (128 KiB) */
    ASSERT(y == x);
    tb_buf_put(y);
    void *big = tb_buf_get((size_t)300 << 20); /* above the largest class */
    ASSERT(big != NULL);
    tb_buf_put(big);
    tb_buf_stats(&s1);
    ASSERT_EQ(s1.buf_malloc - s0.buf_malloc, 2);
    ASSERT_EQ(s1.buf_reused - s0.buf_reused, 1);
    ASSERT_EQ(s1.buf_live, 0);
    tb_buf_trim();
    printf("test_pool: ok\n");
    return 0;
}
