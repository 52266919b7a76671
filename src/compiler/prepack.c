/*
 * Weight pre-packing: the GEMM packs B into panels for its micro-kernel on
 * every call; for a constant B that work is the same each run, so it is
 * done once here. FusedMatMul and MatMul with a constant 2-D f32 B (and
 * Gemm with transA = 0, alpha = 1, a constant B and a per-column constant C
 * with beta = 1) become a FusedMatMul reading B packed (packed = 1): a u8
 * constant holding gemm_f32_pack_b's buffer, which is valid for this
 * process (it records the micro-kernel variant it was made for).
 * Conv and FusedConv with a constant W and group 1 get W packed the same
 * way as the GEMM's left operand (FusedConv with packed = 1, w_shape).
 * FusedMBConv gets its two 1x1 weights packed as the GEMM's B (packed = 1,
 * channels = [C, E, M]). FusedMatMulInteger gets its int8 B packed for the
 * int8 GEMM with its column sums (quant_pack_b; packed = 1, k, n), and
 * FusedConvInteger its 8-bit W prepared as the int8 GEMM's A, flipped to
 * u8 with a row of ones and its row sums (quant_pack_a; packed = 1, m,
 * kernel_shape).
 */
#include "compiler/rewrite.h"

#include "base/alloc.h"
#include "ir/ops/fused.h"
#include "compiler/conv_attrs.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/mbconv.h"
#include "kernels/gemm/gemm.h"
#include "kernels/quant/quant.h"

#include <stdio.h>
#include <string.h>

static int attr_i(const ir_node_t *n, const char *name, int64_t def)
{
    const ir_attr_t *a = ir_node_attr(n, name);
    return a ? (int)a->i : (int)def;
}

static float attr_f(const ir_node_t *n, const char *name, float def)
{
    const ir_attr_t *a = ir_node_attr(n, name);
    return a ? a->f : def;
}

/* Adds buf (size bytes, a packed copy of the constant named `of`) as a u8
 * constant; takes over the caller's reference to buf. */
static cairn_status_t add_packed(rw_t *r, const char *of, ir_blob_t *buf, size_t size, int *pv)
{
    char hint[512];
    snprintf(hint, sizeof hint, "%s:packed", of);
    int64_t dims[1] = {(int64_t)size};
    cairn_status_t s = rw_add_const_blob(r, hint, CAIRN_U8, 1, dims, buf, pv);
    ir_blob_unref(buf);
    return s;
}

/* After a node was (or was refused to be) moved onto the packed copy of
 * constant w: when nothing reads the plain copy any more, this graph's
 * reference to its bytes is dropped now rather than at rw_finish, so the
 * pass never holds every weight twice (the bytes go when no other graph,
 * e.g. the caller's, shares them; the unused value is compacted away). */
static void drop_if_unused(rw_t *r, int w)
{
    if (r->uses[w] == 0 && !r->is_out[w])
        ir_value_set_blob(&r->g->values[w], NULL);
}

/* FusedMatMul's (and FusedMatMulInteger's) attributes with B packed (packed
 * = 1, k, n); the post-residual activation's only when there is one. Their
 * count. */
static int mm_attrs(cairn_attr_t *attrs, int act, float alpha, float lo, float hi, int64_t K,
                    int64_t N, int post, float plo, float phi)
{
    const cairn_attr_t a[10] = {
        {"activation", CAIRN_ATTR_INT, act, 0.0f, NULL, NULL, NULL, 0, NULL},
        {"alpha", CAIRN_ATTR_FLOAT, 0, alpha, NULL, NULL, NULL, 0, NULL},
        {"clip_min", CAIRN_ATTR_FLOAT, 0, lo, NULL, NULL, NULL, 0, NULL},
        {"clip_max", CAIRN_ATTR_FLOAT, 0, hi, NULL, NULL, NULL, 0, NULL},
        {"packed", CAIRN_ATTR_INT, 1, 0.0f, NULL, NULL, NULL, 0, NULL},
        {"k", CAIRN_ATTR_INT, K, 0.0f, NULL, NULL, NULL, 0, NULL},
        {"n", CAIRN_ATTR_INT, N, 0.0f, NULL, NULL, NULL, 0, NULL},
        {"post_activation", CAIRN_ATTR_INT, post, 0.0f, NULL, NULL, NULL, 0, NULL},
        {"post_clip_min", CAIRN_ATTR_FLOAT, 0, plo, NULL, NULL, NULL, 0, NULL},
        {"post_clip_max", CAIRN_ATTR_FLOAT, 0, phi, NULL, NULL, NULL, 0, NULL}};
    memcpy(attrs, a, sizeof a);
    return post ? 10 : 7;
}

static cairn_status_t pack_one(rw_t *r, int i)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[i];
    int A = n->inputs[0], B = n->inputs[1];
    int transB = 0, bias = -1, resid = -1;
    if (g->values[A].type.dtype != CAIRN_F32)
        return CAIRN_OK;
    const ir_value_t *bv = &g->values[B];
    if (bv->kind != IR_VALUE_CONSTANT || bv->type.dtype != CAIRN_F32 || bv->type.shape.rank != 2)
        return CAIRN_OK;
    int64_t K = bv->type.shape.d[0], N = bv->type.shape.d[1];
    int act = 0, post = 0;
    float alpha = 1.0f, lo = -3.402823466e38f, hi = 3.402823466e38f;
    float plo = -3.402823466e38f, phi = 3.402823466e38f;
    if (n->op == IR_OP_FusedMatMul) {
        if (attr_i(n, "packed", 0))
            return CAIRN_OK;
        bias = n->n_inputs > 2 ? n->inputs[2] : -1;
        resid = n->n_inputs > 3 ? n->inputs[3] : -1;
        act = attr_i(n, "activation", 0);
        alpha = attr_f(n, "alpha", 1.0f);
        lo = attr_f(n, "clip_min", lo);
        hi = attr_f(n, "clip_max", hi);
        post = attr_i(n, "post_activation", 0);
        plo = attr_f(n, "post_clip_min", plo);
        phi = attr_f(n, "post_clip_max", phi);
    } else if (n->op == IR_OP_Gemm) {
        if (attr_i(n, "transA", 0) || attr_f(n, "alpha", 1.0f) != 1.0f ||
            g->values[A].type.shape.rank != 2)
            return CAIRN_OK;
        transB = attr_i(n, "transB", 0);
        if (transB)
            K = bv->type.shape.d[1], N = bv->type.shape.d[0];
        if (n->n_inputs > 2 && n->inputs[2] >= 0) {
            const ir_value_t *cv = &g->values[n->inputs[2]];
            if (attr_f(n, "beta", 1.0f) != 1.0f || cv->kind != IR_VALUE_CONSTANT ||
                cv->type.dtype != CAIRN_F32 || ir_shape_numel(&cv->type.shape) != N ||
                cv->type.shape.rank < 1 || cv->type.shape.d[cv->type.shape.rank - 1] != N)
                return CAIRN_OK;
            bias = n->inputs[2];
        }
    } else if (g->values[A].type.shape.rank < 1) {
        return CAIRN_OK; /* MatMul */
    }
    if (K <= 0 || N <= 0)
        return CAIRN_OK;
    size_t size = gemm_f32_packed_b_size(K, N);
    /* a blob: large ones are their own mapping, returned to the system
     * when freed, so the plain weights freed below leave no heap holes */
    ir_blob_t *buf = ir_blob_alloc(size);
    if (!buf)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    cairn_status_t s = gemm_f32_pack_b(transB, K, N, bv->data, transB ? K : N, buf->data, size);
    if (s != CAIRN_OK) {
        ir_blob_unref(buf);
        return base_error_prefix(s, "pre-packing B of node '%s': ", n->name);
    }
    int pv;
    BASE_TRY(add_packed(r, bv->name, buf, size, &pv));
    int in[4] = {A, pv, bias, resid};
    int n_in = resid >= 0 ? 4 : bias >= 0 ? 3 : 2;
    cairn_attr_t attrs[10];
    const int na = mm_attrs(attrs, act, alpha, lo, hi, K, N, post, plo, phi);
    BASE_TRY(rw_try_replace(r, i, IR_OP_FusedMatMul, in, n_in, attrs, na, &i, 1));
    drop_if_unused(r, B);
    return CAIRN_OK;
}

/* FusedMatMulInteger with a constant 2-D int8 B: B and its column sums
 * packed once (quant_pack_b, a u8 B flipped to s8), packed = 1 with k, n;
 * only where K takes the int8 GEMM (quant_matmul_fast). */
static cairn_status_t pack_int8(rw_t *r, int i)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[i];
    const int B = n->inputs[1];
    const ir_value_t *bv = &g->values[B];
    if (attr_i(n, "packed", 0) || bv->kind != IR_VALUE_CONSTANT || bv->type.shape.rank != 2 ||
        (bv->type.dtype != CAIRN_U8 && bv->type.dtype != CAIRN_I8))
        return CAIRN_OK;
    const int64_t K = bv->type.shape.d[0], N = bv->type.shape.d[1];
    if (!quant_matmul_fast(K) || N < 1)
        return CAIRN_OK;
    const size_t size = quant_packed_b_size(K, N);
    ir_blob_t *buf = ir_blob_alloc(size);
    if (!buf)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    cairn_status_t s = quant_pack_b(bv->type.dtype, K, N, bv->data, buf->data, size);
    if (s != CAIRN_OK) {
        ir_blob_unref(buf);
        return base_error_prefix(s, "pre-packing B of node '%s': ", n->name);
    }
    int pv;
    BASE_TRY(add_packed(r, bv->name, buf, size, &pv));
    int in[8];
    for (int k = 0; k < n->n_inputs && k < 8; k++)
        in[k] = n->inputs[k];
    in[1] = pv;
    const float big = 3.402823466e38f;
    cairn_attr_t attrs[11];
    int na = mm_attrs(attrs, attr_i(n, "activation", 0), attr_f(n, "alpha", 1.0f),
                      attr_f(n, "clip_min", -big), attr_f(n, "clip_max", big), K, N,
                      attr_i(n, "post_activation", 0), attr_f(n, "post_clip_min", -big),
                      attr_f(n, "post_clip_max", big));
    if (attr_i(n, "requant", 0)) /* QLinearMatMul's form (fuse_qdq) */
        attrs[na++] = cairn_attr_int("requant", 1);
    BASE_TRY(rw_try_replace(r, i, IR_OP_FusedMatMulInteger, in, n->n_inputs < 8 ? n->n_inputs : 8,
                            attrs, na, &i, 1));
    drop_if_unused(r, B);
    return CAIRN_OK;
}

/* FusedConvInteger with a constant 8-bit W (M, C, kernel...): W as the
 * int8 GEMM's A, prepared once (quant_pack_a); packed = 1 with m and the
 * kernel shape (W's logical shape, the buffer being 1-D). */
static cairn_status_t pack_convint(rw_t *r, int i)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[i];
    const int W = n->inputs[1];
    const ir_value_t *wv = &g->values[W];
    const int rank = wv->type.shape.rank;
    if (attr_i(n, "packed", 0) || attr_i(n, "group", 1) != 1 || wv->kind != IR_VALUE_CONSTANT ||
        rank < 3 || rank > 2 + CONV_SP ||
        (wv->type.dtype != CAIRN_U8 && wv->type.dtype != CAIRN_I8))
        return CAIRN_OK; /* a depthwise one (group > 1) reads W as it is */
    const int64_t M = wv->type.shape.d[0];
    int64_t K = 1, ks[CONV_SP];
    for (int d = 1; d < rank; d++)
        K *= wv->type.shape.d[d];
    for (int d = 2; d < rank; d++)
        ks[d - 2] = wv->type.shape.d[d];
    if (!quant_matmul_fast(K) || M < 1)
        return CAIRN_OK;
    const size_t size = quant_packed_a_size(M, K);
    ir_blob_t *buf = ir_blob_alloc(size);
    if (!buf)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    cairn_status_t s = quant_pack_a(wv->type.dtype, M, K, wv->data, buf->data, size);
    if (s != CAIRN_OK) {
        ir_blob_unref(buf);
        return base_error_prefix(s, "pre-packing W of node '%s': ", n->name);
    }
    /* the node's geometry, kernel_shape set (or replaced) from W */
    cairn_attr_t all[9], attrs[12];
    const int nall = conv_attrs_of(n, all, 9);
    int na = 0;
    if (nall < 0) {
        ir_blob_unref(buf);
        return CAIRN_OK;
    }
    for (int k = 0; k < nall; k++)
        if (strcmp(all[k].name, "kernel_shape") && strcmp(all[k].name, "packed") &&
            strcmp(all[k].name, "m"))
            attrs[na++] = all[k];
    attrs[na++] = cairn_attr_ints("kernel_shape", ks, (size_t)(rank - 2));
    attrs[na++] = cairn_attr_int("packed", 1);
    attrs[na++] = cairn_attr_int("m", M);
    int pv;
    BASE_TRY(add_packed(r, wv->name, buf, size, &pv));
    int in[8];
    for (int k = 0; k < n->n_inputs && k < 8; k++)
        in[k] = n->inputs[k];
    in[1] = pv;
    BASE_TRY(rw_try_replace(r, i, IR_OP_FusedConvInteger, in, n->n_inputs < 8 ? n->n_inputs : 8,
                            attrs, na, &i, 1));
    drop_if_unused(r, W);
    return CAIRN_OK;
}

/* The spatial geometry of Conv node n (W of rank `rank`) into kp when X's
 * and Y's shapes are static and the pads explicit: conv_f32_pack_w picks
 * the weights' layout from it (the indirect-A path for small planes);
 * otherwise kp keeps in/out 0 and the layout that serves every size. */
static void conv_geometry(const ir_graph_t *g, const ir_node_t *n, int rank, conv_params_t *kp)
{
    const ir_shape_t *x = &g->values[n->inputs[0]].type.shape;
    const ir_shape_t *y = &g->values[n->outputs[0]].type.shape;
    const ir_attr_t *ap = ir_node_attr(n, "auto_pad");
    if (x->rank != rank || y->rank != rank || (ap && ap->s && strcmp(ap->s, "NOTSET") &&
                                               strcmp(ap->s, "VALID")))
        return;
    for (int d = 0; d < rank; d++)
        if (x->d[d] < 1 || y->d[d] < 1)
            return;
    const ir_attr_t *st = ir_node_attr(n, "strides"), *dl = ir_node_attr(n, "dilations");
    const ir_attr_t *pd = ir_node_attr(n, "pads");
    const int nsp = rank - 2, off = CONV_SP - nsp;
    if ((st && (int)st->n != nsp) || (dl && (int)dl->n != nsp) || (pd && (int)pd->n != 2 * nsp))
        return;
    conv_params_t q = *kp;
    q.N = x->d[0];
    for (int d = 0; d < CONV_SP; d++) {
        q.in[d] = q.out[d] = q.stride[d] = q.dilation[d] = 1;
        q.pad[d] = 0;
    }
    for (int d = 0; d < nsp; d++) {
        q.in[off + d] = x->d[2 + d];
        q.out[off + d] = y->d[2 + d];
        q.stride[off + d] = st ? st->ints[d] : 1;
        q.dilation[off + d] = dl ? dl->ints[d] : 1;
        q.pad[off + d] = pd ? pd->ints[d] : 0;
    }
    *kp = q;
}

/* Conv / FusedConv with a constant f32 W and group 1 (not depthwise):
 * W becomes conv_f32_pack_w's buffer, the GEMM's left operand packed once,
 * and the node a FusedConv with packed = 1 and w_shape = W's shape (a plain
 * Conv becomes a FusedConv without epilogue). */
static cairn_status_t pack_conv(rw_t *r, int i)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[i];
    int X = n->inputs[0], W = n->inputs[1];
    if (n->op == IR_OP_FusedConv && attr_i(n, "packed", 0))
        return CAIRN_OK;
    if (attr_i(n, "group", 1) != 1 || g->values[X].type.dtype != CAIRN_F32)
        return CAIRN_OK;
    const ir_value_t *wv = &g->values[W];
    const ir_shape_t *ws = &wv->type.shape;
    if (wv->kind != IR_VALUE_CONSTANT || wv->type.dtype != CAIRN_F32 || ws->rank < 3 ||
        ws->rank > 5 || !wv->data)
        return CAIRN_OK;
    conv_params_t kp;
    memset(&kp, 0, sizeof kp);
    kp.M = ws->d[0];
    kp.C = ws->d[1];
    kp.group = 1;
    for (int d = 0; d < CONV_SP; d++)
        kp.kernel[d] = d >= CONV_SP - (ws->rank - 2) ? ws->d[d - (CONV_SP - (ws->rank - 2)) + 2] : 1;
    if (kp.M < 1 || kp.C < 1)
        return CAIRN_OK;
    conv_geometry(g, n, ws->rank, &kp);
    cairn_attr_t attrs[24];
    int na = conv_attrs_of(n, attrs, 20);
    if (na < 0)
        return CAIRN_OK;
    size_t size = conv_f32_packed_w_size(&kp);
    ir_blob_t *buf = ir_blob_alloc(size);
    if (!buf)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    cairn_status_t s = conv_f32_pack_w(&kp, wv->data, buf->data, size);
    if (s != CAIRN_OK) {
        ir_blob_unref(buf);
        return base_error_prefix(s, "pre-packing W of node '%s': ", n->name);
    }
    int pv;
    BASE_TRY(add_packed(r, wv->name, buf, size, &pv));
    int64_t wshape[5];
    for (int d = 0; d < ws->rank; d++)
        wshape[d] = ws->d[d];
    /* 1: packed as the GEMM's A; 2: as its B (the indirect-A layout that
     * conv_f32_pack_w picks for small planes); 3 and 4: Winograd's filters,
     * F(4x4, 3x3) and F(2x2, 3x3) */
    const int kind = conv_f32_packed_kind(buf->data);
    const int layout = kind == 'W' ? (conv_wino_packed_tile(buf->data) == 4 ? 3 : 4)
                       : kind == 'B' ? 2
                                     : 1;
    attrs[na++] = cairn_attr_int("packed", layout);
    attrs[na++] = cairn_attr_ints("w_shape", wshape, (size_t)ws->rank);
    int in[4] = {X, pv, n->n_inputs > 2 ? n->inputs[2] : -1, n->n_inputs > 3 ? n->inputs[3] : -1};
    BASE_TRY(rw_try_replace(r, i, IR_OP_FusedConv, in, n->n_inputs, attrs, na, &i, 1));
    drop_if_unused(r, W);
    return CAIRN_OK;
}

/* FusedMBConv with plain weights: W1 (E x C, E x C K1 K1 in the stem
 * form) and W2 (M x E) packed by conv_mb_pack, packed = 1 and channels =
 * [C, E, M]. */
static cairn_status_t pack_mbconv(rw_t *r, int i)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[i];
    if (ir_attr_i(n, FUSED_MB_PACKED) || n->n_inputs < 6)
        return CAIRN_OK;
    const int w1 = n->inputs[1], w2 = n->inputs[5];
    const ir_value_t *v1 = &g->values[w1], *v2 = &g->values[w2];
    if (v1->kind != IR_VALUE_CONSTANT || v2->kind != IR_VALUE_CONSTANT || !v1->data ||
        !v2->data || v1->type.dtype != CAIRN_F32 || v2->type.dtype != CAIRN_F32 ||
        v1->type.shape.rank != 4 || v2->type.shape.rank != 4)
        return CAIRN_OK;
    const int64_t E = v1->type.shape.d[0], C = v1->type.shape.d[1], M = v2->type.shape.d[0];
    if (E < 1 || C < 1 || M < 1 || v2->type.shape.d[1] != E)
        return CAIRN_OK;
    int pv[2];
    /* W1's columns: C, or C K1 K1 for the stem form's KxK expansion */
    const int64_t rows[2] = {E, M}, cols[2] = {C * v1->type.shape.d[2] * v1->type.shape.d[3], E};
    for (int t = 0; t < 2; t++) {
        const ir_value_t *v = t ? v2 : v1;
        const size_t size = conv_mb_packed_size(rows[t], cols[t]);
        ir_blob_t *buf = ir_blob_alloc(size);
        if (!buf)
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
        cairn_status_t s = conv_mb_pack(rows[t], cols[t], v->data, buf->data, size);
        if (s != CAIRN_OK) {
            ir_blob_unref(buf);
            return base_error_prefix(s, "pre-packing %s of node '%s': ", t ? "W2" : "W1",
                                     n->name);
        }
        BASE_TRY(add_packed(r, v->name, buf, size, &pv[t]));
    }
    cairn_attr_t attrs[24];
    int na = conv_attrs_of(n, attrs, 22);
    if (na < 0)
        return CAIRN_OK;
    const int64_t ch[3] = {C, E, M};
    int keep = 0; /* drop any stale packed / channels entries */
    for (int a = 0; a < na; a++)
        if (strcmp(attrs[a].name, "packed") && strcmp(attrs[a].name, "channels"))
            attrs[keep++] = attrs[a];
    na = keep;
    attrs[na++] = cairn_attr_int("packed", 1);
    attrs[na++] = cairn_attr_ints("channels", ch, 3);
    int in[8];
    for (int k = 0; k < n->n_inputs && k < 8; k++)
        in[k] = n->inputs[k];
    in[1] = pv[0], in[5] = pv[1];
    BASE_TRY(rw_try_replace(r, i, IR_OP_FusedMBConv, in, n->n_inputs, attrs, na, &i, 1));
    drop_if_unused(r, w1);
    drop_if_unused(r, w2);
    return CAIRN_OK;
}

cairn_status_t pass_prepack(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++) {
        int op = g->nodes[i].op;
        if (!r.dead[i] && (op == IR_OP_MatMul || op == IR_OP_FusedMatMul || op == IR_OP_Gemm))
            s = pack_one(&r, i);
        else if (!r.dead[i] && (op == IR_OP_Conv || op == IR_OP_FusedConv))
            s = pack_conv(&r, i);
        else if (!r.dead[i] && op == IR_OP_FusedMBConv)
            s = pack_mbconv(&r, i);
        else if (!r.dead[i] && op == IR_OP_FusedMatMulInteger)
            s = pack_int8(&r, i);
        else if (!r.dead[i] && op == IR_OP_FusedConvInteger)
            s = pack_convint(&r, i);
    }
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
