/*
 * Fused ops made by the compiler (src/compiler/): FusedMatMul.
 *
 * FusedMatMul(A, B, [bias], [residual]) is MatMul(A, B) with a constant 2-D
 * B, followed by the GEMM epilogue of src/kernels/gemm: + bias (length N,
 * per column), an activation, * alpha, + residual (the output's shape), a
 * second activation after the residual (post_activation). All
 * the leading dims of A are flattened into M, so it runs as one f32 GEMM.
 * With packed = 1, input 1 is B already packed by gemm_f32_pack_b (a u8
 * buffer) and attributes k and n give its logical K x N shape; each run then
 * skips packing. Only f32: the passes create it for f32 graphs only.
 */
#include "base/dtype.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/gemm/gemm.h"

#include <string.h>

cairn_status_t op_fused_matmul_infer(ir_infer_ctx_t *c);
cairn_status_t op_fused_matmul_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_fused_matmul_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                          const ktensor_t *out, int n_out, ir_cost_t *cost);

/* FusedMatMul's slots (fused.h's FUSED_MM_*); FusedMatMulInteger has them
 * and "requant" after */
#define FUSED_MM_ATTR_DEFS                                                                    \
    IR_ATTR_INT("activation", 0), IR_ATTR_FLOAT("alpha", 1.0f),                               \
        IR_ATTR_FLOAT("clip_min", -3.402823466e38f),                                          \
        IR_ATTR_FLOAT("clip_max", 3.402823466e38f), IR_ATTR_INT("packed", 0),                 \
        IR_ATTR_INT("k", -1), IR_ATTR_INT("n", -1), IR_ATTR_INT("post_activation", 0),        \
        IR_ATTR_FLOAT("post_clip_min", -3.402823466e38f),                                     \
        IR_ATTR_FLOAT("post_clip_max", 3.402823466e38f)
const ir_attr_def_t op_fused_matmul_attrs[] = {FUSED_MM_ATTR_DEFS, IR_ATTR_END};
const ir_attr_def_t op_fused_mmint_attrs[] = {FUSED_MM_ATTR_DEFS, IR_ATTR_INT("requant", 0),
                                              IR_ATTR_END};
#undef FUSED_MM_ATTR_DEFS

static int fused_present(const ir_infer_ctx_t *c, int i)
{
    return i < c->n_in && c->in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}

/* K and N of B: from the attributes when packed, else from B's shape
 * (IR_DIM_UNKNOWN where not known yet). */
static cairn_status_t fused_mm_kn(ir_infer_ctx_t *c, int64_t *K, int64_t *N)
{
    const ir_type_t *b = &c->in[1];
    if (ir_attr_i(c->node, FUSED_MM_PACKED)) {
        *K = ir_attr_i(c->node, FUSED_MM_K);
        *N = ir_attr_i(c->node, FUSED_MM_N);
        if (*K < 0 || *N < 0)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "packed B needs attributes k and n >= 0, got k = %lld, n = %lld",
                                  (long long)*K, (long long)*N);
        if (b->dtype != CAIRN_U8 || b->shape.rank != 1)
            return ir_infer_error(c, CAIRN_ERR_DTYPE,
                                  "packed B must be a 1-D u8 buffer, got %s of rank %d",
                                  cairn_dtype_name(b->dtype), b->shape.rank);
        size_t need = gemm_f32_packed_b_size(*K, *N);
        if (ir_dim_known(b->shape.d[0]) && (size_t)b->shape.d[0] < need)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "packed B holds %lld bytes but a %lld x %lld matrix needs %zu",
                                  (long long)b->shape.d[0], (long long)*K, (long long)*N, need);
        return CAIRN_OK;
    }
    if (b->dtype != CAIRN_F32)
        return ir_infer_error(c, CAIRN_ERR_DTYPE, "B must be f32, got %s",
                              cairn_dtype_name(b->dtype));
    if (b->shape.rank != 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "B must be 2-D (K x N), got rank %d",
                              b->shape.rank);
    *K = b->shape.d[0];
    *N = b->shape.d[1];
    return CAIRN_OK;
}

cairn_status_t op_fused_check_acts(ir_infer_ctx_t *c, int act, int post)
{
    const int slots[2] = {act, post};
    for (int s = 0; s < 2; s++) {
        int64_t a = ir_attr_i(c->node, slots[s]);
        if (a < GEMM_ACT_NONE || a > GEMM_ACT_CLIP)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "%s %lld is not one of 0 (none) to %d (clip)",
                                  s ? "post_activation" : "activation", (long long)a,
                                  (int)GEMM_ACT_CLIP);
    }
    return CAIRN_OK;
}

void op_fused_mm_epilogue(const ir_node_t *n, gemm_epilogue_t *epi)
{
    memset(epi, 0, sizeof *epi);
    epi->scale = ir_attr_f(n, FUSED_MM_ALPHA);
    epi->act = (gemm_act_t)ir_attr_i(n, FUSED_MM_ACTIVATION);
    epi->clip_lo = ir_attr_f(n, FUSED_MM_CLIP_MIN);
    epi->clip_hi = ir_attr_f(n, FUSED_MM_CLIP_MAX);
    epi->post_act = (gemm_act_t)ir_attr_i(n, FUSED_MM_POST_ACTIVATION);
    epi->post_lo = ir_attr_f(n, FUSED_MM_POST_CLIP_MIN);
    epi->post_hi = ir_attr_f(n, FUSED_MM_POST_CLIP_MAX);
}

cairn_status_t op_fused_matmul_infer(ir_infer_ctx_t *c)
{
    const ir_type_t *a = &c->in[0];
    if (a->dtype != CAIRN_F32)
        return ir_infer_error(c, CAIRN_ERR_DTYPE, "A must be f32, got %s",
                              cairn_dtype_name(a->dtype));
    int64_t K = IR_DIM_UNKNOWN, N = IR_DIM_UNKNOWN;
    BASE_TRY(fused_mm_kn(c, &K, &N));
    BASE_TRY(op_fused_check_acts(c, FUSED_MM_ACTIVATION, FUSED_MM_POST_ACTIVATION));
    if (a->shape.rank == 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "A must have rank >= 1, got a scalar");
    if (a->shape.rank < 0) {
        ir_infer_unknown(c, 0, CAIRN_F32, -1);
        return CAIRN_OK;
    }
    int r = a->shape.rank;
    int64_t ka = a->shape.d[r - 1];
    if (ir_dim_known(ka) && ir_dim_known(K) && ka != K) {
        char sa[128];
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "inner dimensions differ: A %s has K = %lld but B is %lld x %lld",
                              ir_shape_str(c->graph, &a->shape, sa, sizeof sa), (long long)ka,
                              (long long)K, (long long)N);
    }
    c->out[0].dtype = CAIRN_F32;
    c->out[0].shape = a->shape;
    c->out[0].shape.d[r - 1] = N;
    if (fused_present(c, 2)) {
        const ir_type_t *bias = &c->in[2];
        int64_t nb = ir_shape_numel(&bias->shape);
        if (bias->dtype != CAIRN_F32)
            return ir_infer_error(c, CAIRN_ERR_DTYPE, "bias must be f32, got %s",
                                  cairn_dtype_name(bias->dtype));
        if (nb >= 0 && ir_dim_known(N) && nb != N)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "bias has %lld elements but N = %lld (one per output column)",
                                  (long long)nb, (long long)N);
    }
    if (fused_present(c, 3)) {
        const ir_type_t *res = &c->in[3];
        if (res->dtype != CAIRN_F32)
            return ir_infer_error(c, CAIRN_ERR_DTYPE, "residual must be f32, got %s",
                                  cairn_dtype_name(res->dtype));
        int known = res->shape.rank >= 0 && ir_shape_is_concrete(&res->shape) &&
                    ir_shape_is_concrete(&c->out[0].shape);
        if ((known || !c->partial) && !ir_shape_equal(&res->shape, &c->out[0].shape)) {
            char sr[128], so[128];
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "residual %s must have the output's shape %s",
                                  ir_shape_str(c->graph, &res->shape, sr, sizeof sr),
                                  ir_shape_str(c->graph, &c->out[0].shape, so, sizeof so));
        }
    }
    return CAIRN_OK;
}

cairn_status_t op_fused_matmul_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                    ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    int packed = (int)ir_attr_i(n, FUSED_MM_PACKED);
    int64_t K = packed ? ir_attr_i(n, FUSED_MM_K) : in[1].shape[0];
    int64_t N = packed ? ir_attr_i(n, FUSED_MM_N) : in[1].shape[1];
    int64_t total = kt_numel(&out[0]);
    if (total == 0)
        return CAIRN_OK;
    int64_t M = total / N;
    gemm_epilogue_t epi;
    op_fused_mm_epilogue(n, &epi);
    if (n_in > 2 && in[2].data) {
        epi.bias_kind = GEMM_BIAS_COL;
        epi.bias = in[2].data;
    }
    if (n_in > 3 && in[3].data) {
        epi.residual = in[3].data;
        epi.ldr = N;
    }
    if (packed)
        return gemm_f32_packed(k, 0, M, N, K, 1.0f, in[0].data, K, in[1].data, 0.0f,
                               out[0].data, N, &epi);
    gemm_f32_ex(k, 0, 0, M, N, K, 1.0f, in[0].data, K, in[1].data, N, 0.0f, out[0].data, N,
                &epi);
    return CAIRN_OK;
}

void op_fused_matmul_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                          const ktensor_t *out, int n_out, ir_cost_t *cost)
{
    int packed = (int)ir_attr_i(n, FUSED_MM_PACKED);
    double K = (double)(packed ? ir_attr_i(n, FUSED_MM_K) : in[1].shape[0]);
    double bytes = 0;
    for (int i = 0; i < n_in; i++)
        if (in[i].dtype != CAIRN_DTYPE_UNDEFINED)
            bytes += (double)kt_numel(&in[i]) * (double)cairn_dtype_size(in[i].dtype);
    for (int o = 0; o < n_out; o++)
        bytes += (double)kt_numel(&out[o]) * (double)cairn_dtype_size(out[o].dtype);
    cost->flops = 2.0 * (double)kt_numel(&out[0]) * K;
    cost->bytes = bytes;
}
