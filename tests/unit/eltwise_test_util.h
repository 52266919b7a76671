/* Helpers shared by the eltwise tests: tensor views, f16/bf16 encoders
 * independent of cairn's converters, and a one-node graph runner. */
#ifndef CAIRN_TESTS_ELTWISE_TEST_UTIL_H
#define CAIRN_TESTS_ELTWISE_TEST_UTIL_H

#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cairn_tensor_t tens(cairn_dtype_t dt, int rank, const int64_t *shape, void *data)
{
    cairn_tensor_t t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.rank = rank;
    for (int i = 0; i < rank; i++)
        t.shape[i] = shape[i];
    t.data = data;
    return t;
}
#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})

static int64_t numel(const cairn_tensor_t *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

/* Encoders truncate (exact for representable values); used to build
 * f16/bf16 inputs, whose decoded values the references then use. */
static uint16_t enc_f16(double v)
{
    uint16_t s = v < 0 ? 0x8000 : 0;
    if (fabs(v) < 6.103515625e-05) /* below the normal range: flush (tests avoid it) */
        return s;
    int e;
    double m = frexp(fabs(v), &e); /* v = m * 2^e, m in [0.5, 1) */
    int E = e - 1 + 15;
    uint16_t f = (uint16_t)((m * 2 - 1) * 1024);
    return (uint16_t)(s | (E << 10) | f);
}
static double dec_f16(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, f = h & 1023;
    double v;
    if (e == 0)
        v = ldexp(f, -24);
    else if (e == 31)
        v = f ? NAN : INFINITY;
    else
        v = ldexp(1024 + f, e - 25);
    return s ? -v : v;
}
static uint16_t enc_bf16(double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
static double dec_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void put(cairn_dtype_t t, void *p, int64_t i, double v)
{
    switch (t) {
    case CAIRN_F32: ((float *)p)[i] = (float)v; break;
    case CAIRN_F64: ((double *)p)[i] = v; break;
    case CAIRN_F16: ((uint16_t *)p)[i] = enc_f16(v); break;
    case CAIRN_BF16: ((uint16_t *)p)[i] = enc_bf16(v); break;
    case CAIRN_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case CAIRN_I16: ((int16_t *)p)[i] = (int16_t)v; break;
    case CAIRN_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case CAIRN_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    case CAIRN_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case CAIRN_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    default: break;
    }
}
static double get(cairn_dtype_t t, const void *p, int64_t i)
{
    switch (t) {
    case CAIRN_F32: return ((const float *)p)[i];
    case CAIRN_F64: return ((const double *)p)[i];
    case CAIRN_F16: return dec_f16(((const uint16_t *)p)[i]);
    case CAIRN_BF16: return dec_bf16(((const uint16_t *)p)[i]);
    case CAIRN_I8: return ((const int8_t *)p)[i];
    case CAIRN_I16: return ((const int16_t *)p)[i];
    case CAIRN_I32: return ((const int32_t *)p)[i];
    case CAIRN_I64: return (double)((const int64_t *)p)[i];
    case CAIRN_U8: return ((const uint8_t *)p)[i];
    case CAIRN_BOOL: return ((const uint8_t *)p)[i];
    default: return NAN;
    }
}

/* Fills a buffer with a pattern no kernel writes by accident (NaN bytes
 * for floats), so unwritten elements fail the checks. */
static void poison(cairn_tensor_t *t)
{
    memset(t->data, 0xFF, (size_t)numel(t) * cairn_dtype_size(t->dtype));
}

/* Builds a one-node graph over graph inputs (dtype UNDEFINED: omitted
 * optional input), runs it into *out (its dtype/shape must be right) and
 * returns the first failing status. */
static cairn_status_t run_node(const char *op, const cairn_tensor_t *in, int n_in,
                               const cairn_attr_t *attrs, int n_attrs, cairn_tensor_t *out)
{
    cairn_graph_t *g = NULL;
    cairn_session_t *s = NULL;
    cairn_value_id ids[16], y;
    cairn_tensor_t feeds[16];
    int nf = 0;
    cairn_status_t st = cairn_graph_create(&g);
    for (int i = 0; st == CAIRN_OK && i < n_in; i++) {
        if (in[i].dtype == CAIRN_DTYPE_UNDEFINED) {
            ids[i] = -1;
            continue;
        }
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        st = cairn_graph_add_input(g, name, in[i].dtype, in[i].rank, in[i].shape, NULL, &ids[i]);
        feeds[nf++] = in[i];
    }
    if (st == CAIRN_OK)
        st = cairn_graph_add_node(g, op, "n", ids, n_in, attrs, n_attrs, &y, 1, NULL);
    if (st == CAIRN_OK)
        st = cairn_graph_mark_output(g, y);
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = 1;
    if (st == CAIRN_OK)
        st = cairn_session_create(g, &o, &s);
    if (st == CAIRN_OK && out->data)
        poison(out);
    if (st == CAIRN_OK)
        st = cairn_session_run(s, feeds, nf, out, 1);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
    return st;
#endif
