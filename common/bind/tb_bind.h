/* tb_bind.h — binds a plugin to the HDF5 library that called its entry point: every function and
 * global of hdf5_symbols.txt is looked up in that library (the plugins link no libhdf5), once,
 * before the plugin hands HDF5 anything. */
#ifndef TB_BIND_H
#define TB_BIND_H

/* Binds the plugin to the HDF5 library that holds `caller_addr` (an entry point's return
 * address, __builtin_return_address(0)); when that is no HDF5 library (a program calling the
 * entry point itself), to the HDF5 its global scope sees. Returns 0 once bound (now, or before
 * to the same library); -1 when the library is of a version this build does not serve, lacks a
 * symbol of the table, or a different HDF5 library was bound before: the reason is printed on
 * stderr once per library, naming the plugin by `what`. */
int tb_bind_caller(const void *caller_addr, const char *what);

/* The path of the library bound and its version; NULL (and nothing set) before binding. */
const char *tb_bind_library(unsigned *major_out, unsigned *minor_out, unsigned *release_out);

#endif
