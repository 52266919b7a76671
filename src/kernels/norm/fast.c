/*
 * The table of fast f32 Softmax / LayerNorm / RMSNorm variants, best first, and its
 * dispatch (as for GEMM: the first row within base_isa_select(), chosen
 * once, printed with CAIRN_VERBOSE=1), plus the checks that decide whether
 * a call is covered: f32 data, softmax over the last axis, LayerNorm with
 * full-size f32 scale (and bias) and f32 statistics outputs, RMSNorm with
 * a full-size f32 scale. Rows are
 * split over the kctx pool in tasks of about 16k elements.
 */
#include "kernels/norm/fast.h"

#include "base/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

const knorm_f32_variant_t knorm_f32_variants[] = {
    {"avx512", CAIRN_ISA_AVX512, knorm_softmax_rows_f32_avx512, knorm_layernorm_rows_f32_avx512,
     knorm_rmsnorm_rows_f32_avx512},
    {"avx2", CAIRN_ISA_AVX2, knorm_softmax_rows_f32_avx2, knorm_layernorm_rows_f32_avx2,
     knorm_rmsnorm_rows_f32_avx2},
    {"ref", CAIRN_ISA_REF, NULL, NULL, NULL},
};
const int knorm_f32_n_variants = (int)(sizeof knorm_f32_variants / sizeof knorm_f32_variants[0]);

const knorm_f32_variant_t *knorm_f32_variant_for(cairn_isa_t cap)
{
    cairn_isa_t best = base_cpu()->best_isa;
    cairn_isa_t level = cap != CAIRN_ISA_AUTO && cap < best ? cap : best;
    for (int i = 0; i < knorm_f32_n_variants; i++) {
#if !defined(__x86_64__)
        if (knorm_f32_variants[i].isa != CAIRN_ISA_REF)
            continue;
#endif
        if (knorm_f32_variants[i].isa <= level)
            return &knorm_f32_variants[i];
    }
    return &knorm_f32_variants[knorm_f32_n_variants - 1];
}

static _Atomic(const knorm_f32_variant_t *) g_chosen;

const knorm_f32_variant_t *knorm_f32_select(void)
{
    const knorm_f32_variant_t *v = atomic_load_explicit(&g_chosen, memory_order_acquire);
    if (v)
        return v;
    v = knorm_f32_variant_for(base_isa_select(CAIRN_ISA_AUTO));
    const knorm_f32_variant_t *expected = NULL;
    if (atomic_compare_exchange_strong(&g_chosen, &expected, v)) {
        const char *verbose = getenv("CAIRN_VERBOSE");
        if (verbose && verbose[0] && verbose[0] != '0')
            fprintf(stderr, "cairn: norm f32: using %s (ISA %s)\n", v->name,
                    cairn_isa_name(v->isa));
        return v;
    }
    return expected;
}

static size_t kf_rows_per_task(int64_t d)
{
    int64_t g = d > 0 ? 16384 / d : 16384;
    return (size_t)(g < 1 ? 1 : g);
}

typedef struct kf_job {
    const knorm_f32_variant_t *v;
    const float *x, *scale, *bias;
    float *y, *mean, *isd;
    int64_t rows, d;
    int log_softmax;
    float eps;
    size_t per;
} kf_job_t;

static void kf_softmax_task(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const kf_job_t *j = c;
    int64_t r0 = (int64_t)(b * j->per), r1 = (int64_t)(e * j->per);
    if (r1 > j->rows)
        r1 = j->rows;
    j->v->softmax(j->x + r0 * j->d, j->y + r0 * j->d, r1 - r0, j->d, j->log_softmax);
}

static void kf_layer_task(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const kf_job_t *j = c;
    int64_t r0 = (int64_t)(b * j->per), r1 = (int64_t)(e * j->per);
    if (r1 > j->rows)
        r1 = j->rows;
    j->v->layernorm(j->x + r0 * j->d, j->y + r0 * j->d, r1 - r0, j->d, j->scale, j->bias,
                    j->eps, j->mean ? j->mean + r0 : NULL, j->isd ? j->isd + r0 : NULL);
}

static void kf_rms_task(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const kf_job_t *j = c;
    int64_t r0 = (int64_t)(b * j->per), r1 = (int64_t)(e * j->per);
    if (r1 > j->rows)
        r1 = j->rows;
    j->v->rmsnorm(j->x + r0 * j->d, j->y + r0 * j->d, r1 - r0, j->d, j->scale, j->eps);
}

static void kf_run(const kf_job_t *j, base_task_1d_fn fn, const kctx_t *k)
{
    size_t tasks = (size_t)((j->rows + (int64_t)j->per - 1) / (int64_t)j->per);
    if (tasks <= 1)
        fn((void *)j, 0, tasks, 0);
    else
        base_pool_parallel_for_1d(k ? k->pool : NULL, tasks, 1, fn, (void *)j);
}

int knorm_softmax_f32_fast(const knorm_f32_variant_t *v, const ktensor_t *x, ktensor_t *y,
                           int axis, int log_softmax, const kctx_t *k)
{
    if (!v)
        v = knorm_f32_select();
    if (!v->softmax || x->dtype != CAIRN_F32 || y->dtype != CAIRN_F32 || x->rank < 1 ||
        axis != x->rank - 1)
        return 0;
    kf_job_t j = {v, x->data, NULL, NULL, y->data, NULL, NULL, 0, x->shape[axis], log_softmax,
                  0.0f, kf_rows_per_task(x->shape[axis])};
    if (j.d == 0)
        return 1;
    j.rows = kt_numel(x) / j.d;
    kf_run(&j, kf_softmax_task, k);
    return 1;
}

static int kf_absent(const ktensor_t *t)
{
    return !t || t->dtype == CAIRN_DTYPE_UNDEFINED;
}

int knorm_layernorm_f32_fast(const knorm_f32_variant_t *v, const ktensor_t *x,
                             const ktensor_t *scale, const ktensor_t *bias, ktensor_t *y,
                             ktensor_t *mean, ktensor_t *inv_std_dev,
                             const knorm_layer_params_t *p, const kctx_t *k)
{
    if (!v)
        v = knorm_f32_select();
    if (!v->layernorm || x->dtype != CAIRN_F32 || y->dtype != CAIRN_F32 || p->axis < 0 ||
        p->axis >= x->rank)
        return 0;
    int64_t d = 1;
    for (int i = p->axis; i < x->rank; i++)
        d *= x->shape[i];
    /* full-size parameters only (a broadcast scale goes to the reference) */
    if (kf_absent(scale) || scale->dtype != CAIRN_F32 || kt_numel(scale) != d)
        return 0;
    if (!kf_absent(bias) && (bias->dtype != CAIRN_F32 || kt_numel(bias) != d))
        return 0;
    if (mean && mean->data && mean->dtype != CAIRN_F32)
        return 0;
    if (inv_std_dev && inv_std_dev->data && inv_std_dev->dtype != CAIRN_F32)
        return 0;
    kf_job_t j = {v, x->data, scale->data, kf_absent(bias) ? NULL : bias->data, y->data,
                  mean && mean->data ? mean->data : NULL,
                  inv_std_dev && inv_std_dev->data ? inv_std_dev->data : NULL, 0, d, 0,
                  (float)p->epsilon, kf_rows_per_task(d)};
    if (d == 0)
        return 0; /* the reference defines the NaN statistics of empty rows */
    j.rows = kt_numel(x) / d;
    kf_run(&j, kf_layer_task, k);
    return 1;
}

int knorm_rmsnorm_f32_fast(const knorm_f32_variant_t *v, const ktensor_t *x,
                           const ktensor_t *scale, ktensor_t *y, const knorm_layer_params_t *p,
                           const kctx_t *k)
{
    if (!v)
        v = knorm_f32_select();
    if (!v->rmsnorm || x->dtype != CAIRN_F32 || y->dtype != CAIRN_F32 || p->axis < 0 ||
        p->axis >= x->rank)
        return 0;
    int64_t d = 1;
    for (int i = p->axis; i < x->rank; i++)
        d *= x->shape[i];
    if (d == 0 || kf_absent(scale) || scale->dtype != CAIRN_F32 || kt_numel(scale) != d)
        return 0;
    kf_job_t j = {v, x->data, scale->data, NULL, y->data, NULL, NULL, 0, d, 0,
                  (float)p->epsilon, kf_rows_per_task(d)};
    j.rows = kt_numel(x) / d;
    kf_run(&j, kf_rms_task, k);
    return 1;
}
