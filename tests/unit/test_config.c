/* test_config.c — option parsing: connector-string keys, environment variables, precedence,
 * and clear rejection of unknown keys and bad values. */
#include "tb_config.h"
#include "tb_test.h"

#include <stdlib.h>
#include <string.h>

static tb_status_t
set(tb_config_t *c, const char *k, const char *v, char *err, size_t n)
{
    return tb_config_set(c, k, strlen(k), v, strlen(v), err, n);
}

int
main(void)
{
    tb_config_t c;
    char         err[256];

    unsetenv("H5TURBO_THREADS");
    unsetenv("H5TURBO_INDEX");
    unsetenv("BLOSC_NTHREADS");
    tb_config_defaults(&c);
    ASSERT_EQ(c.threads, 0);
    ASSERT_EQ(c.index, TB_INDEX_PERSISTENT);
    ASSERT_EQ(c.write_behind, 0);

    /* Environment applies to defaults. */
    setenv("H5TURBO_THREADS", "3", 1);
    setenv("H5TURBO_INDEX", "memory", 1);
    tb_config_defaults(&c);
    ASSERT_EQ(c.threads, 3);
    ASSERT_EQ(c.index, TB_INDEX_MEMORY);
    ASSERT_EQ(tb_threads_from_env(), 3);

    /* The connector string wins over the environment. */
    ASSERT_EQ(set(&c, "threads", "8", err, sizeof(err)), TB_OK);
    ASSERT_EQ(c.threads, 8);
    ASSERT_EQ(set(&c, "index", "off", err, sizeof(err)), TB_OK);
    ASSERT_EQ(c.index, TB_INDEX_OFF);
    ASSERT_EQ(set(&c, "inflight", "64M", err, sizeof(err)), TB_OK);
    ASSERT_EQ(c.inflight_nbytes, 64u << 20);
    ASSERT_EQ(set(&c, "write_behind", "on", err, sizeof(err)), TB_OK);
    ASSERT_EQ(c.write_behind, 1);

    /* Unknown keys and bad values are errors that name the key. */
    ASSERT_EQ(set(&c, "thread", "8", err, sizeof(err)), TB_ERR_ARG);
    ASSERT(strstr(err, "'thread'") != NULL);
    ASSERT_EQ(set(&c, "index", "sometimes", err, sizeof(err)), TB_ERR_ARG);
    ASSERT(strstr(err, "index") != NULL && strstr(err, "sometimes") != NULL);
    ASSERT_EQ(set(&c, "threads", "-1", err, sizeof(err)), TB_ERR_ARG);
    ASSERT_EQ(set(&c, "threads", "", err, sizeof(err)), TB_ERR_ARG);

    /* An invalid environment value is ignored, not fatal. */
    setenv("H5TURBO_THREADS", "many", 1);
    tb_config_defaults(&c);
    ASSERT_EQ(c.threads, 0);

    /* BLOSC_NTHREADS is honoured when H5TURBO_THREADS is not set. */
    unsetenv("H5TURBO_THREADS");
    setenv("BLOSC_NTHREADS", "5", 1);
    ASSERT_EQ(tb_threads_from_env(), 5);
    unsetenv("BLOSC_NTHREADS");
    ASSERT_EQ(tb_threads_from_env(), tb_cpu_count());

    /* to_str prints only what differs from the defaults, and round-trips. */
    tb_config_defaults(&c);
    ASSERT_EQ(tb_config_to_str(&c, err, sizeof(err)), 0);
    set(&c, "threads", "4", NULL, 0);
    set(&c, "index", "off", NULL, 0);
    tb_config_to_str(&c, err, sizeof(err));
    ASSERT(strcmp(err, "threads=4;index=off") == 0);
    set(&c, "index_mpi_build", "4096", NULL, 0);
    set(&c, "keep_files", "0", NULL, 0);
    tb_config_to_str(&c, err, sizeof(err));
    ASSERT(strcmp(err, "threads=4;index=off;index_mpi_build=4096;keep_files=0") == 0);
    ASSERT(c.index_mpi_build == 4096 && c.index_mpi_build != TB_INDEX_MPI_BUILD_AUTO);
    set(&c, "index_mpi_build", "off", NULL, 0);
    ASSERT_EQ(c.index_mpi_build, 0);
    set(&c, "index_mpi_build", "auto", NULL, 0);
    ASSERT(c.index_mpi_build == TB_INDEX_MPI_BUILD_AUTO);
    tb_config_to_str(&c, err, sizeof(err));
    ASSERT(strcmp(err, "threads=4;index=off;keep_files=0") == 0);
    ASSERT_EQ(tb_config_set(&c, "index_mpi_build", 15, "many", 4, NULL, 0), TB_ERR_ARG);
    ASSERT_EQ(tb_config_set(&c, "index_mpi_build_ranks", 21, "1", 1, NULL, 0), TB_ERR_ARG);
    ASSERT_EQ(tb_config_set(&c, "index_mpi_build_ranks", 21, "2", 1, NULL, 0), TB_OK);
    ASSERT_EQ(c.index_mpi_build_ranks, 2);

    size_t sz;
    ASSERT_EQ(tb_parse_size("2G", 2, &sz), TB_OK);
    ASSERT_EQ(sz, (size_t)2 << 30);
    ASSERT_EQ(tb_parse_size("12x", 3, &sz), TB_ERR_ARG);
    printf("test_config: ok\n");
    return 0;
}
