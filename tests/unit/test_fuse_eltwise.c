/* The fuse_eltwise pass on small graphs built through the C API: which
 * nodes become one FusedElementwise (and which must not), its program, and
 * that the outputs equal the unfused graph's (bit for bit where the chain
 * is made of ops the fused kernel reproduces exactly: tolerance 0). ctest
 * runs it under each ISA level, so the reference and the vector kernels
 * are both compared with the unfused ops of the same level. */
#include "check.h"
#include "compiler/pass.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/eltwise/fused.h"
#include "runtime/session_internal.h"

#include <math.h>

#include "compiler_test_util.h"

static void check_program(const ir_graph_t *c, const char *want)
{
    const ir_node_t *n = find_op(c, IR_OP_FusedElementwise);
    char buf[1024] = "";
    if (n)
        op_fused_eltwise_describe(n, buf, sizeof buf);
    CHECK_MSG(n && !strcmp(buf, want), "program '%s', want '%s'", buf, want);
}

/* x * Sigmoid(x) (SiLU) */
static void test_silu(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {4, 37};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    cairn_value_id s = node(g, "Sigmoid", "sig", &x, 1, NULL, 0);
    cairn_value_id y = bin(g, "Mul", "mul", x, s);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "fuse_eltwise");
    CHECK(c->n_nodes == 1 && count_op(c, IR_OP_FusedElementwise) == 1);
    const ir_node_t *n = find_op(c, IR_OP_FusedElementwise);
    CHECK(n && n->n_inputs == 1 && n->n_sources == 2 && has_source(n, "sig") &&
          has_source(n, "mul"));
    check_program(c, "r1 = sigmoid(r0); r2 = mul(r0, r1)");
    /* the printer (--dump-after) shows the program */
    char *text = NULL;
    CHECK_OK(ir_print(c, &text));
    CHECK_MSG(text && strstr(text, "<r1 = sigmoid(r0); r2 = mul(r0, r1)>"), "%s", text);
    free(text);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{4, 37}};
    int ranks[1] = {2};
    compare_runs(g, "fuse_eltwise", 1, dims, ranks, 0);
    /* the full pipeline canonicalises x * Sigmoid(x) into Swish first, whose
     * reference formula rounds differently from sigmoid-then-multiply */
    compare_runs(g, "all", 1, dims, ranks, 1e-6);
    cairn_graph_destroy(g);
}

/* x*0.5*(1 + tanh(k*(x + 0.044715 x*x*x))) with no MatMul before it: all
 * nine nodes become one; with the whole pipeline canonicalize makes it a
 * Gelu, which fuses with the residual Add after it. */
static void test_gelu_tanh_chain(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {3, 50};
    cairn_value_id x, res;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "res", CAIRN_F32, 2, d, NULL, &res));
    cairn_value_id cube = bin(g, "Mul", "t/cube", x, bin(g, "Mul", "t/sq", x, x));
    cairn_value_id m = bin(g, "Mul", "t/mul_c", scalar(g, "c", 0.044715f), cube);
    cairn_value_id a = bin(g, "Add", "t/add", x, m);
    cairn_value_id s = bin(g, "Mul", "t/mul_k", scalar(g, "k", 0.7978846f), a);
    cairn_value_id t = node(g, "Tanh", "t/tanh", &s, 1, NULL, 0);
    cairn_value_id o = bin(g, "Add", "t/add1", scalar(g, "one", 1.0f), t);
    cairn_value_id y0 =
        bin(g, "Mul", "t/mul_half", scalar(g, "h", 0.5f), bin(g, "Mul", "t/mul_x", x, o));
    cairn_value_id y = bin(g, "Add", "resid", y0, res);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "fuse_eltwise");
    const ir_node_t *n = find_op(c, IR_OP_FusedElementwise);
    CHECK(c->n_nodes == 1 && n && n->n_inputs == 2 && n->n_sources == 10 &&
          has_source(n, "t/tanh") && has_source(n, "resid"));
    ir_graph_destroy(c);
    c = compiled(g, "all");
    n = find_op(c, IR_OP_FusedElementwise);
    CHECK(c->n_nodes == 1 && n && n->n_inputs == 2);
    check_program(c, "r2 = gelu_tanh(r0); r3 = add(r2, r1)");
    ir_graph_destroy(c);
    int64_t dims[2][CAIRN_MAX_RANK] = {{3, 50}, {3, 50}};
    int ranks[2] = {2, 2};
    compare_runs(g, "fuse_eltwise", 2, dims, ranks, 0);
    compare_runs(g, "all", 2, dims, ranks, 1e-6);
    cairn_graph_destroy(g);
}

/* Relu((x + bias) * w - s) / 3 with bias [33] (a constant row), w [5, 33]
 * (an input row), s a one-element input, 3 an immediate; x [seq, 5, 33]
 * with a symbolic dim. A column operand [seq, 5, 1] is not fused. */
static void test_broadcast(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[3] = {2, 5, 33}, dw[2] = {5, 33}, ds[1] = {1}, db[1] = {33}, dc[3] = {2, 5, 1};
    const char *dn[3] = {"seq", NULL, NULL};
    cairn_value_id x, w, s, col;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, dn, &x));
    CHECK_OK(cairn_graph_add_input(g, "w", CAIRN_F32, 2, dw, NULL, &w));
    CHECK_OK(cairn_graph_add_input(g, "s", CAIRN_F32, 1, ds, NULL, &s));
    CHECK_OK(cairn_graph_add_input(g, "col", CAIRN_F32, 3, dc, dn, &col));
    cairn_value_id a = bin(g, "Add", "add_bias", x, tensor(g, "bias", 1, db, 3, -1, 1));
    cairn_value_id m = bin(g, "Mul", "mul_w", a, w);
    cairn_value_id u = bin(g, "Sub", "sub_s", m, s);
    cairn_value_id r = node(g, "Relu", "relu", &u, 1, NULL, 0);
    cairn_value_id q = bin(g, "Div", "div3", r, scalar(g, "three", 3.0f));
    cairn_value_id z = bin(g, "Add", "add_col", q, col); /* column: stays */
    cairn_value_id e = node(g, "Exp", "exp", &z, 1, NULL, 0);
    cairn_value_id y = node(g, "Neg", "neg", &e, 1, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "fuse_eltwise");
    CHECK_MSG(c->n_nodes == 3 && count_op(c, IR_OP_FusedElementwise) == 2 &&
                  count_op(c, IR_OP_Add) == 1,
              "%d nodes", c->n_nodes);
    const ir_node_t *n = &c->nodes[0];
    CHECK(n->op == IR_OP_FusedElementwise && n->n_inputs == 4 && n->n_sources == 5);
    check_program(c, "r4 = add(r0, r1); r5 = mul(r4, r2); r6 = sub(r5, r3); r7 = relu(r6); "
                     "r8 = imm(3); r9 = div(r7, r8)");
    CHECK(c->nodes[2].op == IR_OP_FusedElementwise && c->nodes[2].n_inputs == 1);
    ir_graph_destroy(c);
    int64_t dims[4][CAIRN_MAX_RANK] = {{7, 5, 33}, {5, 33}, {1}, {7, 5, 1}};
    int ranks[4] = {3, 2, 1, 3};
    compare_runs(g, "fuse_eltwise", 4, dims, ranks, 0);
    compare_runs(g, "all", 4, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* Chains that must not fuse: an intermediate read twice, an intermediate
 * that is a graph output, integer types. */
static void test_blocked(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {6, 10};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    cairn_value_id e = node(g, "Exp", "exp", &x, 1, NULL, 0);
    cairn_value_id r = node(g, "Relu", "relu", &e, 1, NULL, 0);
    cairn_value_id s = node(g, "Sigmoid", "sig", &e, 1, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, r));
    CHECK_OK(cairn_graph_mark_output(g, s));
    ir_graph_t *c = compiled(g, "all");
    CHECK(c->n_nodes == 3 && count_op(c, IR_OP_FusedElementwise) == 0);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{6, 10}};
    int ranks[1] = {2};
    compare_runs(g, "all", 1, dims, ranks, 0);
    cairn_graph_destroy(g);

    /* Exp -> Tanh -> Neg with Tanh's output also a graph output: only
     * Exp stays out of reach; Neg alone is one node */
    CHECK_OK(cairn_graph_create(&g));
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    e = node(g, "Exp", "exp", &x, 1, NULL, 0);
    cairn_value_id t = node(g, "Tanh", "tanh", &e, 1, NULL, 0);
    cairn_value_id ng = node(g, "Neg", "neg", &t, 1, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, ng));
    CHECK_OK(cairn_graph_mark_output(g, t));
    c = compiled(g, "all");
    const ir_node_t *n = find_op(c, IR_OP_FusedElementwise);
    CHECK(c->n_nodes == 2 && n && has_source(n, "exp") && has_source(n, "tanh") &&
          count_op(c, IR_OP_Neg) == 1);
    ir_graph_destroy(c);
    compare_runs(g, "all", 1, dims, ranks, 0);
    cairn_graph_destroy(g);

    /* integers are left alone */
    CHECK_OK(cairn_graph_create(&g));
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_I32, 2, d, NULL, &x));
    cairn_value_id a = bin(g, "Add", "add", x, x);
    cairn_value_id y = bin(g, "Mul", "mul", a, x);
    CHECK_OK(cairn_graph_mark_output(g, y));
    c = compiled(g, "all");
    CHECK(c->n_nodes == 2 && count_op(c, IR_OP_FusedElementwise) == 0);
    ir_graph_destroy(c);
    cairn_graph_destroy(g);
}

/* Every other fusable op in one chain; Pow 2 fuses (as x*x), Pow 3 does
 * not; Clip with constant bounds, LeakyRelu, Min/Max, Gelu (erf). */
static void test_many_ops(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {9, 41};
    cairn_value_id x, w;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "w", CAIRN_F32, 2, d, NULL, &w));
    cairn_value_id v = node(g, "Abs", "abs", &x, 1, NULL, 0);
    v = bin(g, "Add", "add1", v, scalar(g, "one", 1.0f));
    cairn_value_id sq = node(g, "Sqrt", "sqrt", &v, 1, NULL, 0);
    cairn_value_id lg = node(g, "Log", "log", &v, 1, NULL, 0);
    v = bin(g, "Max", "max", sq, lg);
    v = bin(g, "Min", "min", v, w);
    cairn_value_id cin[3] = {v, scalar(g, "lo", -0.5f), scalar(g, "hi", 1.25f)};
    v = node(g, "Clip", "clip", cin, 3, NULL, 0);
    cairn_attr_t alpha = cairn_attr_float("alpha", 0.2f);
    v = node(g, "LeakyRelu", "leaky", &v, 1, &alpha, 1);
    v = node(g, "Gelu", "gelu", &v, 1, NULL, 0);
    v = node(g, "Erf", "erf", &v, 1, NULL, 0);
    v = node(g, "Reciprocal", "recip", &v, 1, NULL, 0);
    v = bin(g, "Pow", "pow2", v, scalar(g, "two", 2.0f));
    cairn_value_id p3 = bin(g, "Pow", "pow3", x, scalar(g, "three", 3.0f));
    v = bin(g, "Sub", "sub", v, p3);
    cairn_value_id y = node(g, "Neg", "neg", &v, 1, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    /* Abs + Add fuse on their own: their result is read twice (Sqrt, Log) */
    ir_graph_t *c = compiled(g, "fuse_eltwise");
    CHECK_MSG(c->n_nodes == 3 && count_op(c, IR_OP_FusedElementwise) == 2 &&
                  count_op(c, IR_OP_Pow) == 1,
              "%d nodes", c->n_nodes);
    const ir_node_t *n = &c->nodes[c->n_nodes - 1];
    CHECK(n->op == IR_OP_FusedElementwise && n->n_sources == 12 && has_source(n, "pow2") &&
          !has_source(n, "pow3") && has_source(n, "clip") && n->n_inputs == 3);
    CHECK(c->nodes[0].op == IR_OP_FusedElementwise && c->nodes[0].n_sources == 2);
    ir_graph_destroy(c);
    int64_t dims[2][CAIRN_MAX_RANK] = {{9, 41}, {9, 41}};
    int ranks[2] = {2, 2};
    /* Pow 2 runs as powf in the unfused reference, as x*x fused: ~1 ulp */
    compare_runs(g, "fuse_eltwise", 2, dims, ranks, 1e-6);
    compare_runs(g, "all", 2, dims, ranks, 1e-6);
    cairn_graph_destroy(g);
}

/* More distinct inputs than one node takes: the sum of 12 tensors splits. */
static void test_limits(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {3, 20};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    cairn_value_id v = x;
    for (int i = 0; i < 12; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d", i);
        cairn_value_id t = tensor(g, name, 2, d, (uint64_t)(20 + i), -1, 1);
        snprintf(name, sizeof name, "add%d", i);
        v = bin(g, "Add", name, v, t);
    }
    v = node(g, "Tanh", "tanh", &v, 1, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, v));
    ir_graph_t *c = compiled(g, "fuse_eltwise");
    CHECK_MSG(c->n_nodes == 2 && count_op(c, IR_OP_FusedElementwise) == 2, "%d nodes",
              c->n_nodes);
    for (int i = 0; i < c->n_nodes; i++)
        CHECK(c->nodes[i].n_inputs <= 8);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{3, 20}};
    int ranks[1] = {2};
    compare_runs(g, "fuse_eltwise", 1, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* The op's own checks when a graph names it directly. */
static void test_op_errors(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {4, 5}, dc[2] = {4, 1};
    cairn_value_id x, col, xi, y;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "col", CAIRN_F32, 2, dc, NULL, &col));
    CHECK_OK(cairn_graph_add_input(g, "xi", CAIRN_I32, 2, d, NULL, &xi));
    const int64_t add[3] = {EFU_ADD, 0, 1}, bad[3] = {77, 0, 0}, neg[3] = {EFU_NEG, 0, 0};
    cairn_value_id in2[2] = {x, col};
    cairn_attr_t a = cairn_attr_ints("program", add, 3);
    CHECK_FAILS(cairn_graph_add_node(g, "FusedElementwise", "f1", in2, 2, &a, 1, &y, 1, NULL),
                CAIRN_ERR_UNSUPPORTED, "neither the output's shape");
    a = cairn_attr_ints("program", bad, 3);
    CHECK_FAILS(cairn_graph_add_node(g, "FusedElementwise", "f2", &x, 1, &a, 1, &y, 1, NULL),
                CAIRN_ERR_INVALID_ARGUMENT, "unknown opcode 77");
    a = cairn_attr_ints("program", add, 2);
    CHECK_FAILS(cairn_graph_add_node(g, "FusedElementwise", "f3", &x, 1, &a, 1, &y, 1, NULL),
                CAIRN_ERR_INVALID_ARGUMENT, "3 ints per instruction");
    a = cairn_attr_ints("program", neg, 3);
    CHECK_FAILS(cairn_graph_add_node(g, "FusedElementwise", "f4", &xi, 1, &a, 1, &y, 1, NULL),
                CAIRN_ERR_DTYPE, "must be f32");
    CHECK_OK(cairn_graph_add_node(g, "FusedElementwise", "f5", &x, 1, &a, 1, &y, 1, NULL));
    cairn_graph_destroy(g);
}

int main(void)
{
    test_silu();
    test_gelu_tanh_chain();
    test_broadcast();
    test_blocked();
    test_many_ops();
    test_limits();
    test_op_errors();
    return check_finish("test_fuse_eltwise");
}
