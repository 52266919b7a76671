/*
 * FusedMBConv, made by the fuse_mbconv pass (src/compiler/): MobileNet's
 * inverted-residual block, 1x1 expansion -> KxK depthwise -> 1x1
 * projection (each a FusedConv with its epilogue), as one node run by
 * kernels/conv/mbconv.c, which never writes the expanded tensor out.
 *
 * Inputs: X [N, C, H, W] f32; W1 (expansion, [E, C, K1, K1] f32 (K1 =
 * expand_kernel, 1 but for the stem form), or with packed = 1 the u8
 * buffer conv_mb_pack makes); B1 [E] (optional); Wd
 * [E, 1, K, K]; Bd [E] (optional); W2 (projection, [M, E, 1, 1] or
 * packed); B2 [M] (optional); R (residual, the output's shape, optional).
 * Output [N, M, OH, OW], pads K1 / 2 and K / 2. Attributes: slots in
 * ir/ops/fused.h.
 */
#include "base/alloc.h"
#include "base/dtype.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/conv/mbconv.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

cairn_status_t op_fused_mbconv_infer(ir_infer_ctx_t *c);
cairn_status_t op_fused_mbconv_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_fused_mbconv_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                          const ktensor_t *out, int n_out, ir_cost_t *cost);

const ir_attr_def_t op_fused_mbconv_attrs[] = {
    IR_ATTR_INT("kernel", 3),
    IR_ATTR_INT("stride", 1),
    IR_ATTR_INT("packed", 0),
    IR_ATTR_INTS("channels"),
    IR_ATTR_INT("expand_activation", 0),
    IR_ATTR_FLOAT("expand_clip_min", -3.402823466e38f),
    IR_ATTR_FLOAT("expand_clip_max", 3.402823466e38f),
    IR_ATTR_FLOAT("dw_clip_min", -3.402823466e38f),
    IR_ATTR_FLOAT("dw_clip_max", 3.402823466e38f),
    IR_ATTR_INT("project_activation", 0),
    IR_ATTR_FLOAT("project_clip_min", -3.402823466e38f),
    IR_ATTR_FLOAT("project_clip_max", 3.402823466e38f),
    IR_ATTR_INT("post_activation", 0),
    IR_ATTR_FLOAT("post_clip_min", -3.402823466e38f),
    IR_ATTR_FLOAT("post_clip_max", 3.402823466e38f),
    IR_ATTR_INT("expand_kernel", 1),
    IR_ATTR_INT("expand_stride", 1),
    IR_ATTR_END};

static int has(const ir_infer_ctx_t *c, int i)
{
    return i < c->n_in && c->in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}

/* Input i must be f32 of rank `rank` with the given dims where both are
 * known (-1: any). */
static cairn_status_t check_f32(ir_infer_ctx_t *c, int i, const char *what, int rank,
                                const int64_t *dims)
{
    const ir_type_t *t = &c->in[i];
    if (t->dtype != CAIRN_F32)
        return ir_infer_error(c, CAIRN_ERR_DTYPE, "%s must be f32, got %s", what,
                              cairn_dtype_name(t->dtype));
    if (t->shape.rank < 0)
        return CAIRN_OK;
    if (t->shape.rank != rank)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "%s must have rank %d, got %d", what, rank,
                              t->shape.rank);
    for (int d = 0; d < rank; d++)
        if (dims[d] >= 0 && ir_dim_known(t->shape.d[d]) && t->shape.d[d] != dims[d])
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "%s has %lld in dim %d where %lld is needed", what,
                                  (long long)t->shape.d[d], d, (long long)dims[d]);
    return CAIRN_OK;
}

static cairn_status_t check_packed(ir_infer_ctx_t *c, int i, const char *what, int64_t rows,
                                   int64_t cols)
{
    const ir_type_t *t = &c->in[i];
    if (t->dtype != CAIRN_U8 || t->shape.rank != 1)
        return ir_infer_error(c, CAIRN_ERR_DTYPE, "packed %s must be a 1-D u8 buffer", what);
    const size_t need = conv_mb_packed_size(rows, cols);
    if (ir_dim_known(t->shape.d[0]) && (size_t)t->shape.d[0] < need)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "packed %s holds %lld bytes; %lld x %lld needs %zu", what,
                              (long long)t->shape.d[0], (long long)rows, (long long)cols, need);
    return CAIRN_OK;
}

cairn_status_t op_fused_mbconv_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    const int64_t K = ir_attr_i(n, FUSED_MB_KERNEL), s = ir_attr_i(n, FUSED_MB_STRIDE);
    if (K < 1 || K > 15 || K % 2 == 0)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "kernel %lld must be odd, 1 to 15", (long long)K);
    if (s < 1 || s > 4)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT, "stride %lld must be 1 to 4",
                              (long long)s);
    const int64_t K1 = ir_attr_i(n, FUSED_MB_EXPAND_KERNEL);
    const int64_t s1 = ir_attr_i(n, FUSED_MB_EXPAND_STRIDE);
    if (K1 < 1 || K1 > 15 || K1 % 2 == 0)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "expand_kernel %lld must be odd, 1 to 15", (long long)K1);
    if (s1 < 1 || s1 > 4 || (K1 == 1 && s1 != 1))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "expand_stride %lld must be 1 to 4 (1 with expand_kernel 1)",
                              (long long)s1);
    for (int a = 0; a < 3; a++) {
        static const int slots[3] = {FUSED_MB_EXPAND_ACT, FUSED_MB_PROJECT_ACT, FUSED_MB_POST_ACT};
        const int64_t act = ir_attr_i(n, slots[a]);
        if (act < GEMM_ACT_NONE || act > GEMM_ACT_CLIP)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "activation %lld is not one of 0 (none) to %d (clip)",
                                  (long long)act, (int)GEMM_ACT_CLIP);
    }
    const ir_shape_t *x = &c->in[0].shape;
    if (c->in[0].dtype != CAIRN_F32)
        return ir_infer_error(c, CAIRN_ERR_DTYPE, "X must be f32, got %s",
                              cairn_dtype_name(c->in[0].dtype));
    if (x->rank >= 0 && x->rank != 4)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "X must be 4-D [N, C, H, W], got rank %d",
                              x->rank);
    /* the channel counts: from the attribute when packed, else from W1, W2 */
    int64_t C = x->rank == 4 && ir_dim_known(x->d[1]) ? x->d[1] : -1, E = -1, M = -1;
    const int packed = ir_attr_i(n, FUSED_MB_PACKED) != 0;
    if (packed) {
        size_t nc = 0;
        const int64_t *ch = ir_attr_ints(n, FUSED_MB_CHANNELS, &nc);
        if (!ch || nc != 3 || ch[0] < 1 || ch[1] < 1 || ch[2] < 1)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "packed weights need channels = [C, E, M], all >= 1");
        if (C >= 0 && ch[0] != C)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "X has %lld channels, channels[0] = %lld",
                                  (long long)C, (long long)ch[0]);
        C = ch[0], E = ch[1], M = ch[2];
        BASE_TRY(check_packed(c, 1, "W1", E, C * K1 * K1));
        BASE_TRY(check_packed(c, 5, "W2", M, E));
    } else {
        const ir_shape_t *w1 = &c->in[1].shape, *w2 = &c->in[5].shape;
        E = w1->rank == 4 && ir_dim_known(w1->d[0]) ? w1->d[0] : -1;
        M = w2->rank == 4 && ir_dim_known(w2->d[0]) ? w2->d[0] : -1;
        const int64_t d1[4] = {E, C, K1, K1}, d2[4] = {M, E, 1, 1};
        BASE_TRY(check_f32(c, 1, "W1 (expansion)", 4, d1));
        BASE_TRY(check_f32(c, 5, "W2 (projection)", 4, d2));
    }
    const int64_t dd[4] = {E, 1, K, K}, be[1] = {E}, bm[1] = {M};
    BASE_TRY(check_f32(c, 3, "Wd (depthwise)", 4, dd));
    if (has(c, 2))
        BASE_TRY(check_f32(c, 2, "B1", 1, be));
    if (has(c, 4))
        BASE_TRY(check_f32(c, 4, "Bd", 1, be));
    if (has(c, 6))
        BASE_TRY(check_f32(c, 6, "B2", 1, bm));
    ir_shape_t y;
    y.rank = 4;
    y.d[0] = x->rank == 4 ? x->d[0] : IR_DIM_UNKNOWN;
    y.d[1] = M >= 0 ? M : IR_DIM_UNKNOWN;
    for (int d = 2; d < 4; d++) {
        int64_t in = x->rank == 4 ? x->d[d] : IR_DIM_UNKNOWN;
        if (!ir_dim_known(in)) {
            y.d[d] = IR_DIM_UNKNOWN;
            continue;
        }
        if (in + 2 * (K1 / 2) < K1)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "spatial dim %d of X (%lld) is smaller "
                                  "than the %lldx%lld expansion kernel", d, (long long)in,
                                  (long long)K1, (long long)K1);
        in = (in + 2 * (K1 / 2) - K1) / s1 + 1; /* the expanded plane */
        if (in + 2 * (K / 2) < K)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "spatial dim %d of the depthwise input "
                                  "(%lld) is smaller than the %lldx%lld kernel", d,
                                  (long long)in, (long long)K, (long long)K);
        y.d[d] = (in + 2 * (K / 2) - K) / s + 1;
    }
    if (has(c, 7)) {
        const ir_type_t *r = &c->in[7];
        if (r->dtype != CAIRN_F32)
            return ir_infer_error(c, CAIRN_ERR_DTYPE, "residual must be f32, got %s",
                                  cairn_dtype_name(r->dtype));
        const int known = ir_shape_is_concrete(&r->shape) && ir_shape_is_concrete(&y);
        if ((known || !c->partial) && !ir_shape_equal(&r->shape, &y))
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "residual must have the output's shape");
    }
    c->out[0].dtype = CAIRN_F32;
    c->out[0].shape = y;
    return CAIRN_OK;
}

static const float *opt(const ktensor_t *in, int n_in, int i)
{
    return i < n_in && in[i].dtype != CAIRN_DTYPE_UNDEFINED ? in[i].data : NULL;
}

cairn_status_t op_fused_mbconv_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    conv_mb_params_t p;
    memset(&p, 0, sizeof p);
    p.N = in[0].shape[0], p.C = in[0].shape[1], p.H = in[0].shape[2], p.W = in[0].shape[3];
    p.E = in[3].shape[0], p.M = out[0].shape[1];
    p.K = (int)ir_attr_i(n, FUSED_MB_KERNEL), p.stride = (int)ir_attr_i(n, FUSED_MB_STRIDE);
    p.K1 = (int)ir_attr_i(n, FUSED_MB_EXPAND_KERNEL);
    p.s1 = (int)ir_attr_i(n, FUSED_MB_EXPAND_STRIDE);
    p.act1 = (gemm_act_t)ir_attr_i(n, FUSED_MB_EXPAND_ACT);
    p.lo1 = ir_attr_f(n, FUSED_MB_EXPAND_CLIP_MIN), p.hi1 = ir_attr_f(n, FUSED_MB_EXPAND_CLIP_MAX);
    p.lo2 = ir_attr_f(n, FUSED_MB_DW_CLIP_MIN), p.hi2 = ir_attr_f(n, FUSED_MB_DW_CLIP_MAX);
    p.act3 = (gemm_act_t)ir_attr_i(n, FUSED_MB_PROJECT_ACT);
    p.lo3 = ir_attr_f(n, FUSED_MB_PROJECT_CLIP_MIN);
    p.hi3 = ir_attr_f(n, FUSED_MB_PROJECT_CLIP_MAX);
    p.post3 = (gemm_act_t)ir_attr_i(n, FUSED_MB_POST_ACT);
    p.plo3 = ir_attr_f(n, FUSED_MB_POST_CLIP_MIN), p.phi3 = ir_attr_f(n, FUSED_MB_POST_CLIP_MAX);
    BASE_TRY(conv_mb_check(&p));
    if (p.OH != out[0].shape[2] || p.OW != out[0].shape[3])
        return base_error(CAIRN_ERR_SHAPE, "FusedMBConv %s: output %lldx%lld, expected %lldx%lld",
                          n->name ? n->name : "", (long long)out[0].shape[2],
                          (long long)out[0].shape[3], (long long)p.OH, (long long)p.OW);
    if (ir_attr_i(n, FUSED_MB_PACKED))
        return conv_mb_f32(k, &p, in[0].data, in[1].data, opt(in, n_in, 2), in[3].data,
                           opt(in, n_in, 4), in[5].data, opt(in, n_in, 6), opt(in, n_in, 7),
                           out[0].data);
    /* plain weights (the prepack pass did not run): packed for this call,
     * into scratch */
    const int64_t ck = p.C * p.K1 * p.K1; /* W1's columns */
    const size_t s1 = conv_mb_packed_size(p.E, ck), s2 = conv_mb_packed_size(p.M, p.E);
    int slot;
    char *w = base_scratch_get(base_round_up(s1, BASE_ALIGN) + s2, &slot);
    if (!w)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "FusedMBConv: no memory to pack the weights");
    void *w1 = w, *w2 = w + base_round_up(s1, BASE_ALIGN);
    cairn_status_t st = conv_mb_pack(p.E, ck, in[1].data, w1, s1);
    if (st == CAIRN_OK)
        st = conv_mb_pack(p.M, p.E, in[5].data, w2, s2);
    if (st == CAIRN_OK)
        st = conv_mb_f32(k, &p, in[0].data, w1, opt(in, n_in, 2), in[3].data, opt(in, n_in, 4),
                         w2, opt(in, n_in, 6), opt(in, n_in, 7), out[0].data);
    base_scratch_put(w, slot);
    return st;
}

void op_fused_mbconv_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                          const ktensor_t *out, int n_out, ir_cost_t *cost)
{
    (void)n_out;
    const double N = (double)in[0].shape[0], C = (double)in[0].shape[1];
    const double E = (double)in[3].shape[0], taps = (double)in[3].shape[2] * in[3].shape[3];
    const double M = (double)out[0].shape[1], OHW = (double)out[0].shape[2] * out[0].shape[3];
    /* the expanded plane: X's, or the stem form's strided one */
    const int64_t K1 = ir_attr_i(n, FUSED_MB_EXPAND_KERNEL);
    const int64_t s1 = ir_attr_i(n, FUSED_MB_EXPAND_STRIDE);
    const double EHW = (double)((in[0].shape[2] + 2 * (K1 / 2) - K1) / s1 + 1) *
                       (double)((in[0].shape[3] + 2 * (K1 / 2) - K1) / s1 + 1);
    cost->flops = 2.0 * N * (EHW * C * (double)(K1 * K1) * E + OHW * E * taps + OHW * E * M) +
                  N * (EHW * E + OHW * E + OHW * M);
    double b = 0;
    for (int i = 0; i < n_in; i++)
        if (in[i].dtype != CAIRN_DTYPE_UNDEFINED)
            b += (double)kt_numel(&in[i]) * (double)cairn_dtype_size(in[i].dtype);
    cost->bytes = b + (double)kt_numel(&out[0]) * 4.0;
}
