/*
 * quant ops (ONNX opset 17): QuantizeLinear, DequantizeLinear,
 * DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger,
 * QLinearConv, and the index/misc ops grouped with them: GatherND,
 * ScatterND, ScatterElements, Einsum, BitShift, NonMaxSuppression, Det.
 *
 * Inference, exec adapters and costs; the kernels are in
 * src/kernels/quant. The integer convolutions widen their operands (minus
 * zero points) to double in the workspace and run the double Conv kernel of
 * src/kernels/conv, which is exact for u8/i8 data; the conv geometry here is
 * a compact copy of Conv's rules (linalg.c keeps its helper static).
 * NonMaxSuppression's output count depends on the data, so its inference
 * needs the values of boxes and scores at plan time (constants, or inputs
 * the runtime specialises the plan on).
 */
#include "base/alloc.h"
#include "base/dtype.h"
#include "base/threadpool.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "ir/ops/quant.h"
#include "kernels/conv/conv.h"
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define Q_FN_INFER(name) cairn_status_t name(ir_infer_ctx_t *c);
#define Q_FN_EXEC(name)                                                                    \
    cairn_status_t name(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out, \
                        int n_out, void *ws, const kctx_t *k);
Q_FN_INFER(op_quant_ql_infer)
Q_FN_EXEC(op_quant_ql_exec)
Q_FN_INFER(op_quant_dql_infer)
Q_FN_EXEC(op_quant_dql_exec)
Q_FN_INFER(op_quant_dyn_infer)
Q_FN_EXEC(op_quant_dyn_exec)
Q_FN_INFER(op_quant_mm_infer)
Q_FN_EXEC(op_quant_mm_exec)
Q_FN_INFER(op_quant_conv_infer)
Q_FN_EXEC(op_quant_conv_exec)
Q_FN_INFER(op_quant_gathernd_infer)
Q_FN_EXEC(op_quant_gathernd_exec)
Q_FN_INFER(op_quant_scatternd_infer)
Q_FN_EXEC(op_quant_scatternd_exec)
Q_FN_INFER(op_quant_scatterel_infer)
Q_FN_EXEC(op_quant_scatterel_exec)
Q_FN_INFER(op_quant_einsum_infer)
Q_FN_EXEC(op_quant_einsum_exec)
Q_FN_INFER(op_quant_bitshift_infer)
Q_FN_EXEC(op_quant_bitshift_exec)
Q_FN_INFER(op_quant_nms_infer)
Q_FN_EXEC(op_quant_nms_exec)
Q_FN_INFER(op_quant_det_infer)
Q_FN_EXEC(op_quant_det_exec)
void op_quant_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                   int n_out, ir_cost_t *cost);
size_t op_quant_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                          const ktensor_t *out, int n_out);

/* ---- schemas ---- */
const ir_attr_def_t op_quant_axis_attrs[] = {IR_ATTR_INT("axis", 1), IR_ATTR_END};
enum { QC_AUTO_PAD, QC_DILATIONS, QC_GROUP, QC_KERNEL_SHAPE, QC_PADS, QC_STRIDES, QC_PACKED,
       QC_M, QC_REQUANT, QC_ACTIVATION, QC_CLIP_MIN, QC_CLIP_MAX };
const ir_attr_def_t op_quant_conv_attrs[] = {
    IR_ATTR_STRING("auto_pad", "NOTSET"), IR_ATTR_INTS("dilations"), IR_ATTR_INT("group", 1),
    IR_ATTR_INTS("kernel_shape"), IR_ATTR_INTS("pads"), IR_ATTR_INTS("strides"), IR_ATTR_END};
/* FusedConvInteger: ConvInteger's, W packed by quant_pack_a (prepack)
 * with its output channels m (kernel_shape then required), requant
 * (QLinearConv's form), and the dequantising form's activation after the
 * bias (gemm_act_t: none, relu or clip with its bounds) */
const ir_attr_def_t op_fused_convint_attrs[] = {
    IR_ATTR_STRING("auto_pad", "NOTSET"), IR_ATTR_INTS("dilations"), IR_ATTR_INT("group", 1),
    IR_ATTR_INTS("kernel_shape"), IR_ATTR_INTS("pads"), IR_ATTR_INTS("strides"),
    IR_ATTR_INT("packed", 0), IR_ATTR_INT("m", 0), IR_ATTR_INT("requant", 0),
    IR_ATTR_INT("activation", 0), IR_ATTR_FLOAT("clip_min", -3.402823466e38f),
    IR_ATTR_FLOAT("clip_max", 3.402823466e38f), IR_ATTR_END};
const ir_attr_def_t op_quant_gathernd_attrs[] = {IR_ATTR_INT("batch_dims", 0), IR_ATTR_END};
const ir_attr_def_t op_quant_scatternd_attrs[] = {IR_ATTR_STRING("reduction", "none"),
                                                  IR_ATTR_END};
enum { QSE_AXIS, QSE_REDUCTION };
const ir_attr_def_t op_quant_scatterel_attrs[] = {
    IR_ATTR_INT("axis", 0), IR_ATTR_STRING("reduction", "none"), IR_ATTR_END};
const ir_attr_def_t op_quant_einsum_attrs[] = {
    {"equation", CAIRN_ATTR_STRING, 1, 0, 0.0f, NULL}, IR_ATTR_END};
const ir_attr_def_t op_quant_bitshift_attrs[] = {
    {"direction", CAIRN_ATTR_STRING, 1, 0, 0.0f, NULL}, IR_ATTR_END};
const ir_attr_def_t op_quant_nms_attrs[] = {IR_ATTR_INT("center_point_box", 0), IR_ATTR_END};

static const cairn_dtype_t q_qtypes[] = {CAIRN_U8, CAIRN_I8, CAIRN_DTYPE_UNDEFINED};
static const cairn_dtype_t q_f32[] = {CAIRN_F32, CAIRN_DTYPE_UNDEFINED};
static const cairn_dtype_t q_i64[] = {CAIRN_I64, CAIRN_DTYPE_UNDEFINED};
static const cairn_dtype_t q_i32[] = {CAIRN_I32, CAIRN_DTYPE_UNDEFINED};

static int present(const ir_infer_ctx_t *c, int i)
{
    return i < c->n_in && c->in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}
static int kpresent(const ktensor_t *in, int n_in, int i)
{
    return i < n_in && in[i].dtype != CAIRN_DTYPE_UNDEFINED && in[i].data;
}
static void shape_of(const ktensor_t *t, ir_shape_t *s)
{
    s->rank = t->rank;
    for (int i = 0; i < t->rank; i++)
        s->d[i] = t->shape[i];
}
static const char *sstr(const ir_shape_t *s, char *buf, size_t cap)
{
    return ir_shape_str(NULL, s, buf, cap);
}

/* ========================= Quantize / Dequantize ========================= */

/* Checks a scale/zero-point shape s against x along axis: a scalar (or one
 * element) is per-tensor; a 1-D of x.shape[axis] is per-axis. Fills ax when
 * x is concrete. */
static cairn_status_t q_axis_layout(const ir_infer_ctx_t *c, const ir_shape_t *x,
                                    const ir_shape_t *s, const char *what, int64_t axis,
                                    quant_axis_t *ax)
{
    (void)c;
    char b1[128], b2[128];
    int64_t sn = ir_shape_numel(s);
    int per_axis = 0, a = 0;
    if (s->rank < 0)
        return CAIRN_OK;
    if (s->rank > 1)
        return base_error(CAIRN_ERR_SHAPE,
                          "%s must be a scalar or 1-D (per-axis), got shape %s", what,
                          sstr(s, b1, sizeof b1));
    if (x->rank >= 0 && s->rank == 1 && sn != 1) {
        BASE_TRY(ir_norm_axis(axis, x->rank, &a));
        int64_t xd = x->d[a];
        if (ir_dim_known(xd) && ir_dim_known(s->d[0]) && xd != s->d[0])
            return base_error(CAIRN_ERR_SHAPE,
                              "%s has %lld entries but x %s has %lld along axis %lld; a "
                              "per-axis %s needs one entry per slice",
                              what, (long long)s->d[0], sstr(x, b2, sizeof b2), (long long)xd,
                              (long long)axis, what);
        per_axis = 1;
    }
    if (ax && ir_shape_is_concrete(x)) {
        ax->outer = 1, ax->C = 1, ax->inner = ir_shape_numel(x);
        if (per_axis) {
            ax->C = x->d[a];
            ax->inner = 1;
            for (int i = 0; i < a; i++)
                ax->outer *= x->d[i];
            for (int i = a + 1; i < x->rank; i++)
                ax->inner *= x->d[i];
        }
    }
    return CAIRN_OK;
}

cairn_status_t op_quant_ql_infer(ir_infer_ctx_t *c)
{
    static const cairn_dtype_t xt[] = {CAIRN_F32, CAIRN_I32, CAIRN_F16, CAIRN_BF16, CAIRN_F64,
                                       CAIRN_DTYPE_UNDEFINED};
    BASE_TRY(ir_infer_check_dtype(c, 0, xt));
    BASE_TRY(ir_infer_check_dtype(c, 1, q_f32));
    int64_t axis = ir_attr_i(c->node, 0);
    BASE_TRY(q_axis_layout(c, &c->in[0].shape, &c->in[1].shape, "y_scale", axis, NULL));
    cairn_dtype_t yt = CAIRN_U8;
    if (present(c, 2)) {
        BASE_TRY(ir_infer_check_dtype(c, 2, q_qtypes));
        BASE_TRY(q_axis_layout(c, &c->in[0].shape, &c->in[2].shape, "y_zero_point", axis, NULL));
        yt = c->in[2].dtype;
        if (ir_shape_numel(&c->in[1].shape) >= 0 && ir_shape_numel(&c->in[2].shape) >= 0 &&
            ir_shape_numel(&c->in[1].shape) != ir_shape_numel(&c->in[2].shape))
            return base_error(CAIRN_ERR_SHAPE,
                              "y_scale has %lld entries but y_zero_point %lld; they must match",
                              (long long)ir_shape_numel(&c->in[1].shape),
                              (long long)ir_shape_numel(&c->in[2].shape));
    }
    c->out[0].dtype = yt;
    c->out[0].shape = c->in[0].shape;
    return CAIRN_OK;
}

cairn_status_t op_quant_ql_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                                int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    ir_shape_t xs, ss;
    quant_axis_t ax;
    shape_of(&in[0], &xs);
    shape_of(&in[1], &ss);
    BASE_TRY(q_axis_layout(NULL, &xs, &ss, "y_scale", ir_attr_i(n, 0), &ax));
    quant_quantize(k, in[0].dtype, in[0].data, in[1].data,
                   kpresent(in, n_in, 2) ? in[2].data : NULL, out[0].dtype, out[0].data, &ax);
    return CAIRN_OK;
}

cairn_status_t op_quant_dql_infer(ir_infer_ctx_t *c)
{
    static const cairn_dtype_t xt[] = {CAIRN_U8, CAIRN_I8, CAIRN_I32, CAIRN_DTYPE_UNDEFINED};
    BASE_TRY(ir_infer_check_dtype(c, 0, xt));
    BASE_TRY(ir_infer_check_dtype(c, 1, q_f32));
    int64_t axis = ir_attr_i(c->node, 0);
    BASE_TRY(q_axis_layout(c, &c->in[0].shape, &c->in[1].shape, "x_scale", axis, NULL));
    if (present(c, 2)) {
        BASE_TRY(ir_infer_same_dtype(c, 0, 2));
        BASE_TRY(q_axis_layout(c, &c->in[0].shape, &c->in[2].shape, "x_zero_point", axis, NULL));
        if (ir_shape_numel(&c->in[1].shape) >= 0 && ir_shape_numel(&c->in[2].shape) >= 0 &&
            ir_shape_numel(&c->in[1].shape) != ir_shape_numel(&c->in[2].shape))
            return base_error(CAIRN_ERR_SHAPE,
                              "x_scale has %lld entries but x_zero_point %lld; they must match",
                              (long long)ir_shape_numel(&c->in[1].shape),
                              (long long)ir_shape_numel(&c->in[2].shape));
    }
    c->out[0].dtype = CAIRN_F32;
    c->out[0].shape = c->in[0].shape;
    return CAIRN_OK;
}

cairn_status_t op_quant_dql_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                 ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    ir_shape_t xs, ss;
    quant_axis_t ax;
    shape_of(&in[0], &xs);
    shape_of(&in[1], &ss);
    BASE_TRY(q_axis_layout(NULL, &xs, &ss, "x_scale", ir_attr_i(n, 0), &ax));
    quant_dequantize(k, in[0].dtype, in[0].data, in[1].data,
                     kpresent(in, n_in, 2) ? in[2].data : NULL, out[0].data, &ax);
    return CAIRN_OK;
}

cairn_status_t op_quant_dyn_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, q_f32));
    c->out[0].dtype = CAIRN_U8;
    c->out[0].shape = c->in[0].shape;
    for (int o = 1; o < c->n_out; o++) {
        c->out[o].dtype = o == 1 ? CAIRN_F32 : CAIRN_U8;
        c->out[o].shape.rank = 0;
    }
    return CAIRN_OK;
}

cairn_status_t op_quant_dyn_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                 ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n, (void)n_in, (void)ws;
    float s;
    uint8_t z;
    quant_dynamic(k, in[0].data, kt_numel(&in[0]), out[0].data, &s, &z);
    if (n_out > 1 && out[1].data)
        *(float *)out[1].data = s;
    if (n_out > 2 && out[2].data)
        *(uint8_t *)out[2].data = z;
    return CAIRN_OK;
}

/* ========================= MatMulInteger / QLinearMatMul ========================= */

/* numpy matmul shapes: 1-D A is a row, 1-D B a column (and both drop). */
static cairn_status_t q_matmul_shape(const ir_shape_t *a, const ir_shape_t *b, ir_shape_t *y)
{
    char b1[128], b2[128];
    if (a->rank < 0 || b->rank < 0) {
        y->rank = -1;
        return CAIRN_OK;
    }
    if (a->rank == 0 || b->rank == 0)
        return base_error(CAIRN_ERR_SHAPE, "matmul operands must have rank >= 1, got %s and %s",
                          sstr(a, b1, sizeof b1), sstr(b, b2, sizeof b2));
    ir_shape_t ab = {0}, bb = {0}, yb;
    ab.rank = a->rank > 2 ? a->rank - 2 : 0;
    bb.rank = b->rank > 2 ? b->rank - 2 : 0;
    for (int i = 0; i < ab.rank; i++)
        ab.d[i] = a->d[i];
    for (int i = 0; i < bb.rank; i++)
        bb.d[i] = b->d[i];
    BASE_TRY(ir_shape_broadcast(&ab, &bb, &yb));
    int64_t ka = a->d[a->rank - 1], kb = b->rank >= 2 ? b->d[b->rank - 2] : b->d[0];
    if (ir_dim_known(ka) && ir_dim_known(kb) && ka != kb)
        return base_error(CAIRN_ERR_SHAPE,
                          "A %s and B %s: the inner dims %lld and %lld must match",
                          sstr(a, b1, sizeof b1), sstr(b, b2, sizeof b2), (long long)ka,
                          (long long)kb);
    *y = yb;
    if (a->rank >= 2)
        y->d[y->rank++] = a->d[a->rank - 2];
    if (b->rank >= 2)
        y->d[y->rank++] = b->d[b->rank - 1];
    return CAIRN_OK;
}

/* checks a zero point / scale is a scalar or a 1-D of `want` entries */
static cairn_status_t q_vec_ok(const ir_shape_t *s, int64_t want, const char *what,
                               const char *per)
{
    char b1[128];
    int64_t n = ir_shape_numel(s);
    if (s->rank < 0 || n == 1)
        return CAIRN_OK;
    if (s->rank > 1 || (n >= 0 && ir_dim_known(want) && n != want))
        return base_error(CAIRN_ERR_SHAPE,
                          "%s has shape %s; it must be a scalar or 1-D with one entry per %s "
                          "(%lld)",
                          what, sstr(s, b1, sizeof b1), per, (long long)want);
    return CAIRN_OK;
}

cairn_status_t op_quant_mm_infer(ir_infer_ctx_t *c)
{
    const int ql = c->node->op == IR_OP_QLinearMatMul;
    const int ia = 0, ib = ql ? 3 : 1;
    BASE_TRY(ir_infer_check_dtype(c, ia, q_qtypes));
    BASE_TRY(ir_infer_check_dtype(c, ib, q_qtypes));
    ir_shape_t y;
    const ir_shape_t *a = &c->in[ia].shape, *b = &c->in[ib].shape;
    BASE_TRY(q_matmul_shape(a, b, &y));
    int64_t M = a->rank >= 2 ? a->d[a->rank - 2] : a->rank == 1 ? 1 : IR_DIM_UNKNOWN;
    int64_t N = b->rank >= 2 ? b->d[b->rank - 1] : b->rank == 1 ? 1 : IR_DIM_UNKNOWN;
    int azp = ql ? 2 : 2, bzp = ql ? 5 : 3;
    if (present(c, azp)) {
        BASE_TRY(ir_infer_same_dtype(c, ia, azp));
        BASE_TRY(q_vec_ok(&c->in[azp].shape, M, "a_zero_point", "row of A"));
    }
    if (present(c, bzp)) {
        BASE_TRY(ir_infer_same_dtype(c, ib, bzp));
        BASE_TRY(q_vec_ok(&c->in[bzp].shape, N, "b_zero_point", "column of B"));
    }
    c->out[0].dtype = CAIRN_I32;
    if (ql) {
        BASE_TRY(ir_infer_check_dtype(c, 1, q_f32));
        BASE_TRY(ir_infer_check_dtype(c, 4, q_f32));
        BASE_TRY(ir_infer_check_dtype(c, 6, q_f32));
        BASE_TRY(ir_infer_check_dtype(c, 7, q_qtypes));
        BASE_TRY(q_vec_ok(&c->in[1].shape, M, "a_scale", "row of A"));
        BASE_TRY(q_vec_ok(&c->in[4].shape, N, "b_scale", "column of B"));
        BASE_TRY(q_vec_ok(&c->in[6].shape, 1, "y_scale", "tensor"));
        BASE_TRY(q_vec_ok(&c->in[7].shape, 1, "y_zero_point", "tensor"));
        c->out[0].dtype = c->in[7].dtype;
    }
    c->out[0].shape = y;
    return CAIRN_OK;
}

/* Offsets of each output batch into A and B (numpy broadcasting of the
 * batch dims); returns the number of batches. */
static int64_t q_batch_offsets(const ktensor_t *A, const ktensor_t *B, int64_t *ao, int64_t *bo,
                               int64_t ma, int64_t mb)
{
    int ra = A->rank > 2 ? A->rank - 2 : 0, rb = B->rank > 2 ? B->rank - 2 : 0;
    int r = ra > rb ? ra : rb;
    int64_t dims[CAIRN_MAX_RANK], sa[CAIRN_MAX_RANK], sb[CAIRN_MAX_RANK], nb = 1;
    int64_t s1 = ma, s2 = mb;
    for (int i = r - 1; i >= 0; i--) {
        int ja = i - (r - ra), jb = i - (r - rb);
        int64_t da = ja >= 0 ? A->shape[ja] : 1, db = jb >= 0 ? B->shape[jb] : 1;
        dims[i] = da > db ? da : db;
        sa[i] = da == 1 ? 0 : s1;
        sb[i] = db == 1 ? 0 : s2;
        s1 *= da, s2 *= db;
        nb *= dims[i];
    }
    if (ao) {
        int64_t pos[CAIRN_MAX_RANK] = {0};
        for (int64_t b = 0; b < nb; b++) {
            int64_t oa = 0, ob = 0;
            for (int i = 0; i < r; i++)
                oa += pos[i] * sa[i], ob += pos[i] * sb[i];
            ao[b] = oa, bo[b] = ob;
            for (int i = r - 1; i >= 0; i--) {
                if (++pos[i] < dims[i])
                    break;
                pos[i] = 0;
            }
        }
    }
    return nb;
}

static void q_mkn(const ktensor_t *A, const ktensor_t *B, int64_t *M, int64_t *K, int64_t *N)
{
    *M = A->rank >= 2 ? A->shape[A->rank - 2] : 1;
    *K = A->shape[A->rank - 1];
    *N = B->rank >= 2 ? B->shape[B->rank - 1] : 1;
}

typedef struct q_mm_batch {
    const quant_mm_params_t *p;
    const void *a, *b;
    void *y;
    const int64_t *ao, *bo;
    size_t asz, bsz, ysz;
    _Atomic int failed;
} q_mm_batch_t;

static void q_mm_batch_task(void *ctx, size_t b0, size_t b1, int worker)
{
    (void)worker;
    q_mm_batch_t *j = ctx;
    const kctx_t one = {NULL, 1};
    const int64_t mn = j->p->M * j->p->N;
    for (size_t b = b0; b < b1; b++)
        if (quant_matmul(&one, j->p, (const char *)j->a + (size_t)j->ao[b] * j->asz,
                         (const char *)j->b + (size_t)j->bo[b] * j->bsz,
                         (char *)j->y + (size_t)((int64_t)b * mn) * j->ysz) != CAIRN_OK) {
            base_error_clear();
            atomic_store(&j->failed, 1);
        }
}

cairn_status_t op_quant_mm_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                                int n_out, void *ws, const kctx_t *k)
{
    (void)n_out;
    const int ql = n->op == IR_OP_QLinearMatMul;
    const ktensor_t *A = &in[0], *B = &in[ql ? 3 : 1];
    quant_mm_params_t p;
    memset(&p, 0, sizeof p);
    q_mkn(A, B, &p.M, &p.K, &p.N);
    p.at = A->dtype, p.bt = B->dtype, p.yt = CAIRN_DTYPE_UNDEFINED;
    int azp = 2, bzp = ql ? 5 : 3;
    if (kpresent(in, n_in, azp))
        p.azp = in[azp].data, p.azp_vec = kt_numel(&in[azp]) > 1;
    if (kpresent(in, n_in, bzp))
        p.bzp = in[bzp].data, p.bzp_vec = kt_numel(&in[bzp]) > 1;
    size_t ysz = cairn_dtype_size(out[0].dtype);
    if (ql) {
        p.yt = out[0].dtype;
        p.as = in[1].data, p.as_vec = kt_numel(&in[1]) > 1;
        p.bs = in[4].data, p.bs_vec = kt_numel(&in[4]) > 1;
        p.ys = *(const float *)in[6].data;
        p.yzp = in[7].data;
    }
    int64_t *ao = ws, nb = q_batch_offsets(A, B, NULL, NULL, 0, 0);
    int64_t *bo = ao + nb;
    q_batch_offsets(A, B, ao, bo, p.M * p.K, p.K * p.N);
    q_mm_batch_t j = {&p, A->data, B->data, out[0].data, ao, bo, cairn_dtype_size(A->dtype),
                      cairn_dtype_size(B->dtype), ysz, 0};
    if (nb >= 2 && k && k->pool && k->threads > 1) {
        /* the batch's products a task each, one thread apiece (attention's
         * heads: 12 products of 128 x 128 x 32, too small to split) */
        base_pool_parallel_for_1d(k->pool, (size_t)nb, 1, q_mm_batch_task, &j);
        if (atomic_load(&j.failed))
            return base_error(CAIRN_ERR_OUT_OF_MEMORY,
                              "quantised matmul: a batch's product failed (no scratch memory)");
        return CAIRN_OK;
    }
    for (int64_t b = 0; b < nb; b++)
        BASE_TRY(quant_matmul(k, &p, (const char *)A->data + (size_t)ao[b] * j.asz,
                              (const char *)B->data + (size_t)bo[b] * j.bsz,
                              (char *)out[0].data + (size_t)(b * p.M * p.N) * ysz));
    return CAIRN_OK;
}

/* The dequantising fused ops' (FusedMatMulInteger, FusedConvInteger)
 * inputs 2-5: scale (one or n f32 values, n the weights' columns or output
 * channels: `per` names them; the multipliers in FusedConvInteger's
 * requantising form), the 8-bit operand's zero point (one value of input
 * 0's type, named zp0), the weights' (one or n, of their type, or any
 * 8-bit type when they are packed; zp1), bias (n of bias_t: f32, or int32
 * in the requantising form). */
static cairn_status_t q_dequant_inputs(ir_infer_ctx_t *c, int packed, int64_t n, const char *per,
                                       const char *zp0, const char *zp1,
                                       const cairn_dtype_t *bias_t)
{
    BASE_TRY(q_vec_ok(&c->in[2].shape, n, "scale", per));
    if (present(c, 3)) {
        BASE_TRY(ir_infer_same_dtype(c, 0, 3));
        BASE_TRY(q_vec_ok(&c->in[3].shape, 1, zp0, "tensor"));
    }
    if (present(c, 4)) {
        if (packed)
            BASE_TRY(ir_infer_check_dtype(c, 4, q_qtypes));
        else
            BASE_TRY(ir_infer_same_dtype(c, 1, 4));
        BASE_TRY(q_vec_ok(&c->in[4].shape, n, zp1, per));
    }
    if (present(c, 5)) {
        BASE_TRY(ir_infer_check_dtype(c, 5, bias_t));
        const int64_t nb = ir_shape_numel(&c->in[5].shape);
        if (nb >= 0 && ir_dim_known(n) && nb != n)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "bias has %lld elements but needs %lld (one per %s)",
                                  (long long)nb, (long long)n, per);
    }
    return CAIRN_OK;
}

/* Their residual (input 6): f32 of the output's shape (c->out[0], set). */
static cairn_status_t q_residual_ok(ir_infer_ctx_t *c)
{
    if (!present(c, 6))
        return CAIRN_OK;
    char b1[128], b2[128];
    const ir_type_t *res = &c->in[6];
    BASE_TRY(ir_infer_check_dtype(c, 6, q_f32));
    const int known = res->shape.rank >= 0 && ir_shape_is_concrete(&res->shape) &&
                      ir_shape_is_concrete(&c->out[0].shape);
    if ((known || !c->partial) && !ir_shape_equal(&res->shape, &c->out[0].shape))
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "residual %s must have the output's shape %s",
                              sstr(&res->shape, b1, sizeof b1),
                              sstr(&c->out[0].shape, b2, sizeof b2));
    return CAIRN_OK;
}

/* ====================== FusedMatMulInteger (fuse_gemm) ====================== */

/* FusedMatMulInteger(A, B, scale, [a_zero_point], [b_zero_point], [bias],
 * [residual]) = MatMulInteger(A, B, azp, bzp) -> Cast(f32) -> Mul(scale),
 * then FusedMatMul's epilogue (its attribute slots: + bias per column, an
 * activation, * alpha, + residual, a post-activation), one pass over the
 * int8 GEMM's sums (quant_matmul_f32). B is 2-D (K x N) and A's leading
 * dims flatten into M; a_zero_point is one value, b_zero_point and scale one
 * value or one per column; output f32. Made by fuse_gemm from what
 * onnxruntime's quantize_dynamic writes for each MatMul. */
cairn_status_t op_fused_mmint_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, q_qtypes));
    BASE_TRY(ir_infer_check_dtype(c, 2, q_f32));
    const ir_shape_t *a = &c->in[0].shape, *b = &c->in[1].shape;
    char b1[128];
    const int packed = (int)ir_attr_i(c->node, FUSED_MM_PACKED);
    int64_t K, N;
    if (packed) { /* B from quant_pack_b (the prepack pass): K, N in k, n */
        K = ir_attr_i(c->node, FUSED_MM_K), N = ir_attr_i(c->node, FUSED_MM_N);
        if (!quant_matmul_fast(K) || N < 1 || c->in[1].dtype != CAIRN_U8 || b->rank != 1)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "packed B must be a 1-D u8 buffer with k in [1, 32768] and n "
                                  ">= 1, got %s %s, k = %lld, n = %lld",
                                  cairn_dtype_name(c->in[1].dtype), sstr(b, b1, sizeof b1),
                                  (long long)K, (long long)N);
        if (ir_dim_known(b->d[0]) && (size_t)b->d[0] < quant_packed_b_size(K, N))
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "packed B holds %lld bytes but %lld x %lld needs %zu",
                                  (long long)b->d[0], (long long)K, (long long)N,
                                  quant_packed_b_size(K, N));
    } else {
        BASE_TRY(ir_infer_check_dtype(c, 1, q_qtypes));
        if (b->rank != 2)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "B must be 2-D (K x N), got %s",
                                  sstr(b, b1, sizeof b1));
        K = b->d[0], N = b->d[1];
    }
    if (a->rank == 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "A must have rank >= 1, got a scalar");
    BASE_TRY(op_fused_check_acts(c, FUSED_MM_ACTIVATION, FUSED_MM_POST_ACTIVATION));
    BASE_TRY(q_dequant_inputs(c, packed, N, "column of B", "a_zero_point", "b_zero_point",
                              q_f32));
    const int requant = (int)ir_attr_i(c->node, FUSED_MM_REQUANT);
    if (requant) {
        /* QLinearMatMul's form (fuse_qdq): one multiplier, y's zero point
         * (input 7) giving the output's type, nothing after the product */
        gemm_epilogue_t e;
        op_fused_mm_epilogue(c->node, &e);
        if (e.act != GEMM_ACT_NONE || e.post_act != GEMM_ACT_NONE || e.scale != 1.0f ||
            present(c, 5) || present(c, 6))
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "the requantising form takes no epilogue, bias or residual");
        if (!present(c, 7))
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "the requantising form needs y's zero point (input 7)");
        BASE_TRY(q_vec_ok(&c->in[2].shape, 1, "multiplier", "tensor"));
        BASE_TRY(ir_infer_check_dtype(c, 7, q_qtypes));
        BASE_TRY(q_vec_ok(&c->in[7].shape, 1, "y_zero_point", "tensor"));
    }
    const cairn_dtype_t yt = requant ? c->in[7].dtype : CAIRN_F32;
    if (a->rank < 0) {
        ir_infer_unknown(c, 0, yt, -1);
        return CAIRN_OK;
    }
    const int64_t ka = a->d[a->rank - 1];
    if (ir_dim_known(ka) && ir_dim_known(K) && ka != K)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "A %s and B (%lld x %lld): the inner dims %lld and %lld must match",
                              sstr(a, b1, sizeof b1), (long long)K, (long long)N, (long long)ka,
                              (long long)K);
    c->out[0].dtype = yt;
    c->out[0].shape = *a;
    c->out[0].shape.d[a->rank - 1] = N;
    return q_residual_ok(c);
}

cairn_status_t op_fused_mmint_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    const int packed = (int)ir_attr_i(n, FUSED_MM_PACKED);
    const int64_t K = packed ? ir_attr_i(n, FUSED_MM_K) : in[1].shape[0];
    const int64_t N = packed ? ir_attr_i(n, FUSED_MM_N) : in[1].shape[1];
    const int64_t total = kt_numel(&out[0]);
    if (total == 0 || N == 0)
        return CAIRN_OK;
    if (packed && (size_t)kt_numel(&in[1]) < quant_packed_b_size(K, N))
        return base_error(CAIRN_ERR_SHAPE,
                          "FusedMatMulInteger %s: packed B holds %lld bytes but %lld x %lld needs "
                          "%zu", n->name ? n->name : "", (long long)kt_numel(&in[1]),
                          (long long)K, (long long)N, quant_packed_b_size(K, N));
    quant_mm_params_t p;
    memset(&p, 0, sizeof p);
    p.M = total / N, p.K = K, p.N = N;
    p.at = in[0].dtype, p.bt = in[1].dtype, p.yt = CAIRN_DTYPE_UNDEFINED;
    if (kpresent(in, n_in, 3))
        p.azp = in[3].data;
    if (kpresent(in, n_in, 4))
        p.bzp = in[4].data, p.bzp_vec = kt_numel(&in[4]) > 1;
    if (ir_attr_i(n, FUSED_MM_REQUANT))
        return quant_matmul_q8(k, &p, in[0].data, in[1].data, packed, in[2].data,
                               QUANT_SCALE_ONE, NULL, in[7].data, out[0].dtype, out[0].data);
    gemm_epilogue_t epi;
    op_fused_mm_epilogue(n, &epi);
    if (kpresent(in, n_in, 5))
        epi.bias_kind = GEMM_BIAS_COL, epi.bias = in[5].data;
    if (kpresent(in, n_in, 6))
        epi.residual = in[6].data, epi.ldr = N;
    return quant_matmul_f32(k, &p, in[0].data, in[1].data, packed, in[2].data,
                            kt_numel(&in[2]) > 1, &epi, out[0].data);
}

void op_fused_mmint_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost)
{
    op_quant_cost(n, in, n_in, out, n_out, cost);
    const double K = (double)(ir_attr_i(n, FUSED_MM_PACKED) ? ir_attr_i(n, FUSED_MM_K)
                                                            : in[1].shape[0]);
    cost->flops = 2.0 * (double)kt_numel(&out[0]) * K;
}

/* ========================= ConvInteger / QLinearConv ========================= */

/* Conv's geometry rules (kept in step with linalg.c): output shape y and,
 * when all dims are known, the kernel parameters. */
static cairn_status_t q_conv_geom(const ir_node_t *n, const ir_shape_t *x, const ir_shape_t *w,
                                  ir_shape_t *y, conv_params_t *kp)
{
    int rank = x->rank >= 0 ? x->rank : w->rank;
    if (rank < 0) {
        y->rank = -1;
        return CAIRN_OK;
    }
    if (rank < 3 || rank > 2 + CONV_SP)
        return base_error(rank < 3 ? CAIRN_ERR_SHAPE : CAIRN_ERR_UNSUPPORTED,
                          "x must be (N, C, spatial...) with 1 to 3 spatial dims, got rank %d",
                          rank);
    if (w->rank >= 0 && w->rank != rank)
        return base_error(CAIRN_ERR_SHAPE, "w must have rank %d like x (M, C/group, kernel...), "
                          "got rank %d", rank, w->rank);
    const int nsp = rank - 2, off = CONV_SP - nsp;
    const char *ap = ir_attr_s(n, QC_AUTO_PAD);
    int same = 0, valid = 0;
    if (ap && (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")))
        same = ap[5] == 'U' ? 1 : 2;
    else if (ap && !strcmp(ap, "VALID"))
        valid = 1;
    else if (ap && strcmp(ap, "NOTSET"))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "auto_pad is '%s'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID",
                          ap);
    int64_t group = ir_attr_i(n, QC_GROUP);
    if (group < 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "group is %lld; it must be >= 1",
                          (long long)group);
    static const char *const names[] = {"dilations", "kernel_shape", "pads", "strides"};
    static const int slots[] = {QC_DILATIONS, QC_KERNEL_SHAPE, QC_PADS, QC_STRIDES};
    const int64_t *v[4];
    for (int i = 0; i < 4; i++) {
        size_t cnt, want = (size_t)nsp * (slots[i] == QC_PADS ? 2 : 1);
        v[i] = ir_attr_ints(n, slots[i], &cnt);
        if (v[i] && cnt != want)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "%s has %zu entries; with %d spatial dims it needs %zu", names[i],
                              cnt, nsp, want);
        for (size_t j = 0; v[i] && j < cnt; j++)
            if (v[i][j] < (slots[i] == QC_PADS ? 0 : 1))
                return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s[%zu] is %lld; too small",
                                  names[i], j, (long long)v[i][j]);
    }
    const int64_t *dil = v[0], *ks = v[1], *pads = v[2], *st = v[3];
    int64_t C = x->rank >= 0 ? x->d[1] : IR_DIM_UNKNOWN;
    int64_t w0 = w->rank >= 0 ? w->d[0] : IR_DIM_UNKNOWN, w1 = w->rank >= 0 ? w->d[1] : IR_DIM_UNKNOWN;
    if (ir_dim_known(C) && C % group)
        return base_error(CAIRN_ERR_SHAPE, "x has %lld channels, not divisible by group = %lld",
                          (long long)C, (long long)group);
    if (ir_dim_known(C) && ir_dim_known(w1) && C != w1 * group)
        return base_error(CAIRN_ERR_SHAPE,
                          "x has %lld channels but w (M, C/group, ...) expects %lld with group "
                          "= %lld",
                          (long long)C, (long long)(w1 * group), (long long)group);
    if (ir_dim_known(w0) && w0 % group)
        return base_error(CAIRN_ERR_SHAPE, "w has %lld output channels, not divisible by group "
                          "= %lld", (long long)w0, (long long)group);
    y->rank = rank;
    y->d[0] = x->rank >= 0 ? x->d[0] : IR_DIM_UNKNOWN;
    y->d[1] = w0;
    memset(kp, 0, sizeof *kp);
    kp->N = y->d[0], kp->C = C, kp->M = w0, kp->group = group;
    for (int d = 0; d < CONV_SP; d++)
        kp->in[d] = kp->out[d] = kp->kernel[d] = kp->stride[d] = kp->dilation[d] = 1;
    for (int i = 0; i < nsp; i++) {
        int64_t in = x->rank >= 0 ? x->d[2 + i] : IR_DIM_UNKNOWN;
        int64_t wk = w->rank >= 0 ? w->d[2 + i] : IR_DIM_UNKNOWN;
        if (ks && ir_dim_known(wk) && ks[i] != wk)
            return base_error(CAIRN_ERR_SHAPE, "kernel_shape[%d] = %lld but w's spatial dim %d "
                              "is %lld", i, (long long)ks[i], i, (long long)wk);
        int64_t kk = ks ? ks[i] : wk;
        if (kk == 0)
            return base_error(CAIRN_ERR_SHAPE, "w's spatial dim %d is 0", i);
        int64_t s = st ? st[i] : 1, dl = dil ? dil[i] : 1;
        int64_t pb = pads && !valid ? pads[i] : 0, pe = pads && !valid ? pads[nsp + i] : 0;
        int64_t o = IR_DIM_UNKNOWN;
        if (ir_dim_known(in) && ir_dim_known(kk)) {
            int64_t eff = (kk - 1) * dl + 1;
            if (same) {
                o = (in + s - 1) / s;
                int64_t total = (o - 1) * s + eff - in;
                total = total < 0 ? 0 : total;
                pb = same == 1 ? total / 2 : total - total / 2;
            } else {
                if (in + pb + pe < eff)
                    return base_error(CAIRN_ERR_SHAPE,
                                      "spatial dim %d: input %lld + pads %lld + %lld is smaller "
                                      "than the dilated kernel %lld",
                                      i, (long long)in, (long long)pb, (long long)pe,
                                      (long long)eff);
                o = (in + pb + pe - eff) / s + 1;
            }
        }
        y->d[2 + i] = o;
        kp->in[off + i] = in, kp->out[off + i] = o, kp->kernel[off + i] = kk;
        kp->stride[off + i] = s, kp->dilation[off + i] = dl, kp->pad[off + i] = pb;
    }
    return CAIRN_OK;
}

cairn_status_t op_quant_conv_infer(ir_infer_ctx_t *c)
{
    const int ql = c->node->op == IR_OP_QLinearConv;
    const int ix = 0, iw = ql ? 3 : 1, ixz = ql ? 2 : 2, iwz = ql ? 5 : 3;
    BASE_TRY(ir_infer_check_dtype(c, ix, q_qtypes));
    BASE_TRY(ir_infer_check_dtype(c, iw, q_qtypes));
    ir_shape_t y;
    conv_params_t kp;
    BASE_TRY(q_conv_geom(c->node, &c->in[ix].shape, &c->in[iw].shape, &y, &kp));
    int64_t M = c->in[iw].shape.rank >= 1 ? c->in[iw].shape.d[0] : IR_DIM_UNKNOWN;
    if (present(c, ixz)) {
        BASE_TRY(ir_infer_same_dtype(c, ix, ixz));
        BASE_TRY(q_vec_ok(&c->in[ixz].shape, 1, "x_zero_point", "tensor"));
    }
    if (present(c, iwz)) {
        BASE_TRY(ir_infer_same_dtype(c, iw, iwz));
        BASE_TRY(q_vec_ok(&c->in[iwz].shape, M, "w_zero_point", "output channel"));
    }
    c->out[0].dtype = CAIRN_I32;
    if (ql) {
        BASE_TRY(ir_infer_check_dtype(c, 1, q_f32));
        BASE_TRY(ir_infer_check_dtype(c, 4, q_f32));
        BASE_TRY(ir_infer_check_dtype(c, 6, q_f32));
        BASE_TRY(ir_infer_check_dtype(c, 7, q_qtypes));
        BASE_TRY(q_vec_ok(&c->in[1].shape, 1, "x_scale", "tensor"));
        BASE_TRY(q_vec_ok(&c->in[4].shape, M, "w_scale", "output channel"));
        BASE_TRY(q_vec_ok(&c->in[6].shape, 1, "y_scale", "tensor"));
        BASE_TRY(q_vec_ok(&c->in[7].shape, 1, "y_zero_point", "tensor"));
        if (present(c, 8)) {
            static const cairn_dtype_t i32[] = {CAIRN_I32, CAIRN_DTYPE_UNDEFINED};
            BASE_TRY(ir_infer_check_dtype(c, 8, i32));
            const ir_shape_t *b = &c->in[8].shape;
            if (b->rank >= 0 && (b->rank != 1 || (ir_dim_known(b->d[0]) && ir_dim_known(M) &&
                                                  b->d[0] != M)))
                return base_error(CAIRN_ERR_SHAPE, "bias B must be 1-D with %lld entries (one "
                                  "per output channel)", (long long)M);
        }
        c->out[0].dtype = c->in[7].dtype;
    }
    c->out[0].shape = y;
    return CAIRN_OK;
}

/* How ConvInteger / QLinearConv get their exact int32 sums: 8-bit
 * operands and group 1 on the int8 GEMM (quant_conv_i32: im2col and the
 * exact sums, no workspace of its own); grouped ones of at most
 * CONVINT_F32_MAX_TAPS taps a group as an f32 convolution (below); else
 * (0) the double reference. QLinearConv requantises the sums afterwards
 * exactly as the reference does. */
enum { CONVINT_REF = 0, CONVINT_GEMM = 1, CONVINT_F32 = 2, CONVINT_DW = 3 };

/* A grouped convolution (depthwise: MobileNetV2's under quantize_dynamic)
 * whose groups reduce over at most 258 taps runs as the f32 convolution on
 * x - xz and w - wz: every product is an integer of at most 255 x 255 in
 * magnitude and every partial sum of at most 258 of them stays below 2^24,
 * so the f32 kernel's sums (in any order, with FMA or not) are the exact
 * integers. conv_f32 with plain weights only multiplies and adds (its
 * Winograd form, whose transforms would round, runs on pre-packed weights
 * alone). Its workspace: x, w and y as f32, then conv_f32's. */
#define CONVINT_F32_MAX_TAPS 258

static int convint_route(const ir_node_t *n, const ktensor_t *in, conv_params_t *kp)
{
    ir_shape_t xs, wsh, y;
    const ktensor_t *W = &in[n->op == IR_OP_QLinearConv ? 3 : 1];
    if ((in[0].dtype != CAIRN_U8 && in[0].dtype != CAIRN_I8) ||
        (W->dtype != CAIRN_U8 && W->dtype != CAIRN_I8))
        return CONVINT_REF;
    shape_of(&in[0], &xs);
    shape_of(W, &wsh);
    if (q_conv_geom(n, &xs, &wsh, &y, kp) != CAIRN_OK) {
        base_error_clear();
        return CONVINT_REF;
    }
    if (quant_conv_fast(kp))
        return CONVINT_GEMM;
    if (quant_dw_fits(kp)) /* depthwise, 2-D: quant_dwconv, in cache plane by plane */
        return CONVINT_DW;
    int64_t taps = kp->C / kp->group;
    for (int d = 0; d < CONV_SP; d++)
        taps *= kp->kernel[d];
    return kp->group > 1 && taps <= CONVINT_F32_MAX_TAPS ? CONVINT_F32 : CONVINT_REF;
}

/* workspace of the route's sums (not counting QLinearConv's) */
static size_t convint_route_ws(int route, const conv_params_t *kp, const ktensor_t *X,
                               const ktensor_t *W, int64_t ny)
{
    if (route != CONVINT_F32)
        return 0;
    return base_round_up((size_t)(kt_numel(X) + kt_numel(W) + ny) * sizeof(float), BASE_ALIGN) +
           conv_f32_workspace(kp);
}

/* the grouped route's passes, on the pool in pieces of CI_PIECE elements:
 * x - xz as f32 (widen), or the f32 sums, whole numbers, as int32 */
#define CI_PIECE 65536
typedef struct ci_pass {
    const void *src;
    void *dst;
    int64_t n;
    cairn_dtype_t xt; /* widen: u8 / i8; CAIRN_F32: the sums to int32 */
    int32_t xz;
} ci_pass_t;

static void ci_pass_task(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    const ci_pass_t *j = ctx;
    const int64_t i0 = (int64_t)b * CI_PIECE, i1 = (int64_t)e * CI_PIECE < j->n
                                                      ? (int64_t)e * CI_PIECE
                                                      : j->n;
    if (j->xt == CAIRN_F32) {
        const float *restrict s = j->src;
        int32_t *restrict d = j->dst;
        for (int64_t i = i0; i < i1; i++)
            d[i] = (int32_t)s[i];
    } else if (j->xt == CAIRN_U8) {
        const uint8_t *restrict s = j->src;
        float *restrict d = j->dst;
        for (int64_t i = i0; i < i1; i++)
            d[i] = (float)((int32_t)s[i] - j->xz);
    } else {
        const int8_t *restrict s = j->src;
        float *restrict d = j->dst;
        for (int64_t i = i0; i < i1; i++)
            d[i] = (float)((int32_t)s[i] - j->xz);
    }
}

static void ci_pass(const kctx_t *k, const ci_pass_t *j)
{
    const size_t pieces = (size_t)((j->n + CI_PIECE - 1) / CI_PIECE);
    base_pool_parallel_for_1d(k && k->pool && k->threads > 1 && pieces > 1 ? k->pool : NULL,
                              pieces, 1, ci_pass_task, (void *)j);
}

/* the exact sums into acc (ny int32) by the route */
static cairn_status_t convint_sums(int route, const conv_params_t *kp, const ktensor_t *X,
                                   const ktensor_t *W, const ktensor_t *xzt,
                                   const ktensor_t *wzt, int32_t *acc, int64_t ny, void *ws,
                                   const kctx_t *k)
{
    if (route == CONVINT_GEMM || route == CONVINT_DW) {
        quant_conv_params_t qp;
        memset(&qp, 0, sizeof qp);
        qp.g = *kp, qp.xt = X->dtype, qp.wt = W->dtype;
        qp.xz = xzt ? xzt->data : NULL;
        qp.wz = wzt ? wzt->data : NULL, qp.wz_vec = wzt && kt_numel(wzt) > 1;
        return route == CONVINT_DW
                   ? quant_dwconv(k, &qp, X->data, W->data, NULL, NULL, CAIRN_I32, acc)
                   : quant_conv_i32(k, &qp, X->data, W->data, acc);
    }
    const int64_t nx = kt_numel(X), nw = kt_numel(W);
    const int64_t M = W->shape[0], per_m = M ? nw / M : 0;
    float *xf = ws, *wf = xf + nx, *yf = wf + nw;
    char *cws = (char *)ws + base_round_up((size_t)(nx + nw + ny) * sizeof(float), BASE_ALIGN);
    const int32_t xz = xzt ? q_load(xzt->data, X->dtype, 0) : 0;
    const int wzv = wzt && kt_numel(wzt) > 1;
    /* x - xz and w - wz[m] as f32, x in loops of one type each on the pool
     * (they vectorise; an element-by-element q_load cost more than the
     * depthwise convolution itself) */
    const ci_pass_t wx = {X->data, xf, nx, X->dtype, xz};
    ci_pass(k, &wx);
    for (int64_t m = 0; m < M; m++) {
        const int32_t wz = wzt ? q_load(wzt->data, W->dtype, wzv ? m : 0) : 0;
        for (int64_t i = m * per_m; i < (m + 1) * per_m; i++)
            wf[i] = (float)(q_load(W->data, W->dtype, i) - wz);
    }
    BASE_TRY(conv_f32(k, kp, xf, wf, NULL, NULL, yf, cws, conv_f32_workspace(kp)));
    const ci_pass_t ty = {yf, acc, ny, CAIRN_F32, 0};
    ci_pass(k, &ty);
    return CAIRN_OK;
}

/* QLinearConv's workspace on a fast route: the int32 sums and the
 * multipliers */
static size_t qlconv_fast_ws(int64_t ny, int64_t M)
{
    return base_round_up((size_t)ny * sizeof(int32_t), BASE_ALIGN) +
           base_round_up((size_t)M * sizeof(float), BASE_ALIGN);
}

const char *op_quant_dw_variant(const ir_node_t *n, const ktensor_t *in)
{
    conv_params_t kp;
    return quant_dw_variant(convint_route(n, in, &kp) == CONVINT_DW ? &kp : NULL);
}

void op_quant_conv_describe(const ir_node_t *n, const ktensor_t *in, char *buf, size_t cap)
{
    conv_params_t kp;
    const int ql = n->op == IR_OP_QLinearConv;
    switch (convint_route(n, in, &kp)) {
    case CONVINT_DW:
        snprintf(buf, cap, "int8 depthwise %s, %s", quant_dw_variant(&kp),
                 ql ? "requantised" : "int32 sums");
        break;
    case CONVINT_GEMM:
        snprintf(buf, cap, "int8 conv: im2col + int8 gemm %s%s", gemm_s8_variant_name(),
                 ql ? ", requantised" : "");
        break;
    case CONVINT_F32:
        snprintf(buf, cap, "int8 grouped conv as exact f32 sums%s", ql ? ", requantised" : "");
        break;
    default: snprintf(buf, cap, "ref"); break;
    }
}

/* QLinearConv's multipliers x_scale w_scale[m] / y_scale, one per output
 * channel, formed in f32 like the spec's numpy */
static void qlconv_mult(const ktensor_t *in, int64_t M, float *mult)
{
    const float xs = *(const float *)in[1].data, ys = *(const float *)in[6].data;
    const float *wsc = in[4].data;
    const int wsv = kt_numel(&in[4]) > 1;
    for (int64_t m = 0; m < M; m++)
        mult[m] = xs * wsc[wsv ? m : 0] / ys;
}

cairn_status_t op_quant_conv_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out;
    const int ql = n->op == IR_OP_QLinearConv;
    const ktensor_t *X = &in[0], *W = &in[ql ? 3 : 1];
    const int ixz = 2, iwz = ql ? 5 : 3;
    ir_shape_t xs, wsh, y;
    conv_params_t kp;
    shape_of(X, &xs);
    shape_of(W, &wsh);
    BASE_TRY(q_conv_geom(n, &xs, &wsh, &y, &kp));
    int64_t nx = kt_numel(X), nw = kt_numel(W), ny = kt_numel(&out[0]), M = W->shape[0];
    if (ny == 0)
        return CAIRN_OK;
    const int route = convint_route(n, in, &kp);
    const ktensor_t *xzt = kpresent(in, n_in, ixz) ? &in[ixz] : NULL;
    const ktensor_t *wzt = kpresent(in, n_in, iwz) ? &in[iwz] : NULL;
    double *yd;
    float *mult;
    if (route != CONVINT_REF && !ql)
        return convint_sums(route, &kp, X, W, xzt, wzt, out[0].data, ny, ws, k);
    const int32_t *bias = kpresent(in, n_in, 8) ? in[8].data : NULL;
    if (route == CONVINT_DW) { /* QLinearConv, depthwise: requantised plane by plane */
        quant_conv_params_t qp;
        memset(&qp, 0, sizeof qp);
        qp.g = kp, qp.xt = X->dtype, qp.wt = W->dtype;
        qp.xz = xzt ? xzt->data : NULL;
        qp.wz = wzt ? wzt->data : NULL, qp.wz_vec = wzt && kt_numel(wzt) > 1;
        qp.scale = mult = ws, qp.scale_vec = 1;
        qlconv_mult(in, M, mult);
        return quant_dwconv(k, &qp, X->data, W->data, bias, in[7].data, out[0].dtype,
                            out[0].data);
    }
    int32_t *acc = NULL;
    if (route != CONVINT_REF) { /* QLinearConv: the sums, then the reference's requantisation */
        acc = ws;
        yd = NULL;
        mult = (float *)((char *)ws + base_round_up((size_t)ny * sizeof(int32_t), BASE_ALIGN));
        void *sws = (char *)ws + qlconv_fast_ws(ny, M);
        BASE_TRY(convint_sums(route, &kp, X, W, xzt, wzt, acc, ny, sws, k));
    } else { /* the reference: x and w widened to double, the double convolution */
        double *xd = ws, *wd = xd + nx;
        yd = wd + nw;
        mult = (float *)(yd + ny);
        quant_axis_t ax = {1, 1, nx};
        quant_widen_ref(X->dtype, X->data, xzt ? xzt->data : NULL, 0, xd, &ax);
        quant_axis_t aw = {1, M, nw / (M ? M : 1)};
        const int wzv = wzt && kt_numel(wzt) > 1;
        quant_widen_ref(W->dtype, W->data, wzt ? wzt->data : NULL, wzv, wd, &aw);
        BASE_TRY(conv_ref(k, CAIRN_F64, &kp, xd, wd, NULL, yd));
    }
    quant_axis_t ay = {out[0].shape[0], M, ny / (out[0].shape[0] * M)};
    if (!ql) {
        quant_requant_ref(yd, NULL, NULL, NULL, CAIRN_I32, out[0].data, &ay);
        return CAIRN_OK;
    }
    qlconv_mult(in, M, mult);
    if (acc) /* the same arithmetic in vector loops on the pool */
        quant_requantize(k, acc, bias, mult, in[7].data, out[0].dtype, out[0].data, &ay);
    else
        quant_requant_ref(yd, bias, mult, in[7].data, out[0].dtype, out[0].data, &ay);
    return CAIRN_OK;
}

/* ====================== FusedConvInteger (fuse_qdq) ====================== */

/* W's logical shape (M, C, kernel...): its own, or with W packed (a u8
 * buffer from quant_pack_a) from the attributes m and kernel_shape and x's
 * channels */
static cairn_status_t convint_w_shape(const ir_node_t *n, const ir_shape_t *x,
                                      const ir_shape_t *w, ir_shape_t *out)
{
    if (!ir_attr_i(n, QC_PACKED)) {
        *out = *w;
        return CAIRN_OK;
    }
    size_t nk = 0;
    const int64_t *ks = ir_attr_ints(n, QC_KERNEL_SHAPE, &nk);
    const int64_t m = ir_attr_i(n, QC_M);
    int64_t taps = 1;
    for (size_t i = 0; ks && i < nk && i < CONV_SP; i++)
        taps = ks[i] >= 1 && ks[i] <= 32768 && taps <= 32768 ? taps * ks[i] : 1 << 30;
    if (!ks || nk < 1 || nk > CONV_SP || m < 1 || m > ((int64_t)1 << 31) || taps > 32768 ||
        w->rank != 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "packed W needs m in [1, 2^31], kernel_shape with 1 to 3 dims of at "
                          "most 32768 taps and a 1-D u8 buffer (got m = %lld, %zu kernel dims, "
                          "W of rank %d)",
                          (long long)m, nk, w->rank);
    out->rank = (int)nk + 2;
    out->d[0] = m;
    out->d[1] = x->rank >= 2 ? x->d[1] : IR_DIM_UNKNOWN;
    for (size_t i = 0; i < nk; i++)
        out->d[2 + i] = ks[i];
    return CAIRN_OK;
}

/* bytes a packed W of logical shape w needs (0 when not yet known) */
static size_t convint_packed_size(const ir_shape_t *w)
{
    int64_t K = 1;
    for (int i = 1; i < w->rank; i++) {
        if (!ir_dim_known(w->d[i]))
            return 0;
        if (w->d[i] < 0 || w->d[i] > 32768 || (K *= w->d[i]) > 32768)
            return SIZE_MAX; /* past the int8 GEMM's depth: never a valid buffer */
    }
    return quant_packed_a_size(w->d[0], K);
}

/* A FusedConvInteger of group > 1 that runs: depthwise (one input channel
 * and one output channel a group: W (C, 1, kernel...)), W as given, the
 * dequantising form; quant_dw_fits then checks the rest of the geometry
 * where the sizes are known (fuse_conv makes only those that fit). */
static int fused_convint_dw(const ir_node_t *n, const ir_shape_t *wsh, const conv_params_t *kp)
{
    if (ir_attr_i(n, QC_PACKED) || ir_attr_i(n, QC_REQUANT) || wsh->rank < 3 ||
        wsh->d[1] != 1 || wsh->d[0] != kp->group)
        return 0;
    for (int d = 0; d < CONV_SP; d++)
        if (!ir_dim_known(kp->in[d]) || !ir_dim_known(kp->out[d]))
            return 1; /* sizes unknown yet: the execution checks them */
    if (!ir_dim_known(kp->C))
        return 1;
    return kp->C == kp->group && quant_dw_fits(kp);
}

/* FusedConvInteger(X, W, scale, [x_zero_point], [w_zero_point], [bias],
 * [residual]) = Conv(DequantizeLinear(X), DequantizeLinear(W)) + bias
 * [+ residual] with the dequantisation applied once to the exact integer
 * sums: X and W u8 / i8 (group 1, or depthwise: fused_convint_dw), scale
 * f32 one value or one per output channel (x's scale times w's),
 * x_zero_point one value, w_zero_point one or one per channel, bias f32 one
 * per channel, then the activation (none, relu or clip), residual f32 of
 * the output's shape. Output f32.
 * With requant = 1, QLinearConv(X, sx, zx, W, sw, zw, sy, zy, [B]) (made by
 * fuse_qdq): inputs (X, W, mult, zx, zw, [B], -, zy), mult = sx sw / sy
 * formed in f32 as the reference forms it, B int32; the output is zy's
 * 8-bit type, the reference's requantisation of the same exact sums
 * (quant_conv_q8), so its bits. */
cairn_status_t op_fused_convint_infer(ir_infer_ctx_t *c)
{
    const int packed = (int)ir_attr_i(c->node, QC_PACKED);
    BASE_TRY(ir_infer_check_dtype(c, 0, q_qtypes));
    if (packed) {
        static const cairn_dtype_t u8[] = {CAIRN_U8, CAIRN_DTYPE_UNDEFINED};
        BASE_TRY(ir_infer_check_dtype(c, 1, u8));
    } else {
        BASE_TRY(ir_infer_check_dtype(c, 1, q_qtypes));
    }
    BASE_TRY(ir_infer_check_dtype(c, 2, q_f32));
    ir_shape_t y, wsh;
    conv_params_t kp;
    BASE_TRY(convint_w_shape(c->node, &c->in[0].shape, &c->in[1].shape, &wsh));
    BASE_TRY(q_conv_geom(c->node, &c->in[0].shape, &wsh, &y, &kp));
    if (kp.group != 1 && !fused_convint_dw(c->node, &wsh, &kp))
        return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED,
                              "group is %lld; only group 1 or a depthwise convolution (one "
                              "channel a group, unpacked W, dequantised) runs here",
                              (long long)kp.group);
    if (packed) {
        const size_t need = convint_packed_size(&wsh);
        if (need && ir_dim_known(c->in[1].shape.d[0]) && (size_t)c->in[1].shape.d[0] < need)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "packed W holds %lld bytes but needs %zu",
                                  (long long)c->in[1].shape.d[0], need);
    }
    const int64_t M = wsh.rank >= 1 ? wsh.d[0] : IR_DIM_UNKNOWN;
    const int requant = (int)ir_attr_i(c->node, QC_REQUANT);
    const int64_t act = ir_attr_i(c->node, QC_ACTIVATION);
    if ((act != GEMM_ACT_NONE && act != GEMM_ACT_RELU && act != GEMM_ACT_CLIP) ||
        (act != GEMM_ACT_NONE && requant))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "activation %lld: the dequantising form takes 0 (none), %d (relu) "
                              "or %d (clip); the requantising form none",
                              (long long)act, (int)GEMM_ACT_RELU, (int)GEMM_ACT_CLIP);
    BASE_TRY(q_dequant_inputs(c, packed, M, "output channel", "x_zero_point", "w_zero_point",
                              requant ? q_i32 : q_f32));
    c->out[0].shape = y;
    if (!requant) {
        c->out[0].dtype = CAIRN_F32;
        return q_residual_ok(c);
    }
    /* QLinearConv's form: y's zero point (input 7) gives the output's type */
    if (present(c, 6))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "the requantising form takes no residual");
    if (!present(c, 7))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "the requantising form needs y's zero point (input 7)");
    BASE_TRY(ir_infer_check_dtype(c, 7, q_qtypes));
    BASE_TRY(q_vec_ok(&c->in[7].shape, 1, "y_zero_point", "tensor"));
    c->out[0].dtype = c->in[7].dtype;
    return CAIRN_OK;
}

cairn_status_t op_fused_convint_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    ir_shape_t xs, wbuf, wsh, y;
    quant_conv_params_t p;
    memset(&p, 0, sizeof p);
    shape_of(&in[0], &xs);
    shape_of(&in[1], &wbuf);
    BASE_TRY(convint_w_shape(n, &xs, &wbuf, &wsh));
    BASE_TRY(q_conv_geom(n, &xs, &wsh, &y, &p.g));
    if (kt_numel(&out[0]) == 0)
        return CAIRN_OK;
    p.w_packed = (int)ir_attr_i(n, QC_PACKED);
    if (p.w_packed && (size_t)kt_numel(&in[1]) < convint_packed_size(&wsh))
        return base_error(CAIRN_ERR_SHAPE,
                          "FusedConvInteger %s: packed W holds %lld bytes but needs %zu",
                          n->name ? n->name : "", (long long)kt_numel(&in[1]),
                          convint_packed_size(&wsh));
    p.xt = in[0].dtype, p.wt = in[1].dtype; /* packed: its header's type */
    p.scale = in[2].data, p.scale_vec = kt_numel(&in[2]) > 1;
    if (kpresent(in, n_in, 3))
        p.xz = in[3].data;
    if (kpresent(in, n_in, 4))
        p.wz = in[4].data, p.wz_vec = kt_numel(&in[4]) > 1;
    if (ir_attr_i(n, QC_REQUANT))
        return quant_conv_q8(k, &p, in[0].data, in[1].data,
                             kpresent(in, n_in, 5) ? in[5].data : NULL, in[7].data,
                             out[0].dtype, out[0].data);
    gemm_epilogue_t epi;
    memset(&epi, 0, sizeof epi);
    epi.scale = 1.0f;
    epi.act = (gemm_act_t)ir_attr_i(n, QC_ACTIVATION);
    epi.clip_lo = ir_attr_f(n, QC_CLIP_MIN), epi.clip_hi = ir_attr_f(n, QC_CLIP_MAX);
    if (kpresent(in, n_in, 5))
        epi.bias_kind = GEMM_BIAS_ROW, epi.bias = in[5].data;
    if (kpresent(in, n_in, 6))
        epi.residual = in[6].data;
    if (p.g.group > 1) /* depthwise (infer checked): plane by plane in cache */
        return quant_dwconv_f32(k, &p, in[0].data, in[1].data, &epi, out[0].data);
    return quant_conv_f32(k, &p, in[0].data, in[1].data, &epi, out[0].data);
}

void op_fused_convint_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                           int n_out, ir_cost_t *cost)
{
    op_quant_cost(n, in, n_in, out, n_out, cost);
    ir_shape_t xs, wbuf, wsh;
    shape_of(&in[0], &xs);
    shape_of(&in[1], &wbuf);
    double taps = 1;
    if (convint_w_shape(n, &xs, &wbuf, &wsh) == CAIRN_OK)
        for (int i = 1; i < wsh.rank; i++)
            taps *= (double)wsh.d[i];
    else
        base_error_clear();
    cost->flops = 2.0 * (double)kt_numel(&out[0]) * taps;
}

/* ========================= GatherND / ScatterND / ScatterElements ========================= */

cairn_status_t op_quant_gathernd_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    BASE_TRY(ir_infer_check_dtype(c, 1, q_i64));
    const ir_shape_t *d = &c->in[0].shape, *ix = &c->in[1].shape;
    int64_t b = ir_attr_i(c->node, 0);
    c->out[0].dtype = c->in[0].dtype;
    if (d->rank < 0 || ix->rank < 0 || !ir_dim_known(ix->d[ix->rank - 1 >= 0 ? ix->rank - 1 : 0])) {
        if (ix->rank == 0)
            return base_error(CAIRN_ERR_SHAPE, "indices must have rank >= 1, got a scalar");
        c->out[0].shape.rank = -1;
        return CAIRN_OK;
    }
    if (ix->rank < 1)
        return base_error(CAIRN_ERR_SHAPE, "indices must have rank >= 1, got a scalar");
    if (b < 0 || b >= d->rank || b >= ix->rank)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "batch_dims is %lld; it must be >= 0 and less than both ranks (data %d, "
                          "indices %d)",
                          (long long)b, d->rank, ix->rank);
    int64_t q = ix->d[ix->rank - 1];
    if (q < 1 || q > d->rank - b)
        return base_error(CAIRN_ERR_SHAPE,
                          "the last dim of indices is %lld; it must be in [1, %lld] (data rank "
                          "%d minus batch_dims %lld)",
                          (long long)q, (long long)(d->rank - b), d->rank, (long long)b);
    for (int i = 0; i < b; i++)
        if (ir_dim_known(d->d[i]) && ir_dim_known(ix->d[i]) && d->d[i] != ix->d[i])
            return base_error(CAIRN_ERR_SHAPE,
                              "batch dim %d differs: data has %lld, indices %lld", i,
                              (long long)d->d[i], (long long)ix->d[i]);
    ir_shape_t o;
    o.rank = 0;
    int orank = ix->rank - 1 + d->rank - (int)b - (int)q;
    if (orank > CAIRN_MAX_RANK)
        return base_error(CAIRN_ERR_UNSUPPORTED, "the output would have rank %d; cairn allows %d",
                          orank, CAIRN_MAX_RANK);
    for (int i = 0; i < ix->rank - 1; i++)
        o.d[o.rank++] = ix->d[i];
    for (int i = (int)b + (int)q; i < d->rank; i++)
        o.d[o.rank++] = d->d[i];
    c->out[0].shape = o;
    return CAIRN_OK;
}

cairn_status_t op_quant_gathernd_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                      ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    if (kt_numel(&out[0]) == 0)
        return CAIRN_OK;
    return quant_gather_nd_ref(in[0].data, in[0].shape, in[0].rank, in[1].data, in[1].shape,
                               in[1].rank, (int)ir_attr_i(n, 0), cairn_dtype_size(in[0].dtype),
                               out[0].data);
}

static cairn_status_t q_reduction(const char *r, const ir_node_t *n, int *out)
{
    (void)n;
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    for (int i = 0; i < 5; i++)
        if (r && !strcmp(r, names[i])) {
            *out = i;
            return CAIRN_OK;
        }
    return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                      "reduction is '%s'; it must be none, add, mul, max or min", r ? r : "");
}

cairn_status_t op_quant_scatternd_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    BASE_TRY(ir_infer_check_dtype(c, 1, q_i64));
    BASE_TRY(ir_infer_same_dtype(c, 0, 2));
    int red = 0;
    BASE_TRY(q_reduction(ir_attr_s(c->node, 0), c->node, &red));
    if (red != QUANT_RED_NONE && c->in[0].dtype == CAIRN_BOOL)
        return base_error(CAIRN_ERR_DTYPE, "reduction '%s' needs a numeric type, not bool",
                          ir_attr_s(c->node, 0));
    const ir_shape_t *d = &c->in[0].shape, *ix = &c->in[1].shape, *u = &c->in[2].shape;
    if (ix->rank == 0)
        return base_error(CAIRN_ERR_SHAPE, "indices must have rank >= 1, got a scalar");
    if (d->rank >= 0 && ix->rank >= 1 && ir_dim_known(ix->d[ix->rank - 1])) {
        int64_t q = ix->d[ix->rank - 1];
        if (q < 1 || q > d->rank)
            return base_error(CAIRN_ERR_SHAPE, "the last dim of indices is %lld; it must be in "
                              "[1, %d] (the data rank)", (long long)q, d->rank);
        if (u->rank >= 0) {
            char b1[128], b2[128], b3[128];
            int want = ix->rank - 1 + d->rank - (int)q, bad = u->rank != want;
            for (int i = 0; !bad && i < want; i++) {
                int64_t e = i < ix->rank - 1 ? ix->d[i] : d->d[(int)q + i - (ix->rank - 1)];
                if (ir_dim_known(e) && ir_dim_known(u->d[i]) && e != u->d[i])
                    bad = 1;
            }
            if (bad)
                return base_error(CAIRN_ERR_SHAPE,
                                  "updates %s must be indices.shape[:-1] + data.shape[%lld:] "
                                  "(indices %s, data %s)",
                                  sstr(u, b1, sizeof b1), (long long)q, sstr(ix, b2, sizeof b2),
                                  sstr(d, b3, sizeof b3));
        }
    }
    c->out[0] = c->in[0];
    return CAIRN_OK;
}

cairn_status_t op_quant_scatternd_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                       ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int red = 0;
    BASE_TRY(q_reduction(ir_attr_s(n, 0), n, &red));
    size_t bytes = cairn_tensor_bytes(&in[0]);
    if (bytes && out[0].data != in[0].data)
        memcpy(out[0].data, in[0].data, bytes);
    if (kt_numel(&in[2]) == 0)
        return CAIRN_OK;
    return quant_scatter_nd_ref(in[0].dtype, out[0].data, in[0].shape, in[0].rank, in[1].data,
                                in[1].shape, in[1].rank, in[2].data, red);
}

cairn_status_t op_quant_scatterel_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_index));
    BASE_TRY(ir_infer_same_dtype(c, 0, 2));
    int red = 0;
    BASE_TRY(q_reduction(ir_attr_s(c->node, QSE_REDUCTION), c->node, &red));
    if (red != QUANT_RED_NONE && c->in[0].dtype == CAIRN_BOOL)
        return base_error(CAIRN_ERR_DTYPE, "reduction '%s' needs a numeric type, not bool",
                          ir_attr_s(c->node, QSE_REDUCTION));
    const ir_shape_t *d = &c->in[0].shape, *ix = &c->in[1].shape, *u = &c->in[2].shape;
    char b1[128], b2[128];
    if (ix->rank >= 0 && u->rank >= 0) {
        int bad = ix->rank != u->rank;
        for (int i = 0; !bad && i < ix->rank; i++)
            if (ir_dim_known(ix->d[i]) && ir_dim_known(u->d[i]) && ix->d[i] != u->d[i])
                bad = 1;
        if (bad)
            return base_error(CAIRN_ERR_SHAPE, "indices %s and updates %s must have the same "
                              "shape", sstr(ix, b1, sizeof b1), sstr(u, b2, sizeof b2));
    }
    if (d->rank >= 0) {
        int axis;
        if (d->rank == 0)
            return base_error(CAIRN_ERR_SHAPE, "data must have rank >= 1, got a scalar");
        BASE_TRY(ir_norm_axis(ir_attr_i(c->node, QSE_AXIS), d->rank, &axis));
        if (ix->rank >= 0 && ix->rank != d->rank)
            return base_error(CAIRN_ERR_SHAPE, "indices %s must have the rank of data %s",
                              sstr(ix, b1, sizeof b1), sstr(d, b2, sizeof b2));
        for (int i = 0; ix->rank >= 0 && i < d->rank; i++)
            if (i != axis && ir_dim_known(ix->d[i]) && ir_dim_known(d->d[i]) &&
                ix->d[i] > d->d[i])
                return base_error(CAIRN_ERR_SHAPE, "indices %s exceed data %s in dim %d",
                                  sstr(ix, b1, sizeof b1), sstr(d, b2, sizeof b2), i);
    }
    c->out[0] = c->in[0];
    return CAIRN_OK;
}

cairn_status_t op_quant_scatterel_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                       ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int red = 0, axis;
    BASE_TRY(q_reduction(ir_attr_s(n, QSE_REDUCTION), n, &red));
    BASE_TRY(ir_norm_axis(ir_attr_i(n, QSE_AXIS), in[0].rank, &axis));
    size_t bytes = cairn_tensor_bytes(&in[0]);
    if (bytes && out[0].data != in[0].data)
        memcpy(out[0].data, in[0].data, bytes);
    if (kt_numel(&in[1]) == 0)
        return CAIRN_OK;
    return quant_scatter_elements_ref(in[0].dtype, out[0].data, in[0].shape, in[0].rank,
                                      in[1].dtype, in[1].data, in[1].shape, in[2].data, axis, red);
}

/* ========================= Einsum ========================= */

/* Parses the equation against the operand shapes (dims may be unknown in
 * partial mode) into the kernel's label loop and the output shape. Letters
 * are labels 0..51; the ellipsis dims are labels 52.. (right-aligned, so
 * operands with fewer of them broadcast). */
static cairn_status_t q_einsum_parse(const char *eq, int n_ops, const ir_shape_t *const *sh,
                                     quant_einsum_params_t *p, ir_shape_t *out)
{
    char terms[QUANT_EINSUM_MAX_OPS + 1][64];
    int nt = 0, has_arrow = 0;
    size_t len = 0;
    memset(p, 0, sizeof *p);
    if (!eq)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "equation is missing");
    if (n_ops > QUANT_EINSUM_MAX_OPS)
        return base_error(CAIRN_ERR_UNSUPPORTED, "%d operands; cairn's Einsum takes at most %d",
                          n_ops, QUANT_EINSUM_MAX_OPS);
    terms[0][0] = 0;
    for (const char *s = eq; *s; s++) {
        if (*s == ' ')
            continue;
        if (*s == ',' || (*s == '-' && s[1] == '>')) {
            if (has_arrow)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT, "equation '%s': nothing may "
                                  "follow the output term", eq);
            if (*s == '-') {
                s++;
                has_arrow = 1;
            }
            if (++nt > QUANT_EINSUM_MAX_OPS)
                return base_error(CAIRN_ERR_UNSUPPORTED, "equation '%s' has too many terms", eq);
            terms[nt][0] = 0, len = 0;
            continue;
        }
        int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '.';
        if (!ok || len >= 62)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "equation '%s': '%c' is not a letter, ',', '->' or '...'", eq, *s);
        terms[nt][len++] = *s, terms[nt][len] = 0;
    }
    int n_in_terms = has_arrow ? nt : nt + 1;
    if (n_in_terms != n_ops)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "equation '%s' has %d input terms but the node has %d inputs", eq,
                          n_in_terms, n_ops);
    int64_t size[QUANT_EINSUM_MAX_LABELS];
    int count[QUANT_EINSUM_MAX_LABELS] = {0};
    for (int l = 0; l < QUANT_EINSUM_MAX_LABELS; l++)
        size[l] = -2; /* not seen */
    int n_ell = 0, rank_known = 1;
    int lab[QUANT_EINSUM_MAX_OPS][CAIRN_MAX_RANK];
    for (int o = 0; o < n_ops; o++) {
        const char *t = terms[o];
        const ir_shape_t *s = sh[o];
        int nl = 0, ell = -1;
        for (int i = 0; t[i]; i++) {
            if (t[i] == '.') {
                if (ell >= 0 || strncmp(t + i, "...", 3))
                    return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                      "equation '%s': term %d has a bad or second ellipsis", eq,
                                      o);
                ell = nl, i += 2;
            } else
                nl++;
        }
        if (s->rank < 0) {
            rank_known = 0;
            continue;
        }
        int e = s->rank - nl;
        if (e < 0 || (ell < 0 && e != 0))
            return base_error(CAIRN_ERR_SHAPE, "equation '%s': term '%s' has %d labels but input "
                              "%d has rank %d", eq, t, nl, o, s->rank);
        if (e > n_ell)
            n_ell = e;
        int d = 0;
        for (int i = 0; t[i]; i++) {
            if (t[i] == '.') {
                for (int j = 0; j < e; j++, d++)
                    lab[o][d] = -(e - j); /* resolved after n_ell is known */
                i += 2;
                continue;
            }
            lab[o][d++] = t[i] >= 'a' ? t[i] - 'a' : 26 + t[i] - 'A';
        }
    }
    if (!rank_known) {
        out->rank = -1;
        return CAIRN_OK;
    }
    if (52 + n_ell > QUANT_EINSUM_MAX_LABELS)
        return base_error(CAIRN_ERR_UNSUPPORTED, "too many ellipsis dims");
    /* sizes and strides */
    for (int o = 0; o < n_ops; o++) {
        const ir_shape_t *s = sh[o];
        int64_t st = 1;
        for (int d = s->rank - 1; d >= 0; d--) {
            int l = lab[o][d] < 0 ? 52 + n_ell + lab[o][d] : lab[o][d];
            lab[o][d] = l;
            int64_t dim = s->d[d];
            if (l >= 52 && dim == 1) { /* a broadcast ellipsis dim: stride 0 */
                if (size[l] == -2)
                    size[l] = 1;
                continue;
            }
            /* letters must agree exactly (only ellipsis dims broadcast);
             * size 1 for an ellipsis label came from broadcasting operands */
            if (size[l] == -2 || (l >= 52 && size[l] == 1) || !ir_dim_known(size[l]))
                size[l] = ir_dim_known(dim) || size[l] == -2 || size[l] == 1 ? dim : size[l];
            else if (ir_dim_known(dim) && dim != size[l])
                return base_error(CAIRN_ERR_SHAPE,
                                  "equation '%s': label '%c' has size %lld in input %d but %lld "
                                  "elsewhere",
                                  eq, l < 26 ? 'a' + l : l < 52 ? 'A' + l - 26 : '.',
                                  (long long)dim, o, (long long)size[l]);
            p->in_stride[o][l] += ir_dim_known(dim) ? st : 0;
            st *= ir_dim_known(dim) ? dim : 1;
        }
        for (int d = 0; d < s->rank; d++)
            count[lab[o][d]]++;
    }
    /* output labels */
    int olab[CAIRN_MAX_RANK + QUANT_EINSUM_MAX_LABELS], no = 0;
    if (has_arrow) {
        const char *t = terms[nt];
        for (int i = 0; t[i]; i++) {
            if (t[i] == '.') {
                if (strncmp(t + i, "...", 3))
                    return base_error(CAIRN_ERR_INVALID_ARGUMENT, "equation '%s': bad ellipsis "
                                      "in the output", eq);
                for (int j = 0; j < n_ell; j++)
                    olab[no++] = 52 + j;
                i += 2;
                continue;
            }
            int l = t[i] >= 'a' ? t[i] - 'a' : 26 + t[i] - 'A';
            if (size[l] == -2)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "equation '%s': output label '%c' is in no input", eq, t[i]);
            for (int j = 0; j < no; j++)
                if (olab[j] == l)
                    return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                      "equation '%s': output label '%c' is repeated", eq, t[i]);
            olab[no++] = l;
        }
    } else {
        for (int j = 0; j < n_ell; j++)
            olab[no++] = 52 + j;
        for (int l = 26; l < 52; l++) /* ASCII order: upper case first */
            if (count[l] == 1)
                olab[no++] = l;
        for (int l = 0; l < 26; l++)
            if (count[l] == 1)
                olab[no++] = l;
    }
    if (no > CAIRN_MAX_RANK)
        return base_error(CAIRN_ERR_UNSUPPORTED, "the output would have rank %d; cairn allows %d",
                          no, CAIRN_MAX_RANK);
    out->rank = no;
    int64_t st = 1, numel = 1;
    for (int j = no - 1; j >= 0; j--) {
        int64_t dim = size[olab[j]];
        out->d[j] = dim < 0 ? IR_DIM_UNKNOWN : dim;
        p->out_stride[olab[j]] = st;
        st *= dim > 0 ? dim : 1;
        numel *= dim;
    }
    /* compact the label set to the used labels */
    int m = 0;
    for (int l = 0; l < 52 + n_ell; l++) {
        if (size[l] == -2)
            continue;
        p->size[m] = size[l] < 0 ? 0 : size[l];
        for (int o = 0; o < n_ops; o++)
            p->in_stride[o][m] = p->in_stride[o][l];
        p->out_stride[m] = p->out_stride[l];
        m++;
    }
    p->n_labels = m, p->n_ops = n_ops, p->out_numel = numel;
    return CAIRN_OK;
}

cairn_status_t op_quant_einsum_infer(ir_infer_ctx_t *c)
{
    const ir_shape_t *sh[QUANT_EINSUM_MAX_OPS] = {NULL};
    if (c->n_in > QUANT_EINSUM_MAX_OPS)
        return base_error(CAIRN_ERR_UNSUPPORTED, "%d operands; cairn's Einsum takes at most %d",
                          c->n_in, QUANT_EINSUM_MAX_OPS);
    for (int i = 0; i < c->n_in; i++) {
        BASE_TRY(ir_infer_check_dtype(c, i, ir_dtypes_numeric));
        BASE_TRY(ir_infer_same_dtype(c, 0, i));
        sh[i] = &c->in[i].shape;
    }
    quant_einsum_params_t p;
    BASE_TRY(q_einsum_parse(ir_attr_s(c->node, 0), c->n_in, sh, &p, &c->out[0].shape));
    c->out[0].dtype = c->in[0].dtype;
    return CAIRN_OK;
}

static cairn_status_t q_einsum_params(const ir_node_t *n, const ktensor_t *in, int n_in,
                                      quant_einsum_params_t *p)
{
    ir_shape_t s[QUANT_EINSUM_MAX_OPS], o;
    const ir_shape_t *sh[QUANT_EINSUM_MAX_OPS] = {NULL};
    for (int i = 0; i < n_in && i < QUANT_EINSUM_MAX_OPS; i++)
        shape_of(&in[i], &s[i]), sh[i] = &s[i];
    return q_einsum_parse(ir_attr_s(n, 0), n_in, sh, p, &o);
}

cairn_status_t op_quant_einsum_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)k;
    quant_einsum_params_t p;
    BASE_TRY(q_einsum_params(n, in, n_in, &p));
    const void *ptr[QUANT_EINSUM_MAX_OPS];
    for (int i = 0; i < n_in; i++)
        ptr[i] = in[i].data;
    quant_einsum_ref(&p, in[0].dtype, ptr, out[0].data, ws);
    return CAIRN_OK;
}

/* ========================= BitShift ========================= */

cairn_status_t op_quant_bitshift_infer(ir_infer_ctx_t *c)
{
    const char *d = ir_attr_s(c->node, 0);
    if (!d || (strcmp(d, "LEFT") && strcmp(d, "RIGHT")))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "direction is '%s'; it must be LEFT or RIGHT",
                          d ? d : "");
    for (int i = 0; i < 2; i++)
        if (c->in[i].dtype != CAIRN_U8)
            return base_error(base_dtype_is_int(c->in[i].dtype) && !base_dtype_is_signed(c->in[i].dtype)
                                  ? CAIRN_ERR_UNSUPPORTED : CAIRN_ERR_DTYPE,
                              "input %d has type %s; BitShift takes unsigned integers and cairn "
                              "has only u8",
                              i, cairn_dtype_name(c->in[i].dtype));
    c->out[0].dtype = CAIRN_U8;
    return ir_shape_broadcast(&c->in[0].shape, &c->in[1].shape, &c->out[0].shape);
}

cairn_status_t op_quant_bitshift_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                      ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int64_t sa[CAIRN_MAX_RANK], sb[CAIRN_MAX_RANK];
    kt_broadcast_strides(&in[0], out[0].rank, sa);
    kt_broadcast_strides(&in[1], out[0].rank, sb);
    quant_bitshift_u8_ref(in[0].data, sa, in[1].data, sb, out[0].data, out[0].shape, out[0].rank,
                          !strcmp(ir_attr_s(n, 0), "LEFT"));
    return CAIRN_OK;
}

/* ========================= NonMaxSuppression ========================= */

/* Reads the scalar parameters (inputs 2..4) and checks boxes/scores. The
 * values of inputs 2..4 must be known (vals[i] or NULL when absent). */
static cairn_status_t q_nms_params(const ir_shape_t *bx, const ir_shape_t *sc,
                                   const void *const *vals, const cairn_dtype_t *types, int n_in,
                                   quant_nms_params_t *p, int center)
{
    char b1[128], b2[128];
    if (bx->rank != 3 || bx->d[2] != 4 || sc->rank != 3 || bx->d[0] != sc->d[0] ||
        bx->d[1] != sc->d[2])
        return base_error(CAIRN_ERR_SHAPE,
                          "boxes %s must be (batch, boxes, 4) and scores %s (batch, classes, "
                          "boxes)",
                          sstr(bx, b1, sizeof b1), sstr(sc, b2, sizeof b2));
    memset(p, 0, sizeof *p);
    p->B = bx->d[0], p->N = bx->d[1], p->C = sc->d[1];
    p->center_point_box = center;
    if (center != 0 && center != 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "center_point_box is %d; it must be 0 or 1",
                          center);
    if (n_in > 2 && vals[2]) {
        p->max_out = types[2] == CAIRN_I64 ? *(const int64_t *)vals[2] : 0;
        if (p->max_out < 0)
            p->max_out = 0;
    }
    if (n_in > 3 && vals[3])
        p->iou_threshold = *(const float *)vals[3];
    if (n_in > 4 && vals[4])
        p->has_score_threshold = 1, p->score_threshold = *(const float *)vals[4];
    return CAIRN_OK;
}

cairn_status_t op_quant_nms_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, q_f32));
    BASE_TRY(ir_infer_check_dtype(c, 1, q_f32));
    if (present(c, 2))
        BASE_TRY(ir_infer_check_dtype(c, 2, q_i64));
    for (int i = 3; i < 5; i++)
        if (present(c, i))
            BASE_TRY(ir_infer_check_dtype(c, i, q_f32));
    for (int i = 2; i < 5; i++)
        if (present(c, i) && ir_shape_numel(&c->in[i].shape) >= 0 &&
            ir_shape_numel(&c->in[i].shape) != 1)
            return base_error(CAIRN_ERR_SHAPE, "input %d must be a scalar (one element)", i);
    for (int i = 0; i < 2; i++)
        if (c->in[i].shape.rank >= 0 && c->in[i].shape.rank != 3)
            return base_error(CAIRN_ERR_SHAPE,
                              "%s must have rank 3 (%s), got rank %d", i ? "scores" : "boxes",
                              i ? "batch, classes, boxes" : "batch, boxes, 4",
                              c->in[i].shape.rank);
    c->out[0].dtype = CAIRN_I64;
    c->out[0].shape.rank = 2;
    c->out[0].shape.d[0] = IR_DIM_UNKNOWN;
    c->out[0].shape.d[1] = 3;
    if (c->partial && !(c->in_data[0] && c->in_data[1]))
        return CAIRN_OK;
    const void *vals[5] = {NULL};
    cairn_dtype_t types[5] = {0};
    for (int i = 0; i < 5 && i < c->n_in; i++) {
        types[i] = c->in[i].dtype;
        if (!present(c, i))
            continue;
        vals[i] = ir_infer_value(c, i);
        if (!vals[i])
            return c->partial ? CAIRN_OK : CAIRN_ERR_UNSUPPORTED;
    }
    if (c->partial && (!ir_shape_is_concrete(&c->in[0].shape) ||
                       !ir_shape_is_concrete(&c->in[1].shape)))
        return CAIRN_OK;
    quant_nms_params_t p;
    BASE_TRY(q_nms_params(&c->in[0].shape, &c->in[1].shape, vals, types, c->n_in, &p,
                          (int)ir_attr_i(c->node, 0)));
    int64_t cnt;
    BASE_TRY(quant_nms_ref(&p, vals[0], vals[1], NULL, &cnt));
    c->out[0].shape.d[0] = cnt;
    return CAIRN_OK;
}

cairn_status_t op_quant_nms_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                 ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws, (void)k;
    ir_shape_t bx, sc;
    shape_of(&in[0], &bx);
    shape_of(&in[1], &sc);
    const void *vals[5] = {NULL};
    cairn_dtype_t types[5] = {0};
    for (int i = 0; i < 5 && i < n_in; i++)
        if (kpresent(in, n_in, i))
            vals[i] = in[i].data, types[i] = in[i].dtype;
    quant_nms_params_t p;
    BASE_TRY(q_nms_params(&bx, &sc, vals, types, n_in, &p, (int)ir_attr_i(n, 0)));
    int64_t cnt;
    BASE_TRY(quant_nms_ref(&p, in[0].data, in[1].data, NULL, &cnt));
    if (cnt != out[0].shape[0])
        return base_error(CAIRN_ERR_INTERNAL,
                          "NonMaxSuppression selected %lld boxes but the plan has room for %lld",
                          (long long)cnt, (long long)out[0].shape[0]);
    return quant_nms_ref(&p, in[0].data, in[1].data, out[0].data, &cnt);
}

/* ========================= Det ========================= */

cairn_status_t op_quant_det_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    const ir_shape_t *x = &c->in[0].shape;
    c->out[0].dtype = c->in[0].dtype;
    if (x->rank < 0) {
        c->out[0].shape.rank = -1;
        return CAIRN_OK;
    }
    char b1[128];
    if (x->rank < 2)
        return base_error(CAIRN_ERR_SHAPE, "x %s must have rank >= 2 (..., M, M)",
                          sstr(x, b1, sizeof b1));
    int64_t a = x->d[x->rank - 2], b = x->d[x->rank - 1];
    if (ir_dim_known(a) && ir_dim_known(b) && a != b)
        return base_error(CAIRN_ERR_SHAPE, "x %s: the last two dims must be equal (square "
                          "matrices)", sstr(x, b1, sizeof b1));
    c->out[0].shape.rank = x->rank - 2;
    for (int i = 0; i < x->rank - 2; i++)
        c->out[0].shape.d[i] = x->d[i];
    return CAIRN_OK;
}

cairn_status_t op_quant_det_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                 ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    int64_t m = in[0].shape[in[0].rank - 1];
    return quant_det_ref(in[0].dtype, in[0].data, kt_numel(&out[0]), m, out[0].data);
}

/* ========================= cost / workspace ========================= */

void op_quant_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                   int n_out, ir_cost_t *cost)
{
    double bytes = 0;
    for (int i = 0; i < n_in; i++)
        if (in[i].dtype != CAIRN_DTYPE_UNDEFINED)
            bytes += (double)cairn_tensor_bytes(&in[i]);
    for (int i = 0; i < n_out; i++)
        bytes += (double)cairn_tensor_bytes(&out[i]);
    double flops = (double)kt_numel(&out[0]);
    switch (n->op) {
    case IR_OP_MatMulInteger:
    case IR_OP_QLinearMatMul: {
        const ktensor_t *A = &in[0], *B = &in[n->op == IR_OP_QLinearMatMul ? 3 : 1];
        flops = 2.0 * (double)kt_numel(&out[0]) * (double)A->shape[A->rank - 1];
        (void)B;
        break;
    }
    case IR_OP_ConvInteger:
    case IR_OP_QLinearConv: {
        const ktensor_t *W = &in[n->op == IR_OP_QLinearConv ? 3 : 1];
        double taps = 1;
        for (int i = 1; i < W->rank; i++)
            taps *= (double)W->shape[i];
        flops = 2.0 * (double)kt_numel(&out[0]) * taps;
        break;
    }
    case IR_OP_Einsum: {
        quant_einsum_params_t p;
        double total = 1;
        if (q_einsum_params(n, in, n_in, &p) == CAIRN_OK)
            for (int l = 0; l < p.n_labels; l++)
                total *= (double)p.size[l];
        flops = total * (double)n_in;
        break;
    }
    case IR_OP_Det: {
        double m = in[0].rank ? (double)in[0].shape[in[0].rank - 1] : 1;
        flops = (double)kt_numel(&out[0]) * 2.0 / 3.0 * m * m * m;
        break;
    }
    case IR_OP_NonMaxSuppression:
        flops = (double)kt_numel(&in[1]) * (double)(in[0].rank == 3 ? in[0].shape[1] : 1) * 10;
        break;
    case IR_OP_ScatterND:
    case IR_OP_ScatterElements:
        flops = (double)kt_numel(&in[2]);
        break;
    default: break;
    }
    cost->flops = flops;
    cost->bytes = bytes;
}

size_t op_quant_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                          const ktensor_t *out, int n_out)
{
    (void)n_in, (void)n_out;
    switch (n->op) {
    case IR_OP_MatMulInteger:
    case IR_OP_QLinearMatMul: {
        int64_t nb = q_batch_offsets(&in[0], &in[n->op == IR_OP_QLinearMatMul ? 3 : 1], NULL,
                                     NULL, 0, 0);
        return (size_t)(2 * nb) * sizeof(int64_t);
    }
    case IR_OP_ConvInteger:
    case IR_OP_QLinearConv: {
        conv_params_t kp;
        const ktensor_t *W = &in[n->op == IR_OP_QLinearConv ? 3 : 1];
        const int route = convint_route(n, in, &kp);
        if (route == CONVINT_DW) /* QLinearConv's multipliers */
            return (size_t)W->shape[0] * sizeof(float);
        if (route != CONVINT_REF)
            return convint_route_ws(route, &kp, &in[0], W, kt_numel(&out[0])) +
                   (n->op == IR_OP_QLinearConv ? qlconv_fast_ws(kt_numel(&out[0]), W->shape[0])
                                               : 0);
        return (size_t)(kt_numel(&in[0]) + kt_numel(W) + kt_numel(&out[0])) * sizeof(double) +
               (size_t)W->shape[0] * sizeof(float);
    }
    case IR_OP_Einsum: return (size_t)kt_numel(&out[0]) * 8;
    default: return 0;
    }
}
