/*
 * GEMM epilogue fusion: MatMul(X, W) with W a constant 2-D f32 matrix,
 * followed by any of (in this order)
 *   Add(bias)     bias constant, N elements along the last dim
 *   activation    Relu, Sigmoid, Gelu (erf or tanh), Swish with alpha 1
 *                 (SiLU), Clip (constant bounds)
 *   Add(residual) any f32 tensor of exactly the output's shape
 *   activation    the same kinds, after the residual (only with the Add)
 * becomes one FusedMatMul, whose GEMM applies them to each tile before it
 * is stored: the intermediate tensors are never written. Each absorbed
 * value must have no other reader and not be a graph output.
 */
#include "compiler/rewrite.h"

#include "ir/ops/fused.h"
#include "kernels/gemm/gemm.h"

#include <float.h>
#include <string.h>

/* Every dim known or a named symbol (bound the same everywhere). */
static int shape_definite(const ir_shape_t *s)
{
    if (s->rank < 0)
        return 0;
    for (int i = 0; i < s->rank; i++)
        if (s->d[i] == IR_DIM_UNKNOWN)
            return 0;
    return 1;
}

/* A constant f32 bias of N elements laid along the last dim of an output
 * of rank `rank`: shape [N] or [1, ..., 1, N]. */
static int is_bias(const ir_graph_t *g, int v, int64_t N, int rank)
{
    if (v < 0)
        return 0;
    const ir_value_t *b = &g->values[v];
    if (b->kind != IR_VALUE_CONSTANT || b->type.dtype != CAIRN_F32 || b->type.shape.rank < 1 ||
        b->type.shape.rank > rank)
        return 0;
    int r = b->type.shape.rank;
    for (int i = 0; i < r - 1; i++)
        if (b->type.shape.d[i] != 1)
            return 0;
    return b->type.shape.d[r - 1] == N;
}


static cairn_status_t fuse_one(rw_t *r, int mm)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *m = &g->nodes[mm];
    int A = m->inputs[0], B = m->inputs[1];
    const ir_value_t *bv = &g->values[B];
    const ir_type_t *ot = &g->values[m->outputs[0]].type;
    if (g->values[A].type.dtype != CAIRN_F32 || bv->kind != IR_VALUE_CONSTANT ||
        bv->type.dtype != CAIRN_F32 || bv->type.shape.rank != 2 || ot->shape.rank < 1)
        return CAIRN_OK;
    int64_t N = bv->type.shape.d[1];
    int grp[5], ng = 0, last = mm, cur = m->outputs[0];
    int bias = -1, resid = -1;
    gemm_act_t act = GEMM_ACT_NONE, post = GEMM_ACT_NONE;
    float lo = -FLT_MAX, hi = FLT_MAX, plo = -FLT_MAX, phi = FLT_MAX;
    grp[ng++] = mm;
    int c = rw_sole_consumer(r, cur);
    if (c >= 0 && g->nodes[c].op == IR_OP_Add) {
        int o = rw_other_input(&g->nodes[c], cur);
        if (is_bias(g, o, N, ot->shape.rank)) {
            bias = o;
            grp[ng++] = last = c;
            cur = g->nodes[c].outputs[0];
            c = rw_sole_consumer(r, cur);
        }
    }
    if (c >= 0 && rw_epilogue_activation(g, c, cur, 1, &act, &lo, &hi)) {
        grp[ng++] = last = c;
        cur = g->nodes[c].outputs[0];
        c = rw_sole_consumer(r, cur);
    }
    if (c >= 0 && g->nodes[c].op == IR_OP_Add) {
        int o = rw_other_input(&g->nodes[c], cur);
        const ir_type_t *ct = &g->values[cur].type;
        if (o >= 0 && o != cur && g->values[o].type.dtype == CAIRN_F32 &&
            shape_definite(&ct->shape) && ir_shape_equal(&g->values[o].type.shape, &ct->shape)) {
            resid = o;
            grp[ng++] = last = c;
            cur = g->nodes[c].outputs[0];
            c = rw_sole_consumer(r, cur);
            if (c >= 0 && rw_epilogue_activation(g, c, cur, 1, &post, &plo, &phi))
                grp[ng++] = last = c;
        }
    }
    if (ng == 1 || !rw_group_closed(r, last, grp, ng))
        return CAIRN_OK;
    int in[4] = {A, B, bias, resid};
    int n_in = resid >= 0 ? 4 : bias >= 0 ? 3 : 2;
    cairn_attr_t attrs[6];
    int na = 0;
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
    return rw_try_replace(r, last, IR_OP_FusedMatMul, in, n_in, attrs, na, grp, ng);
}

cairn_status_t pass_fuse_gemm(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && g->nodes[i].op == IR_OP_MatMul)
            s = fuse_one(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
