/*
 * Pooling ops at opset 17: MaxPool (opset 12: dilations, ceil_mode,
 * storage_order, optional Indices output), AveragePool (opset 11: no
 * dilations; they arrived in opset 19 and are rejected), GlobalMaxPool and
 * GlobalAveragePool. pool_geometry() is the one place that turns
 * attributes and input sizes into output sizes and explicit padding; both
 * inference and exec use it, so they cannot disagree.
 *
 * Output size per spatial dim, with e = (k - 1) * dilation + 1:
 *   NOTSET / VALID (VALID: no padding):
 *     out = floor_or_ceil((in + pad_begin + pad_end - e) / stride) + 1,
 *     and with ceil_mode a last window that would start past the input
 *     and its begin padding is dropped (as PyTorch and onnxruntime do);
 *   SAME_UPPER / SAME_LOWER: out = ceil(in / stride), padding
 *     max(0, (out - 1) * stride + e - in) split evenly, the odd element at
 *     the end (UPPER) or the beginning (LOWER); ceil_mode does not apply.
 */
#include "ir/op_table.h"
#include "kernels/pool/pool.h"

#include <string.h>

cairn_status_t op_pool_infer(ir_infer_ctx_t *c);
cairn_status_t op_pool_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                            int n_out, void *ws, const kctx_t *k);
void op_pool_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                  int n_out, ir_cost_t *cost);

/* The first six slots are shared by both schemas. */
enum { POOL_AUTO_PAD, POOL_CEIL_MODE, POOL_DILATIONS, POOL_KERNEL_SHAPE, POOL_PADS, POOL_STRIDES,
       POOL_EXTRA /* MaxPool: storage_order; AveragePool: count_include_pad */ };

const ir_attr_def_t op_pool_max_attrs[] = {
    IR_ATTR_STRING("auto_pad", "NOTSET"), IR_ATTR_INT("ceil_mode", 0),
    IR_ATTR_INTS("dilations"),            IR_ATTR_REQUIRED_INTS("kernel_shape"),
    IR_ATTR_INTS("pads"),                 IR_ATTR_INTS("strides"),
    IR_ATTR_INT("storage_order", 0),      IR_ATTR_END};

const ir_attr_def_t op_pool_avg_attrs[] = {
    IR_ATTR_STRING("auto_pad", "NOTSET"), IR_ATTR_INT("ceil_mode", 0),
    IR_ATTR_INTS("dilations"),            IR_ATTR_REQUIRED_INTS("kernel_shape"),
    IR_ATTR_INTS("pads"),                 IR_ATTR_INTS("strides"),
    IR_ATTR_INT("count_include_pad", 0),  IR_ATTR_END};

static int pool_is_global(int op) { return op == IR_OP_GlobalMaxPool || op == IR_OP_GlobalAveragePool; }

static const char *pool_opname(int op) { return ir_op_def(op)->name; }

static int64_t pool_floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Fills p from node n for an input of `rank` whose spatial sizes are
 * xsp[0..rank-2) (negative: unknown), and writes the output spatial sizes
 * (IR_DIM_UNKNOWN where they depend on an unknown size). */
static cairn_status_t pool_geometry(const ir_node_t *n, int rank, const int64_t *xsp,
                                    int64_t *ysp, kpool_params_t *p)
{
    const char *op = pool_opname(n->op);
    memset(p, 0, sizeof *p);
    if (rank < 3)
        return base_error(CAIRN_ERR_SHAPE,
                          "%s needs an input of shape (N, C, D1, ...) with rank >= 3, got rank %d",
                          op, rank);
    const int nsp = rank - 2;
    p->nsp = nsp;
    if (pool_is_global(n->op)) {
        for (int d = 0; d < nsp; d++) {
            if (xsp[d] == 0)
                return base_error(CAIRN_ERR_SHAPE, "%s: spatial dim %d of the input is 0; "
                                  "the pooled window would be empty", op, d);
            p->kernel[d] = xsp[d] > 0 ? xsp[d] : 1;
            p->stride[d] = p->dilation[d] = 1;
            ysp[d] = 1;
        }
        return CAIRN_OK;
    }
    const int is_max = n->op == IR_OP_MaxPool;
    size_t nk, ns, np, ndl;
    const int64_t *ks = ir_attr_ints(n, POOL_KERNEL_SHAPE, &nk);
    const int64_t *st = ir_attr_ints(n, POOL_STRIDES, &ns);
    const int64_t *pads = ir_attr_ints(n, POOL_PADS, &np);
    const int64_t *dil = ir_attr_ints(n, POOL_DILATIONS, &ndl);
    if (nk != (size_t)nsp)
        return base_error(CAIRN_ERR_SHAPE,
                          "kernel_shape has %zu entries but the input of rank %d has %d spatial "
                          "dims; give one window size per spatial dim",
                          nk, rank, nsp);
    if (st && ns != (size_t)nsp)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "strides has %zu entries; it needs one per spatial dim (%d)", ns, nsp);
    if (pads && np != 2 * (size_t)nsp)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "pads has %zu entries; it needs 2 * %d (begins of every spatial dim, "
                          "then ends)", np, nsp);
    if (dil && !is_max)
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "AveragePool has no dilations attribute at opset 17 (it arrived in "
                          "opset 19); cairn implements opset 17: drop the attribute");
    if (dil && ndl != (size_t)nsp)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "dilations has %zu entries; it needs one per spatial dim (%d)", ndl,
                          nsp);
    const char *ap = ir_attr_s(n, POOL_AUTO_PAD);
    int mode; /* 0 NOTSET, 1 VALID, 2 SAME_UPPER, 3 SAME_LOWER */
    if (!strcmp(ap, "NOTSET"))
        mode = 0;
    else if (!strcmp(ap, "VALID"))
        mode = 1;
    else if (!strcmp(ap, "SAME_UPPER"))
        mode = 2;
    else if (!strcmp(ap, "SAME_LOWER"))
        mode = 3;
    else
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "auto_pad is '%s'; it must be NOTSET, VALID, SAME_UPPER or SAME_LOWER",
                          ap);
    int64_t ceil_mode = ir_attr_i(n, POOL_CEIL_MODE), extra = ir_attr_i(n, POOL_EXTRA);
    if (ceil_mode != 0 && ceil_mode != 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "ceil_mode is %lld; it must be 0 or 1",
                          (long long)ceil_mode);
    if (extra != 0 && extra != 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s is %lld; it must be 0 or 1",
                          is_max ? "storage_order" : "count_include_pad", (long long)extra);
    if (is_max)
        p->storage_order = (int)extra;
    else
        p->count_include_pad = (int)extra;
    for (int d = 0; d < nsp; d++) {
        p->kernel[d] = ks[d];
        p->stride[d] = st ? st[d] : 1;
        p->dilation[d] = dil ? dil[d] : 1;
        p->pad_begin[d] = pads ? pads[d] : 0;
        p->pad_end[d] = pads ? pads[nsp + d] : 0;
        if (p->kernel[d] < 1)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "kernel_shape[%d] is %lld; window sizes must be >= 1", d,
                              (long long)p->kernel[d]);
        if (p->stride[d] < 1)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "strides[%d] is %lld; strides must be >= 1", d,
                              (long long)p->stride[d]);
        if (p->dilation[d] < 1)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "dilations[%d] is %lld; dilations must be >= 1", d,
                              (long long)p->dilation[d]);
        if (p->pad_begin[d] < 0 || p->pad_end[d] < 0)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "pads of spatial dim %d are %lld, %lld; pads must be >= 0", d,
                              (long long)p->pad_begin[d], (long long)p->pad_end[d]);
        if (mode != 0 && (p->pad_begin[d] || p->pad_end[d]))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "pads are given with auto_pad=%s; use one or the other", ap);
        const int64_t ext = (p->kernel[d] - 1) * p->dilation[d] + 1;
        if (p->pad_begin[d] >= ext || p->pad_end[d] >= ext)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "pads of spatial dim %d (%lld, %lld) must be smaller than the "
                              "window extent %lld, or whole windows would lie in the padding",
                              d, (long long)p->pad_begin[d], (long long)p->pad_end[d],
                              (long long)ext);
        const int64_t in = xsp[d];
        if (in < 0) {
            ysp[d] = IR_DIM_UNKNOWN;
            continue;
        }
        if (in == 0)
            return base_error(CAIRN_ERR_SHAPE, "%s: spatial dim %d of the input is 0", op, d);
        if (mode >= 2) {
            int64_t o = (in + p->stride[d] - 1) / p->stride[d];
            int64_t total = (o - 1) * p->stride[d] + ext - in;
            if (total < 0)
                total = 0;
            p->pad_begin[d] = mode == 2 ? total / 2 : total - total / 2;
            p->pad_end[d] = total - p->pad_begin[d];
            ysp[d] = o;
            continue;
        }
        int64_t span = in + p->pad_begin[d] + p->pad_end[d] - ext;
        if (span < 0)
            return base_error(CAIRN_ERR_SHAPE,
                              "%s: spatial dim %d: the window extent %lld is larger than the "
                              "padded input %lld (size %lld + pads %lld, %lld)",
                              op, d, (long long)ext,
                              (long long)(in + p->pad_begin[d] + p->pad_end[d]), (long long)in,
                              (long long)p->pad_begin[d], (long long)p->pad_end[d]);
        int64_t o = ceil_mode ? -pool_floor_div(-span, p->stride[d]) + 1 : span / p->stride[d] + 1;
        if (ceil_mode && (o - 1) * p->stride[d] >= in + p->pad_begin[d])
            o--;
        ysp[d] = o;
    }
    return CAIRN_OK;
}

cairn_status_t op_pool_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    static const cairn_dtype_t max_types[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                              CAIRN_I8,  CAIRN_U8,   CAIRN_DTYPE_UNDEFINED};
    BASE_TRY(ir_infer_check_dtype(c, 0, n->op == IR_OP_MaxPool ? max_types : ir_dtypes_float));
    const ir_shape_t *x = &c->in[0].shape;
    int rank = x->rank;
    if (rank < 0) {
        size_t nk = 0;
        if (!pool_is_global(n->op))
            (void)ir_attr_ints(n, POOL_KERNEL_SHAPE, &nk);
        rank = nk ? (int)nk + 2 : -1;
        if (rank > CAIRN_MAX_RANK)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "kernel_shape has %zu entries; cairn supports at most %d "
                                  "spatial dims", nk, CAIRN_MAX_RANK - 2);
    }
    /* graph building runs inference with c->n_out == 0 (into a 64-entry
     * array) before it sets the output count: then type both outputs */
    const int n_out = c->n_out ? c->n_out : ir_op_def(n->op)->max_out;
    ir_infer_unknown(c, 0, c->in[0].dtype, rank);
    if (n_out > 1)
        ir_infer_unknown(c, 1, CAIRN_I64, rank);
    if (rank < 0)
        return CAIRN_OK;
    int64_t xsp[CAIRN_MAX_RANK], ysp[CAIRN_MAX_RANK];
    for (int d = 2; d < rank; d++)
        xsp[d - 2] = x->rank >= 0 && ir_dim_known(x->d[d]) ? x->d[d] : -1;
    kpool_params_t p;
    BASE_TRY(pool_geometry(n, rank, xsp, ysp, &p));
    ir_shape_t *y = &c->out[0].shape;
    y->rank = rank;
    y->d[0] = x->rank >= 0 ? x->d[0] : IR_DIM_UNKNOWN;
    y->d[1] = x->rank >= 0 ? x->d[1] : IR_DIM_UNKNOWN;
    for (int d = 2; d < rank; d++)
        y->d[d] = ysp[d - 2];
    if (n_out > 1)
        c->out[1].shape = *y;
    return CAIRN_OK;
}

cairn_status_t op_pool_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                            int n_out, void *ws, const kctx_t *k)
{
    kpool_params_t p;
    int64_t ysp[CAIRN_MAX_RANK];
    BASE_TRY(pool_geometry(n, in[0].rank, in[0].shape + 2, ysp, &p));
    for (int d = 0; d < p.nsp; d++)
        if (ysp[d] != out[0].shape[d + 2])
            return base_error(CAIRN_ERR_INTERNAL, "%s: output dim %d is %lld, geometry says %lld",
                              pool_opname(n->op), d + 2, (long long)out[0].shape[d + 2],
                              (long long)ysp[d]);
    if (n->op == IR_OP_MaxPool || n->op == IR_OP_GlobalMaxPool)
        return kpool_max(&in[0], &out[0], n_out > 1 ? &out[1] : NULL, &p, k);
    return kpool_avg(&in[0], &out[0], &p, k);
}

void op_pool_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                  int n_out, ir_cost_t *cost)
{
    double window = 1;
    for (int d = 2; d < in[0].rank; d++)
        window *= pool_is_global(n->op) ? (double)in[0].shape[d] : 1;
    if (!pool_is_global(n->op)) {
        size_t nk;
        const int64_t *ks = ir_attr_ints(n, POOL_KERNEL_SHAPE, &nk);
        for (size_t d = 0; d < nk; d++)
            window *= (double)ks[d];
    }
    /* one compare or add per tap (average: plus one divide per output) */
    double outs = (double)kt_numel(&out[0]);
    int is_avg = n->op == IR_OP_AveragePool || n->op == IR_OP_GlobalAveragePool;
    cost->flops = outs * window + (is_avg ? outs : 0);
    cost->bytes = (double)kt_numel(&in[0]) * (double)cairn_dtype_size(in[0].dtype);
    for (int o = 0; o < n_out; o++)
        cost->bytes += (double)kt_numel(&out[o]) * (double)cairn_dtype_size(out[o].dtype);
}
