/*
 * Fast f32 elementwise kernels: per-ISA variants (x86_avx512.c,
 * x86_avx2.c) of the hot unary activations and of Add/Sub/Mul/Div, chosen
 * from a table by the CPU's ISA capped by CAIRN_ISA (fast.c). The
 * reference kernels (ref.c, unary.c) stay the definition: the *_fast entry
 * points return 0 without touching anything when they do not cover a case
 * (other dtype, layout, op, or the reference level is selected), and the
 * caller then runs the reference.
 */
#ifndef CAIRN_KERNELS_ELTWISE_FAST_H
#define CAIRN_KERNELS_ELTWISE_FAST_H

#include "kernels/eltwise/eltwise.h"

typedef enum eltwise_f32_unop {
    EF32_RELU = 0,
    EF32_EXP,
    EF32_LOG,
    EF32_ERF,
    EF32_TANH,
    EF32_SIGMOID,
    EF32_GELU_ERF,
    EF32_GELU_TANH,
    EF32_SILU, /* x * sigmoid(x) */
    EF32_UNOP_COUNT
} eltwise_f32_unop_t;

/* y[i] = op(x[i]), i < n; x == y is allowed. */
typedef void (*eltwise_f32_unary_fn)(eltwise_f32_unop_t op, const float *x, float *y, int64_t n);
/* o[i] = a[i*sa] op b[i*sb], sa and sb in {0, 1}, op in ADD..DIV; o may
 * alias a or b where that operand's stride is 1. */
typedef void (*eltwise_f32_binary_fn)(eltwise_binop_t op, const float *a, int64_t sa,
                                      const float *b, int64_t sb, float *o, int64_t n);

typedef struct eltwise_f32_variant {
    const char *name;
    cairn_isa_t isa;
    eltwise_f32_unary_fn unary;   /* NULL: reference only */
    eltwise_f32_binary_fn binary; /* NULL: reference only */
} eltwise_f32_variant_t;

extern const eltwise_f32_variant_t eltwise_f32_variants[];
extern const int eltwise_f32_n_variants;

/* Best variant at or below `cap` on this CPU (CAIRN_ISA_AUTO: no cap). */
const eltwise_f32_variant_t *eltwise_f32_variant_for(cairn_isa_t cap);
/* The process-wide choice: base_isa_select() (honours CAIRN_ISA); with
 * CAIRN_VERBOSE=1 the choice is printed once. */
const eltwise_f32_variant_t *eltwise_f32_select(void);

void eltwise_f32_unary_avx512(eltwise_f32_unop_t op, const float *x, float *y, int64_t n);
void eltwise_f32_binary_avx512(eltwise_binop_t op, const float *a, int64_t sa, const float *b,
                               int64_t sb, float *o, int64_t n);
void eltwise_f32_unary_avx2(eltwise_f32_unop_t op, const float *x, float *y, int64_t n);
void eltwise_f32_binary_avx2(eltwise_binop_t op, const float *a, int64_t sa, const float *b,
                             int64_t sb, float *o, int64_t n);

/* The fast path of eltwise_unary_ref for f32: returns 1 when it computed
 * y (op covered, x and y f32 of equal numel), else 0. v NULL: the selected
 * variant. Parallel over chunks with k's pool when large. */
int eltwise_unary_f32_fast(const eltwise_f32_variant_t *v, eltwise_unop_t op,
                           const eltwise_params_t *p, const ktensor_t *x, ktensor_t *y,
                           const kctx_t *k);

/* The fast path of eltwise_binary_ref for f32 Add/Sub/Mul/Div when each
 * operand is the full output, a scalar, a row vector broadcast along the
 * leading dims (shape [1.., d_j..d_r]) or a column broadcast along the
 * trailing dims (shape [d_0..d_j, 1..]): returns 1 when it computed out. */
int eltwise_binary_f32_fast(const eltwise_f32_variant_t *v, eltwise_binop_t op,
                            const ktensor_t *a, const ktensor_t *b, ktensor_t *out,
                            const kctx_t *k);

#endif
