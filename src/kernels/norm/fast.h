/*
 * Fast f32 Softmax / LogSoftmax over the last axis, LayerNormalization and
 * RMSNormalization (their normalised dims are always the trailing,
 * contiguous ones): per-ISA
 * variants (x86_avx512.c, x86_avx2.c) in a table dispatched like GEMM's
 * (fast.c). The *_fast entry points return 0 without touching anything
 * when a call is not covered (dtype, axis, parameter layout, reference
 * level selected); the caller then runs the reference kernel (ref.c).
 *
 * Precision, both computed in f32 (the reference works in double):
 * softmax: three passes (max; e^(x-max) stored and summed; scale by
 * 1/sum). exp is <= 1 ulp (vmath_impl.h), the sum of d terms held in
 * VLEN lane accumulators has relative error <= (d/VLEN + log2 VLEN) 2^-24,
 * and the scaling adds 1 ulp, so the relative error of each output is
 * <= 2.5 ulp + (d/VLEN + 4) 2^-24 (d = 128: <= 3.6e-7 with AVX-512).
 * LogSoftmax: x - (max + log(sum)), absolute error <= (d/VLEN + 6) 2^-24
 * + 1 ulp of the result. LayerNorm: two passes in f32 over the row (mean
 * first, then the mean of squared deviations, which has no cancellation);
 * mean relative error <= (d/VLEN + 4) 2^-24 sum|x| / |sum x| and variance
 * relative error <= (d/VLEN + 6) 2^-24 (+ the squared error of the mean,
 * second order), e.g. d = 768 with AVX2: <= 3.4e-6.
 * RMSNorm: the sum of squares in f32 over four VLEN-lane FMA accumulators
 * (each sees about d/(4 VLEN) terms, then 2 + log2 VLEN additions combine
 * them); the terms are non-negative, so its relative error is <=
 * (d/(4 VLEN) + log2 VLEN + 3) 2^-24. Dividing by d, adding eps, sqrtf
 * and the reciprocal add <= 4 roundings, and the square root halves the
 * sum's error, so 1/rms is within (d/(4 VLEN) + log2 VLEN + 7)/2 2^-24
 * and each output (two more products) within
 * ((d/(4 VLEN) + log2 VLEN + 7)/2 + 2) 2^-24 relative, e.g. d = 4096 with
 * AVX2: <= 73 2^-24 = 4.3e-6. f32 overflows in the sum of squares once
 * |x| reaches ~1.8e19 / sqrt(d) (the reference, in double, does not).
 */
#ifndef CAIRN_KERNELS_NORM_FAST_H
#define CAIRN_KERNELS_NORM_FAST_H

#include "kernels/norm/norm.h"

/* rows x d contiguous rows; x == y allowed. */
typedef void (*knorm_softmax_rows_fn)(const float *x, float *y, int64_t rows, int64_t d,
                                      int log_softmax);
/* scale: d floats; bias: d floats or NULL; mean / isd: one float per row
 * or NULL. */
typedef void (*knorm_layernorm_rows_fn)(const float *x, float *y, int64_t rows, int64_t d,
                                        const float *scale, const float *bias, float eps,
                                        float *mean, float *isd);

/* scale: d floats; y = x / sqrt(mean(x^2) + eps) * scale per row. */
typedef void (*knorm_rmsnorm_rows_fn)(const float *x, float *y, int64_t rows, int64_t d,
                                      const float *scale, float eps);

typedef struct knorm_f32_variant {
    const char *name;
    cairn_isa_t isa;
    knorm_softmax_rows_fn softmax;     /* NULL: reference only */
    knorm_layernorm_rows_fn layernorm; /* NULL: reference only */
    knorm_rmsnorm_rows_fn rmsnorm;     /* NULL: reference only */
} knorm_f32_variant_t;

extern const knorm_f32_variant_t knorm_f32_variants[];
extern const int knorm_f32_n_variants;

const knorm_f32_variant_t *knorm_f32_variant_for(cairn_isa_t cap);
const knorm_f32_variant_t *knorm_f32_select(void);

void knorm_softmax_rows_f32_avx512(const float *x, float *y, int64_t rows, int64_t d, int lg);
void knorm_layernorm_rows_f32_avx512(const float *x, float *y, int64_t rows, int64_t d,
                                     const float *scale, const float *bias, float eps,
                                     float *mean, float *isd);
void knorm_softmax_rows_f32_avx2(const float *x, float *y, int64_t rows, int64_t d, int lg);
void knorm_layernorm_rows_f32_avx2(const float *x, float *y, int64_t rows, int64_t d,
                                   const float *scale, const float *bias, float eps, float *mean,
                                   float *isd);
void knorm_rmsnorm_rows_f32_avx512(const float *x, float *y, int64_t rows, int64_t d,
                                   const float *scale, float eps);
void knorm_rmsnorm_rows_f32_avx2(const float *x, float *y, int64_t rows, int64_t d,
                                 const float *scale, float eps);

/* v NULL: the selected variant. Return 1 when they computed the outputs. */
int knorm_softmax_f32_fast(const knorm_f32_variant_t *v, const ktensor_t *x, ktensor_t *y,
                           int axis, int log_softmax, const kctx_t *k);
int knorm_layernorm_f32_fast(const knorm_f32_variant_t *v, const ktensor_t *x,
                             const ktensor_t *scale, const ktensor_t *bias, ktensor_t *y,
                             ktensor_t *mean, ktensor_t *inv_std_dev,
                             const knorm_layer_params_t *p, const kctx_t *k);
/* Covered: f32 x and y, d = prod(shape[axis..]) > 0, an f32 scale of d
 * elements (a broadcast scale goes to the reference). */
int knorm_rmsnorm_f32_fast(const knorm_f32_variant_t *v, const ktensor_t *x,
                           const ktensor_t *scale, ktensor_t *y, const knorm_layer_params_t *p,
                           const kctx_t *k);

#endif
