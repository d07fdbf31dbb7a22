/* malloc_count.c — LD_PRELOAD shim counting malloc/calloc/realloc calls, read by the benchmark's
 * loaders through h5t_bench_malloc_calls() (looked up with dlsym) around one load, which the
 * process-wide counter of bench/common cannot give. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdatomic.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t s);
void *__libc_realloc(void *p, size_t n);

static atomic_long calls;

__attribute__((visibility("default"))) long h5t_bench_malloc_calls(void);
__attribute__((visibility("default"))) void *malloc(size_t n);
__attribute__((visibility("default"))) void *calloc(size_t n, size_t s);
__attribute__((visibility("default"))) void *realloc(void *p, size_t n);

long
h5t_bench_malloc_calls(void)
{
    return atomic_load(&calls);
}

void *
malloc(size_t n)
{
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return __libc_malloc(n);
}

void *
calloc(size_t n, size_t s)
{
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return __libc_calloc(n, s);
}

void *
realloc(void *p, size_t n)
{
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return __libc_realloc(p, n);
}
