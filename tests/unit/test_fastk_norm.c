/*
 * The fast f32 Softmax / LogSoftmax / LayerNorm / RMSNorm kernels
 * (src/kernels/norm/fast.c and its ISA variants) against the reference
 * kernels (which compute in double), for every variant this CPU runs plus
 * the dispatched one (ctest also runs this under CAIRN_ISA=ref/avx2/
 * avx512), at row lengths around the vector widths, with poisoned outputs,
 * serial and on a 2-thread pool. Tolerances are the bounds stated in
 * norm/fast.h with the AVX2 lane count (the larger error), doubled.
 */
#include "base/threadpool.h"
#include "check.h"
#include "kernels/norm/fast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int64_t dims[] = {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 128, 1000, 4099};
#define ND ((int)(sizeof dims / sizeof dims[0]))
static const int64_t rowss[] = {1, 3, 70};
#define NR ((int)(sizeof rowss / sizeof rowss[0]))
#define U 5.9604645e-8 /* 2^-24 */

static ktensor_t t2(float *p, int64_t r, int64_t d)
{
    ktensor_t t;
    memset(&t, 0, sizeof t);
    t.dtype = CAIRN_F32;
    t.rank = 2;
    t.shape[0] = r;
    t.shape[1] = d;
    t.data = p;
    return t;
}

static ktensor_t t1(float *p, int64_t d)
{
    ktensor_t t = t2(p, 1, d);
    t.rank = 1;
    t.shape[0] = d;
    return t;
}

static void poison(float *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = NAN;
}

static void run(const knorm_f32_variant_t *v, const kctx_t *k, check_rng_t *rng)
{
    const knorm_f32_variant_t *sel = v ? v : knorm_f32_select();
    for (int a = 0; a < ND; a++)
        for (int b = 0; b < NR; b++) {
            int64_t d = dims[a], rows = rowss[b], n = d * rows;
            float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4), *r = malloc((size_t)n * 4);
            float *sc = malloc((size_t)d * 4), *bi = malloc((size_t)d * 4);
            float mean[70], isd[70], rmean[70], risd[70];
            check_fill_f32(rng, x, n, -6, 8);
            check_fill_f32(rng, sc, d, 0.5, 2);
            check_fill_f32(rng, bi, d, -1, 1);
            ktensor_t tx = t2(x, rows, d), ty = t2(y, rows, d), tr = t2(r, rows, d);
            for (int lg = 0; lg < 2; lg++) {
                poison(y, n);
                CHECK_OK(knorm_softmax(&tx, &tr, 1, lg, k));
                int done = knorm_softmax_f32_fast(v, &tx, &ty, 1, lg, k);
                CHECK(done == (sel->softmax != NULL));
                if (!done)
                    continue;
                double rel = 2 * (3 * 2 * U + ((double)d / 8 + 6) * U);
                int bad = 0;
                for (int64_t i = 0; i < n && bad < 3; i++) {
                    double tol = lg ? rel * (1 + fabs(r[i])) : rel * fabs(r[i]) + 1e-37;
                    if (!(fabs((double)y[i] - r[i]) <= tol))
                        {
                        bad++;
                        CHECK_MSG(0, "%s %s d=%lld rows=%lld [%lld]: %.9g vs %.9g",
                                         sel->name, lg ? "logsoftmax" : "softmax", (long long)d,
                                         (long long)rows, (long long)i, (double)y[i], (double)r[i]);
                    }
                }
            }
            for (int wb = 0; wb < 2; wb++) {
                ktensor_t ts = t1(sc, d), tb = t1(bi, d);
                ktensor_t tm = t1(mean, rows), ti = t1(isd, rows), trm = t1(rmean, rows),
                          tri = t1(risd, rows);
                knorm_layer_params_t p = {1, 1e-5};
                void *ws = malloc(knorm_layernorm_ws_bytes(&tx, 1));
                poison(y, n);
                CHECK_OK(knorm_layernorm(&tx, &ts, wb ? &tb : NULL, &tr, &trm, &tri, &p, ws, k));
                int done = knorm_layernorm_f32_fast(v, &tx, &ts, wb ? &tb : NULL, &ty, &tm, &ti,
                                                    &p, k);
                free(ws);
                CHECK(done == (sel->layernorm != NULL));
                if (!done)
                    continue;
                double rel = 2 * (((double)d / 8 + 8) * U) * 8; /* x spans ~8 sigma */
                int bad = 0;
                for (int64_t i = 0; i < n && bad < 3; i++)
                    if (!(fabs((double)y[i] - r[i]) <= rel * (1 + fabs(r[i]))))
                        {
                        bad++;
                        CHECK_MSG(0, "%s layernorm d=%lld rows=%lld bias=%d [%lld]: %.9g vs "
                                         "%.9g", sel->name, (long long)d, (long long)rows, wb,
                                         (long long)i, (double)y[i], (double)r[i]);
                    }
                for (int64_t i = 0; i < rows; i++) {
                    CHECK(fabs(mean[i] - rmean[i]) <= rel * (1 + fabs(rmean[i])));
                    CHECK(fabs(isd[i] - risd[i]) <= rel * fabs(risd[i]));
                }
            }
            {
                /* RMSNorm: the bound of norm/fast.h with VLEN = 8, doubled */
                ktensor_t ts = t1(sc, d);
                knorm_layer_params_t p = {1, 1e-6};
                void *ws = malloc(knorm_rmsnorm_ws_bytes(&tx, 1));
                poison(y, n);
                CHECK_OK(knorm_rmsnorm(&tx, &ts, &tr, &p, ws, k));
                free(ws);
                int done = knorm_rmsnorm_f32_fast(v, &tx, &ts, &ty, &p, k);
                CHECK(done == (sel->rmsnorm != NULL));
                double rel = 2 * (((double)d / 32 + 3 + 7) / 2 + 2) * U;
                int bad = 0;
                for (int64_t i = 0; done && i < n && bad < 3; i++)
                    if (!(fabs((double)y[i] - r[i]) <= rel * fabs(r[i]) + 1e-37)) {
                        bad++;
                        CHECK_MSG(0, "%s rmsnorm d=%lld rows=%lld [%lld]: %.9g vs %.9g", sel->name,
                                  (long long)d, (long long)rows, (long long)i, (double)y[i],
                                  (double)r[i]);
                    }
                /* not covered: a broadcast scale, an axis that is not the
                 * trailing one's start when d differs from the scale */
                ktensor_t t1s = t1(sc, 1);
                if (d > 1)
                    CHECK(knorm_rmsnorm_f32_fast(v, &tx, &t1s, &ty, &p, k) == 0);
                knorm_layer_params_t p0 = {0, 1e-6};
                if (rows > 1)
                    CHECK(knorm_rmsnorm_f32_fast(v, &tx, &ts, &ty, &p0, k) == 0);
            }
            /* not covered: softmax over a non-last axis, f64 data */
            CHECK(knorm_softmax_f32_fast(v, &tx, &ty, 0, 0, k) == 0);
            tx.dtype = CAIRN_F64;
            CHECK(knorm_softmax_f32_fast(v, &tx, &ty, 1, 0, k) == 0);
            {
                ktensor_t ts = t1(sc, d);
                knorm_layer_params_t p = {1, 1e-6};
                CHECK(knorm_rmsnorm_f32_fast(v, &tx, &ts, &ty, &p, k) == 0);
            }
            free(x), free(y), free(r), free(sc), free(bi);
        }
}

int main(void)
{
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    kctx_t k1 = {NULL, 1}, k2 = {pool, 2};
    check_rng_t rng = {0x77aa55cc1234ull};
    const knorm_f32_variant_t *vs[5];
    int nv = 0;
    for (int i = 0; i < knorm_f32_n_variants; i++)
        if (knorm_f32_variant_for(knorm_f32_variants[i].isa) == &knorm_f32_variants[i])
            vs[nv++] = &knorm_f32_variants[i];
    vs[nv++] = NULL;
    for (int i = 0; i < nv; i++) {
        run(vs[i], &k1, &rng);
        run(vs[i], &k2, &rng);
    }
    base_pool_destroy(pool);
    return check_finish("test_fastk_norm");
}
