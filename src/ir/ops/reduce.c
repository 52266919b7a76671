/*
 * Reduction ops: the ten Reduce* ops, ArgMax/ArgMin, CumSum and TopK —
 * schemas, type/shape inference, cost, workspace and the adapters from
 * nodes to the kernels in src/kernels/reduce/.
 *
 * Opset 17: ReduceSum takes its axes as optional input 1 (int64) with
 * noop_with_empty_axes; the other Reduce* ops take an `axes` attribute. As
 * an extension (the opset-18 form) they also accept axes as input 1 and
 * noop_with_empty_axes; giving both the attribute and the input is an
 * error. Empty axes reduce everything unless noop_with_empty_axes = 1, in
 * which case every element is reduced on its own (ReduceSum: identity;
 * ReduceSumSquare: x*x, ReduceL1/L2: |x|, ...).
 */
#include "ir/op_table.h"
#include "kernels/reduce/reduce.h"

#include <math.h>
#include <string.h>

/* ---- schemas ---- */

enum { RS_KEEPDIMS, RS_NOOP };                   /* ReduceSum */
enum { RA_AXES, RA_KEEPDIMS, RA_NOOP };          /* the other Reduce* */
enum { AM_AXIS, AM_KEEPDIMS, AM_SELECT_LAST };   /* ArgMax, ArgMin */
enum { CS_EXCLUSIVE, CS_REVERSE };               /* CumSum */
enum { TK_AXIS, TK_LARGEST, TK_SORTED };         /* TopK */

const ir_attr_def_t op_reduce_sum_attrs[] = {
    IR_ATTR_INT("keepdims", 1), IR_ATTR_INT("noop_with_empty_axes", 0), IR_ATTR_END};
const ir_attr_def_t op_reduce_attrs[] = {IR_ATTR_INTS("axes"), IR_ATTR_INT("keepdims", 1),
                                         IR_ATTR_INT("noop_with_empty_axes", 0), IR_ATTR_END};
const ir_attr_def_t op_reduce_arg_attrs[] = {IR_ATTR_INT("axis", 0), IR_ATTR_INT("keepdims", 1),
                                             IR_ATTR_INT("select_last_index", 0), IR_ATTR_END};
const ir_attr_def_t op_reduce_cumsum_attrs[] = {IR_ATTR_INT("exclusive", 0),
                                                IR_ATTR_INT("reverse", 0), IR_ATTR_END};
const ir_attr_def_t op_reduce_topk_attrs[] = {IR_ATTR_INT("axis", -1), IR_ATTR_INT("largest", 1),
                                              IR_ATTR_INT("sorted", 1), IR_ATTR_END};

cairn_status_t op_reduce_infer(ir_infer_ctx_t *c);
cairn_status_t op_reduce_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                              int n_out, void *ws, const kctx_t *k);
void op_reduce_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                    int n_out, ir_cost_t *cost);
cairn_status_t op_reduce_arg_infer(ir_infer_ctx_t *c);
cairn_status_t op_reduce_arg_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_reduce_arg_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost);
cairn_status_t op_reduce_cumsum_infer(ir_infer_ctx_t *c);
cairn_status_t op_reduce_cumsum_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k);
cairn_status_t op_reduce_topk_infer(ir_infer_ctx_t *c);
cairn_status_t op_reduce_topk_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_reduce_topk_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost);
size_t op_reduce_topk_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                                const ktensor_t *out, int n_out);

/* Dtypes per the opset-13 type constraints, less the unsigned types cairn
 * lacks; ReduceMax/Min also allow int8 and uint8. */
static const cairn_dtype_t reduce_dtypes[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                              CAIRN_I32, CAIRN_I64, CAIRN_DTYPE_UNDEFINED};
static const cairn_dtype_t reduce_minmax_dtypes[] = {
    CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64, CAIRN_I32,
    CAIRN_I64, CAIRN_I8,   CAIRN_U8,  CAIRN_DTYPE_UNDEFINED};
static const cairn_dtype_t reduce_i64_only[] = {CAIRN_I64, CAIRN_DTYPE_UNDEFINED};

static int is_sum(const ir_node_t *n) { return n->op == IR_OP_ReduceSum; }
static int slot_keepdims(const ir_node_t *n) { return is_sum(n) ? RS_KEEPDIMS : RA_KEEPDIMS; }
static int slot_noop(const ir_node_t *n) { return is_sum(n) ? RS_NOOP : RA_NOOP; }

static cairn_status_t check_flag(const ir_node_t *n, int slot, const char *name)
{
    int64_t v = ir_attr_i(n, slot);
    if (v != 0 && v != 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "attribute %s = %lld must be 0 or 1", name,
                          (long long)v);
    return CAIRN_OK;
}

static kreduce_op_t kop_of(int op)
{
    switch (op) {
    case IR_OP_ReduceMean: return KREDUCE_MEAN;
    case IR_OP_ReduceMax: return KREDUCE_MAX;
    case IR_OP_ReduceMin: return KREDUCE_MIN;
    case IR_OP_ReduceProd: return KREDUCE_PROD;
    case IR_OP_ReduceL1: return KREDUCE_L1;
    case IR_OP_ReduceL2: return KREDUCE_L2;
    case IR_OP_ReduceLogSum: return KREDUCE_LOGSUM;
    case IR_OP_ReduceLogSumExp: return KREDUCE_LOGSUMEXP;
    case IR_OP_ReduceSumSquare: return KREDUCE_SUMSQUARE;
    default: return KREDUCE_SUM;
    }
}

/* The axes list -> bit mask, checking range and repeats. Empty: all axes,
 * or none when noop. */
static cairn_status_t axes_to_mask(int rank, const int64_t *axes, int64_t n, int noop,
                                   uint32_t *mask)
{
    uint32_t m = 0;
    if (n == 0) {
        *mask = noop ? 0u : (rank > 0 ? (uint32_t)((1u << rank) - 1u) : 0u);
        return CAIRN_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t a = axes[i];
        if (a < -rank || a >= rank)
            return base_error(CAIRN_ERR_SHAPE,
                              "axes[%lld] = %lld is out of range for an input of rank %d "
                              "(valid: %d..%d)",
                              (long long)i, (long long)a, rank, -rank, rank - 1);
        int d = (int)(a < 0 ? a + rank : a);
        if (m >> d & 1)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "axes lists dimension %d twice (axes[%lld] = %lld repeats it); "
                              "each axis may appear once",
                              d, (long long)i, (long long)a);
        m |= 1u << d;
    }
    *mask = m;
    return CAIRN_OK;
}

static int has_axes_input(int n_in, const cairn_dtype_t in1)
{
    return n_in > 1 && in1 != CAIRN_DTYPE_UNDEFINED;
}

/* ---- Reduce* ---- */

cairn_status_t op_reduce_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    const ir_type_t *x = &c->in[0];
    int keep = (int)ir_attr_i(n, slot_keepdims(n)), noop = (int)ir_attr_i(n, slot_noop(n));
    BASE_TRY(check_flag(n, slot_keepdims(n), "keepdims"));
    BASE_TRY(check_flag(n, slot_noop(n), "noop_with_empty_axes"));
    BASE_TRY(ir_infer_check_dtype(c, 0, n->op == IR_OP_ReduceMax || n->op == IR_OP_ReduceMin
                                            ? reduce_minmax_dtypes
                                            : reduce_dtypes));
    const int64_t *axes = NULL;
    int64_t n_axes = 0;
    int known = 1;
    int in_axes = has_axes_input(c->n_in, c->n_in > 1 ? c->in[1].dtype : CAIRN_DTYPE_UNDEFINED);
    if (!is_sum(n)) {
        size_t cnt = 0;
        axes = ir_attr_ints(n, RA_AXES, &cnt);
        n_axes = (int64_t)cnt;
        if (ir_attr_at(n, RA_AXES) && in_axes)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "axes is given both as an attribute and as input 1; give one");
    }
    if (in_axes) {
        const ir_type_t *a = &c->in[1];
        BASE_TRY(ir_infer_check_dtype(c, 1, reduce_i64_only));
        if (a->shape.rank >= 0 && a->shape.rank != 1)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "axes (input 1) must be 1-D, got rank %d",
                                  a->shape.rank);
        if (a->shape.rank == 1 && a->shape.d[0] == 0) {
            n_axes = 0;
        } else {
            const void *p = ir_infer_value(c, 1);
            if (!p) {
                if (!c->partial)
                    return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED,
                                          "axes (input 1) must be a constant (or computable from "
                                          "shapes): cairn needs it to know the output shape");
                known = 0;
            } else {
                axes = p;
                n_axes = a->shape.d[0];
            }
        }
    }
    if (x->shape.rank < 0) {
        ir_infer_unknown(c, 0, x->dtype, -1);
        return CAIRN_OK;
    }
    int rank = x->shape.rank;
    if (!known) {
        /* which dims go is unknown: with keepdims only the rank is known */
        if (keep)
            ir_infer_unknown(c, 0, x->dtype, rank);
        else
            ir_infer_unknown(c, 0, x->dtype, -1);
        return CAIRN_OK;
    }
    uint32_t mask;
    BASE_TRY(axes_to_mask(rank, axes, n_axes, noop, &mask));
    ir_type_t *y = &c->out[0];
    y->dtype = x->dtype;
    y->shape.rank = 0;
    for (int d = 0; d < rank; d++) {
        if (!(mask >> d & 1))
            y->shape.d[y->shape.rank++] = x->shape.d[d];
        else if (keep)
            y->shape.d[y->shape.rank++] = 1;
    }
    return CAIRN_OK;
}

cairn_status_t op_reduce_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                              int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    const int64_t *axes = NULL;
    int64_t n_axes = 0;
    if (!is_sum(n)) {
        size_t cnt = 0;
        axes = ir_attr_ints(n, RA_AXES, &cnt);
        n_axes = (int64_t)cnt;
    }
    if (has_axes_input(n_in, n_in > 1 ? in[1].dtype : CAIRN_DTYPE_UNDEFINED)) {
        axes = in[1].data;
        n_axes = kt_numel(&in[1]);
    }
    uint32_t mask;
    BASE_TRY(axes_to_mask(in[0].rank, axes, n_axes, (int)ir_attr_i(n, slot_noop(n)), &mask));
    return kreduce_ref(kop_of(n->op), &in[0], mask, &out[0], k);
}

static double tensor_bytes(const ktensor_t *t, int n)
{
    double b = 0;
    for (int i = 0; i < n; i++)
        if (t[i].dtype != CAIRN_DTYPE_UNDEFINED)
            b += (double)kt_numel(&t[i]) * (double)cairn_dtype_size(t[i].dtype);
    return b;
}

void op_reduce_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                    int n_out, ir_cost_t *cost)
{
    double per = 1; /* one add / compare / multiply per input element */
    switch (kop_of(n->op)) {
    case KREDUCE_L2: case KREDUCE_SUMSQUARE: case KREDUCE_L1: per = 2; break;
    case KREDUCE_LOGSUMEXP: per = 4; break; /* max pass, subtract, exp, add */
    default: break;
    }
    cost->flops = per * (double)kt_numel(&in[0]);
    cost->bytes = tensor_bytes(in, n_in) + tensor_bytes(out, n_out);
}

/* ---- ArgMax, ArgMin ---- */

cairn_status_t op_reduce_arg_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    const ir_type_t *x = &c->in[0];
    BASE_TRY(check_flag(n, AM_KEEPDIMS, "keepdims"));
    BASE_TRY(check_flag(n, AM_SELECT_LAST, "select_last_index"));
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_numeric));
    int keep = (int)ir_attr_i(n, AM_KEEPDIMS);
    if (x->shape.rank < 0) {
        ir_infer_unknown(c, 0, CAIRN_I64, -1);
        return CAIRN_OK;
    }
    int axis;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, AM_AXIS), x->shape.rank, &axis));
    if (x->shape.d[axis] == 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "axis %d has size 0: there is no element to pick an index of", axis);
    ir_type_t *y = &c->out[0];
    y->dtype = CAIRN_I64;
    y->shape.rank = 0;
    for (int d = 0; d < x->shape.rank; d++) {
        if (d != axis)
            y->shape.d[y->shape.rank++] = x->shape.d[d];
        else if (keep)
            y->shape.d[y->shape.rank++] = 1;
    }
    return CAIRN_OK;
}

cairn_status_t op_reduce_arg_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws;
    int axis;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, AM_AXIS), in[0].rank, &axis));
    return kargreduce_ref(n->op == IR_OP_ArgMax, &in[0], axis, (int)ir_attr_i(n, AM_SELECT_LAST),
                          &out[0], k);
}

void op_reduce_arg_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost)
{
    (void)n;
    cost->flops = (double)kt_numel(&in[0]);
    cost->bytes = tensor_bytes(in, n_in) + tensor_bytes(out, n_out);
}

/* ---- CumSum ---- */

static const cairn_dtype_t cumsum_dtypes[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                              CAIRN_I32, CAIRN_I64, CAIRN_DTYPE_UNDEFINED};

cairn_status_t op_reduce_cumsum_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    BASE_TRY(check_flag(n, CS_EXCLUSIVE, "exclusive"));
    BASE_TRY(check_flag(n, CS_REVERSE, "reverse"));
    BASE_TRY(ir_infer_check_dtype(c, 0, cumsum_dtypes));
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_index));
    const ir_shape_t *as = &c->in[1].shape;
    /* the spec says 0-D; a 1-element 1-D tensor is accepted too */
    if (as->rank > 1 || (as->rank == 1 && ir_dim_known(as->d[0]) && as->d[0] != 1))
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "axis (input 1) must be a scalar (0-D tensor), got rank %d%s",
                              as->rank, as->rank == 1 ? " with more than one element" : "");
    if (c->in[0].shape.rank == 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "input 0 must have rank >= 1 (it is a scalar)");
    if (c->in_data[1] && c->in[0].shape.rank > 0) {
        int axis;
        BASE_TRY(ir_norm_axis(ir_infer_value_i64(c, 1, 0), c->in[0].shape.rank, &axis));
    }
    c->out[0] = c->in[0];
    return CAIRN_OK;
}

cairn_status_t op_reduce_cumsum_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws;
    if (kt_numel(&in[1]) != 1 || !in[1].data)
        return base_error(CAIRN_ERR_RUNTIME, "axis (input 1) must hold one value, it holds %lld",
                          (long long)kt_numel(&in[1]));
    int64_t a = in[1].dtype == CAIRN_I64 ? *(const int64_t *)in[1].data
                                         : (int64_t) * (const int32_t *)in[1].data;
    int rank = in[0].rank;
    if (a < -rank || a >= rank)
        return base_error(CAIRN_ERR_RUNTIME,
                          "axis = %lld is out of range for an input of rank %d (valid: %d..%d)",
                          (long long)a, rank, -rank, rank - 1);
    int axis = (int)(a < 0 ? a + rank : a);
    return kcumsum_ref(&in[0], axis, (int)ir_attr_i(n, CS_EXCLUSIVE), (int)ir_attr_i(n, CS_REVERSE),
                       &out[0], k);
}

/* ---- TopK ---- */

cairn_status_t op_reduce_topk_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    const ir_type_t *x = &c->in[0];
    BASE_TRY(check_flag(n, TK_LARGEST, "largest"));
    BASE_TRY(check_flag(n, TK_SORTED, "sorted"));
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_numeric));
    BASE_TRY(ir_infer_check_dtype(c, 1, reduce_i64_only));
    const ir_shape_t *ks = &c->in[1].shape;
    if (ks->rank > 1 || (ks->rank == 1 && ir_dim_known(ks->d[0]) && ks->d[0] != 1))
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "K (input 1) must be a 1-D tensor of one element, got rank %d%s",
                              ks->rank, ks->rank == 1 ? " with more than one element" : "");
    int64_t kk = IR_DIM_UNKNOWN;
    const void *kp = ir_infer_value(c, 1); /* records the need at plan time */
    if (!kp && !c->partial)
        return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED,
                              "K (input 1) must be a constant (or computable from shapes): "
                              "cairn needs it when planning to know the output shape; it comes "
                              "from a graph input or a computed value here");
    if (kp) {
        kk = ir_infer_value_i64(c, 1, 0);
        if (kk < 0)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "K = %lld must not be negative",
                                  (long long)kk);
    }
    if (x->shape.rank < 0) {
        ir_infer_unknown(c, 0, x->dtype, -1);
        ir_infer_unknown(c, 1, CAIRN_I64, -1);
        return CAIRN_OK;
    }
    int axis;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, TK_AXIS), x->shape.rank, &axis));
    int64_t dim = x->shape.d[axis];
    if (kk >= 0 && ir_dim_known(dim) && kk > dim)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "K = %lld is larger than the size %lld of axis %d; K must be at "
                              "most %lld",
                              (long long)kk, (long long)dim, axis, (long long)dim);
    c->out[0].dtype = x->dtype;
    c->out[0].shape = x->shape;
    c->out[0].shape.d[axis] = kk;
    c->out[1].dtype = CAIRN_I64;
    c->out[1].shape = c->out[0].shape;
    return CAIRN_OK;
}

static int topk_axis(const ir_node_t *n, const ktensor_t *x)
{
    int axis = 0;
    if (ir_norm_axis(ir_attr_i(n, TK_AXIS), x->rank, &axis) != CAIRN_OK)
        return -1;
    return axis;
}

size_t op_reduce_topk_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                                const ktensor_t *out, int n_out)
{
    (void)n_in, (void)n_out;
    int axis = topk_axis(n, &in[0]);
    if (axis < 0)
        return 0;
    return ktopk_workspace(&in[0], axis, out[0].shape[axis]);
}

cairn_status_t op_reduce_topk_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out;
    int axis;
    BASE_TRY(ir_norm_axis(ir_attr_i(n, TK_AXIS), in[0].rank, &axis));
    /* K is the planned output extent (inference read the constant) */
    return ktopk_ref(&in[0], axis, out[0].shape[axis], (int)ir_attr_i(n, TK_LARGEST), &out[0],
                     &out[1], ws, k);
}

void op_reduce_topk_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost)
{
    int axis = topk_axis(n, &in[0]);
    double kk = axis >= 0 ? (double)out[0].shape[axis] : 1;
    /* a heap of K: about log2(K+1) compares per element, plus sorting K */
    cost->flops = (double)kt_numel(&in[0]) * log2(kk + 1.0) +
                  (double)kt_numel(&out[0]) * log2(kk + 1.0);
    cost->bytes = tensor_bytes(in, n_in) + tensor_bytes(out, n_out);
}
