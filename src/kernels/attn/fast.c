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
    int copy_kv; /* one item per (b, h), its K and V rows copied contiguous first */
} ka_job_t;

/* rows [0, n) of w elements, row j at src + j rs (elements cs apart), to dst */
static void ka_rows(float *dst, const float *src, int64_t n, int64_t w, int64_t rs, int64_t cs)
{
    for (int64_t j = 0; j < n; j++, dst += w, src += rs) {
        if (cs == 1)
            memcpy(dst, src, sizeof(float) * (size_t)w);
        else
            for (int64_t t = 0; t < w; t++)
                dst[t] = src[t * cs];
    }
}

static void ka_task(void *c, size_t b, size_t e, int w)
{
    const ka_job_t *j = c;
    float *ws = j->ws + (size_t)w * j->ws_floats;
    if (j->copy_kv) {
        const kattn_params_t *p = j->p;
        float *kc = ws + kattn_ws_floats(p), *vc = kc + p->Sk * p->D;
        for (size_t t = b; t < e; t++) {
            const int64_t bh = (int64_t)t, bb = bh / p->Hq, g = bh % p->Hq / (p->Hq / p->Hk);
            ka_rows(kc, p->k + bb * p->ks[0] + g * p->ks[1], p->Sk, p->D, p->ks[2], p->ks[3]);
            ka_rows(vc, p->v + bb * p->vs[0] + g * p->vs[1], p->Sk, p->Dv, p->vs[2], p->vs[3]);
            kattn_params_t q = *p;
            q.k = kc, q.v = vc;
            q.ks[0] = q.ks[1] = q.vs[0] = q.vs[1] = 0;
            q.ks[2] = p->D, q.ks[3] = 1, q.vs[2] = p->Dv, q.vs[3] = 1;
            j->v->block(&q, bh, 0, p->Sq, ws);
        }
        return;
    }
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
    ka_job_t j = {v, p, (p->Sq + bq - 1) / bq, bq, NULL, kattn_ws_floats(p), 0};
    size_t tasks = (size_t)(p->B * p->Hq * j.nqb);
    /* K and V rows far apart (a QKV projection's output read in place:
     * 3 H D floats, 4.5 KB for MiniLM) fall in few L1 sets, and a key
     * tile's rows evict each other. With long sequences each (b, h) is
     * one work item that first copies its K and V rows contiguous (the
     * copy reads them once, as the first query group would; its cost is
     * O(Sk D) against O(Sq Sk D) of work): MiniLM heads at seq 512, 1
     * thread, Xeon, 2.60 -> 2.50 ms; at seq 128 the copy cost what it
     * saved. Enough heads to keep every worker busy. */
    if (p->Sq >= 256 && p->Sk >= 256 && p->B * p->Hq >= 3 * workers &&
        (p->ks[2] != p->D || p->ks[3] != 1 || p->vs[2] != p->Dv || p->vs[3] != 1)) {
        j.copy_kv = 1;
        j.ws_floats += (size_t)(p->Sk * (p->D + p->Dv));
        tasks = (size_t)(p->B * p->Hq);
    }
    /* scratch from the process-lifetime slots: a run allocates nothing
     * once they have grown */
    int slot;
    j.ws = base_scratch_get(sizeof(float) * j.ws_floats * (size_t)workers, &slot);
    if (!j.ws && j.copy_kv) { /* no room for the copies: read K and V in place */
        j.copy_kv = 0;
        j.ws_floats = kattn_ws_floats(p);
        tasks = (size_t)(p->B * p->Hq * j.nqb);
        j.ws = base_scratch_get(sizeof(float) * j.ws_floats * (size_t)workers, &slot);
    }
    if (!j.ws)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "attention: no memory for %d x %zu floats of scratch",
                          workers, j.ws_floats);
    if (workers == 1 || tasks == 1 || !k || !k->pool)
        ka_task(&j, 0, tasks, 0);
    else
        base_pool_parallel_for_1d(k->pool, tasks, 1, ka_task, &j);
    base_scratch_put(j.ws, slot);
    return CAIRN_OK;
}
