/* tb_bind_direct.c — the bound pointers of common/bind set, at link time, to the symbols of the
 * libhdf5 a test program links: for programs that use our HDF5-facing libraries directly
 * (built with tb_bind_vars.h force-included) rather than through the plugins. */
#include <hdf5.h>

#include <stdbool.h>

/* Internal functions HDF5's own builds export; weak, so that an HDF5 without them links too. */
#define TB_BIND_FN(name)
#define TB_BIND_VAR(type, name)
#define TB_BIND_OPT(name, ret, args) extern ret name args __attribute__((weak));
#include "tb_bind_list.h"
#undef TB_BIND_VAR
#undef TB_BIND_OPT

#define TB_BIND_VAR(type, name) extern type *tb_bound_##name; type *tb_bound_##name = &name;
#define TB_BIND_OPT(name, ret, args) extern ret(*tb_bound_##name) args; ret(*tb_bound_##name) args = name;
#include "tb_bind_list.h"
