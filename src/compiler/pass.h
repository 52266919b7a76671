/*
 * The compiler: passes that rewrite a session's private copy of the graph
 * before it is planned.
 *
 * Every pass has the same shape, pass_X(graph, ctx): it rewrites the graph
 * in place and leaves it valid (topological order, every value produced
 * before use, graph outputs kept with their names and ids reordered only by
 * compaction). A pass that finds nothing to do leaves the graph unchanged.
 * Fused nodes list every source-model node they absorbed in ir_node_t
 * sources, so profiles and `cairn run --explain` can name them all.
 *
 * pipeline.c orders the passes; the session runs the pipeline once, at
 * creation, on its clone of the user's graph. The environment variable
 * CAIRN_PASSES selects them: unset or "all" runs the default pipeline,
 * "none" runs nothing, or a comma-separated list of pass names runs those
 * (in pipeline order).
 */
#ifndef CAIRN_COMPILER_PASS_H
#define CAIRN_COMPILER_PASS_H

#include "ir/ir.h"
#include "kernels/ktensor.h"

#include <stdio.h>

typedef struct pass_ctx {
    const kctx_t *k; /* threads for kernels run at compile time (folding); may be NULL */
} pass_ctx_t;

typedef cairn_status_t (*pass_fn)(ir_graph_t *g, const pass_ctx_t *c);

/* QDQ (statically quantised) models: MatMul of two DequantizeLinear (an
 * 8-bit activation, constant 8-bit weights) becomes one FusedMatMulInteger,
 * QuantizeLinear -> DequantizeLinear pairs one FusedElementwise [qdq]
 * (fuse_qdq.c). Runs first, before fold. */
cairn_status_t pass_fuse_qdq(ir_graph_t *g, const pass_ctx_t *c);
/* Constant folding: nodes whose inputs are all constants (and Shape/Size
 * of a value whose shape is static) are run now and become constants. */
cairn_status_t pass_fold(ir_graph_t *g, const pass_ctx_t *c);
/* Dead-code elimination: nodes none of whose outputs reach a graph output
 * are removed, then values nothing refers to. */
cairn_status_t pass_dce(ir_graph_t *g, const pass_ctx_t *c);
/* Canonicalisation of exported patterns: decomposed LayerNorm ->
 * LayerNormalization, erf/tanh GELU chains -> Gelu, decomposed RMSNorm ->
 * RMSNormalization, x * Sigmoid(x) -> Swish (SiLU). */
cairn_status_t pass_canonicalize(ir_graph_t *g, const pass_ctx_t *c);
/* BatchNormalization folding: Conv(X, const W, [const B]) -> inference
 * BatchNormalization with constant parameters becomes Conv(X, W', B'). */
cairn_status_t pass_fold_bn(ir_graph_t *g, const pass_ctx_t *c);
/* Conv epilogue fusion: Conv -> [Relu|Sigmoid|Clip] -> [Add residual]
 * becomes one FusedConv. */
cairn_status_t pass_fuse_conv(ir_graph_t *g, const pass_ctx_t *c);
/* Inverted-residual fusion: 1x1 expansion -> depthwise -> 1x1 projection
 * Conv / FusedConv chains become one FusedMBConv (fuse_mbconv.c). */
cairn_status_t pass_fuse_mbconv(ir_graph_t *g, const pass_ctx_t *c);
/* Attention fusion: MatMul(Q, K^T) -> [scale] -> [Add mask | causal Where]
 * -> Softmax -> MatMul(., V), with the transposes around it, becomes one
 * FusedAttention (fuse_attention.c). */
cairn_status_t pass_fuse_attention(ir_graph_t *g, const pass_ctx_t *c);
/* GEMM epilogue fusion: MatMul(X, const W) -> [Add bias] -> [activation]
 * -> [Add residual] becomes one FusedMatMul. */
cairn_status_t pass_fuse_gemm(ir_graph_t *g, const pass_ctx_t *c);
/* Elementwise fusion: trees of f32 elementwise nodes (Add, Mul, Sigmoid,
 * Clip, ...) whose intermediates have no other reader become one
 * FusedElementwise, one pass over memory (fuse_eltwise.c). */
cairn_status_t pass_fuse_eltwise(ir_graph_t *g, const pass_ctx_t *c);
/* Weight pre-packing: FusedMatMul / MatMul with a constant 2-D f32 B get B
 * packed for the GEMM micro-kernels once, now. */
cairn_status_t pass_prepack(ir_graph_t *g, const pass_ctx_t *c);
/* Constant placement: the constants the nodes read, moved into one
 * mapping on 2 MiB pages in the order the nodes first read them (place.c).
 * Runs last. */
cairn_status_t pass_place(ir_graph_t *g, const pass_ctx_t *c);
/* pass_place's work on graphs whose movable constants come to at least
 * min_bytes (the pass: 2 MiB; tests give less). */
cairn_status_t compiler_place_constants(ir_graph_t *g, size_t min_bytes);

typedef struct pass_def {
    const char *name;
    pass_fn fn;
} pass_def_t;

/* The pipeline's passes in order (a pass may appear more than once). */
const pass_def_t *compiler_pipeline(int *n);
/* The pass named `name`, or NULL. */
const pass_def_t *compiler_find_pass(const char *name);

/* Runs the passes `passes` selects (NULL: the CAIRN_PASSES variable, else
 * all; "all"; "none"; or a comma-separated list of names, run in pipeline
 * order). After each pass named dump_after (if not NULL), the graph is
 * printed (ir_print) to dump. An unknown pass name is an error. */
cairn_status_t compiler_run(ir_graph_t *g, const pass_ctx_t *c, const char *passes,
                            const char *dump_after, FILE *dump);

#endif
