/*
 * Elementwise reference kernels: binary ops with numpy broadcasting
 * (arithmetic, comparisons, logic), Where, unary math, and Cast.
 *
 * Tensors are dense row-major ktensor_t views. Binary and ternary kernels
 * broadcast their inputs to `out`'s shape (which the caller computed; the
 * kernel checks it). Every kernel returns CAIRN_OK or an error status with
 * a message naming the op (e.g. integer division by zero).
 */
#ifndef CAIRN_KERNELS_ELTWISE_H
#define CAIRN_KERNELS_ELTWISE_H

#include "kernels/ktensor.h"

typedef enum eltwise_binop {
    ELTWISE_ADD = 0,
    ELTWISE_SUB,
    ELTWISE_MUL,
    ELTWISE_DIV,  /* ints: truncating, division by zero is an error */
    ELTWISE_MOD,  /* ints only: result takes the divisor's sign (Python) */
    ELTWISE_FMOD, /* C fmod / truncating remainder: result takes the dividend's sign */
    ELTWISE_POW,  /* base and exponent types may differ; out has base's type */
    ELTWISE_MIN,
    ELTWISE_MAX,
    ELTWISE_EQ,   /* comparisons: out is bool */
    ELTWISE_LT,
    ELTWISE_LE,
    ELTWISE_GT,
    ELTWISE_GE,
    ELTWISE_AND,  /* logic: bool in, bool out */
    ELTWISE_OR,
    ELTWISE_XOR,
    ELTWISE_BINOP_COUNT
} eltwise_binop_t;

typedef enum eltwise_unop {
    ELTWISE_RELU = 0,
    ELTWISE_LEAKY_RELU,
    ELTWISE_SIGMOID,
    ELTWISE_TANH,
    ELTWISE_EXP,
    ELTWISE_LOG,
    ELTWISE_SQRT,
    ELTWISE_RECIPROCAL,
    ELTWISE_NEG,
    ELTWISE_ABS,
    ELTWISE_ERF,
    ELTWISE_GELU,
    ELTWISE_SOFTPLUS,
    ELTWISE_SOFTSIGN,
    ELTWISE_ELU,
    ELTWISE_SELU,
    ELTWISE_CLIP,
    ELTWISE_HARD_SIGMOID,
    ELTWISE_HARD_SWISH,
    ELTWISE_SWISH,  /* x * sigmoid(alpha x) (SiLU when alpha = 1) */
    ELTWISE_FLOOR,
    ELTWISE_CEIL,
    ELTWISE_ROUND,
    ELTWISE_SIGN,
    ELTWISE_SIN,
    ELTWISE_COS,
    ELTWISE_TAN,
    ELTWISE_ASIN,
    ELTWISE_ACOS,
    ELTWISE_ATAN,
    ELTWISE_SINH,
    ELTWISE_COSH,
    ELTWISE_ASINH,
    ELTWISE_ACOSH,
    ELTWISE_ATANH,
    ELTWISE_ISNAN,  /* float in, bool out */
    ELTWISE_ISINF,  /* float in, bool out */
    ELTWISE_NOT,    /* bool in, bool out */
    ELTWISE_UNOP_COUNT
} eltwise_unop_t;

/* Parameters of the unary ops that have any; unused fields are ignored. */
typedef struct eltwise_params {
    float alpha;          /* LeakyRelu, Elu, Selu, HardSigmoid, Swish */
    float beta;           /* HardSigmoid */
    float gamma;          /* Selu */
    int gelu_tanh;        /* Gelu: 0 exact (erf), 1 tanh approximation */
    int detect_negative;  /* IsInf */
    int detect_positive;  /* IsInf */
    /* Clip bounds: one element of x's dtype each, or NULL for no bound. */
    const void *clip_min;
    const void *clip_max;
} eltwise_params_t;

/* Default parameters (ONNX attribute defaults). */
eltwise_params_t eltwise_params_default(void);

const char *eltwise_binop_name(eltwise_binop_t op);
const char *eltwise_unop_name(eltwise_unop_t op);

/* out = a op b with numpy broadcasting. a and b have the same dtype except
 * for ELTWISE_POW; out is bool for comparisons and logic, else a's dtype. */
cairn_status_t eltwise_binary_ref(eltwise_binop_t op, const ktensor_t *a, const ktensor_t *b,
                                  ktensor_t *out);

/* out = cond ? x : y, three-way broadcasting; cond is bool. */
cairn_status_t eltwise_where_ref(const ktensor_t *cond, const ktensor_t *x, const ktensor_t *y,
                                 ktensor_t *out);

/* Copies x into out broadcasting it to out's shape (same dtype). */
cairn_status_t eltwise_broadcast_copy_ref(const ktensor_t *x, ktensor_t *out);

/* y = op(x), same shape; y is bool for IsNaN/IsInf, else x's dtype.
 * p may be NULL for ops without parameters. */
cairn_status_t eltwise_unary_ref(eltwise_unop_t op, const eltwise_params_t *p, const ktensor_t *x,
                                 ktensor_t *y);

/* Multiplies a float tensor in place by s (Mean's final step). */
cairn_status_t eltwise_scale_ref(ktensor_t *x, double s);

/* y = Cast(x) to y's dtype. Float to integer truncates toward zero; NaN
 * becomes 0 and values outside the target's range saturate to its min/max
 * (ONNX leaves both undefined; C would too). Integer to narrower integer
 * wraps modulo 2^bits. Anything to bool is x != 0 (so NaN -> true).
 * f16/bf16 targets round to nearest even from the exact source value. */
cairn_status_t eltwise_cast_ref(const ktensor_t *x, ktensor_t *y);

#endif
