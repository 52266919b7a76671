/* The canonicalize pass on the LLaMA-style patterns PyTorch exports:
 * RMSNorm (x * rsqrt(mean(x^2) + eps) * weight, in each form the exporter
 * or a hand-written model produces) -> RMSNormalization, x * Sigmoid(x) ->
 * Swish (SiLU), and fuse_gemm taking that SiLU into a MatMul's epilogue.
 * Each rewrite's structure is checked, the outputs against the same graph
 * run with the passes off, and near misses must stay as they are. */
#include "check.h"
#include "compiler/pass.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/gemm/gemm.h"
#include "runtime/session_internal.h"

#include <math.h>

#include "compiler_test_util.h"

/* The ways 1/rms reaches x (r = mean + eps). */
enum { INV_DIV_X, INV_DIV_ONE, INV_DIV_ONE_SWAPPED, INV_RECIP, INV_POW };
/* The weight: none, Mul(n, w), Mul(w, n). */
enum { W_NONE, W_AFTER, W_BEFORE };

typedef struct rms_form {
    int mul_square; /* x*x instead of Pow(x, 2) */
    int inv;        /* INV_* */
    int weight;     /* W_* */
    int eps_first;  /* Add(eps, mean) */
} rms_form_t;

/* Builds the RMSNorm of input x (rank 3, [2, seq, 8]) in form f; axes
 * and keepdims for the ReduceMean; returns y. */
static cairn_value_id build_rms(cairn_graph_t *g, cairn_value_id x, const rms_form_t *f,
                                const int64_t *axes, int n_axes, int keepdims, float eps,
                                int64_t wd)
{
    cairn_attr_t ra[2] = {{"axes", CAIRN_ATTR_INTS, 0, 0, NULL, axes, NULL, (size_t)n_axes, NULL},
                          cairn_attr_int("keepdims", keepdims)};
    cairn_value_id sq = f->mul_square ? bin(g, "Mul", "rms/Mul_sq", x, x)
                                      : bin(g, "Pow", "rms/Pow", x, scalar(g, "two", 2.0f));
    cairn_value_id m = node(g, "ReduceMean", "rms/ReduceMean", &sq, 1, ra, 2);
    cairn_value_id e = scalar(g, "eps", eps);
    cairn_value_id a = f->eps_first ? bin(g, "Add", "rms/Add", e, m) : bin(g, "Add", "rms/Add", m, e);
    cairn_value_id n;
    if (f->inv == INV_POW) {
        cairn_value_id r = bin(g, "Pow", "rms/Pow_inv", a, scalar(g, "mhalf", -0.5f));
        n = bin(g, "Mul", "rms/Mul", x, r);
    } else {
        cairn_value_id s = node(g, "Sqrt", "rms/Sqrt", &a, 1, NULL, 0);
        if (f->inv == INV_DIV_X) {
            n = bin(g, "Div", "rms/Div", x, s);
        } else {
            cairn_value_id r = f->inv == INV_RECIP
                                   ? node(g, "Reciprocal", "rms/Reciprocal", &s, 1, NULL, 0)
                                   : bin(g, "Div", "rms/Div", scalar(g, "one", 1.0f), s);
            n = f->inv == INV_DIV_ONE_SWAPPED ? bin(g, "Mul", "rms/Mul", r, x)
                                              : bin(g, "Mul", "rms/Mul", x, r);
        }
    }
    if (f->weight == W_NONE)
        return n;
    cairn_value_id w = tensor(g, "rms.weight", 1, &wd, 3, 0.5, 1.5);
    return f->weight == W_AFTER ? bin(g, "Mul", "rms/Mul_w", n, w)
                                : bin(g, "Mul", "rms/Mul_w", w, n);
}

static void test_rms_forms(void)
{
    int64_t d[3] = {2, 5, 8};
    const char *dn[3] = {NULL, "seq", NULL};
    const int64_t ax[1] = {-1};
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, 5, 8}};
    int ranks[1] = {3};
    int k = 0;
    for (int sq = 0; sq < 2; sq++)
        for (int inv = INV_DIV_X; inv <= INV_POW; inv++)
            for (int w = W_NONE; w <= W_BEFORE; w++, k++) {
                rms_form_t f = {sq, inv, w, k % 2};
                float eps = k % 3 ? 1e-6f : 1e-5f;
                cairn_graph_t *g;
                CHECK_OK(cairn_graph_create(&g));
                cairn_value_id x;
                CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, d, dn, &x));
                cairn_value_id y = build_rms(g, x, &f, ax, 1, 1, eps, 8);
                CHECK_OK(cairn_graph_mark_output(g, y));
                ir_graph_t *c = compiled(g, "canonicalize");
                const ir_node_t *n = find_op(c, IR_OP_RMSNormalization);
                CHECK_MSG(c->n_nodes == 1 && n, "form sq=%d inv=%d w=%d: %d nodes", sq, inv, w,
                          c->n_nodes);
                if (n) {
                    const ir_attr_t *e = ir_node_attr(n, "epsilon");
                    const ir_attr_t *a = ir_node_attr(n, "axis");
                    CHECK(e && e->f == eps && a && a->i == 2);
                    CHECK(n->n_inputs == 2 && n->inputs[0] == c->inputs[0] &&
                          n->outputs[0] == c->outputs[0]);
                    const ir_value_t *sv = &c->values[n->inputs[1]];
                    CHECK(sv->kind == IR_VALUE_CONSTANT && sv->type.shape.rank == 1 &&
                          sv->type.shape.d[0] == 8);
                    CHECK(has_source(n, "rms/ReduceMean") && has_source(n, "rms/Add") &&
                          has_source(n, sq ? "rms/Mul_sq" : "rms/Pow") &&
                          has_source(n, "rms/Mul_w") == (w != W_NONE));
                    int want_src = 3 + (inv == INV_DIV_X ? 2 : inv == INV_POW ? 2 : 3) + (w != 0);
                    CHECK_MSG(n->n_sources == want_src, "sources %d, want %d", n->n_sources,
                              want_src);
                }
                ir_graph_destroy(c);
                compare_runs(g, "all", 1, dims, ranks, 1e-5);
                cairn_graph_destroy(g);
            }
}

/* Normalising over the two trailing dims: axis 1, a [5, 8] weight. */
static void test_rms_two_axes(void)
{
    int64_t d[3] = {3, 5, 8};
    const int64_t ax[2] = {-1, 1};
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, d, NULL, &x));
    rms_form_t f = {0, INV_DIV_ONE, W_NONE, 0};
    cairn_value_id n = build_rms(g, x, &f, ax, 2, 1, 1e-6f, 0);
    int64_t wd[2] = {5, 8};
    cairn_value_id y = bin(g, "Mul", "rms/Mul_w", n, tensor(g, "w2", 2, wd, 4, 0.5, 1.5));
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "canonicalize");
    const ir_node_t *r = find_op(c, IR_OP_RMSNormalization);
    CHECK(c->n_nodes == 1 && r && ir_node_attr(r, "axis")->i == 1);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{3, 5, 8}};
    int ranks[1] = {3};
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* Near misses: each must keep all its nodes (no RMSNormalization). */
static void near_miss(const char *what, int which)
{
    int64_t d[3] = {2, 5, 8};
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    cairn_value_id x, other;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, d, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "other", CAIRN_F32, 3, d, NULL, &other));
    const int64_t last[1] = {-1}, mid[1] = {1};
    cairn_value_id y;
    rms_form_t f = {0, INV_DIV_ONE, W_AFTER, 0};
    if (which == 0) { /* mean over a middle axis */
        y = build_rms(g, x, &f, mid, 1, 1, 1e-6f, 8);
    } else if (which == 1) { /* keepdims = 0 */
        f.weight = W_NONE;
        f.inv = INV_POW;
        cairn_attr_t ra[2] = {{"axes", CAIRN_ATTR_INTS, 0, 0, NULL, last, NULL, 1, NULL},
                              cairn_attr_int("keepdims", 0)};
        cairn_value_id sq = bin(g, "Pow", "p", x, scalar(g, "two", 2.0f));
        cairn_value_id m = node(g, "ReduceMean", "m", &sq, 1, ra, 2);
        cairn_value_id a = bin(g, "Add", "a", m, scalar(g, "eps", 1e-6f));
        cairn_value_id s = node(g, "Sqrt", "s", &a, 1, NULL, 0);
        y = bin(g, "Div", "div", s, scalar(g, "k", 2.0f)); /* shape [2, 5]: no x at all */
    } else {
        cairn_value_id sq = which == 2 ? bin(g, "Pow", "p", x, scalar(g, "three", 3.0f))
                                       : bin(g, "Pow", "p", x, scalar(g, "two", 2.0f));
        cairn_attr_t ra[1] = {{"axes", CAIRN_ATTR_INTS, 0, 0, NULL, last, NULL, 1, NULL}};
        cairn_value_id m = node(g, "ReduceMean", "m", &sq, 1, ra, 1);
        cairn_value_id a = bin(g, "Add", "a", m, scalar(g, "eps", 1e-6f));
        cairn_value_id s = node(g, "Sqrt", "s", &a, 1, NULL, 0);
        /* 2: x^3; 3: 2 / rms; 4: the scale applies to another tensor;
         * 5: 1/rms also leaves the pattern (a graph output) */
        cairn_value_id r = bin(g, "Div", "inv", scalar(g, "num", which == 3 ? 2.0f : 1.0f), s);
        y = bin(g, "Mul", "mul", which == 4 ? other : x, r);
        if (which == 5)
            CHECK_OK(cairn_graph_mark_output(g, r));
    }
    CHECK_OK(cairn_graph_mark_output(g, y));
    int before = cairn_graph_ir(g)->n_nodes;
    ir_graph_t *c = compiled(g, "canonicalize");
    CHECK_MSG(count_op(c, IR_OP_RMSNormalization) == 0 && c->n_nodes == before,
              "%s: %d nodes of %d left, %d RMSNormalization", what, c->n_nodes, before,
              count_op(c, IR_OP_RMSNormalization));
    ir_graph_destroy(c);
    cairn_graph_destroy(g);
}

static void test_rms_near_misses(void)
{
    static const char *const what[] = {"mean over axis 1", "keepdims 0", "x^3",
                                       "2 / rms", "rms of x applied to another tensor",
                                       "1/rms is an output"};
    for (int i = 0; i < 6; i++)
        near_miss(what[i], i);
}

/* x * Sigmoid(x) in both orders -> Swish; Mul(y, Sigmoid(x)) and a sigmoid
 * read twice stay. */
static void test_silu(void)
{
    int64_t d[2] = {4, 33};
    int64_t dims[2][CAIRN_MAX_RANK] = {{4, 33}, {4, 33}};
    int ranks[2] = {2, 2};
    for (int v = 0; v < 4; v++) {
        cairn_graph_t *g;
        CHECK_OK(cairn_graph_create(&g));
        cairn_value_id x, o;
        CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
        CHECK_OK(cairn_graph_add_input(g, "o", CAIRN_F32, 2, d, NULL, &o));
        cairn_value_id s = node(g, "Sigmoid", "act/Sigmoid", &x, 1, NULL, 0);
        cairn_value_id y = v == 0 ? bin(g, "Mul", "act/Mul", x, s)
                           : v == 1 ? bin(g, "Mul", "act/Mul", s, x)
                                    : bin(g, "Mul", "act/Mul", s, v == 2 ? o : x);
        CHECK_OK(cairn_graph_mark_output(g, y));
        if (v == 3)
            CHECK_OK(cairn_graph_mark_output(g, s));
        ir_graph_t *c = compiled(g, "canonicalize");
        const ir_node_t *n = find_op(c, IR_OP_Swish);
        if (v < 2) {
            CHECK(c->n_nodes == 1 && n && n->inputs[0] == c->inputs[0] &&
                  has_source(n, "act/Sigmoid") && has_source(n, "act/Mul"));
        } else {
            CHECK_MSG(!n && c->n_nodes == 2, "SiLU near miss %d rewritten", v);
        }
        ir_graph_destroy(c);
        compare_runs(g, "all", 2, dims, ranks, 1e-6);
        cairn_graph_destroy(g);
    }
}

/* A LLaMA MLP: down(silu(gate(h)) * up(h)) with h = RMSNorm(x); the gate
 * projection (with or without a bias) must end with SiLU in its epilogue. */
static void test_swiglu(int with_bias)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[3] = {2, 7, 16}, dg[2] = {16, 40}, dd[2] = {40, 16}, db[1] = {40};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, NULL, &x));
    const int64_t ax[1] = {-1};
    rms_form_t f = {0, INV_DIV_ONE, W_AFTER, 0};
    cairn_value_id h = build_rms(g, x, &f, ax, 1, 1, 1e-6f, 16);
    cairn_value_id gt = bin(g, "MatMul", "gate/MatMul", h, tensor(g, "Wg", 2, dg, 5, -0.3, 0.3));
    if (with_bias)
        gt = bin(g, "Add", "gate/Add", gt, tensor(g, "bg", 1, db, 6, -0.5, 0.5));
    cairn_value_id s = node(g, "Sigmoid", "act/Sigmoid", &gt, 1, NULL, 0);
    cairn_value_id a = bin(g, "Mul", "act/Mul", gt, s);
    cairn_value_id up = bin(g, "MatMul", "up/MatMul", h, tensor(g, "Wu", 2, dg, 7, -0.3, 0.3));
    cairn_value_id p = bin(g, "Mul", "glu/Mul", a, up);
    cairn_value_id dn = bin(g, "MatMul", "down/MatMul", p, tensor(g, "Wd", 2, dd, 8, -0.3, 0.3));
    cairn_value_id y = bin(g, "Add", "residual", x, dn);
    CHECK_OK(cairn_graph_mark_output(g, y));

    ir_graph_t *c = compiled(g, "all");
    CHECK(count_op(c, IR_OP_RMSNormalization) == 1 && count_op(c, IR_OP_Swish) == 0 &&
          count_op(c, IR_OP_Sigmoid) == 0);
    int silu = 0;
    for (int i = 0; i < c->n_nodes; i++) {
        const ir_node_t *n = &c->nodes[i];
        if (n->op == IR_OP_FusedMatMul && has_source(n, "gate/MatMul")) {
            silu = ir_attr_i(n, FUSED_MM_ACTIVATION) == GEMM_ACT_SILU;
            CHECK(has_source(n, "act/Sigmoid") && has_source(n, "act/Mul") &&
                  (n->n_inputs > 2 && n->inputs[2] >= 0) == with_bias);
        }
    }
    CHECK_MSG(silu, "the gate projection has no SiLU epilogue (bias %d)", with_bias);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, 7, 16}};
    int ranks[1] = {3};
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* A Swish with another alpha is not SiLU: no epilogue takes it. */
static void test_swish_alpha_not_fused(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[2] = {3, 16}, dw[2] = {16, 8};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dx, NULL, &x));
    cairn_value_id mm = bin(g, "MatMul", "mm", x, tensor(g, "W", 2, dw, 5, -0.5, 0.5));
    cairn_attr_t al = cairn_attr_float("alpha", 1.5f);
    cairn_value_id y = node(g, "Swish", "sw", &mm, 1, &al, 1);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "fuse_gemm");
    CHECK(count_op(c, IR_OP_Swish) == 1 && count_op(c, IR_OP_FusedMatMul) == 0);
    ir_graph_destroy(c);
    cairn_graph_destroy(g);
}

int main(void)
{
    test_rms_forms();
    test_rms_two_axes();
    test_rms_near_misses();
    test_silu();
    test_swiglu(0);
    test_swiglu(1);
    test_swish_alpha_not_fused();
    return check_finish("test_canon_llama");
}
