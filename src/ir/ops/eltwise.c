/*
 * Elementwise ops: the adapters between the op table and the eltwise
 * kernels (src/kernels/eltwise/). Binary, variadic and Where ops share one
 * inference (type rules per op, numpy broadcasting of every input); unary
 * ops share another (a per-op dtype list); Cast has its own. Exec functions
 * translate node attributes into kernel parameters. ONNX opset 17
 * semantics, except Gelu, which follows opset 20 (approximate attribute),
 * and Swish, which exists from opset 24.
 */
#include "ir/op_table.h"

#include "base/dtype.h"
#include "base/threadpool.h"
#include "kernels/eltwise/eltwise.h"
#include "kernels/eltwise/fast.h"

#include <string.h>

cairn_status_t op_eltwise_binary_infer(ir_infer_ctx_t *c);
cairn_status_t op_eltwise_unary_infer(ir_infer_ctx_t *c);
cairn_status_t op_eltwise_cast_infer(ir_infer_ctx_t *c);
cairn_status_t op_eltwise_binary_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                      ktensor_t *out, int n_out, void *ws, const kctx_t *k);
cairn_status_t op_eltwise_variadic_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                        ktensor_t *out, int n_out, void *ws, const kctx_t *k);
cairn_status_t op_eltwise_where_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k);
cairn_status_t op_eltwise_unary_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k);
cairn_status_t op_eltwise_cast_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_eltwise_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                     int n_out, ir_cost_t *cost);

/* ---- attribute schemas (slots in schema order) ---- */

enum { MOD_FMOD };
const ir_attr_def_t op_eltwise_mod_attrs[] = {IR_ATTR_INT("fmod", 0), IR_ATTR_END};
enum { ALPHA = 0, BETA_OR_GAMMA = 1 };
const ir_attr_def_t op_eltwise_leaky_attrs[] = {IR_ATTR_FLOAT("alpha", 0.01f), IR_ATTR_END};
const ir_attr_def_t op_eltwise_elu_attrs[] = {IR_ATTR_FLOAT("alpha", 1.0f), IR_ATTR_END};
const ir_attr_def_t op_eltwise_swish_attrs[] = {IR_ATTR_FLOAT("alpha", 1.0f), IR_ATTR_END};
const ir_attr_def_t op_eltwise_selu_attrs[] = {
    IR_ATTR_FLOAT("alpha", 1.67326319217681884765625f),
    IR_ATTR_FLOAT("gamma", 1.05070102214813232421875f), IR_ATTR_END};
const ir_attr_def_t op_eltwise_hardsigmoid_attrs[] = {
    IR_ATTR_FLOAT("alpha", 0.2f), IR_ATTR_FLOAT("beta", 0.5f), IR_ATTR_END};
enum { GELU_APPROXIMATE };
const ir_attr_def_t op_eltwise_gelu_attrs[] = {IR_ATTR_STRING("approximate", "none"),
                                               IR_ATTR_END};
enum { ISINF_NEG, ISINF_POS };
const ir_attr_def_t op_eltwise_isinf_attrs[] = {
    IR_ATTR_INT("detect_negative", 1), IR_ATTR_INT("detect_positive", 1), IR_ATTR_END};
enum { CAST_TO, CAST_SATURATE };
const ir_attr_def_t op_eltwise_cast_attrs[] = {IR_ATTR_REQUIRED_INT("to"),
                                               IR_ATTR_INT("saturate", 1), IR_ATTR_END};

/* ---- dtype lists beyond the shared ones ---- */

static const cairn_dtype_t dt_float_signed[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                                CAIRN_I8,  CAIRN_I16,  CAIRN_I32, CAIRN_I64,
                                                CAIRN_DTYPE_UNDEFINED};
static const cairn_dtype_t dt_pow_base[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                            CAIRN_I32, CAIRN_I64, CAIRN_DTYPE_UNDEFINED};
static const cairn_dtype_t dt_bool[] = {CAIRN_BOOL, CAIRN_DTYPE_UNDEFINED};

static int is_compare(int op)
{
    return op == IR_OP_Equal || op == IR_OP_Less || op == IR_OP_LessOrEqual ||
           op == IR_OP_Greater || op == IR_OP_GreaterOrEqual;
}

static int is_logic(int op) { return op == IR_OP_And || op == IR_OP_Or || op == IR_OP_Xor; }

/* ---- inference ---- */

cairn_status_t op_eltwise_binary_infer(ir_infer_ctx_t *c)
{
    const int op = c->node->op;
    const char *name = ir_op_def(op)->name;
    for (int i = 0; i < c->n_in; i++)
        if (c->in[i].dtype == CAIRN_DTYPE_UNDEFINED)
            return ir_infer_error(c, CAIRN_ERR_GRAPH, "input %d is required (%s has no optional "
                                  "inputs)", i, name);
    const int first = op == IR_OP_Where ? 1 : 0; /* the first data input */
    const cairn_dtype_t *allowed = ir_dtypes_numeric;
    if (op == IR_OP_Pow)
        allowed = dt_pow_base;
    else if (op == IR_OP_Equal || op == IR_OP_Where)
        allowed = ir_dtypes_all;
    else if (is_logic(op))
        allowed = dt_bool;
    else if (op == IR_OP_Sum || op == IR_OP_Mean)
        allowed = ir_dtypes_float;
    BASE_TRY(ir_infer_check_dtype(c, first, allowed));
    if (op == IR_OP_Pow) {
        BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_numeric));
    } else if (op == IR_OP_Where) {
        BASE_TRY(ir_infer_check_dtype(c, 0, dt_bool));
        BASE_TRY(ir_infer_same_dtype(c, 1, 2));
    } else {
        for (int i = 1; i < c->n_in; i++)
            BASE_TRY(ir_infer_same_dtype(c, 0, i));
    }
    if (op == IR_OP_Mod) {
        int64_t f = ir_attr_i(c->node, MOD_FMOD);
        if (f != 0 && f != 1)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT, "attribute fmod must be 0 or 1, "
                                  "got %lld", (long long)f);
        if (f == 0 && base_dtype_is_float(c->in[0].dtype))
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "Mod with fmod=0 is only defined for integers; %s inputs need "
                                  "fmod=1", cairn_dtype_name(c->in[0].dtype));
    }
    ir_shape_t s = c->in[0].shape;
    for (int i = 1; i < c->n_in; i++) {
        ir_shape_t t;
        BASE_TRY(ir_shape_broadcast(&s, &c->in[i].shape, &t));
        s = t;
    }
    c->out[0].dtype = (is_compare(op) || is_logic(op)) ? CAIRN_BOOL : c->in[first].dtype;
    c->out[0].shape = s;
    return CAIRN_OK;
}

/* The dtypes each unary op accepts (ONNX type constraints). */
static const cairn_dtype_t *unary_dtypes(int op)
{
    switch (op) {
    case IR_OP_Relu:
    case IR_OP_Neg: return dt_float_signed;
    case IR_OP_Abs:
    case IR_OP_Sign:
    case IR_OP_Clip: return ir_dtypes_numeric;
    case IR_OP_Not: return dt_bool;
    default: return ir_dtypes_float;
    }
}

cairn_status_t op_eltwise_unary_infer(ir_infer_ctx_t *c)
{
    const int op = c->node->op;
    if (c->in[0].dtype == CAIRN_DTYPE_UNDEFINED)
        return ir_infer_error(c, CAIRN_ERR_GRAPH, "input 0 is required");
    BASE_TRY(ir_infer_check_dtype(c, 0, unary_dtypes(op)));
    if (op == IR_OP_Gelu) {
        const char *a = ir_attr_s(c->node, GELU_APPROXIMATE);
        if (!a || (strcmp(a, "none") != 0 && strcmp(a, "tanh") != 0))
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT, "attribute approximate must be "
                                  "\"none\" or \"tanh\", got \"%s\"", a ? a : "(null)");
    }
    if (op == IR_OP_Clip) {
        static const char *const which[3] = {"", "min", "max"};
        for (int i = 1; i < c->n_in; i++) {
            if (c->in[i].dtype == CAIRN_DTYPE_UNDEFINED)
                continue;
            BASE_TRY(ir_infer_same_dtype(c, 0, i));
            int64_t ne = ir_shape_numel(&c->in[i].shape);
            /* ONNX wants a scalar; a one-element tensor of any rank is accepted */
            if (ne >= 0 && ne != 1) {
                char buf[128];
                return ir_infer_error(c, CAIRN_ERR_SHAPE, "Clip %s (input %d) must be a scalar, "
                                      "got shape %s", which[i], i,
                                      ir_shape_str(c->graph, &c->in[i].shape, buf, sizeof buf));
            }
        }
    }
    c->out[0].dtype = (op == IR_OP_IsNaN || op == IR_OP_IsInf) ? CAIRN_BOOL : c->in[0].dtype;
    c->out[0].shape = c->in[0].shape;
    return CAIRN_OK;
}

cairn_status_t op_eltwise_cast_infer(ir_infer_ctx_t *c)
{
    if (c->in[0].dtype == CAIRN_DTYPE_UNDEFINED)
        return ir_infer_error(c, CAIRN_ERR_GRAPH, "input 0 is required");
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    int64_t to = ir_attr_i(c->node, CAST_TO);
    if (to < 1 || to > 16 || !base_dtype_valid((cairn_dtype_t)to))
        return ir_infer_error(c, to >= 1 && to <= 23 ? CAIRN_ERR_UNSUPPORTED
                                                     : CAIRN_ERR_INVALID_ARGUMENT,
                              "Cast to ONNX type %lld is not supported; cairn casts to f32 (1), "
                              "u8 (2), i8 (3), i16 (5), i32 (6), i64 (7), bool (9), f16 (10), "
                              "f64 (11), bf16 (16)", (long long)to);
    c->out[0].dtype = (cairn_dtype_t)to;
    c->out[0].shape = c->in[0].shape;
    return CAIRN_OK;
}

/* ---- exec ---- */

static eltwise_binop_t binop_of(const ir_node_t *n)
{
    switch (n->op) {
    case IR_OP_Add:
    case IR_OP_Sum:
    case IR_OP_Mean: return ELTWISE_ADD;
    case IR_OP_Sub: return ELTWISE_SUB;
    case IR_OP_Mul: return ELTWISE_MUL;
    case IR_OP_Div: return ELTWISE_DIV;
    case IR_OP_Pow: return ELTWISE_POW;
    case IR_OP_Mod: return ir_attr_i(n, MOD_FMOD) ? ELTWISE_FMOD : ELTWISE_MOD;
    case IR_OP_Min: return ELTWISE_MIN;
    case IR_OP_Max: return ELTWISE_MAX;
    case IR_OP_Equal: return ELTWISE_EQ;
    case IR_OP_Less: return ELTWISE_LT;
    case IR_OP_LessOrEqual: return ELTWISE_LE;
    case IR_OP_Greater: return ELTWISE_GT;
    case IR_OP_GreaterOrEqual: return ELTWISE_GE;
    case IR_OP_And: return ELTWISE_AND;
    case IR_OP_Or: return ELTWISE_OR;
    case IR_OP_Xor: return ELTWISE_XOR;
    default: return ELTWISE_BINOP_COUNT;
    }
}

cairn_status_t op_eltwise_binary_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                      ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws;
    /* f32 Add/Sub/Mul/Div with full, scalar, row or column operands: the
     * vectorised kernels; everything else: the reference */
    if (eltwise_binary_f32_fast(NULL, binop_of(n), &in[0], &in[1], &out[0], k))
        return CAIRN_OK;
    /* f32 Pow by a scalar 2 (the variance in exported LayerNorms): x*x is
     * exact where powf is only correctly rounded, and runs on the fast Mul */
    if (n->op == IR_OP_Pow && in[0].dtype == CAIRN_F32 && in[1].dtype == CAIRN_F32 &&
        kt_numel(&in[1]) == 1 && ((const float *)in[1].data)[0] == 2.0f &&
        out[0].rank == in[0].rank && kt_numel(&out[0]) == kt_numel(&in[0]) &&
        eltwise_binary_f32_fast(NULL, ELTWISE_MUL, &in[0], &in[0], &out[0], k))
        return CAIRN_OK;
    return eltwise_binary_ref(binop_of(n), &in[0], &in[1], &out[0]);
}

/* Folds the inputs pairwise into the output: out = in0 op in1, then
 * out = out op in_i (the output has the full broadcast shape, so reading it
 * as an input walks it with its own strides and the update is in place).
 * f16/bf16 round after each step. Mean divides the sum at the end. */
cairn_status_t op_eltwise_variadic_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                        ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws, (void)k;
    eltwise_binop_t op = binop_of(n);
    if (n_in == 1) {
        BASE_TRY(eltwise_broadcast_copy_ref(&in[0], &out[0]));
    } else {
        BASE_TRY(eltwise_binary_ref(op, &in[0], &in[1], &out[0]));
        for (int i = 2; i < n_in; i++)
            BASE_TRY(eltwise_binary_ref(op, &out[0], &in[i], &out[0]));
    }
    if (n->op == IR_OP_Mean && n_in > 1)
        return eltwise_scale_ref(&out[0], 1.0 / n_in);
    return CAIRN_OK;
}

cairn_status_t op_eltwise_where_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    return eltwise_where_ref(&in[0], &in[1], &in[2], &out[0]);
}

static eltwise_unop_t unop_of(int op)
{
    switch (op) {
    case IR_OP_Relu: return ELTWISE_RELU;
    case IR_OP_LeakyRelu: return ELTWISE_LEAKY_RELU;
    case IR_OP_Sigmoid: return ELTWISE_SIGMOID;
    case IR_OP_Tanh: return ELTWISE_TANH;
    case IR_OP_Exp: return ELTWISE_EXP;
    case IR_OP_Log: return ELTWISE_LOG;
    case IR_OP_Sqrt: return ELTWISE_SQRT;
    case IR_OP_Reciprocal: return ELTWISE_RECIPROCAL;
    case IR_OP_Neg: return ELTWISE_NEG;
    case IR_OP_Abs: return ELTWISE_ABS;
    case IR_OP_Erf: return ELTWISE_ERF;
    case IR_OP_Gelu: return ELTWISE_GELU;
    case IR_OP_Softplus: return ELTWISE_SOFTPLUS;
    case IR_OP_Softsign: return ELTWISE_SOFTSIGN;
    case IR_OP_Elu: return ELTWISE_ELU;
    case IR_OP_Selu: return ELTWISE_SELU;
    case IR_OP_Clip: return ELTWISE_CLIP;
    case IR_OP_HardSigmoid: return ELTWISE_HARD_SIGMOID;
    case IR_OP_HardSwish: return ELTWISE_HARD_SWISH;
    case IR_OP_Swish: return ELTWISE_SWISH;
    case IR_OP_Floor: return ELTWISE_FLOOR;
    case IR_OP_Ceil: return ELTWISE_CEIL;
    case IR_OP_Round: return ELTWISE_ROUND;
    case IR_OP_Sign: return ELTWISE_SIGN;
    case IR_OP_Sin: return ELTWISE_SIN;
    case IR_OP_Cos: return ELTWISE_COS;
    case IR_OP_Tan: return ELTWISE_TAN;
    case IR_OP_Asin: return ELTWISE_ASIN;
    case IR_OP_Acos: return ELTWISE_ACOS;
    case IR_OP_Atan: return ELTWISE_ATAN;
    case IR_OP_Sinh: return ELTWISE_SINH;
    case IR_OP_Cosh: return ELTWISE_COSH;
    case IR_OP_Asinh: return ELTWISE_ASINH;
    case IR_OP_Acosh: return ELTWISE_ACOSH;
    case IR_OP_Atanh: return ELTWISE_ATANH;
    case IR_OP_IsNaN: return ELTWISE_ISNAN;
    case IR_OP_IsInf: return ELTWISE_ISINF;
    case IR_OP_Not: return ELTWISE_NOT;
    default: return ELTWISE_UNOP_COUNT;
    }
}

cairn_status_t op_eltwise_unary_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    eltwise_params_t p = eltwise_params_default();
    switch (n->op) {
    case IR_OP_LeakyRelu:
    case IR_OP_Elu:
    case IR_OP_Swish: p.alpha = ir_attr_f(n, ALPHA); break;
    case IR_OP_Selu:
        p.alpha = ir_attr_f(n, ALPHA);
        p.gamma = ir_attr_f(n, BETA_OR_GAMMA);
        break;
    case IR_OP_HardSigmoid:
        p.alpha = ir_attr_f(n, ALPHA);
        p.beta = ir_attr_f(n, BETA_OR_GAMMA);
        break;
    case IR_OP_Gelu: p.gelu_tanh = strcmp(ir_attr_s(n, GELU_APPROXIMATE), "tanh") == 0; break;
    case IR_OP_IsInf:
        p.detect_negative = ir_attr_i(n, ISINF_NEG) != 0;
        p.detect_positive = ir_attr_i(n, ISINF_POS) != 0;
        break;
    case IR_OP_Clip:
        for (int i = 1; i < n_in && i < 3; i++) {
            if (in[i].dtype == CAIRN_DTYPE_UNDEFINED || !in[i].data)
                continue;
            if (in[i].dtype != in[0].dtype || kt_numel(&in[i]) != 1)
                return base_error(CAIRN_ERR_SHAPE, "Clip %s must be a one-element %s tensor",
                                  i == 1 ? "min" : "max", cairn_dtype_name(in[0].dtype));
            if (i == 1)
                p.clip_min = in[i].data;
            else
                p.clip_max = in[i].data;
        }
        break;
    default: break;
    }
    if (eltwise_unary_f32_fast(NULL, unop_of(n->op), &p, &in[0], &out[0], k))
        return CAIRN_OK;
    return eltwise_unary_ref(unop_of(n->op), &p, &in[0], &out[0]);
}

/* Cast int32 -> f32 (MatMulInteger's sums in quantised models) as a loop
 * the compiler vectorises, over the pool in runs of CAST_CHUNK elements:
 * one rounding of each integer, as eltwise_cast_ref's generic path (through
 * int64) gives, which took 2.7 % of a quantised encoder on 1 thread; on 2,
 * the cast run on one thread took 8 %. */
#define CAST_CHUNK 32768
typedef struct cast_job {
    const int32_t *x;
    float *y;
    int64_t n;
} cast_job_t;

static void cast_i32_f32_task(void *ctx, size_t c0, size_t c1, int worker)
{
    (void)worker;
    const cast_job_t *j = ctx;
    const int64_t e = (int64_t)c1 * CAST_CHUNK < j->n ? (int64_t)c1 * CAST_CHUNK : j->n;
    for (int64_t i = (int64_t)c0 * CAST_CHUNK; i < e; i++)
        j->y[i] = (float)j->x[i];
}

cairn_status_t op_eltwise_cast_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n, (void)n_in, (void)n_out, (void)ws;
    const int64_t numel = kt_numel(&in[0]);
    if (in[0].dtype == CAIRN_I32 && out[0].dtype == CAIRN_F32 && k && k->pool && k->threads > 1 &&
        numel >= 2 * CAST_CHUNK && kt_numel(&out[0]) == numel) {
        cast_job_t j = {in[0].data, out[0].data, numel};
        base_pool_parallel_for_1d(k->pool, (size_t)((numel + CAST_CHUNK - 1) / CAST_CHUNK), 1,
                                  cast_i32_f32_task, &j);
        return CAIRN_OK;
    }
    return eltwise_cast_ref(&in[0], &out[0]);
}

/* ---- cost ----
 * FLOPs per output element: 1 for arithmetic and comparisons, 0 for pure
 * selection/conversion (Where, Cast, Not, IsNaN, IsInf), and a nominal 10
 * for a libm transcendental (its true cost depends on the implementation).
 * Variadic ops do n_in - 1 combining steps (+1 for Mean's divide). */
void op_eltwise_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                     int n_out, ir_cost_t *cost)
{
    ir_cost_eltwise(n, in, n_in, out, n_out, cost);
    double numel = cost->flops, w = 1;
    switch (n->op) {
    case IR_OP_Where:
    case IR_OP_Cast:
    case IR_OP_Not:
    case IR_OP_IsNaN:
    case IR_OP_IsInf: w = 0; break;
    case IR_OP_Min:
    case IR_OP_Max:
    case IR_OP_Sum: w = n_in - 1; break;
    case IR_OP_Mean: w = n_in; break;
    case IR_OP_Pow:
    case IR_OP_Sigmoid:
    case IR_OP_Swish:
    case IR_OP_Tanh:
    case IR_OP_Exp:
    case IR_OP_Log:
    case IR_OP_Erf:
    case IR_OP_Gelu:
    case IR_OP_Softplus:
    case IR_OP_Elu:
    case IR_OP_Selu:
    case IR_OP_Sin:
    case IR_OP_Cos:
    case IR_OP_Tan:
    case IR_OP_Asin:
    case IR_OP_Acos:
    case IR_OP_Atan:
    case IR_OP_Sinh:
    case IR_OP_Cosh:
    case IR_OP_Asinh:
    case IR_OP_Acosh:
    case IR_OP_Atanh: w = 10; break;
    case IR_OP_HardSigmoid:
    case IR_OP_HardSwish:
    case IR_OP_LeakyRelu: w = 2; break;
    default: w = 1; break;
    }
    cost->flops = numel * w;
}
