/*
 * The table of fast attention variants, best first, its dispatch (as for
 * GEMM: the first row within base_isa_select(), chosen once, printed with
 * CAIRN_VERBOSE=1), and the driver that splits batch x heads x query
 * blocks over the kctx pool, each worker with its own scratch.
 */
#include "kernels/attn/attn.h"

#include "base/alloc.h"
#include "base/threadpool.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const kattn_variant_t kattn_variants[] = {
    {"avx512", CAIRN_ISA_AVX512, kattn_block_f32_avx512},
    {"avx2", CAIRN_ISA_AVX2, kattn_block_f32_avx2},
    {"ref", CAIRN_ISA_REF, NULL},
};
const int kattn_n_variants = (int)(sizeof kattn_variants / sizeof kattn_variants[0]);

const kattn_variant_t *kattn_variant_for(cairn_isa_t cap)
{
    cairn_isa_t best = base_cpu()->best_isa;
    cairn_isa_t level = cap != CAIRN_ISA_AUTO && cap < best ? cap : best;
    for (int i = 0; i < kattn_n_variants; i++) {
#if !defined(__x86_64__)
        if (kattn_variants[i].isa != CAIRN_ISA_REF)
            continue;
#endif
        if (kattn_variants[i].isa <= level)
            return &kattn_variants[i];
    }
    return &kattn_variants[kattn_n_variants - 1];
}

static _Atomic(const kattn_variant_t *) g_chosen;

const kattn_variant_t *kattn_select(void)
{
    const kattn_variant_t *v = atomic_load_explicit(&g_chosen, memory_order_acquire);
    if (v)
        return v;
    v = kattn_variant_for(base_isa_select(CAIRN_ISA_AUTO));
    const kattn_variant_t *expected = NULL;
    if (atomic_compare_exchange_strong(&g_chosen, &expected, v)) {
        const char *verbose = getenv("CAIRN_VERBOSE");
        if (verbose && verbose[0] && verbose[0] != '0')
            fprintf(stderr, "cairn: attention f32: using %s (ISA %s)\n", v->name,
                    cairn_isa_name(v->isa));
        return v;
    }
    return expected;
}

size_t kattn_ws_floats(const kattn_params_t *p)
{
    /* fast_impl.h: Q^T, O^T, the score tile and three G-vectors, G <= 32 */
    return (size_t)((p->D + p->Dv + KATTN_BK + 8 + 3) * 32 + 16);
}

typedef struct ka_job {
    const kattn_variant_t *v;
    const kattn_params_t *p;
    int64_t nqb, bq;
    float *ws; /* per worker */
    size_t ws_floats;
} ka_job_t;

static void ka_task(void *c, size_t b, size_t e, int w)
{
    const ka_job_t *j = c;
    float *ws = j->ws + (size_t)w * j->ws_floats;
    for (size_t t = b; t < e; t++) {
        int64_t bh = (int64_t)t / j->nqb, qb = (int64_t)t % j->nqb;
        int64_t q0 = qb * j->bq, q1 = q0 + j->bq;
        if (q1 > j->p->Sq)
            q1 = j->p->Sq;
        j->v->block(j->p, bh, q0, q1, ws);
    }
}

cairn_status_t kattn_f32(const kattn_variant_t *v, const kattn_params_t *p, const kctx_t *k)
{
    if (!v)
        v = kattn_select();
    if (p->B == 0 || p->Hq == 0 || p->Sq == 0 || p->Dv == 0)
        return CAIRN_OK;
    if (p->Sk == 0 || !v->block) { /* no keys: the P.V product is empty, i.e. zeros */
        kattn_ref_f32(p);
        return CAIRN_OK;
    }
    int workers = k && k->pool ? base_pool_threads(k->pool) : 1;
    if (workers < 1)
        workers = 1;
    /* long query blocks pack each K / V tile fewer times; shorter ones give
     * every worker at least ~3 items */
    int64_t bq = KATTN_BQ;
    while (bq > 32 && p->B * p->Hq * ((p->Sq + bq - 1) / bq) < 3 * workers)
        bq /= 2;
    ka_job_t j = {v, p, (p->Sq + bq - 1) / bq, bq, NULL, kattn_ws_floats(p)};
    size_t tasks = (size_t)(p->B * p->Hq * j.nqb);
    j.ws = base_aligned_alloc(sizeof(float) * j.ws_floats * (size_t)workers, 64);
    if (!j.ws)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "attention: no memory for %d x %zu floats of scratch",
                          workers, j.ws_floats);
    if (workers == 1 || tasks == 1 || !k || !k->pool)
        ka_task(&j, 0, tasks, 0);
    else
        base_pool_parallel_for_1d(k->pool, tasks, 1, ka_task, &j);
    base_aligned_free(j.ws);
    return CAIRN_OK;
}
