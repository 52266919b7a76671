/* The fused attention kernels (src/kernels/attn) and the FusedAttention op:
 * the selected fast variant, every other variant this CPU runs, and the
 * reference, each against an independent double formulation written here
 * (the full score matrix, a max-subtracted softmax, then P.V), over many
 * shapes (S not a multiple of the tiles, D in {32, 64, 80, 128}, B and H >
 * 1, grouped-query heads, Sq != Sk), masks (none, padding rows of -inf or
 * -1e4, causal, general additive, causal + padding, 2-D, per-key biases
 * shared by every query) and layouts ([B,H,S,D]
 * and [B,S,H,D] through strides); then the op through the C API with perms,
 * and its error paths. Run under CAIRN_ISA=ref/avx2/avx512 by ctest. */
#include "base/threadpool.h"
#include "check.h"
#include "kernels/attn/attn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape_case {
    int64_t B, Hq, Hk, Sq, Sk, D, Dv;
} shape_case_t;

enum { MASK_NONE, MASK_PAD, MASK_CAUSAL, MASK_GENERAL, MASK_CAUSAL_PAD, MASK_2D, MASK_KEYS, N_MASKS };

/* element strides of a contiguous tensor holding logical [b, h, s, d] in
 * physical order [b, h, s, d] (bshd = 0) or [b, s, h, d] (bshd = 1) */
static void strides(int bshd, int64_t H, int64_t S, int64_t D, int64_t st[4])
{
    if (!bshd) {
        st[3] = 1, st[2] = D, st[1] = S * D, st[0] = H * S * D;
    } else {
        st[3] = 1, st[1] = D, st[2] = H * D, st[0] = S * H * D;
    }
}

/* O in double, directly from the definition. */
static void attn_double(const kattn_params_t *p, double *want)
{
    int64_t Sq = p->Sq, Sk = p->Sk;
    double *s = malloc(sizeof(double) * (size_t)(Sq * Sk + 1));
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t h = 0; h < p->Hq; h++) {
            int64_t kh = h * p->Hk / p->Hq;
            for (int64_t i = 0; i < Sq; i++)
                for (int64_t j = 0; j < Sk; j++) {
                    double d = 0;
                    for (int64_t t = 0; t < p->D; t++)
                        d += (double)p->q[b * p->qs[0] + h * p->qs[1] + i * p->qs[2] + t * p->qs[3]] *
                             (double)p->k[b * p->ks[0] + kh * p->ks[1] + j * p->ks[2] + t * p->ks[3]];
                    d = d * (double)p->scale;
                    if (p->mask)
                        d += (double)p->mask[b * p->ms[0] + h * p->ms[1] + i * p->ms[2] + j * p->ms[3]];
                    if (p->causal && j - i > Sk - Sq)
                        d = -INFINITY;
                    s[i * Sk + j] = d;
                }
            for (int64_t i = 0; i < Sq; i++) {
                double mx = -INFINITY, tot = 0;
                for (int64_t j = 0; j < Sk; j++)
                    mx = fmax(mx, s[i * Sk + j]);
                for (int64_t j = 0; j < Sk; j++)
                    tot += (s[i * Sk + j] = exp(s[i * Sk + j] - mx));
                for (int64_t t = 0; t < p->Dv; t++) {
                    double o = 0;
                    for (int64_t j = 0; j < Sk; j++)
                        o += s[i * Sk + j] / tot *
                             (double)p->v[b * p->vs[0] + kh * p->vs[1] + j * p->vs[2] + t * p->vs[3]];
                    want[((b * p->Hq + h) * Sq + i) * p->Dv + t] = Sk == 0 ? 0.0 : mx == -INFINITY ? NAN : o;
                }
            }
        }
    free(s);
}

/* the kernel's output, gathered into [B, Hq, Sq, Dv] order */
static void gather_out(const kattn_params_t *p, float *dense)
{
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t h = 0; h < p->Hq; h++)
            for (int64_t i = 0; i < p->Sq; i++)
                for (int64_t t = 0; t < p->Dv; t++)
                    dense[((b * p->Hq + h) * p->Sq + i) * p->Dv + t] =
                        p->o[b * p->os[0] + h * p->os[1] + i * p->os[2] + t * p->os[3]];
}

static void run_case(const shape_case_t *c, int mask_kind, int layout, base_pool_t *pool)
{
    kattn_params_t p;
    memset(&p, 0, sizeof p);
    p.B = c->B, p.Hq = c->Hq, p.Hk = c->Hk, p.Sq = c->Sq, p.Sk = c->Sk, p.D = c->D, p.Dv = c->Dv;
    p.scale = (float)(1.0 / sqrt((double)c->D));
    int64_t nq = p.B * p.Hq * p.Sq * p.D, nk = p.B * p.Hk * p.Sk * p.D;
    int64_t nv = p.B * p.Hk * p.Sk * p.Dv, no = p.B * p.Hq * p.Sq * p.Dv;
    float *q = malloc(sizeof(float) * (size_t)nq), *k = malloc(sizeof(float) * (size_t)nk);
    float *v = malloc(sizeof(float) * (size_t)nv), *o = malloc(sizeof(float) * (size_t)no);
    float *dense = malloc(sizeof(float) * (size_t)no);
    double *want = malloc(sizeof(double) * (size_t)no);
    float *mask = NULL;
    check_rng_t r = {(uint64_t)(c->Sq * 131 + c->D * 7 + mask_kind * 3 + layout + 1)};
    check_fill_f32(&r, q, nq, -2, 2);
    check_fill_f32(&r, k, nk, -2, 2);
    check_fill_f32(&r, v, nv, -1, 1);
    strides(layout & 1, p.Hq, p.Sq, p.D, p.qs);
    strides(layout & 1, p.Hk, p.Sk, p.D, p.ks);
    strides(layout & 1, p.Hk, p.Sk, p.Dv, p.vs);
    strides((layout >> 1) & 1, p.Hq, p.Sq, p.Dv, p.os);
    p.q = q, p.k = k, p.v = v, p.o = o;
    p.causal = mask_kind == MASK_CAUSAL || mask_kind == MASK_CAUSAL_PAD;
    if (mask_kind == MASK_PAD || mask_kind == MASK_CAUSAL_PAD) {
        /* [B, 1, 1, Sk]: batch b pads its last b + 1 keys */
        mask = malloc(sizeof(float) * (size_t)(p.B * p.Sk));
        for (int64_t b = 0; b < p.B; b++)
            for (int64_t j = 0; j < p.Sk; j++)
                mask[b * p.Sk + j] = j >= p.Sk - (b + 1) && j > 0 ? (b & 1 ? -1e4f : -INFINITY) : 0.0f;
        p.ms[0] = p.Sk, p.ms[1] = 0, p.ms[2] = 0, p.ms[3] = 1;
    } else if (mask_kind == MASK_GENERAL) {
        int64_t n = p.B * p.Hq * p.Sq * p.Sk;
        mask = malloc(sizeof(float) * (size_t)n);
        check_fill_f32(&r, mask, n, -3, 3);
        p.ms[3] = 1, p.ms[2] = p.Sk, p.ms[1] = p.Sq * p.Sk, p.ms[0] = p.Hq * p.Sq * p.Sk;
    } else if (mask_kind == MASK_KEYS) {
        /* [B, H, 1, Sk]: a finite bias per key, the same for every query
         * (the fast kernels start the score sums from it) */
        mask = malloc(sizeof(float) * (size_t)(p.B * p.Hq * p.Sk));
        check_fill_f32(&r, mask, p.B * p.Hq * p.Sk, -4, 2);
        p.ms[3] = 1, p.ms[2] = 0, p.ms[1] = p.Sk, p.ms[0] = p.Hq * p.Sk;
    } else if (mask_kind == MASK_2D) {
        mask = malloc(sizeof(float) * (size_t)(p.Sq * p.Sk));
        check_fill_f32(&r, mask, p.Sq * p.Sk, -5, 1);
        p.ms[3] = 1, p.ms[2] = p.Sk;
    }
    p.mask = mask;
    attn_double(&p, want);

    char what[200];
    snprintf(what, sizeof what, "B%lld Hq%lld Hk%lld Sq%lld Sk%lld D%lld Dv%lld mask %d layout %d",
             (long long)p.B, (long long)p.Hq, (long long)p.Hk, (long long)p.Sq, (long long)p.Sk,
             (long long)p.D, (long long)p.Dv, mask_kind, layout);
    kctx_t kc = {pool, pool ? base_pool_threads(pool) : 1};
    /* the selected variant (what CAIRN_ISA caps), then every one this CPU has */
    for (int vi = -1; vi < kattn_n_variants; vi++) {
        const kattn_variant_t *var = vi < 0 ? NULL : &kattn_variants[vi];
        if (var && (var->isa > base_cpu()->best_isa || !var->block))
            continue;
        for (int64_t i = 0; i < no; i++)
            o[i] = NAN;
        CHECK_OK(kattn_f32(var, &p, &kc));
        gather_out(&p, dense);
        char w2[260];
        snprintf(w2, sizeof w2, "%s [%s]", what, var ? var->name : "selected");
        check_close_f32(dense, want, no, 2e-6, 2e-5, w2);
    }
    for (int64_t i = 0; i < no; i++)
        o[i] = NAN;
    kattn_ref_f32(&p);
    gather_out(&p, dense);
    char w3[260];
    snprintf(w3, sizeof w3, "%s [ref]", what);
    check_close_f32(dense, want, no, 1e-6, 1e-6, w3);
    free(q), free(k), free(v), free(o), free(dense), free(want), free(mask);
}

static void test_kernels(void)
{
    static const shape_case_t cases[] = {
        {1, 1, 1, 1, 1, 32, 32},     {2, 3, 3, 17, 17, 32, 32},   {1, 2, 1, 70, 70, 64, 64},
        {2, 2, 2, 65, 130, 80, 80},  {1, 1, 1, 129, 129, 128, 128}, {1, 4, 2, 33, 97, 64, 48},
        {1, 2, 2, 5, 200, 32, 32},   {3, 2, 2, 64, 64, 128, 128}, {1, 2, 2, 100, 37, 80, 80},
        {2, 6, 3, 9, 9, 32, 20},
        /* the edge sequence lengths of the fast kernels' tiles (query
         * groups of 16 / 32, key steps of 6 / 8, key tiles of 128) */
        {1, 2, 1, 2, 2, 64, 64},     {2, 2, 1, 7, 7, 80, 80},     {1, 3, 3, 33, 33, 32, 32},
        {2, 4, 2, 128, 128, 32, 32}, {1, 2, 2, 257, 257, 64, 64}, {2, 2, 1, 128, 257, 128, 128},
        {1, 12, 12, 128, 128, 32, 32}, {1, 4, 1, 257, 257, 32, 32}, {2, 2, 2, 1, 129, 64, 64},
        /* long sequences over enough heads for every worker: each head's
         * K and V rows copied contiguous first (kattn_f32), grouped heads,
         * Dv != D */
        {2, 6, 2, 256, 270, 48, 40},
    };
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(3, &pool));
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int ci = 0; ci < n; ci++)
        for (int m = 0; m < N_MASKS; m++)
            run_case(&cases[ci], m, (ci + m) & 3, (ci + m) % 3 ? pool : NULL);
    /* Sq > Sk with causal: the first rows see no key at all (NaN, as
     * Softmax of an all -inf row); Sk = 0: zeros */
    shape_case_t odd = {1, 2, 2, 10, 4, 32, 32};
    run_case(&odd, MASK_CAUSAL, 0, pool);
    shape_case_t none = {1, 1, 1, 3, 0, 32, 32};
    run_case(&none, MASK_NONE, 0, NULL);
    base_pool_destroy(pool);
}

/* The fast variants' softmax exponential 2^x (x <= 0) against double
 * exp2: relative error <= 2.5e-7 (fast_impl.h: 2.2e-7 measured) over a
 * dense sweep of [-125, 0] plus random points; 2^-k exact for integers k;
 * +0 below -125, at -inf and for NaN (never subnormal). */
static void test_exp2(void)
{
    typedef void (*exp_fn)(const float *, float *, int64_t);
    struct { const char *name; cairn_isa_t isa; exp_fn f; } fns[] = {
        {"avx512", CAIRN_ISA_AVX512, kattn_exp2_neg_f32_avx512},
        {"avx2", CAIRN_ISA_AVX2, kattn_exp2_neg_f32_avx2},
    };
    enum { N = 1 << 16 };
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N);
    check_rng_t r = {12345};
    for (int fi = 0; fi < 2; fi++) {
#if !defined(__x86_64__)
        continue;
#endif
        if (fns[fi].isa > base_cpu()->best_isa)
            continue;
        double worst = 0;
        float worst_x = 0;
        for (int pass = 0; pass < 40; pass++) {
            for (int i = 0; i < N; i++)
                x[i] = pass < 32 ? -125.0f * (float)(pass * N + i) / (float)(32 * N)
                                 : (float)check_rng_uniform(&r, -125.0, 0.0);
            fns[fi].f(x, y, N);
            for (int i = 0; i < N; i++) {
                double w = exp2((double)x[i]), e = fabs((double)y[i] - w) / w;
                if (e > worst)
                    worst = e, worst_x = x[i];
            }
        }
        CHECK_MSG(worst <= 2.5e-7, "%s exp2: max relative error %.3g at x = %.9g", fns[fi].name,
                  worst, (double)worst_x);
        for (int i = 0; i < 64; i++)
            x[i] = i < 32 ? -(float)(i * 4) : i < 40 ? -125.5f - (float)(i - 32) * 20.0f
                   : i < 48 ? -INFINITY : i < 56 ? NAN : -1e30f;
        fns[fi].f(x, y, 64);
        for (int i = 0; i < 32; i++)
            CHECK_MSG(y[i] == ldexpf(1.0f, -i * 4), "%s exp2(%d) = %.9g", fns[fi].name, -i * 4,
                      (double)y[i]);
        for (int i = 32; i < 64; i++)
            CHECK_MSG(y[i] == 0.0f && !signbit(y[i]), "%s exp2(%g) = %g, want +0", fns[fi].name,
                      (double)x[i], (double)y[i]);
    }
    free(x), free(y);
}

/* ---- the op through the C API ---- */

static void test_op(void)
{
    /* Q, K, V as [B, S, H, D] (perm [0, 2, 1, 3]), mask [B, 1, 1, Sk],
     * output [B, S, H, Dv] */
    const int64_t B = 2, S = 19, H = 3, D = 32;
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dq[4] = {B, S, H, D}, dm[4] = {B, 1, 1, S};
    cairn_value_id in[4], y = -1;
    CHECK_OK(cairn_graph_add_input(g, "q", CAIRN_F32, 4, dq, NULL, &in[0]));
    CHECK_OK(cairn_graph_add_input(g, "k", CAIRN_F32, 4, dq, NULL, &in[1]));
    CHECK_OK(cairn_graph_add_input(g, "v", CAIRN_F32, 4, dq, NULL, &in[2]));
    CHECK_OK(cairn_graph_add_input(g, "mask", CAIRN_F32, 4, dm, NULL, &in[3]));
    int64_t perm[4] = {0, 2, 1, 3};
    cairn_attr_t a[6] = {cairn_attr_float("scale", 0.25f), cairn_attr_int("causal", 1),
                         cairn_attr_ints("q_perm", perm, 4), cairn_attr_ints("k_perm", perm, 4),
                         cairn_attr_ints("v_perm", perm, 4), cairn_attr_ints("out_perm", perm, 4)};
    CHECK_OK(cairn_graph_add_node(g, "FusedAttention", "attn", in, 4, a, 6, &y, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    cairn_session_options_t so = cairn_session_options_default();
    so.threads = 2;
    cairn_session_t *s = NULL;
    CHECK_OK(cairn_session_create(g, &so, &s));
    int64_t n = B * S * H * D;
    float *buf[4], *out = malloc(sizeof(float) * (size_t)n);
    check_rng_t r = {99};
    cairn_tensor_t ti[4], to = {CAIRN_F32, 4, {B, S, H, D}, out};
    for (int i = 0; i < 4; i++) {
        int64_t m = i < 3 ? n : B * S;
        buf[i] = malloc(sizeof(float) * (size_t)m);
        check_fill_f32(&r, buf[i], m, -1.5, 1.5);
        ti[i].dtype = CAIRN_F32;
        ti[i].rank = 4;
        for (int d = 0; d < 4; d++)
            ti[i].shape[d] = i < 3 ? dq[d] : dm[d];
        ti[i].data = buf[i];
    }
    buf[3][5] = -INFINITY; /* a padded key of batch 0 */
    for (int64_t i = 0; i < n; i++)
        out[i] = NAN;
    CHECK_OK(cairn_session_run(s, ti, 4, &to, 1));
    double *want = malloc(sizeof(double) * (size_t)n);
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < H; h++)
            for (int64_t i = 0; i < S; i++) {
                double sc[19], mx = -INFINITY, tot = 0;
                for (int64_t j = 0; j < S; j++) {
                    double d = 0;
                    for (int64_t t = 0; t < D; t++)
                        d += (double)buf[0][((b * S + i) * H + h) * D + t] *
                             (double)buf[1][((b * S + j) * H + h) * D + t];
                    sc[j] = j > i ? -INFINITY : 0.25 * d + buf[3][b * S + j];
                    mx = fmax(mx, sc[j]);
                }
                for (int64_t j = 0; j < S; j++)
                    tot += (sc[j] = exp(sc[j] - mx));
                for (int64_t t = 0; t < D; t++) {
                    double acc = 0;
                    for (int64_t j = 0; j < S; j++)
                        acc += sc[j] / tot * buf[2][((b * S + j) * H + h) * D + t];
                    want[((b * S + i) * H + h) * D + t] = acc;
                }
            }
    check_close_f32(out, want, n, 2e-6, 2e-5, "FusedAttention op, [B,S,H,D] layouts");
    free(want), free(out);
    for (int i = 0; i < 4; i++)
        free(buf[i]);
    cairn_session_destroy(s);

    /* errors at build time */
    cairn_value_id bad = -1, q64;
    int64_t bp[4] = {0, 1, 1, 3};
    cairn_attr_t ab = cairn_attr_ints("q_perm", bp, 4);
    CHECK_FAILS(cairn_graph_add_node(g, "FusedAttention", "bad_perm", in, 3, &ab, 1, &bad, 1, NULL),
                CAIRN_ERR_INVALID_ARGUMENT, "not a permutation");
    CHECK_OK(cairn_graph_add_input(g, "q64", CAIRN_F64, 4, dq, NULL, &q64));
    cairn_value_id in64[3] = {q64, in[1], in[2]};
    CHECK_FAILS(cairn_graph_add_node(g, "FusedAttention", "bad_dtype", in64, 3, NULL, 0, &bad, 1, NULL),
                CAIRN_ERR_DTYPE, "Q must be f32");
    int64_t dmb[4] = {B, 1, 2, S};
    cairn_value_id mb, inm[4] = {in[0], in[1], in[2], -1};
    CHECK_OK(cairn_graph_add_input(g, "mask_bad", CAIRN_F32, 4, dmb, NULL, &mb));
    inm[3] = mb;
    CHECK_FAILS(cairn_graph_add_node(g, "FusedAttention", "bad_mask", inm, 4, NULL, 0, &bad, 1, NULL),
                CAIRN_ERR_SHAPE, "mask dim 2 is 2");
    /* K/V with 2 heads cannot serve Q's 3 */
    int64_t dk2[4] = {B, 2, S, D};
    cairn_value_id k2, v2;
    CHECK_OK(cairn_graph_add_input(g, "k2", CAIRN_F32, 4, dk2, NULL, &k2));
    CHECK_OK(cairn_graph_add_input(g, "v2", CAIRN_F32, 4, dk2, NULL, &v2));
    int64_t dq2[4] = {B, 3, S, D};
    cairn_value_id q2, ing[3];
    CHECK_OK(cairn_graph_add_input(g, "q2", CAIRN_F32, 4, dq2, NULL, &q2));
    ing[0] = q2, ing[1] = k2, ing[2] = v2;
    CHECK_FAILS(cairn_graph_add_node(g, "FusedAttention", "bad_gqa", ing, 3, NULL, 0, &bad, 1, NULL),
                CAIRN_ERR_SHAPE, "must divide Q's 3 heads");
    cairn_value_id in3[3] = {in[0], in[1], q64};
    CHECK_FAILS(cairn_graph_add_node(g, "FusedAttention", "bad_v", in3, 3, NULL, 0, &bad, 1, NULL),
                CAIRN_ERR_DTYPE, "V must be f32");
    cairn_graph_destroy(g);
}

int main(void)
{
    test_exp2();
    test_kernels();
    test_op();
    return check_finish("test_attn");
}
