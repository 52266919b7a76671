/*
 * The table of fast f32 pooling variants, best first, and its dispatch
 * (the first row within base_isa_select(), chosen once, printed with
 * CAIRN_VERBOSE=1), plus the checks that decide whether a call is covered:
 * f32 2-D NCHW, no indices, dilation 1, a padded row ring that fits the
 * stack (KPOOL_RING_FLOATS) and an output row of at most KPOOL_MAX_OW; and
 * GlobalAveragePool-shaped averages (window = the whole input, no padding)
 * of any rank. Planes are split over the kctx pool in tasks of about 32k
 * elements.
 */
#include "kernels/pool/fast.h"

#include "base/cpu.h"
#include "base/threadpool.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

const kpool_f32_variant_t kpool_f32_variants[] = {
    {"avx512", CAIRN_ISA_AVX512, kpool_max2d_f32_avx512, kpool_avg2d_f32_avx512,
     kpool_gavg_f32_avx512},
    {"avx2", CAIRN_ISA_AVX2, kpool_max2d_f32_avx2, kpool_avg2d_f32_avx2, kpool_gavg_f32_avx2},
    {"ref", CAIRN_ISA_REF, NULL, NULL, NULL},
};
const int kpool_f32_n_variants = (int)(sizeof kpool_f32_variants / sizeof kpool_f32_variants[0]);

const kpool_f32_variant_t *kpool_f32_variant_for(cairn_isa_t cap)
{
    cairn_isa_t best = base_cpu()->best_isa;
    cairn_isa_t level = cap != CAIRN_ISA_AUTO && cap < best ? cap : best;
    for (int i = 0; i < kpool_f32_n_variants; i++) {
#if !defined(__x86_64__)
        if (kpool_f32_variants[i].isa != CAIRN_ISA_REF)
            continue;
#endif
        if (kpool_f32_variants[i].isa <= level)
            return &kpool_f32_variants[i];
    }
    return &kpool_f32_variants[kpool_f32_n_variants - 1];
}

static _Atomic(const kpool_f32_variant_t *) g_chosen;

const kpool_f32_variant_t *kpool_f32_select(void)
{
    const kpool_f32_variant_t *v = atomic_load_explicit(&g_chosen, memory_order_acquire);
    if (v)
        return v;
    v = kpool_f32_variant_for(base_isa_select(CAIRN_ISA_AUTO));
    const kpool_f32_variant_t *expected = NULL;
    if (atomic_compare_exchange_strong(&g_chosen, &expected, v)) {
        const char *verbose = getenv("CAIRN_VERBOSE");
        if (verbose && verbose[0] && verbose[0] != '0')
            fprintf(stderr, "cairn: pool f32: using %s (ISA %s)\n", v->name,
                    cairn_isa_name(v->isa));
        return v;
    }
    return expected;
}

const char *kpool_f32_variant_name(void) { return kpool_f32_select()->name; }

typedef struct kpf_job {
    const kpool_f32_variant_t *v;
    const float *x;
    float *y;
    kpool_geom_t g;
    int64_t in_plane, out_plane;
    int kind; /* 0 max, 1 average, 2 global average */
} kpf_job_t;

static void kpf_task(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const kpf_job_t *j = c;
    const float *x = j->x + (int64_t)b * j->in_plane;
    float *y = j->y + (int64_t)b * j->out_plane;
    const int64_t n = (int64_t)(e - b);
    if (j->kind == 0)
        j->v->max2d(x, y, n, &j->g);
    else if (j->kind == 1)
        j->v->avg2d(x, y, n, &j->g);
    else
        j->v->gavg(x, y, n, j->in_plane);
}

/* Band t of `bands` (output rows in proportion) over every plane: j->g's
 * rows restricted, the plane loop inside the kernel. */
typedef struct kpf_band {
    const kpf_job_t *j;
    int64_t planes, bands;
} kpf_band_t;

static void kpf_band_task(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const kpf_band_t *bj = c;
    const kpf_job_t *j = bj->j;
    for (size_t t = b; t < e; t++) {
        kpool_geom_t g = j->g;
        g.oh0 = g.OH * (int64_t)t / bj->bands;
        g.oh1 = g.OH * ((int64_t)t + 1) / bj->bands;
        if (j->kind == 0)
            j->v->max2d(j->x, j->y, bj->planes, &g);
        else
            j->v->avg2d(j->x, j->y, bj->planes, &g);
    }
}

static void kpf_run(kpf_job_t *j, int64_t planes, const kctx_t *k)
{
    const int th = k && k->pool && k->threads > 1 ? k->threads : 1;
    /* Large planes on several threads: one band of output rows per thread
     * over every plane, rather than planes apiece. The convolutions before
     * (the direct path's pixel tiles) and after split pixels by rows the
     * same way, so each thread pools what it wrote. ResNet-50's stem pool
     * (64 planes of 112 x 112) on 2 threads, per-step medians of 7
     * profiles, Xeon: the pool 0.112 -> 0.109 ms and the 1x1 after it,
     * which now reads what its own thread pooled, 0.118 -> 0.094. */
    if (th > 1 && j->kind != 2 && j->in_plane >= 4096 && j->g.OH >= 8 * th) {
        kpf_band_t bj = {j, planes, th};
        base_pool_parallel_for_1d(k->pool, (size_t)th, 1, kpf_band_task, &bj);
        return;
    }
    const int64_t w = j->in_plane + j->out_plane;
    int64_t g = w > 0 ? 32768 / w : 1;
    if (g < 1)
        g = 1;
    if (planes <= g)
        kpf_task(j, 0, (size_t)planes, 0);
    else
        base_pool_parallel_for_1d(k ? k->pool : NULL, (size_t)planes, (size_t)g, kpf_task, j);
}

/* Fills j's 2-D geometry; 0 when the padded-row kernels do not cover it.
 * The row copy spans the begin padding, the input, and the reach of the
 * last (up to 16-lane) output vector, whatever the ISA's width. */
static int kpf_geom2d(const ktensor_t *x, const ktensor_t *y, const kpool_params_t *p,
                      kpf_job_t *j)
{
    if (x->dtype != CAIRN_F32 || y->dtype != CAIRN_F32 || p->nsp != 2 || x->rank != 4 ||
        y->rank != 4)
        return 0;
    const int64_t lim = KPOOL_RING_FLOATS;
    kpool_geom_t *g = &j->g;
    g->H = x->shape[2], g->W = x->shape[3], g->OH = y->shape[2], g->OW = y->shape[3];
    g->kh = p->kernel[0], g->kw = p->kernel[1], g->sh = p->stride[0], g->sw = p->stride[1];
    g->pbh = p->pad_begin[0], g->pbw = p->pad_begin[1];
    g->peh = p->pad_end[0], g->pew = p->pad_end[1];
    g->count_include_pad = p->count_include_pad;
    if (p->dilation[0] != 1 || p->dilation[1] != 1 || g->kh > 64 || g->H < 1 || g->W < 1 ||
        g->OH < 1 || g->OW < 1 || g->OW > KPOOL_MAX_OW || g->W > lim || g->kw > lim ||
        g->sw > lim || g->pbw > lim)
        return 0;
    const int64_t owv = (g->OW + 15) / 16 * 16;
    int64_t need = (owv - 1) * g->sw + g->kw;
    if (need < g->pbw + g->W)
        need = g->pbw + g->W;
    g->PW = (need + 15) / 16 * 16;
    if (g->PW * g->kh > lim)
        return 0;
    g->oh0 = 0, g->oh1 = g->OH;
    j->in_plane = g->H * g->W;
    j->out_plane = g->OH * g->OW;
    return 1;
}

int kpool_max_f32_fast(const kpool_f32_variant_t *v, const ktensor_t *x, ktensor_t *y,
                       const ktensor_t *indices, const kpool_params_t *p, const kctx_t *k)
{
    if (!v)
        v = kpool_f32_select();
    if (!v->max2d || (indices && indices->data))
        return 0;
    kpf_job_t j = {v, x->data, y->data, {0}, 0, 0, 0};
    if (!kpf_geom2d(x, y, p, &j))
        return 0;
    const int64_t planes = x->shape[0] * x->shape[1];
    if (planes > 0)
        kpf_run(&j, planes, k);
    return 1;
}

int kpool_avg_f32_fast(const kpool_f32_variant_t *v, const ktensor_t *x, ktensor_t *y,
                       const kpool_params_t *p, const kctx_t *k)
{
    if (!v)
        v = kpool_f32_select();
    if (!v->avg2d || x->dtype != CAIRN_F32 || y->dtype != CAIRN_F32 || x->rank < 3 ||
        y->rank != x->rank || p->nsp != x->rank - 2)
        return 0;
    kpf_job_t j = {v, x->data, y->data, {0}, 0, 0, 1};
    const int64_t planes = x->shape[0] * x->shape[1];
    /* a window covering the whole input without padding: one mean per plane */
    int global = 1;
    int64_t n = 1;
    for (int d = 0; d < p->nsp; d++) {
        n *= x->shape[d + 2];
        global &= p->kernel[d] == x->shape[d + 2] && p->pad_begin[d] == 0 &&
                  p->pad_end[d] == 0 && y->shape[d + 2] == 1 && p->dilation[d] == 1;
    }
    if (global && n > 0) {
        j.kind = 2;
        j.in_plane = n;
        j.out_plane = 1;
        if (planes > 0)
            kpf_run(&j, planes, k);
        return 1;
    }
    if (!kpf_geom2d(x, y, p, &j))
        return 0;
    if (planes > 0)
        kpf_run(&j, planes, k);
    return 1;
}

typedef struct kp8_job {
    const uint8_t *x;
    uint8_t *y;
    kpool_geom_t g;
    uint8_t flip;
} kp8_job_t;

static void kp8_task(void *c, size_t b, size_t e, int w)
{
    (void)w;
    const kp8_job_t *j = c;
    kpool_max2d_8bit_avx2(j->x + (int64_t)b * j->g.H * j->g.W, j->y + (int64_t)b * j->g.OH * j->g.OW,
                          (int64_t)(e - b), &j->g, j->flip);
}

int kpool_max_8bit_fast(const ktensor_t *x, ktensor_t *y, const kpool_params_t *p,
                        const kctx_t *k)
{
    if ((x->dtype != CAIRN_U8 && x->dtype != CAIRN_I8) || y->dtype != x->dtype ||
        p->nsp != 2 || x->rank != 4 || y->rank != 4 ||
        base_isa_select(CAIRN_ISA_AUTO) < CAIRN_ISA_AVX2)
        return 0;
    kp8_job_t j = {x->data, y->data, {0}, x->dtype == CAIRN_I8 ? 0x80 : 0};
    kpool_geom_t *g = &j.g;
    g->H = x->shape[2], g->W = x->shape[3], g->OH = y->shape[2], g->OW = y->shape[3];
    g->kh = p->kernel[0], g->kw = p->kernel[1], g->sh = p->stride[0], g->sw = p->stride[1];
    g->pbh = p->pad_begin[0], g->pbw = p->pad_begin[1];
    g->peh = p->pad_end[0], g->pew = p->pad_end[1];
    if (p->dilation[0] != 1 || p->dilation[1] != 1 || (g->sw != 1 && g->sw != 2) ||
        g->H < 1 || g->W < 1 || g->OH < 1 || g->OW < 1 || g->kw > KPOOL_8BIT_ROW ||
        g->W > KPOOL_8BIT_ROW || g->OW > KPOOL_8BIT_ROW || g->pbw > KPOOL_8BIT_ROW ||
        kpool_8bit_reach(g) > KPOOL_8BIT_ROW)
        return 0;
    g->oh0 = 0, g->oh1 = g->OH;
    const int64_t planes = x->shape[0] * x->shape[1];
    const int64_t per = g->H * g->W + g->OH * g->OW;
    const size_t grain = per > 0 && per < 32768 ? (size_t)(32768 / per) : 1;
    if (planes > 0)
        base_pool_parallel_for_1d(k ? k->pool : NULL, (size_t)planes, grain, kp8_task, &j);
    return 1;
}
