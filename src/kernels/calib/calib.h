/*
 * Peak-rate measurement loops for `cairn calibrate`.
 *
 * The compute loops run long chains of one instruction (f32 FMA on zmm or
 * ymm, vdpbf16ps, vpdpbusd) over more independent accumulators than the
 * instruction's latency times its issue ports, so the loop is limited by
 * throughput alone; each returns the operations it performed (a multiply-
 * add counts 2). They live in their own files compiled with the -m flags
 * they need: call one only when base_cpu() reports its features
 * (calib_compute_available says which).
 *
 * The bandwidth loops are STREAM's copy (b = a) and triad (a = b + s*c) on
 * double arrays; bytes are counted STREAM's way (each array read or written
 * once; write-allocate traffic is not counted).
 *
 * calib_compute_rate / calib_bandwidth run a loop on 1..threads threads of
 * a pool, best of a few repeats, and return the rate in ops/s or bytes/s.
 */
#ifndef CAIRN_KERNELS_CALIB_H
#define CAIRN_KERNELS_CALIB_H

#include "base/threadpool.h"

#include <stddef.h>
#include <stdint.h>

typedef enum calib_compute {
    CALIB_F32_FMA_ZMM, /* vfmadd231ps zmm: AVX-512F */
    CALIB_F32_FMA_YMM, /* vfmadd231ps ymm: AVX2 + FMA */
    CALIB_BF16_DOT,    /* vdpbf16ps zmm: AVX512_BF16 */
    CALIB_S8_DOT_ZMM,  /* vpdpbusd zmm: AVX512_VNNI */
    CALIB_S8_DOT_YMM,  /* vpdpbusd ymm (VEX): AVX-VNNI */
    CALIB_S8_MADD_YMM, /* vpmaddwd + vpaddd ymm on 16-bit pairs: AVX2 (int8 without VNNI) */
    CALIB_COMPUTE_COUNT
} calib_compute_t;

typedef enum calib_bw { CALIB_BW_COPY, CALIB_BW_TRIAD } calib_bw_t;

/* The loops, one per ISA file; iters >= 1. Each returns the ops done. */
double calib_loop_f32_zmm(uint64_t iters);
double calib_loop_f32_ymm(uint64_t iters);
double calib_loop_bf16_zmm(uint64_t iters);
double calib_loop_s8_zmm(uint64_t iters);
double calib_loop_s8_ymm(uint64_t iters);
double calib_loop_s8_madd_ymm(uint64_t iters);

/* Whether this CPU (and OS) can run the loop. */
int calib_compute_available(calib_compute_t which);
const char *calib_compute_name(calib_compute_t which);

/* Peak ops/s of `which` on `threads` threads of pool (threads <= the pool's;
 * pool may be NULL for 1 thread): each repeat lasts about `seconds`; the best
 * of `repeats`. Returns 0 when the loop is not available. */
double calib_compute_rate(base_pool_t *pool, int threads, calib_compute_t which, double seconds,
                          int repeats);

/* Working arrays for the bandwidth loops: three double arrays of n each,
 * first touched by the threads that will use them. */
typedef struct calib_arrays {
    double *a, *b, *c;
    size_t n;
} calib_arrays_t;

/* total_bytes: the three arrays together. 0 on success, -1 out of memory. */
int calib_arrays_alloc(calib_arrays_t *arr, size_t total_bytes, base_pool_t *pool, int threads);
void calib_arrays_free(calib_arrays_t *arr);

/* Best bytes/s of `repeats` passes of `which` over the arrays. */
double calib_bandwidth(base_pool_t *pool, int threads, calib_bw_t which, calib_arrays_t *arr,
                       int repeats);

#endif
