/* tb_test.h — the tiny assertion kit of h5turbo's unit tests: active in every build type,
 * prints file:line and the failed expression, exits non-zero. One behaviour per test file. */
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

#endif
