/*
 * Normalisation ops: Softmax, LogSoftmax (opset-13 semantics: one `axis`,
 * default -1), LayerNormalization (opset 17), RMSNormalization (opset 23),
 * BatchNormalization (opset 15, inference mode only) and
 * InstanceNormalization. Inference checks dtypes,
 * axes and parameter shapes as far as they are known; exec translates
 * attributes into the kernel parameters of src/kernels/norm.
 */
#include "ir/op_table.h"
#include "kernels/norm/fast.h"
#include "kernels/norm/norm.h"

#include <math.h>
#include <string.h>

cairn_status_t op_norm_softmax_infer(ir_infer_ctx_t *c);
cairn_status_t op_norm_softmax_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_norm_softmax_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                          const ktensor_t *out, int n_out, ir_cost_t *cost);
cairn_status_t op_norm_layer_infer(ir_infer_ctx_t *c);
cairn_status_t op_norm_layer_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_norm_layer_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost);
size_t op_norm_layer_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                               const ktensor_t *out, int n_out);
cairn_status_t op_norm_rms_infer(ir_infer_ctx_t *c);
cairn_status_t op_norm_rms_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_norm_rms_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                      int n_out, ir_cost_t *cost);
size_t op_norm_rms_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                             const ktensor_t *out, int n_out);
cairn_status_t op_norm_batch_infer(ir_infer_ctx_t *c);
cairn_status_t op_norm_batch_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_norm_batch_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost);
size_t op_norm_batch_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                               const ktensor_t *out, int n_out);
cairn_status_t op_norm_inst_infer(ir_infer_ctx_t *c);
cairn_status_t op_norm_inst_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                 ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_norm_inst_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                       int n_out, ir_cost_t *cost);

enum { SOFTMAX_AXIS };
const ir_attr_def_t op_norm_softmax_attrs[] = {IR_ATTR_INT("axis", -1), IR_ATTR_END};

enum { LAYER_AXIS, LAYER_EPSILON, LAYER_STASH_TYPE };
const ir_attr_def_t op_norm_layer_attrs[] = {IR_ATTR_INT("axis", -1),
                                             IR_ATTR_FLOAT("epsilon", 1e-5f),
                                             IR_ATTR_INT("stash_type", 1), IR_ATTR_END};

/* the same schema as LayerNormalization's (ONNX opset 23) */
enum { RMS_AXIS, RMS_EPSILON, RMS_STASH_TYPE };
const ir_attr_def_t op_norm_rms_attrs[] = {IR_ATTR_INT("axis", -1),
                                           IR_ATTR_FLOAT("epsilon", 1e-5f),
                                           IR_ATTR_INT("stash_type", 1), IR_ATTR_END};

enum { BATCH_EPSILON, BATCH_MOMENTUM, BATCH_TRAINING_MODE };
const ir_attr_def_t op_norm_batch_attrs[] = {IR_ATTR_FLOAT("epsilon", 1e-5f),
                                             IR_ATTR_FLOAT("momentum", 0.9f),
                                             IR_ATTR_INT("training_mode", 0), IR_ATTR_END};

enum { INST_EPSILON };
const ir_attr_def_t op_norm_inst_attrs[] = {IR_ATTR_FLOAT("epsilon", 1e-5f), IR_ATTR_END};

static int norm_has_input(const ir_infer_ctx_t *c, int i)
{
    return i < c->n_in && c->in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}

/* How many outputs to type. Graph building (ir_graph_add_node) currently
 * runs inference before it sets the node's output count, so c->n_out is 0
 * there (the type array has room for 64): then type every output the op
 * can have, so none of the node's outputs is left without a type. */
static int norm_n_out(const ir_infer_ctx_t *c)
{
    return c->n_out ? c->n_out : ir_op_def(c->node->op)->max_out;
}

static double norm_bytes(const ktensor_t *t, int n)
{
    double b = 0;
    for (int i = 0; i < n; i++)
        if (t[i].dtype != CAIRN_DTYPE_UNDEFINED)
            b += (double)kt_numel(&t[i]) * (double)cairn_dtype_size(t[i].dtype);
    return b;
}

static cairn_status_t norm_check_epsilon(const ir_infer_ctx_t *c, float eps)
{
    if (!(eps >= 0.0f) || isinf(eps))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "epsilon is %g; it must be a finite value >= 0", (double)eps);
    return CAIRN_OK;
}

/* ---- Softmax, LogSoftmax ---- */

cairn_status_t op_norm_softmax_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    const ir_shape_t *s = &c->in[0].shape;
    if (s->rank >= 0) {
        int axis;
        if (ir_norm_axis(ir_attr_i(c->node, SOFTMAX_AXIS), s->rank, &axis) != CAIRN_OK)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "axis %lld is out of range for an input of rank %d "
                                  "(valid: %d..%d)",
                                  (long long)ir_attr_i(c->node, SOFTMAX_AXIS), s->rank,
                                  -s->rank, s->rank - 1);
    }
    c->out[0] = c->in[0];
    return CAIRN_OK;
}

cairn_status_t op_norm_softmax_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    int axis;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, SOFTMAX_AXIS), in[0].rank, &axis));
    if (knorm_softmax_f32_fast(NULL, &in[0], &out[0], axis, n->op == IR_OP_LogSoftmax, k))
        return CAIRN_OK;
    return knorm_softmax(&in[0], &out[0], axis, n->op == IR_OP_LogSoftmax, k);
}

void op_norm_softmax_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                          const ktensor_t *out, int n_out, ir_cost_t *cost)
{
    /* max, subtract, exp, sum, scale: an exp counted as one op */
    cost->flops = 5.0 * (double)kt_numel(&in[0]);
    cost->bytes = norm_bytes(in, 1) + norm_bytes(out, 1);
}

/* ---- LayerNormalization ---- */

/* Checks that parameter input i broadcasts unidirectionally to x's dims
 * [axis, rank) as far as both are known. */
static cairn_status_t norm_check_bcast(const ir_infer_ctx_t *c, int i, int axis, const char *what)
{
    const ir_shape_t *x = &c->in[0].shape, *p = &c->in[i].shape;
    if (x->rank < 0 || p->rank < 0)
        return CAIRN_OK;
    int nd = x->rank - axis;
    if (p->rank > nd)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "%s has rank %d but only %d dims are normalised (axis %d of rank "
                              "%d); it must broadcast to the normalised shape",
                              what, p->rank, nd, axis, x->rank);
    for (int d = 0; d < p->rank; d++) {
        int64_t pd = p->d[d], xd = x->d[axis + nd - p->rank + d];
        if (ir_dim_known(pd) && ir_dim_known(xd) && pd != 1 && pd != xd) {
            char sb[128], xb[128];
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "%s shape %s does not broadcast to the normalised dims of X %s "
                                  "from axis %d (dim %d: %lld vs %lld)",
                                  what, ir_shape_str(c->graph, p, sb, sizeof sb),
                                  ir_shape_str(c->graph, x, xb, sizeof xb), axis, d,
                                  (long long)pd, (long long)xd);
        }
    }
    return CAIRN_OK;
}

cairn_status_t op_norm_layer_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    if (!norm_has_input(c, 1))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "input 1 (Scale) is missing; LayerNormalization requires it");
    BASE_TRY(ir_infer_same_dtype(c, 0, 1));
    if (norm_has_input(c, 2))
        BASE_TRY(ir_infer_same_dtype(c, 0, 2));
    BASE_TRY(norm_check_epsilon(c, ir_attr_f(n, LAYER_EPSILON)));
    int64_t stash = ir_attr_i(n, LAYER_STASH_TYPE);
    cairn_dtype_t u;
    if (stash == CAIRN_F32)
        u = CAIRN_F32;
    else if (stash == CAIRN_BF16)
        u = CAIRN_BF16;
    else
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "stash_type %lld is not allowed: LayerNormalization takes 1 "
                              "(float) or 16 (bfloat16)",
                              (long long)stash);
    const ir_shape_t *x = &c->in[0].shape;
    c->out[0] = c->in[0];
    if (x->rank < 0) {
        for (int o = 1; o < norm_n_out(c); o++)
            ir_infer_unknown(c, o, u, -1);
        return CAIRN_OK;
    }
    int axis;
    int64_t a = ir_attr_i(n, LAYER_AXIS);
    if (ir_norm_axis(a, x->rank, &axis) != CAIRN_OK)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "axis %lld is out of range for X of rank %d (valid: %d..%d)",
                              (long long)a, x->rank, -x->rank, x->rank - 1);
    BASE_TRY(norm_check_bcast(c, 1, axis, "Scale"));
    if (norm_has_input(c, 2))
        BASE_TRY(norm_check_bcast(c, 2, axis, "B"));
    for (int o = 1; o < norm_n_out(c); o++) {
        c->out[o].dtype = u;
        c->out[o].shape.rank = x->rank;
        for (int d = 0; d < x->rank; d++)
            c->out[o].shape.d[d] = d < axis ? x->d[d] : 1;
    }
    return CAIRN_OK;
}

size_t op_norm_layer_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                               const ktensor_t *out, int n_out)
{
    int axis;
    if (ir_norm_axis(ir_attr_i(n, LAYER_AXIS), in[0].rank, &axis) != CAIRN_OK)
        return 0;
    return knorm_layernorm_ws_bytes(&in[0], axis);
}

cairn_status_t op_norm_layer_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    knorm_layer_params_t p;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, LAYER_AXIS), in[0].rank, &p.axis));
    p.epsilon = ir_attr_f(n, LAYER_EPSILON);
    if (knorm_layernorm_f32_fast(NULL, &in[0], &in[1], n_in > 2 ? &in[2] : NULL, &out[0],
                                 n_out > 1 ? &out[1] : NULL, n_out > 2 ? &out[2] : NULL, &p, k))
        return CAIRN_OK;
    return knorm_layernorm(&in[0], &in[1], n_in > 2 ? &in[2] : NULL, &out[0],
                           n_out > 1 ? &out[1] : NULL, n_out > 2 ? &out[2] : NULL, &p, ws, k);
}

void op_norm_layer_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost)
{
    /* sum; subtract, square, sum; subtract, scale by inv-std, scale, shift */
    cost->flops = 8.0 * (double)kt_numel(&in[0]);
    cost->bytes = norm_bytes(in, n_in) + norm_bytes(out, n_out);
}

/* ---- RMSNormalization ---- */

cairn_status_t op_norm_rms_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    if (!norm_has_input(c, 1))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "input 1 (scale) is missing; RMSNormalization requires it");
    BASE_TRY(ir_infer_same_dtype(c, 0, 1));
    BASE_TRY(norm_check_epsilon(c, ir_attr_f(n, RMS_EPSILON)));
    int64_t stash = ir_attr_i(n, RMS_STASH_TYPE);
    /* the kernels compute the statistics in double (reference) or f32
     * (fast), at least as precise as either stash type asks */
    if (stash != CAIRN_F32 && stash != CAIRN_BF16)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "stash_type %lld is not allowed: RMSNormalization takes 1 "
                              "(float) or 16 (bfloat16)",
                              (long long)stash);
    const ir_shape_t *x = &c->in[0].shape;
    c->out[0] = c->in[0];
    if (x->rank < 0)
        return CAIRN_OK;
    int axis;
    int64_t a = ir_attr_i(n, RMS_AXIS);
    if (ir_norm_axis(a, x->rank, &axis) != CAIRN_OK)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "axis %lld is out of range for X of rank %d (valid: %d..%d)",
                              (long long)a, x->rank, -x->rank, x->rank - 1);
    return norm_check_bcast(c, 1, axis, "scale");
}

size_t op_norm_rms_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                             const ktensor_t *out, int n_out)
{
    int axis;
    if (ir_norm_axis(ir_attr_i(n, RMS_AXIS), in[0].rank, &axis) != CAIRN_OK)
        return 0;
    return knorm_rmsnorm_ws_bytes(&in[0], axis);
}

cairn_status_t op_norm_rms_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    knorm_layer_params_t p;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, RMS_AXIS), in[0].rank, &p.axis));
    p.epsilon = ir_attr_f(n, RMS_EPSILON);
    if (knorm_rmsnorm_f32_fast(NULL, &in[0], &in[1], &out[0], &p, k))
        return CAIRN_OK;
    return knorm_rmsnorm(&in[0], &in[1], &out[0], &p, ws, k);
}

void op_norm_rms_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                      int n_out, ir_cost_t *cost)
{
    /* square-and-sum (a multiply-add), scale by 1/rms, scale */
    cost->flops = 4.0 * (double)kt_numel(&in[0]);
    cost->bytes = norm_bytes(in, n_in) + norm_bytes(out, n_out);
}

/* ---- BatchNormalization, InstanceNormalization ---- */

/* Checks input i is a vector of C = dim 1 of X, as far as known. */
static cairn_status_t norm_check_channel_vec(const ir_infer_ctx_t *c, int i, const char *what)
{
    const ir_shape_t *x = &c->in[0].shape, *p = &c->in[i].shape;
    if (p->rank < 0)
        return CAIRN_OK;
    if (p->rank != 1)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "%s must have shape (C), got rank %d", what,
                              p->rank);
    if (x->rank >= 2 && ir_dim_known(x->d[1]) && ir_dim_known(p->d[0]) && p->d[0] != x->d[1])
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "%s has %lld elements but X has C = %lld channels (dim 1)", what,
                              (long long)p->d[0], (long long)x->d[1]);
    return CAIRN_OK;
}

cairn_status_t op_norm_batch_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    int64_t tm = ir_attr_i(n, BATCH_TRAINING_MODE);
    if (tm == 1)
        return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED,
                              "training_mode=1 is not supported: cairn runs BatchNormalization "
                              "in inference mode only (export the model in eval mode, "
                              "training_mode=0)");
    if (tm != 0)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "training_mode is %lld; it must be 0 or 1", (long long)tm);
    if (c->n_out > 1)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "%d outputs requested, but running_mean and running_var exist only "
                              "with training_mode=1; in inference mode the node has one output",
                              c->n_out);
    BASE_TRY(norm_check_epsilon(c, ir_attr_f(n, BATCH_EPSILON)));
    for (int i = 0; i < 5; i++)
        if (!norm_has_input(c, i))
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "input %d is missing; BatchNormalization needs X, scale, B, "
                                  "input_mean and input_var", i);
    for (int i = 0; i < 5; i++)
        BASE_TRY(ir_infer_check_dtype(c, i, ir_dtypes_float));
    BASE_TRY(ir_infer_same_dtype(c, 1, 2));
    BASE_TRY(ir_infer_same_dtype(c, 3, 4));
    const ir_shape_t *x = &c->in[0].shape;
    if (x->rank >= 0 && x->rank < 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "X must be (N, C, ...) with rank >= 2, got rank %d", x->rank);
    static const char *const names[5] = {"X", "scale", "B", "input_mean", "input_var"};
    for (int i = 1; i < 5; i++)
        BASE_TRY(norm_check_channel_vec(c, i, names[i]));
    c->out[0] = c->in[0];
    for (int o = 1; o < norm_n_out(c); o++) /* only while c->n_out is 0, see norm_n_out */
        c->out[o] = c->in[3];
    return CAIRN_OK;
}

size_t op_norm_batch_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                               const ktensor_t *out, int n_out)
{
    return knorm_batchnorm_ws_bytes(&in[0]);
}

cairn_status_t op_norm_batch_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    return knorm_batchnorm(&in[0], &in[1], &in[2], &in[3], &in[4], &out[0],
                           ir_attr_f(n, BATCH_EPSILON), ws, k);
}

void op_norm_batch_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost)
{
    /* one multiply-add per element after folding the parameters per channel */
    double c = in[0].rank >= 2 ? (double)in[0].shape[1] : 0;
    cost->flops = 2.0 * (double)kt_numel(&in[0]) + 4.0 * c;
    cost->bytes = norm_bytes(in, n_in) + norm_bytes(out, 1);
}

cairn_status_t op_norm_inst_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(norm_check_epsilon(c, ir_attr_f(c->node, INST_EPSILON)));
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    if (!norm_has_input(c, 1) || !norm_has_input(c, 2))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "InstanceNormalization needs X, scale and B; input %d is missing",
                              norm_has_input(c, 1) ? 2 : 1);
    BASE_TRY(ir_infer_same_dtype(c, 0, 1));
    BASE_TRY(ir_infer_same_dtype(c, 0, 2));
    const ir_shape_t *x = &c->in[0].shape;
    if (x->rank >= 0 && x->rank < 3)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "X must be (N, C, D1, ...) with rank >= 3, got rank %d", x->rank);
    BASE_TRY(norm_check_channel_vec(c, 1, "scale"));
    BASE_TRY(norm_check_channel_vec(c, 2, "B"));
    c->out[0] = c->in[0];
    return CAIRN_OK;
}

cairn_status_t op_norm_inst_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                 ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    return knorm_instancenorm(&in[0], &in[1], &in[2], &out[0], ir_attr_f(n, INST_EPSILON), k);
}

void op_norm_inst_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                       int n_out, ir_cost_t *cost)
{
    cost->flops = 7.0 * (double)kt_numel(&in[0]);
    cost->bytes = norm_bytes(in, n_in) + norm_bytes(out, 1);
}
