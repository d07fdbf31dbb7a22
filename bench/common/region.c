/* region.c — libtb_region.so: tb_bench_region(fn) calls fn(), and is nothing else but a named
 * frame, so that `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=tb_bench_region`
 * counts the instructions of exactly that piece of work (the Python loaders call it via ctypes). */

__attribute__((visibility("default"), noinline)) void tb_bench_region(void (*fn)(void));

void
tb_bench_region(void (*fn)(void))
{
    fn();
    __asm__ volatile("" ::: "memory"); /* not a tail call: the frame stays while fn runs */
}
