/*
 * Statically quantised models onto the int8 kernels. onnxruntime's
 * quantize_static writes the QDQ form: every quantised activation passes
 * through QuantizeLinear -> DequantizeLinear, every weight is stored in
 * 8 bits behind a DequantizeLinear, and the ops between compute in f32 on
 * the dequantised values. Run as written, each MatMul is an f32 GEMM and
 * each pair two passes over memory. This pass, the first of the
 * pipeline (fold would turn each weight's DequantizeLinear into f32
 * weights), rewrites
 *
 *   MatMul(DequantizeLinear(a, sa, [za]), DequantizeLinear(W, sw, [zw]))
 *       a u8 / i8 with sa and za one constant value each; W a constant
 *       2-D u8 / i8 [K, N] with sw and zw constant, one value or one per
 *       column (axis 1 or -1)
 *   -> FusedMatMulInteger(a, W, sa * sw, za, zw)
 *       the int8 GEMM's exact sums of (a - za)(W - zw), scaled once in
 *       f32; the written form rounds every product and partial sum, so
 *       the two differ by f32 rounding of the sums (fuse_gemm then adds
 *       any epilogue chain after it, prepack packs W);
 *
 *   Gemm(DequantizeLinear(a, ...), DequantizeLinear(W, ...), [C])
 *       alpha 1, transA 0, beta 1 where C is given, C f32 with one value
 *       per column; W as above, or [N, K] under transB with its scales per
 *       row (axis 0): a classifier, as quantize_static's QDQ form and the
 *       loader's com.microsoft QGemm write it
 *   -> FusedMatMulInteger(a, op(W), sa * sw, za, zw, C)
 *       as above, Wᵀ stored transposed, C the bias of the epilogue: the
 *       int8 weights are read (a quarter of the bytes of the f32 GEMM's)
 *       instead of dequantised to f32 by fold;
 *
 *   Conv(DequantizeLinear(x, sx, [zx]), DequantizeLinear(W, sw, [zw]), [B])
 *       group 1; x as above; W a constant u8 / i8 [M, C, k...] with sw and
 *       zw one value or one per output channel (axis 0)
 *   -> FusedConvInteger(x, W, sx * sw, zx, zw, [B])
 *       the int8 GEMM over an im2col of x (kernels/quant/conv.c), the
 *       exact sums scaled once; B (onnxruntime writes it as an int32
 *       tensor behind its own DequantizeLinear) is folded to f32 later.
 *       Grouped and depthwise convolutions stay in f32;
 *
 *   QuantizeLinear(Conv(DequantizeLinear(x, sx, zx), DequantizeLinear(W,
 *       sw, zw), [DequantizeLinear(B int32, sx sw, [0])]), sy, zy), the
 *       Conv read by the QuantizeLinear alone, every zero point given, any
 *       group (quantize_static writes each convolution so)
 *   -> QLinearConv(x, sx, zx, W, sw, zw, sy, zy, [B])
 *       the form onnxruntime runs it in, then as below (a depthwise one
 *       runs as QLinearConv: quant_dwconv): one rounding of the exact sums
 *       times sx sw / sy where the written form rounds y to f32 and then
 *       y / sy; equal in exact arithmetic, so the two differ only for a
 *       value within f32 rounding of a quantisation tie, by one step;
 *
 *   DequantizeLinear(QuantizeLinear(x, s, z), s, z)
 *       s and z one constant value each in both (equal values), the 8-bit
 *       tensor read by nothing else
 *   -> FusedElementwise [qdq(x)]
 *       one pass, f32 in and out, the pair's bits exactly (the qdq opcode
 *       of kernels/eltwise/fused.h); fuse_eltwise then merges it with the
 *       elementwise ops around it;
 *
 *   qdq(Reshape / Transpose / Gather / ... (qdq(x))) with the same grid
 *   -> the movement alone (an Identity, which the plan makes a view)
 *       onnxruntime's tool puts a pair after every op it quantises,
 *       movements included; their values already lie on the grid, and
 *       qdq is idempotent there: for q - z an integer of at most 383 in
 *       magnitude, RN(RN((q - z) s) / s) is within 383 2^-23 of q - z and
 *       rounds back to it, while s stays well inside the normal range
 *       (2^-100 < |s| < 2^100, required).
 *
 *   QLinearConv(x, sx, zx, W, sw, zw, sy, zy, [B])
 *       group 1, within the int8 GEMM's depth; sx, sy one constant value,
 *       sw constant, one value or one per output channel
 *   -> FusedConvInteger requant = 1 (x, W, m, zx, zw, [B], -, zy)
 *       m = sx sw / sy formed in f32 as the reference forms it; the same
 *       exact sums and the reference's requantisation of them, in the
 *       GEMM's epilogue (and prepack then packs W): QLinearConv's bits.
 *       onnxruntime's QOperator form writes one per convolution;
 *
 *   QLinearMatMul(a, sa, za, B, sb, zb, sy, zy)
 *       B a constant 2-D u8 / i8 within the int8 GEMM's depth, every
 *       scale and zero point one constant value
 *   -> FusedMatMulInteger requant = 1 (a, B, m, za, zb, -, -, zy)
 *       m = sa sb / sy formed in f32 as the reference forms it, the sums
 *       requantised with its arithmetic: its bits (prepack packs B);
 *
 *   QuantizeLinear(MaxPool(DequantizeLinear(x, s, z)), s, z)
 *       one constant scale s > 0 and zero point, equal in both; MaxPool
 *       without indices, read by the QuantizeLinear alone
 *   -> MaxPool(x) on the 8-bit tensor (the same bytes: qdq_maxpool);
 *
 * The MatMul and Conv rewrites go first, so that a pair whose 8-bit tensor
 * a GEMM now reads keeps its QuantizeLinear. A DequantizeLinear that has
 * other readers stays for them. Per-axis activations, non-constant
 * scales and weights quantised along K are left as written.
 */
#include "compiler/conv_attrs.h"
#include "compiler/rewrite.h"

#include "ir/ops/fused.h"
#include "kernels/eltwise/fused.h"
#include "kernels/quant/quant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* v is a constant u8 / i8 with one element: its value. */
static int const_q_scalar(const ir_graph_t *g, int v, int32_t *out)
{
    if (v < 0)
        return 0;
    const ir_value_t *val = &g->values[v];
    if (val->kind != IR_VALUE_CONSTANT || !val->data || ir_shape_numel(&val->type.shape) != 1)
        return 0;
    if (val->type.dtype == CAIRN_U8)
        *out = *(const uint8_t *)val->data;
    else if (val->type.dtype == CAIRN_I8)
        *out = *(const int8_t *)val->data;
    else
        return 0;
    return 1;
}

/* A DequantizeLinear / QuantizeLinear node's scale: a constant f32 of one
 * element. */
static int const_f32_scalar(const ir_graph_t *g, int v, float *out)
{
    double d;
    if (v < 0 || g->values[v].type.dtype != CAIRN_F32 || !rw_const_scalar(g, v, &d))
        return 0;
    *out = (float)d;
    return 1;
}

/* The zero point input of a Q / DQ node, or -1 when absent. */
static int zp_input(const ir_node_t *n) { return n->n_inputs > 2 ? n->inputs[2] : -1; }

/* DequantizeLinear of an activation: x u8 / i8, one constant scale and
 * zero point (absent: 0 of x's type). */
static int dq_per_tensor(const ir_graph_t *g, const ir_node_t *d, float *s, int32_t *z)
{
    const cairn_dtype_t xt = g->values[d->inputs[0]].type.dtype;
    if (d->op != IR_OP_DequantizeLinear || (xt != CAIRN_U8 && xt != CAIRN_I8) ||
        !const_f32_scalar(g, d->inputs[1], s))
        return 0;
    const int zv = zp_input(d);
    *z = 0;
    return zv < 0 || (g->values[zv].type.dtype == xt && const_q_scalar(g, zv, z));
}

/* A constant of type t with 1 or N elements (rank <= 1): per tensor or per
 * column / channel. */
static int per_col(const ir_graph_t *g, int v, cairn_dtype_t t, int64_t N)
{
    if (v < 0)
        return 0;
    const ir_value_t *val = &g->values[v];
    if (val->kind != IR_VALUE_CONSTANT || !val->data || val->type.dtype != t ||
        val->type.shape.rank > 1)
        return 0;
    const int64_t n = ir_shape_numel(&val->type.shape);
    return n == 1 || n == N;
}

static cairn_status_t scale_product(rw_t *r, float sa, int ws, int64_t ns, int *out);

static cairn_status_t qdq_matmul(rw_t *r, int mm)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *m = &g->nodes[mm];
    /* Gemm (its slots: alpha, beta, transA, transB): alpha 1, A as it is,
     * and a C only under beta 1, as a bias of one value per column */
    const int gemm = m->op == IR_OP_Gemm;
    int tb = 0, bias = -1;
    if (gemm) {
        if (m->n_inputs < 2 || ir_attr_f(m, 0) != 1.0f || ir_attr_i(m, 2) != 0)
            return CAIRN_OK;
        tb = ir_attr_i(m, 3) != 0;
        if (m->n_inputs > 2 && m->inputs[2] >= 0) {
            if (ir_attr_f(m, 1) != 1.0f)
                return CAIRN_OK;
            bias = m->inputs[2];
        }
    } else if (m->n_inputs != 2) {
        return CAIRN_OK;
    }
    if (g->values[m->outputs[0]].type.dtype != CAIRN_F32)
        return CAIRN_OK;
    const int da = rw_producer(r, m->inputs[0], IR_OP_DequantizeLinear);
    const int dw = rw_producer(r, m->inputs[1], IR_OP_DequantizeLinear);
    if (da < 0 || dw < 0)
        return CAIRN_OK;
    float sa;
    int32_t za;
    const ir_node_t *A = &g->nodes[da], *W = &g->nodes[dw];
    if (!dq_per_tensor(g, A, &sa, &za) || g->values[A->inputs[0]].type.shape.rank < 1)
        return CAIRN_OK;
    /* the weights: constant 2-D, quantised per tensor or per column (of
     * op(W): a row of W itself under transB) */
    const ir_value_t *wv = &g->values[W->inputs[0]];
    const cairn_dtype_t wt = wv->type.dtype;
    if (wv->kind != IR_VALUE_CONSTANT || !wv->data || wv->type.shape.rank != 2 ||
        (wt != CAIRN_U8 && wt != CAIRN_I8))
        return CAIRN_OK;
    const int64_t N = wv->type.shape.d[tb ? 0 : 1], K = wv->type.shape.d[tb ? 1 : 0];
    const int ws = W->inputs[1], wz = zp_input(W);
    const int64_t axis = ir_attr_i(W, 0), col_axis = tb ? 0 : 1;
    if (!per_col(g, ws, CAIRN_F32, N) || (wz >= 0 && !per_col(g, wz, wt, N)))
        return CAIRN_OK;
    const int64_t ns = ir_shape_numel(&g->values[ws].type.shape);
    if (ns == N && N > 1 && axis != col_axis && axis != col_axis - 2)
        return CAIRN_OK; /* one scale per row of op(W): not a column factor */
    if (wz >= 0 && ir_shape_numel(&g->values[wz].type.shape) != 1 && ns != N)
        return CAIRN_OK; /* zero points per column under one scale: DQ would refuse it */
    if (bias >= 0) { /* f32, N values along the last axis: added to every row */
        const ir_type_t *bt = &g->values[bias].type;
        if (bt->dtype != CAIRN_F32 || bt->shape.rank < 1 || ir_shape_numel(&bt->shape) != N ||
            bt->shape.d[bt->shape.rank - 1] != N)
            return CAIRN_OK;
    }
    int sv; /* sa * sw, one per column or one */
    BASE_TRY(scale_product(r, sa, ws, ns, &sv));
    /* adding a value may have moved the arrays: W's input by index */
    int wq = r->g->nodes[dw].inputs[0];
    if (tb) { /* op(W) = Wᵀ stored as the K x N the int8 GEMM packs */
        uint8_t *t = malloc(N * K > 0 ? (size_t)(N * K) : 1);
        if (!t)
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "fuse_qdq: %lld x %lld weights",
                               (long long)K, (long long)N);
        const uint8_t *w = r->g->values[wq].data; /* one byte an element */
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++)
                t[k * N + n] = w[n * K + k];
        const int64_t dims[2] = {K, N};
        cairn_status_t st = rw_add_const(r, "qdq_wt", wt, 2, dims, t, &wq);
        free(t);
        BASE_TRY(st);
    }
    g = r->g; /* adding a value may have moved the arrays */
    m = &g->nodes[mm];
    A = &g->nodes[da];
    W = &g->nodes[dw];
    int grp[3], ng = 0;
    if (rw_sole_consumer(r, A->outputs[0]) == mm)
        grp[ng++] = da;
    if (dw != da && rw_sole_consumer(r, W->outputs[0]) == mm)
        grp[ng++] = dw;
    grp[ng++] = mm;
    const int in[6] = {A->inputs[0], wq, sv, zp_input(A), wz, bias};
    const int n_in = bias >= 0 ? 6 : wz >= 0 ? 5 : zp_input(A) >= 0 ? 4 : 3;
    cairn_attr_t attrs[1] = {cairn_attr_int("activation", GEMM_ACT_NONE)};
    return rw_try_replace(r, mm, IR_OP_FusedMatMulInteger, in, n_in, attrs, 1, grp, ng);
}

/* sa * sw (ns of them) as a new f32 constant [ns] */
static cairn_status_t scale_product(rw_t *r, float sa, int ws, int64_t ns, int *out)
{
    float *scale = malloc((size_t)ns * sizeof *scale);
    if (!scale)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "fuse_qdq: %lld scales", (long long)ns);
    const float *sw = r->g->values[ws].data;
    for (int64_t j = 0; j < ns; j++)
        scale[j] = sa * sw[j];
    const int64_t dims[1] = {ns};
    cairn_status_t s = rw_add_const(r, "qdq_scale", CAIRN_F32, 1, dims, scale, out);
    free(scale);
    return s;
}

/* The 8-bit operands of a Conv: x = DequantizeLinear(x8, one constant
 * scale sx and zero point zx), W = DequantizeLinear(a constant u8 / i8
 * [M, C, k...], scale sw and zero point zw one value or one per output
 * channel); with need_zp both zero points given. 0 when n's are not so. */
typedef struct conv_dq {
    int dx, dw, ws, wz; /* the two DequantizeLinear nodes; W's scale and zero point (or -1) */
    float sx;
    int32_t zx;
    int64_t M, ns; /* output channels; W's scales */
} conv_dq_t;

static int conv_dq_of(const rw_t *r, const ir_node_t *n, int need_zp, conv_dq_t *o)
{
    const ir_graph_t *g = r->g;
    o->dx = rw_producer(r, n->inputs[0], IR_OP_DequantizeLinear);
    o->dw = rw_producer(r, n->inputs[1], IR_OP_DequantizeLinear);
    if (o->dx < 0 || o->dw < 0 || o->dx == o->dw ||
        (need_zp && zp_input(&g->nodes[o->dx]) < 0) ||
        !dq_per_tensor(g, &g->nodes[o->dx], &o->sx, &o->zx))
        return 0;
    const ir_node_t *W = &g->nodes[o->dw];
    const ir_value_t *wv = &g->values[W->inputs[0]];
    const cairn_dtype_t wt = wv->type.dtype;
    if (wv->kind != IR_VALUE_CONSTANT || wv->type.shape.rank < 3 ||
        (wt != CAIRN_U8 && wt != CAIRN_I8))
        return 0;
    const int64_t M = o->M = wv->type.shape.d[0];
    o->ws = W->inputs[1], o->wz = zp_input(W);
    if ((need_zp && o->wz < 0) || !per_col(g, o->ws, CAIRN_F32, M) ||
        (o->wz >= 0 && !per_col(g, o->wz, wt, M)))
        return 0;
    o->ns = ir_shape_numel(&g->values[o->ws].type.shape);
    if (o->ns == M && M > 1 && ir_attr_i(W, 0) != 0)
        return 0; /* per channel must be along W's output channels */
    return o->wz < 0 || ir_shape_numel(&g->values[o->wz].type.shape) == 1 || o->ns == M;
}

static cairn_status_t qdq_conv(rw_t *r, int cv)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[cv];
    if (n->n_inputs < 2 || g->values[n->outputs[0]].type.dtype != CAIRN_F32)
        return CAIRN_OK;
    const ir_attr_t *gr = ir_node_attr(n, "group");
    if (gr && gr->i != 1)
        return CAIRN_OK;
    conv_dq_t d;
    if (!conv_dq_of(r, n, 0, &d))
        return CAIRN_OK;
    const int dx = d.dx, dw = d.dw, ws = d.ws, wz = d.wz;
    const float sx = d.sx;
    const int64_t ns = d.ns;
    cairn_attr_t attrs[8];
    const int na = conv_attrs_of(n, attrs, 8);
    if (na < 0)
        return CAIRN_OK;
    int sv;
    BASE_TRY(scale_product(r, sx, ws, ns, &sv));
    g = r->g;
    n = &g->nodes[cv];
    const ir_node_t *X = &g->nodes[dx];
    const ir_node_t *W = &g->nodes[dw];
    int grp[3], ng = 0;
    if (rw_sole_consumer(r, X->outputs[0]) == cv)
        grp[ng++] = dx;
    if (rw_sole_consumer(r, W->outputs[0]) == cv)
        grp[ng++] = dw;
    grp[ng++] = cv;
    const int bias = n->n_inputs > 2 ? n->inputs[2] : -1;
    const int in[6] = {X->inputs[0], W->inputs[0], sv, zp_input(X), wz, bias};
    const int n_in = bias >= 0 ? 6 : wz >= 0 ? 5 : zp_input(X) >= 0 ? 4 : 3;
    return rw_try_replace(r, cv, IR_OP_FusedConvInteger, in, n_in, attrs, na, grp, ng);
}

/* Conv(DequantizeLinear(x, sx, zx), DequantizeLinear(W, sw, zw),
 * [DequantizeLinear(B int32, sx sw, [0])]) whose output only a
 * QuantizeLinear(., sy, zy) reads -> QLinearConv(x, sx, zx, W, sw, zw, sy,
 * zy, [B]) in the QuantizeLinear's place (qlinear_conv below then makes
 * a group-1 one a FusedConvInteger requant = 1; a depthwise one runs as
 * QLinearConv, quant_dwconv): the form onnxruntime runs this group in.
 * The written form rounds y to f32 and divides it by sy; QLinearConv
 * multiplies the exact sums by sx sw / sy formed in f32; in exact
 * arithmetic the two are equal (B's scale must be sx sw as f32 computes
 * it), so they differ where a value lies within f32 rounding of a
 * quantisation tie, by one step. Every zero point must be given (as
 * quantize_static writes them); all scales and zero points constant. */
static cairn_status_t qdq_conv_q(rw_t *r, int cv)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[cv];
    if (n->n_inputs < 2 || g->values[n->outputs[0]].type.dtype != CAIRN_F32)
        return CAIRN_OK;
    const int q = rw_sole_consumer(r, n->outputs[0]);
    if (q < 0 || g->nodes[q].op != IR_OP_QuantizeLinear || g->nodes[q].inputs[0] != n->outputs[0])
        return CAIRN_OK;
    const ir_node_t *Q = &g->nodes[q];
    float sy;
    int32_t zy;
    const int qz = zp_input(Q);
    if (qz < 0 || !const_f32_scalar(g, Q->inputs[1], &sy) || !const_q_scalar(g, qz, &zy))
        return CAIRN_OK;
    conv_dq_t d;
    if (!conv_dq_of(r, n, 1, &d))
        return CAIRN_OK;
    const int dx = d.dx, dw = d.dw, ws = d.ws, wz = d.wz;
    const int64_t M = d.M, ns = d.ns;
    const float sx = d.sx;
    const ir_node_t *W = &g->nodes[dw];
    /* the bias: int32 behind a DequantizeLinear of scale sx sw (f32), zero point 0 */
    int db = -1, bq = -1;
    if (n->n_inputs > 2 && n->inputs[2] >= 0) {
        db = rw_producer(r, n->inputs[2], IR_OP_DequantizeLinear);
        if (db < 0)
            return CAIRN_OK;
        const ir_node_t *B = &g->nodes[db];
        const ir_value_t *bv = &g->values[B->inputs[0]];
        if (bv->kind != IR_VALUE_CONSTANT || bv->type.dtype != CAIRN_I32 ||
            bv->type.shape.rank != 1 || bv->type.shape.d[0] != M)
            return CAIRN_OK;
        const int bs = B->inputs[1], bz = zp_input(B);
        const int64_t nb = ir_shape_numel(&g->values[bs].type.shape);
        if (!per_col(g, bs, CAIRN_F32, M) || (nb != ns && nb != 1) ||
            (nb == M && M > 1 && ir_attr_i(B, 0) != 0))
            return CAIRN_OK;
        const float *bsv = g->values[bs].data, *swv = g->values[ws].data;
        for (int64_t j = 0; j < nb; j++)
            if (bsv[j] != sx * swv[ns > 1 ? j : 0])
                return CAIRN_OK;
        if (nb == 1 && ns > 1) /* one bias scale for per-channel weights: all products equal */
            for (int64_t j = 1; j < ns; j++)
                if (swv[j] != swv[0])
                    return CAIRN_OK;
        if (bz >= 0) {
            const ir_value_t *zv = &g->values[bz];
            if (zv->kind != IR_VALUE_CONSTANT || zv->type.dtype != CAIRN_I32 || !zv->data)
                return CAIRN_OK;
            for (int64_t j = 0; j < ir_shape_numel(&zv->type.shape); j++)
                if (((const int32_t *)zv->data)[j] != 0)
                    return CAIRN_OK;
        }
        bq = B->inputs[0];
    }
    cairn_attr_t attrs[8];
    const int na = conv_attrs_of(n, attrs, 8);
    if (na < 0)
        return CAIRN_OK;
    int grp[5], ng = 0;
    if (rw_sole_consumer(r, g->nodes[dx].outputs[0]) == cv)
        grp[ng++] = dx;
    if (rw_sole_consumer(r, W->outputs[0]) == cv)
        grp[ng++] = dw;
    if (db >= 0 && rw_sole_consumer(r, g->nodes[db].outputs[0]) == cv)
        grp[ng++] = db;
    grp[ng++] = cv;
    grp[ng++] = q;
    const ir_node_t *X = &g->nodes[dx];
    const int in[9] = {X->inputs[0], X->inputs[1], zp_input(X), W->inputs[0], ws, wz,
                       Q->inputs[1], qz, bq};
    return rw_try_replace(r, q, IR_OP_QLinearConv, in, bq >= 0 ? 9 : 8, attrs, na, grp, ng);
}

/* QLinearConv(x, sx, zx, W, sw, zw, sy, zy, [B]) -> FusedConvInteger
 * requant = 1 (x, W, m, zx, zw, [B], -, zy), m = sx sw / sy */
static cairn_status_t qlinear_conv(rw_t *r, int cv)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[cv];
    if (n->n_inputs < 8)
        return CAIRN_OK;
    const ir_attr_t *gr = ir_node_attr(n, "group");
    if (gr && gr->i != 1)
        return CAIRN_OK;
    const ir_value_t *wv = &g->values[n->inputs[3]];
    const int rank = wv->type.shape.rank;
    if (rank < 3 || rank > 2 + CONV_SP || !ir_shape_is_concrete(&wv->type.shape))
        return CAIRN_OK;
    int64_t K = 1;
    for (int d = 1; d < rank; d++)
        K *= wv->type.shape.d[d];
    const int64_t M = wv->type.shape.d[0];
    float sx, sy;
    if (!quant_matmul_fast(K) || M < 1 || !const_f32_scalar(g, n->inputs[1], &sx) ||
        !const_f32_scalar(g, n->inputs[6], &sy) || !per_col(g, n->inputs[4], CAIRN_F32, M))
        return CAIRN_OK;
    cairn_attr_t attrs[9];
    const int na = conv_attrs_of(n, attrs, 8);
    if (na < 0)
        return CAIRN_OK;
    attrs[na] = cairn_attr_int("requant", 1);
    const int64_t ns = ir_shape_numel(&g->values[n->inputs[4]].type.shape);
    float *mult = malloc((size_t)ns * sizeof *mult);
    if (!mult)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "fuse_qdq: %lld multipliers", (long long)ns);
    const float *sw = g->values[n->inputs[4]].data;
    for (int64_t j = 0; j < ns; j++)
        mult[j] = sx * sw[j] / sy; /* in f32, as the reference forms them */
    const int64_t dims[1] = {ns};
    int mv;
    cairn_status_t s = rw_add_const(r, "qlinearconv_mult", CAIRN_F32, 1, dims, mult, &mv);
    free(mult);
    BASE_TRY(s);
    n = &r->g->nodes[cv]; /* adding a value may have moved the arrays */
    const int in[8] = {n->inputs[0], n->inputs[3], mv, n->inputs[2], n->inputs[5],
                       n->n_inputs > 8 ? n->inputs[8] : -1, -1, n->inputs[7]};
    return rw_try_replace(r, cv, IR_OP_FusedConvInteger, in, 8, attrs, na + 1, &cv, 1);
}

/* QLinearMatMul(a, sa, za, B, sb, zb, sy, zy) -> FusedMatMulInteger
 * requant = 1 (a, B, m, za, zb, -, -, zy), m = sa sb / sy */
static cairn_status_t qlinear_matmul(rw_t *r, int mm)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[mm];
    if (n->n_inputs != 8)
        return CAIRN_OK;
    const ir_value_t *bv = &g->values[n->inputs[3]];
    float sa, sb, sy;
    int32_t za, zb, zy;
    if (bv->kind != IR_VALUE_CONSTANT || bv->type.shape.rank != 2 ||
        !ir_shape_is_concrete(&bv->type.shape) || !quant_matmul_fast(bv->type.shape.d[0]) ||
        !const_f32_scalar(g, n->inputs[1], &sa) || !const_f32_scalar(g, n->inputs[4], &sb) ||
        !const_f32_scalar(g, n->inputs[6], &sy) || !const_q_scalar(g, n->inputs[2], &za) ||
        !const_q_scalar(g, n->inputs[5], &zb) || !const_q_scalar(g, n->inputs[7], &zy))
        return CAIRN_OK; /* per-row / per-column scales and a varying B stay as written */
    const float m = sa * sb / sy; /* in f32, as the reference forms it */
    int mv;
    BASE_TRY(rw_add_const(r, "qlinearmatmul_mult", CAIRN_F32, 0, NULL, &m, &mv));
    n = &r->g->nodes[mm]; /* adding a value may have moved the arrays */
    const int in[8] = {n->inputs[0], n->inputs[3], mv, n->inputs[2], n->inputs[5], -1, -1,
                       n->inputs[7]};
    const cairn_attr_t attrs[1] = {cairn_attr_int("requant", 1)};
    return rw_try_replace(r, mm, IR_OP_FusedMatMulInteger, in, 8, attrs, 1, &mm, 1);
}

/* DequantizeLinear d per tensor (dq_per_tensor) and QuantizeLinear q onto
 * the same grid: q's scale one constant equal to d's, its zero point (or
 * 0) equal to d's. The grid's scale and zero point in *s, *z. */
static int same_grid(const ir_graph_t *g, const ir_node_t *d, const ir_node_t *q, float *s,
                     int32_t *z)
{
    float sq;
    int32_t zq = 0;
    if (!dq_per_tensor(g, d, s, z) || !const_f32_scalar(g, q->inputs[1], &sq) || sq != *s)
        return 0;
    const int qz = zp_input(q);
    return (qz < 0 || const_q_scalar(g, qz, &zq)) && zq == *z;
}

/* DequantizeLinear(QuantizeLinear(x, s, z), s, z) -> FusedElementwise [qdq] */
static cairn_status_t qdq_pair(rw_t *r, int dq)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *d = &g->nodes[dq];
    const int q = rw_producer(r, d->inputs[0], IR_OP_QuantizeLinear);
    if (q < 0 || rw_sole_consumer(r, d->inputs[0]) != dq)
        return CAIRN_OK;
    const ir_node_t *Q = &g->nodes[q];
    const int x = Q->inputs[0];
    if (g->values[x].type.dtype != CAIRN_F32 || g->values[d->outputs[0]].type.dtype != CAIRN_F32)
        return CAIRN_OK;
    float s;
    int32_t z;
    if (!same_grid(g, d, Q, &s, &z))
        return CAIRN_OK;
    const int u8 = g->values[d->inputs[0]].type.dtype == CAIRN_U8;
    const float imm[4] = {s, (float)z, u8 ? 0.0f : -128.0f, u8 ? 255.0f : 127.0f};
    const int64_t code[3] = {EFU_QDQ, 0, 0};
    cairn_attr_t attrs[2] = {cairn_attr_ints("program", code, 3),
                             cairn_attr_floats("imms", imm, 4)};
    const int grp[2] = {q, dq};
    return rw_try_replace(r, dq, IR_OP_FusedElementwise, &x, 1, attrs, 2, grp, 2);
}

/* QuantizeLinear(MaxPool(DequantizeLinear(x, s, z)), s, z) -> MaxPool(x)
 * on the 8-bit x: with s > 0 dequantising is non-decreasing (f32
 * products keep the order of q - z), so the window's maximum of the
 * dequantised values is the dequantised maximum, and quantising that back
 * on the same grid gives the 8-bit maximum (qdq is idempotent there,
 * qdq_redundant). A window of padding alone gives -inf, quantised to the
 * type's minimum, which the 8-bit MaxPool gives too. MaxPool without its
 * indices, read by the QuantizeLinear alone. ResNet-50 QDQ's stem pool:
 * three passes over 4 MB of f32 become one over 0.8 MB of u8. */
static cairn_status_t qdq_maxpool(rw_t *r, int qi)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *Q = &g->nodes[qi];
    const int mp = rw_producer(r, Q->inputs[0], IR_OP_MaxPool);
    if (mp < 0 || rw_sole_consumer(r, Q->inputs[0]) != qi)
        return CAIRN_OK;
    const ir_node_t *M = &g->nodes[mp];
    if (M->n_outputs > 1 && M->outputs[1] >= 0)
        return CAIRN_OK;
    const int dq = rw_producer(r, M->inputs[0], IR_OP_DequantizeLinear);
    if (dq < 0)
        return CAIRN_OK;
    const ir_node_t *D = &g->nodes[dq];
    const int x = D->inputs[0];
    float s;
    int32_t z;
    if (!same_grid(g, D, Q, &s, &z) || !(s > 0x1p-100f && s < 0x1p100f) ||
        g->values[Q->outputs[0]].type.dtype != g->values[x].type.dtype)
        return CAIRN_OK;
    cairn_attr_t attrs[16];
    const int na = conv_attrs_of(M, attrs, 16);
    if (na < 0)
        return CAIRN_OK;
    const int grp[2] = {mp, qi};
    return rw_try_replace(r, qi, IR_OP_MaxPool, &x, 1, attrs, na, grp, 2);
}

/* ops whose output holds only values of their first input, unchanged */
static int moves_values(int op)
{
    return op == IR_OP_Reshape || op == IR_OP_Flatten || op == IR_OP_Squeeze ||
           op == IR_OP_Unsqueeze || op == IR_OP_Identity || op == IR_OP_Transpose ||
           op == IR_OP_Gather || op == IR_OP_Slice || op == IR_OP_Expand;
}

/* qdq(movements(qdq(x))) on one grid: the second qdq becomes an Identity */
static cairn_status_t qdq_redundant(rw_t *r, int d)
{
    const ir_graph_t *g = r->g;
    const float *imm = op_fused_eltwise_qdq(&g->nodes[d]);
    if (!imm || !(fabsf(imm[0]) > 0x1p-100f && fabsf(imm[0]) < 0x1p100f))
        return CAIRN_OK;
    int v = g->nodes[d].inputs[0];
    for (int hops = 0; hops < 8; hops++) {
        const int p = rw_producer(r, v, -1);
        if (p < 0)
            return CAIRN_OK;
        const ir_node_t *pn = &g->nodes[p];
        const float *pi = op_fused_eltwise_qdq(pn);
        if (pi) {
            if (hops == 0 || memcmp(pi, imm, 4 * sizeof *imm))
                return CAIRN_OK;
            const int in = g->nodes[d].inputs[0];
            return rw_try_replace(r, d, IR_OP_Identity, &in, 1, NULL, 0, &d, 1);
        }
        if (!moves_values(pn->op) || pn->n_inputs < 1 ||
            g->values[pn->inputs[0]].type.dtype != CAIRN_F32)
            return CAIRN_OK;
        v = pn->inputs[0];
    }
    return CAIRN_OK;
}

cairn_status_t pass_fuse_qdq(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < r.g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && (r.g->nodes[i].op == IR_OP_MatMul || r.g->nodes[i].op == IR_OP_Gemm))
            s = qdq_matmul(&r, i);
        else if (!r.dead[i] && r.g->nodes[i].op == IR_OP_Conv) {
            s = qdq_conv_q(&r, i);
            if (s == CAIRN_OK && !r.dead[i] && r.g->nodes[i].op == IR_OP_Conv)
                s = qdq_conv(&r, i);
        }
        else if (!r.dead[i] && r.g->nodes[i].op == IR_OP_QLinearConv)
            s = qlinear_conv(&r, i);
        else if (!r.dead[i] && r.g->nodes[i].op == IR_OP_QLinearMatMul)
            s = qlinear_matmul(&r, i);
    for (int i = 0; i < r.g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && r.g->nodes[i].op == IR_OP_QuantizeLinear)
            s = qdq_maxpool(&r, i);
    for (int i = 0; i < r.g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && r.g->nodes[i].op == IR_OP_DequantizeLinear)
            s = qdq_pair(&r, i);
    for (int i = 0; i < r.g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i])
            s = qdq_redundant(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
