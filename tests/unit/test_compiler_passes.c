/* The compiler's passes on small graphs built through the C API: each
 * rewrite's structure (ops, sources, absorbed nodes gone) and that the
 * outputs match the same graph run with the passes off. */
#include "check.h"
#include "compiler/pass.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/gemm/gemm.h"
#include "kernels/quant/quant.h"
#include "runtime/session_internal.h"

#include <math.h>

#include "compiler_test_util.h"

/* ---- fold + dce ---- */

static void test_fold_dce(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {3, 4};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    cairn_value_id w = tensor(g, "w", 2, d, 1, -1, 1);
    cairn_value_id wi = node(g, "Identity", "id_w", &w, 1, NULL, 0);
    cairn_value_id w2 = bin(g, "Mul", "w_times_3", wi, scalar(g, "three", 3.0f));
    cairn_value_id y = bin(g, "Add", "add", x, w2);
    node(g, "Relu", "dead_relu", &x, 1, NULL, 0); /* reaches no output */
    cairn_value_id sh = node(g, "Shape", "shape_x", &x, 1, NULL, 0);
    (void)sh; /* Shape of a static shape folds, then nothing reads it */
    CHECK_OK(cairn_graph_mark_output(g, y));

    ir_graph_t *c = compiled(g, "fold,dce");
    CHECK(c->n_nodes == 1 && c->nodes[0].op == IR_OP_Add);
    CHECK(count_op(c, IR_OP_Relu) == 0 && count_op(c, IR_OP_Identity) == 0);
    /* the folded constant is 3 * w, and nothing else is left over */
    int folded = c->nodes[0].inputs[1];
    CHECK(c->values[folded].kind == IR_VALUE_CONSTANT);
    const float *wd = cairn_graph_ir(g)->values[w].data, *fd = c->values[folded].data;
    int ok = 1;
    for (int i = 0; i < 12; i++)
        ok &= fd[i] == 3.0f * wd[i];
    CHECK(ok);
    CHECK(c->n_values == 3); /* x, the folded constant, y */
    CHECK_OK(ir_verify(c));
    ir_graph_destroy(c);

    /* dce alone keeps the constant chain, drops only the dead Relu/Shape */
    c = compiled(g, "dce");
    CHECK(c->n_nodes == 3 && count_op(c, IR_OP_Relu) == 0 && count_op(c, IR_OP_Shape) == 0);
    ir_graph_destroy(c);

    int64_t dims[1][CAIRN_MAX_RANK] = {{3, 4}};
    int ranks[1] = {2};
    compare_runs(g, "all", 1, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* ---- canonicalisation ---- */

static void test_layer_norm(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[3] = {2, 5, 8};
    const char *dn[3] = {NULL, "seq", NULL};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, d, dn, &x));
    int64_t axes[1] = {-1};
    cairn_attr_t ax = {"axes", CAIRN_ATTR_INTS, 0, 0, NULL, axes, NULL, 1, NULL};
    cairn_value_id m = node(g, "ReduceMean", "ln/ReduceMean", &x, 1, &ax, 1);
    cairn_value_id dv = bin(g, "Sub", "ln/Sub", x, m);
    cairn_value_id p = bin(g, "Pow", "ln/Pow", dv, scalar(g, "two", 2.0f));
    cairn_value_id v = node(g, "ReduceMean", "ln/ReduceMean_1", &p, 1, &ax, 1);
    cairn_value_id e = bin(g, "Add", "ln/Add", v, scalar(g, "eps", 1e-5f));
    cairn_value_id s = node(g, "Sqrt", "ln/Sqrt", &e, 1, NULL, 0);
    cairn_value_id n = bin(g, "Div", "ln/Div", dv, s);
    int64_t d8[1] = {8};
    cairn_value_id gm = bin(g, "Mul", "ln/Mul", tensor(g, "gamma", 1, d8, 2, 0.5, 1.5), n);
    cairn_value_id y = bin(g, "Add", "ln/Add_1", gm, tensor(g, "beta", 1, d8, 3, -1, 1));
    CHECK_OK(cairn_graph_mark_output(g, y));

    ir_graph_t *c = compiled(g, "canonicalize");
    CHECK(c->n_nodes == 1 && c->nodes[0].op == IR_OP_LayerNormalization);
    const ir_node_t *ln = find_op(c, IR_OP_LayerNormalization);
    CHECK(ln && ln->n_sources == 9 && has_source(ln, "ln/ReduceMean") &&
          has_source(ln, "ln/Sqrt") && has_source(ln, "ln/Add_1"));
    CHECK(ln && ln->n_inputs == 3 && ln->outputs[0] == c->outputs[0]);
    const ir_attr_t *eps = ln ? ir_node_attr(ln, "epsilon") : NULL;
    CHECK(eps && fabsf(eps->f - 1e-5f) < 1e-9f);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, 5, 8}};
    int ranks[1] = {3};
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);

    /* no gamma/beta, and a value inside the pattern that is also an
     * output: the second must stay as it is */
    CHECK_OK(cairn_graph_create(&g));
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, d, NULL, &x));
    m = node(g, "ReduceMean", "a/m", &x, 1, &ax, 1);
    dv = bin(g, "Sub", "a/sub", x, m);
    p = bin(g, "Mul", "a/sq", dv, dv);
    v = node(g, "ReduceMean", "a/m2", &p, 1, &ax, 1);
    e = bin(g, "Add", "a/eps", scalar(g, "eps", 1e-6f), v);
    s = node(g, "Sqrt", "a/sqrt", &e, 1, NULL, 0);
    y = bin(g, "Div", "a/div", dv, s);
    CHECK_OK(cairn_graph_mark_output(g, y));
    c = compiled(g, "canonicalize");
    CHECK(c->n_nodes == 1 && c->nodes[0].op == IR_OP_LayerNormalization);
    ir_graph_destroy(c);
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    CHECK_OK(cairn_graph_mark_output(g, v)); /* the variance escapes now */
    c = compiled(g, "canonicalize");
    CHECK(count_op(c, IR_OP_LayerNormalization) == 0 && c->n_nodes == 7);
    ir_graph_destroy(c);
    cairn_graph_destroy(g);
}

/* GELU as PyTorch writes it, in the operand orders `variant` picks. */
static void test_gelu_erf(int variant)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {3, 9};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    cairn_value_id a = variant == 0 ? bin(g, "Div", "g/div", x, scalar(g, "s2", 1.4142135f))
                                    : bin(g, "Mul", "g/mul_in", scalar(g, "is2", 0.70710677f), x);
    cairn_value_id e = node(g, "Erf", "g/erf", &a, 1, NULL, 0);
    cairn_value_id o = variant == 0 ? bin(g, "Add", "g/add", e, scalar(g, "one", 1.0f))
                                    : bin(g, "Add", "g/add", scalar(g, "one", 1.0f), e);
    cairn_value_id y;
    if (variant == 0) { /* (x * o) * 0.5 */
        y = bin(g, "Mul", "g/mul_half", bin(g, "Mul", "g/mul_x", x, o), scalar(g, "h", 0.5f));
    } else if (variant == 1) { /* (x * 0.5) * o */
        y = bin(g, "Mul", "g/mul_o", bin(g, "Mul", "g/mul_half", scalar(g, "h", 0.5f), x), o);
    } else { /* (o * 0.5) * x */
        y = bin(g, "Mul", "g/mul_x", x, bin(g, "Mul", "g/mul_half", o, scalar(g, "h", 0.5f)));
    }
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "canonicalize");
    CHECK_MSG(c->n_nodes == 1 && c->nodes[0].op == IR_OP_Gelu, "variant %d", variant);
    const ir_node_t *n = find_op(c, IR_OP_Gelu);
    CHECK(n && n->n_sources == 5 && has_source(n, "g/erf") && has_source(n, "g/mul_half"));
    CHECK(n && n->n_attrs == 0); /* approximate = none */
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{3, 9}};
    int ranks[1] = {2};
    compare_runs(g, "all", 1, dims, ranks, 1e-6);
    cairn_graph_destroy(g);
}

static void test_gelu_tanh(int pow_form)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[2] = {4, 6};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, d, NULL, &x));
    cairn_value_id cube = pow_form ? bin(g, "Pow", "t/pow", x, scalar(g, "three", 3.0f))
                                   : bin(g, "Mul", "t/cube", x, bin(g, "Mul", "t/sq", x, x));
    cairn_value_id m = bin(g, "Mul", "t/mul_c", scalar(g, "c", 0.044715f), cube);
    cairn_value_id a = bin(g, "Add", "t/add", x, m);
    cairn_value_id s = bin(g, "Mul", "t/mul_k", scalar(g, "k", 0.7978846f), a);
    cairn_value_id t = node(g, "Tanh", "t/tanh", &s, 1, NULL, 0);
    cairn_value_id o = bin(g, "Add", "t/add1", scalar(g, "one", 1.0f), t);
    cairn_value_id y = bin(g, "Mul", "t/mul_half", scalar(g, "h", 0.5f), bin(g, "Mul", "t/mul_x", x, o));
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "canonicalize");
    CHECK_MSG(c->n_nodes == 1 && c->nodes[0].op == IR_OP_Gelu, "pow form %d", pow_form);
    const ir_node_t *n = find_op(c, IR_OP_Gelu);
    const ir_attr_t *ap = n ? ir_node_attr(n, "approximate") : NULL;
    CHECK(ap && ap->s && !strcmp(ap->s, "tanh"));
    CHECK(n && n->n_sources == (pow_form ? 8 : 9) && has_source(n, "t/tanh"));
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{4, 6}};
    int ranks[1] = {2};
    compare_runs(g, "all", 1, dims, ranks, 1e-6);
    cairn_graph_destroy(g);
}

/* ---- GEMM epilogue fusion and pre-packing ---- */

static void test_fuse_gemm(const char *act)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[3] = {3, 7, 16}, dr[3] = {3, 7, 24}, dw[2] = {16, 24}, db[1] = {24};
    cairn_value_id x, res;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "res", CAIRN_F32, 3, dr, NULL, &res));
    cairn_value_id mm = bin(g, "MatMul", "fc/MatMul", x, tensor(g, "W", 2, dw, 5, -0.5, 0.5));
    cairn_value_id b = bin(g, "Add", "fc/Add", tensor(g, "bias", 1, db, 6, -1, 1), mm);
    cairn_value_id a = node(g, act, "fc/act", &b, 1, NULL, 0);
    cairn_value_id y = bin(g, "Add", "residual", res, a);
    CHECK_OK(cairn_graph_mark_output(g, y));

    ir_graph_t *c = compiled(g, "fuse_gemm");
    CHECK(c->n_nodes == 1 && c->nodes[0].op == IR_OP_FusedMatMul);
    const ir_node_t *n = find_op(c, IR_OP_FusedMatMul);
    CHECK(n && n->n_inputs == 4 && n->n_sources == 4 && has_source(n, "fc/MatMul") &&
          has_source(n, "fc/act") && has_source(n, "residual"));
    CHECK(n && ir_attr_i(n, FUSED_MM_ACTIVATION) != 0 && ir_attr_i(n, FUSED_MM_PACKED) == 0);
    ir_graph_destroy(c);
    c = compiled(g, "fuse_gemm,prepack");
    n = find_op(c, IR_OP_FusedMatMul);
    CHECK(c->n_nodes == 1 && n && ir_attr_i(n, FUSED_MM_PACKED) == 1 &&
          ir_attr_i(n, FUSED_MM_K) == 16 && ir_attr_i(n, FUSED_MM_N) == 24);
    CHECK(n && c->values[n->inputs[1]].type.dtype == CAIRN_U8);
    CHECK(ir_graph_find_value(c, "W") < 0); /* the unpacked weight is gone */
    ir_graph_destroy(c);
    int64_t dims[2][CAIRN_MAX_RANK] = {{3, 7, 16}, {3, 7, 24}};
    int ranks[2] = {3, 3};
    compare_runs(g, "fuse_gemm", 2, dims, ranks, 1e-5);
    compare_runs(g, "all", 2, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* MatMul -> Add(bias) -> [pre] -> Add(residual) -> post: the activation
 * after the residual becomes the epilogue's post_activation (Relu, Gelu, or
 * Clip with its bounds), with or without one before the residual, and
 * survives pre-packing. */
static void test_fuse_gemm_post(const char *pre, const char *post)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[3] = {2, 9, 16}, dr[3] = {2, 9, 20}, dw[2] = {16, 20}, db[1] = {20};
    cairn_value_id x, res;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "res", CAIRN_F32, 3, dr, NULL, &res));
    cairn_value_id mm = bin(g, "MatMul", "mm", x, tensor(g, "W", 2, dw, 11, -0.5, 0.5));
    cairn_value_id v = bin(g, "Add", "bias", mm, tensor(g, "b", 1, db, 12, -1, 1));
    if (pre)
        v = node(g, pre, "pre", &v, 1, NULL, 0);
    v = bin(g, "Add", "residual", v, res);
    const int clip = !strcmp(post, "Clip");
    if (clip) {
        cairn_value_id ci[3] = {v, scalar(g, "lo", -0.5f), scalar(g, "hi", 0.7f)};
        v = node(g, "Clip", "post", ci, 3, NULL, 0);
    } else {
        v = node(g, post, "post", &v, 1, NULL, 0);
    }
    CHECK_OK(cairn_graph_mark_output(g, v));
    const int want = clip ? GEMM_ACT_CLIP : !strcmp(post, "Relu") ? GEMM_ACT_RELU
                                                                  : GEMM_ACT_GELU_ERF;
    for (int pack = 0; pack < 2; pack++) {
        ir_graph_t *c = compiled(g, pack ? "fuse_gemm,prepack" : "fuse_gemm");
        const ir_node_t *n = find_op(c, IR_OP_FusedMatMul);
        CHECK_MSG(c->n_nodes == 1 && n && n->n_inputs == 4 && n->n_sources == (pre ? 5 : 4) &&
                      has_source(n, "residual") && has_source(n, "post"),
                  "pre %s post %s pack %d: %d nodes", pre ? pre : "-", post, pack, c->n_nodes);
        CHECK(n && ir_attr_i(n, FUSED_MM_ACTIVATION) == (pre ? GEMM_ACT_RELU : GEMM_ACT_NONE) &&
              ir_attr_i(n, FUSED_MM_POST_ACTIVATION) == want &&
              ir_attr_i(n, FUSED_MM_PACKED) == pack);
        if (clip)
            CHECK(n && ir_attr_f(n, FUSED_MM_POST_CLIP_MIN) == -0.5f &&
                  ir_attr_f(n, FUSED_MM_POST_CLIP_MAX) == 0.7f);
        ir_graph_destroy(c);
    }
    int64_t dims[2][CAIRN_MAX_RANK] = {{2, 9, 16}, {2, 9, 20}};
    int ranks[2] = {3, 3};
    compare_runs(g, "fuse_gemm", 2, dims, ranks, 1e-5);
    compare_runs(g, "all", 2, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* The residual Add's result has a second reader: the Add fuses, the Relu
 * after it stays a node of its own. */
static void test_fuse_gemm_post_blocked(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[2] = {6, 8}, dw[2] = {8, 8};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dx, NULL, &x));
    cairn_value_id mm = bin(g, "MatMul", "mm", x, tensor(g, "W", 2, dw, 13, -1, 1));
    cairn_value_id s = bin(g, "Add", "add", mm, x);
    cairn_value_id r = node(g, "Relu", "relu", &s, 1, NULL, 0);
    cairn_value_id y = bin(g, "Mul", "mul", r, s);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "fuse_gemm");
    const ir_node_t *n = find_op(c, IR_OP_FusedMatMul);
    CHECK(c->n_nodes == 3 && count_op(c, IR_OP_Relu) == 1 && n && !has_source(n, "relu") &&
          ir_attr_i(n, FUSED_MM_POST_ACTIVATION) == GEMM_ACT_NONE);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{6, 8}};
    int ranks[1] = {2};
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

static void test_fuse_gemm_blocked(void)
{
    /* the MatMul's result is also a graph output: only pre-packing applies */
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[2] = {5, 8}, dw[2] = {8, 3}, db[1] = {3};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dx, NULL, &x));
    cairn_value_id mm = bin(g, "MatMul", "mm", x, tensor(g, "W", 2, dw, 9, -1, 1));
    cairn_value_id y = bin(g, "Add", "add", mm, tensor(g, "b", 1, db, 10, -1, 1));
    cairn_value_id r = node(g, "Relu", "relu", &y, 1, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, r));
    CHECK_OK(cairn_graph_mark_output(g, mm));
    ir_graph_t *c = compiled(g, "fuse_gemm");
    CHECK(c->n_nodes == 3 && count_op(c, IR_OP_FusedMatMul) == 0);
    ir_graph_destroy(c);
    c = compiled(g, "all");
    /* pre-packed, and the bias Add + Relu left over become one FusedElementwise */
    CHECK(c->n_nodes == 2 && count_op(c, IR_OP_FusedMatMul) == 1 &&
          count_op(c, IR_OP_MatMul) == 0 && count_op(c, IR_OP_FusedElementwise) == 1);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{5, 8}};
    int ranks[1] = {2};
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

static void test_selection_errors(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[1] = {4};
    cairn_value_id x, y;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 1, d, NULL, &x));
    CHECK_OK(cairn_graph_add_node(g, "Relu", "r", &x, 1, NULL, 0, &y, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    cairn_session_t *s = NULL;
    cairn_compile_options_t bad = {"fold,nosuch", NULL, NULL};
    CHECK_FAILS(cairn_session_create_compiled(g, NULL, &bad, &s), CAIRN_ERR_INVALID_ARGUMENT,
                "unknown pass 'nosuch'");
    cairn_compile_options_t bad2 = {NULL, "nosuch", NULL};
    CHECK_FAILS(cairn_session_create_compiled(g, NULL, &bad2, &s), CAIRN_ERR_INVALID_ARGUMENT,
                "--dump-after: unknown pass 'nosuch'");
    /* the dump names the pass and the graph's nodes */
    FILE *f = tmpfile();
    cairn_compile_options_t dump = {"all", "dce", f};
    CHECK_OK(cairn_session_create_compiled(g, NULL, &dump, &s));
    char buf[4096] = {0};
    rewind(f);
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    CHECK(got > 0 && strstr(buf, "after pass 'dce'") && strstr(buf, "Relu"));
    fclose(f);
    /* the step walk of --explain */
    CHECK(cairn_session_step_count(s) == -1);
    float in[4] = {-1, 2, -3, 4};
    cairn_tensor_t ti = {CAIRN_F32, 1, {4}, in}, to = {0};
    CHECK_OK(cairn_session_run(s, &ti, 1, &to, 1));
    CHECK(cairn_session_step_count(s) == 1);
    cairn_step_info_t si;
    CHECK_OK(cairn_session_step_info(s, 0, &si));
    CHECK(!strcmp(si.op, "Relu") && si.n_out == 1 && si.out[0].shape[0] == 4);
    CHECK_FAILS(cairn_session_step_info(s, 1, &si), CAIRN_ERR_INVALID_ARGUMENT, "no step 1");
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

/* What onnxruntime's quantize_dynamic writes for a Linear: x ->
 * DynamicQuantizeLinear -> MatMulInteger(xq, W int8, xz) -> Cast(f32) ->
 * Mul(Mul(xs, ws)) -> Add(bias) -> act -> Add(residual): one
 * FusedMatMulInteger (the DynamicQuantizeLinear and the scales' Mul stay),
 * W packed by prepack, whose outputs match the unfused graph's; with a
 * second reader of the Cast's output nothing fuses. */
static void test_fuse_int8(const char *act, int second_reader)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[3] = {2, 9, 24}, dr[3] = {2, 9, 40}, db[1] = {40};
    cairn_value_id x, res;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "res", CAIRN_F32, 3, dr, NULL, &res));
    int8_t w[24 * 40];
    check_rng_t rr = {99};
    for (int i = 0; i < 24 * 40; i++)
        w[i] = (int8_t)((int)(check_rng_next(&rr) % 255) - 127);
    cairn_tensor_t wt = {CAIRN_I8, 2, {24, 40}, w};
    cairn_value_id W, q[3];
    CHECK_OK(cairn_graph_add_constant(g, "W", &wt, &W));
    CHECK_OK(cairn_graph_add_node(g, "DynamicQuantizeLinear", "dq", &x, 1, NULL, 0, q, 3, NULL));
    cairn_value_id s = bin(g, "Mul", "scales", q[1], scalar(g, "ws", 0.0123f));
    cairn_value_id mmi[3] = {q[0], W, q[2]};
    cairn_value_id t = node(g, "MatMulInteger", "fc/MatMulInteger", mmi, 3, NULL, 0);
    cairn_attr_t to = cairn_attr_int("to", CAIRN_F32);
    cairn_value_id c = node(g, "Cast", "fc/Cast", &t, 1, &to, 1);
    cairn_value_id m = bin(g, "Mul", "fc/scale", c, s);
    cairn_value_id b = bin(g, "Add", "fc/Add", tensor(g, "bias", 1, db, 6, -1, 1), m);
    cairn_value_id a = node(g, act, "fc/act", &b, 1, NULL, 0);
    cairn_value_id y = bin(g, "Add", "residual", res, a);
    CHECK_OK(cairn_graph_mark_output(g, y));
    if (second_reader)
        CHECK_OK(cairn_graph_mark_output(g, c));

    ir_graph_t *cg = compiled(g, "fuse_gemm");
    const ir_node_t *n = find_op(cg, IR_OP_FusedMatMulInteger);
    if (second_reader) {
        CHECK(!n && count_op(cg, IR_OP_MatMulInteger) == 1);
    } else {
        CHECK(n && count_op(cg, IR_OP_MatMulInteger) == 0 && count_op(cg, IR_OP_Cast) == 0 &&
              count_op(cg, IR_OP_DynamicQuantizeLinear) == 1 && count_op(cg, IR_OP_Mul) == 1);
        CHECK(n && n->n_inputs == 7 && has_source(n, "fc/MatMulInteger") &&
              has_source(n, "fc/Cast") && has_source(n, "fc/scale") && has_source(n, "fc/act") &&
              has_source(n, "residual") && ir_attr_i(n, FUSED_MM_ACTIVATION) != 0);
    }
    ir_graph_destroy(cg);
    /* prepack: W and its column sums packed for the int8 GEMM */
    cg = compiled(g, "fuse_gemm,prepack");
    n = find_op(cg, IR_OP_FusedMatMulInteger);
    if (!second_reader)
        CHECK(n && ir_attr_i(n, FUSED_MM_PACKED) == 1 && ir_attr_i(n, FUSED_MM_K) == 24 &&
              ir_attr_i(n, FUSED_MM_N) == 40 && cg->values[n->inputs[1]].type.dtype == CAIRN_U8 &&
              cg->values[n->inputs[1]].type.shape.rank == 1 && ir_graph_find_value(cg, "W") < 0);
    ir_graph_destroy(cg);
    int64_t dims[2][CAIRN_MAX_RANK] = {{2, 9, 24}, {2, 9, 40}};
    int ranks[2] = {3, 3};
    compare_runs(g, "fuse_gemm", 2, dims, ranks, 1e-5);
    compare_runs(g, "all", 2, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* What quantize_dynamic writes for a Conv: DynamicQuantizeLinear ->
 * ConvInteger(xq, W int8, xz) -> Cast(f32) -> Mul(xs * ws) -> Add(bias
 * [1, M, 1, 1], or one value) -> act: one FusedConvInteger with the activation, for a
 * group-1 convolution (the int8 GEMM) and a depthwise one (quant_dwconv),
 * the same f32 operations in the same order, so the unfused graph's
 * results exactly; act "" leaves the Add last, "Sigmoid" (not an
 * activation FusedConvInteger takes) stays after it, and a second reader
 * of the Cast's output stops the fusion, as does (depthwise) a dilation
 * quant_dwconv does not take. */
static void test_fuse_convint(int depthwise, const char *act, int second_reader, int scalar_bias,
                              int dilated)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    const int64_t C = 6, M = depthwise ? 6 : 10, Cg = depthwise ? 1 : C;
    int64_t dx[4] = {2, C, 9, 8}, db[4] = {1, M, 1, 1};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    int8_t w[10 * 6 * 9];
    check_rng_t rr = {77};
    for (int i = 0; i < M * Cg * 9; i++)
        w[i] = (int8_t)((int)(check_rng_next(&rr) % 255) - 127);
    cairn_tensor_t wt = {CAIRN_I8, 4, {M, Cg, 3, 3}, w};
    cairn_value_id W, q[3];
    CHECK_OK(cairn_graph_add_constant(g, "W", &wt, &W));
    CHECK_OK(cairn_graph_add_node(g, "DynamicQuantizeLinear", "dq", &x, 1, NULL, 0, q, 3, NULL));
    cairn_value_id s = bin(g, "Mul", "scales", q[1], scalar(g, "ws", 0.0123f));
    int64_t pads[4] = {1, 1, 1, 1}, strides[2] = {1, 2}, dil[2] = {2, 2};
    cairn_attr_t ca[4] = {cairn_attr_ints("pads", pads, 4), cairn_attr_ints("strides", strides, 2),
                          cairn_attr_int("group", depthwise ? C : 1),
                          cairn_attr_ints("dilations", dil, 2)};
    cairn_value_id ci[3] = {q[0], W, q[2]};
    cairn_value_id t = node(g, "ConvInteger", "conv/ConvInteger", ci, 3, ca, dilated ? 4 : 3);
    cairn_attr_t to = cairn_attr_int("to", CAIRN_F32);
    cairn_value_id c = node(g, "Cast", "conv/Cast", &t, 1, &to, 1);
    cairn_value_id m = bin(g, "Mul", "conv/scale", c, s);
    cairn_value_id y = bin(g, "Add", "conv/bias", m,
                           scalar_bias ? scalar(g, "bias", 0.375f) : tensor(g, "bias", 4, db, 5, -1, 1));
    if (act[0] && !strcmp(act, "Clip")) {
        cairn_value_id cin[3] = {y, scalar(g, "lo", 0.0f), scalar(g, "hi", 6.0f)};
        y = node(g, "Clip", "conv/act", cin, 3, NULL, 0);
    } else if (act[0]) {
        y = node(g, act, "conv/act", &y, 1, NULL, 0);
    }
    CHECK_OK(cairn_graph_mark_output(g, y));
    if (second_reader)
        CHECK_OK(cairn_graph_mark_output(g, c));
    ir_graph_t *cg = compiled(g, "fold,fuse_conv");
    const ir_node_t *n = find_op(cg, IR_OP_FusedConvInteger);
    const int fused_act = !strcmp(act, "Relu") || !strcmp(act, "Clip");
    if (second_reader || (dilated && depthwise)) {
        CHECK(!n && count_op(cg, IR_OP_ConvInteger) == 1);
    } else {
        const ir_attr_t *ga = n ? ir_node_attr(n, "group") : NULL;
        CHECK(n && count_op(cg, IR_OP_ConvInteger) == 0 && count_op(cg, IR_OP_Cast) == 0 &&
              count_op(cg, IR_OP_Add) == 0 && count_op(cg, IR_OP_Mul) == 1 && n->n_inputs == 6 &&
              has_source(n, "conv/ConvInteger") && has_source(n, "conv/bias") &&
              has_source(n, "conv/act") == fused_act &&
              cg->values[n->inputs[5]].type.shape.rank == 1 && ga &&
              ga->i == (depthwise ? C : 1));
        CHECK(n && (ir_node_attr(n, "activation") ? ir_node_attr(n, "activation")->i : 0) ==
                       (!strcmp(act, "Relu")   ? GEMM_ACT_RELU
                        : !strcmp(act, "Clip") ? GEMM_ACT_CLIP
                                               : GEMM_ACT_NONE));
        if (!strcmp(act, "Sigmoid"))
            CHECK(count_op(cg, IR_OP_Sigmoid) == 1);
    }
    ir_graph_destroy(cg);
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, C, 9, 8}};
    int ranks[1] = {4};
    compare_runs(g, "fold,fuse_conv", 1, dims, ranks, 0);
    compare_runs(g, "all", 1, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* ---- fuse_qdq: onnxruntime's QDQ form ---- */

/* A constant of one 8-bit value. */
static cairn_value_id zero_point(cairn_graph_t *g, const char *name, cairn_dtype_t t, int v)
{
    uint8_t u = (uint8_t)v;
    int8_t i = (int8_t)v;
    cairn_tensor_t z = {t, 0, {0}, t == CAIRN_U8 ? (void *)&u : (void *)&i};
    cairn_value_id id = -1;
    CHECK_OK(cairn_graph_add_constant(g, name, &z, &id));
    return id;
}

/* QuantizeLinear -> DequantizeLinear with one scale and zero point */
static cairn_value_id qdq(cairn_graph_t *g, const char *name, cairn_value_id x, float sc,
                          cairn_dtype_t t, int z)
{
    char nq[64], nd[64], ns[64], nz[64];
    snprintf(nq, sizeof nq, "%s/Q", name), snprintf(nd, sizeof nd, "%s/DQ", name);
    snprintf(ns, sizeof ns, "%s/scale", name), snprintf(nz, sizeof nz, "%s/zp", name);
    cairn_value_id in[3] = {x, scalar(g, ns, sc), zero_point(g, nz, t, z)};
    cairn_value_id q = node(g, "QuantizeLinear", nq, in, 3, NULL, 0);
    in[0] = q;
    return node(g, "DequantizeLinear", nd, in, 3, NULL, 0);
}

/* x -> QDQ -> MatMul(., DQ(W)) [-> QDQ -> Add(bias) -> QDQ -> Relu -> QDQ]:
 * activations of type at (zero point az), W int8 [24, 40] with one scale
 * (per_col 0) or one scale and zero point per column (axis 1), or one scale
 * per row (per_col 2: K-wise, which must stay unfused). With tail, the x
 * pair's 8-bit tensor also feeds a second DequantizeLinear (a residual),
 * which must keep its QuantizeLinear. */
static void test_fuse_qdq(cairn_dtype_t at, int az, int per_col, int tail)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[3] = {2, 9, 24}, db[1] = {40};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, NULL, &x));
    int8_t w[24 * 40], wz[40];
    float ws[40];
    check_rng_t rr = {123};
    for (int i = 0; i < 24 * 40; i++)
        w[i] = (int8_t)((int)(check_rng_next(&rr) % 255) - 127);
    for (int j = 0; j < 40; j++) {
        ws[j] = 0.002f + 0.0001f * (float)j;
        wz[j] = (int8_t)(j % 7 - 3);
    }
    const int nw = per_col ? (per_col == 1 ? 40 : 24) : 1;
    cairn_tensor_t wt = {CAIRN_I8, 2, {24, 40}, w};
    cairn_tensor_t wst = {CAIRN_F32, 1, {nw}, ws}, wzt = {CAIRN_I8, 1, {nw}, wz};
    cairn_value_id dw[3];
    CHECK_OK(cairn_graph_add_constant(g, "W", &wt, &dw[0]));
    CHECK_OK(cairn_graph_add_constant(g, "W/scale", &wst, &dw[1]));
    CHECK_OK(cairn_graph_add_constant(g, "W/zp", &wzt, &dw[2]));
    cairn_attr_t axis = cairn_attr_int("axis", per_col == 2 ? 0 : 1);
    cairn_value_id wdq = node(g, "DequantizeLinear", "W/DQ", dw, 3, &axis, 1);
    /* the activation's pair, by hand: its 8-bit tensor may have two readers */
    cairn_value_id qin[3] = {x, scalar(g, "x/scale", 0.031f), zero_point(g, "x/zp", at, az)};
    cairn_value_id xq = node(g, "QuantizeLinear", "x/Q", qin, 3, NULL, 0);
    qin[0] = xq;
    cairn_value_id xd = node(g, "DequantizeLinear", "x/DQ", qin, 3, NULL, 0);
    cairn_value_id y = bin(g, "MatMul", "fc/MatMul", xd, wdq);
    if (tail) {
        y = qdq(g, "fc/out", y, 0.04f, CAIRN_U8, 120);
        y = bin(g, "Add", "fc/Add", y, tensor(g, "bias", 1, db, 5, -0.5, 0.5));
        y = qdq(g, "fc/add", y, 0.012f, CAIRN_U8, 118);
        y = node(g, "Relu", "fc/Relu", &y, 1, NULL, 0);
        y = qdq(g, "fc/relu", y, 0.006f, CAIRN_I8, -128);
        CHECK_OK(cairn_graph_mark_output(g, y));
        qin[0] = xq;
        cairn_value_id xd2 = node(g, "DequantizeLinear", "x/DQ2", qin, 3, NULL, 0);
        CHECK_OK(cairn_graph_mark_output(g, xd2));
    } else {
        CHECK_OK(cairn_graph_mark_output(g, y));
    }
    ir_graph_t *cg = compiled(g, "fuse_qdq");
    const ir_node_t *n = find_op(cg, IR_OP_FusedMatMulInteger);
    if (per_col == 2) {
        CHECK(!n && count_op(cg, IR_OP_MatMul) == 1);
    } else {
        CHECK(n && count_op(cg, IR_OP_MatMul) == 0 && has_source(n, "fc/MatMul") &&
              has_source(n, "W/DQ") && has_source(n, "x/DQ"));
        CHECK(n && cg->values[n->inputs[0]].type.dtype == at &&
              cg->values[n->inputs[1]].type.dtype == CAIRN_I8);
        /* the x pair: its QuantizeLinear feeds the GEMM (and the residual's
         * DequantizeLinear); the three pairs after it are qdq nodes */
        CHECK(count_op(cg, IR_OP_QuantizeLinear) == 1);
        CHECK(count_op(cg, IR_OP_DequantizeLinear) == (tail ? 1 : 0));
        CHECK(count_op(cg, IR_OP_FusedElementwise) == (tail ? 3 : 0));
    }
    ir_graph_destroy(cg);
    if (tail && per_col != 2) {
        /* everything: the three pairs, the bias and the Relu one pass */
        cg = compiled(g, "all");
        CHECK(count_op(cg, IR_OP_FusedElementwise) == 1 && count_op(cg, IR_OP_Add) == 0 &&
              count_op(cg, IR_OP_Relu) == 0);
        ir_graph_destroy(cg);
    }
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, 9, 24}};
    int ranks[1] = {3};
    /* the GEMM's exact sums scaled once against the written form's f32
     * sums: f32 rounding; after the output pairs, one step of the coarsest
     * grid (0.04) where the two sums fall on either side of a tie */
    double tol = tail ? 0.0401 : 1e-5;
    compare_runs(g, "fuse_qdq", 1, dims, ranks, tol);
    compare_runs(g, "all", 1, dims, ranks, tol);
    cairn_graph_destroy(g);
}

/* QOperator form: QuantizeLinear -> QLinearConv -> DequantizeLinear.
 * fuse_qdq makes the QLinearConv of group 1 a FusedConvInteger with
 * requant = 1 (prepack then packs its W), whose outputs are the
 * reference's bits: tolerance 0 against the uncompiled graph. W per tensor
 * or per output channel (scales and zero points), with and without the
 * int32 bias, u8 and i8 outputs, stride 1 and 2; a grouped one stays. */
static void test_fuse_qlinearconv(int per_ch, int bias, cairn_dtype_t yt, int stride, int group)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    enum { C = 6, M = 8, KH = 3 };
    int64_t dx[4] = {2, C, 9, 8};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    int8_t w[M * (C / 2) * KH * KH * 2], wz[M];
    float ws[M];
    int32_t b[M];
    check_rng_t rr = {77 + per_ch};
    for (size_t i = 0; i < sizeof w; i++)
        w[i] = (int8_t)((int)(check_rng_next(&rr) % 255) - 127);
    for (int m = 0; m < M; m++) {
        ws[m] = 0.004f + 0.0007f * (float)m;
        wz[m] = per_ch ? (int8_t)(m % 5 - 2) : 0;
        b[m] = (int32_t)(check_rng_next(&rr) % 4001) - 2000;
    }
    const int nw = per_ch ? M : 1;
    cairn_tensor_t wt = {CAIRN_I8, 4, {M, C / group, KH, KH}, w};
    cairn_tensor_t wst = {CAIRN_F32, 1, {nw}, ws}, wzt = {CAIRN_I8, 1, {nw}, wz};
    cairn_tensor_t bt = {CAIRN_I32, 1, {M}, b};
    cairn_value_id qin[3] = {x, scalar(g, "x/scale", 0.05f), zero_point(g, "x/zp", CAIRN_U8, 128)};
    cairn_value_id xq = node(g, "QuantizeLinear", "x/Q", qin, 3, NULL, 0);
    cairn_value_id in[9];
    in[0] = xq, in[1] = qin[1], in[2] = qin[2];
    CHECK_OK(cairn_graph_add_constant(g, "W", &wt, &in[3]));
    CHECK_OK(cairn_graph_add_constant(g, "W/scale", &wst, &in[4]));
    CHECK_OK(cairn_graph_add_constant(g, "W/zp", &wzt, &in[5]));
    in[6] = scalar(g, "y/scale", 0.3f);
    in[7] = zero_point(g, "y/zp", yt, yt == CAIRN_U8 ? 100 : -5);
    CHECK_OK(cairn_graph_add_constant(g, "B", &bt, &in[8]));
    int64_t pads[4] = {1, 1, 1, 1}, strides[2] = {stride, stride};
    cairn_attr_t at[3] = {cairn_attr_ints("pads", pads, 4), cairn_attr_ints("strides", strides, 2),
                          cairn_attr_int("group", group)};
    cairn_value_id y = node(g, "QLinearConv", "conv", in, bias ? 9 : 8, at, 3);
    cairn_value_id dq[3] = {y, in[6], in[7]};
    y = node(g, "DequantizeLinear", "y/DQ", dq, 3, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *cg = compiled(g, "fuse_qdq");
    const ir_node_t *n = find_op(cg, IR_OP_FusedConvInteger);
    if (group > 1) {
        CHECK(!n && count_op(cg, IR_OP_QLinearConv) == 1);
    } else {
        CHECK(n && count_op(cg, IR_OP_QLinearConv) == 0 && has_source(n, "conv"));
        const ir_attr_t *rq = n ? ir_node_attr(n, "requant") : NULL;
        CHECK(rq && rq->i == 1 && cg->values[n->outputs[0]].type.dtype == yt);
    }
    ir_graph_destroy(cg);
    if (group == 1) { /* and W prepared ahead */
        cg = compiled(g, "all");
        n = find_op(cg, IR_OP_FusedConvInteger);
        const ir_attr_t *pk = n ? ir_node_attr(n, "packed") : NULL;
        CHECK(pk && pk->i == 1);
        ir_graph_destroy(cg);
    }
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, C, 9, 8}};
    int ranks[1] = {4};
    compare_runs(g, "fuse_qdq", 1, dims, ranks, 0);
    compare_runs(g, "all", 1, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* QOperator form: QuantizeLinear -> QLinearMatMul(., constant B) ->
 * DequantizeLinear. fuse_qdq makes it a FusedMatMulInteger with requant =
 * 1 (prepack then packs B) whose outputs are the reference's bits
 * (tolerance 0 against the uncompiled graph); B's scale per column stays
 * as written. */
static void test_fuse_qlinearmatmul(cairn_dtype_t bt, cairn_dtype_t yt, int per_col)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[3] = {2, 9, 24};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dx, NULL, &x));
    uint8_t w[24 * 40];
    float bs[40];
    check_rng_t rr = {991};
    for (int i = 0; i < 24 * 40; i++)
        w[i] = (uint8_t)(check_rng_next(&rr) % 256);
    for (int j = 0; j < 40; j++)
        bs[j] = 0.003f + 0.0001f * (float)j;
    cairn_tensor_t wt = {bt, 2, {24, 40}, w}, bst = {CAIRN_F32, 1, {per_col ? 40 : 1}, bs};
    cairn_value_id qin[3] = {x, scalar(g, "x/scale", 0.031f), zero_point(g, "x/zp", CAIRN_U8, 131)};
    cairn_value_id in[8];
    in[0] = node(g, "QuantizeLinear", "x/Q", qin, 3, NULL, 0);
    in[1] = qin[1], in[2] = qin[2];
    CHECK_OK(cairn_graph_add_constant(g, "B", &wt, &in[3]));
    CHECK_OK(cairn_graph_add_constant(g, "B/scale", &bst, &in[4]));
    in[5] = zero_point(g, "B/zp", bt, bt == CAIRN_U8 ? 127 : 3);
    in[6] = scalar(g, "y/scale", 0.45f);
    in[7] = zero_point(g, "y/zp", yt, yt == CAIRN_U8 ? 90 : -7);
    cairn_value_id y = node(g, "QLinearMatMul", "mm", in, 8, NULL, 0);
    cairn_value_id dq[3] = {y, in[6], in[7]};
    y = node(g, "DequantizeLinear", "y/DQ", dq, 3, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *cg = compiled(g, "fuse_qdq");
    const ir_node_t *n = find_op(cg, IR_OP_FusedMatMulInteger);
    if (per_col) {
        CHECK(!n && count_op(cg, IR_OP_QLinearMatMul) == 1);
    } else {
        const ir_attr_t *rq = n ? ir_node_attr(n, "requant") : NULL;
        CHECK(n && rq && rq->i == 1 && count_op(cg, IR_OP_QLinearMatMul) == 0 &&
              cg->values[n->outputs[0]].type.dtype == yt && has_source(n, "mm"));
    }
    ir_graph_destroy(cg);
    if (!per_col) {
        cg = compiled(g, "all");
        n = find_op(cg, IR_OP_FusedMatMulInteger);
        const ir_attr_t *pk = n ? ir_node_attr(n, "packed") : NULL;
        const ir_attr_t *rq = n ? ir_node_attr(n, "requant") : NULL;
        CHECK(pk && pk->i == 1 && rq && rq->i == 1);
        ir_graph_destroy(cg);
    }
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, 9, 24}};
    int ranks[1] = {3};
    compare_runs(g, "fuse_qdq", 1, dims, ranks, 0);
    compare_runs(g, "all", 1, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* fuse_eltwise over 8-bit data: Q(x) and Q(x2) (u8), then
 * DequantizeLinear of both -> Add -> Relu -> QuantizeLinear (i8) ->
 * DequantizeLinear, as a QDQ residual or onnxruntime's QLinearAdd reads:
 * the two DequantizeLinear, the Add, the Relu and the QuantizeLinear one
 * FusedElementwise with u8 inputs and an i8 output (dequant ... quant),
 * the same bits as the ops one by one. */
static void test_fuse_eltwise_q8(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[2] = {37, 53};
    cairn_value_id x, x2;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dx, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "x2", CAIRN_F32, 2, dx, NULL, &x2));
    cairn_value_id qa[3] = {x, scalar(g, "a/scale", 0.02f), zero_point(g, "a/zp", CAIRN_U8, 128)};
    cairn_value_id qb[3] = {x2, scalar(g, "b/scale", 0.01f), zero_point(g, "b/zp", CAIRN_U8, 120)};
    cairn_value_id a8 = node(g, "QuantizeLinear", "a/Q", qa, 3, NULL, 0);
    cairn_value_id b8 = node(g, "QuantizeLinear", "b/Q", qb, 3, NULL, 0);
    qa[0] = a8, qb[0] = b8;
    cairn_value_id af = node(g, "DequantizeLinear", "a/DQ", qa, 3, NULL, 0);
    cairn_value_id bf = node(g, "DequantizeLinear", "b/DQ", qb, 3, NULL, 0);
    cairn_value_id y = bin(g, "Add", "add", af, bf);
    y = node(g, "Relu", "relu", &y, 1, NULL, 0);
    cairn_value_id qy[3] = {y, scalar(g, "y/scale", 0.015f), zero_point(g, "y/zp", CAIRN_I8, -128)};
    qy[0] = node(g, "QuantizeLinear", "y/Q", qy, 3, NULL, 0);
    y = node(g, "DequantizeLinear", "y/DQ", qy, 3, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *cg = compiled(g, "fuse_eltwise");
    const ir_node_t *n = find_op(cg, IR_OP_FusedElementwise);
    CHECK(n && count_op(cg, IR_OP_FusedElementwise) == 1 && count_op(cg, IR_OP_Add) == 0 &&
          count_op(cg, IR_OP_Relu) == 0 && count_op(cg, IR_OP_QuantizeLinear) == 2 &&
          count_op(cg, IR_OP_DequantizeLinear) == 1);
    CHECK(n && n->n_inputs == 2 && cg->values[n->inputs[0]].type.dtype == CAIRN_U8 &&
          cg->values[n->inputs[1]].type.dtype == CAIRN_U8 &&
          cg->values[n->outputs[0]].type.dtype == CAIRN_I8 && has_source(n, "y/Q") &&
          has_source(n, "a/DQ") && has_source(n, "b/DQ"));
    ir_graph_destroy(cg);
    int64_t dims[2][CAIRN_MAX_RANK] = {{37, 53}, {37, 53}};
    int ranks[2] = {2, 2};
    compare_runs(g, "fuse_eltwise", 2, dims, ranks, 0);
    compare_runs(g, "all", 2, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* x -> QDQ -> Gemm(., DQ(W), [bias]): W int8 [N, K] under transB (the
 * classifier quantize_static and the loader's com.microsoft QGemm write)
 * or [K, N], its scales and zero points per column of op(W) (axis 0 of
 * W under transB, 1 without) or one each. fuse_qdq makes it a
 * FusedMatMulInteger on Wᵀ stored transposed, the bias its epilogue's;
 * alpha other than 1, beta other than 1 with a C, or scales along K
 * (per_col 2) leave the Gemm as it is; square (K = N): scales along K
 * then have as many values as columns, and only their axis tells. */
static void test_fuse_qdq_gemm(int tb, int per_col, int with_bias, float alpha, float beta,
                               int square)
{
    const int K = square ? 32 : 24, N = square ? 32 : 40;
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[2] = {3, K}, db[1] = {N};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dx, NULL, &x));
    int8_t w[40 * 32], wz[40];
    float ws[40];
    check_rng_t rr = {321};
    for (int i = 0; i < K * N; i++)
        w[i] = (int8_t)((int)(check_rng_next(&rr) % 255) - 127);
    for (int j = 0; j < N; j++) {
        ws[j] = 0.002f + 0.0001f * (float)j;
        wz[j] = (int8_t)(j % 5 - 2);
    }
    /* per column of op(W): N of them along op(W)'s columns; per_col 2:
     * K of them along its rows */
    const int nw = per_col == 1 ? N : per_col == 2 ? K : 1;
    const int col_axis = tb ? 0 : 1;
    cairn_tensor_t wt = {CAIRN_I8, 2, {tb ? N : K, tb ? K : N}, w};
    cairn_tensor_t wst = {CAIRN_F32, 1, {nw}, ws}, wzt = {CAIRN_I8, 1, {nw}, wz};
    cairn_value_id dw[3];
    CHECK_OK(cairn_graph_add_constant(g, "W", &wt, &dw[0]));
    CHECK_OK(cairn_graph_add_constant(g, "W/scale", &wst, &dw[1]));
    CHECK_OK(cairn_graph_add_constant(g, "W/zp", &wzt, &dw[2]));
    cairn_attr_t axis = cairn_attr_int("axis", per_col == 2 ? 1 - col_axis : col_axis);
    /* per tensor with a bias: W without a zero point (the fused node's
     * optional inputs before the bias left out) */
    const int wzp = !(per_col == 0 && with_bias);
    cairn_value_id wdq = node(g, "DequantizeLinear", "W/DQ", dw, wzp ? 3 : 2, &axis, 1);
    cairn_value_id xd = qdq(g, "x", x, 0.031f, CAIRN_U8, 117);
    cairn_value_id gin[3] = {xd, wdq, with_bias ? tensor(g, "bias", 1, db, 9, -0.5, 0.5) : -1};
    cairn_attr_t ga[3] = {cairn_attr_float("alpha", alpha), cairn_attr_float("beta", beta),
                          cairn_attr_int("transB", tb)};
    cairn_value_id y = node(g, "Gemm", "fc/Gemm", gin, with_bias ? 3 : 2, ga, 3);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *cg = compiled(g, "fuse_qdq");
    const ir_node_t *n = find_op(cg, IR_OP_FusedMatMulInteger);
    const int fuses = per_col != 2 && alpha == 1.0f && (beta == 1.0f || !with_bias);
    if (!fuses) {
        CHECK_MSG(!n && count_op(cg, IR_OP_Gemm) == 1,
                  "Gemm tb %d per_col %d bias %d alpha %g beta %g: fused", tb, per_col,
                  with_bias, (double)alpha, (double)beta);
    } else {
        CHECK_MSG(n && count_op(cg, IR_OP_Gemm) == 0 && has_source(n, "fc/Gemm") &&
                      has_source(n, "W/DQ"),
                  "Gemm tb %d per_col %d bias %d: not fused", tb, per_col, with_bias);
        if (n) {
            const ir_value_t *bw = &cg->values[n->inputs[1]];
            CHECK(bw->type.dtype == CAIRN_I8 && bw->type.shape.rank == 2 &&
                  bw->type.shape.d[0] == K && bw->type.shape.d[1] == N);
            CHECK(with_bias ? n->n_inputs == 6 && n->inputs[5] >= 0 : n->n_inputs <= 5);
        }
    }
    ir_graph_destroy(cg);
    int64_t dims[1][CAIRN_MAX_RANK] = {{3, K}};
    int ranks[1] = {2};
    compare_runs(g, "fuse_qdq", 1, dims, ranks, 1e-5); /* f32 rounding of the sums */
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* Pairs alone (no GEMM): the qdq opcode gives the pairs' bits exactly;
 * pairs that differ (another scale) or whose 8-bit tensor is read twice
 * stay as written. */
static void test_fuse_qdq_pairs(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[2] = {33, 70};
    cairn_value_id x, x2;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dx, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "x2", CAIRN_F32, 2, dx, NULL, &x2));
    cairn_value_id a = qdq(g, "a", x, 0.0173f, CAIRN_U8, 131);
    cairn_value_id b = qdq(g, "b", x2, 0.25f, CAIRN_I8, 3); /* exact ties */
    cairn_value_id s = bin(g, "Mul", "mul", a, b);
    s = qdq(g, "s", s, 0.02f, CAIRN_I8, 0);
    /* a Q and a DQ of different scales: not a pair */
    cairn_value_id in[3] = {s, scalar(g, "q/scale", 0.05f), zero_point(g, "q/zp", CAIRN_U8, 9)};
    cairn_value_id q = node(g, "QuantizeLinear", "odd/Q", in, 3, NULL, 0);
    in[0] = q, in[1] = scalar(g, "dq/scale", 0.04f);
    cairn_value_id y = node(g, "DequantizeLinear", "odd/DQ", in, 3, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    /* a's pair again after a Reshape and a Transpose (values on its grid
     * already: an Identity), and a grid of another zero point (kept) */
    int64_t shp[2] = {70, 33};
    cairn_tensor_t st = {CAIRN_I64, 1, {2}, shp};
    cairn_value_id shape, perm_in[2];
    CHECK_OK(cairn_graph_add_constant(g, "shape", &st, &shape));
    perm_in[0] = a, perm_in[1] = shape;
    cairn_value_id m = node(g, "Reshape", "reshape", perm_in, 2, NULL, 0);
    m = node(g, "Transpose", "transpose", &m, 1, NULL, 0);
    cairn_value_id again = qdq(g, "again", m, 0.0173f, CAIRN_U8, 131);
    cairn_value_id other = qdq(g, "other", m, 0.0173f, CAIRN_U8, 130); /* another zero */
    CHECK_OK(cairn_graph_mark_output(g, again));
    CHECK_OK(cairn_graph_mark_output(g, other));
    ir_graph_t *cg = compiled(g, "fuse_qdq");
    CHECK(count_op(cg, IR_OP_FusedElementwise) == 4 && count_op(cg, IR_OP_QuantizeLinear) == 1 &&
          count_op(cg, IR_OP_DequantizeLinear) == 1 && count_op(cg, IR_OP_Identity) == 1);
    ir_graph_destroy(cg);
    cg = compiled(g, "fuse_qdq,fuse_eltwise");
    /* b's pair, the Mul and s's pair one pass; a's pair (read by the Mul
     * and the Reshape) and other's pair on their own */
    CHECK_MSG(count_op(cg, IR_OP_FusedElementwise) == 3 && count_op(cg, IR_OP_Mul) == 0, "%d",
              count_op(cg, IR_OP_FusedElementwise));
    ir_graph_destroy(cg);
    int64_t dims[2][CAIRN_MAX_RANK] = {{33, 70}, {33, 70}};
    int ranks[2] = {2, 2};
    compare_runs(g, "fuse_qdq", 2, dims, ranks, 0);
    compare_runs(g, "all", 2, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* Q(MaxPool(DQ(x8, s, z)), s, z) -> MaxPool(x8) (qdq_maxpool), u8 and i8:
 * the rewritten branch runs the 8-bit MaxPool on the same bytes (outputs
 * equal bit for bit); a MaxPool quantised to another scale, and one whose
 * f32 output is also a graph output, stay as they are. */
static void test_fuse_qdq_maxpool(cairn_dtype_t t, int z)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[4] = {1, 3, 13, 11};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    cairn_value_id d = qdq(g, "in", x, 0.05f, t, z);
    const int64_t k3[2] = {3, 3}, s2[2] = {2, 2}, p1[4] = {1, 1, 1, 1};
    const cairn_attr_t pa[3] = {cairn_attr_ints("kernel_shape", k3, 2),
                                cairn_attr_ints("strides", s2, 2), cairn_attr_ints("pads", p1, 4)};
    cairn_value_id mp = node(g, "MaxPool", "pool", &d, 1, pa, 3);
    cairn_value_id y = qdq(g, "out", mp, 0.05f, t, z);
    CHECK_OK(cairn_graph_mark_output(g, y));
    /* another scale after the pool: not on the same grid */
    cairn_value_id mp2 = node(g, "MaxPool", "pool2", &d, 1, pa, 3);
    cairn_value_id y2 = qdq(g, "out2", mp2, 0.04f, t, z);
    CHECK_OK(cairn_graph_mark_output(g, y2));
    /* the f32 pool read by a graph output too */
    cairn_value_id mp3 = node(g, "MaxPool", "pool3", &d, 1, pa, 3);
    cairn_value_id y3 = qdq(g, "out3", mp3, 0.05f, t, z);
    CHECK_OK(cairn_graph_mark_output(g, y3));
    CHECK_OK(cairn_graph_mark_output(g, mp3));
    ir_graph_t *cg = compiled(g, "fuse_qdq");
    int pools8 = 0, pools32 = 0;
    for (int i = 0; i < cg->n_nodes; i++)
        if (cg->nodes[i].op == IR_OP_MaxPool) {
            const cairn_dtype_t it = cg->values[cg->nodes[i].inputs[0]].type.dtype;
            pools8 += it == t && cg->values[cg->nodes[i].outputs[0]].type.dtype == t;
            pools32 += it == CAIRN_F32;
        }
    CHECK_MSG(pools8 == 1 && pools32 == 2, "%s: %d 8-bit pools, %d f32", cairn_dtype_name(t),
              pools8, pools32);
    ir_graph_destroy(cg);
    int64_t dims[1][CAIRN_MAX_RANK] = {{1, 3, 13, 11}};
    int ranks[1] = {4};
    compare_runs(g, "fuse_qdq", 1, dims, ranks, 0);
    compare_runs(g, "all", 1, dims, ranks, 0);
    cairn_graph_destroy(g);
}

/* Conv(DQ(Q(x)), DQ(W int8 per channel), bias) -> FusedConvInteger, and a
 * depthwise one (group = channels) left in f32 */
static void test_fuse_qdq_conv(int per_ch, int depthwise)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    const int64_t C = 6, M = depthwise ? 6 : 10;
    int64_t dx[4] = {2, C, 9, 8}, db[1] = {M};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    const int64_t Cg = depthwise ? 1 : C;
    int8_t w[10 * 6 * 9], wz[10];
    float ws[10];
    check_rng_t rr = {321};
    for (int i = 0; i < M * Cg * 9; i++)
        w[i] = (int8_t)((int)(check_rng_next(&rr) % 255) - 127);
    for (int j = 0; j < M; j++)
        ws[j] = 0.003f + 0.0002f * (float)j, wz[j] = (int8_t)(j % 5 - 2);
    const int nw = per_ch ? (int)M : 1;
    cairn_tensor_t wt = {CAIRN_I8, 4, {M, Cg, 3, 3}, w};
    cairn_tensor_t wst = {CAIRN_F32, 1, {nw}, ws}, wzt = {CAIRN_I8, 1, {nw}, wz};
    cairn_value_id dw[3];
    CHECK_OK(cairn_graph_add_constant(g, "W", &wt, &dw[0]));
    CHECK_OK(cairn_graph_add_constant(g, "W/scale", &wst, &dw[1]));
    CHECK_OK(cairn_graph_add_constant(g, "W/zp", &wzt, &dw[2]));
    cairn_attr_t axis = cairn_attr_int("axis", 0);
    cairn_value_id wdq = node(g, "DequantizeLinear", "W/DQ", dw, 3, &axis, 1);
    cairn_value_id xd = qdq(g, "x", x, 0.02f, CAIRN_U8, 100);
    int64_t pads[4] = {1, 1, 1, 1}, strides[2] = {2, 1};
    cairn_attr_t ca[3] = {cairn_attr_ints("pads", pads, 4), cairn_attr_ints("strides", strides, 2),
                          cairn_attr_int("group", depthwise ? C : 1)};
    cairn_value_id cin[3] = {xd, wdq, tensor(g, "bias", 1, db, 8, -0.5, 0.5)};
    cairn_value_id y = node(g, "Conv", "conv", cin, 3, ca, 3);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *cg = compiled(g, "fuse_qdq");
    const ir_node_t *n = find_op(cg, IR_OP_FusedConvInteger);
    if (depthwise) {
        CHECK(!n && count_op(cg, IR_OP_Conv) == 1);
    } else {
        CHECK(n && count_op(cg, IR_OP_Conv) == 0 && count_op(cg, IR_OP_DequantizeLinear) == 0 &&
              n->n_inputs == 6 && has_source(n, "conv") && has_source(n, "W/DQ") &&
              has_source(n, "x/DQ"));
        CHECK(n && cg->values[n->inputs[1]].type.dtype == CAIRN_I8);
    }
    ir_graph_destroy(cg);
    /* prepack: W prepared as the int8 GEMM's A (u8 buffer, m, kernel_shape) */
    cg = compiled(g, "fuse_qdq,prepack");
    n = find_op(cg, IR_OP_FusedConvInteger);
    if (!depthwise) {
        const ir_attr_t *ks = n ? ir_node_attr(n, "kernel_shape") : NULL;
        CHECK(n && ir_node_attr(n, "packed") && ir_node_attr(n, "packed")->i == 1 &&
              ir_node_attr(n, "m") && ir_node_attr(n, "m")->i == M && ks && ks->n == 2 &&
              ks->ints[0] == 3 && ks->ints[1] == 3 &&
              cg->values[n->inputs[1]].type.dtype == CAIRN_U8 &&
              cg->values[n->inputs[1]].type.shape.rank == 1 && ir_graph_find_value(cg, "W") < 0);
    }
    ir_graph_destroy(cg);
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, C, 9, 8}};
    int ranks[1] = {4};
    compare_runs(g, "fuse_qdq", 1, dims, ranks, 1e-5);
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* Conv(DQ(Q(x)), DQ(W int8), DQ(bias int32, sx sw)) -> Q(y) -> DQ, as
 * quantize_static writes a convolution: fuse_qdq makes the Conv and its Q
 * one QLinearConv (then a FusedConvInteger requant = 1 for group 1, a
 * QLinearConv for a depthwise one), which rounds once where the written
 * form rounds y to f32 first: the outputs agree within one step of y's
 * grid. A bias whose scale is not sx sw keeps the f32 form. */
static void test_fuse_qdq_conv_q(int per_ch, int depthwise, int bias_ok)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    const int64_t C = 6, M = depthwise ? 6 : 10, Cg = depthwise ? 1 : C;
    int64_t dx[4] = {2, C, 9, 8};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    int8_t w[10 * 6 * 9], wz[10] = {0};
    float ws[10], bs[10];
    int32_t b[10];
    const float sx = 0.02f, sy = 0.05f;
    check_rng_t rr = {654};
    for (int i = 0; i < M * Cg * 9; i++)
        w[i] = (int8_t)((int)(check_rng_next(&rr) % 255) - 127);
    for (int j = 0; j < M; j++) {
        ws[j] = 0.003f + 0.0002f * (float)(per_ch ? j : 0);
        bs[j] = sx * ws[j] * (bias_ok ? 1.0f : 1.5f);
        b[j] = (int32_t)(check_rng_next(&rr) % 2001) - 1000;
    }
    const int nw = per_ch ? (int)M : 1;
    cairn_tensor_t wt = {CAIRN_I8, 4, {M, Cg, 3, 3}, w};
    cairn_tensor_t wst = {CAIRN_F32, 1, {nw}, ws}, wzt = {CAIRN_I8, 1, {nw}, wz};
    cairn_tensor_t bt = {CAIRN_I32, 1, {M}, b}, bst = {CAIRN_F32, 1, {nw}, bs};
    cairn_value_id dw[3], dbv[2];
    CHECK_OK(cairn_graph_add_constant(g, "W", &wt, &dw[0]));
    CHECK_OK(cairn_graph_add_constant(g, "W/scale", &wst, &dw[1]));
    CHECK_OK(cairn_graph_add_constant(g, "W/zp", &wzt, &dw[2]));
    CHECK_OK(cairn_graph_add_constant(g, "B", &bt, &dbv[0]));
    CHECK_OK(cairn_graph_add_constant(g, "B/scale", &bst, &dbv[1]));
    cairn_attr_t axis = cairn_attr_int("axis", 0);
    cairn_value_id wdq = node(g, "DequantizeLinear", "W/DQ", dw, 3, &axis, 1);
    cairn_value_id bdq = node(g, "DequantizeLinear", "B/DQ", dbv, 2, &axis, 1);
    cairn_value_id xd = qdq(g, "x", x, sx, CAIRN_U8, 100);
    int64_t pads[4] = {1, 1, 1, 1}, strides[2] = {2, 1};
    cairn_attr_t ca[3] = {cairn_attr_ints("pads", pads, 4), cairn_attr_ints("strides", strides, 2),
                          cairn_attr_int("group", depthwise ? C : 1)};
    cairn_value_id cin[3] = {xd, wdq, bdq};
    cairn_value_id y = node(g, "Conv", "conv", cin, 3, ca, 3);
    y = qdq(g, "y", y, sy, CAIRN_U8, 7);
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *cg = compiled(g, "fuse_qdq");
    const ir_node_t *f = find_op(cg, IR_OP_FusedConvInteger);
    const ir_node_t *ql = find_op(cg, IR_OP_QLinearConv);
    if (!bias_ok) {
        CHECK(!ql && (depthwise ? count_op(cg, IR_OP_Conv) == 1 : f && !ir_node_attr(f, "requant")));
    } else if (depthwise) {
        CHECK(ql && !f && count_op(cg, IR_OP_Conv) == 0 && count_op(cg, IR_OP_QuantizeLinear) == 1 &&
              has_source(ql, "conv") && has_source(ql, "y/Q") && ql->n_inputs == 9);
    } else {
        CHECK(f && !ql && ir_node_attr(f, "requant") && ir_node_attr(f, "requant")->i == 1 &&
              count_op(cg, IR_OP_Conv) == 0 && count_op(cg, IR_OP_QuantizeLinear) == 1 &&
              has_source(f, "conv") && has_source(f, "y/Q") && has_source(f, "B/DQ"));
    }
    ir_graph_destroy(cg);
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, C, 9, 8}};
    int ranks[1] = {4};
    /* within one step of y's grid (|y| below 1 here: the error is absolute) */
    compare_runs(g, "fuse_qdq", 1, dims, ranks, sy * 1.0001);
    compare_runs(g, "all", 1, dims, ranks, sy * 1.0001);
    cairn_graph_destroy(g);
}

/* A FusedConvInteger naming a packed W, as a model file could: a buffer
 * too small for its m and kernel is refused when the session is made, one
 * of the right size that quant_pack_a did not make when it runs, each with
 * a message and before any read of the buffer */
static void test_convint_bad_packed(void)
{
    for (int bad = 0; bad < 2; bad++) {
        cairn_graph_t *g;
        CHECK_OK(cairn_graph_create(&g));
        int64_t dx[4] = {1, 3, 5, 5};
        cairn_value_id x, w, sc;
        CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_U8, 4, dx, NULL, &x));
        const size_t need = quant_packed_a_size(4, 27), size = bad == 0 ? 100 : need;
        uint8_t *buf = calloc(size, 1);
        cairn_tensor_t wt = {CAIRN_U8, 1, {(int64_t)size}, buf};
        CHECK_OK(cairn_graph_add_constant(g, "W:packed", &wt, &w));
        sc = scalar(g, "scale", 0.01f);
        int64_t ks[2] = {3, 3}, pads[4] = {1, 1, 1, 1};
        cairn_attr_t a[4] = {cairn_attr_int("packed", 1), cairn_attr_int("m", 4),
                             cairn_attr_ints("kernel_shape", ks, 2),
                             cairn_attr_ints("pads", pads, 4)};
        cairn_value_id in[3] = {x, w, sc}, y = -1;
        if (bad == 0) { /* the builder's inference already refuses it */
            CHECK_FAILS(cairn_graph_add_node(g, "FusedConvInteger", "conv", in, 3, a, 4, &y, 1,
                                             NULL),
                        CAIRN_ERR_SHAPE, "packed W holds 100 bytes");
        } else {
            y = node(g, "FusedConvInteger", "conv", in, 3, a, 4);
            CHECK_OK(cairn_graph_mark_output(g, y));
            cairn_session_t *ss = NULL;
            CHECK_OK(cairn_session_create(g, NULL, &ss));
            uint8_t xd[75] = {0};
            cairn_tensor_t xt = {CAIRN_U8, 4, {1, 3, 5, 5}, xd}, out;
            memset(&out, 0, sizeof out);
            CHECK_FAILS(cairn_session_run(ss, &xt, 1, &out, 1), CAIRN_ERR_INVALID_ARGUMENT,
                        "quant_pack_a");
            cairn_session_destroy(ss);
        }
        free(buf);
        cairn_graph_destroy(g);
    }
}

/* Constant placement (place.c). On an IR graph of three constants read in
 * the order W1, b1, W2 and a fourth value sharing W1's blob: each becomes a
 * view of one 2 MiB-aligned mapping at increasing offsets in that order,
 * with the same bytes, W1's two values sharing one view; a blob a cloned
 * graph also holds stays where it is until the clone is gone; a second run
 * and a threshold above the total move nothing. Then a session with the
 * pass (a 2 MiB packed weight, over the pass's threshold) against one
 * without. */
/* x -> MatMul W1 -> Add b1 -> MatMul W2, as an IR graph that alone holds
 * its constants (the API graph it was cloned from is gone) */
static ir_graph_t *place_graph(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[2] = {4, 16}, dw1[2] = {16, 32}, db[1] = {32}, dw2[2] = {32, 8};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dx, NULL, &x));
    /* made in the other order than the nodes read them */
    cairn_value_id w2 = tensor(g, "W2", 2, dw2, 13, -1, 1), b1 = tensor(g, "b1", 1, db, 12, -1, 1);
    cairn_value_id h = bin(g, "MatMul", "mm1", x, tensor(g, "W1", 2, dw1, 11, -1, 1));
    h = bin(g, "Add", "add1", h, b1);
    h = bin(g, "MatMul", "mm2", h, w2);
    CHECK_OK(cairn_graph_mark_output(g, h));
    ir_graph_t *c = compiled(g, "none");
    cairn_graph_destroy(g);
    return c;
}

static void test_place(void)
{
    ir_graph_t *c = place_graph();
    const char *names[3] = {"W1", "b1", "W2"};
    int ids[3];
    void *orig[3];
    for (int i = 0; i < 3; i++) {
        ids[i] = ir_graph_find_value(c, names[i]);
        CHECK(ids[i] >= 0 && c->values[ids[i]].blob);
        if (ids[i] < 0)
            return;
        orig[i] = malloc(c->values[ids[i]].data_bytes);
        memcpy(orig[i], c->values[ids[i]].data, c->values[ids[i]].data_bytes);
    }
    int shared = -1;
    CHECK_OK(ir_graph_add_constant_blob(c, "W1_again", &c->values[ids[0]].type,
                                        c->values[ids[0]].blob, &shared));
    /* held by a clone too: nothing can move */
    ir_graph_t *clone = NULL;
    CHECK_OK(ir_graph_clone(c, &clone));
    ir_blob_t *before[3];
    for (int i = 0; i < 3; i++)
        before[i] = c->values[ids[i]].blob;
    CHECK_OK(compiler_place_constants(c, 0));
    for (int i = 0; i < 3; i++)
        CHECK(c->values[ids[i]].blob == before[i] && !before[i]->parent);
    ir_graph_destroy(clone);
    CHECK_OK(compiler_place_constants(c, 1000000)); /* over the total: nothing */
    for (int i = 0; i < 3; i++)
        CHECK(c->values[ids[i]].blob == before[i]);
    CHECK_OK(compiler_place_constants(c, 0)); /* now all three move */
    const ir_blob_t *arena = c->values[ids[0]].blob->parent;
    CHECK(arena && c->values[shared].blob == c->values[ids[0]].blob);
    CHECK(arena && ((uintptr_t)arena->data & (((uintptr_t)2 << 20) - 1)) == 0);
    for (int i = 0; i < 3; i++) {
        const ir_value_t *v = &c->values[ids[i]];
        CHECK(v->blob->parent == arena);
        CHECK(v->data == v->blob->data && v->data_bytes == v->blob->size);
        CHECK(memcmp(v->data, orig[i], v->data_bytes) == 0);
        CHECK((uintptr_t)v->data % 64 == 0);
    }
    /* a fresh graph: one mapping in reading order W1, b1, W2 */
    ir_graph_destroy(c);
    c = place_graph();
    CHECK_OK(compiler_place_constants(c, 0));
    const ir_value_t *w1 = &c->values[ir_graph_find_value(c, "W1")];
    const ir_value_t *b1 = &c->values[ir_graph_find_value(c, "b1")];
    const ir_value_t *w2 = &c->values[ir_graph_find_value(c, "W2")];
    CHECK(w1->blob->parent && w1->blob->parent == b1->blob->parent &&
          b1->blob->parent == w2->blob->parent);
    CHECK((char *)w1->data == (char *)w1->blob->parent->data &&
          (char *)b1->data == (char *)w1->data + 16 * 32 * 4 &&
          (char *)w2->data == (char *)b1->data + 32 * 4);
    ir_blob_t *again = w1->blob;
    CHECK_OK(compiler_place_constants(c, 0)); /* placed already: stays */
    CHECK(w1->blob == again);
    /* views out of range or misaligned */
    CHECK(ir_blob_view(again->parent, again->parent->size, 1) == NULL);
    CHECK(ir_blob_view(again->parent, 8, 4) == NULL);
    ir_graph_destroy(c);
    for (int i = 0; i < 3; i++)
        free(orig[i]);

    /* in a session: a 512 x 1024 weight, packed (2 MiB and more) */
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx2[2] = {3, 512}, dw[2] = {512, 1024};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dx2, NULL, &x));
    cairn_value_id h = bin(g, "MatMul", "mm", x, tensor(g, "W", 2, dw, 14, -0.1, 0.1));
    h = node(g, "Relu", "relu", &h, 1, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, h));
    c = compiled(g, "fuse_gemm,prepack,place");
    const ir_node_t *n = find_op(c, IR_OP_FusedMatMul);
    CHECK(n && ir_attr_i(n, FUSED_MM_PACKED) == 1 && c->values[n->inputs[1]].blob &&
          c->values[n->inputs[1]].blob->parent);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{3, 512}};
    int ranks[1] = {2};
    compare_runs(g, "fuse_gemm,prepack,place", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

int main(void)
{
    test_fold_dce();
    test_layer_norm();
    for (int v = 0; v < 3; v++)
        test_gelu_erf(v);
    test_gelu_tanh(1);
    test_gelu_tanh(0);
    test_fuse_gemm("Relu");
    test_fuse_gemm("Gelu");
    test_fuse_gemm("Sigmoid");
    test_fuse_gemm_blocked();
    test_fuse_gemm_post(NULL, "Relu");
    test_fuse_gemm_post("Relu", "Clip");
    test_fuse_gemm_post(NULL, "Gelu");
    test_fuse_gemm_post_blocked();
    test_fuse_int8("Relu", 0);
    test_fuse_int8("Gelu", 0);
    test_fuse_int8("Relu", 1);
    for (int dw = 0; dw < 2; dw++) {
        test_fuse_convint(dw, "Relu", 0, 0, 0);
        test_fuse_convint(dw, "Clip", 0, 0, 0);
        test_fuse_convint(dw, "", 0, 1, 0);
        test_fuse_convint(dw, "Sigmoid", 0, 0, 0);
        test_fuse_convint(dw, "Relu", 1, 0, 0);
        /* dilation 2: the int8 GEMM's im2col takes it, quant_dwconv does not
         * (FusedConvInteger's inference refuses the rewrite) */
        test_fuse_convint(dw, "Relu", 0, 0, 1);
    }
    test_fuse_qdq(CAIRN_U8, 128, 0, 0);
    test_fuse_qdq(CAIRN_I8, -3, 1, 0);
    test_fuse_qdq(CAIRN_U8, 7, 1, 1);
    test_fuse_qdq(CAIRN_I8, 0, 0, 1);
    test_fuse_qdq(CAIRN_U8, 128, 2, 0);
    for (int tb = 0; tb < 2; tb++)
        for (int pc = 0; pc < 3; pc++)
            test_fuse_qdq_gemm(tb, pc, pc != 1, 1.0f, 1.0f, 0);
    test_fuse_qdq_gemm(1, 2, 1, 1.0f, 1.0f, 1); /* K-wise scales, as many as columns */
    test_fuse_qdq_gemm(0, 2, 0, 1.0f, 1.0f, 1);
    test_fuse_qdq_gemm(1, 1, 0, 1.0f, 1.0f, 1);
    test_fuse_qdq_gemm(1, 1, 1, 0.5f, 1.0f, 0); /* alpha: stays a Gemm */
    test_fuse_qdq_gemm(1, 1, 1, 1.0f, 2.0f, 0); /* beta with a C: stays */
    test_fuse_qdq_gemm(0, 0, 0, 1.0f, 2.0f, 0); /* beta without a C: fuses */
    test_fuse_qdq_pairs();
    test_fuse_qdq_maxpool(CAIRN_U8, 7);
    test_fuse_qdq_maxpool(CAIRN_I8, -3);
    test_fuse_qlinearconv(0, 1, CAIRN_U8, 1, 1);
    test_fuse_qlinearconv(1, 0, CAIRN_I8, 2, 1);
    test_fuse_qlinearconv(1, 1, CAIRN_U8, 2, 1);
    test_fuse_qlinearconv(0, 1, CAIRN_U8, 1, 2);
    test_fuse_qlinearmatmul(CAIRN_I8, CAIRN_U8, 0);
    test_fuse_qlinearmatmul(CAIRN_U8, CAIRN_I8, 0);
    test_fuse_qlinearmatmul(CAIRN_I8, CAIRN_U8, 1);
    test_fuse_eltwise_q8();
    test_fuse_qdq_conv(1, 0);
    test_fuse_qdq_conv(0, 0);
    test_fuse_qdq_conv(1, 1);
    test_fuse_qdq_conv_q(1, 0, 1);
    test_fuse_qdq_conv_q(0, 0, 1);
    test_fuse_qdq_conv_q(1, 1, 1);
    test_fuse_qdq_conv_q(0, 1, 1);
    test_fuse_qdq_conv_q(1, 0, 0);
    test_fuse_qdq_conv_q(0, 1, 0);
    test_convint_bad_packed();
    test_place();
    test_selection_errors();
    return check_finish("test_compiler_passes");
}
