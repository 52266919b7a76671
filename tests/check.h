/*
 * A tiny test harness: CHECK* macros count failures and print where they
 * happened; a test's main returns check_finish(), non-zero on any failure.
 */
#ifndef CAIRN_TESTS_CHECK_H
#define CAIRN_TESTS_CHECK_H

#include "cairn.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures_;
static int check_count_;

#define CHECK(cond)                                                               \
    do {                                                                          \
        check_count_++;                                                           \
        if (!(cond)) {                                                            \
            check_failures_++;                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                         \
    } while (0)

#define CHECK_MSG(cond, ...)                                                      \
    do {                                                                          \
        check_count_++;                                                           \
        if (!(cond)) {                                                            \
            check_failures_++;                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, "\n");                                                \
        }                                                                         \
    } while (0)

/* A cairn call that must succeed. */
#define CHECK_OK(expr)                                                            \
    do {                                                                          \
        check_count_++;                                                           \
        cairn_status_t check_s_ = (expr);                                         \
        if (check_s_ != CAIRN_OK) {                                               \
            check_failures_++;                                                    \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #expr, \
                    cairn_status_string(check_s_), cairn_last_error());           \
        }                                                                         \
    } while (0)

/* A cairn call that must fail with status `want` and a message containing
 * `needle` (NULL: any message, but not an empty one). */
#define CHECK_FAILS(expr, want, needle)                                           \
    do {                                                                          \
        check_count_++;                                                           \
        cairn_status_t check_s_ = (expr);                                         \
        const char *check_m_ = cairn_last_error();                                \
        if (check_s_ != (want) || !check_m_[0] ||                                 \
            ((needle) && !strstr(check_m_, (needle) ? (needle) : ""))) {          \
            check_failures_++;                                                    \
            fprintf(stderr, "%s:%d: %s: want %s with '%s', got %s: '%s'\n", __FILE__, \
                    __LINE__, #expr, cairn_status_string(want),                   \
                    (needle) ? (needle) : "", cairn_status_string(check_s_), check_m_); \
        }                                                                         \
    } while (0)

/* |got - want| <= atol + rtol * |want| elementwise, reporting the worst. */
static inline int check_close_f32(const float *got, const double *want, int64_t n, double atol,
                                  double rtol, const char *what)
{
    int64_t worst = -1;
    double worst_excess = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        if (isnan(w) && isnan(g))
            continue;
        double err = fabs(g - w), tol = atol + rtol * fabs(w);
        if (!(err <= tol) && (worst < 0 || err - tol > worst_excess)) {
            worst = i;
            worst_excess = err - tol;
        }
    }
    check_count_++;
    if (worst >= 0) {
        check_failures_++;
        fprintf(stderr, "%s: element %lld: got %.9g, want %.9g (atol %g, rtol %g)\n", what,
                (long long)worst, (double)got[worst], want[worst], atol, rtol);
        return 0;
    }
    return 1;
}

/* Deterministic random numbers (xorshift64*). */
typedef struct check_rng {
    uint64_t s;
} check_rng_t;
static inline uint64_t check_rng_next(check_rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}
/* uniform in [lo, hi) */
static inline double check_rng_uniform(check_rng_t *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(check_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
static inline void check_fill_f32(check_rng_t *r, float *p, int64_t n, double lo, double hi)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)check_rng_uniform(r, lo, hi);
}

static inline int check_finish(const char *name)
{
    if (check_failures_)
        fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures_, check_count_);
    else
        printf("%s: all %d checks passed\n", name, check_count_);
    return check_failures_ ? 1 : 0;
}

#endif
