/* tb_bind_tramp.S — one trampoline per HDF5 function in hdf5_symbols.txt: a hidden symbol with
 * HDF5's name that jumps through the pointer tb_bind.c set from the calling library, so call sites
 * stay plain HDF5 calls (variadic ones too) and the plugin has no undefined HDF5 symbol. */

#if defined(__x86_64__)
#define TB_BIND_FN(name)                                                                           \
    .globl name; .hidden name; .type name, @function; .p2align 4;                                \
    name: jmp *tb_bind_fn_##name(%rip); .size name, .-name;
/* HDF5's version check is done by the binder (tb_bind.c), against the library itself: the
 * headers' own check (H5check, in macros such as H5F_ACC_RDONLY) would compare the library with
 * the headers we were built with, which a newer compatible release fails. */
#define TB_BIND_NOOP(name)                                                                         \
    .globl name; .hidden name; .type name, @function; .p2align 4;                                \
    name: xorl %eax, %eax; ret; .size name, .-name;
#elif defined(__aarch64__)
#define TB_BIND_FN(name)                                                                           \
    .globl name; .hidden name; .type name, %function; .p2align 4;                                \
    name: adrp x16, tb_bind_fn_##name; ldr x16, [x16, :lo12:tb_bind_fn_##name]; br x16;           \
    .size name, .-name;
#define TB_BIND_NOOP(name)                                                                         \
    .globl name; .hidden name; .type name, %function; .p2align 4;                                \
    name: mov w0, wzr; ret; .size name, .-name;
#else
#error "common/bind: trampolines exist for x86-64 and aarch64 only"
#endif
#define TB_BIND_VAR(type, name)
#define TB_BIND_OPT(name, ret, args)

    .text
#include "tb_bind_list.h"
TB_BIND_NOOP(H5check_version)

    .section .note.GNU-stack, "", %progbits
