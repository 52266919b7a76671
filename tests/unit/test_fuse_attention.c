/* The fuse_attention pass on small graphs built through the C API: the
 * encoder form (MatMul(Q, Transpose(K)) / c + mask -> Softmax -> MatMul(., V)
 * -> head-merge Transpose) and the GPT-2 form (transposes on Q, K, V, Mul
 * by c, masked_fill's Where with a constant causal condition) each become
 * one FusedAttention with every node as a source, and outputs match the
 * graph run without passes; chains that must not fuse are left alone; Q, K
 * and V cut from one projection (Split + Reshape, or Reshape + Transpose +
 * Gather) are read in place. */
#include "check.h"
#include "compiler/pass.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "runtime/session_internal.h"

#include <math.h>
#include "compiler_test_util.h"

static cairn_value_id transpose(cairn_graph_t *g, const char *name, cairn_value_id x,
                                const int64_t *perm)
{
    cairn_attr_t a = cairn_attr_ints("perm", perm, 4);
    return node(g, "Transpose", name, &x, 1, &a, 1);
}

static cairn_value_id softmax(cairn_graph_t *g, const char *name, cairn_value_id x, int axis)
{
    cairn_attr_t a = cairn_attr_int("axis", axis);
    return node(g, "Softmax", name, &x, 1, &a, 1);
}

enum { B = 2, H = 3, S = 11, D = 32 };

/* encoder form; variant 1: the softmax output is also a graph output (no
 * fusion); variant 2: softmax over axis 2 (no fusion); variant 3: no mask,
 * Mul by the constant on the left */
static void test_encoder(int variant)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dq[4] = {B, H, S, D}, dm[4] = {B, 1, 1, S};
    cairn_value_id q, k, v, m;
    CHECK_OK(cairn_graph_add_input(g, "q", CAIRN_F32, 4, dq, NULL, &q));
    CHECK_OK(cairn_graph_add_input(g, "k", CAIRN_F32, 4, dq, NULL, &k));
    CHECK_OK(cairn_graph_add_input(g, "v", CAIRN_F32, 4, dq, NULL, &v));
    if (variant != 3)
        CHECK_OK(cairn_graph_add_input(g, "mask", CAIRN_F32, 4, dm, NULL, &m));
    int64_t pk[4] = {0, 1, 3, 2}, po[4] = {0, 2, 1, 3};
    cairn_value_id kt = transpose(g, "Transpose_1", k, pk);
    cairn_value_id s = bin(g, "MatMul", "MatMul", q, kt);
    if (variant == 3)
        s = bin(g, "Mul", "Mul", scalar(g, "c", 0.125f), s);
    else {
        s = bin(g, "Div", "Div", s, scalar(g, "c", 5.656854f));
        s = bin(g, "Add", "Add", s, m);
    }
    cairn_value_id p = softmax(g, "Softmax", s, variant == 2 ? 2 : -1);
    cairn_value_id o = bin(g, "MatMul", "MatMul_1", p, v);
    cairn_value_id y = transpose(g, "Transpose_2", o, po);
    CHECK_OK(cairn_graph_mark_output(g, y));
    if (variant == 1)
        CHECK_OK(cairn_graph_mark_output(g, p));

    ir_graph_t *c = compiled(g, "fuse_attention");
    const ir_node_t *n = find_op(c, IR_OP_FusedAttention);
    if (variant == 1 || variant == 2) {
        CHECK(!n && count_op(c, IR_OP_Softmax) == 1 && count_op(c, IR_OP_MatMul) == 2);
    } else {
        CHECK(c->n_nodes == 1 && n);
        int nsrc = variant == 3 ? 6 : 7;
        CHECK(n && n->n_sources == nsrc && has_source(n, "Transpose_1") && has_source(n, "MatMul") &&
              has_source(n, "Softmax") && has_source(n, "MatMul_1") && has_source(n, "Transpose_2"));
        CHECK(n && n->n_inputs == (variant == 3 ? 3 : 4));
        CHECK(n && fabs(ir_attr_f(n, FUSED_ATTN_SCALE) - (variant == 3 ? 0.125 : 1 / 5.656854)) < 1e-6);
        CHECK(n && ir_attr_i(n, FUSED_ATTN_CAUSAL) == 0);
        size_t cnt = 0;
        const int64_t *kp = n ? ir_attr_ints(n, FUSED_ATTN_K_PERM, &cnt) : NULL;
        CHECK(kp && cnt == 4 && kp[2] == 2 && kp[3] == 3); /* K itself is [B,H,S,D] */
        const int64_t *op = n ? ir_attr_ints(n, FUSED_ATTN_OUT_PERM, &cnt) : NULL;
        CHECK(op && cnt == 4 && op[1] == 2 && op[2] == 1);
    }
    ir_graph_destroy(c);
    int64_t dims[4][CAIRN_MAX_RANK] = {{B, H, S, D}, {B, H, S, D}, {B, H, S, D}, {B, 1, 1, S}};
    int ranks[4] = {4, 4, 4, 4};
    compare_runs(g, "fuse_attention", variant == 3 ? 3 : 4, dims, ranks, 1e-5);
    compare_runs(g, "all", variant == 3 ? 3 : 4, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* GPT-2 form; variant 1: the condition is not causal (no fusion); variant
 * 2: Where(tril, scores, -inf) (the keep-when-true form) */
static void test_gpt2(int variant)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[4] = {B, S, H, D};
    cairn_value_id q, k, v;
    CHECK_OK(cairn_graph_add_input(g, "q", CAIRN_F32, 4, dx, NULL, &q));
    CHECK_OK(cairn_graph_add_input(g, "k", CAIRN_F32, 4, dx, NULL, &k));
    CHECK_OK(cairn_graph_add_input(g, "v", CAIRN_F32, 4, dx, NULL, &v));
    int64_t pq[4] = {0, 2, 1, 3}, pk[4] = {0, 2, 3, 1};
    cairn_value_id tq = transpose(g, "Transpose", q, pq);
    cairn_value_id tk = transpose(g, "Transpose_2", k, pk);
    cairn_value_id tv = transpose(g, "Transpose_1", v, pq);
    cairn_value_id s = bin(g, "MatMul", "MatMul", tq, tk);
    s = bin(g, "Mul", "Mul", s, scalar(g, "c", 0.17677669f));
    unsigned char cond[S * S];
    for (int i = 0; i < S; i++)
        for (int j = 0; j < S; j++) {
            int masked = j > i;
            if (variant == 1 && i == 3 && j == 7)
                masked = 0;
            cond[i * S + j] = (unsigned char)(variant == 2 ? !masked : masked);
        }
    cairn_tensor_t ct = {CAIRN_BOOL, 4, {1, 1, S, S}, cond};
    cairn_value_id cv = -1;
    CHECK_OK(cairn_graph_add_constant(g, "cond", &ct, &cv));
    cairn_value_id fill = scalar(g, "fill", -INFINITY);
    cairn_value_id win[3] = {cv, fill, s};
    if (variant == 2)
        win[1] = s, win[2] = fill;
    s = node(g, "Where", "Where", win, 3, NULL, 0);
    cairn_value_id p = softmax(g, "Softmax", s, 3);
    cairn_value_id o = bin(g, "MatMul", "MatMul_1", p, tv);
    cairn_value_id y = transpose(g, "Transpose_3", o, pq);
    CHECK_OK(cairn_graph_mark_output(g, y));

    ir_graph_t *c = compiled(g, "fuse_attention");
    const ir_node_t *n = find_op(c, IR_OP_FusedAttention);
    if (variant == 1) {
        CHECK(!n && count_op(c, IR_OP_Where) == 1);
    } else {
        CHECK(c->n_nodes == 1 && n && n->n_inputs == 3 && n->n_sources == 9);
        CHECK(n && has_source(n, "Where") && has_source(n, "Transpose_2") &&
              has_source(n, "Transpose_3"));
        CHECK(n && ir_attr_i(n, FUSED_ATTN_CAUSAL) == 1);
        size_t cnt = 0;
        const int64_t *kp = n ? ir_attr_ints(n, FUSED_ATTN_K_PERM, &cnt) : NULL;
        CHECK(kp && cnt == 4 && kp[0] == 0 && kp[1] == 2 && kp[2] == 1 && kp[3] == 3);
    }
    ir_graph_destroy(c);
    int64_t dims[3][CAIRN_MAX_RANK] = {{B, S, H, D}, {B, S, H, D}, {B, S, H, D}};
    int ranks[3] = {4, 4, 4};
    compare_runs(g, "fuse_attention", 3, dims, ranks, 1e-5);
    compare_runs(g, "all", 3, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* GPT-2's c_attn form: one [B, S, 3HD] projection Split on its last axis,
 * each part Reshaped to [B, S, H, D] and transposed: the attention reads
 * the projection in place (q_view, k_view, v_view) and the Split and
 * Reshapes go. variant 1: the V part is also a graph output (V keeps its
 * Split output, the Split stays); variant 2: the Split is on axis 1 (no
 * views). */
static void test_qkv_views(int variant)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    const int64_t L = 3 * H * D;
    int64_t dx[3] = {B, S, L};
    if (variant == 2)
        dx[1] = 3 * S, dx[2] = H * D;
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, NULL, &x));
    cairn_attr_t sa = cairn_attr_int("axis", variant == 2 ? 1 : -1);
    cairn_value_id parts[3];
    CHECK_OK(cairn_graph_add_node(g, "Split", "Split", &x, 1, &sa, 1, parts, 3, NULL));
    int64_t shp[4] = {B, S, H, D};
    cairn_tensor_t st = {CAIRN_I64, 1, {4}, shp};
    cairn_value_id sv;
    CHECK_OK(cairn_graph_add_constant(g, "shape", &st, &sv));
    static const char *const rn[3] = {"Reshape", "Reshape_1", "Reshape_2"};
    cairn_value_id r[3];
    for (int i = 0; i < 3; i++) {
        cairn_value_id in[2] = {parts[i], sv};
        r[i] = node(g, "Reshape", rn[i], in, 2, NULL, 0);
    }
    int64_t pq[4] = {0, 2, 1, 3}, pk[4] = {0, 2, 3, 1};
    cairn_value_id tq = transpose(g, "Transpose", r[0], pq);
    cairn_value_id tk = transpose(g, "Transpose_2", r[1], pk);
    cairn_value_id tv = transpose(g, "Transpose_1", r[2], pq);
    cairn_value_id s = bin(g, "MatMul", "MatMul", tq, tk);
    s = bin(g, "Mul", "Mul", s, scalar(g, "c", 0.17677669f));
    cairn_value_id p = softmax(g, "Softmax", s, 3);
    cairn_value_id o = bin(g, "MatMul", "MatMul_1", p, tv);
    cairn_value_id y = transpose(g, "Transpose_3", o, pq);
    CHECK_OK(cairn_graph_mark_output(g, y));
    if (variant == 1)
        CHECK_OK(cairn_graph_mark_output(g, parts[2]));

    ir_graph_t *c = compiled(g, "fuse_attention");
    const ir_node_t *n = find_op(c, IR_OP_FusedAttention);
    CHECK(n != NULL);
    size_t cq = 0, ck = 0, cv = 0;
    const int64_t *qv = n ? ir_attr_ints(n, FUSED_ATTN_Q_VIEW, &cq) : NULL;
    const int64_t *kv = n ? ir_attr_ints(n, FUSED_ATTN_K_VIEW, &ck) : NULL;
    const int64_t *vv = n ? ir_attr_ints(n, FUSED_ATTN_V_VIEW, &cv) : NULL;
    if (variant == 2) {
        CHECK(cq == 0 && ck == 0 && cv == 0 && count_op(c, IR_OP_Split) == 1);
    } else {
        CHECK(qv && cq == 3 && qv[0] == 0 && qv[1] == H && qv[2] == D);
        CHECK(kv && ck == 3 && kv[0] == H * D && kv[1] == H && kv[2] == D);
        if (variant == 0)
            CHECK(vv && cv == 3 && vv[0] == 2 * H * D && c->n_nodes == 1 && n &&
                  n->n_sources == 12 && has_source(n, "Split") && has_source(n, "Reshape_2"));
        else
            CHECK(cv == 0 && count_op(c, IR_OP_Split) == 1 && count_op(c, IR_OP_Reshape) == 1);
    }
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{dx[0], dx[1], dx[2]}};
    int ranks[1] = {3};
    compare_runs(g, "fuse_attention", 1, dims, ranks, 1e-5);
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* The encoder's form: qkv [B, S, 3HD] -> Reshape [B, S, 3, H, D] ->
 * Transpose (2, 0, 3, 1, 4) -> Gather(axis 0) 0, 1, 2 -> attention with K
 * transposed: read in place, the Gathers, Transpose and Reshape gone, the
 * perms moved onto the views' [B, S, H, D] axes. variant 1: the index is
 * -1 for V (still V); variant 2: the Transpose perm differs (no views). */
static void test_qkv_gather_views(int variant)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[3] = {B, S, 3 * H * D};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, NULL, &x));
    int64_t shp[5] = {B, S, 3, H, D};
    cairn_tensor_t st = {CAIRN_I64, 1, {5}, shp};
    cairn_value_id sv;
    CHECK_OK(cairn_graph_add_constant(g, "shape", &st, &sv));
    cairn_value_id rin[2] = {x, sv};
    cairn_value_id r5 = node(g, "Reshape", "Reshape", rin, 2, NULL, 0);
    int64_t p5[5] = {2, 0, 3, 1, 4};
    if (variant == 2)
        p5[3] = 4, p5[4] = 1;
    cairn_attr_t pa = cairn_attr_ints("perm", p5, 5);
    cairn_value_id t5 = node(g, "Transpose", "Transpose", &r5, 1, &pa, 1);
    cairn_value_id qkv[3];
    static const char *const gn[3] = {"Gather", "Gather_1", "Gather_2"}, *const cn[3] = {"i0", "i1", "i2"};
    for (int i = 0; i < 3; i++) {
        int64_t idx = variant == 1 && i == 2 ? -1 : i;
        cairn_tensor_t it = {CAIRN_I64, 0, {0}, &idx};
        cairn_value_id iv;
        CHECK_OK(cairn_graph_add_constant(g, cn[i], &it, &iv));
        cairn_attr_t ga = cairn_attr_int("axis", 0);
        cairn_value_id gin[2] = {t5, iv};
        qkv[i] = node(g, "Gather", gn[i], gin, 2, &ga, 1);
    }
    int64_t pk[4] = {0, 1, 3, 2}, po[4] = {0, 2, 1, 3};
    cairn_value_id kt = transpose(g, "Transpose_1", qkv[1], pk);
    cairn_value_id s = bin(g, "MatMul", "MatMul", qkv[0], kt);
    s = bin(g, "Mul", "Mul", s, scalar(g, "c", 0.17677669f));
    cairn_value_id p = softmax(g, "Softmax", s, -1);
    cairn_value_id o = bin(g, "MatMul", "MatMul_1", p, qkv[2]);
    cairn_value_id y = transpose(g, "Transpose_2", o, po);
    CHECK_OK(cairn_graph_mark_output(g, y));

    ir_graph_t *c = compiled(g, "fuse_attention");
    const ir_node_t *n = find_op(c, IR_OP_FusedAttention);
    CHECK(n != NULL);
    size_t cq = 0, ck = 0, cv = 0, cp = 0;
    const int64_t *qv = n ? ir_attr_ints(n, FUSED_ATTN_Q_VIEW, &cq) : NULL;
    const int64_t *kv = n ? ir_attr_ints(n, FUSED_ATTN_K_VIEW, &ck) : NULL;
    const int64_t *vv = n ? ir_attr_ints(n, FUSED_ATTN_V_VIEW, &cv) : NULL;
    if (variant == 2) {
        CHECK(cq == 0 && ck == 0 && cv == 0 && count_op(c, IR_OP_Gather) == 3);
    } else {
        CHECK(c->n_nodes == 1 && n && n->inputs[0] == n->inputs[1] && n->inputs[1] == n->inputs[2]);
        CHECK(qv && cq == 3 && qv[0] == 0 && qv[1] == H && qv[2] == D);
        CHECK(kv && ck == 3 && kv[0] == H * D);
        CHECK(vv && cv == 3 && vv[0] == 2 * H * D);
        /* K: logical [b, h, s, d] on the view's [B, S, H, D] axes */
        const int64_t *kp = n ? ir_attr_ints(n, FUSED_ATTN_K_PERM, &cp) : NULL;
        CHECK(kp && cp == 4 && kp[0] == 0 && kp[1] == 2 && kp[2] == 1 && kp[3] == 3);
        CHECK(n && has_source(n, "Gather_2") && has_source(n, "Transpose") &&
              has_source(n, "Reshape"));
    }
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{dx[0], dx[1], dx[2]}};
    int ranks[1] = {3};
    compare_runs(g, "fuse_attention", 1, dims, ranks, 1e-5);
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

int main(void)
{
    for (int v = 0; v < 3; v++)
        test_qkv_views(v);
    for (int v = 0; v < 3; v++)
        test_qkv_gather_views(v);
    for (int v = 0; v < 4; v++)
        test_encoder(v);
    for (int v = 0; v < 3; v++)
        test_gpt2(v);
    return check_finish("test_fuse_attention");
}
