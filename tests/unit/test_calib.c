/* The calibration loops (kernels/calib): each loop the CPU has runs and
 * reports a positive, finite rate; loops it lacks report 0; the bandwidth
 * passes compute what STREAM's copy and triad compute, on 1 and 2 threads.
 * Rates are never compared with expectations: timing is not tested. */
#include "kernels/calib/calib.h"

#include "base/cpu.h"
#include "check.h"

static void test_compute(base_pool_t *pool)
{
    const base_cpu_t *c = base_cpu();
    CHECK(calib_compute_available(CALIB_F32_FMA_ZMM) == c->avx512f);
    CHECK(calib_compute_available(CALIB_BF16_DOT) == (c->avx512f && c->avx512_bf16));
    CHECK(calib_compute_available(CALIB_S8_DOT_ZMM) == (c->avx512f && c->avx512_vnni));
    CHECK(calib_compute_available(CALIB_S8_MADD_YMM) == c->avx2);
    CHECK(!calib_compute_available(CALIB_COMPUTE_COUNT));
    for (int w = 0; w < CALIB_COMPUTE_COUNT; w++) {
        CHECK(strlen(calib_compute_name((calib_compute_t)w)) > 3);
        for (int t = 1; t <= 2; t++) {
            double r = calib_compute_rate(t > 1 ? pool : NULL, t, (calib_compute_t)w, 0.002, 1);
            if (calib_compute_available((calib_compute_t)w))
                CHECK_MSG(r > 0 && isfinite(r), "%s on %d threads: %g",
                          calib_compute_name((calib_compute_t)w), t, r);
            else
                CHECK(r == 0);
        }
    }
    /* the loops count their own work: 16 zmm FMAs of 16 lanes per iteration */
    if (calib_compute_available(CALIB_F32_FMA_ZMM))
        CHECK(calib_loop_f32_zmm(10) == 10.0 * 16 * 16 * 2);
    if (calib_compute_available(CALIB_F32_FMA_YMM))
        CHECK(calib_loop_f32_ymm(10) == 10.0 * 12 * 8 * 2);
    if (calib_compute_available(CALIB_BF16_DOT))
        CHECK(calib_loop_bf16_zmm(10) == 10.0 * 16 * 64);
    if (calib_compute_available(CALIB_S8_DOT_ZMM))
        CHECK(calib_loop_s8_zmm(10) == 10.0 * 16 * 128);
    if (calib_compute_available(CALIB_S8_DOT_YMM))
        CHECK(calib_loop_s8_ymm(10) == 10.0 * 12 * 64);
    /* 8 vpmaddwd of 16 pairs per iteration, 2 OP per multiply-add */
    if (calib_compute_available(CALIB_S8_MADD_YMM))
        CHECK(calib_loop_s8_madd_ymm(10) == 10.0 * 8 * 32);
}

static void test_bandwidth(base_pool_t *pool)
{
    for (int t = 1; t <= 3; t++) { /* 3 > the pool's 2: clamped */
        calib_arrays_t arr;
        /* an odd size so the per-thread split has a remainder */
        CHECK(calib_arrays_alloc(&arr, 3 * 8 * 10007, t > 1 ? pool : NULL, t) == 0);
        CHECK(arr.n == 10007);
        double copy = calib_bandwidth(t > 1 ? pool : NULL, t, CALIB_BW_COPY, &arr, 2);
        CHECK(copy > 0 && isfinite(copy));
        int ok = 1;
        for (size_t i = 0; i < arr.n; i++)
            ok &= arr.a[i] == 1.0 && arr.b[i] == 1.0 && arr.c[i] == 0.5;
        CHECK_MSG(ok, "copy: b = a everywhere (%d threads)", t);
        double triad = calib_bandwidth(t > 1 ? pool : NULL, t, CALIB_BW_TRIAD, &arr, 1);
        CHECK(triad > 0 && isfinite(triad));
        ok = 1;
        for (size_t i = 0; i < arr.n; i++)
            ok &= arr.a[i] == 2.5; /* b + 3 c = 1 + 1.5 */
        CHECK_MSG(ok, "triad: a = b + 3c everywhere (%d threads)", t);
        calib_arrays_free(&arr);
        CHECK(arr.a == NULL && arr.n == 0);
    }
    /* tiny requests get a floor of 1024 elements */
    calib_arrays_t small;
    CHECK(calib_arrays_alloc(&small, 10, NULL, 1) == 0);
    CHECK(small.n == 1024);
    calib_arrays_free(&small);
}

int main(void)
{
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    test_compute(pool);
    test_bandwidth(pool);
    base_pool_destroy(pool);
    return check_finish("test_calib");
}
