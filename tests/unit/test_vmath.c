/*
 * ULP error of the vectorised f32 exp, log, erf, tanh and sigmoid
 * (src/kernels/vmath/) against double-precision libm, for every ISA variant
 * this CPU runs. CAIRN_VMATH_FULL=1 sweeps all 2^32 floats (the test_vmath_full
 * ctest entry); the default sweeps every 257th bit pattern (every 4099th
 * under AddressSanitizer) so that the test stays fast. The bounds asserted
 * are the ones stated in vmath_impl.h. Special values are checked exactly.
 */
#include "base/cpu.h"
#include "check.h"
#include "kernels/eltwise/fast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_STRIDE 4099u
#else
#define DEFAULT_STRIDE 257u
#endif

typedef struct fn_case {
    const char *name;
    eltwise_f32_unop_t op;
    double (*ref)(double);
    double bound; /* ulp, as stated in vmath_impl.h */
} fn_case_t;

static double ref_sigmoid(double x)
{
    return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

static const fn_case_t cases[] = {
    {"exp", EF32_EXP, exp, 1.0},   {"log", EF32_LOG, log, 1.0},
    {"erf", EF32_ERF, erf, 3.0},   {"tanh", EF32_TANH, tanh, 3.0},
    {"sigmoid", EF32_SIGMOID, ref_sigmoid, 3.0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static double ulp_err(float got, double ref)
{
    if (isnan(ref))
        return isnan(got) ? 0.0 : INFINITY;
    if (isnan(got))
        return INFINITY;
    float rf = (float)ref;
    if (isinf(got))
        return got == rf ? 0.0 : INFINITY;
    int e = ref == 0.0 ? -126 : ilogb(ref);
    if (e < -126)
        e = -126;
    return fabs((double)got - ref) / ldexp(1.0, e - 23);
}

static float bits_f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#define BLK 4096

int main(void)
{
    const char *full = getenv("CAIRN_VMATH_FULL");
    const uint64_t stride = full && full[0] == '1' ? 1u : DEFAULT_STRIDE;
    /* CAIRN_VMATH_PART=i/n: only the i-th of n equal ranges of the bit
     * patterns (ctest runs the full sweep as parts side by side) */
    uint64_t u0 = 0, u1 = 1ull << 32;
    const char *part = getenv("CAIRN_VMATH_PART");
    unsigned pi = 0, pn = 1;
    if (part && sscanf(part, "%u/%u", &pi, &pn) == 2 && pn > 0 && pi < pn) {
        u0 = (1ull << 32) / pn * pi;
        u1 = pi + 1 == pn ? 1ull << 32 : (1ull << 32) / pn * (pi + 1);
    }
    const eltwise_f32_variant_t *vs[4];
    int nv = 0;
    for (int i = 0; i < eltwise_f32_n_variants; i++) {
        const eltwise_f32_variant_t *v = &eltwise_f32_variants[i];
        if (v->unary && eltwise_f32_variant_for(v->isa) == v)
            vs[nv++] = v;
    }
    printf("vmath: %d variant(s), stride %llu, bit patterns [%#llx, %#llx)\n", nv,
           (unsigned long long)stride, (unsigned long long)u0, (unsigned long long)u1);
    static float x[BLK], y[4][BLK];
    static double r[BLK];
    for (int c = 0; c < NCASES; c++) {
        double worst[4] = {0};
        float worst_x[4] = {0};
        for (uint64_t u = u0; u < u1;) {
            int n = 0;
            for (; n < BLK && u < u1; n++, u += stride)
                x[n] = bits_f((uint32_t)u);
            for (int k = 0; k < nv; k++)
                vs[k]->unary(cases[c].op, x, y[k], n);
            for (int i = 0; i < n; i++)
                r[i] = cases[c].ref((double)x[i]);
            for (int k = 0; k < nv; k++)
                for (int i = 0; i < n; i++) {
                    double e = ulp_err(y[k][i], r[i]);
                    if (e > worst[k]) {
                        worst[k] = e;
                        worst_x[k] = x[i];
                    }
                }
        }
        for (int k = 0; k < nv; k++) {
            printf("  %-8s %-7s max %.3f ulp (at x = %.9g)\n", cases[c].name, vs[k]->name,
                   worst[k], (double)worst_x[k]);
            CHECK_MSG(worst[k] <= cases[c].bound, "%s %s: %.3f ulp > stated %.1f at x = %.9g",
                      cases[c].name, vs[k]->name, worst[k], cases[c].bound, (double)worst_x[k]);
        }
    }
    /* special values, exactly */
    const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-45f, 100.0f, -120.0f};
    const int nsp = (int)(sizeof sp / sizeof sp[0]);
    for (int k = 0; k < nv; k++) {
        for (int c = 0; c < NCASES; c++) {
            float out[16];
            vs[k]->unary(cases[c].op, sp, out, nsp);
            for (int i = 0; i < nsp; i++) {
                double want = cases[c].ref((double)sp[i]);
                float wf = (float)want;
                int ok = isnan(wf) ? isnan(out[i])
                                   : (out[i] == wf && signbit(out[i]) == signbit(wf)) ||
                                         (!isinf(wf) && ulp_err(out[i], want) <= cases[c].bound &&
                                          signbit(out[i]) == signbit(wf));
                CHECK_MSG(ok, "%s %s(%g) = %g, want %g", vs[k]->name, cases[c].name,
                          (double)sp[i], (double)out[i], (double)wf);
            }
        }
    }
    return check_finish("test_vmath");
}
