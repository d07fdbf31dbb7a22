/* malloc_count.c — LD_PRELOAD library counting calls to malloc/calloc/realloc/posix_memalign/
 * aligned_alloc in a process; prints "malloc_count: N" on stderr (or appends to the file named by
 * TB_MALLOC_COUNT_OUT) at exit, and lets a program read the count around one piece of work
 * through tb_bench_malloc_calls() (dlsym). For the benchmarks' allocation columns, not tests. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ulong count;

__attribute__((visibility("default"))) long tb_bench_malloc_calls(void);

long
tb_bench_malloc_calls(void)
{
    return (long)atomic_load(&count);
}

__attribute__((visibility("default"))) void *
malloc(size_t n)
{
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_malloc(n);
}

__attribute__((visibility("default"))) void *
calloc(size_t a, size_t b)
{
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_calloc(a, b);
}

__attribute__((visibility("default"))) void *
realloc(void *p, size_t n)
{
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_realloc(p, n);
}

__attribute__((visibility("default"))) int
posix_memalign(void **out, size_t align, size_t n)
{
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    void *p = __libc_memalign(align, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

__attribute__((visibility("default"))) void *
aligned_alloc(size_t align, size_t n)
{
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return __libc_memalign(align, n);
}

__attribute__((destructor)) static void
report(void)
{
    char        line[64];
    int         len  = snprintf(line, sizeof(line), "malloc_count: %lu\n", atomic_load(&count));
    const char *path = getenv("TB_MALLOC_COUNT_OUT");
    FILE       *f    = path ? fopen(path, "a") : NULL;
    if (f) {
        fputs(line, f);
        fclose(f);
    }
    else if (len > 0)
        (void)!write(2, line, (size_t)len);
}
