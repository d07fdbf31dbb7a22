/* test_hdf5err.c — the HDF5 boundary for errors: every status reaches HDF5's error stack under
 * our class with its own minor message and the part's major message, a status outside the
 * enumeration is pushed as "unknown", never as success, and what the application had on the stack
 * survives the first push (which registers the class). */
#include "tb_test.h"
#include "tb_hdf5err.h"

#include <string.h>

typedef struct seen {
    int  n;
    char maj[64], min[64], desc[256];
} seen_t;

static herr_t
walk_cb(unsigned n, const H5E_error2_t *e, void *data)
{
    seen_t *s = data;
    (void)n;
    s->n++;
    H5Eget_msg(e->maj_num, NULL, s->maj, sizeof(s->maj));
    H5Eget_msg(e->min_num, NULL, s->min, sizeof(s->min));
    snprintf(s->desc, sizeof(s->desc), "%s", e->desc ? e->desc : "");
    return 0;
}

static seen_t
last_pushed(void)
{
    seen_t s;
    memset(&s, 0, sizeof(s));
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &s); /* upward: the last callback is the oldest */
    return s;
}

int
main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* Something of the application's on the stack first. */
    H5E_BEGIN_TRY { H5Fopen("/nonexistent/h5turbo-test.h5", H5F_ACC_RDONLY, H5P_DEFAULT); }
    H5E_END_TRY
    ssize_t before = H5Eget_num(H5E_DEFAULT);
    ASSERT(before > 0);
    TB_PUSH("index", TB_ERR_NOMEM, "cannot grow the table to %d entries", 5);
    ASSERT_EQ(H5Eget_num(H5E_DEFAULT), before + 1);
    H5Eclear2(H5E_DEFAULT);
    for (int st = 0; st > -TB_NSTATUS; st--) {
        TB_PUSH("pipeline", (tb_status_t)st, "status %d", st);
        seen_t s;
        memset(&s, 0, sizeof(s));
        H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, &s);
        ASSERT_EQ(s.n, 1);
        ASSERT(strcmp(s.maj, "h5turbo pipeline") == 0);
        ASSERT(strcmp(s.min, tb_status_str((tb_status_t)st)) == 0);
        ASSERT(strncmp(s.desc, "pipeline: status", 16) == 0);
        H5Eclear2(H5E_DEFAULT);
    }
    TB_PUSH("vol", TB_ERR_NOMEM, "x");
    seen_t s = last_pushed();
    ASSERT(strcmp(s.min, "out of memory") == 0 && strcmp(s.maj, "h5turbo vol") == 0);
    H5Eclear2(H5E_DEFAULT);
    TB_PUSH("vol", (tb_status_t)-42, "a status nobody defined");
    s = last_pushed();
    ASSERT(strcmp(s.min, "unknown h5turbo status") == 0);
    H5Eclear2(H5E_DEFAULT);
    /* The class survives a library close and reopen (its IDs are registered anew). */
    H5close();
    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    TB_PUSH("index", TB_ERR_CORRUPT, "after reopen");
    s = last_pushed();
    ASSERT(strcmp(s.min, "corrupt or truncated data") == 0 && strcmp(s.maj, "h5turbo index") == 0);
    printf("ok: every status on HDF5's stack with its own message and the part's; unknown is not success\n");
    return 0;
}
