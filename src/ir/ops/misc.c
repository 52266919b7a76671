/*
 * Misc ops (opset-17 semantics): NegativeLogLikelihoodLoss and
 * SoftmaxCrossEntropyLoss (opset 13), Trilu, Hardmax (opset 13: one axis),
 * EyeLike, OneHot, ThresholdedRelu, Shrink, Celu, Compress,
 * MeanVarianceNormalization and LRN. Inference checks dtypes, shapes and
 * attributes as far as they are known; OneHot and Compress need an input's
 * value (depth, condition) for their output shape. Exec translates the
 * node's attributes into the kernel parameters of src/kernels/misc.
 */
#include "ir/op_table.h"
#include "kernels/misc/misc.h"

#include "base/dtype.h"

#include <math.h>
#include <string.h>

#define MISC_EXEC_ARGS                                                                      \
    const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out, int n_out, void *ws, \
        const kctx_t *k
#define MISC_COST_ARGS                                                                      \
    const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out, int n_out,     \
        ir_cost_t *cost
#define MISC_WS_ARGS \
    const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out, int n_out

cairn_status_t op_misc_loss_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_loss_exec(MISC_EXEC_ARGS);
void op_misc_loss_cost(MISC_COST_ARGS);
size_t op_misc_loss_workspace(MISC_WS_ARGS);
cairn_status_t op_misc_trilu_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_trilu_exec(MISC_EXEC_ARGS);
cairn_status_t op_misc_hardmax_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_hardmax_exec(MISC_EXEC_ARGS);
cairn_status_t op_misc_eyelike_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_eyelike_exec(MISC_EXEC_ARGS);
cairn_status_t op_misc_onehot_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_onehot_exec(MISC_EXEC_ARGS);
cairn_status_t op_misc_pointwise_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_pointwise_exec(MISC_EXEC_ARGS);
void op_misc_pointwise_cost(MISC_COST_ARGS);
cairn_status_t op_misc_compress_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_compress_exec(MISC_EXEC_ARGS);
cairn_status_t op_misc_mvn_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_mvn_exec(MISC_EXEC_ARGS);
void op_misc_mvn_cost(MISC_COST_ARGS);
size_t op_misc_mvn_workspace(MISC_WS_ARGS);
cairn_status_t op_misc_lrn_infer(ir_infer_ctx_t *c);
cairn_status_t op_misc_lrn_exec(MISC_EXEC_ARGS);
void op_misc_lrn_cost(MISC_COST_ARGS);
void op_misc_reads_cost(MISC_COST_ARGS);

enum { LOSS_REDUCTION, LOSS_IGNORE_INDEX };
const ir_attr_def_t op_misc_loss_attrs[] = {IR_ATTR_STRING("reduction", "mean"),
                                            IR_ATTR_INT("ignore_index", 0), IR_ATTR_END};
enum { TRILU_UPPER };
const ir_attr_def_t op_misc_trilu_attrs[] = {IR_ATTR_INT("upper", 1), IR_ATTR_END};
enum { HARDMAX_AXIS };
const ir_attr_def_t op_misc_hardmax_attrs[] = {IR_ATTR_INT("axis", -1), IR_ATTR_END};
enum { EYE_DTYPE, EYE_K };
const ir_attr_def_t op_misc_eyelike_attrs[] = {IR_ATTR_INT("dtype", 0), IR_ATTR_INT("k", 0),
                                               IR_ATTR_END};
enum { ONEHOT_AXIS };
const ir_attr_def_t op_misc_onehot_attrs[] = {IR_ATTR_INT("axis", -1), IR_ATTR_END};
/* ThresholdedRelu and Celu: alpha; Shrink: bias, lambd (one schema each) */
enum { TRELU_ALPHA };
const ir_attr_def_t op_misc_trelu_attrs[] = {IR_ATTR_FLOAT("alpha", 1.0f), IR_ATTR_END};
const ir_attr_def_t op_misc_celu_attrs[] = {IR_ATTR_FLOAT("alpha", 1.0f), IR_ATTR_END};
enum { SHRINK_BIAS, SHRINK_LAMBD };
const ir_attr_def_t op_misc_shrink_attrs[] = {IR_ATTR_FLOAT("bias", 0.0f),
                                              IR_ATTR_FLOAT("lambd", 0.5f), IR_ATTR_END};
enum { COMPRESS_AXIS };
const ir_attr_def_t op_misc_compress_attrs[] = {IR_ATTR_INT("axis", 0), IR_ATTR_END};
enum { MVN_AXES };
const ir_attr_def_t op_misc_mvn_attrs[] = {IR_ATTR_INTS("axes"), IR_ATTR_END};
enum { LRN_ALPHA, LRN_BETA, LRN_BIAS, LRN_SIZE };
const ir_attr_def_t op_misc_lrn_attrs[] = {IR_ATTR_FLOAT("alpha", 1e-4f),
                                           IR_ATTR_FLOAT("beta", 0.75f),
                                           IR_ATTR_FLOAT("bias", 1.0f),
                                           IR_ATTR_REQUIRED_INT("size"), IR_ATTR_END};

/* ---- shared helpers ---- */

static int misc_has(const ir_infer_ctx_t *c, int i)
{
    return i < c->n_in && c->in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}

static int misc_has_t(const ktensor_t *in, int n_in, int i)
{
    return i < n_in && in[i].dtype != CAIRN_DTYPE_UNDEFINED && in[i].data;
}

/* Outputs to type: graph building runs inference before the node's output
 * count is set (n_out 0), then every output the op can have is typed. */
static int misc_n_out(const ir_infer_ctx_t *c)
{
    return c->n_out ? c->n_out : ir_op_def(c->node->op)->max_out;
}

static double misc_bytes(const ktensor_t *t, int n)
{
    double b = 0;
    for (int i = 0; i < n; i++)
        if (t[i].dtype != CAIRN_DTYPE_UNDEFINED)
            b += (double)kt_numel(&t[i]) * (double)cairn_dtype_size(t[i].dtype);
    return b;
}

static cairn_status_t misc_axis(const ir_infer_ctx_t *c, int64_t a, int rank, int *out,
                                const char *what)
{
    if (a < -rank || a >= rank)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "%s %lld is out of range for an input of rank %d (valid: %d..%d)",
                              what, (long long)a, rank, -rank, rank - 1);
    *out = (int)(a < 0 ? a + rank : a);
    return CAIRN_OK;
}

static const char *misc_shape(const ir_infer_ctx_t *c, int i, char *buf, size_t cap)
{
    return ir_shape_str(c->graph, &c->in[i].shape, buf, cap);
}

/* Both known and different. */
static int misc_dims_clash(int64_t a, int64_t b)
{
    return ir_dim_known(a) && ir_dim_known(b) && a != b;
}

/* Output o := input i (dtype and shape). */
static void misc_same(ir_infer_ctx_t *c, int o, int i) { c->out[o] = c->in[i]; }

/* Default cost: every input read and output written once, one op per
 * output element. */
void op_misc_reads_cost(MISC_COST_ARGS)
{
    (void)n;
    cost->flops = out ? (double)kt_numel(&out[0]) : 0;
    cost->bytes = misc_bytes(in, n_in) + misc_bytes(out, n_out);
}

/* ---- NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss ---- */

static int loss_reduction(const char *s)
{
    if (!strcmp(s, "none"))
        return KMISC_RED_NONE;
    if (!strcmp(s, "sum"))
        return KMISC_RED_SUM;
    if (!strcmp(s, "mean"))
        return KMISC_RED_MEAN;
    return -1;
}

cairn_status_t op_misc_loss_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    int sce = n->op == IR_OP_SoftmaxCrossEntropyLoss;
    const char *xname = sce ? "scores" : "input", *tname = sce ? "labels" : "target";
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_index));
    const char *red = ir_attr_s(n, LOSS_REDUCTION);
    if (loss_reduction(red) < 0)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "reduction '%s' is not one of 'none', 'sum', 'mean'", red);
    const ir_shape_t *x = &c->in[0].shape, *t = &c->in[1].shape;
    char b1[128], b2[128];
    if (x->rank >= 0 && x->rank < 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "%s has shape %s; it must be (N, C) or (N, C, d1, ..., dk)", xname,
                              misc_shape(c, 0, b1, sizeof b1));
    if (x->rank >= 0 && t->rank >= 0) {
        int bad = t->rank != x->rank - 1;
        for (int d = 0; d < t->rank && !bad; d++)
            bad = misc_dims_clash(t->d[d], x->d[d == 0 ? 0 : d + 1]);
        if (bad)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "%s shape %s does not match %s shape %s: it must be the %s "
                                  "shape without dim 1 (C)",
                                  tname, misc_shape(c, 1, b1, sizeof b1), xname,
                                  misc_shape(c, 0, b2, sizeof b2), xname);
    }
    if (misc_has(c, 2)) {
        BASE_TRY(ir_infer_same_dtype(c, 0, 2));
        const ir_shape_t *w = &c->in[2].shape;
        if (w->rank >= 0 &&
            (w->rank != 1 || (x->rank >= 0 && misc_dims_clash(w->d[0], x->d[1]))))
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "weight has shape %s; it must be (C) with C = dim 1 of %s %s",
                                  misc_shape(c, 2, b1, sizeof b1), xname,
                                  misc_shape(c, 0, b2, sizeof b2));
    }
    cairn_dtype_t dt = c->in[0].dtype;
    if (loss_reduction(red) == KMISC_RED_NONE) {
        /* (N, d1..dk): from the target, else from the input */
        if (t->rank >= 0) {
            c->out[0].shape = *t;
            for (int d = 0; d < t->rank && x->rank >= 0; d++)
                if (!ir_dim_known(t->d[d]))
                    c->out[0].shape.d[d] = x->d[d == 0 ? 0 : d + 1];
        } else if (x->rank >= 0) {
            c->out[0].shape.rank = x->rank - 1;
            for (int d = 0; d < x->rank - 1; d++)
                c->out[0].shape.d[d] = x->d[d == 0 ? 0 : d + 1];
        } else {
            c->out[0].shape.rank = -1;
        }
    } else {
        c->out[0].shape.rank = 0;
    }
    c->out[0].dtype = dt;
    if (misc_n_out(c) > 1) {
        if (!sce)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "NegativeLogLikelihoodLoss has one output");
        misc_same(c, 1, 0);
    }
    return CAIRN_OK;
}

size_t op_misc_loss_workspace(MISC_WS_ARGS)
{
    (void)in, (void)n_in, (void)out, (void)n_out;
    if (n->op != IR_OP_SoftmaxCrossEntropyLoss)
        return 0;
    return (size_t)kt_numel(&in[0]) * sizeof(double);
}

cairn_status_t op_misc_loss_exec(MISC_EXEC_ARGS)
{
    (void)k;
    kmisc_loss_params_t p;
    p.reduction = loss_reduction(ir_attr_s(n, LOSS_REDUCTION));
    p.has_ignore = ir_attr_at(n, LOSS_IGNORE_INDEX) != NULL;
    p.ignore_index = ir_attr_i(n, LOSS_IGNORE_INDEX);
    const ktensor_t *w = misc_has_t(in, n_in, 2) ? &in[2] : NULL;
    if (n->op == IR_OP_SoftmaxCrossEntropyLoss)
        return kmisc_sce(&in[0], &in[1], w, &p, &out[0], n_out > 1 && out[1].data ? &out[1] : NULL,
                         ws);
    return kmisc_nll(&in[0], &in[1], w, &p, &out[0]);
}

void op_misc_loss_cost(MISC_COST_ARGS)
{
    double t = (double)kt_numel(&in[1]);
    if (n->op == IR_OP_SoftmaxCrossEntropyLoss) {
        /* max, exp, sum, subtract per score (exp/log as one op) + the gather */
        cost->flops = 4.0 * (double)kt_numel(&in[0]) + 2.0 * t;
        cost->bytes = misc_bytes(in, n_in) + misc_bytes(out, n_out);
    } else {
        /* only the targeted scores are read */
        cost->flops = 2.0 * t;
        cost->bytes = t * (double)cairn_dtype_size(in[0].dtype) + misc_bytes(in + 1, n_in - 1) +
                      misc_bytes(out, n_out);
    }
}

/* ---- Trilu ---- */

cairn_status_t op_misc_trilu_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    char b[128];
    if (c->in[0].shape.rank >= 0 && c->in[0].shape.rank < 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "input has shape %s; Trilu needs rank >= 2 (the last two dims "
                              "are the matrix)",
                              misc_shape(c, 0, b, sizeof b));
    if (misc_has(c, 1)) {
        if (c->in[1].dtype != CAIRN_I64)
            return ir_infer_error(c, CAIRN_ERR_DTYPE, "k (input 1) has type %s; it must be int64",
                                  cairn_dtype_name(c->in[1].dtype));
        int64_t ne = ir_shape_numel(&c->in[1].shape);
        if (c->in[1].shape.rank > 1 || (ne >= 0 && ne != 1))
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "k (input 1) has shape %s; it must be a scalar",
                                  misc_shape(c, 1, b, sizeof b));
    }
    int64_t up = ir_attr_i(c->node, TRILU_UPPER);
    if (up != 0 && up != 1)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT, "upper is %lld; it must be 0 or 1",
                              (long long)up);
    misc_same(c, 0, 0);
    return CAIRN_OK;
}

cairn_status_t op_misc_trilu_exec(MISC_EXEC_ARGS)
{
    (void)n_out, (void)ws, (void)k;
    int64_t kk = misc_has_t(in, n_in, 1) ? *(const int64_t *)in[1].data : 0;
    return kmisc_trilu(&in[0], &out[0], ir_attr_i(n, TRILU_UPPER) != 0, kk);
}

/* ---- Hardmax ---- */

cairn_status_t op_misc_hardmax_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    int r = c->in[0].shape.rank, axis;
    if (r >= 0)
        BASE_TRY(misc_axis(c, ir_attr_i(c->node, HARDMAX_AXIS), r, &axis, "axis"));
    misc_same(c, 0, 0);
    return CAIRN_OK;
}

cairn_status_t op_misc_hardmax_exec(MISC_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int axis;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, HARDMAX_AXIS), in[0].rank, &axis));
    return kmisc_hardmax(&in[0], &out[0], axis);
}

/* ---- EyeLike ---- */

static const cairn_dtype_t misc_eye_types[] = {
    CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,  CAIRN_I8, CAIRN_I16,
    CAIRN_I32, CAIRN_I64,  CAIRN_U8,  CAIRN_BOOL, CAIRN_DTYPE_UNDEFINED};

cairn_status_t op_misc_eyelike_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, misc_eye_types));
    char b[128];
    if (c->in[0].shape.rank >= 0 && c->in[0].shape.rank != 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "input has shape %s; EyeLike needs a 2-D input",
                              misc_shape(c, 0, b, sizeof b));
    cairn_dtype_t dt = c->in[0].dtype;
    if (ir_attr_at(c->node, EYE_DTYPE)) {
        int64_t v = ir_attr_i(c->node, EYE_DTYPE);
        int ok = 0;
        for (int i = 0; misc_eye_types[i] != CAIRN_DTYPE_UNDEFINED; i++)
            ok |= (int64_t)misc_eye_types[i] == v;
        if (!ok)
            return ir_infer_error(c, CAIRN_ERR_DTYPE,
                                  "dtype attribute %lld is not a type EyeLike can produce "
                                  "(numeric or bool ONNX type ids)",
                                  (long long)v);
        dt = (cairn_dtype_t)v;
    }
    misc_same(c, 0, 0);
    c->out[0].dtype = dt;
    return CAIRN_OK;
}

cairn_status_t op_misc_eyelike_exec(MISC_EXEC_ARGS)
{
    (void)in, (void)n_in, (void)n_out, (void)ws, (void)k;
    return kmisc_eyelike(&out[0], ir_attr_i(n, EYE_K));
}

/* ---- OneHot ---- */

/* The depth value, or -1 (unknown) / an error for a bad one. */
static cairn_status_t onehot_depth(const ir_infer_ctx_t *c, int64_t *depth)
{
    *depth = -1;
    if (!ir_infer_value(c, 1))
        return c->partial ? CAIRN_OK : CAIRN_ERR_UNSUPPORTED;
    double v = base_load_as_double(c->in_data[1], c->in[1].dtype, 0);
    if (!(v >= 1) || v > 1e12)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "depth (input 1) is %g; it must be a positive number of classes "
                              "(at most 1e12)",
                              v);
    *depth = base_dtype_is_float(c->in[1].dtype) ? (int64_t)v : ir_infer_value_i64(c, 1, 0);
    return CAIRN_OK;
}

cairn_status_t op_misc_onehot_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_numeric));
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_numeric));
    BASE_TRY(ir_infer_check_dtype(c, 2, ir_dtypes_all));
    char b[128];
    int64_t dn = ir_shape_numel(&c->in[1].shape);
    if (c->in[1].shape.rank > 1 || (dn >= 0 && dn != 1))
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "depth (input 1) has shape %s; it must hold exactly one value",
                              misc_shape(c, 1, b, sizeof b));
    const ir_shape_t *v = &c->in[2].shape;
    if (v->rank >= 0 && (v->rank != 1 || misc_dims_clash(v->d[0], 2)))
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "values (input 2) has shape %s; it must be [2] (off, on)",
                              misc_shape(c, 2, b, sizeof b));
    const ir_shape_t *ix = &c->in[0].shape;
    cairn_dtype_t dt = c->in[2].dtype;
    if (ix->rank < 0) {
        ir_infer_unknown(c, 0, dt, -1);
        return CAIRN_OK;
    }
    if (ix->rank + 1 > CAIRN_MAX_RANK)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "indices of rank %d give an output of rank %d; "
                              "cairn supports up to %d", ix->rank, ix->rank + 1, CAIRN_MAX_RANK);
    int axis = 0;
    BASE_TRY(misc_axis(c, ir_attr_i(c->node, ONEHOT_AXIS), ix->rank + 1, &axis, "axis"));
    int64_t depth;
    BASE_TRY(onehot_depth(c, &depth));
    c->out[0].dtype = dt;
    c->out[0].shape.rank = ix->rank + 1;
    for (int d = 0, s = 0; d <= ix->rank; d++)
        c->out[0].shape.d[d] = d == axis ? (depth >= 0 ? depth : IR_DIM_UNKNOWN) : ix->d[s++];
    return CAIRN_OK;
}

cairn_status_t op_misc_onehot_exec(MISC_EXEC_ARGS)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    /* inference fixed depth into the output shape */
    int axis;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, ONEHOT_AXIS), out[0].rank, &axis));
    return kmisc_onehot(&in[0], out[0].shape[axis], &in[2], axis, &out[0]);
}

/* ---- ThresholdedRelu, Shrink, Celu ---- */

cairn_status_t op_misc_pointwise_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    if (n->op == IR_OP_Shrink) {
        BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_numeric));
        float l = ir_attr_f(n, SHRINK_LAMBD), b = ir_attr_f(n, SHRINK_BIAS);
        if (isnan(l) || isnan(b))
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "bias %g and lambd %g must not be NaN", (double)b, (double)l);
    } else {
        BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
        float a = ir_attr_f(n, TRELU_ALPHA);
        if (isnan(a) || (n->op == IR_OP_Celu && a == 0.0f))
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "alpha is %g; it must be a number%s", (double)a,
                                  n->op == IR_OP_Celu ? " other than 0 (Celu divides by it)"
                                                      : "");
    }
    misc_same(c, 0, 0);
    return CAIRN_OK;
}

cairn_status_t op_misc_pointwise_exec(MISC_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    if (n->op == IR_OP_Shrink)
        return kmisc_pointwise(&in[0], &out[0], KMISC_SHRINK, ir_attr_f(n, SHRINK_BIAS),
                               ir_attr_f(n, SHRINK_LAMBD));
    return kmisc_pointwise(&in[0], &out[0],
                           n->op == IR_OP_Celu ? KMISC_CELU : KMISC_THRESHOLDED_RELU,
                           ir_attr_f(n, TRELU_ALPHA), 0);
}

void op_misc_pointwise_cost(MISC_COST_ARGS)
{
    (void)n_in, (void)n_out;
    double e = (double)kt_numel(&in[0]);
    /* compare+select; Shrink: 2 compares + add; Celu: div, exp, mul, max, min, add */
    cost->flops = e * (n->op == IR_OP_Celu ? 6.0 : n->op == IR_OP_Shrink ? 3.0 : 2.0);
    cost->bytes = misc_bytes(in, 1) + misc_bytes(out, 1);
}

/* ---- Compress ---- */

cairn_status_t op_misc_compress_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    if (c->in[1].dtype != CAIRN_BOOL)
        return ir_infer_error(c, CAIRN_ERR_DTYPE,
                              "condition (input 1) has type %s; it must be bool",
                              cairn_dtype_name(c->in[1].dtype));
    char b[128], b2[128];
    const ir_shape_t *x = &c->in[0].shape, *cs = &c->in[1].shape;
    if (cs->rank >= 0 && cs->rank != 1)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "condition (input 1) has shape %s; it must be 1-D",
                              misc_shape(c, 1, b, sizeof b));
    int has_axis = ir_attr_at(n, COMPRESS_AXIS) != NULL, axis = -1;
    int64_t len = IR_DIM_UNKNOWN;
    if (x->rank >= 0) {
        if (has_axis) {
            BASE_TRY(misc_axis(c, ir_attr_i(n, COMPRESS_AXIS), x->rank, &axis, "axis"));
            len = x->d[axis];
        } else {
            len = ir_shape_numel(x);
            len = len < 0 ? IR_DIM_UNKNOWN : len;
        }
        if (cs->rank == 1 && ir_dim_known(cs->d[0]) && ir_dim_known(len) && cs->d[0] > len)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "condition (input 1) has %lld entries but input %s has only "
                                  "%lld %s",
                                  (long long)cs->d[0], misc_shape(c, 0, b2, sizeof b2),
                                  (long long)len,
                                  has_axis ? "entries along the axis" : "elements in all");
    }
    int64_t count = IR_DIM_UNKNOWN;
    const uint8_t *cv = ir_infer_value(c, 1);
    if (!cv && !c->partial)
        return CAIRN_ERR_UNSUPPORTED;
    if (cv && cs->rank == 1 && ir_dim_known(cs->d[0])) {
        count = 0;
        for (int64_t i = 0; i < cs->d[0] && (!ir_dim_known(len) || i < len); i++)
            count += cv[i] != 0;
    }
    c->out[0].dtype = c->in[0].dtype;
    if (x->rank < 0) {
        c->out[0].shape.rank = has_axis ? -1 : 1;
        c->out[0].shape.d[0] = count;
        return CAIRN_OK;
    }
    if (!has_axis) {
        c->out[0].shape.rank = 1;
        c->out[0].shape.d[0] = count;
        return CAIRN_OK;
    }
    c->out[0].shape = *x;
    c->out[0].shape.d[axis] = count;
    return CAIRN_OK;
}

cairn_status_t op_misc_compress_exec(MISC_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int axis = -1;
    if (ir_attr_at(n, COMPRESS_AXIS))
        BASE_TRY(ir_norm_axis(ir_attr_i(n, COMPRESS_AXIS), in[0].rank, &axis));
    return kmisc_compress(&in[0], &in[1], axis, &out[0]);
}

/* ---- MeanVarianceNormalization ---- */

static const int64_t mvn_default_axes[3] = {0, 2, 3};

static const int64_t *mvn_axes(const ir_node_t *n, size_t *na)
{
    const int64_t *ax = ir_attr_ints(n, MVN_AXES, na);
    if (!ax) {
        *na = 3;
        return mvn_default_axes;
    }
    return ax;
}

/* Bit d set: dim d is reduced. Reports out-of-range and repeated axes. */
static cairn_status_t mvn_mask(const ir_node_t *n, int rank, unsigned *mask)
{
    size_t na;
    const int64_t *ax = mvn_axes(n, &na);
    *mask = 0;
    for (size_t i = 0; i < na; i++) {
        if (ax[i] < -rank || ax[i] >= rank)
            return base_error(CAIRN_ERR_SHAPE,
                              "axes[%zu] = %lld is out of range for an input of rank %d "
                              "(valid: %d..%d)%s",
                              i, (long long)ax[i], rank, -rank, rank - 1,
                              ir_attr_at(n, MVN_AXES) ? "" : "; the default axes are [0, 2, 3]");
        int d = (int)(ax[i] < 0 ? ax[i] + rank : ax[i]);
        if (*mask & (1u << d))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "axes repeat dim %d", d);
        *mask |= 1u << d;
    }
    return CAIRN_OK;
}

cairn_status_t op_misc_mvn_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    unsigned mask;
    if (c->in[0].shape.rank >= 0)
        BASE_TRY(mvn_mask(c->node, c->in[0].shape.rank, &mask));
    misc_same(c, 0, 0);
    return CAIRN_OK;
}

size_t op_misc_mvn_workspace(MISC_WS_ARGS)
{
    (void)n_in, (void)out, (void)n_out;
    unsigned mask;
    if (mvn_mask(n, in[0].rank, &mask) != CAIRN_OK)
        return 0;
    int64_t groups = 1;
    for (int d = 0; d < in[0].rank; d++)
        if (!(mask & (1u << d)))
            groups *= in[0].shape[d];
    return (size_t)(2 * groups) * sizeof(double);
}

cairn_status_t op_misc_mvn_exec(MISC_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)k;
    unsigned mask;
    BASE_TRY(mvn_mask(n, in[0].rank, &mask));
    return kmisc_mvn(&in[0], &out[0], mask, ws);
}

void op_misc_mvn_cost(MISC_COST_ARGS)
{
    (void)n, (void)n_in, (void)n_out;
    /* sum; subtract, square, sum; subtract, divide */
    cost->flops = 6.0 * (double)kt_numel(&in[0]);
    cost->bytes = misc_bytes(in, 1) + misc_bytes(out, 1);
}

/* ---- LRN ---- */

cairn_status_t op_misc_lrn_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    char b[128];
    if (c->in[0].shape.rank >= 0 && c->in[0].shape.rank < 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "input has shape %s; LRN needs (N, C, d1, ..., dk)",
                              misc_shape(c, 0, b, sizeof b));
    int64_t size = ir_attr_i(n, LRN_SIZE);
    if (size < 1 || size > (int64_t)1 << 40)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "size is %lld; it must be a positive number of channels",
                              (long long)size);
    float a = ir_attr_f(n, LRN_ALPHA), be = ir_attr_f(n, LRN_BETA), bi = ir_attr_f(n, LRN_BIAS);
    if (!isfinite(a) || !isfinite(be) || !isfinite(bi))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "alpha %g, beta %g and bias %g must be finite", (double)a,
                              (double)be, (double)bi);
    misc_same(c, 0, 0);
    return CAIRN_OK;
}

cairn_status_t op_misc_lrn_exec(MISC_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    return kmisc_lrn(&in[0], &out[0], ir_attr_i(n, LRN_SIZE), ir_attr_f(n, LRN_ALPHA),
                     ir_attr_f(n, LRN_BETA), ir_attr_f(n, LRN_BIAS));
}

void op_misc_lrn_cost(MISC_COST_ARGS)
{
    (void)n_in, (void)n_out;
    double e = (double)kt_numel(&in[0]);
    /* a multiply-add per window element, then scale, pow, divide */
    cost->flops = e * (2.0 * (double)ir_attr_i(n, LRN_SIZE) + 3.0);
    cost->bytes = misc_bytes(in, 1) + misc_bytes(out, 1);
}
