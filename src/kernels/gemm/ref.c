/*
 * Reference GEMM (every supported dtype) and the batched MatMul driver.
 *
 * One macro stamps out gemm_ref_<t>: for op(B) = B it walks i-k-j over a
 * chunk of the output row held in a small accumulator array, so the inner
 * loop is a contiguous axpy that compilers vectorise and the accumulator
 * stays in L1 however large N is; for op(B) = B^T it takes dot products
 * (then the k loop is the contiguous one for both operands when A is not
 * transposed). The store applies alpha and beta once per element.
 */
#include "kernels/gemm/gemm.h"

#include "base/dtype.h"

#include <string.h>

#define GEMM_CHUNK 256

static inline float ld_f16(uint16_t h) { return base_f16_to_f32(h); }
static inline float ld_bf16(uint16_t h) { return base_bf16_to_f32(h); }

/* Finishing a result: float types compute alpha*acc (+ beta*c). */
#define FIN_FLOAT(ACC, T, LOAD, STORE)                                          \
    static inline void fin_##T(T *c, ACC acc, ACC alpha, ACC beta)              \
    {                                                                           \
        *c = beta == 0 ? STORE(alpha * acc) : STORE(alpha * acc + beta * LOAD(*c)); \
    }

#define ID(x) (x)
typedef uint16_t f16_t;
typedef uint16_t bf16_t;
FIN_FLOAT(float, float, ID, ID)
FIN_FLOAT(double, double, ID, ID)
FIN_FLOAT(float, f16_t, base_f16_to_f32, base_f32_to_f16)

static inline void fin_bf16_t(bf16_t *c, float acc, float alpha, float beta)
{
    *c = beta == 0 ? base_f32_to_bf16(alpha * acc)
                   : base_f32_to_bf16(alpha * acc + beta * base_bf16_to_f32(*c));
}

/* Integers: the accumulator wraps (unsigned arithmetic, no UB); alpha and
 * beta other than 1 and {0,1} go through double. */
static inline void fin_int32_t(int32_t *c, uint32_t acc, float alpha, float beta)
{
    if (alpha == 1.0f && beta == 0.0f)
        *c = (int32_t)acc;
    else if (alpha == 1.0f && beta == 1.0f)
        *c = (int32_t)(acc + (uint32_t)*c);
    else
        *c = (int32_t)(int64_t)((double)alpha * (double)(int32_t)acc + (double)beta * (double)*c);
}

static inline void fin_int64_t(int64_t *c, uint64_t acc, float alpha, float beta)
{
    if (alpha == 1.0f && beta == 0.0f)
        *c = (int64_t)acc;
    else if (alpha == 1.0f && beta == 1.0f)
        *c = (int64_t)(acc + (uint64_t)*c);
    else
        *c = (int64_t)((double)alpha * (double)(int64_t)acc + (double)beta * (double)*c);
}

/* NAME: function; T: element; ACC: accumulator; SC: alpha/beta type;
 * LOAD: element -> ACC. */
#define DEFINE_GEMM(NAME, T, ACC, SC, LOAD)                                                   \
    void NAME(int transA, int transB, int64_t M, int64_t N, int64_t K, SC alpha,              \
              const T *A, int64_t lda, const T *B, int64_t ldb, SC beta, T *C, int64_t ldc)   \
    {                                                                                         \
        for (int64_t i = 0; i < M; i++) {                                                     \
            /* a(i,k) = arow[k * ask] */                                                      \
            const T *arow = transA ? A + i : A + i * lda;                                     \
            const int64_t ask = transA ? lda : 1;                                             \
            T *crow = C + i * ldc;                                                            \
            if (!transB) {                                                                    \
                ACC acc[GEMM_CHUNK];                                                          \
                for (int64_t j0 = 0; j0 < N; j0 += GEMM_CHUNK) {                              \
                    const int64_t nj = N - j0 < GEMM_CHUNK ? N - j0 : GEMM_CHUNK;             \
                    for (int64_t jj = 0; jj < nj; jj++)                                       \
                        acc[jj] = 0;                                                          \
                    for (int64_t k = 0; k < K; k++) {                                         \
                        const ACC a = (ACC)LOAD(arow[k * ask]);                               \
                        const T *restrict brow = B + k * ldb + j0;                            \
                        for (int64_t jj = 0; jj < nj; jj++)                                   \
                            acc[jj] += a * (ACC)LOAD(brow[jj]);                               \
                    }                                                                         \
                    for (int64_t jj = 0; jj < nj; jj++)                                       \
                        fin_##T(&crow[j0 + jj], acc[jj], alpha, beta);                        \
                }                                                                             \
            } else {                                                                          \
                for (int64_t j = 0; j < N; j++) {                                             \
                    const T *bcol = B + j * ldb;                                              \
                    ACC s = 0;                                                                \
                    for (int64_t k = 0; k < K; k++)                                           \
                        s += (ACC)LOAD(arow[k * ask]) * (ACC)LOAD(bcol[k]);                   \
                    fin_##T(&crow[j], s, alpha, beta);                                        \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }

DEFINE_GEMM(gemm_ref_f32, float, float, float, ID)
DEFINE_GEMM(gemm_ref_f64, double, double, double, ID)
DEFINE_GEMM(gemm_ref_f16, f16_t, float, float, ld_f16)
DEFINE_GEMM(gemm_ref_bf16, bf16_t, float, float, ld_bf16)
DEFINE_GEMM(gemm_ref_i32, int32_t, uint32_t, float, (uint32_t))
DEFINE_GEMM(gemm_ref_i64, int64_t, uint64_t, float, (uint64_t))

cairn_status_t gemm_ref(cairn_dtype_t t, int transA, int transB, int64_t M, int64_t N, int64_t K,
                        double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                        double beta, void *C, int64_t ldc)
{
    switch (t) {
    case CAIRN_F32:
        gemm_ref_f32(transA, transB, M, N, K, (float)alpha, A, lda, B, ldb, (float)beta, C, ldc);
        break;
    case CAIRN_F64:
        gemm_ref_f64(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        break;
    case CAIRN_F16:
        gemm_ref_f16(transA, transB, M, N, K, (float)alpha, A, lda, B, ldb, (float)beta, C, ldc);
        break;
    case CAIRN_BF16:
        gemm_ref_bf16(transA, transB, M, N, K, (float)alpha, A, lda, B, ldb, (float)beta, C, ldc);
        break;
    case CAIRN_I32:
        gemm_ref_i32(transA, transB, M, N, K, (float)alpha, A, lda, B, ldb, (float)beta, C, ldc);
        break;
    case CAIRN_I64:
        gemm_ref_i64(transA, transB, M, N, K, (float)alpha, A, lda, B, ldb, (float)beta, C, ldc);
        break;
    default:
        return base_error(CAIRN_ERR_DTYPE, "gemm_ref: no kernel for %s", cairn_dtype_name(t));
    }
    return CAIRN_OK;
}

/* ---- batched MatMul ---- */

typedef struct matmul_job {
    const matmul_params_t *p;
    cairn_dtype_t t;
    size_t es;
    const char *A, *B;
    char *Y;
} matmul_job_t;

/* Rows [begin, end) of the flattened batch*M output rows, one gemm call per
 * run of rows that share a batch index. */
static void matmul_rows(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const matmul_job_t *j = ctx;
    const matmul_params_t *p = j->p;
    int64_t r = (int64_t)begin;
    while (r < (int64_t)end) {
        int64_t b = r / p->M, i = r % p->M;
        int64_t rows = p->M - i;
        if (rows > (int64_t)end - r)
            rows = (int64_t)end - r;
        int64_t aoff = 0, boff = 0, rem = b;
        for (int d = p->batch_rank - 1; d >= 0; d--) {
            int64_t idx = rem % p->batch[d];
            rem /= p->batch[d];
            aoff += idx * p->a_stride[d];
            boff += idx * p->b_stride[d];
        }
        const char *a = j->A + (size_t)(aoff + i * p->K) * j->es;
        const char *bm = j->B + (size_t)boff * j->es;
        char *y = j->Y + (size_t)(r * p->N) * j->es;
        /* cannot fail: the dtype was checked before the parallel loop */
        (void)gemm_ref(j->t, 0, 0, rows, p->N, p->K, 1.0, a, p->K, bm, p->N, 0.0, y, p->N);
        r += rows;
    }
}

cairn_status_t matmul_ref(const kctx_t *k, cairn_dtype_t t, const matmul_params_t *p,
                          const void *A, const void *B, void *Y)
{
    if (t != CAIRN_F32 && t != CAIRN_F64 && t != CAIRN_F16 && t != CAIRN_BF16 &&
        t != CAIRN_I32 && t != CAIRN_I64)
        return base_error(CAIRN_ERR_DTYPE, "matmul_ref: no kernel for %s", cairn_dtype_name(t));
    int64_t batch = 1;
    for (int d = 0; d < p->batch_rank; d++)
        batch *= p->batch[d];
    int64_t rows = batch * p->M;
    if (rows == 0 || p->N == 0)
        return CAIRN_OK;
    matmul_job_t j = {p, t, cairn_dtype_size(t), A, B, Y};
    /* a task should be worth a dispatch (~64K MACs); small products run
     * serially, large ones in at least `threads` chunks */
    int64_t work = p->N * (p->K > 0 ? p->K : 1);
    int threads = k && k->pool ? k->threads : 1;
    base_pool_t *pool = k ? k->pool : NULL;
    if (threads <= 1 || rows * work < 2 * 65536)
        pool = NULL;
    int64_t grain = (65536 + work - 1) / work;
    int64_t even = (rows + threads - 1) / (threads > 0 ? threads : 1);
    if (grain > even)
        grain = even;
    if (grain < 1)
        grain = 1;
    base_pool_parallel_for_1d(pool, (size_t)rows, (size_t)grain, matmul_rows, &j);
    return CAIRN_OK;
}
