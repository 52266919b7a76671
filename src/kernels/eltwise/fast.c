/*
 * The table of fast f32 elementwise variants, best first, its dispatch
 * (as for GEMM: the first row whose ISA is within base_isa_select(), once
 * per process, printed with CAIRN_VERBOSE=1), and the layout analysis that
 * decides whether a call is covered: unary ops on any f32 tensor; binary
 * Add/Sub/Mul/Div when each operand is full, scalar, a row vector or a
 * column vector of the output (the broadcasts that transformer graphs use:
 * bias and mask rows, per-row statistics). Work is split into chunks of
 * about 16k elements over the kctx pool.
 */
#include "kernels/eltwise/fast.h"

#include "base/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const eltwise_f32_variant_t eltwise_f32_variants[] = {
    {"avx512", CAIRN_ISA_AVX512, eltwise_f32_unary_avx512, eltwise_f32_binary_avx512},
    {"avx2", CAIRN_ISA_AVX2, eltwise_f32_unary_avx2, eltwise_f32_binary_avx2},
    {"ref", CAIRN_ISA_REF, NULL, NULL},
};
const int eltwise_f32_n_variants = (int)(sizeof eltwise_f32_variants /
                                         sizeof eltwise_f32_variants[0]);

static int ef_usable(const eltwise_f32_variant_t *v, cairn_isa_t level)
{
#if !defined(__x86_64__)
    if (v->isa != CAIRN_ISA_REF)
        return 0;
#endif
    return v->isa <= level;
}

const eltwise_f32_variant_t *eltwise_f32_variant_for(cairn_isa_t cap)
{
    cairn_isa_t best = base_cpu()->best_isa;
    cairn_isa_t level = cap != CAIRN_ISA_AUTO && cap < best ? cap : best;
    for (int i = 0; i < eltwise_f32_n_variants; i++)
        if (ef_usable(&eltwise_f32_variants[i], level))
            return &eltwise_f32_variants[i];
    return &eltwise_f32_variants[eltwise_f32_n_variants - 1];
}

static _Atomic(const eltwise_f32_variant_t *) g_chosen;

const eltwise_f32_variant_t *eltwise_f32_select(void)
{
    const eltwise_f32_variant_t *v = atomic_load_explicit(&g_chosen, memory_order_acquire);
    if (v)
        return v;
    v = eltwise_f32_variant_for(base_isa_select(CAIRN_ISA_AUTO));
    const eltwise_f32_variant_t *expected = NULL;
    if (atomic_compare_exchange_strong(&g_chosen, &expected, v)) {
        const char *verbose = getenv("CAIRN_VERBOSE");
        if (verbose && verbose[0] && verbose[0] != '0')
            fprintf(stderr, "cairn: eltwise f32: using %s (ISA %s)\n", v->name,
                    cairn_isa_name(v->isa));
        return v;
    }
    return expected;
}

#define EF_CHUNK 16384

/* ---- unary ---- */

typedef struct ef_un_job {
    eltwise_f32_unary_fn fn;
    eltwise_f32_unop_t op;
    const float *x;
    float *y;
    int64_t n;
} ef_un_job_t;

static void ef_un_task(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const ef_un_job_t *j = c;
    int64_t i0 = (int64_t)b * EF_CHUNK, i1 = (int64_t)e * EF_CHUNK;
    if (i1 > j->n)
        i1 = j->n;
    j->fn(j->op, j->x + i0, j->y + i0, i1 - i0);
}

static base_pool_t *ef_pool(const kctx_t *k) { return k ? k->pool : NULL; }

int eltwise_unary_f32_fast(const eltwise_f32_variant_t *v, eltwise_unop_t op,
                           const eltwise_params_t *p, const ktensor_t *x, ktensor_t *y,
                           const kctx_t *k)
{
    if (!v)
        v = eltwise_f32_select();
    if (!v->unary || x->dtype != CAIRN_F32 || y->dtype != CAIRN_F32 || x->rank != y->rank ||
        memcmp(x->shape, y->shape, sizeof(int64_t) * (size_t)x->rank) != 0)
        return 0;
    eltwise_f32_unop_t f;
    switch (op) {
    case ELTWISE_RELU: f = EF32_RELU; break;
    case ELTWISE_EXP: f = EF32_EXP; break;
    case ELTWISE_LOG: f = EF32_LOG; break;
    case ELTWISE_ERF: f = EF32_ERF; break;
    case ELTWISE_TANH: f = EF32_TANH; break;
    case ELTWISE_SIGMOID: f = EF32_SIGMOID; break;
    case ELTWISE_GELU: f = p && p->gelu_tanh ? EF32_GELU_TANH : EF32_GELU_ERF; break;
    case ELTWISE_SWISH: /* SiLU only; another alpha goes to the reference */
        if (!p || p->alpha != 1.0f)
            return 0;
        f = EF32_SILU;
        break;
    default: return 0;
    }
    ef_un_job_t j = {v->unary, f, x->data, y->data, kt_numel(x)};
    if (j.n == 0)
        return 1;
    size_t chunks = (size_t)((j.n + EF_CHUNK - 1) / EF_CHUNK);
    if (chunks == 1)
        j.fn(f, j.x, j.y, j.n);
    else
        base_pool_parallel_for_1d(ef_pool(k), chunks, 1, ef_un_task, &j);
    return 1;
}

/* ---- binary ---- */

/* How an operand walks the output viewed as rows x cols: element (r, c)
 * is at r * rs + c * cs. */
typedef struct ef_walk {
    int64_t rs, cs;
} ef_walk_t;

typedef enum { EF_FULL, EF_SCALAR, EF_ROW, EF_COL, EF_OTHER } ef_kind_t;

/* Classifies t against out; *split is the number of leading output dims
 * that a row (the leading dims t broadcasts along) or a column (the
 * trailing dims) covers. */
static ef_kind_t ef_classify(const ktensor_t *t, const ktensor_t *out, int *split)
{
    const int r = out->rank, off = r - t->rank;
    if (off < 0)
        return EF_OTHER;
    int64_t nt = kt_numel(t);
    if (nt == 1)
        return EF_SCALAR;
    if (nt == kt_numel(out))
        return EF_FULL; /* it broadcasts to out with as many elements: same layout */
#define EF_TDIM(d) ((d) < off ? 1 : t->shape[(d) - off]) /* t padded to out's rank */
    int first = 0; /* first dim where t is not 1 */
    while (first < r && EF_TDIM(first) == 1)
        first++;
    int last = r; /* one past the last dim where t is not 1 */
    while (last > first && EF_TDIM(last - 1) == 1)
        last--;
    int row_ok = 1, col_ok = 1;
    for (int d = first; d < r; d++)
        row_ok &= EF_TDIM(d) == out->shape[d];
    for (int d = 0; d < last; d++)
        col_ok &= EF_TDIM(d) == out->shape[d];
#undef EF_TDIM
    if (row_ok) {
        *split = first;
        return EF_ROW;
    }
    if (col_ok) {
        *split = last;
        return EF_COL;
    }
    return EF_OTHER;
}

typedef struct ef_bin_job {
    eltwise_f32_binary_fn fn;
    eltwise_binop_t op;
    const float *a, *b;
    float *o;
    ef_walk_t wa, wb;
    int64_t rows, cols, rows_per_task, chunked; /* chunked: rows == 1, split cols */
} ef_bin_job_t;

static void ef_bin_task(void *c, size_t bgn, size_t end, int w)
{
    (void)w;
    const ef_bin_job_t *j = c;
    if (j->chunked) {
        int64_t i0 = (int64_t)bgn * EF_CHUNK, i1 = (int64_t)end * EF_CHUNK;
        if (i1 > j->cols)
            i1 = j->cols;
        j->fn(j->op, j->a + i0 * j->wa.cs, j->wa.cs, j->b + i0 * j->wb.cs, j->wb.cs, j->o + i0,
              i1 - i0);
        return;
    }
    int64_t r0 = (int64_t)bgn * j->rows_per_task, r1 = (int64_t)end * j->rows_per_task;
    if (r1 > j->rows)
        r1 = j->rows;
    for (int64_t r = r0; r < r1; r++)
        j->fn(j->op, j->a + r * j->wa.rs, j->wa.cs, j->b + r * j->wb.rs, j->wb.cs,
              j->o + r * j->cols, j->cols);
}

int eltwise_binary_f32_fast(const eltwise_f32_variant_t *v, eltwise_binop_t op,
                            const ktensor_t *a, const ktensor_t *b, ktensor_t *out,
                            const kctx_t *k)
{
    if (!v)
        v = eltwise_f32_select();
    if (!v->binary || op > ELTWISE_DIV || a->dtype != CAIRN_F32 || b->dtype != CAIRN_F32 ||
        out->dtype != CAIRN_F32)
        return 0;
    const int64_t numel = kt_numel(out);
    int sa = 0, sb = 0;
    ef_kind_t ka = ef_classify(a, out, &sa), kb = ef_classify(b, out, &sb);
    if (ka == EF_OTHER || kb == EF_OTHER)
        return 0;
    /* the row/column split: every row or column operand must agree on it */
    int split = -1;
    if (ka == EF_ROW || ka == EF_COL)
        split = sa;
    if (kb == EF_ROW || kb == EF_COL) {
        if (split >= 0 && split != sb)
            return 0;
        split = sb;
    }
    ef_bin_job_t j = {v->binary, op, a->data, b->data, out->data, {0, 0}, {0, 0}, 1, numel, 1, 1};
    if (numel == 0)
        return 1;
    if (split >= 0) {
        j.rows = 1;
        for (int d = 0; d < split; d++)
            j.rows *= out->shape[d];
        j.cols = j.rows ? numel / j.rows : 0;
        j.chunked = 0;
    }
    const ef_kind_t kinds[2] = {ka, kb};
    ef_walk_t *walks[2] = {&j.wa, &j.wb};
    for (int i = 0; i < 2; i++) {
        switch (kinds[i]) {
        case EF_FULL: *walks[i] = (ef_walk_t){j.cols, 1}; break;
        case EF_SCALAR: *walks[i] = (ef_walk_t){0, 0}; break;
        case EF_ROW: *walks[i] = (ef_walk_t){0, 1}; break;
        default: *walks[i] = (ef_walk_t){1, 0}; break; /* EF_COL */
        }
    }
    if (j.rows == 1 && !j.chunked)
        j.chunked = 1; /* a single row: split its columns instead */
    size_t tasks;
    if (j.chunked) {
        tasks = (size_t)((j.cols + EF_CHUNK - 1) / EF_CHUNK);
    } else {
        j.rows_per_task = j.cols >= EF_CHUNK ? 1 : EF_CHUNK / j.cols;
        tasks = (size_t)((j.rows + j.rows_per_task - 1) / j.rows_per_task);
    }
    if (tasks == 1)
        ef_bin_task(&j, 0, 1, 0);
    else
        base_pool_parallel_for_1d(ef_pool(k), tasks, 1, ef_bin_task, &j);
    return 1;
}
