/*
 * The row loops of the fast f32 Softmax, LayerNorm and RMSNorm kernels, written
 * over the vector macros of one vmath ISA header and instantiated by
 * x86_avx512.c and x86_avx2.c (KN(name) names the instance). Tails use
 * masked loads with a neutral fill (-inf for the max, 0 for sums and sums
 * of squares, the mean for squared deviations) and masked stores.
 */
#ifndef KN
#error "include from an ISA file that defines KN"
#endif

#include <math.h>

void KN(softmax_rows)(const float *x, float *y, int64_t rows, int64_t d, int lg)
{
    const int64_t dv = d - d % VLEN, tail = d - dv;
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        V vm = V_SET1(-INFINITY);
        for (int64_t i = 0; i < dv; i += VLEN)
            vm = V_MAX(vm, V_LOAD(xr + i));
        if (tail)
            vm = V_MAX(vm, V_LOADN(xr + dv, tail, -INFINITY));
        float m = V_HMAX(vm);
        if (m == -INFINITY) /* as the reference: all -inf rows use 0 */
            m = 0.0f;
        const V mv = V_SET1(m);
        V s = V_ZERO();
        if (lg) {
            for (int64_t i = 0; i < dv; i += VLEN)
                s = V_ADD(s, VM(exp)(V_SUB(V_LOAD(xr + i), mv)));
            if (tail)
                s = V_ADD(s, VM(exp)(V_SUB(V_LOADN(xr + dv, tail, -INFINITY), mv)));
            /* (x - max) - log(sum): x - max is exact for the large entries,
             * where max + log(sum) would round at max's magnitude */
            const V ls = V_SET1(logf(V_HSUM(s)));
            for (int64_t i = 0; i < dv; i += VLEN)
                V_STORE(yr + i, V_SUB(V_SUB(V_LOAD(xr + i), mv), ls));
            if (tail)
                V_STOREN(yr + dv, tail, V_SUB(V_SUB(V_LOADN(xr + dv, tail, 0.0f), mv), ls));
        } else {
            for (int64_t i = 0; i < dv; i += VLEN) {
                V e = VM(exp)(V_SUB(V_LOAD(xr + i), mv));
                s = V_ADD(s, e);
                V_STORE(yr + i, e);
            }
            if (tail) {
                V e = VM(exp)(V_SUB(V_LOADN(xr + dv, tail, -INFINITY), mv));
                s = V_ADD(s, e);
                V_STOREN(yr + dv, tail, e);
            }
            const V inv = V_SET1(1.0f / V_HSUM(s));
            for (int64_t i = 0; i < dv; i += VLEN)
                V_STORE(yr + i, V_MUL(V_LOAD(yr + i), inv));
            if (tail)
                V_STOREN(yr + dv, tail, V_MUL(V_LOADN(yr + dv, tail, 0.0f), inv));
        }
    }
}

void KN(layernorm_rows)(const float *x, float *y, int64_t rows, int64_t d, const float *scale,
                        const float *bias, float eps, float *mean, float *isd)
{
    const int64_t dv = d - d % VLEN, tail = d - dv;
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        V s = V_ZERO();
        for (int64_t i = 0; i < dv; i += VLEN)
            s = V_ADD(s, V_LOAD(xr + i));
        if (tail)
            s = V_ADD(s, V_LOADN(xr + dv, tail, 0.0f));
        const float mu = V_HSUM(s) / (float)d;
        const V muv = V_SET1(mu);
        V q = V_ZERO();
        for (int64_t i = 0; i < dv; i += VLEN) {
            V t = V_SUB(V_LOAD(xr + i), muv);
            q = V_FMA(t, t, q);
        }
        if (tail) {
            V t = V_SUB(V_LOADN(xr + dv, tail, mu), muv);
            q = V_FMA(t, t, q);
        }
        const float inv = 1.0f / sqrtf(V_HSUM(q) / (float)d + eps);
        const V iv = V_SET1(inv);
        if (bias) {
            for (int64_t i = 0; i < dv; i += VLEN)
                V_STORE(yr + i, V_FMA(V_MUL(V_SUB(V_LOAD(xr + i), muv), iv), V_LOAD(scale + i),
                                      V_LOAD(bias + i)));
            if (tail)
                V_STOREN(yr + dv, tail,
                         V_FMA(V_MUL(V_SUB(V_LOADN(xr + dv, tail, 0.0f), muv), iv),
                               V_LOADN(scale + dv, tail, 0.0f), V_LOADN(bias + dv, tail, 0.0f)));
        } else {
            for (int64_t i = 0; i < dv; i += VLEN)
                V_STORE(yr + i, V_MUL(V_MUL(V_SUB(V_LOAD(xr + i), muv), iv), V_LOAD(scale + i)));
            if (tail)
                V_STOREN(yr + dv, tail, V_MUL(V_MUL(V_SUB(V_LOADN(xr + dv, tail, 0.0f), muv), iv),
                                              V_LOADN(scale + dv, tail, 0.0f)));
        }
        if (mean)
            mean[r] = mu;
        if (isd)
            isd[r] = inv;
    }
}

/* RMS norm: one pass for the sum of squares (four vector accumulators, so
 * four FMA chains run in parallel and each holds a quarter of the terms),
 * one pass for y = x * inv_rms * scale. */
void KN(rmsnorm_rows)(const float *x, float *y, int64_t rows, int64_t d, const float *scale,
                      float eps)
{
    const int64_t d4 = d - d % (4 * VLEN), dv = d - d % VLEN, tail = d - dv;
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        V q0 = V_ZERO(), q1 = V_ZERO(), q2 = V_ZERO(), q3 = V_ZERO();
        int64_t i = 0;
        for (; i < d4; i += 4 * VLEN) {
            V a = V_LOAD(xr + i), b = V_LOAD(xr + i + VLEN);
            V c = V_LOAD(xr + i + 2 * VLEN), e = V_LOAD(xr + i + 3 * VLEN);
            q0 = V_FMA(a, a, q0);
            q1 = V_FMA(b, b, q1);
            q2 = V_FMA(c, c, q2);
            q3 = V_FMA(e, e, q3);
        }
        for (; i < dv; i += VLEN) {
            V a = V_LOAD(xr + i);
            q0 = V_FMA(a, a, q0);
        }
        if (tail) {
            V a = V_LOADN(xr + dv, tail, 0.0f);
            q1 = V_FMA(a, a, q1);
        }
        const float ss = V_HSUM(V_ADD(V_ADD(q0, q1), V_ADD(q2, q3)));
        const float inv = 1.0f / sqrtf(ss / (float)d + eps);
        const V iv = V_SET1(inv);
        for (i = 0; i < dv; i += VLEN)
            V_STORE(yr + i, V_MUL(V_MUL(V_LOAD(xr + i), iv), V_LOAD(scale + i)));
        if (tail)
            V_STOREN(yr + dv, tail,
                     V_MUL(V_MUL(V_LOADN(xr + dv, tail, 0.0f), iv), V_LOADN(scale + dv, tail, 0.0f)));
    }
}
