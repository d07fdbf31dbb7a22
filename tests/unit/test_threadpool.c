/* test_threadpool.c — the pool runs every task exactly once, in parallel when asked, inline when
 * serial or when no thread can be created, and never creates threads per call. */
#include "tb_threadpool.h"
#include "tb_test.h"

#include <stdatomic.h>
#include <string.h>

static atomic_int counts[10000];

static void
mark(void *arg, size_t i)
{
    (void)arg;
    atomic_fetch_add(&counts[i], 1);
}

static void
task(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static void
check_parallel_for(size_t n, unsigned threads)
{
    for (size_t i = 0; i < n; i++)
        atomic_store(&counts[i], 0);
    tb_parallel_for(n, threads, mark, NULL);
    for (size_t i = 0; i < n; i++)
        ASSERT_EQ(atomic_load(&counts[i]), 1);
}

int
main(void)
{
    check_parallel_for(0, 4);
    check_parallel_for(1, 4);
    check_parallel_for(10000, 1);
    check_parallel_for(10000, 4);
    ASSERT_EQ(tb_threadpool_workers(), 3);

    /* Groups: many submissions, more than the queue bound, all run. */
    atomic_int      done = 0;
    tb_taskgroup_t g;
    tb_taskgroup_init(&g, 4);
    for (int i = 0; i < 5000; i++)
        tb_taskgroup_submit(&g, task, &done);
    tb_taskgroup_wait(&g);
    ASSERT_EQ(atomic_load(&done), 5000);

    /* Persistent workers: repeated calls do not grow the pool. */
    for (int r = 0; r < 100; r++)
        check_parallel_for(100, 4);
    ASSERT_EQ(tb_threadpool_workers(), 3);

    /* Serial group: tasks run inline, immediately. */
    atomic_store(&done, 0);
    tb_taskgroup_init(&g, 1);
    tb_taskgroup_submit(&g, task, &done);
    ASSERT_EQ(atomic_load(&done), 1);
    tb_taskgroup_wait(&g);

    /* A larger request grows the pool; if creation fails the work is still done. */
    tb_threadpool_fail_thread_creation(1);
    check_parallel_for(5000, 16);
    ASSERT_EQ(tb_threadpool_workers(), 3);
    tb_threadpool_fail_thread_creation(0);
    check_parallel_for(5000, 6);
    ASSERT_EQ(tb_threadpool_workers(), 5);
    printf("test_threadpool: ok\n");
    return 0;
}
