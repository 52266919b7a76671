/*
 * Attribute slots of the fused ops the compiler creates (src/compiler/),
 * shared by the passes that build them and the adapters that run them.
 */
#ifndef CAIRN_IR_OPS_FUSED_H
#define CAIRN_IR_OPS_FUSED_H

#include "cairn.h"

#include <stddef.h>

/* FusedMatMul attribute slots, in schema order. "activation" holds a
 * gemm_act_t (kernels/gemm/gemm.h); "packed" = 1 means input 1 is a u8
 * buffer from gemm_f32_pack_b for a K x N matrix (K, N in "k", "n");
 * "post_activation" (with "post_clip_min", "post_clip_max") is the
 * gemm_act_t applied after the residual add (gemm_epilogue_t.post_act).
 * FusedMatMulInteger has the same slots and "requant" (QLinearMatMul's
 * form: an 8-bit output, no epilogue). */
enum {
    FUSED_MM_ACTIVATION,
    FUSED_MM_ALPHA,
    FUSED_MM_CLIP_MIN,
    FUSED_MM_CLIP_MAX,
    FUSED_MM_PACKED,
    FUSED_MM_K,
    FUSED_MM_N,
    FUSED_MM_POST_ACTIVATION,
    FUSED_MM_POST_CLIP_MIN,
    FUSED_MM_POST_CLIP_MAX,
    FUSED_MM_REQUANT /* FusedMatMulInteger only (op_fused_mmint_attrs) */
};

struct ir_node;
struct ir_infer_ctx;
struct gemm_epilogue;
/* FusedMatMul's epilogue attributes (activation, alpha, clip bounds, the
 * post-activation and its bounds; FusedMatMulInteger has the same slots)
 * into *epi, bias and residual left unset (fused.c). */
void op_fused_mm_epilogue(const struct ir_node *n, struct gemm_epilogue *epi);
/* Checks the activation attributes in slots act and post are gemm_act_t
 * values (FusedMatMul, FusedMatMulInteger, FusedConv): CAIRN_OK, or the
 * infer error naming the bad one. */
cairn_status_t op_fused_check_acts(struct ir_infer_ctx *c, int act, int post);

/* FusedConv attribute slots (schema op_linalg_fusedconv_attrs): Conv's
 * six (auto_pad, dilations, group, kernel_shape, pads, strides), then the
 * epilogue: "activation" a gemm_act_t, clip bounds, then
 * "post_activation" (applied after the residual add) and its clip bounds;
 * "packed" and "w_shape" when the prepack pass replaced W by its packed form
 * ("packed" 1: conv_f32_pack_w packed W as the GEMM's A, 2: as its B, the
 * indirect-A layout it picks for small planes). */
enum {
    FUSED_CONV_ACTIVATION = 6,
    FUSED_CONV_CLIP_MIN,
    FUSED_CONV_CLIP_MAX,
    FUSED_CONV_POST_ACTIVATION,
    FUSED_CONV_POST_CLIP_MIN,
    FUSED_CONV_POST_CLIP_MAX,
    FUSED_CONV_PACKED, /* 1: input 1 is W packed by conv_f32_pack_w (a u8 buffer) */
    FUSED_CONV_W_SHAPE /* then W's shape (M, C, kernel...) */
};
/* FusedAttention attribute slots, in schema order. The perms say where the
 * logical axes are: Transpose(Q, q_perm) is [B, Hq, Sq, D], Transpose(K,
 * k_perm) is [B, Hk, Sk, D], Transpose(V, v_perm) is [B, Hk, Sk, Dv]
 * (absent: identity), and the output is Transpose(O, out_perm) of the
 * logical O [B, Hq, Sq, Dv]. Hk must divide Hq (grouped-query attention).
 * causal = 1 masks key j for query i when j > i + Sk - Sq.
 * q_view / k_view / v_view = [offset, H, D] (absent: none) read that input
 * as a column range of a 3-D [B, S, L] tensor X: the 4-D [B, S, H, D] with
 * element (b, s, h, d) = X[b, s, offset + h*D + d] (the QKV projection's
 * output read in place, without the Split and Reshapes that cut it). */
enum {
    FUSED_ATTN_SCALE,
    FUSED_ATTN_CAUSAL,
    FUSED_ATTN_Q_PERM,
    FUSED_ATTN_K_PERM,
    FUSED_ATTN_V_PERM,
    FUSED_ATTN_OUT_PERM,
    FUSED_ATTN_Q_VIEW,
    FUSED_ATTN_K_VIEW,
    FUSED_ATTN_V_VIEW
};

/* FusedMBConv attribute slots (fused_mbconv.c): the depthwise kernel
 * size and stride, "packed" (1: W1 and W2 are conv_mb_pack's u8 buffers,
 * "channels" = [C, E, M] their sizes), then each stage's epilogue: the
 * expansion's activation (a gemm_act_t) and clip bounds, the depthwise
 * clamp, the projection's activation and clip bounds, and its activation
 * after the residual add; last the expansion's kernel and stride (1 and 1:
 * the 1x1 expansion; more: the stem form, kernels/conv/mbconv.h). */
enum {
    FUSED_MB_KERNEL,
    FUSED_MB_STRIDE,
    FUSED_MB_PACKED,
    FUSED_MB_CHANNELS,
    FUSED_MB_EXPAND_ACT,
    FUSED_MB_EXPAND_CLIP_MIN,
    FUSED_MB_EXPAND_CLIP_MAX,
    FUSED_MB_DW_CLIP_MIN,
    FUSED_MB_DW_CLIP_MAX,
    FUSED_MB_PROJECT_ACT,
    FUSED_MB_PROJECT_CLIP_MIN,
    FUSED_MB_PROJECT_CLIP_MAX,
    FUSED_MB_POST_ACT,
    FUSED_MB_POST_CLIP_MIN,
    FUSED_MB_POST_CLIP_MAX,
    FUSED_MB_EXPAND_KERNEL,
    FUSED_MB_EXPAND_STRIDE
};

/* FusedElementwise attribute slots: "program" (3 ints per instruction:
 * opcode, a, b, as kernels/eltwise/fused.h defines them) and "imms". */
enum { FUSED_ELT_PROGRAM, FUSED_ELT_IMMS, FUSED_ELT_OUT_TYPE };
/* n is a FusedElementwise of one input whose program is the single
 * instruction qdq(r0) (a QuantizeLinear -> DequantizeLinear pair, as
 * fuse_qdq makes it): its four immediates (scale, zero point, low, high);
 * else NULL (fused_eltwise.c). */
const float *op_fused_eltwise_qdq(const struct ir_node *n);

/* The program of a FusedElementwise node, readably ("r2 = mul(r0, r1);
 * r3 = sigmoid(r2)"), for the printer. */
struct ir_node;
void op_fused_eltwise_describe(const struct ir_node *n, char *buf, size_t cap);

/* How a Conv / FusedConv node with packed weights and f32 inputs `in`
 * (shapes set) is computed: conv_f32_packed_path's name, "?" when the
 * shapes do not resolve. */
struct cairn_tensor;
const char *op_linalg_conv_packed_path(const struct ir_node *n, const struct cairn_tensor *in);

#endif
