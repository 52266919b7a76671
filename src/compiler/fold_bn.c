/*
 * BatchNormalization folding: Conv(X, W, [B]) with W (and B) constant f32,
 * followed by an inference-mode BatchNormalization whose scale, bias, mean
 * and var are constant f32 vectors of M (output channels) elements,
 * becomes one Conv(X, W', B') with
 *   s[m] = scale[m] / sqrt(var[m] + epsilon)
 *   W'[m, ...] = W[m, ...] * s[m]
 *   B'[m] = (B[m] - mean[m]) * s[m] + bias[m]     (B[m] = 0 when absent)
 * computed in double, rounded once. The Conv's output must have the BN as
 * its only reader and not be a graph output.
 */
#include "compiler/conv_attrs.h"
#include "compiler/rewrite.h"

#include <math.h>
#include <stdlib.h>

/* A constant f32 value of exactly n elements: its data. */
static const float *const_vec(const ir_graph_t *g, int v, int64_t n)
{
    if (v < 0)
        return NULL;
    const ir_value_t *val = &g->values[v];
    if (val->kind != IR_VALUE_CONSTANT || !val->data || val->type.dtype != CAIRN_F32 ||
        ir_shape_numel(&val->type.shape) != n)
        return NULL;
    return val->data;
}

static cairn_status_t fold_one(rw_t *r, int ci)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *cv = &g->nodes[ci];
    const int wv = cv->inputs[1];
    const ir_value_t *w = &g->values[wv];
    if (w->kind != IR_VALUE_CONSTANT || !w->data || w->type.dtype != CAIRN_F32 ||
        w->type.shape.rank < 3 || !ir_shape_is_concrete(&w->type.shape))
        return CAIRN_OK;
    const int64_t M = w->type.shape.d[0], per = ir_shape_numel(&w->type.shape) / (M ? M : 1);
    const int bv = cv->n_inputs > 2 ? cv->inputs[2] : -1;
    const float *B0 = bv >= 0 ? const_vec(g, bv, M) : NULL;
    if (bv >= 0 && !B0)
        return CAIRN_OK;
    int bi = rw_sole_consumer(r, cv->outputs[0]);
    if (bi < 0 || g->nodes[bi].op != IR_OP_BatchNormalization)
        return CAIRN_OK;
    const ir_node_t *bn = &g->nodes[bi];
    if (bn->inputs[0] != cv->outputs[0] || bn->n_outputs != 1)
        return CAIRN_OK;
    const ir_attr_t *tm = ir_node_attr(bn, "training_mode");
    if (tm && tm->i != 0)
        return CAIRN_OK;
    const ir_attr_t *ea = ir_node_attr(bn, "epsilon");
    const double eps = ea ? ea->f : 1e-5;
    const float *sc = const_vec(g, bn->inputs[1], M), *bb = const_vec(g, bn->inputs[2], M),
                *mean = const_vec(g, bn->inputs[3], M), *var = const_vec(g, bn->inputs[4], M);
    if (!sc || !bb || !mean || !var)
        return CAIRN_OK;
    float *W2 = malloc((size_t)(M * per) * sizeof(float));
    float *B2 = malloc((size_t)(M ? M : 1) * sizeof(float));
    if (!W2 || !B2) {
        free(W2), free(B2);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "fold_bn: out of memory");
    }
    const float *W = w->data;
    for (int64_t m = 0; m < M; m++) {
        const double s = (double)sc[m] / sqrt((double)var[m] + eps);
        for (int64_t i = 0; i < per; i++)
            W2[m * per + i] = (float)((double)W[m * per + i] * s);
        B2[m] = (float)(((B0 ? (double)B0[m] : 0.0) - (double)mean[m]) * s + (double)bb[m]);
    }
    int w2 = -1, b2 = -1;
    cairn_status_t s = rw_add_const(r, "fold_bn_w", CAIRN_F32, w->type.shape.rank,
                                    w->type.shape.d, W2, &w2);
    if (s == CAIRN_OK)
        s = rw_add_const(r, "fold_bn_b", CAIRN_F32, 1, &M, B2, &b2);
    free(W2), free(B2);
    BASE_TRY(s);
    cv = &r->g->nodes[ci]; /* adding values may move the arrays */
    cairn_attr_t attrs[16];
    int na = conv_attrs_of(cv, attrs, 16);
    if (na < 0)
        return CAIRN_OK;
    int in[3] = {cv->inputs[0], w2, b2}, grp[2] = {ci, bi};
    return rw_try_replace(r, bi, IR_OP_Conv, in, 3, attrs, na, grp, 2);
}

cairn_status_t pass_fold_bn(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && g->nodes[i].op == IR_OP_Conv)
            s = fold_one(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
