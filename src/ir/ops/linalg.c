/*
 * linalg ops: MatMul, Gemm, Conv, ConvTranspose (ONNX opset 17).
 *
 * Inference, exec adapters and costs. The adapters turn node attributes and
 * tensor shapes into the explicit parameters of the reference kernels in
 * src/kernels/gemm and src/kernels/conv. Conv and ConvTranspose share one
 * geometry routine (linalg_conv_geom) for inference and exec, so the shape
 * a plan allocates is exactly the one the kernel writes.
 */
#include "base/dtype.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/conv/conv.h"
#include "kernels/gemm/gemm.h"

#include <stdio.h>
#include <string.h>

cairn_status_t op_linalg_matmul_infer(ir_infer_ctx_t *c);
cairn_status_t op_linalg_matmul_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_linalg_matmul_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                           const ktensor_t *out, int n_out, ir_cost_t *cost);
cairn_status_t op_linalg_gemm_infer(ir_infer_ctx_t *c);
cairn_status_t op_linalg_gemm_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_linalg_gemm_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost);
cairn_status_t op_linalg_conv_infer(ir_infer_ctx_t *c);
cairn_status_t op_linalg_conv_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_linalg_conv_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost);
size_t op_linalg_conv_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                                const ktensor_t *out, int n_out);

/* Gemm attribute slots, in schema order. */
enum { GEMM_ALPHA, GEMM_BETA, GEMM_TRANSA, GEMM_TRANSB };
const ir_attr_def_t op_linalg_gemm_attrs[] = {
    IR_ATTR_FLOAT("alpha", 1.0f), IR_ATTR_FLOAT("beta", 1.0f), IR_ATTR_INT("transA", 0),
    IR_ATTR_INT("transB", 0), IR_ATTR_END};

/* Conv and ConvTranspose share the first six slots. */
enum {
    CONV_AUTO_PAD,
    CONV_DILATIONS,
    CONV_GROUP,
    CONV_KERNEL_SHAPE,
    CONV_PADS,
    CONV_STRIDES,
    CONVT_OUTPUT_PADDING,
    CONVT_OUTPUT_SHAPE
};
const ir_attr_def_t op_linalg_conv_attrs[] = {
    IR_ATTR_STRING("auto_pad", "NOTSET"), IR_ATTR_INTS("dilations"), IR_ATTR_INT("group", 1),
    IR_ATTR_INTS("kernel_shape"), IR_ATTR_INTS("pads"), IR_ATTR_INTS("strides"), IR_ATTR_END};
/* FusedConv (fused.def, made by the fuse_conv pass): Conv's six slots, then
 * the epilogue (FUSED_CONV_* in ir/ops/fused.h). */
const ir_attr_def_t op_linalg_fusedconv_attrs[] = {
    IR_ATTR_STRING("auto_pad", "NOTSET"), IR_ATTR_INTS("dilations"), IR_ATTR_INT("group", 1),
    IR_ATTR_INTS("kernel_shape"), IR_ATTR_INTS("pads"), IR_ATTR_INTS("strides"),
    IR_ATTR_INT("activation", 0), IR_ATTR_FLOAT("clip_min", -3.402823466e38f),
    IR_ATTR_FLOAT("clip_max", 3.402823466e38f), IR_ATTR_INT("post_activation", 0),
    IR_ATTR_FLOAT("post_clip_min", -3.402823466e38f),
    IR_ATTR_FLOAT("post_clip_max", 3.402823466e38f), IR_ATTR_INT("packed", 0),
    IR_ATTR_INTS("w_shape"), IR_ATTR_END};
const ir_attr_def_t op_linalg_convt_attrs[] = {
    IR_ATTR_STRING("auto_pad", "NOTSET"), IR_ATTR_INTS("dilations"), IR_ATTR_INT("group", 1),
    IR_ATTR_INTS("kernel_shape"), IR_ATTR_INTS("pads"), IR_ATTR_INTS("strides"),
    IR_ATTR_INTS("output_padding"), IR_ATTR_INTS("output_shape"), IR_ATTR_END};

static const cairn_dtype_t linalg_mm_dtypes[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                                 CAIRN_I32, CAIRN_I64, CAIRN_DTYPE_UNDEFINED};

static int present(const ir_infer_ctx_t *c, int i)
{
    return i < c->n_in && c->in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}

static void shape_of(const ktensor_t *t, ir_shape_t *s)
{
    s->rank = t->rank;
    for (int i = 0; i < t->rank; i++)
        s->d[i] = t->shape[i];
}

static double tensor_bytes(const ktensor_t *t)
{
    if (t->dtype == CAIRN_DTYPE_UNDEFINED)
        return 0;
    return (double)kt_numel(t) * (double)cairn_dtype_size(t->dtype);
}

static double all_bytes(const ktensor_t *in, int n_in, const ktensor_t *out, int n_out)
{
    double b = 0;
    for (int i = 0; i < n_in; i++)
        b += tensor_bytes(&in[i]);
    for (int i = 0; i < n_out; i++)
        b += tensor_bytes(&out[i]);
    return b;
}

/* ================================ MatMul ================================ */

cairn_status_t op_linalg_matmul_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, linalg_mm_dtypes));
    BASE_TRY(ir_infer_same_dtype(c, 0, 1));
    const ir_shape_t *a = &c->in[0].shape, *b = &c->in[1].shape;
    cairn_dtype_t t = c->in[0].dtype;
    if (a->rank == 0 || b->rank == 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "MatMul needs operands of rank >= 1, got ranks %d and %d (use Mul "
                              "to scale by a scalar)",
                              a->rank, b->rank);
    if (a->rank < 0 || b->rank < 0) {
        ir_infer_unknown(c, 0, t, -1);
        return CAIRN_OK;
    }
    int ra = a->rank, rb = b->rank;
    int64_t ka = a->d[ra - 1], kb = rb >= 2 ? b->d[rb - 2] : b->d[0];
    if (ir_dim_known(ka) && ir_dim_known(kb) && ka != kb) {
        char sa[128], sb[128];
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "inner dimensions differ: A %s has K = %lld (its last dim) but B %s "
                              "has K = %lld (its %s dim)",
                              ir_shape_str(c->graph, a, sa, sizeof sa), (long long)ka,
                              ir_shape_str(c->graph, b, sb, sizeof sb), (long long)kb,
                              rb >= 2 ? "second-to-last" : "only");
    }
    ir_shape_t ba = {ra > 2 ? ra - 2 : 0, {0}}, bb = {rb > 2 ? rb - 2 : 0, {0}}, o;
    for (int i = 0; i < ba.rank; i++)
        ba.d[i] = a->d[i];
    for (int i = 0; i < bb.rank; i++)
        bb.d[i] = b->d[i];
    cairn_status_t s = ir_shape_broadcast(&ba, &bb, &o);
    if (s != CAIRN_OK)
        return base_error_prefix(s, "batch dimensions of A and B do not broadcast: ");
    if (ra >= 2)
        o.d[o.rank++] = a->d[ra - 2];
    if (rb >= 2)
        o.d[o.rank++] = b->d[rb - 1];
    c->out[0].dtype = t;
    c->out[0].shape = o;
    return CAIRN_OK;
}

/* Fills matmul params from concrete A and B shapes (1-D operands promoted). */
static void matmul_params(const ktensor_t *A, const ktensor_t *B, matmul_params_t *p)
{
    int ra = A->rank, rb = B->rank;
    int na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0;
    int br = na > nb ? na : nb;
    memset(p, 0, sizeof *p);
    p->K = A->shape[ra - 1];
    p->M = ra >= 2 ? A->shape[ra - 2] : 1;
    p->N = rb >= 2 ? B->shape[rb - 1] : 1;
    p->batch_rank = br;
    int64_t sa = p->M * p->K, sb = p->K * p->N; /* stride of the innermost batch dim */
    for (int d = br - 1; d >= 0; d--) {
        int ja = d - (br - na), jb = d - (br - nb);
        int64_t da = ja >= 0 ? A->shape[ja] : 1, db = jb >= 0 ? B->shape[jb] : 1;
        p->batch[d] = da > db ? da : db;
        if (da == 0 || db == 0)
            p->batch[d] = 0;
        p->a_stride[d] = da == 1 ? 0 : sa;
        p->b_stride[d] = db == 1 ? 0 : sb;
        sa *= da;
        sb *= db;
    }
}

/* f32 MatMul on the optimised GEMM: batch dims that are laid out as one
 * (contiguous in both operands, or broadcast in both) are merged, the
 * innermost remaining one runs as a strided batch and the outer ones loop. */
static void linalg_matmul_f32(const kctx_t *k, const matmul_params_t *p0, const float *A,
                              const float *B, float *Y)
{
    matmul_params_t p = *p0;
    int64_t total = 1;
    for (int d = 0; d < p.batch_rank; d++)
        total *= p.batch[d];
    if (total == 0 || p.M == 0 || p.N == 0)
        return;
    /* drop size-1 dims, then merge d into d+1 where the strides allow */
    int r = 0;
    for (int d = 0; d < p.batch_rank; d++) {
        if (p.batch[d] == 1)
            continue;
        if (r > 0 && p.a_stride[r - 1] == p.a_stride[d] * p.batch[d] &&
            p.b_stride[r - 1] == p.b_stride[d] * p.batch[d]) {
            p.batch[r - 1] *= p.batch[d];
            p.a_stride[r - 1] = p.a_stride[d];
            p.b_stride[r - 1] = p.b_stride[d];
            continue;
        }
        p.batch[r] = p.batch[d];
        p.a_stride[r] = p.a_stride[d];
        p.b_stride[r] = p.b_stride[d];
        r++;
    }
    p.batch_rank = r;
    int64_t inner = r ? p.batch[r - 1] : 1, outer = total / inner;
    int64_t sa = r ? p.a_stride[r - 1] : 0, sb = r ? p.b_stride[r - 1] : 0;
    for (int64_t o = 0; o < outer; o++) {
        int64_t aoff = 0, boff = 0, rem = o;
        for (int d = r - 2; d >= 0; d--) {
            int64_t idx = rem % p.batch[d];
            rem /= p.batch[d];
            aoff += idx * p.a_stride[d];
            boff += idx * p.b_stride[d];
        }
        gemm_f32_batched(k, 0, 0, p.M, p.N, p.K, 1.0f, A + aoff, p.K, sa, B + boff, p.N, sb, 0.0f,
                         Y + o * inner * p.M * p.N, p.N, p.M * p.N, inner, NULL, 0);
    }
}

cairn_status_t op_linalg_matmul_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n, (void)n_in, (void)n_out, (void)ws;
    matmul_params_t p;
    matmul_params(&in[0], &in[1], &p);
    if (in[0].dtype == CAIRN_F32) {
        linalg_matmul_f32(k, &p, in[0].data, in[1].data, out[0].data);
        return CAIRN_OK;
    }
    return matmul_ref(k, in[0].dtype, &p, in[0].data, in[1].data, out[0].data);
}

void op_linalg_matmul_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                           const ktensor_t *out, int n_out, ir_cost_t *cost)
{
    (void)n;
    /* numel(Y) = batch*M*N */
    cost->flops = 2.0 * (double)kt_numel(&out[0]) * (double)in[0].shape[in[0].rank - 1];
    cost->bytes = all_bytes(in, n_in, out, n_out);
}

/* ================================= Gemm ================================= */

cairn_status_t op_linalg_gemm_infer(ir_infer_ctx_t *c)
{
    const ir_node_t *n = c->node;
    BASE_TRY(ir_infer_check_dtype(c, 0, linalg_mm_dtypes));
    BASE_TRY(ir_infer_same_dtype(c, 0, 1));
    int has_c = present(c, 2);
    if (has_c)
        BASE_TRY(ir_infer_same_dtype(c, 0, 2));
    int64_t ta = ir_attr_i(n, GEMM_TRANSA), tb = ir_attr_i(n, GEMM_TRANSB);
    if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "transA and transB must be 0 or 1, got %lld and %lld",
                              (long long)ta, (long long)tb);
    const ir_shape_t *a = &c->in[0].shape, *b = &c->in[1].shape;
    for (int i = 0; i < 2; i++) {
        int r = c->in[i].shape.rank;
        if (r >= 0 && r != 2)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "input %s must be a matrix (rank 2), got rank %d",
                                  i ? "B" : "A", r);
    }
    if (has_c && c->in[2].shape.rank > 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "C must have rank <= 2 (it broadcasts to (M, N)), got rank %d",
                              c->in[2].shape.rank);
    int64_t M = a->rank == 2 ? a->d[ta ? 1 : 0] : IR_DIM_UNKNOWN;
    int64_t Ka = a->rank == 2 ? a->d[ta ? 0 : 1] : IR_DIM_UNKNOWN;
    int64_t Kb = b->rank == 2 ? b->d[tb ? 1 : 0] : IR_DIM_UNKNOWN;
    int64_t N = b->rank == 2 ? b->d[tb ? 0 : 1] : IR_DIM_UNKNOWN;
    if (ir_dim_known(Ka) && ir_dim_known(Kb) && Ka != Kb) {
        char sa[128], sb[128];
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "inner dimensions differ: op(A) from A %s (transA=%lld) has K = %lld, "
                              "op(B) from B %s (transB=%lld) has K = %lld",
                              ir_shape_str(c->graph, a, sa, sizeof sa), (long long)ta,
                              (long long)Ka, ir_shape_str(c->graph, b, sb, sizeof sb),
                              (long long)tb, (long long)Kb);
    }
    if (has_c && c->in[2].shape.rank >= 0) {
        const ir_shape_t *cs = &c->in[2].shape;
        int64_t want[2] = {M, N};
        for (int i = 0; i < cs->rank; i++) {
            int64_t d = cs->d[i], w = want[2 - cs->rank + i];
            if (ir_dim_known(d) && d != 1 && ir_dim_known(w) && d != w) {
                char sc[128];
                return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                      "C %s does not broadcast to (M, N) = (%lld, %lld): its dim "
                                      "%d is %lld, not 1 or %lld",
                                      ir_shape_str(c->graph, cs, sc, sizeof sc), (long long)M,
                                      (long long)N, i, (long long)d, (long long)w);
            }
        }
    }
    c->out[0].dtype = c->in[0].dtype;
    c->out[0].shape.rank = 2;
    c->out[0].shape.d[0] = M;
    c->out[0].shape.d[1] = N;
    return CAIRN_OK;
}

typedef struct gemm_job {
    cairn_dtype_t t;
    int ta, tb;
    int64_t M, N, K, lda, ldb;
    double alpha, beta;
    size_t es;
    const char *A, *B;
    char *Y;
} gemm_job_t;

static void gemm_rows(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const gemm_job_t *j = ctx;
    int64_t i0 = (int64_t)begin;
    const char *a = j->A + (size_t)(j->ta ? i0 : i0 * j->lda) * j->es;
    /* cannot fail: the dtype was checked by inference */
    (void)gemm_ref(j->t, j->ta, j->tb, (int64_t)(end - begin), j->N, j->K, j->alpha, a, j->lda,
                   j->B, j->ldb, j->beta, j->Y + (size_t)(i0 * j->N) * j->es, j->N);
}

cairn_status_t op_linalg_gemm_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    gemm_job_t j;
    j.t = in[0].dtype;
    j.ta = (int)ir_attr_i(n, GEMM_TRANSA);
    j.tb = (int)ir_attr_i(n, GEMM_TRANSB);
    j.M = out[0].shape[0];
    j.N = out[0].shape[1];
    j.K = in[0].shape[j.ta ? 0 : 1];
    j.lda = in[0].shape[1];
    j.ldb = in[1].shape[1];
    j.alpha = ir_attr_f(n, GEMM_ALPHA);
    j.beta = ir_attr_f(n, GEMM_BETA);
    j.es = cairn_dtype_size(j.t);
    j.A = in[0].data;
    j.B = in[1].data;
    j.Y = out[0].data;
    const ktensor_t *C = n_in > 2 && in[2].dtype != CAIRN_DTYPE_UNDEFINED ? &in[2] : NULL;
    if (j.M == 0 || j.N == 0)
        return CAIRN_OK;
    if (j.t == CAIRN_F32 && C && j.beta == 1.0 && C->data != out[0].data) {
        /* C as a fused bias (a row vector per column, a column per row) or
         * a residual matrix: Y is written once, by the GEMM's epilogue */
        int64_t c0 = C->rank == 2 ? C->shape[0] : 1, c1 = C->rank >= 1 ? C->shape[C->rank - 1] : 1;
        gemm_epilogue_t e = {.bias_kind = GEMM_BIAS_NONE, .act = GEMM_ACT_NONE, .scale = 1};
        if (c0 == 1 && c1 == j.N && j.N > 1) {
            e.bias_kind = GEMM_BIAS_COL;
            e.bias = C->data;
        } else if (c0 == j.M && c1 == 1 && j.M > 1) {
            e.bias_kind = GEMM_BIAS_ROW;
            e.bias = C->data;
        } else if (c0 == j.M && c1 == j.N) {
            e.residual = C->data;
            e.ldr = j.N;
        }
        if (e.bias || e.residual) {
            gemm_f32_ex(k, j.ta, j.tb, j.M, j.N, j.K, (float)j.alpha, (const float *)j.A, j.lda,
                        (const float *)j.B, j.ldb, 0.0f, (float *)j.Y, j.N, &e);
            return CAIRN_OK;
        }
    }
    if (C && j.beta != 0) {
        /* Y starts as C broadcast to (M, N); the kernel then does Y = alpha*AB + beta*Y */
        int64_t si = C->rank == 2 && C->shape[0] != 1 ? C->shape[1] : 0;
        int64_t sj = C->rank >= 1 && C->shape[C->rank - 1] != 1 ? 1 : 0;
        for (int64_t i = 0; i < j.M; i++)
            for (int64_t jj = 0; jj < j.N; jj++)
                memcpy(j.Y + (size_t)(i * j.N + jj) * j.es,
                       (const char *)C->data + (size_t)(i * si + jj * sj) * j.es, j.es);
    } else {
        j.beta = 0; /* no C: Y is not read */
    }
    if (j.t == CAIRN_F32) {
        gemm_f32(k, j.ta, j.tb, j.M, j.N, j.K, (float)j.alpha, (const float *)j.A, j.lda,
                 (const float *)j.B, j.ldb, (float)j.beta, (float *)j.Y, j.N);
        return CAIRN_OK;
    }
    int64_t work = j.N * (j.K > 0 ? j.K : 1);
    base_pool_t *pool = k ? k->pool : NULL;
    int threads = k && k->pool ? k->threads : 1;
    if (threads <= 1 || j.M * work < 2 * 65536)
        pool = NULL;
    int64_t grain = (65536 + work - 1) / work, even = (j.M + threads - 1) / threads;
    if (grain > even)
        grain = even;
    if (grain < 1)
        grain = 1;
    base_pool_parallel_for_1d(pool, (size_t)j.M, (size_t)grain, gemm_rows, &j);
    return CAIRN_OK;
}

void op_linalg_gemm_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost)
{
    int ta = (int)ir_attr_i(n, GEMM_TRANSA);
    double mn = (double)kt_numel(&out[0]), K = (double)in[0].shape[ta ? 0 : 1];
    int has_c = n_in > 2 && in[2].dtype != CAIRN_DTYPE_UNDEFINED;
    cost->flops = 2.0 * mn * K + (has_c ? 2.0 * mn : 0.0);
    cost->bytes = all_bytes(in, n_in, out, n_out);
}

/* ========================= Conv / ConvTranspose ========================= */

enum { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID };

/* Reads an INTS attribute that must have `want` entries (or `alt` if > 0),
 * each >= lo. *v is NULL when the attribute is absent. */
static cairn_status_t conv_ints(const ir_node_t *n, int slot, const char *name, size_t want,
                                size_t alt, int64_t lo, const int64_t **v, size_t *cnt)
{
    *v = ir_attr_ints(n, slot, cnt);
    if (!*v || *cnt == 0) {
        *v = NULL;
        return CAIRN_OK;
    }
    if (*cnt != want && (alt == 0 || *cnt != alt)) {
        if (alt)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "%s has %zu entries; it needs %zu or %zu (one per spatial dim%s)",
                              name, *cnt, want, alt, " or one per dim");
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s has %zu entries; with %zu spatial dims it needs %zu", name, *cnt,
                          want / (strcmp(name, "pads") == 0 ? 2 : 1), want);
    }
    for (size_t i = 0; i < *cnt; i++)
        if ((*v)[i] < lo)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s[%zu] is %lld; it must be >= %lld",
                              name, i, (long long)(*v)[i], (long long)lo);
    return CAIRN_OK;
}

/* Resolves the geometry of a Conv/ConvTranspose node from the shapes of X
 * and W (dims may be unknown in partial mode): the output shape y (rank -1
 * when even the rank is unknown) and, when every dim is known, the kernel
 * parameters kp (spatial dims right-aligned in the 3-entry arrays). */
static cairn_status_t linalg_conv_geom(const ir_node_t *n, const ir_shape_t *x, const ir_shape_t *w,
                                       ir_shape_t *y, conv_params_t *kp)
{
    const int tr = n->op == IR_OP_ConvTranspose;
    int rank = x->rank >= 0 ? x->rank : w->rank;
    size_t cnt;
    if (rank < 0) {
        const int64_t *ks = ir_attr_ints(n, CONV_KERNEL_SHAPE, &cnt);
        rank = ks && cnt ? (int)cnt + 2 : -1;
    }
    if (rank < 0) {
        y->rank = -1;
        return CAIRN_OK;
    }
    if (rank < 3 || rank > 2 + CONV_SP) {
        cairn_status_t s = rank < 3 ? CAIRN_ERR_SHAPE : CAIRN_ERR_UNSUPPORTED;
        return base_error(s, "X must be (N, C, spatial...) with 1 to 3 spatial dims, got rank %d",
                          rank);
    }
    if (w->rank >= 0 && w->rank != rank)
        return base_error(CAIRN_ERR_SHAPE,
                          "W must have rank %d (like X: (%s, kernel...)), got rank %d", rank,
                          tr ? "C, M/group" : "M, C/group", w->rank);
    const int nsp = rank - 2, off = CONV_SP - nsp;

    const char *ap = ir_attr_s(n, CONV_AUTO_PAD);
    int auto_pad;
    if (!ap || strcmp(ap, "NOTSET") == 0)
        auto_pad = PAD_NOTSET;
    else if (strcmp(ap, "SAME_UPPER") == 0)
        auto_pad = PAD_SAME_UPPER;
    else if (strcmp(ap, "SAME_LOWER") == 0)
        auto_pad = PAD_SAME_LOWER;
    else if (strcmp(ap, "VALID") == 0)
        auto_pad = PAD_VALID;
    else
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "auto_pad is '%s'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID",
                          ap);
    int64_t group = ir_attr_i(n, CONV_GROUP);
    if (group < 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "group is %lld; it must be >= 1",
                          (long long)group);
    const int64_t *dil, *pads, *ks, *st, *opad = NULL, *oshape = NULL;
    BASE_TRY(conv_ints(n, CONV_DILATIONS, "dilations", (size_t)nsp, 0, 1, &dil, &cnt));
    BASE_TRY(conv_ints(n, CONV_PADS, "pads", 2 * (size_t)nsp, 0, 0, &pads, &cnt));
    BASE_TRY(conv_ints(n, CONV_KERNEL_SHAPE, "kernel_shape", (size_t)nsp, 0, 1, &ks, &cnt));
    BASE_TRY(conv_ints(n, CONV_STRIDES, "strides", (size_t)nsp, 0, 1, &st, &cnt));
    size_t oscnt = 0;
    if (tr) {
        BASE_TRY(conv_ints(n, CONVT_OUTPUT_PADDING, "output_padding", (size_t)nsp, 0, 0, &opad,
                           &cnt));
        BASE_TRY(conv_ints(n, CONVT_OUTPUT_SHAPE, "output_shape", (size_t)nsp, (size_t)nsp + 2, 0,
                           &oshape, &oscnt));
    }
    if (pads && auto_pad != PAD_NOTSET)
        for (int i = 0; i < 2 * nsp; i++)
            if (pads[i] != 0)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "pads are given with auto_pad = %s; use one or the other "
                                  "(auto_pad NOTSET with explicit pads)",
                                  ap);

    /* channels: Conv W is (M, C/group, k...), ConvTranspose W is (C, M/group, k...) */
    int64_t N = x->rank >= 0 ? x->d[0] : IR_DIM_UNKNOWN;
    int64_t C = x->rank >= 0 ? x->d[1] : IR_DIM_UNKNOWN;
    int64_t w0 = w->rank >= 0 ? w->d[0] : IR_DIM_UNKNOWN;
    int64_t w1 = w->rank >= 0 ? w->d[1] : IR_DIM_UNKNOWN;
    int64_t M;
    if (ir_dim_known(C) && C % group)
        return base_error(CAIRN_ERR_SHAPE,
                          "X has %lld channels, not divisible by group = %lld", (long long)C,
                          (long long)group);
    if (!tr) {
        if (ir_dim_known(C) && ir_dim_known(w1) && C != w1 * group)
            return base_error(CAIRN_ERR_SHAPE,
                              "X has %lld channels but W (M, C/group, ...) expects C/group = %lld "
                              "with group = %lld, i.e. %lld channels",
                              (long long)C, (long long)w1, (long long)group,
                              (long long)(w1 * group));
        if (ir_dim_known(w0) && w0 % group)
            return base_error(CAIRN_ERR_SHAPE,
                              "W has %lld output channels (dim 0), not divisible by group = %lld",
                              (long long)w0, (long long)group);
        M = w0;
    } else {
        if (ir_dim_known(C) && ir_dim_known(w0) && C != w0)
            return base_error(CAIRN_ERR_SHAPE,
                              "X has %lld channels but W (C, M/group, ...) has %lld in dim 0",
                              (long long)C, (long long)w0);
        if (ir_dim_known(w0) && w0 % group)
            return base_error(CAIRN_ERR_SHAPE,
                              "W has %lld input channels (dim 0), not divisible by group = %lld",
                              (long long)w0, (long long)group);
        M = ir_dim_known(w1) ? w1 * group : IR_DIM_UNKNOWN;
    }

    y->rank = rank;
    y->d[0] = N;
    y->d[1] = M;
    memset(kp, 0, sizeof *kp);
    kp->N = N;
    kp->C = C;
    kp->M = M;
    kp->group = group;
    for (int d = 0; d < CONV_SP; d++) {
        kp->in[d] = kp->out[d] = kp->kernel[d] = kp->stride[d] = kp->dilation[d] = 1;
        kp->pad[d] = 0;
    }
    for (int i = 0; i < nsp; i++) {
        int64_t in = x->rank >= 0 ? x->d[2 + i] : IR_DIM_UNKNOWN;
        int64_t wk = w->rank >= 0 ? w->d[2 + i] : IR_DIM_UNKNOWN;
        if (ks && ir_dim_known(wk) && ks[i] != wk)
            return base_error(CAIRN_ERR_SHAPE,
                              "kernel_shape[%d] = %lld but W's spatial dim %d is %lld", i,
                              (long long)ks[i], i, (long long)wk);
        int64_t k = ks ? ks[i] : wk;
        if (k == 0)
            return base_error(CAIRN_ERR_SHAPE, "W's spatial dim %d is 0; kernels need >= 1 tap",
                              i);
        int64_t s = st ? st[i] : 1, dl = dil ? dil[i] : 1, op = opad ? opad[i] : 0;
        int64_t pb = pads ? pads[i] : 0, pe = pads ? pads[nsp + i] : 0, out = IR_DIM_UNKNOWN;
        if (tr && op >= s && op >= dl)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "output_padding[%d] = %lld must be smaller than the stride (%lld) "
                              "or the dilation (%lld)",
                              i, (long long)op, (long long)s, (long long)dl);
        int known = ir_dim_known(in) && ir_dim_known(k);
        int64_t eff = known ? (k - 1) * dl + 1 : 0;
        if (!tr) {
            if (auto_pad == PAD_SAME_UPPER || auto_pad == PAD_SAME_LOWER) {
                if (ir_dim_known(in))
                    out = (in + s - 1) / s;
                if (known) {
                    int64_t total = (out - 1) * s + eff - in;
                    if (total < 0)
                        total = 0;
                    pb = auto_pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
                }
            } else if (known) {
                if (auto_pad == PAD_VALID)
                    pb = pe = 0;
                if (in + pb + pe < eff)
                    return base_error(CAIRN_ERR_SHAPE,
                                      "spatial dim %d: input %lld + pads %lld + %lld is smaller "
                                      "than the dilated kernel %lld; pad more or use a smaller "
                                      "kernel",
                                      i, (long long)in, (long long)pb, (long long)pe,
                                      (long long)eff);
                out = (in + pb + pe - eff) / s + 1;
            }
        } else {
            int64_t want = IR_DIM_UNKNOWN;
            if (oshape)
                want = oshape[oscnt - (size_t)nsp + (size_t)i];
            else if ((auto_pad == PAD_SAME_UPPER || auto_pad == PAD_SAME_LOWER) &&
                     ir_dim_known(in))
                want = in * s;
            if (oshape || auto_pad == PAD_SAME_UPPER || auto_pad == PAD_SAME_LOWER) {
                out = want;
                if (known) {
                    int64_t total = s * (in - 1) + op + eff - out;
                    /* an output_shape larger than the full result pads at the
                     * end (zeros), as onnxruntime and the ONNX tests do */
                    if (total < 0)
                        total = 0;
                    pb = auto_pad == PAD_SAME_UPPER ? total / 2 : total - total / 2;
                }
            } else if (known) {
                if (auto_pad == PAD_VALID)
                    pb = pe = 0;
                out = s * (in - 1) + op + eff - pb - pe;
                if (out < 0)
                    return base_error(CAIRN_ERR_SHAPE,
                                      "spatial dim %d: the output size would be %lld (pads %lld + "
                                      "%lld are larger than the output); reduce the pads",
                                      i, (long long)out, (long long)pb, (long long)pe);
            }
        }
        y->d[2 + i] = out;
        kp->in[off + i] = in;
        kp->out[off + i] = out;
        kp->kernel[off + i] = k;
        kp->stride[off + i] = s;
        kp->dilation[off + i] = dl;
        kp->pad[off + i] = pb;
    }
    return CAIRN_OK;
}

static int conv_w_packed(const ir_node_t *n)
{
    return n->op == IR_OP_FusedConv && ir_attr_i(n, FUSED_CONV_PACKED) != 0;
}

/* W's logical shape: input 1's, or with packed weights the w_shape
 * attribute, checked against the packed buffer (a 1-D u8 of at least
 * conv_f32_packed_w_size bytes) when its size is known. */
static cairn_status_t conv_w_shape(const ir_node_t *n, const ir_shape_t *given, ir_shape_t *w)
{
    if (!conv_w_packed(n)) {
        *w = *given;
        return CAIRN_OK;
    }
    size_t nd = 0;
    const int64_t *ws = ir_attr_ints(n, FUSED_CONV_W_SHAPE, &nd);
    if (!ws || nd < 3 || nd > 5)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "packed weights need w_shape of 3 to 5 dims, got %zu", ws ? nd : 0);
    w->rank = (int)nd;
    int64_t K = 1;
    for (size_t i = 0; i < nd; i++) {
        if (ws[i] < 1 || ws[i] > ((int64_t)1 << 31))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "w_shape[%zu] = %lld is out of range",
                              i, (long long)ws[i]);
        w->d[i] = ws[i];
        if (i)
            K *= ws[i];
    }
    if (given->rank != 1)
        return base_error(CAIRN_ERR_SHAPE, "packed weights must be a 1-D u8 buffer, got rank %d",
                          given->rank);
    /* "packed" 2: the weights were packed as the GEMM's B (conv_f32_pack_w's
     * layout for small planes), 3 and 4: as Winograd's transformed filters
     * for F(4x4, 3x3) and F(2x2, 3x3), else (1) as the GEMM's A */
    const int64_t layout = ir_attr_i(n, FUSED_CONV_PACKED);
    size_t need = layout >= 3   ? conv_wino_packed_size(w->d[0], w->d[1], layout == 3 ? 4 : 2)
                  : layout == 2 ? gemm_f32_packed_b_size(K, w->d[0])
                                : gemm_f32_packed_a_size(w->d[0], K);
    if (ir_dim_known(given->d[0]) && (size_t)given->d[0] < need)
        return base_error(CAIRN_ERR_SHAPE,
                          "packed weights hold %lld bytes but W %lld x %lld needs %zu",
                          (long long)given->d[0], (long long)w->d[0], (long long)K, need);
    return CAIRN_OK;
}

cairn_status_t op_linalg_conv_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    ir_shape_t wsh;
    if (conv_w_packed(c->node)) {
        if (c->in[1].dtype != CAIRN_U8)
            return ir_infer_error(c, CAIRN_ERR_DTYPE, "packed weights must be u8, got %s",
                                  cairn_dtype_name(c->in[1].dtype));
        if (ir_attr_i(c->node, CONV_GROUP) != 1)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "packed weights need group 1, got %lld",
                                  (long long)ir_attr_i(c->node, CONV_GROUP));
    } else {
        BASE_TRY(ir_infer_same_dtype(c, 0, 1));
    }
    cairn_status_t ws = conv_w_shape(c->node, &c->in[1].shape, &wsh);
    if (ws != CAIRN_OK) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s", base_error_message());
        return ir_infer_error(c, ws, "%s", msg);
    }
    conv_params_t kp;
    ir_shape_t y;
    BASE_TRY(linalg_conv_geom(c->node, &c->in[0].shape, &wsh, &y, &kp));
    if (present(c, 2)) {
        BASE_TRY(ir_infer_same_dtype(c, 0, 2));
        const ir_shape_t *b = &c->in[2].shape;
        if (b->rank >= 0 && b->rank != 1)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "bias B must be 1-D (M), got rank %d",
                                  b->rank);
        if (b->rank == 1 && ir_dim_known(b->d[0]) && y.rank >= 0 && ir_dim_known(y.d[1]) &&
            b->d[0] != y.d[1])
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "bias B has %lld entries but there are %lld output channels",
                                  (long long)b->d[0], (long long)y.d[1]);
    }
    c->out[0].dtype = c->in[0].dtype;
    c->out[0].shape = y;
    if (c->node->op == IR_OP_FusedConv) {
        if (c->in[0].dtype != CAIRN_F32)
            return ir_infer_error(c, CAIRN_ERR_DTYPE, "FusedConv runs f32 only, got %s",
                                  cairn_dtype_name(c->in[0].dtype));
        BASE_TRY(op_fused_check_acts(c, FUSED_CONV_ACTIVATION, FUSED_CONV_POST_ACTIVATION));
        if (present(c, 3)) {
            const ir_type_t *res = &c->in[3];
            if (res->dtype != CAIRN_F32)
                return ir_infer_error(c, CAIRN_ERR_DTYPE, "residual must be f32, got %s",
                                      cairn_dtype_name(res->dtype));
            int known = res->shape.rank >= 0 && ir_shape_is_concrete(&res->shape) &&
                        y.rank >= 0 && ir_shape_is_concrete(&y);
            if ((known || !c->partial) && !ir_shape_equal(&res->shape, &y)) {
                char sr[128], so[128];
                return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                      "residual %s must have the output's shape %s",
                                      ir_shape_str(c->graph, &res->shape, sr, sizeof sr),
                                      ir_shape_str(c->graph, &y, so, sizeof so));
            }
        }
    }
    return CAIRN_OK;
}

cairn_status_t op_linalg_conv_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out;
    ir_shape_t xs, wgiven, wsh, y;
    conv_params_t kp;
    shape_of(&in[0], &xs);
    shape_of(&in[1], &wgiven);
    BASE_TRY(conv_w_shape(n, &wgiven, &wsh));
    BASE_TRY(linalg_conv_geom(n, &xs, &wsh, &y, &kp));
    const void *B = n_in > 2 && in[2].dtype != CAIRN_DTYPE_UNDEFINED ? in[2].data : NULL;
    if (kt_numel(&out[0]) == 0)
        return CAIRN_OK;
    if (n->op == IR_OP_ConvTranspose)
        return conv_transpose_ref(k, in[0].dtype, &kp, in[0].data, in[1].data, B, out[0].data);
    conv_post_t post = {.act = GEMM_ACT_NONE, .post_act = GEMM_ACT_NONE};
    if (n->op == IR_OP_FusedConv) {
        post.act = (gemm_act_t)ir_attr_i(n, FUSED_CONV_ACTIVATION);
        post.clip_lo = ir_attr_f(n, FUSED_CONV_CLIP_MIN);
        post.clip_hi = ir_attr_f(n, FUSED_CONV_CLIP_MAX);
        if (n_in > 3 && in[3].dtype != CAIRN_DTYPE_UNDEFINED)
            post.residual = in[3].data;
        post.post_act = (gemm_act_t)ir_attr_i(n, FUSED_CONV_POST_ACTIVATION);
        post.post_lo = ir_attr_f(n, FUSED_CONV_POST_CLIP_MIN);
        post.post_hi = ir_attr_f(n, FUSED_CONV_POST_CLIP_MAX);
    }
    size_t need = in[0].dtype == CAIRN_F32 ? conv_f32_workspace(&kp) : 0;
    if (conv_w_packed(n)) {
        if (need && !ws)
            return base_error(CAIRN_ERR_INTERNAL, "FusedConv %s ran without its workspace",
                              n->name ? n->name : "");
        /* the buffer's layout must be the one its size was checked for */
        static const char kinds[5] = {0, 'A', 'B', 'W', 'W'};
        const int64_t layout = ir_attr_i(n, FUSED_CONV_PACKED);
        if (layout < 1 || layout > 4 || conv_f32_packed_kind(in[1].data) != kinds[layout] ||
            (layout >= 3 && conv_wino_packed_tile(in[1].data) != (layout == 3 ? 4 : 2)))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "FusedConv %s: packed weights are not in the layout \"packed\" = "
                              "%lld names",
                              n->name ? n->name : "", (long long)ir_attr_i(n, FUSED_CONV_PACKED));
        return conv_f32_packed_w(k, &kp, in[0].data, in[1].data, B, &post, out[0].data, ws,
                                 need);
    }
    if (in[0].dtype == CAIRN_F32 && (need == 0 || ws))
        return conv_f32(k, &kp, in[0].data, in[1].data, B, &post, out[0].data, ws, need);
    if (n->op == IR_OP_FusedConv)
        return base_error(CAIRN_ERR_INTERNAL, "FusedConv %s ran without its workspace",
                          n->name ? n->name : "");
    return conv_ref(k, in[0].dtype, &kp, in[0].data, in[1].data, B, out[0].data);
}

/* The kernel geometry of a Conv step whose input shapes are set; 0 (and
 * no error left behind) when they do not resolve. */
static int conv_params_of(const ir_node_t *n, const ktensor_t *in, conv_params_t *kp)
{
    ir_shape_t xs, wgiven, wsh, y;
    shape_of(&in[0], &xs);
    shape_of(&in[1], &wgiven);
    if (conv_w_shape(n, &wgiven, &wsh) != CAIRN_OK ||
        linalg_conv_geom(n, &xs, &wsh, &y, kp) != CAIRN_OK) {
        base_error_clear();
        return 0;
    }
    return 1;
}

const char *op_linalg_conv_packed_path(const ir_node_t *n, const ktensor_t *in)
{
    conv_params_t kp;
    if (ir_attr_i(n, FUSED_CONV_PACKED) == 2) /* the packing conv_f32_pack_w chose */
        return conv_params_of(n, in, &kp) ? conv_f32_packed_path(&kp) : "indirect-A";
    if (ir_attr_i(n, FUSED_CONV_PACKED) == 3)
        return "winograd";
    if (ir_attr_i(n, FUSED_CONV_PACKED) == 4)
        return "winograd 2x2";
    return conv_params_of(n, in, &kp) ? conv_f32_packed_a_path(&kp) : "?";
}

size_t op_linalg_conv_workspace(const ir_node_t *n, const ktensor_t *in, int n_in,
                                const ktensor_t *out, int n_out)
{
    (void)n_in, (void)out, (void)n_out;
    conv_params_t kp;
    if (n->op == IR_OP_ConvTranspose || in[0].dtype != CAIRN_F32 || !conv_params_of(n, in, &kp))
        return 0;
    return conv_f32_workspace(&kp);
}

void op_linalg_conv_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost)
{
    int64_t group = ir_attr_i(n, CONV_GROUP);
    double ksz = 1;
    if (conv_w_packed(n)) {
        size_t nd = 0;
        const int64_t *ws = ir_attr_ints(n, FUSED_CONV_W_SHAPE, &nd);
        for (size_t i = 2; ws && i < nd; i++)
            ksz *= (double)ws[i];
    } else {
        for (int i = 2; i < in[1].rank; i++)
            ksz *= (double)in[1].shape[i];
    }
    /* Conv: every output element reduces over C/group * kernel taps;
     * ConvTranspose: every input element feeds M/group * kernel taps */
    double macs = n->op == IR_OP_ConvTranspose
                      ? (double)kt_numel(&in[0]) * (double)in[1].shape[1] * ksz
                      : (double)kt_numel(&out[0]) * (double)(in[0].shape[1] / (group ? group : 1)) * ksz;
    int has_b = n_in > 2 && in[2].dtype != CAIRN_DTYPE_UNDEFINED;
    cost->flops = 2.0 * macs + (has_b ? (double)kt_numel(&out[0]) : 0.0);
    cost->bytes = all_bytes(in, n_in, out, n_out);
}
