/*
 * The reference attention kernel: for each (b, h, i) the whole score row is
 * formed, soft-maxed and multiplied by V, all in double (the inputs are
 * f32; double keeps the reference's own error far below the fast kernel's,
 * so tests can compare against it tightly).
 */
#include "kernels/attn/attn.h"

#include "base/alloc.h"

#include <math.h>
#include <stdlib.h>

void kattn_ref_f32(const kattn_params_t *p)
{
    double *s = malloc(sizeof(double) * (size_t)(p->Sk > 0 ? p->Sk : 1));
    double *acc = malloc(sizeof(double) * (size_t)(p->Dv > 0 ? p->Dv : 1));
    if (!s || !acc) { /* cannot happen for sane sizes; the caller checked scratch */
        free(s), free(acc);
        return;
    }
    int64_t grp = p->Hq / p->Hk, off = p->Sk - p->Sq;
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t h = 0; h < p->Hq; h++) {
            int64_t g = h / grp;
            const float *q = p->q + b * p->qs[0] + h * p->qs[1];
            const float *k = p->k + b * p->ks[0] + g * p->ks[1];
            const float *v = p->v + b * p->vs[0] + g * p->vs[1];
            float *o = p->o + b * p->os[0] + h * p->os[1];
            for (int64_t i = 0; i < p->Sq; i++) {
                double mx = -INFINITY;
                for (int64_t j = 0; j < p->Sk; j++) {
                    double d = 0;
                    for (int64_t t = 0; t < p->D; t++)
                        d += (double)q[i * p->qs[2] + t * p->qs[3]] *
                             (double)k[j * p->ks[2] + t * p->ks[3]];
                    d *= p->scale;
                    if (p->mask)
                        d += p->mask[b * p->ms[0] + h * p->ms[1] + i * p->ms[2] + j * p->ms[3]];
                    if (p->causal && j > i + off)
                        d = -INFINITY;
                    s[j] = d;
                    if (d > mx)
                        mx = d;
                }
                double sum = 0;
                for (int64_t j = 0; j < p->Sk; j++) {
                    s[j] = exp(s[j] - mx); /* all -inf: NaN, as Softmax gives */
                    sum += s[j];
                }
                for (int64_t t = 0; t < p->Dv; t++)
                    acc[t] = 0;
                for (int64_t j = 0; j < p->Sk; j++)
                    for (int64_t t = 0; t < p->Dv; t++)
                        acc[t] += s[j] * (double)v[j * p->vs[2] + t * p->vs[3]];
                for (int64_t t = 0; t < p->Dv; t++)
                    o[i * p->os[2] + t * p->os[3]] = (float)(p->Sk ? acc[t] / sum : 0.0) /* no keys: MatMul of empty P and V */;
            }
        }
    free(s);
    free(acc);
}
