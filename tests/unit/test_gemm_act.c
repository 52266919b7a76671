/*
 * Accuracy of the fused GEMM epilogue's transcendental activations (GELU
 * erf and tanh forms, SiLU, sigmoid) on every micro-kernel variant the CPU
 * runs at or below the ISA level in force, against the double formulas.
 *
 * Each activation goes through gemm_f32_run with K = 1 and A = 1, so C =
 * act(B) with B the inputs: a dense sweep of [-10, 10] in steps of 1e-4
 * plus huge, tiny, denormal, infinite and NaN values, on one row (full
 * 8-wide vectors and a ragged tail) and on 6 rows (a full micro-tile).
 *
 * Asserted: |got - want| <= ABS + AX |x| + REL |want| (bounds per activation below,
 * a little above the errors measured on the AVX2 kernel, which are printed);
 * NaN in gives NaN out; +-inf give the limits (GELU(-inf) and SiLU(-inf),
 * inf * 0 in the formula, may be 0 or NaN).
 */
#include "base/cpu.h"
#include "check.h"
#include "kernels/gemm/gemm_f32_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

static double act_d(gemm_act_t act, double x)
{
    switch (act) {
    case GEMM_ACT_GELU_ERF:
        return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case GEMM_ACT_GELU_TANH:
        return 0.5 * x * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case GEMM_ACT_SILU:
        return x / (1.0 + exp(-x));
    case GEMM_ACT_SIGMOID:
        return 1.0 / (1.0 + exp(-x));
    default:
        return x;
    }
}

typedef struct bound {
    gemm_act_t act;
    const char *name;
    double abs, ax, rel; /* asserted: |err| <= abs + ax |x| + rel |want| */
} bound_t;

/* GELU(x) = x/2 (1 + g(x)): where g is near -1 (x < -3) 1 + g is a
 * difference of numbers near 1, so the error there is a fraction of |x|,
 * not of the tiny result. Sigmoid and SiLU keep a relative error down to
 * results of 1e-36 (1 / (1 + e^88) may or may not flush to 0). */
static const bound_t bounds[] = {
    {GEMM_ACT_GELU_ERF, "gelu_erf", 1e-30, 2e-7, 2.5e-7},
    {GEMM_ACT_GELU_TANH, "gelu_tanh", 1e-30, 2e-7, 2.5e-7},
    {GEMM_ACT_SILU, "silu", 1e-36, 0, 2.5e-7},
    {GEMM_ACT_SIGMOID, "sigmoid", 1e-36, 0, 2.5e-7},
};

/* C = act(B) for n inputs through the variant (K = 1, A = 1) on `rows`
 * rows of the same inputs */
static void run_act(const gemm_f32_variant_t *v, gemm_act_t act, const float *x, int64_t n,
                    int rows, float *out)
{
    float A[6] = {1, 1, 1, 1, 1, 1};
    gemm_epilogue_t e = {GEMM_BIAS_NONE, NULL, act, 0, 0, 1.0f, NULL, 0, GEMM_ACT_NONE, 0, 0};
    kctx_t k = {NULL, 1};
    gemm_f32_run(v, &k, 0, 0, rows, n, 1, 1.0f, A, 1, x, n, 0.0f, out, n, &e);
}

typedef struct stats {
    double max_abs, max_abs_x;       /* largest |got - want|, at x */
    double max_rel, max_rel_x;       /* largest |got - want| / |want| where |want| >= 1e-3 */
    double max_ax, max_ax_x;         /* largest |got - want| / |x| where |want| < 1e-3 */
    double max_excess, max_excess_x; /* largest |err| / bound */
} stats_t;

/* Checks one result; returns 1 when it is within the bound. */
static int check_one(const bound_t *b, float x, float got, stats_t *s)
{
    double want = act_d(b->act, (double)x);
    if (isnan(x))
        return isnan(got);
    if (isinf(x)) {
        if (x > 0)
            return b->act == GEMM_ACT_SIGMOID ? fabs(got - 1.0) <= b->rel : got == INFINITY;
        /* the limit is 0; the formula's inf * 0 is NaN */
        return fabs(got) <= b->abs || (isnan(got) && isnan(want));
    }
    if (isnan(got))
        return 0;
    double err = fabs((double)got - want);
    if (err > s->max_abs)
        s->max_abs = err, s->max_abs_x = x;
    if (fabs(want) >= 1e-3 && err / fabs(want) > s->max_rel)
        s->max_rel = err / fabs(want), s->max_rel_x = x;
    if (fabs(want) < 1e-3 && fabs(x) >= 1e-30 && err / fabs(x) > s->max_ax)
        s->max_ax = err / fabs(x), s->max_ax_x = x;
    double lim = b->abs + b->ax * fabs(x) + b->rel * fabs(want);
    if (err / lim > s->max_excess)
        s->max_excess = err / lim, s->max_excess_x = x;
    return err <= lim;
}

static void sweep(const gemm_f32_variant_t *v, const bound_t *b)
{
    static const float special[] = {0.0f,     -0.0f,    1e-45f,   -1e-45f,  1e-40f,   -1e-40f,
                                    FLT_MIN,  -FLT_MIN, 1e-30f,   -1e-30f,  1e-10f,   -1e-10f,
                                    1e-6f,    -1e-6f,   5.75f,    -5.75f,   5.999f,   -5.999f,
                                    6.0f,     -6.0f,    6.001f,   -6.001f,  12.0f,    -12.0f,
                                    17.0f,    -17.0f,   20.0f,    -20.0f,   50.0f,    -50.0f,
                                    86.9f,    -86.9f,   87.0f,    -87.0f,   87.5f,    -87.5f,
                                    88.0f,    -88.0f,   88.8f,    -88.8f,   100.0f,   -100.0f,
                                    1e4f,     -1e4f,    1e10f,    -1e10f,   1e30f,    -1e30f,
                                    FLT_MAX,  -FLT_MAX, INFINITY, -INFINITY, NAN,     -NAN};
    const int64_t nsweep = 200001, nspec = (int64_t)(sizeof special / sizeof special[0]);
    const int64_t n = nsweep + nspec;
    float *x = malloc((size_t)n * sizeof(float));
    float *y = malloc((size_t)(6 * n) * sizeof(float));
    for (int64_t i = 0; i < nsweep; i++)
        x[i] = (float)(-10.0 + 1e-4 * (double)i);
    for (int64_t i = 0; i < nspec; i++)
        x[nsweep + i] = special[i];
    stats_t s = {0};
    int bad = 0;
    float bad_x = 0, bad_got = 0;
    for (int rows = 1; rows <= 6; rows += 5) {
        for (int64_t i = 0; i < 6 * n; i++)
            y[i] = 12345.0f;
        run_act(v, b->act, x, n, rows, y);
        for (int r = 0; r < rows; r++)
            for (int64_t i = 0; i < n; i++)
                if (!check_one(b, x[i], y[r * n + i], &s) && !bad++)
                    bad_x = x[i], bad_got = y[r * n + i];
    }
    printf("  %-9s %-14s max |err| %.3g (x = %.5g); where |f| >= 1e-3: max |err| / |f| %.3g "
           "(x = %.5g); where |f| < 1e-3: max |err| / |x| %.3g (x = %.5g); worst err / bound "
           "%.3g (x = %.5g)\n",
           b->name, v->name, s.max_abs, s.max_abs_x, s.max_rel, s.max_rel_x, s.max_ax, s.max_ax_x,
           s.max_excess, s.max_excess_x);
    CHECK_MSG(bad == 0,
              "%s on %s: %d results outside |err| <= %g + %g |x| + %g |want|, first at x = "
              "%.9g: got %.9g, want %.9g",
              b->name, v->name, bad, b->abs, b->ax, b->rel, bad_x, bad_got, act_d(b->act, bad_x));
    free(x);
    free(y);
}

int main(void)
{
    cairn_isa_t level = base_isa_select(CAIRN_ISA_AUTO);
    const gemm_f32_variant_t *done[8];
    int nd = 0;
    for (cairn_isa_t cap = level; cap >= CAIRN_ISA_REF; cap--) {
        const gemm_f32_variant_t *v = gemm_f32_variant_for(cap);
        int seen = 0;
        for (int i = 0; i < nd; i++)
            seen |= done[i] == v;
        if (seen)
            continue;
        done[nd++] = v;
        printf("variant %s\n", v->name);
        for (size_t a = 0; a < sizeof bounds / sizeof bounds[0]; a++)
            sweep(v, &bounds[a]);
    }
    return check_finish("test_gemm_act");
}
