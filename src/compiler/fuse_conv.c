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
 * one node: the Relu is the epilogue's post_activation.
 */
#include "compiler/conv_attrs.h"
#include "compiler/rewrite.h"

#include "ir/ops/fused.h"
#include "kernels/gemm/gemm.h"

#include <float.h>

static int definite(const ir_shape_t *s)
{
    if (s->rank < 0)
        return 0;
    for (int i = 0; i < s->rank; i++)
        if (s->d[i] == IR_DIM_UNKNOWN)
            return 0;
    return 1;
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
    attrs[na++] = cairn_attr_int("activation", act);
    if (act == GEMM_ACT_CLIP) {
        attrs[na++] = cairn_attr_float("clip_min", lo);
        attrs[na++] = cairn_attr_float("clip_max", hi);
    }
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

cairn_status_t pass_fuse_conv(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && g->nodes[i].op == IR_OP_Conv)
            s = fuse_one(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
