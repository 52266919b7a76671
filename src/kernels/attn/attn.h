/*
 * Fused scaled-dot-product attention in f32:
 *   O[b,h,i,:] = sum_j softmax_j(scale * Q[b,h,i,:].K[b,g,j,:] + mask[b,h,i,j]
 *                                [-inf where causal and j > i + Sk - Sq]) V[b,g,j,:]
 * with g = h / (Hq / Hk) (grouped-query attention: Hk divides Hq). Q, K, V,
 * O and the mask are addressed through element strides of their logical
 * [b, h, s, d] (mask: [b, h, i, j]) axes, so transposed layouts (e.g. the
 * exporter's [B, S, H, D]) and broadcast masks (stride 0) need no copies.
 * A row whose every score is -inf gets NaN, as Softmax would give.
 *
 * ref.c is the plain kernel (scores, softmax and P.V accumulated in double).
 * fast.c dispatches to per-ISA variants (fast_impl.h instantiated in
 * x86_avx512.c and x86_avx2.c): tiled over blocks of query rows with an
 * online softmax (running max and sum, the accumulator rescaled when the
 * max grows), never forming the Sq x Sk score matrix, parallel over
 * batch x heads x query blocks.
 */
#ifndef CAIRN_KERNELS_ATTN_ATTN_H
#define CAIRN_KERNELS_ATTN_ATTN_H

#include "base/cpu.h"
#include "kernels/ktensor.h"

#include <stddef.h>
#include <stdint.h>

typedef struct kattn_params {
    int64_t B, Hq, Hk, Sq, Sk, D, Dv;
    const float *q, *k, *v;
    float *o;
    int64_t qs[4], ks[4], vs[4], os[4]; /* element strides of [b, h, s, d] */
    const float *mask;                  /* NULL: none */
    int64_t ms[4];                      /* element strides of [b, h, i, j]; 0 broadcasts */
    float scale;
    int causal;
} kattn_params_t;

/* The plain kernel (serial; double accumulation). */
void kattn_ref_f32(const kattn_params_t *p);

/* One fast variant's work item: query rows [q0, q1) of (b, h) = bh. ws:
 * kattn_ws_floats(p) floats. */
typedef void (*kattn_block_fn)(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1,
                               float *ws);

typedef struct kattn_variant {
    const char *name;
    cairn_isa_t isa;
    kattn_block_fn block; /* NULL: reference only */
} kattn_variant_t;

extern const kattn_variant_t kattn_variants[];
extern const int kattn_n_variants;
const kattn_variant_t *kattn_variant_for(cairn_isa_t cap);
const kattn_variant_t *kattn_select(void);

/* The most query rows per work item (the driver picks 32, 64 or 128 so
 * that every thread gets a few items), keys per tile, and the scratch a
 * work item needs. */
#define KATTN_BQ 128
#define KATTN_BK 128
size_t kattn_ws_floats(const kattn_params_t *p);

void kattn_block_f32_avx512(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1,
                            float *ws);
void kattn_block_f32_avx2(const kattn_params_t *p, int64_t bh, int64_t q0, int64_t q1,
                          float *ws);

/* The variants' softmax exponential (scores are kept in base-2 units), for
 * tests: y = 2^x for x <= 0 (+0 below -125), n a multiple of the vector
 * length. */
void kattn_exp2_neg_f32_avx512(const float *x, float *y, int64_t n);
void kattn_exp2_neg_f32_avx2(const float *x, float *y, int64_t n);

/* Runs variant v (NULL: the selected one; its reference level runs
 * kattn_ref_f32) over the kctx pool. Returns CAIRN_ERR_OUT_OF_MEMORY if
 * scratch cannot be had, else CAIRN_OK. */
cairn_status_t kattn_f32(const kattn_variant_t *v, const kattn_params_t *p, const kctx_t *k);

#endif
