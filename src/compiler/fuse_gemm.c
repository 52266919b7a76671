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
 *
 * The dynamically quantised form of the same, MatMulInteger(A, W int8
 * constant, [azp], [wzp]) -> Cast(f32) -> Mul(scale) and then the chain
 * above, becomes one FusedMatMulInteger (fuse_int8).
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


/* The epilogue chain after value cur (a product of N columns, rank
 * `rank`): Add(bias), activation, Add(residual), post-activation, each
 * optional in that order, appended to grp; its last node and what it
 * found. */
typedef struct epi_chain {
    int last, bias, resid;
    gemm_act_t act, post;
    float lo, hi, plo, phi;
} epi_chain_t;

static void match_chain(rw_t *r, int cur, int64_t N, int rank, int *grp, int *ng,
                        epi_chain_t *e)
{
    const ir_graph_t *g = r->g;
    e->bias = e->resid = -1;
    e->act = e->post = GEMM_ACT_NONE;
    e->lo = e->plo = -FLT_MAX, e->hi = e->phi = FLT_MAX;
    int c = rw_sole_consumer(r, cur);
    if (c >= 0 && g->nodes[c].op == IR_OP_Add) {
        int o = rw_other_input(&g->nodes[c], cur);
        if (is_bias(g, o, N, rank)) {
            e->bias = o;
            grp[(*ng)++] = e->last = c;
            cur = g->nodes[c].outputs[0];
            c = rw_sole_consumer(r, cur);
        }
    }
    if (c >= 0 && rw_epilogue_activation(g, c, cur, 1, &e->act, &e->lo, &e->hi)) {
        grp[(*ng)++] = e->last = c;
        cur = g->nodes[c].outputs[0];
        c = rw_sole_consumer(r, cur);
    }
    if (c >= 0 && g->nodes[c].op == IR_OP_Add) {
        int o = rw_other_input(&g->nodes[c], cur);
        const ir_type_t *ct = &g->values[cur].type;
        if (o >= 0 && o != cur && g->values[o].type.dtype == CAIRN_F32 &&
            shape_definite(&ct->shape) && ir_shape_equal(&g->values[o].type.shape, &ct->shape)) {
            e->resid = o;
            grp[(*ng)++] = e->last = c;
            cur = g->nodes[c].outputs[0];
            c = rw_sole_consumer(r, cur);
            if (c >= 0 && rw_epilogue_activation(g, c, cur, 1, &e->post, &e->plo, &e->phi))
                grp[(*ng)++] = e->last = c;
        }
    }
}

/* The chain's attributes (FusedMatMul's slots, by name); their count. */
static int chain_attrs(const epi_chain_t *e, cairn_attr_t *attrs)
{
    int na = 0;
    attrs[na++] = cairn_attr_int("activation", e->act);
    if (e->act == GEMM_ACT_CLIP) {
        attrs[na++] = cairn_attr_float("clip_min", e->lo);
        attrs[na++] = cairn_attr_float("clip_max", e->hi);
    }
    if (e->post != GEMM_ACT_NONE)
        attrs[na++] = cairn_attr_int("post_activation", e->post);
    if (e->post == GEMM_ACT_CLIP) {
        attrs[na++] = cairn_attr_float("post_clip_min", e->plo);
        attrs[na++] = cairn_attr_float("post_clip_max", e->phi);
    }
    return na;
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
    int grp[5], ng = 0;
    grp[ng++] = mm;
    epi_chain_t e;
    e.last = mm;
    match_chain(r, m->outputs[0], N, ot->shape.rank, grp, &ng, &e);
    if (ng == 1 || !rw_group_closed(r, e.last, grp, ng))
        return CAIRN_OK;
    int in[4] = {A, B, e.bias, e.resid};
    int n_in = e.resid >= 0 ? 4 : e.bias >= 0 ? 3 : 2;
    cairn_attr_t attrs[6];
    int na = chain_attrs(&e, attrs);
    return rw_try_replace(r, e.last, IR_OP_FusedMatMul, in, n_in, attrs, na, grp, ng);
}

/* v: an f32 value of one element or of N (shape [N] or [1, ..., 1, N]) */
static int scale_like(const ir_graph_t *g, int v, int64_t N)
{
    if (v < 0 || g->values[v].type.dtype != CAIRN_F32)
        return 0;
    const ir_shape_t *s = &g->values[v].type.shape;
    if (s->rank < 0)
        return 0;
    int64_t n = ir_shape_numel(s);
    if (n == 1)
        return 1;
    for (int i = 0; i + 1 < s->rank; i++)
        if (s->d[i] != 1)
            return 0;
    return s->rank >= 1 && s->d[s->rank - 1] == N;
}

/* MatMulInteger(A, B const 2-D, [azp one value], [bzp const, one or N
 * values]) -> Cast(to f32) -> Mul(scale: one or N f32 values, any
 * producer), what onnxruntime's quantize_dynamic writes for a MatMul, then
 * the epilogue chain: one FusedMatMulInteger (dequantised in the int8
 * GEMM's pass over its sums, the Cast's int32 -> f32 tensor and the Mul's
 * never written). */
static cairn_status_t fuse_int8(rw_t *r, int mm)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *m = &g->nodes[mm];
    const int A = m->inputs[0], B = m->inputs[1];
    const int azp = m->n_inputs > 2 ? m->inputs[2] : -1, bzp = m->n_inputs > 3 ? m->inputs[3] : -1;
    const ir_value_t *bv = &g->values[B];
    const ir_type_t *ot = &g->values[m->outputs[0]].type;
    if (bv->kind != IR_VALUE_CONSTANT || bv->type.shape.rank != 2 || ot->shape.rank < 1 ||
        g->values[A].type.shape.rank < 1)
        return CAIRN_OK;
    const int64_t N = bv->type.shape.d[1];
    if (azp >= 0 && ir_shape_numel(&g->values[azp].type.shape) != 1)
        return CAIRN_OK;
    if (bzp >= 0) {
        const ir_value_t *z = &g->values[bzp];
        int64_t nz = ir_shape_numel(&z->type.shape);
        if (z->kind != IR_VALUE_CONSTANT || (nz != 1 && nz != N) || z->type.shape.rank > 1)
            return CAIRN_OK;
    }
    int cast, mul, scale;
    if (!rw_cast_mul(r, m->outputs[0], &cast, &mul, &scale) || !scale_like(g, scale, N))
        return CAIRN_OK;
    int grp[8] = {mm, cast, mul}, ng = 3;
    epi_chain_t e;
    e.last = mul;
    match_chain(r, g->nodes[mul].outputs[0], N, ot->shape.rank, grp, &ng, &e);
    if (!rw_group_closed(r, e.last, grp, ng))
        return CAIRN_OK;
    int in[7] = {A, B, scale, azp, bzp, e.bias, e.resid};
    int n_in = e.resid >= 0 ? 7 : e.bias >= 0 ? 6 : bzp >= 0 ? 5 : azp >= 0 ? 4 : 3;
    cairn_attr_t attrs[6];
    int na = chain_attrs(&e, attrs);
    return rw_try_replace(r, e.last, IR_OP_FusedMatMulInteger, in, n_in, attrs, na, grp, ng);
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
        else if (!r.dead[i] && g->nodes[i].op == IR_OP_MatMulInteger)
            s = fuse_int8(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
