/*
 * Vectorised f32 exp, expm1 (for arguments <= 0), log, erf, erfc (for
 * arguments >= 0.875), tanh and sigmoid, written once over a small set of
 * vector macros and instantiated per ISA by vmath_avx512.h and
 * vmath_avx2.h (each defines V, VI, M, the V_* macros and VM(name) before
 * including this file). Everything is static inline so the callers' loops
 * keep the constants in registers.
 *
 * Maximum error over the WHOLE float range (all 2^32 inputs, measured by
 * tests/unit/test_vmath.c against double-precision libm with
 * CAIRN_VMATH_FULL=1; the same bounds hold for the AVX-512 and AVX2
 * instantiations, which differ only in how 2^n and frexp are formed):
 *
 *   exp      1 ulp    (subnormal results included; overflow -> +inf,
 *                      underflow -> +0, exp(-inf) = 0, NaN -> NaN)
 *   log      1 ulp    (subnormal inputs included; log(0) = -inf,
 *                      log(x<0) = NaN, log(+inf) = +inf)
 *   erf      3 ulp    (erf(+-inf) = +-1, erf(-0) = -0)
 *   tanh     3 ulp    (tanh(+-inf) = +-1, tanh(-0) = -0)
 *   sigmoid  3 ulp    (sigmoid(-inf) = 0, sigmoid(+inf) = 1)
 *
 * (test_vmath asserts these numbers; its default run sweeps every 257th
 * float so that it stays fast, the full sweep runs as test_vmath_full.)
 *
 * Methods. exp: n = round(x / ln2), r = x - n ln2 in two parts
 * (Cody-Waite), e^r by its Taylor polynomial to r^7 (|r| <= ln2/2, the
 * omitted term is < 5e-9 relative), scaled by 2^n in one rounding so that
 * subnormal results are right. log: x = m 2^e with m in [sqrt(1/2),
 * sqrt(2)), f = m - 1, s = f / (2 + f), log(1 + f) = f - (f^2/2 - s (f^2/2
 * + R(s^2))) with R the atanh series to s^10; the result is e ln2_hi +
 * (log1p + e ln2_lo). erf: |x| < 0.875 the Taylor series to x^21; above,
 * 1 - exp(-x^2) g(x) with g(x) = erfc(x) exp(x^2) a degree-17 Chebyshev
 * interpolant on [0.875, 6] (relative error 1.3e-7 with float
 * coefficients, damped by erfc/erf <= 0.28), x^2 carried as hi + lo. tanh:
 * -t / (2 + t) with t = expm1(-2|x|), so there is no cancellation near 0
 * and no separate small-argument path. sigmoid: e = exp(-|x|), then 1/(1+e)
 * or e/(1+e), so no exp ever overflows.
 */
#ifndef VM
#error "include vmath_avx512.h or vmath_avx2.h, not this file"
#endif

/* NaN-propagating clamp: x86 min/max return their second operand when
 * either is NaN, so the constant goes first. */
static inline V VM(clamp)(V x, float lo, float hi)
{
    return V_MIN(V_SET1(hi), V_MAX(V_SET1(lo), x));
}

static inline V VM(copysign)(V mag, V sgn)
{
    V sm = V_SET1(-0.0f);
    return V_OR(V_ANDNOT(sm, mag), V_AND(sm, sgn));
}

static inline V VM(exp)(V x)
{
    x = VM(clamp)(x, -104.0f, 89.0f);
    V n = V_ROUND(V_MUL(x, V_SET1(1.44269504088896341f)));
    V r = V_FNMA(n, V_SET1(0.693359375f), x);
    r = V_FNMA(n, V_SET1(-2.12194440e-4f), r);
    V p = V_SET1(1.98412698e-4f); /* 1/7! */
    p = V_FMA(p, r, V_SET1(1.38888889e-3f));
    p = V_FMA(p, r, V_SET1(8.33333333e-3f));
    p = V_FMA(p, r, V_SET1(4.16666667e-2f));
    p = V_FMA(p, r, V_SET1(1.66666667e-1f));
    p = V_FMA(p, r, V_SET1(0.5f));
    p = V_FMA(p, r, V_SET1(1.0f));
    p = V_FMA(p, r, V_SET1(1.0f));
    return V_SCALE2N(p, n);
}

/* e^y - 1 for y <= 0 (and NaN), relative error ~1 ulp. */
static inline V VM(expm1_neg)(V y)
{
    y = V_MAX(V_SET1(-40.0f), y);
    V n = V_ROUND(V_MUL(y, V_SET1(1.44269504088896341f)));
    V r = V_FNMA(n, V_SET1(0.693359375f), y);
    r = V_FNMA(n, V_SET1(-2.12194440e-4f), r);
    V q = V_SET1(2.48015873e-5f); /* 1/8! */
    q = V_FMA(q, r, V_SET1(1.98412698e-4f));
    q = V_FMA(q, r, V_SET1(1.38888889e-3f));
    q = V_FMA(q, r, V_SET1(8.33333333e-3f));
    q = V_FMA(q, r, V_SET1(4.16666667e-2f));
    q = V_FMA(q, r, V_SET1(1.66666667e-1f));
    q = V_FMA(q, r, V_SET1(0.5f));
    V p = V_FMA(V_MUL(q, r), r, r); /* expm1(r) */
    V s = V_POW2N_SMALL(n);          /* 2^n, n in [-58, 0] */
    return V_FMA(s, p, V_SUB(s, V_SET1(1.0f)));
}

static inline V VM(log)(V x)
{
    V m, e;
    V_FREXP(x, m, e); /* x = m 2^e, m in [1, 2) for finite x > 0 */
    M big = V_CMP_GT(m, V_SET1(1.41421356f));
    m = V_BLEND(big, m, V_MUL(m, V_SET1(0.5f)));
    e = V_BLEND(big, e, V_ADD(e, V_SET1(1.0f)));
    V f = V_SUB(m, V_SET1(1.0f));
    V s = V_DIV(f, V_ADD(f, V_SET1(2.0f)));
    V z = V_MUL(s, s);
    V R = V_SET1(1.81818182e-1f); /* 2/11 */
    R = V_FMA(R, z, V_SET1(2.22222222e-1f));
    R = V_FMA(R, z, V_SET1(2.85714286e-1f));
    R = V_FMA(R, z, V_SET1(4.0e-1f));
    R = V_FMA(R, z, V_SET1(6.66666667e-1f));
    R = V_MUL(R, z);
    V hfsq = V_MUL(V_MUL(f, f), V_SET1(0.5f));
    V l1p = V_SUB(f, V_FNMA(s, V_ADD(hfsq, R), hfsq));
    V tail = V_FMA(e, V_SET1(-2.12194440e-4f), l1p);
    V res = V_FMA(e, V_SET1(0.693359375f), tail);
    /* specials: x == 0 -> -inf, x == +inf -> +inf, x < 0 or NaN -> NaN */
    res = V_BLEND(V_CMP_EQ(x, V_SET1(0.0f)), res, V_SET1(-INFINITY));
    res = V_BLEND(V_CMP_EQ(x, V_SET1(INFINITY)), res, V_SET1(INFINITY));
    res = V_BLEND(V_CMP_NGE(x, V_SET1(0.0f)), res, V_SET1(NAN));
    return res;
}

/* erf(a) for 0 <= a < 0.875 (odd Taylor series) */
static inline V VM(erf_small)(V a)
{
    V z = V_MUL(a, a);
    V p = V_SET1(1.480719282e-08f);
    p = V_FMA(p, z, V_SET1(-1.636584469e-07f));
    p = V_FMA(p, z, V_SET1(1.646211437e-06f));
    p = V_FMA(p, z, V_SET1(-1.492565036e-05f));
    p = V_FMA(p, z, V_SET1(1.205533298e-04f));
    p = V_FMA(p, z, V_SET1(-8.548327023e-04f));
    p = V_FMA(p, z, V_SET1(5.223977625e-03f));
    p = V_FMA(p, z, V_SET1(-2.686617065e-02f));
    p = V_FMA(p, z, V_SET1(1.128379167e-01f));
    p = V_FMA(p, z, V_SET1(-3.761263890e-01f));
    /* 2/sqrt(pi) = c0 + c0lo; the leading term a*c0 is added last */
    p = V_FMA(p, z, V_SET1(-5.863538344e-08f));
    return V_FMA(a, p, V_MUL(a, V_SET1(1.128379225730896f)));
}

/* erfc(a) for a >= 0.875 (NaN propagates; a >= 10 gives 0). */
static inline V VM(erfc_large)(V a)
{
    V ag = VM(clamp)(a, 0.875f, 6.0f);
    V t = V_MUL(V_SUB(ag, V_SET1(3.4375f)), V_SET1(1.0f / 2.5625f));
    static const float c[18] = {
        1.579186916e-01f, -1.093885005e-01f, 7.339939475e-02f, -4.782908037e-02f,
        3.033229336e-02f, -1.875456050e-02f, 1.131768897e-02f, -6.683264393e-03f,
        3.896052483e-03f, -2.204701072e-03f, 1.131676952e-03f, -6.242819945e-04f,
        4.951408482e-04f, -2.534757659e-04f, -2.743290497e-05f, 9.130360013e-06f,
        8.056985098e-05f, -3.877619747e-05f};
    V g = V_SET1(c[17]);
    for (int i = 16; i >= 0; i--)
        g = V_FMA(g, t, V_SET1(c[i]));
    V ae = V_MIN(V_SET1(10.0f), a);
    V hi = V_MUL(ae, ae);
    V lo = V_FMS(ae, ae, hi); /* ae^2 = hi + lo exactly */
    V ex = VM(exp)(V_SUB(V_SET1(0.0f), hi));
    ex = V_FNMA(ex, lo, ex); /* e^-(hi+lo) ~ e^-hi (1 - lo) */
    return V_MUL(ex, g);
}

static inline V VM(erf)(V x)
{
    V a = V_ABS(x);
    M small = V_CMP_LT(a, V_SET1(0.875f));
    V rs = VM(erf_small)(V_MIN(V_SET1(0.875f), a));
    V rl = V_SUB(V_SET1(1.0f), VM(erfc_large)(a));
    return VM(copysign)(V_BLEND(small, rl, rs), x);
}

static inline V VM(tanh)(V x)
{
    V a = V_ABS(x);
    V t = VM(expm1_neg)(V_MUL(a, V_SET1(-2.0f)));
    V r = V_DIV(V_SUB(V_SET1(0.0f), t), V_ADD(t, V_SET1(2.0f)));
    return VM(copysign)(r, x);
}

static inline V VM(sigmoid)(V x)
{
    V e = VM(exp)(V_SUB(V_SET1(0.0f), V_ABS(x)));
    V num = V_BLEND(V_CMP_LT(x, V_SET1(0.0f)), V_SET1(1.0f), e);
    return V_DIV(num, V_ADD(e, V_SET1(1.0f)));
}

/* Gelu, exact form: x Phi(x) = x/2 (1 + erf(x/sqrt2)); for x < 0 the
 * bracket is erfc(|z|), computed directly, so there is no cancellation. */
static inline V VM(gelu_erf)(V x)
{
    V z = V_MUL(x, V_SET1(0.70710678118654752f));
    V a = V_ABS(z);
    M small = V_CMP_LT(a, V_SET1(0.875f));
    V es = VM(erf_small)(V_MIN(V_SET1(0.875f), a));
    V ec = VM(erfc_large)(a);
    V cpos = V_BLEND(small, V_SUB(V_SET1(2.0f), ec), V_ADD(V_SET1(1.0f), es));
    V cneg = V_BLEND(small, ec, V_SUB(V_SET1(1.0f), es));
    V c = V_BLEND(V_CMP_LT(z, V_SET1(0.0f)), cpos, cneg);
    return V_MUL(V_MUL(x, V_SET1(0.5f)), c);
}

/* Gelu, tanh form: x/2 (1 + tanh(u)) = x sigmoid(2u) = x / (1 + e^-2u). */
static inline V VM(gelu_tanh)(V x)
{
    V x2 = V_MUL(x, x);
    V u2 = V_MUL(x, V_FMA(x2, V_SET1(2.0f * 0.79788456080286535588f * 0.044715f),
                          V_SET1(2.0f * 0.79788456080286535588f)));
    V e = VM(exp)(V_SUB(V_SET1(0.0f), u2));
    return V_DIV(x, V_ADD(V_SET1(1.0f), e));
}
