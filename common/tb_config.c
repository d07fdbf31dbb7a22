/* tb_config.c — parsing of h5turbo options from the connector string and the environment.
 * Every option has a key (connector string) and an H5TURBO_<KEY> environment variable. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tb_config.h"

#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned
tb_cpu_count(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (unsigned)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

static int
parse_uint(const char *s, size_t len, unsigned long *out)
{
    char   tmp[32];
    char  *end;
    if (len == 0 || len >= sizeof(tmp))
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    if (!isdigit((unsigned char)tmp[0]))
        return -1;
    errno = 0;
    unsigned long v = strtoul(tmp, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

tb_status_t
tb_parse_size(const char *s, size_t len, size_t *nbytes_out)
{
    size_t mult = 1;
    if (len > 0) {
        switch (s[len - 1]) {
            case 'k': case 'K': mult = (size_t)1 << 10; len--; break;
            case 'm': case 'M': mult = (size_t)1 << 20; len--; break;
            case 'g': case 'G': mult = (size_t)1 << 30; len--; break;
            default: break;
        }
    }
    unsigned long v;
    if (parse_uint(s, len, &v) < 0 || v > SIZE_MAX / mult)
        return TB_ERR_ARG;
    *nbytes_out = (size_t)v * mult;
    return TB_OK;
}

static int
parse_bool(const char *s, size_t len, int *out)
{
    static const char *yes[] = {"1", "on", "yes", "true"};
    static const char *no[]  = {"0", "off", "no", "false"};
    for (size_t i = 0; i < 4; i++) {
        if (strlen(yes[i]) == len && strncasecmp(s, yes[i], len) == 0) { *out = 1; return 0; }
        if (strlen(no[i]) == len && strncasecmp(s, no[i], len) == 0) { *out = 0; return 0; }
    }
    return -1;
}

FILE *
tb_stats_stream(void)
{
    const char *e = getenv("H5TURBO_STATS");
    int         b;
    if (e && *e && parse_bool(e, strlen(e), &b) < 0) {
        int fd = open(e, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
        if (f)
            return f;
        if (fd >= 0)
            close(fd);
    }
    return stderr;
}

void
tb_stats_done(FILE *out)
{
    if (out == stderr)
        fflush(out);
    else
        fclose(out);
}

unsigned
tb_threads_from_env(void)
{
    unsigned long v;
    const char   *e = getenv("H5TURBO_THREADS");
    if (e && parse_uint(e, strlen(e), &v) == 0 && v > 0 && v <= 1024)
        return (unsigned)v;
    e = getenv("BLOSC_NTHREADS");
    if (e && parse_uint(e, strlen(e), &v) == 0 && v > 0 && v <= 1024)
        return (unsigned)v;
    return tb_cpu_count();
}

/* The table of options: key, environment variable, and what it sets. */
typedef enum {
    OPT_THREADS, OPT_INDEX, OPT_PIPELINE, OPT_WRITE_BEHIND, OPT_INFLIGHT, OPT_INDEX_DATA, OPT_INDEX_SPILL, OPT_INDEX_DIR,
    OPT_INDEX_CACHE_MAX, OPT_INDEX_MPI_BUILD, OPT_INDEX_MPI_BUILD_RANKS, OPT_PIPELINE_MIN, OPT_KEEP_FILES, OPT_DEBUG, OPT_STATS
} opt_id;
static const struct {
    const char *key;
    const char *env;
    opt_id      id;
} options[] = {
    {"threads", "H5TURBO_THREADS", OPT_THREADS},
    {"index", "H5TURBO_INDEX", OPT_INDEX},
    {"pipeline", "H5TURBO_PIPELINE", OPT_PIPELINE},
    {"write_behind", "H5TURBO_WRITE_BEHIND", OPT_WRITE_BEHIND},
    {"inflight", "H5TURBO_INFLIGHT", OPT_INFLIGHT},
    {"index_data", "H5TURBO_INDEX_DATA", OPT_INDEX_DATA},
    {"index_spill", "H5TURBO_INDEX_SPILL", OPT_INDEX_SPILL},
    {"index_dir", "H5TURBO_INDEX_DIR", OPT_INDEX_DIR},
    {"index_cache_max", "H5TURBO_INDEX_CACHE_MAX", OPT_INDEX_CACHE_MAX},
    {"index_mpi_build", "H5TURBO_INDEX_MPI_BUILD", OPT_INDEX_MPI_BUILD},
    {"index_mpi_build_ranks", "H5TURBO_INDEX_MPI_BUILD_RANKS", OPT_INDEX_MPI_BUILD_RANKS},
    {"pipeline_min", "H5TURBO_PIPELINE_MIN_NBYTES", OPT_PIPELINE_MIN},
    {"keep_files", "H5TURBO_KEEP_FILES", OPT_KEEP_FILES},
    {"debug", "H5TURBO_DEBUG", OPT_DEBUG},
    {"stats", "H5TURBO_STATS", OPT_STATS},
};

static tb_status_t
apply(tb_config_t *cfg, opt_id id, const char *val, size_t len)
{
    unsigned long v;
    size_t        sz;
    int           b;
    switch (id) {
        case OPT_THREADS:
            if (parse_uint(val, len, &v) < 0 || v > 1024)
                return TB_ERR_ARG;
            cfg->threads = (unsigned)v;
            return TB_OK;
        case OPT_INDEX:
            if (len == 3 && strncasecmp(val, "off", 3) == 0) cfg->index = TB_INDEX_OFF;
            else if (len == 6 && strncasecmp(val, "memory", 6) == 0) cfg->index = TB_INDEX_MEMORY;
            else if (len == 10 && strncasecmp(val, "persistent", 10) == 0) cfg->index = TB_INDEX_PERSISTENT;
            else return TB_ERR_ARG;
            return TB_OK;
        case OPT_PIPELINE:
            if (parse_bool(val, len, &b) < 0) return TB_ERR_ARG;
            cfg->pipeline = b;
            return TB_OK;
        case OPT_WRITE_BEHIND:
            if (parse_bool(val, len, &b) < 0) return TB_ERR_ARG;
            cfg->write_behind = b;
            return TB_OK;
        case OPT_INFLIGHT:
            if (tb_parse_size(val, len, &sz) < 0 || sz == 0) return TB_ERR_ARG;
            cfg->inflight_nbytes = sz;
            return TB_OK;
        case OPT_INDEX_DATA:
            if (tb_parse_size(val, len, &sz) < 0) return TB_ERR_ARG;
            cfg->index_data_nbytes = sz;
            return TB_OK;
        case OPT_INDEX_SPILL:
            if (len == 3 && strncasecmp(val, "off", 3) == 0) sz = SIZE_MAX;
            else if (len == 4 && strncasecmp(val, "auto", 4) == 0) sz = TB_INDEX_SPILL_AUTO;
            else if (tb_parse_size(val, len, &sz) < 0) return TB_ERR_ARG;
            cfg->index_spill_nbytes = sz;
            return TB_OK;
        case OPT_INDEX_DIR:
            /* "cache" (the default), "beside", or an absolute folder. */
            if (len == 5 && strncmp(val, "cache", 5) == 0) {
                cfg->index_where  = TB_INDEX_IN_CACHE;
                cfg->index_dir[0] = '\0';
            }
            else if (len == 6 && strncmp(val, "beside", 6) == 0) {
                cfg->index_where  = TB_INDEX_BESIDE;
                cfg->index_dir[0] = '\0';
            }
            else if (len > 0 && val[0] == '/' && len < sizeof(cfg->index_dir) && !memchr(val, '\0', len)) {
                cfg->index_where = TB_INDEX_IN_DIR;
                memcpy(cfg->index_dir, val, len);
                cfg->index_dir[len] = '\0';
            }
            else
                return TB_ERR_ARG;
            return TB_OK;
        case OPT_INDEX_CACHE_MAX:
            if (tb_parse_size(val, len, &sz) < 0) return TB_ERR_ARG;
            cfg->index_cache_max_nbytes = sz;
            return TB_OK;
        case OPT_INDEX_MPI_BUILD:
            /* "auto", "off", or a number of objects (0: off) */
            if (len == 4 && strncasecmp(val, "auto", 4) == 0) v = TB_INDEX_MPI_BUILD_AUTO;
            else if (len == 3 && strncasecmp(val, "off", 3) == 0) v = 0;
            else if (parse_uint(val, len, &v) < 0) return TB_ERR_ARG;
            cfg->index_mpi_build = v;
            return TB_OK;
        case OPT_INDEX_MPI_BUILD_RANKS:
            if (parse_uint(val, len, &v) < 0 || v < 2) return TB_ERR_ARG;
            cfg->index_mpi_build_ranks = v;
            return TB_OK;
        case OPT_PIPELINE_MIN:
            if (tb_parse_size(val, len, &sz) < 0) return TB_ERR_ARG;
            cfg->pipeline_min_nbytes = sz;
            return TB_OK;
        case OPT_KEEP_FILES:
            if (parse_bool(val, len, &b) < 0) return TB_ERR_ARG;
            cfg->keep_files = b;
            return TB_OK;
        case OPT_DEBUG:
            if (parse_bool(val, len, &b) < 0) return TB_ERR_ARG;
            cfg->debug = b;
            return TB_OK;
        case OPT_STATS:
            /* Set at all means on (H5TURBO_STATS=1 is the documented spelling, a file's name sends
             * the counters there: tb_stats_stream), but for the spellings of off. */
            cfg->stats = parse_bool(val, len, &b) == 0 ? b : 1;
            return TB_OK;
    }
    return TB_ERR_ARG;
}

void
tb_config_defaults(tb_config_t *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->threads           = 0; /* resolved lazily by the thread pool */
    cfg->index             = TB_INDEX_PERSISTENT;
    cfg->pipeline          = 1;
    cfg->write_behind      = 0;
    cfg->inflight_nbytes   = (size_t)256 << 20;
    cfg->index_data_nbytes = (size_t)256 << 20;
    cfg->index_spill_nbytes = TB_INDEX_SPILL_AUTO;
    cfg->index_where       = TB_INDEX_IN_CACHE;
    cfg->index_cache_max_nbytes = (size_t)1 << 30;
    cfg->index_mpi_build        = TB_INDEX_MPI_BUILD_AUTO;
    cfg->index_mpi_build_ranks  = 4;
    cfg->pipeline_min_nbytes    = (size_t)16 << 10;
    cfg->keep_files             = 1;
    cfg->debug             = 0;
    cfg->stats             = 0;
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        const char *e = getenv(options[i].env);
        if (!e || !*e)
            continue;
        if (apply(cfg, options[i].id, e, strlen(e)) < 0 && getenv("H5TURBO_DEBUG"))
            fprintf(stderr, "h5turbo: ignoring invalid %s='%s'\n", options[i].env, e);
    }
}

static tb_config_t     process_cfg;
static pthread_once_t process_once = PTHREAD_ONCE_INIT;

static void
process_init(void)
{
    tb_config_defaults(&process_cfg);
}

const tb_config_t *
tb_config_process(void)
{
    pthread_once(&process_once, process_init);
    return &process_cfg;
}

tb_status_t
tb_config_set(tb_config_t *cfg, const char *key, size_t key_len, const char *val, size_t val_len,
               char *errmsg, size_t errmsg_nbytes)
{
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        if (strlen(options[i].key) == key_len && strncmp(options[i].key, key, key_len) == 0) {
            if (apply(cfg, options[i].id, val, val_len) == TB_OK)
                return TB_OK;
            if (errmsg_nbytes)
                snprintf(errmsg, errmsg_nbytes, "invalid value '%.*s' for h5turbo option '%s'",
                         (int)val_len, val, options[i].key);
            return TB_ERR_ARG;
        }
    }
    if (errmsg_nbytes)
        snprintf(errmsg, errmsg_nbytes,
                 "unknown h5turbo option '%.*s' (known: under_vol, under_info, threads, index, pipeline, "
                 "write_behind, inflight, index_data, index_spill, index_dir, index_cache_max, index_mpi_build, "
                 "index_mpi_build_ranks, pipeline_min, "
                 "keep_files, debug, stats)",
                 (int)key_len, key);
    return TB_ERR_ARG;
}

size_t
tb_config_to_str(const tb_config_t *cfg, char *buf, size_t n)
{
    static const char *index_names[] = {"off", "memory", "persistent"};
    tb_config_t       def;
    size_t             len = 0;
    tb_config_defaults(&def);
#define TB_APPEND(...)                                                                                    \
    do {                                                                                                   \
        int w_ = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0, __VA_ARGS__);                 \
        if (w_ > 0)                                                                                        \
            len += (size_t)w_;                                                                             \
    } while (0)
    if (cfg->threads != def.threads) TB_APPEND("%sthreads=%u", len ? ";" : "", cfg->threads);
    if (cfg->index != def.index) TB_APPEND("%sindex=%s", len ? ";" : "", index_names[cfg->index]);
    if (cfg->pipeline != def.pipeline) TB_APPEND("%spipeline=%d", len ? ";" : "", cfg->pipeline);
    if (cfg->write_behind != def.write_behind) TB_APPEND("%swrite_behind=%d", len ? ";" : "", cfg->write_behind);
    if (cfg->inflight_nbytes != def.inflight_nbytes) TB_APPEND("%sinflight=%zu", len ? ";" : "", cfg->inflight_nbytes);
    if (cfg->index_data_nbytes != def.index_data_nbytes) TB_APPEND("%sindex_data=%zu", len ? ";" : "", cfg->index_data_nbytes);
    if (cfg->index_spill_nbytes != def.index_spill_nbytes) {
        if (cfg->index_spill_nbytes == SIZE_MAX) TB_APPEND("%sindex_spill=off", len ? ";" : "");
        else if (cfg->index_spill_nbytes == TB_INDEX_SPILL_AUTO) TB_APPEND("%sindex_spill=auto", len ? ";" : "");
        else TB_APPEND("%sindex_spill=%zu", len ? ";" : "", cfg->index_spill_nbytes);
    }
    if (cfg->index_where != def.index_where || strcmp(cfg->index_dir, def.index_dir) != 0)
        TB_APPEND("%sindex_dir=%s", len ? ";" : "",
                   cfg->index_where == TB_INDEX_IN_CACHE ? "cache"
                   : cfg->index_where == TB_INDEX_BESIDE ? "beside" : cfg->index_dir);
    if (cfg->index_cache_max_nbytes != def.index_cache_max_nbytes)
        TB_APPEND("%sindex_cache_max=%zu", len ? ";" : "", cfg->index_cache_max_nbytes);
    if (cfg->index_mpi_build != def.index_mpi_build) /* (auto is the default) */
        TB_APPEND("%sindex_mpi_build=%lu", len ? ";" : "", cfg->index_mpi_build);
    if (cfg->index_mpi_build_ranks != def.index_mpi_build_ranks)
        TB_APPEND("%sindex_mpi_build_ranks=%lu", len ? ";" : "", cfg->index_mpi_build_ranks);
    if (cfg->pipeline_min_nbytes != def.pipeline_min_nbytes)
        TB_APPEND("%spipeline_min=%zu", len ? ";" : "", cfg->pipeline_min_nbytes);
    if (cfg->keep_files != def.keep_files) TB_APPEND("%skeep_files=%d", len ? ";" : "", cfg->keep_files);
    if (cfg->debug != def.debug) TB_APPEND("%sdebug=%d", len ? ";" : "", cfg->debug);
    if (cfg->stats != def.stats) TB_APPEND("%sstats=%d", len ? ";" : "", cfg->stats);
#undef TB_APPEND
    if (n && len < n)
        buf[len] = '\0';
    else if (n)
        buf[n - 1] = '\0';
    return len;
}
