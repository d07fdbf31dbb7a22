/* tb_test.h — the one assertion kit of h5turbo's tests (unit tests and the programs the integration
 * scripts run): active in every build type, prints file:line and the failed expression (and a
 * message or the values where there are any), exits 1. One behaviour per test file. */
#ifndef TB_TEST_H
#define TB_TEST_H

#include <stdio.h>
#include <stdlib.h>

#define ASSERT(cond)                                                                                       \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond);                   \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

#define ASSERT_EQ(a, b)                                                                                    \
    do {                                                                                                   \
        long long a_ = (long long)(a), b_ = (long long)(b);                                                \
        if (a_ != b_) {                                                                                    \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, a_, b_); \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

/* An HDF5 call succeeded: what it returned (herr_t, hid_t, htri_t, ssize_t), evaluated once, is not
 * negative. */
#define ASSERT_H5(call)                                                                                    \
    do {                                                                                                   \
        long long r_ = (long long)(call);                                                                  \
        if (r_ < 0) {                                                                                      \
            fprintf(stderr, "%s:%d: HDF5 call failed (%lld): %s\n", __FILE__, __LINE__, r_, #call);         \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

/* The condition holds, else the message (printf format and arguments) says what went wrong. */
#define ASSERT_MSG(cond, ...)                                                                              \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            fprintf(stderr, "%s:%d: assertion failed: %s: ", __FILE__, __LINE__, #cond);                   \
            fprintf(stderr, __VA_ARGS__);                                                                  \
            fputc('\n', stderr);                                                                           \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

#endif
