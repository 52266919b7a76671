/* The Conv passes (fold_bn, fuse_conv, fuse_mbconv, prepack) on small graphs built through the C
 * API: each rewrite's structure (ops, sources, attributes kept, absorbed
 * nodes gone), what must not fuse, and that outputs match the same graph
 * run with the passes off. Helpers in compiler_test_util.h. */
#include "check.h"
#include "compiler/pass.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/mbconv.h"
#include "kernels/gemm/gemm.h"
#include "runtime/session_internal.h"

#include <math.h>

#include "compiler_test_util.h"


static cairn_value_id conv(cairn_graph_t *g, const char *name, cairn_value_id x, cairn_value_id w,
                           cairn_value_id b, int64_t group, int64_t pad)
{
    int64_t pads[4] = {pad, pad, pad, pad};
    cairn_attr_t a[2] = {cairn_attr_ints("pads", pads, 4), cairn_attr_int("group", group)};
    cairn_value_id in[3] = {x, w, b};
    return node(g, "Conv", name, in, b >= 0 ? 3 : 2, a, 2);
}

/* ---- fold_bn ---- */

static void test_fold_bn(int with_bias)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[4] = {2, 4, 7, 6}, dw[4] = {6, 4, 3, 3}, dm[1] = {6};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    cairn_value_id w = tensor(g, "W", 4, dw, 3, -0.5, 0.5);
    cairn_value_id b = with_bias ? tensor(g, "B", 1, dm, 4, -1, 1) : -1;
    cairn_value_id cv = conv(g, "conv", x, w, b, 1, 1);
    cairn_value_id bn_in[5] = {cv, tensor(g, "scale", 1, dm, 5, 0.5, 2),
                               tensor(g, "bias", 1, dm, 6, -1, 1),
                               tensor(g, "mean", 1, dm, 7, -0.5, 0.5),
                               tensor(g, "var", 1, dm, 8, 0.1, 2)};
    cairn_attr_t eps = cairn_attr_float("epsilon", 1e-3f);
    cairn_value_id y = node(g, "BatchNormalization", "bn", bn_in, 5, &eps, 1);
    CHECK_OK(cairn_graph_mark_output(g, y));

    ir_graph_t *c = compiled(g, "fold_bn");
    CHECK(c->n_nodes == 1 && c->nodes[0].op == IR_OP_Conv);
    const ir_node_t *n = find_op(c, IR_OP_Conv);
    CHECK(n && n->n_inputs == 3 && has_source(n, "conv") && has_source(n, "bn"));
    CHECK(n && c->values[n->inputs[1]].kind == IR_VALUE_CONSTANT &&
          c->values[n->inputs[2]].kind == IR_VALUE_CONSTANT);
    CHECK(ir_graph_find_value(c, "W") < 0 && ir_graph_find_value(c, "var") < 0);
    size_t cnt = 0;
    const int64_t *pads = n ? ir_attr_ints(n, 4, &cnt) : NULL; /* Conv's "pads" slot */
    CHECK(pads && cnt == 4 && pads[0] == 1);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{2, 4, 7, 6}};
    int ranks[1] = {4};
    compare_runs(g, "fold_bn", 1, dims, ranks, 2e-5);
    compare_runs(g, "all", 1, dims, ranks, 2e-5);
    cairn_graph_destroy(g);
}

/* The conv's output is also a graph output: nothing folds. */
static void test_fold_bn_blocked(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[4] = {1, 2, 5, 5}, dw[4] = {3, 2, 1, 1}, dm[1] = {3};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    cairn_value_id cv = conv(g, "conv", x, tensor(g, "W", 4, dw, 3, -1, 1), -1, 1, 0);
    cairn_value_id bn_in[5] = {cv, tensor(g, "scale", 1, dm, 5, 0.5, 2),
                               tensor(g, "bias", 1, dm, 6, -1, 1),
                               tensor(g, "mean", 1, dm, 7, -0.5, 0.5),
                               tensor(g, "var", 1, dm, 8, 0.1, 2)};
    cairn_value_id y = node(g, "BatchNormalization", "bn", bn_in, 5, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    CHECK_OK(cairn_graph_mark_output(g, cv));
    ir_graph_t *c = compiled(g, "fold_bn,fuse_conv");
    CHECK(c->n_nodes == 2 && count_op(c, IR_OP_BatchNormalization) == 1 &&
          count_op(c, IR_OP_Conv) == 1);
    ir_graph_destroy(c);
    cairn_graph_destroy(g);
}

/* ---- fuse_conv ---- */

/* Conv -> Clip(0, 6) -> Add(residual), dense or depthwise. */
static void test_fuse_conv(int depthwise)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t C = 6, M = depthwise ? 6 : 8;
    int64_t dx[4] = {2, C, 9, 8}, dr[4] = {2, M, 9, 8}, dw[4] = {M, depthwise ? 1 : C, 3, 3},
            dm[1] = {M};
    cairn_value_id x, res;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "res", CAIRN_F32, 4, dr, NULL, &res));
    cairn_value_id cv = conv(g, "conv", x, tensor(g, "W", 4, dw, 3, -0.5, 0.5),
                             tensor(g, "B", 1, dm, 4, -1, 1), depthwise ? C : 1, 1);
    cairn_value_id clip_in[3] = {cv, scalar(g, "lo", 0.0f), scalar(g, "hi", 6.0f)};
    cairn_value_id a = node(g, "Clip", "relu6", clip_in, 3, NULL, 0);
    cairn_value_id y = bin(g, "Add", "residual", a, res);
    CHECK_OK(cairn_graph_mark_output(g, y));

    ir_graph_t *c = compiled(g, "fuse_conv");
    CHECK(c->n_nodes == 1 && c->nodes[0].op == IR_OP_FusedConv);
    const ir_node_t *n = find_op(c, IR_OP_FusedConv);
    CHECK(n && n->n_inputs == 4 && n->n_sources == 3 && has_source(n, "conv") &&
          has_source(n, "relu6") && has_source(n, "residual"));
    CHECK(n && ir_attr_i(n, FUSED_CONV_ACTIVATION) == GEMM_ACT_CLIP &&
          ir_attr_f(n, FUSED_CONV_CLIP_MIN) == 0.0f && ir_attr_f(n, FUSED_CONV_CLIP_MAX) == 6.0f);
    CHECK(n && ir_attr_i(n, 2) == (depthwise ? C : 1)); /* Conv's "group" slot kept */
    ir_graph_destroy(c);
    int64_t dims[2][CAIRN_MAX_RANK] = {{2, C, 9, 8}, {2, M, 9, 8}};
    int ranks[2] = {4, 4};
    compare_runs(g, "fuse_conv", 2, dims, ranks, 1e-5);
    compare_runs(g, "all", 2, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* ResNet's Conv -> Add -> Relu: the Add and the Relu after it fuse (the
 * Relu as post_activation); a Relu whose input has a second reader does
 * not fuse. */
static void test_fuse_conv_resnet(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[4] = {1, 8, 5, 5}, dw[4] = {8, 8, 1, 1}, dm[1] = {8};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    cairn_value_id c1 = conv(g, "c1", x, tensor(g, "W1", 4, dw, 3, -0.5, 0.5),
                             tensor(g, "B1", 1, dm, 4, -1, 1), 1, 0);
    cairn_value_id s = bin(g, "Add", "add", c1, x);
    cairn_value_id r = node(g, "Relu", "relu", &s, 1, NULL, 0);
    cairn_value_id c2 = conv(g, "c2", r, tensor(g, "W2", 4, dw, 5, -0.5, 0.5), -1, 1, 0);
    cairn_value_id r2 = node(g, "Relu", "relu2", &c2, 1, NULL, 0);
    cairn_value_id y = bin(g, "Mul", "mul", r2, c2); /* c2 has two readers */
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "fuse_conv");
    CHECK(count_op(c, IR_OP_FusedConv) == 1 && count_op(c, IR_OP_Relu) == 1 &&
          count_op(c, IR_OP_Conv) == 1 && count_op(c, IR_OP_Add) == 0);
    const ir_node_t *n = find_op(c, IR_OP_FusedConv);
    CHECK(n && n->n_inputs == 4 && ir_attr_i(n, FUSED_CONV_ACTIVATION) == 0 &&
          ir_attr_i(n, FUSED_CONV_POST_ACTIVATION) == GEMM_ACT_RELU && has_source(n, "c1") &&
          has_source(n, "add") && has_source(n, "relu") && !has_source(n, "relu2"));
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{1, 8, 5, 5}};
    int ranks[1] = {4};
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* Conv -> Relu -> Add(residual) -> Clip(-1, 0.5) (dense or depthwise): both
 * activations fuse, the Clip with its bounds as post_activation; when the
 * sum is also a graph output the Clip stays. */
static void test_fuse_conv_post(int depthwise, int sum_is_output)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t C = 5, M = depthwise ? 5 : 7;
    int64_t dx[4] = {1, C, 11, 6}, dr[4] = {1, M, 11, 6}, dw[4] = {M, depthwise ? 1 : C, 3, 3},
            dm[1] = {M};
    cairn_value_id x, res;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "res", CAIRN_F32, 4, dr, NULL, &res));
    cairn_value_id cv = conv(g, "conv", x, tensor(g, "W", 4, dw, 21, -0.5, 0.5),
                             tensor(g, "B", 1, dm, 22, -1, 1), depthwise ? C : 1, 1);
    cairn_value_id a = node(g, "Relu", "pre", &cv, 1, NULL, 0);
    cairn_value_id s = bin(g, "Add", "residual", res, a);
    cairn_value_id ci[3] = {s, scalar(g, "lo", -1.0f), scalar(g, "hi", 0.5f)};
    cairn_value_id y = node(g, "Clip", "post", ci, 3, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    if (sum_is_output)
        CHECK_OK(cairn_graph_mark_output(g, s));
    ir_graph_t *c = compiled(g, "fuse_conv");
    const ir_node_t *n = find_op(c, IR_OP_FusedConv);
    CHECK(c->n_nodes == (sum_is_output ? 2 : 1) && n && has_source(n, "pre") &&
          has_source(n, "residual") && has_source(n, "post") == !sum_is_output);
    CHECK(n && ir_attr_i(n, FUSED_CONV_ACTIVATION) == GEMM_ACT_RELU &&
          ir_attr_i(n, FUSED_CONV_POST_ACTIVATION) == (sum_is_output ? 0 : GEMM_ACT_CLIP));
    if (!sum_is_output)
        CHECK(n && ir_attr_f(n, FUSED_CONV_POST_CLIP_MIN) == -1.0f &&
              ir_attr_f(n, FUSED_CONV_POST_CLIP_MAX) == 0.5f);
    ir_graph_destroy(c);
    int64_t dims[2][CAIRN_MAX_RANK] = {{1, C, 11, 6}, {1, M, 11, 6}};
    int ranks[2] = {4, 4};
    compare_runs(g, "fuse_conv", 2, dims, ranks, 1e-5);
    compare_runs(g, "all", 2, dims, ranks, 1e-5);
    cairn_graph_destroy(g);
}

/* prepack: a dense Conv's W (2-D and 1-D) becomes conv_f32_pack_w's buffer
 * (FusedConv, packed = 1, w_shape = W's shape, the plain W gone); a grouped
 * Conv keeps its W. The outputs match the unpacked graph's. */
static void test_prepack_conv(int one_d)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int r = one_d ? 3 : 4;
    int64_t dx[4] = {1, 6, 9, 7}, dw[4] = {10, 6, 3, 2}, dg[4] = {10, 5, 1, 1}, dm[1] = {10};
    if (one_d)
        dx[2] = 31, dw[2] = 5, dg[2] = 1;
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, r, dx, NULL, &x));
    cairn_value_id c1, y;
    if (one_d) {
        int64_t p1[2] = {1, 1}, p0[2] = {0, 0};
        cairn_attr_t a1[1] = {cairn_attr_ints("pads", p1, 2)};
        cairn_attr_t a2[2] = {cairn_attr_ints("pads", p0, 2), cairn_attr_int("group", 2)};
        cairn_value_id in1[3] = {x, tensor(g, "W", r, dw, 31, -0.5, 0.5),
                                 tensor(g, "B", 1, dm, 32, -1, 1)};
        c1 = node(g, "Conv", "dense", in1, 3, a1, 1);
        cairn_value_id a = node(g, "Relu", "relu", &c1, 1, NULL, 0);
        cairn_value_id in2[2] = {a, tensor(g, "Wg", r, dg, 33, -0.5, 0.5)};
        y = node(g, "Conv", "grouped", in2, 2, a2, 2);
    } else {
        c1 = conv(g, "dense", x, tensor(g, "W", r, dw, 31, -0.5, 0.5),
                  tensor(g, "B", 1, dm, 32, -1, 1), 1, 1);
        cairn_value_id a = node(g, "Relu", "relu", &c1, 1, NULL, 0);
        y = conv(g, "grouped", a, tensor(g, "Wg", r, dg, 33, -0.5, 0.5), -1, 2, 0);
    }
    CHECK_OK(cairn_graph_mark_output(g, y));
    ir_graph_t *c = compiled(g, "fuse_conv,prepack");
    CHECK(count_op(c, IR_OP_FusedConv) == 1 && count_op(c, IR_OP_Conv) == 1);
    const ir_node_t *n = find_op(c, IR_OP_FusedConv);
    size_t nd = 0;
    const int64_t *ws = n ? ir_attr_ints(n, FUSED_CONV_W_SHAPE, &nd) : NULL;
    CHECK(n && ir_attr_i(n, FUSED_CONV_PACKED) == 1 && ws && nd == (size_t)r && ws[0] == 10 &&
          ws[1] == 6 && ws[2] == dw[2] && ir_attr_i(n, FUSED_CONV_ACTIVATION) == GEMM_ACT_RELU);
    CHECK(n && c->values[n->inputs[1]].type.dtype == CAIRN_U8);
    CHECK(ir_graph_find_value(c, "W") < 0 && ir_graph_find_value(c, "Wg") >= 0);
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{dx[0], dx[1], dx[2], dx[3]}};
    int ranks[1] = {r};
    compare_runs(g, "fuse_conv,prepack", 1, dims, ranks, 1e-5);
    compare_runs(g, "prepack", 1, dims, ranks, 1e-5); /* a plain Conv packed */
    cairn_graph_destroy(g);
}

/* prepack on a 3x3 stride-1 Conv that Winograd takes (where the CPU runs
 * it): packed = 3 and the buffer in its layout; the outputs match the
 * unpacked graph's; the same graph compiled with Winograd off packs for the
 * GEMM instead. */
static void test_prepack_winograd(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dx[4] = {1, 16, 13, 10}, dw[4] = {24, 16, 3, 3}, dm[1] = {24};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    cairn_value_id y = conv(g, "c3", x, tensor(g, "W", 4, dw, 41, -0.5, 0.5),
                            tensor(g, "B", 1, dm, 42, -1, 1), 1, 1);
    CHECK_OK(cairn_graph_mark_output(g, y));
    conv_params_t kp = {1, 16, 24, 1, {1, 13, 10}, {1, 13, 10}, {1, 3, 3}, {1, 1, 1}, {1, 1, 1},
                        {0, 1, 1}};
    for (int wino = 1; wino >= 0; wino--) {
        conv_f32_set_winograd(wino);
        const int want = wino && conv_wino_chosen(&kp) ? 3 : -1;
        ir_graph_t *c = compiled(g, "prepack");
        const ir_node_t *n = find_op(c, IR_OP_FusedConv);
        CHECK(n != NULL);
        if (n && want == 3)
            CHECK(ir_attr_i(n, FUSED_CONV_PACKED) == 3 &&
                  conv_f32_packed_kind(c->values[n->inputs[1]].data) == 'W');
        if (n && !wino)
            CHECK(ir_attr_i(n, FUSED_CONV_PACKED) != 3);
        ir_graph_destroy(c);
        int64_t dims[1][CAIRN_MAX_RANK] = {{1, 16, 13, 10}};
        int ranks[1] = {4};
        /* Winograd rounds ~10x more than the direct sum (test_conv_fast
         * measures it): up to ~6e-5 here, with sum |x||w| ~ 36 */
        compare_runs(g, "prepack", 1, dims, ranks, want == 3 ? 1e-4 : 1e-5);
    }
    conv_f32_set_winograd(1);
    cairn_graph_destroy(g);
}

/* g compiled with all passes: one FusedMBConv (none with leak) whose two
 * weights prepack made u8 buffers, W1's of E x ck floats packed, channels
 * = [C, E, M]; the outputs with fuse_mbconv and with all passes match the
 * passes off on an input of [1, C, H, W]. */
static void check_mbconv_all(const cairn_graph_t *g, int leak, int64_t C, int64_t E, int64_t M,
                             int64_t ck, int64_t H, int64_t W)
{
    ir_graph_t *c = compiled(g, "all");
    const ir_node_t *n = find_op(c, IR_OP_FusedMBConv);
    CHECK((n != NULL) == (!leak && conv_mb_available()));
    if (n) {
        size_t nc = 0;
        const int64_t *ch = ir_attr_ints(n, FUSED_MB_CHANNELS, &nc);
        CHECK(ir_attr_i(n, FUSED_MB_PACKED) == 1 && nc == 3 && ch[0] == C && ch[1] == E &&
              ch[2] == M);
        CHECK(c->values[n->inputs[1]].type.dtype == CAIRN_U8 &&
              c->values[n->inputs[5]].type.dtype == CAIRN_U8 &&
              c->values[n->inputs[1]].type.shape.d[0] >= (int64_t)conv_mb_packed_size(E, ck));
    }
    ir_graph_destroy(c);
    int64_t dims[1][CAIRN_MAX_RANK] = {{1, C, H, W}};
    int ranks[1] = {4};
    compare_runs(g, "fuse_conv,fuse_mbconv", 1, dims, ranks, 1e-5);
    compare_runs(g, "all", 1, dims, ranks, 1e-5);
}

/* fuse_mbconv: expand 1x1 (+ Clip) -> depthwise 3x3 / stride (+ Relu) ->
 * project 1x1 (+ residual Add) becomes one FusedMBConv with the stages'
 * epilogues in its attributes; prepack then packs its two 1x1 weights
 * (packed = 1, channels = [C, E, M]); not fused when the expanded value
 * has a second reader or is a graph output; outputs match the passes off
 * (1 and 2 threads: rows split between threads, or whole-plane stages). */
static void test_fuse_mbconv(int stride, int residual, int leak)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    const int64_t C = 64, E = 96, M = residual ? 64 : 40, H = 9, W = 10;
    const int64_t OH = (H - 1) / stride + 1, OW = (W - 1) / stride + 1;
    int64_t dx[4] = {1, C, H, W}, d1[4] = {E, C, 1, 1}, dd[4] = {E, 1, 3, 3},
            d2[4] = {M, E, 1, 1}, de[1] = {E}, dm[1] = {M};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    cairn_value_id e = conv(g, "expand", x, tensor(g, "W1", 4, d1, 31, -0.2, 0.2),
                            tensor(g, "B1", 1, de, 32, -1, 1), 1, 0);
    cairn_value_id ci[3] = {e, scalar(g, "lo", 0.0f), scalar(g, "hi", 6.0f)};
    cairn_value_id ea = node(g, "Clip", "expand_act", ci, 3, NULL, 0);
    int64_t pads[4] = {1, 1, 1, 1}, strides[2] = {stride, stride};
    cairn_attr_t a[3] = {cairn_attr_ints("pads", pads, 4), cairn_attr_int("group", E),
                         cairn_attr_ints("strides", strides, 2)};
    cairn_value_id din[3] = {ea, tensor(g, "Wd", 4, dd, 33, -0.5, 0.5),
                             tensor(g, "Bd", 1, de, 34, -1, 1)};
    cairn_value_id d = node(g, "Conv", "dw", din, 3, a, 3);
    cairn_value_id da = node(g, "Relu", "dw_act", &d, 1, NULL, 0);
    cairn_value_id y = conv(g, "project", da, tensor(g, "W2", 4, d2, 35, -0.1, 0.1),
                            tensor(g, "B2", 1, dm, 36, -1, 1), 1, 0);
    if (residual)
        y = bin(g, "Add", "residual", y, x);
    CHECK_OK(cairn_graph_mark_output(g, y));
    if (leak)
        CHECK_OK(cairn_graph_mark_output(g, ea));
    ir_graph_t *c = compiled(g, "fuse_conv,fuse_mbconv");
    const ir_node_t *n = find_op(c, IR_OP_FusedMBConv);
    if (leak || !conv_mb_available()) {
        CHECK(!n);
    } else {
        CHECK(n && c->n_nodes == 1 && has_source(n, "expand_act") && has_source(n, "dw_act") &&
              (!residual || has_source(n, "residual")));
        CHECK(n && ir_attr_i(n, FUSED_MB_STRIDE) == stride && ir_attr_i(n, FUSED_MB_KERNEL) == 3 &&
              ir_attr_i(n, FUSED_MB_EXPAND_ACT) == GEMM_ACT_CLIP &&
              ir_attr_f(n, FUSED_MB_EXPAND_CLIP_MAX) == 6.0f &&
              ir_attr_f(n, FUSED_MB_DW_CLIP_MIN) == 0.0f && !ir_attr_i(n, FUSED_MB_PACKED));
        CHECK(n && (n->n_inputs == 8) == (residual != 0));
    }
    ir_graph_destroy(c);
    check_mbconv_all(g, leak, C, E, M, C, H, W);
    (void)OH, (void)OW;
    cairn_graph_destroy(g);
}

/* fuse_mbconv's stem form: a 3x3 / stride-2 Conv from a 3-channel image
 * (+ Clip) -> depthwise 3x3 (+ Clip) -> project 1x1 becomes one
 * FusedMBConv with expand_kernel 3 and expand_stride 2; prepack packs W1 as
 * E x 27 (channels = [3, E, M]); not fused when the first convolution's
 * output has a second reader; outputs match the passes off (2 threads:
 * the rows split between them), odd plane sizes. */
static void test_fuse_mbconv_stem(int leak)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    const int64_t C = 3, E = 32, M = 16, H = 23, W = 30;
    int64_t dx[4] = {1, C, H, W}, d1[4] = {E, C, 3, 3}, dd[4] = {E, 1, 3, 3},
            d2[4] = {M, E, 1, 1}, de[1] = {E}, dm[1] = {M};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dx, NULL, &x));
    int64_t pads[4] = {1, 1, 1, 1}, s2[2] = {2, 2};
    cairn_attr_t sa[2] = {cairn_attr_ints("pads", pads, 4), cairn_attr_ints("strides", s2, 2)};
    cairn_value_id sin[3] = {x, tensor(g, "W1", 4, d1, 51, -0.3, 0.3),
                             tensor(g, "B1", 1, de, 52, -1, 1)};
    cairn_value_id e = node(g, "Conv", "stem", sin, 3, sa, 2);
    cairn_value_id ci[3] = {e, scalar(g, "lo", 0.0f), scalar(g, "hi", 6.0f)};
    cairn_value_id ea = node(g, "Clip", "stem_act", ci, 3, NULL, 0);
    cairn_value_id d = conv(g, "dw", ea, tensor(g, "Wd", 4, dd, 53, -0.5, 0.5),
                            tensor(g, "Bd", 1, de, 54, -1, 1), E, 1);
    cairn_value_id di[3] = {d, scalar(g, "lo2", 0.0f), scalar(g, "hi2", 6.0f)};
    cairn_value_id da = node(g, "Clip", "dw_act", di, 3, NULL, 0);
    cairn_value_id y = conv(g, "project", da, tensor(g, "W2", 4, d2, 55, -0.2, 0.2),
                            tensor(g, "B2", 1, dm, 56, -1, 1), 1, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    if (leak)
        CHECK_OK(cairn_graph_mark_output(g, ea));
    ir_graph_t *c = compiled(g, "fuse_conv,fuse_mbconv");
    const ir_node_t *n = find_op(c, IR_OP_FusedMBConv);
    if (leak || !conv_mb_available()) {
        CHECK(!n);
    } else {
        CHECK(n && c->n_nodes == 1 && has_source(n, "stem") && has_source(n, "dw_act"));
        CHECK(n && ir_attr_i(n, FUSED_MB_EXPAND_KERNEL) == 3 &&
              ir_attr_i(n, FUSED_MB_EXPAND_STRIDE) == 2 && ir_attr_i(n, FUSED_MB_STRIDE) == 1 &&
              ir_attr_i(n, FUSED_MB_EXPAND_ACT) == GEMM_ACT_CLIP);
    }
    ir_graph_destroy(c);
    check_mbconv_all(g, leak, C, E, M, C * 9, H, W);
    cairn_graph_destroy(g);
}

int main(void)
{
    test_prepack_winograd();
    test_prepack_conv(0);
    test_prepack_conv(1);
    test_fold_bn(1);
    test_fold_bn(0);
    test_fold_bn_blocked();
    test_fuse_conv(0);
    test_fuse_conv(1);
    test_fuse_conv_resnet();
    for (int dwc = 0; dwc < 2; dwc++) {
        test_fuse_conv_post(dwc, 0);
        test_fuse_conv_post(dwc, 1);
    }
    for (int st = 1; st <= 2; st++) {
        test_fuse_mbconv(st, st == 1, 0);
        test_fuse_mbconv(st, 0, 0);
    }
    test_fuse_mbconv(1, 1, 1);
    test_fuse_mbconv_stem(0);
    test_fuse_mbconv_stem(1);
    return check_finish("test_conv_passes");
}
