/*
 * Conv epilogue fusion: an f32 Conv with a constant W (a model's layer, as
 * fuse_gemm asks of MatMul's B) followed by any of (in this order)
 *   activation    Relu, Sigmoid, Clip (constant bounds, e.g. ReLU6)
 *   Add(residual) any f32 tensor of exactly the output's shape
 *   activation    the same kinds, after the residual (only with the Add)
 * becomes one FusedConv, whose GEMM (or depthwise kernel) applies them to
 * each tile before it is stored, so the intermediates are never written.
 * Each absorbed value must have no other reader and not be a graph output.
 * ResNet's Conv -> Add -> Relu at the end of each bottleneck block becomes
 * one node: the Relu is the epilogue's post_activation. The dynamically
 * quantised ConvInteger -> Cast -> Mul(scale) -> [Add(bias)] -> [Relu |
 * Clip] chain becomes one FusedConvInteger (fuse_convint, below).
 */
#include "compiler/conv_attrs.h"
#include "compiler/rewrite.h"

#include "ir/ops/fused.h"
#include "kernels/conv/conv.h"
#include "kernels/gemm/gemm.h"

#include <float.h>
#include <stdlib.h>

static int definite(const ir_shape_t *s)
{
    if (s->rank < 0)
        return 0;
    for (int i = 0; i < s->rank; i++)
        if (s->d[i] == IR_DIM_UNKNOWN)
            return 0;
    return 1;
}


/* The activation's attributes (activation, and clip_min / clip_max for a
 * clip) into out; their count */
static int act_attrs(cairn_attr_t *out, gemm_act_t act, float lo, float hi)
{
    int n = 0;
    out[n++] = cairn_attr_int("activation", act);
    if (act == GEMM_ACT_CLIP) {
        out[n++] = cairn_attr_float("clip_min", lo);
        out[n++] = cairn_attr_float("clip_max", hi);
    }
    return n;
}

static cairn_status_t fuse_one(rw_t *r, int ci)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *cv = &g->nodes[ci];
    const int X = cv->inputs[0];
    if (g->values[X].type.dtype != CAIRN_F32 ||
        g->values[cv->inputs[1]].kind != IR_VALUE_CONSTANT)
        return CAIRN_OK;
    int grp[4], ng = 0, last = ci, cur = cv->outputs[0], resid = -1;
    gemm_act_t act = GEMM_ACT_NONE, post = GEMM_ACT_NONE;
    float lo = -FLT_MAX, hi = FLT_MAX, plo = -FLT_MAX, phi = FLT_MAX;
    grp[ng++] = ci;
    int c = rw_sole_consumer(r, cur);
    if (c >= 0 && rw_epilogue_activation(g, c, cur, 0, &act, &lo, &hi)) {
        grp[ng++] = last = c;
        cur = g->nodes[c].outputs[0];
        c = rw_sole_consumer(r, cur);
    }
    if (c >= 0 && g->nodes[c].op == IR_OP_Add) {
        int o = rw_other_input(&g->nodes[c], cur);
        const ir_type_t *ct = &g->values[cur].type;
        if (o >= 0 && o != cur && g->values[o].type.dtype == CAIRN_F32 && definite(&ct->shape) &&
            ir_shape_equal(&g->values[o].type.shape, &ct->shape)) {
            resid = o;
            grp[ng++] = last = c;
            cur = g->nodes[c].outputs[0];
            c = rw_sole_consumer(r, cur);
            if (c >= 0 && rw_epilogue_activation(g, c, cur, 0, &post, &plo, &phi))
                grp[ng++] = last = c;
        }
    }
    if (ng == 1 || !rw_group_closed(r, last, grp, ng))
        return CAIRN_OK;
    cairn_attr_t attrs[22];
    int na = conv_attrs_of(cv, attrs, 16);
    if (na < 0)
        return CAIRN_OK;
    na += act_attrs(attrs + na, act, lo, hi);
    if (post != GEMM_ACT_NONE)
        attrs[na++] = cairn_attr_int("post_activation", post);
    if (post == GEMM_ACT_CLIP) {
        attrs[na++] = cairn_attr_float("post_clip_min", plo);
        attrs[na++] = cairn_attr_float("post_clip_max", phi);
    }
    const int B = cv->n_inputs > 2 ? cv->inputs[2] : -1;
    int in[4] = {X, cv->inputs[1], B, resid};
    int n_in = resid >= 0 ? 4 : B >= 0 ? 3 : 2;
    return rw_try_replace(r, last, IR_OP_FusedConv, in, n_in, attrs, na, grp, ng);
}

/* v: a constant f32 of M values laid along the channel axis of a rank-r
 * NCHW tensor ([M], or [1, M, 1, ...] / [M, 1, ...] broadcasting against
 * it): 1; one element (any producer) for *one: 1 with *one set */
static int per_channel(const ir_graph_t *g, int v, int64_t M, int rank, int *one)
{
    *one = 0;
    if (v < 0 || g->values[v].type.dtype != CAIRN_F32)
        return 0;
    const ir_shape_t *s = &g->values[v].type.shape;
    if (s->rank < 0 || !ir_shape_is_concrete(s))
        return 0;
    if (ir_shape_numel(s) == 1 && s->rank <= rank)
        return *one = 1;
    if (g->values[v].kind != IR_VALUE_CONSTANT || ir_shape_numel(s) != M || s->rank > rank)
        return 0;
    /* right-aligned against (N, M, spatial...): M must sit at axis 1 */
    const int axis = rank - s->rank; /* the output axis of s's dim 0 */
    for (int i = 0; i < s->rank; i++)
        if (s->d[i] != (axis + i == 1 ? M : 1))
            return 0;
    return 1;
}

/* The dynamically quantised form of a Conv, as onnxruntime's
 * quantize_dynamic writes it:
 *   ConvInteger(x, W const 8-bit, [xz], [wz const]) -> Cast(to f32)
 *     -> Mul(scale: one value, any producer, or a constant per channel)
 *     -> [Add(bias: a constant per channel, [1, M, 1, 1])]
 *     -> [Relu | Clip with constant bounds]
 * -> FusedConvInteger(x, W, scale, xz, wz, [bias]) with the activation:
 * the int8 product dequantised in its pass over the sums (the GEMM's, or
 * a depthwise one's plane by plane), the Cast's, Mul's, Add's and
 * activation's tensors never written. The same f32 operations in the
 * same order (the sum converted, times the scale, plus the bias, the
 * activation), so the same results. */
static cairn_status_t fuse_convint(rw_t *r, int ci)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *cv = &g->nodes[ci];
    const int X = cv->inputs[0], W = cv->inputs[1];
    const int xz = cv->n_inputs > 2 ? cv->inputs[2] : -1, wz = cv->n_inputs > 3 ? cv->inputs[3] : -1;
    const ir_value_t *wv = &g->values[W];
    const int rank = wv->type.shape.rank;
    if (wv->kind != IR_VALUE_CONSTANT || rank < 3 || rank > 2 + CONV_SP ||
        !ir_shape_is_concrete(&wv->type.shape) || (wz >= 0 && g->values[wz].kind != IR_VALUE_CONSTANT))
        return CAIRN_OK;
    const int64_t M = wv->type.shape.d[0];
    const ir_attr_t *gr = ir_node_attr(cv, "group");
    /* group 1 (the int8 GEMM) or depthwise (quant_dwconv): the rest of the
     * geometry is quant_dw_fits's, which FusedConvInteger's inference asks
     * (refusing the rewrite) once the sizes are known, so only convolutions
     * of a static output shape are rewritten */
    if (gr && gr->i != 1 &&
        (gr->i != M || wv->type.shape.d[1] != 1 ||
         !ir_shape_is_concrete(&g->values[cv->outputs[0]].type.shape)))
        return CAIRN_OK;
    int cast, mul, scale, one;
    if (!rw_cast_mul(r, cv->outputs[0], &cast, &mul, &scale))
        return CAIRN_OK;
    const int orank = g->values[g->nodes[cast].outputs[0]].type.shape.rank;
    if (!per_channel(g, scale, M, orank, &one))
        return CAIRN_OK;
    int grp[6] = {ci, cast, mul}, ng = 3;
    int last = mul, bias = -1, c;
    int cur = g->nodes[mul].outputs[0];
    c = rw_sole_consumer(r, cur);
    int bone = 0;
    if (c >= 0 && g->nodes[c].op == IR_OP_Add) {
        const int b = rw_other_input(&g->nodes[c], cur);
        if (b != cur && per_channel(g, b, M, orank, &bone) && (!bone || g->values[b].kind ==
                                                                           IR_VALUE_CONSTANT)) {
            bias = b;
            grp[ng++] = last = c;
            cur = g->nodes[c].outputs[0];
            c = rw_sole_consumer(r, cur);
        }
    }
    gemm_act_t act = GEMM_ACT_NONE;
    float lo = -FLT_MAX, hi = FLT_MAX;
    if (c >= 0 && rw_epilogue_activation(g, c, cur, 0, &act, &lo, &hi)) {
        if (act != GEMM_ACT_RELU && act != GEMM_ACT_CLIP)
            act = GEMM_ACT_NONE;
        else
            grp[ng++] = last = c;
    }
    if (!rw_group_closed(r, last, grp, ng))
        return CAIRN_OK;
    cairn_attr_t attrs[12]; /* views of cv's, which adding values leaves in place */
    int na = conv_attrs_of(cv, attrs, 8);
    if (na < 0)
        return CAIRN_OK;
    na += act_attrs(attrs + na, act, lo, hi);
    /* the scale and bias as FusedConvInteger takes them: one value or [M] */
    int sv = scale, bv = bias;
    if (!one) {
        BASE_TRY(rw_add_const(r, "convint_scale", CAIRN_F32, 1, &M,
                              r->g->values[scale].data, &sv));
    }
    if (bias >= 0 && bone) { /* one bias value: repeated for every channel */
        float *bb = malloc((size_t)M * sizeof *bb);
        if (!bb)
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "fuse_conv: %lld biases", (long long)M);
        const float b0 = *(const float *)r->g->values[bias].data;
        for (int64_t i = 0; i < M; i++)
            bb[i] = b0;
        cairn_status_t st = rw_add_const(r, "convint_bias", CAIRN_F32, 1, &M, bb, &bv);
        free(bb);
        BASE_TRY(st);
    } else if (bias >= 0) {
        BASE_TRY(rw_add_const(r, "convint_bias", CAIRN_F32, 1, &M, r->g->values[bias].data, &bv));
    }
    const int in[6] = {X, W, sv, xz, wz, bv};
    const int n_in = bv >= 0 ? 6 : wz >= 0 ? 5 : xz >= 0 ? 4 : 3;
    return rw_try_replace(r, last, IR_OP_FusedConvInteger, in, n_in, attrs, na, grp, ng);
}

cairn_status_t pass_fuse_conv(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && g->nodes[i].op == IR_OP_Conv)
            s = fuse_one(&r, i);
        else if (!r.dead[i] && g->nodes[i].op == IR_OP_ConvInteger)
            s = fuse_convint(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
