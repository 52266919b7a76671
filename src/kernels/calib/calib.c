/*
 * The calibration drivers: choose a run length for each peak-rate loop,
 * run it on 1..threads threads of a pool, and keep the best of a few
 * repeats (a peak is what the machine can do; slower repeats were disturbed
 * by something else). Also the STREAM-style copy and triad passes.
 *
 * This file is compiled without ISA flags; it only calls the loops in the
 * ISA files after base_cpu() says the CPU and OS support them.
 */
#include "kernels/calib/calib.h"

#include "base/alloc.h"
#include "base/clock.h"
#include "base/cpu.h"

#include <string.h>

#define CALIB_MAX_TILES 1024

typedef double (*calib_loop_fn)(uint64_t iters);

static calib_loop_fn loop_of(calib_compute_t which)
{
    switch (which) {
    case CALIB_F32_FMA_ZMM: return calib_loop_f32_zmm;
    case CALIB_F32_FMA_YMM: return calib_loop_f32_ymm;
    case CALIB_BF16_DOT: return calib_loop_bf16_zmm;
    case CALIB_S8_DOT_ZMM: return calib_loop_s8_zmm;
    case CALIB_S8_DOT_YMM: return calib_loop_s8_ymm;
    case CALIB_S8_MADD_YMM: return calib_loop_s8_madd_ymm;
    default: return NULL;
    }
}

int calib_compute_available(calib_compute_t which)
{
#if defined(__x86_64__)
    const base_cpu_t *c = base_cpu();
    switch (which) {
    case CALIB_F32_FMA_ZMM: return c->avx512f;
    case CALIB_F32_FMA_YMM: return c->avx2 && c->fma;
    case CALIB_BF16_DOT: return c->avx512f && c->avx512_bf16;
    case CALIB_S8_DOT_ZMM: return c->avx512f && c->avx512_vnni;
    case CALIB_S8_DOT_YMM: return c->avx2 && c->avx_vnni;
    case CALIB_S8_MADD_YMM: return c->avx2;
    default: return 0;
    }
#else
    (void)which;
    return 0;
#endif
}

const char *calib_compute_name(calib_compute_t which)
{
    switch (which) {
    case CALIB_F32_FMA_ZMM: return "f32 FMA (vfmadd231ps zmm)";
    case CALIB_F32_FMA_YMM: return "f32 FMA (vfmadd231ps ymm)";
    case CALIB_BF16_DOT: return "bf16 dot (vdpbf16ps zmm)";
    case CALIB_S8_DOT_ZMM: return "int8 dot (vpdpbusd zmm)";
    case CALIB_S8_DOT_YMM: return "int8 dot (vpdpbusd ymm, AVX-VNNI)";
    case CALIB_S8_MADD_YMM: return "int8 pairs (vpmaddwd + vpaddd ymm, AVX2)";
    default: return "?";
    }
}

typedef struct compute_job {
    calib_loop_fn fn;
    uint64_t iters;
    double ops[CALIB_MAX_TILES];
} compute_job_t;

static void compute_task(void *ctx, size_t begin, size_t end, int worker)
{
    compute_job_t *j = ctx;
    (void)worker;
    for (size_t t = begin; t < end; t++)
        j->ops[t] = j->fn(j->iters);
}

/* Runs the job on `threads` tiles (one per thread: grain 1) and returns the
 * seconds it took. */
static double run_tiles(base_pool_t *pool, int threads, base_task_1d_fn task, void *job)
{
    uint64_t t0 = base_now_ns();
    if (threads <= 1 || !pool)
        task(job, 0, 1, 0);
    else
        base_pool_parallel_for_1d(pool, (size_t)threads, 1, task, job);
    return (double)(base_now_ns() - t0) * 1e-9;
}

static int clamp_threads(base_pool_t *pool, int threads)
{
    int max = pool ? base_pool_threads(pool) : 1;
    if (threads > max)
        threads = max;
    if (threads > CALIB_MAX_TILES)
        threads = CALIB_MAX_TILES;
    return threads < 1 ? 1 : threads;
}

double calib_compute_rate(base_pool_t *pool, int threads, calib_compute_t which, double seconds,
                          int repeats)
{
    if (!calib_compute_available(which))
        return 0;
    calib_loop_fn fn = loop_of(which);
    threads = clamp_threads(pool, threads);
    /* size the run: double a single-thread probe until it lasts >= 5 ms */
    uint64_t iters = 1u << 12;
    double t = 0;
    for (;;) {
        uint64_t t0 = base_now_ns();
        fn(iters);
        t = (double)(base_now_ns() - t0) * 1e-9;
        if (t >= 5e-3 || iters >= (1ull << 40))
            break;
        iters *= 2;
    }
    if (t > 0)
        iters = (uint64_t)((double)iters * seconds / t) + 1;
    compute_job_t job;
    memset(&job, 0, sizeof job);
    job.fn = fn;
    job.iters = iters;
    double best = 0;
    for (int r = 0; r < (repeats < 1 ? 1 : repeats); r++) {
        double secs = run_tiles(pool, threads, compute_task, &job);
        double ops = 0;
        for (int i = 0; i < threads; i++)
            ops += job.ops[i];
        if (secs > 0 && ops / secs > best)
            best = ops / secs;
    }
    return best;
}

/* ---- memory bandwidth ---------------------------------------------------- */

typedef struct bw_job {
    calib_arrays_t *arr;
    int tiles;
    calib_bw_t which;
    int init;
} bw_job_t;

static void bw_task(void *ctx, size_t begin, size_t end, int worker)
{
    bw_job_t *j = ctx;
    (void)worker;
    size_t n = j->arr->n;
    for (size_t t = begin; t < end; t++) {
        size_t lo = n * t / (size_t)j->tiles, hi = n * (t + 1) / (size_t)j->tiles;
        double *restrict a = j->arr->a, *restrict b = j->arr->b, *restrict c = j->arr->c;
        if (j->init) {
            for (size_t i = lo; i < hi; i++)
                a[i] = 1.0, b[i] = 2.0, c[i] = 0.5;
        } else if (j->which == CALIB_BW_COPY) {
            for (size_t i = lo; i < hi; i++)
                b[i] = a[i];
        } else {
            const double s = 3.0;
            for (size_t i = lo; i < hi; i++)
                a[i] = b[i] + s * c[i];
        }
    }
}

int calib_arrays_alloc(calib_arrays_t *arr, size_t total_bytes, base_pool_t *pool, int threads)
{
    memset(arr, 0, sizeof *arr);
    size_t n = total_bytes / 3 / sizeof(double);
    n = n < 1024 ? 1024 : n;
    arr->a = base_aligned_alloc(n * sizeof(double), BASE_ALIGN);
    arr->b = base_aligned_alloc(n * sizeof(double), BASE_ALIGN);
    arr->c = base_aligned_alloc(n * sizeof(double), BASE_ALIGN);
    if (!arr->a || !arr->b || !arr->c) {
        calib_arrays_free(arr);
        return -1;
    }
    arr->n = n;
    /* first touch by the threads that will stream the pages */
    threads = clamp_threads(pool, threads);
    bw_job_t job = {arr, threads, CALIB_BW_COPY, 1};
    run_tiles(pool, threads, bw_task, &job);
    return 0;
}

void calib_arrays_free(calib_arrays_t *arr)
{
    base_aligned_free(arr->a);
    base_aligned_free(arr->b);
    base_aligned_free(arr->c);
    memset(arr, 0, sizeof *arr);
}

double calib_bandwidth(base_pool_t *pool, int threads, calib_bw_t which, calib_arrays_t *arr,
                       int repeats)
{
    threads = clamp_threads(pool, threads);
    bw_job_t job = {arr, threads, which, 0};
    double bytes = (double)arr->n * sizeof(double) * (which == CALIB_BW_COPY ? 2 : 3);
    double best = 0;
    for (int r = 0; r < (repeats < 1 ? 1 : repeats); r++) {
        double secs = run_tiles(pool, threads, bw_task, &job);
        if (secs > 0 && bytes / secs > best)
            best = bytes / secs;
    }
    return best;
}
