/* h5turbo_cli.h — the subcommands of the h5turbo program that live in their own files. */
#ifndef H5TURBO_CLI_H
#define H5TURBO_CLI_H

#include <hdf5.h>

int h5turbo_cmd_index(int argc, char **argv);

#endif
