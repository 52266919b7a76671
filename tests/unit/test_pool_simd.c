/* The vector pooling kernels (kernels/pool/fast.c: every variant of the
 * table the CPU and CAIRN_ISA allow, called directly, and the dispatch
 * through kpool_max / kpool_avg) against the reference on random 2-D
 * geometries at edge sizes: 1x1 to odd-sized images, windows 1..6 (wider
 * than the image too), strides 1..4, pads up to the window, floor and ceil
 * mode, count_include_pad, N*C planes over a thread pool. MaxPool must be
 * bit-identical to the general kernel (NaNs with distinct payloads, signed
 * zeros, infinities, ties); AveragePool bit-identical to a double sum in
 * the reference's order; GlobalAveragePool within 1e-6 relative of
 * sum|x| / n. ctest runs it under CAIRN_ISA=ref/avx2/avx512. */
#include "check.h"
#include "kernels/pool/fast.h"

#include "base/cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float nan_payload(uint32_t payload, int neg)
{
    uint32_t u = 0x7fc00000u | (payload & 0x3fffffu) | (neg ? 0x80000000u : 0u);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Average in double, the reference's way: valid taps in row-major order,
 * divided by the valid count (or the count inside the padded input). */
static void avg_oracle(const float *x, float *y, int64_t planes, const kpool_params_t *p,
                       int64_t H, int64_t W, int64_t OH, int64_t OW)
{
    for (int64_t pl = 0; pl < planes; pl++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                const int64_t h0 = oh * p->stride[0] - p->pad_begin[0];
                const int64_t w0 = ow * p->stride[1] - p->pad_begin[1];
                double s = 0.0, n = 0.0;
                for (int64_t i = h0; i < h0 + p->kernel[0]; i++)
                    for (int64_t j = w0; j < w0 + p->kernel[1]; j++)
                        if (i >= 0 && i < H && j >= 0 && j < W) {
                            s += x[(pl * H + i) * W + j];
                            n += 1.0;
                        }
                if (p->count_include_pad) {
                    int64_t ch = H + p->pad_end[0] - h0, cw = W + p->pad_end[1] - w0;
                    ch = ch < 0 ? 0 : ch > p->kernel[0] ? p->kernel[0] : ch;
                    cw = cw < 0 ? 0 : cw > p->kernel[1] ? p->kernel[1] : cw;
                    n = (double)ch * (double)cw;
                }
                y[(pl * OH + oh) * OW + ow] = n > 0 ? (float)(s / n) : NAN;
            }
}

static int64_t bad_bits(const float *a, const float *b, int64_t n, int64_t *first)
{
    int64_t bad = 0;
    *first = -1;
    for (int64_t i = 0; i < n; i++)
        if (bits(a[i]) != bits(b[i])) {
            if (*first < 0)
                *first = i;
            bad++;
        }
    return bad;
}

static void fill(check_rng_t *r, float *x, int64_t n)
{
    check_fill_f32(r, x, n, -4, 4);
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = check_rng_next(r) % 64;
        if (u == 0)
            x[i] = nan_payload((uint32_t)check_rng_next(r), (int)(check_rng_next(r) & 1));
        else if (u == 1)
            x[i] = -0.0f;
        else if (u == 2)
            x[i] = 0.0f;
        else if (u == 3)
            x[i] = -INFINITY;
        else if (u == 4)
            x[i] = INFINITY;
        else if (u < 12)
            x[i] = (float)(int)x[i]; /* ties */
    }
}

static void test_2d(const kpool_f32_variant_t *v, base_pool_t *pool)
{
    check_rng_t r = {99};
    kctx_t k2 = {pool, 2};
    int ran = 0;
    for (int it = 0; it < 500; it++) {
        const int64_t N = 1 + (int64_t)(check_rng_next(&r) % 2),
                      C = 1 + (int64_t)(check_rng_next(&r) % 5);
        int64_t in[2], out[2];
        kpool_params_t p;
        memset(&p, 0, sizeof p);
        p.nsp = 2;
        p.count_include_pad = (int)(check_rng_next(&r) & 1);
        int ok = 1;
        for (int d = 0; d < 2; d++) {
            uint64_t u = check_rng_next(&r) % 6;
            in[d] = u == 0 ? 1 : u < 3 ? 1 + (int64_t)(check_rng_next(&r) % 9)
                                       : 1 + (int64_t)(check_rng_next(&r) % 60);
            /* every tenth case large enough (planes of 4096+ inputs, 16+
             * output rows) for the 2-thread runs to split rows, not planes */
            if (it % 10 == 9)
                in[d] = 64 + (int64_t)(check_rng_next(&r) % 70);
            p.kernel[d] = 1 + (int64_t)(check_rng_next(&r) % 6);
            if (check_rng_next(&r) % 3 == 0)
                p.kernel[d] = 3;
            p.stride[d] = 1 + (int64_t)(check_rng_next(&r) % 4);
            p.dilation[d] = 1;
            p.pad_begin[d] = (int64_t)(check_rng_next(&r) % (uint64_t)(p.kernel[d] + 1));
            p.pad_end[d] = (int64_t)(check_rng_next(&r) % (uint64_t)(p.kernel[d] + 1));
            int64_t span = in[d] + p.pad_begin[d] + p.pad_end[d] - p.kernel[d];
            if (span < 0) {
                ok = 0;
                break;
            }
            out[d] = (check_rng_next(&r) & 1) ? span / p.stride[d] + 1
                                               : (span + p.stride[d] - 1) / p.stride[d] + 1;
            if ((out[d] - 1) * p.stride[d] - p.pad_begin[d] >= in[d] + p.pad_end[d])
                out[d]--; /* ceil mode: a last window starting past the padding is dropped */
        }
        if (!ok || out[0] < 1 || out[1] < 1)
            continue;
        ran++;
        const int64_t nx = N * C * in[0] * in[1], ny = N * C * out[0] * out[1];
        float *x = malloc((size_t)nx * sizeof *x), *y = malloc((size_t)ny * sizeof *y),
              *want = malloc((size_t)ny * sizeof *want);
        int64_t *ind = malloc((size_t)ny * sizeof *ind);
        fill(&r, x, nx);
        ktensor_t xt = {CAIRN_F32, 4, {N, C, in[0], in[1]}, x};
        ktensor_t yt = {CAIRN_F32, 4, {N, C, out[0], out[1]}, y};
        ktensor_t wt = {CAIRN_F32, 4, {N, C, out[0], out[1]}, want};
        ktensor_t it_ = {CAIRN_I64, 4, {N, C, out[0], out[1]}, ind};
        char what[200];
        snprintf(what, sizeof what,
                 "%s case %d: [%lld,%lld,%lld,%lld] -> %lldx%lld k %lldx%lld s %lldx%lld pads "
                 "%lld,%lld/%lld,%lld incl %d",
                 v->name, it, (long long)N, (long long)C, (long long)in[0], (long long)in[1],
                 (long long)out[0], (long long)out[1], (long long)p.kernel[0],
                 (long long)p.kernel[1], (long long)p.stride[0], (long long)p.stride[1],
                 (long long)p.pad_begin[0], (long long)p.pad_begin[1], (long long)p.pad_end[0],
                 (long long)p.pad_end[1], p.count_include_pad);
        /* max: the variant itself, then the dispatch, against the general kernel */
        CHECK_OK(kpool_max(&xt, &wt, &it_, &p, NULL));
        for (int64_t i = 0; i < ny; i++)
            y[i] = 12345.0f;
        CHECK_MSG(kpool_max_f32_fast(v, &xt, &yt, NULL, &p, it & 1 ? &k2 : NULL) == 1,
                  "%s: max not covered", what);
        int64_t first, bad = bad_bits(y, want, ny, &first);
        CHECK_MSG(bad == 0, "%s: max: %lld outputs differ, first %lld: %08x vs %08x", what,
                  (long long)bad, (long long)first, first >= 0 ? bits(y[first]) : 0,
                  first >= 0 ? bits(want[first]) : 0);
        for (int64_t i = 0; i < ny; i++)
            y[i] = 12345.0f;
        CHECK_OK(kpool_max(&xt, &yt, NULL, &p, &k2));
        bad = bad_bits(y, want, ny, &first);
        CHECK_MSG(bad == 0, "%s: max dispatch: %lld outputs differ", what, (long long)bad);
        /* average: against the double oracle, bit for bit */
        avg_oracle(x, want, N * C, &p, in[0], in[1], out[0], out[1]);
        for (int64_t i = 0; i < ny; i++)
            y[i] = 12345.0f;
        CHECK_MSG(kpool_avg_f32_fast(v, &xt, &yt, &p, it & 1 ? &k2 : NULL) == 1,
                  "%s: average not covered", what);
        bad = 0, first = -1;
        for (int64_t i = 0; i < ny; i++)
            if (bits(y[i]) != bits(want[i]) && !(isnan(y[i]) && isnan(want[i])))
                bad++, first = first < 0 ? i : first;
        CHECK_MSG(bad == 0, "%s: average: %lld outputs differ, first %lld: %.9g vs %.9g", what,
                  (long long)bad, (long long)first, first >= 0 ? (double)y[first] : 0.0,
                  first >= 0 ? (double)want[first] : 0.0);
        for (int64_t i = 0; i < ny; i++)
            y[i] = 12345.0f;
        CHECK_OK(kpool_avg(&xt, &yt, &p, &k2));
        bad = 0;
        for (int64_t i = 0; i < ny; i++)
            bad += bits(y[i]) != bits(want[i]) && !(isnan(y[i]) && isnan(want[i]));
        CHECK_MSG(bad == 0, "%s: average dispatch: %lld outputs differ", what, (long long)bad);
        free(x), free(y), free(want), free(ind);
    }
    CHECK(ran > 300);
}

/* Global average over 1..3 spatial dims (any window equal to the input). */
static void test_global(const kpool_f32_variant_t *v, base_pool_t *pool)
{
    check_rng_t r = {5};
    kctx_t k2 = {pool, 2};
    for (int it = 0; it < 120; it++) {
        const int nsp = 1 + it % 3;
        kpool_params_t p;
        memset(&p, 0, sizeof p);
        p.nsp = nsp;
        ktensor_t xt = {CAIRN_F32, nsp + 2, {0}, NULL}, yt = {CAIRN_F32, nsp + 2, {0}, NULL};
        xt.shape[0] = yt.shape[0] = 1 + (int64_t)(check_rng_next(&r) % 2);
        xt.shape[1] = yt.shape[1] = 1 + (int64_t)(check_rng_next(&r) % 70);
        int64_t n = 1;
        for (int d = 0; d < nsp; d++) {
            int64_t s = 1 + (int64_t)(check_rng_next(&r) % (nsp == 1 ? 300 : 19));
            xt.shape[d + 2] = p.kernel[d] = s;
            yt.shape[d + 2] = 1;
            p.stride[d] = p.dilation[d] = 1;
            n *= s;
        }
        const int64_t planes = xt.shape[0] * xt.shape[1];
        float *x = malloc((size_t)(planes * n) * sizeof *x), *y = malloc((size_t)planes * sizeof *y);
        double *want = malloc((size_t)planes * sizeof *want);
        check_fill_f32(&r, x, planes * n, -3, 5);
        double worst = 0;
        for (int64_t pl = 0; pl < planes; pl++) {
            double s = 0, a = 0;
            for (int64_t i = 0; i < n; i++)
                s += x[pl * n + i], a += fabs(x[pl * n + i]);
            want[pl] = s / (double)n;
            worst = a / (double)n > worst ? a / (double)n : worst;
        }
        xt.data = x, yt.data = y;
        for (int pass = 0; pass < 2; pass++) {
            for (int64_t i = 0; i < planes; i++)
                y[i] = NAN;
            if (pass == 0)
                CHECK(kpool_avg_f32_fast(v, &xt, &yt, &p, it & 1 ? &k2 : NULL) == 1);
            else
                CHECK_OK(kpool_avg(&xt, &yt, &p, &k2));
            char what[96];
            snprintf(what, sizeof what, "%s global average %d (nsp %d, n %lld, pass %d)", v->name,
                     it, nsp, (long long)n, pass);
            check_close_f32(y, want, planes, 1e-6 * worst, 1e-6, what);
        }
        free(x), free(y), free(want);
    }
}

/* Geometries the vector kernels leave to the reference: rows too wide for
 * the ring, indices wanted, dilation; the dispatch still gives the
 * reference's result. */
static void test_declined(const kpool_f32_variant_t *v)
{
    check_rng_t r = {17};
    kpool_params_t p;
    memset(&p, 0, sizeof p);
    p.nsp = 2;
    for (int d = 0; d < 2; d++)
        p.kernel[d] = 3, p.stride[d] = 1, p.dilation[d] = 1, p.pad_begin[d] = p.pad_end[d] = 1;
    const int64_t H = 3, W = 9000;
    float *x = malloc((size_t)(H * W) * sizeof *x), *y = malloc((size_t)(H * W) * sizeof *y),
          *want = malloc((size_t)(H * W) * sizeof *want);
    int64_t *ind = malloc((size_t)(H * W) * sizeof *ind);
    fill(&r, x, H * W);
    ktensor_t xt = {CAIRN_F32, 4, {1, 1, H, W}, x}, yt = {CAIRN_F32, 4, {1, 1, H, W}, y};
    ktensor_t wt = {CAIRN_F32, 4, {1, 1, H, W}, want}, it_ = {CAIRN_I64, 4, {1, 1, H, W}, ind};
    CHECK(kpool_max_f32_fast(v, &xt, &yt, NULL, &p, NULL) == 0);
    CHECK(kpool_max_f32_fast(v, &xt, &yt, &it_, &p, NULL) == 0);
    CHECK_OK(kpool_max(&xt, &wt, &it_, &p, NULL));
    CHECK_OK(kpool_max(&xt, &yt, NULL, &p, NULL));
    int64_t first;
    CHECK(bad_bits(y, want, H * W, &first) == 0);
    p.dilation[1] = 2;
    CHECK(kpool_avg_f32_fast(v, &xt, &yt, &p, NULL) == 0);
    free(x), free(y), free(want), free(ind);
}

int main(void)
{
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    const cairn_isa_t level = base_isa_select(CAIRN_ISA_AUTO);
    int tested = 0;
    for (int i = 0; i < kpool_f32_n_variants; i++) {
        const kpool_f32_variant_t *v = &kpool_f32_variants[i];
        if (!v->max2d || v->isa > level)
            continue;
        tested++;
        test_2d(v, pool);
        test_global(v, pool);
        test_declined(v);
    }
    printf("pool variant in use: %s; %d vector variant(s) tested\n", kpool_f32_variant_name(),
           tested);
    CHECK(strcmp(kpool_f32_variant_name(), kpool_f32_variant_for(level)->name) == 0);
    base_pool_destroy(pool);
    return check_finish("test_pool_simd");
}
