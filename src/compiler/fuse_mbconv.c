/*
 * Inverted-residual fusion: the chain MobileNetV2 (and EfficientNet)
 * builds every block from,
 *   expand   1x1 Conv, group 1, stride 1, no pads        (+ bias, activation)
 *   depthwise KxK Conv, group = channels, pads K/2, stride s (+ bias, ReLU/Clip)
 *   project  1x1 Conv, group 1, stride 1, no pads        (+ bias, act, residual, act)
 * as Conv / FusedConv nodes with constant f32 weights (after fuse_conv has
 * folded the activations and the residual Add into them), becomes one
 * FusedMBConv, whose kernel keeps the expanded tensor (6x the input's
 * channels at the block's full resolution) in cache instead of writing
 * it out and reading it back twice. The two intermediate values must have
 * no other reader and not be graph outputs. Runs after fuse_conv, before
 * prepack (which packs the new node's 1x1 weights); skipped when the GEMM
 * variant has no indirect-A kernel (conv_mb_available) and where the
 * kernel measured slower than the three convolutions (conv_mb_pays: fewer
 * than 16 input channels, or fewer than 24 at stride 1).
 *
 * The stem form: the same chain whose first convolution is a KxK one with
 * stride (pads K/2, group 1) straight from an image (MobileNetV2's stem:
 * 3 -> 32 channels 3x3/2, then its first block's depthwise and projection,
 * which has no expansion), where conv_mb_stem_pays says so.
 */
#include "compiler/rewrite.h"

#include "ir/ops/fused.h"
#include "kernels/conv/mbconv.h"

#include <float.h>
#include <string.h>

/* A Conv / unpacked FusedConv's geometry and epilogue. */
typedef struct cv {
    int node, X, W, B, R;
    int64_t M, Cg, K, stride, group;
    int act, post;
    float lo, hi, plo, phi;
} cv_t;

/* Attribute `name` is `want` entries all equal to v, or absent and its
 * ONNX default (def) is v. */
static int ints_all(const ir_node_t *n, const char *name, int64_t v, size_t want, int64_t def)
{
    const ir_attr_t *a = ir_node_attr(n, name);
    if (!a)
        return v == def;
    if (a->n != want)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->ints[i] != v)
            return 0;
    return 1;
}

/* Node i as a 2-D convolution this pass can take (square kernel, equal
 * strides, pads K/2 all round, dilation 1, constant f32 W and bias). */
static int conv_of(const ir_graph_t *g, int i, cv_t *c)
{
    const ir_node_t *n = &g->nodes[i];
    if (n->op != IR_OP_Conv && n->op != IR_OP_FusedConv)
        return 0;
    if (n->op == IR_OP_FusedConv && ir_attr_i(n, FUSED_CONV_PACKED))
        return 0;
    const ir_attr_t *ap = ir_node_attr(n, "auto_pad");
    if (ap && ap->s && strcmp(ap->s, "NOTSET"))
        return 0;
    const ir_value_t *w = &g->values[n->inputs[1]];
    if (w->kind != IR_VALUE_CONSTANT || w->type.dtype != CAIRN_F32 || w->type.shape.rank != 4 ||
        !w->data)
        return 0;
    const ir_shape_t *ws = &w->type.shape;
    if (ws->d[2] != ws->d[3] || ws->d[2] % 2 == 0 || ws->d[2] > 15)
        return 0;
    c->node = i, c->X = n->inputs[0], c->W = n->inputs[1];
    c->B = n->n_inputs > 2 ? n->inputs[2] : -1;
    c->R = n->n_inputs > 3 ? n->inputs[3] : -1;
    if (c->B >= 0 && (g->values[c->B].kind != IR_VALUE_CONSTANT ||
                      g->values[c->B].type.dtype != CAIRN_F32))
        return 0;
    c->M = ws->d[0], c->Cg = ws->d[1], c->K = ws->d[2];
    const ir_attr_t *gr = ir_node_attr(n, "group");
    c->group = gr ? gr->i : 1;
    const ir_attr_t *st = ir_node_attr(n, "strides");
    c->stride = st && st->n == 2 ? st->ints[0] : 1;
    if ((st && (st->n != 2 || st->ints[1] != c->stride)) || !ints_all(n, "dilations", 1, 2, 1) ||
        !ints_all(n, "pads", c->K / 2, 4, 0))
        return 0;
    if (n->op == IR_OP_FusedConv) {
        c->act = (int)ir_attr_i(n, FUSED_CONV_ACTIVATION);
        c->lo = ir_attr_f(n, FUSED_CONV_CLIP_MIN), c->hi = ir_attr_f(n, FUSED_CONV_CLIP_MAX);
        c->post = (int)ir_attr_i(n, FUSED_CONV_POST_ACTIVATION);
        c->plo = ir_attr_f(n, FUSED_CONV_POST_CLIP_MIN);
        c->phi = ir_attr_f(n, FUSED_CONV_POST_CLIP_MAX);
    } else {
        c->act = c->post = GEMM_ACT_NONE;
        c->lo = c->plo = -FLT_MAX, c->hi = c->phi = FLT_MAX;
    }
    return 1;
}

static cairn_status_t fuse_one(rw_t *r, int pi)
{
    const ir_graph_t *g = r->g;
    cv_t p, d, e;
    if (!conv_of(g, pi, &p) || p.K != 1 || p.stride != 1 || p.group != 1)
        return CAIRN_OK;
    const int di = rw_producer(r, p.X, -1);
    if (di < 0 || rw_sole_consumer(r, p.X) != pi || !conv_of(g, di, &d))
        return CAIRN_OK;
    /* depthwise: one channel per group, a clamp-type activation only */
    if (d.Cg != 1 || d.group != d.M || d.M != p.Cg || d.R >= 0 || d.post != GEMM_ACT_NONE ||
        (d.act != GEMM_ACT_NONE && d.act != GEMM_ACT_RELU && d.act != GEMM_ACT_CLIP) ||
        d.stride < 1 || d.stride > 4)
        return CAIRN_OK;
    const int ei = rw_producer(r, d.X, -1);
    if (ei < 0 || rw_sole_consumer(r, d.X) != di || !conv_of(g, ei, &e))
        return CAIRN_OK;
    if (e.group != 1 || e.M != d.M || e.R >= 0 || e.post != GEMM_ACT_NONE)
        return CAIRN_OK;
    const ir_type_t *xt = &g->values[e.X].type;
    if (xt->dtype != CAIRN_F32 || xt->shape.rank != 4 || !conv_mb_available())
        return CAIRN_OK;
    /* a 1x1 expansion, or the stem form's KxK one with stride */
    if (e.K == 1 ? e.stride != 1 || !conv_mb_pays(e.Cg, (int)d.stride)
                 : !conv_mb_stem_pays(e.Cg, (int)e.K, (int)e.stride))
        return CAIRN_OK;
    const int grp[3] = {ei, di, pi};
    if (!rw_group_closed(r, pi, grp, 3))
        return CAIRN_OK;
    const float dlo = d.act == GEMM_ACT_NONE ? -FLT_MAX : d.act == GEMM_ACT_RELU ? 0.0f : d.lo;
    const float dhi = d.act == GEMM_ACT_CLIP ? d.hi : FLT_MAX;
    cairn_attr_t attrs[18];
    int na = 0;
    attrs[na++] = cairn_attr_int("kernel", d.K);
    attrs[na++] = cairn_attr_int("stride", d.stride);
    if (e.K > 1) {
        attrs[na++] = cairn_attr_int("expand_kernel", e.K);
        attrs[na++] = cairn_attr_int("expand_stride", e.stride);
    }
    attrs[na++] = cairn_attr_int("expand_activation", e.act);
    if (e.act == GEMM_ACT_CLIP) {
        attrs[na++] = cairn_attr_float("expand_clip_min", e.lo);
        attrs[na++] = cairn_attr_float("expand_clip_max", e.hi);
    }
    attrs[na++] = cairn_attr_float("dw_clip_min", dlo);
    attrs[na++] = cairn_attr_float("dw_clip_max", dhi);
    if (p.act != GEMM_ACT_NONE)
        attrs[na++] = cairn_attr_int("project_activation", p.act);
    if (p.act == GEMM_ACT_CLIP) {
        attrs[na++] = cairn_attr_float("project_clip_min", p.lo);
        attrs[na++] = cairn_attr_float("project_clip_max", p.hi);
    }
    if (p.post != GEMM_ACT_NONE)
        attrs[na++] = cairn_attr_int("post_activation", p.post);
    if (p.post == GEMM_ACT_CLIP) {
        attrs[na++] = cairn_attr_float("post_clip_min", p.plo);
        attrs[na++] = cairn_attr_float("post_clip_max", p.phi);
    }
    const int in[8] = {e.X, e.W, e.B, d.W, d.B, p.W, p.B, p.R};
    const int n_in = p.R >= 0 ? 8 : p.B >= 0 ? 7 : 6;
    return rw_try_replace(r, pi, IR_OP_FusedMBConv, in, n_in, attrs, na, grp, 3);
}

cairn_status_t pass_fuse_mbconv(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && (g->nodes[i].op == IR_OP_Conv || g->nodes[i].op == IR_OP_FusedConv))
            s = fuse_one(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
