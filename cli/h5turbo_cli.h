/* h5turbo_cli.h — the subcommands of the h5turbo program that live in their own files. */
#ifndef H5TURBO_CLI_H
#define H5TURBO_CLI_H

#include <hdf5.h>

int h5turbo_cmd_index(int argc, char **argv);
/* The folder holding the plugins: $H5TURBO_PLUGIN_DIR, else next to this executable (build
 * tree: ../plugins; installed: ../lib/plugin). 0, or -1 when there is none. */
int h5turbo_plugin_dir(char *out, size_t n);

#endif
