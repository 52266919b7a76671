/*
 * MaxPool, AveragePool, GlobalMaxPool and GlobalAveragePool through the
 * public API: literal hand-computed cases (values, Indices in both storage
 * orders, ceil_mode and SAME/VALID output shapes), random 1-D/2-D/3-D cases
 * against a brute-force reference written here (every window tap tested
 * against explicit padded bounds), every dtype, and the error paths.
 */
#include "check.h"

#include "base/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- harness ---- */
#include "op_test_util.h"

static cairn_attr_t ints_attr(const char *name, const int64_t *v, size_t n)
{
    return cairn_attr_ints(name, v, n);
}

/* ---- literal cases ---- */

static void test_maxpool_literal(void)
{
    int64_t sh[4] = {1, 2, 4, 4}, osh[4] = {1, 2, 2, 2};
    double xv[32];
    for (int i = 0; i < 32; i++)
        xv[i] = i < 16 ? i + 1 : 100 - i; /* plane 1 decreasing: maxima at window starts */
    const int64_t k2[2] = {2, 2};
    cairn_attr_t at2[3] = {ints_attr("kernel_shape", k2, 2), ints_attr("strides", k2, 2),
                           cairn_attr_int("storage_order", 0)};
    const double want[8] = {6, 8, 14, 16, 84, 82, 76, 74};
    const double want_i[8] = {5, 7, 13, 15, 16, 18, 24, 26};
    const double want_i_col[8] = {5, 13, 7, 15, 16, 24, 18, 26};
    const cairn_dtype_t types[6] = {CAIRN_F32, CAIRN_F64, CAIRN_F16, CAIRN_BF16, CAIRN_I8, CAIRN_U8};
    for (int ti = 0; ti < 6; ti++) {
        cairn_tensor_t x = from_doubles(types[ti], 4, sh, xv);
        cairn_tensor_t out[2] = {make_out(types[ti], 4, osh), make_out(CAIRN_I64, 4, osh)};
        CHECK_OK(run_op("MaxPool", &x, 1, 0, at2, 3, out, 2));
        check_near(&out[0], want, 0, "maxpool literal");
        check_near(&out[1], want_i, 0, "maxpool literal indices");
        at2[2] = cairn_attr_int("storage_order", 1);
        memset(out[1].data, 0xff, cairn_tensor_bytes(&out[1]));
        CHECK_OK(run_op("MaxPool", &x, 1, ti == 1 ? 1 : 0, at2, 3, out, 2));
        check_near(&out[1], want_i_col, 0, "maxpool literal indices, column-major");
        at2[2] = cairn_attr_int("storage_order", 0);
        drop(&x), drop(&out[0]), drop(&out[1]);
    }
    /* 3-D indices include the batch/channel offset and the depth stride */
    int64_t s3[5] = {2, 1, 2, 2, 2}, o3[5] = {2, 1, 1, 1, 1};
    double v3[16] = {0, 1, 2, 3, 4, 9, 6, 7, 5, 5, 5, 5, 5, 5, 5, 8};
    const int64_t k3[3] = {2, 2, 2};
    cairn_attr_t a3[2] = {ints_attr("kernel_shape", k3, 3), cairn_attr_int("storage_order", 1)};
    cairn_tensor_t x = from_doubles(CAIRN_F32, 5, s3, v3);
    cairn_tensor_t out[2] = {make_out(CAIRN_F32, 5, o3), make_out(CAIRN_I64, 5, o3)};
    CHECK_OK(run_op("MaxPool", &x, 1, 0, a3, 1, out, 2));
    const double w3[2] = {9, 8}, wi3[2] = {5, 15};
    check_near(&out[0], w3, 0, "maxpool 3-D");
    check_near(&out[1], wi3, 0, "maxpool 3-D indices");
    CHECK_OK(run_op("MaxPool", &x, 1, 0, a3, 2, out, 2));
    /* maxima at (d,h,w) = (1,0,1) and (1,1,1): row-major 5 and 7 (+8 for
     * the second batch); column-major d + 2h + 4w gives 5 and 7 as well */
    const double wi3cm[2] = {5, 15};
    check_near(&out[1], wi3cm, 0, "maxpool 3-D indices, column-major");
    drop(&x), drop(&out[0]), drop(&out[1]);
    /* a tie takes the first tap */
    int64_t s1[3] = {1, 1, 4}, o1[3] = {1, 1, 2};
    const double v1[4] = {7, 7, 3, 3};
    const int64_t k1[1] = {2};
    cairn_attr_t a1[2] = {ints_attr("kernel_shape", k1, 1), ints_attr("strides", k1, 1)};
    x = from_doubles(CAIRN_F32, 3, s1, v1);
    out[0] = make_out(CAIRN_F32, 3, o1), out[1] = make_out(CAIRN_I64, 3, o1);
    CHECK_OK(run_op("MaxPool", &x, 1, 0, a1, 2, out, 2));
    const double wt[2] = {7, 3}, wti[2] = {0, 2};
    check_near(&out[0], wt, 0, "maxpool tie");
    check_near(&out[1], wti, 0, "maxpool tie index");
    drop(&x), drop(&out[0]), drop(&out[1]);
}

static void test_avgpool_literal(void)
{
    int64_t sh[3] = {1, 1, 5}, osh[3] = {1, 1, 3};
    const double xv[5] = {1, 2, 3, 4, 5};
    const int64_t k[1] = {3}, s[1] = {2}, p[2] = {1, 1};
    cairn_attr_t a[4] = {ints_attr("kernel_shape", k, 1), ints_attr("strides", s, 1),
                         ints_attr("pads", p, 2), cairn_attr_int("count_include_pad", 0)};
    const double want0[3] = {1.5, 3, 4.5}, want1[3] = {1, 3, 3};
    for (int ti = 0; ti < 4; ti++) {
        cairn_tensor_t x = from_doubles(float_types[ti], 3, sh, xv);
        cairn_tensor_t y = make_out(float_types[ti], 3, osh);
        a[3] = cairn_attr_int("count_include_pad", 0);
        CHECK_OK(run_op("AveragePool", &x, 1, 0, a, 4, &y, 1));
        check_near(&y, want0, tol_of(float_types[ti]), "avgpool exclude pad");
        a[3] = cairn_attr_int("count_include_pad", 1);
        CHECK_OK(run_op("AveragePool", &x, 1, 0, a, 4, &y, 1));
        check_near(&y, want1, tol_of(float_types[ti]), "avgpool include pad");
        drop(&x), drop(&y);
    }
    /* 2-D, 2x2 stride 2 on 1..16 */
    int64_t s2[4] = {1, 1, 4, 4}, o2[4] = {1, 1, 2, 2};
    double v2[16];
    for (int i = 0; i < 16; i++)
        v2[i] = i + 1;
    const int64_t k2[2] = {2, 2};
    cairn_attr_t a2[2] = {ints_attr("kernel_shape", k2, 2), ints_attr("strides", k2, 2)};
    cairn_tensor_t x = from_doubles(CAIRN_F32, 4, s2, v2), y = make_out(CAIRN_F32, 4, o2);
    CHECK_OK(run_op("AveragePool", &x, 1, 0, a2, 2, &y, 1));
    const double w2[4] = {3.5, 5.5, 11.5, 13.5};
    check_near(&y, w2, 0, "avgpool 2-D");
    drop(&x), drop(&y);
}

/* Output shapes for ceil_mode and auto_pad, checked against literals. */
static void test_pool_shapes(void)
{
    double v[49];
    for (int i = 0; i < 49; i++)
        v[i] = (i * 37) % 11;
    /* 5x5, k2 s2: floor 2x2, ceil 3x3 with the edge windows cut short */
    int64_t s5[4] = {1, 1, 5, 5}, o2[4] = {1, 1, 2, 2}, o3[4] = {1, 1, 3, 3};
    double x25[25];
    for (int i = 0; i < 25; i++)
        x25[i] = i + 1;
    const int64_t k2[2] = {2, 2};
    cairn_attr_t a[3] = {ints_attr("kernel_shape", k2, 2), ints_attr("strides", k2, 2),
                         cairn_attr_int("ceil_mode", 0)};
    cairn_tensor_t x = from_doubles(CAIRN_F32, 4, s5, x25);
    cairn_tensor_t y2 = make_out(CAIRN_F32, 4, o2), y3 = make_out(CAIRN_F32, 4, o3);
    CHECK_OK(run_op("MaxPool", &x, 1, 0, a, 3, &y2, 1));
    const double wf[4] = {7, 9, 17, 19};
    check_near(&y2, wf, 0, "maxpool floor");
    a[2] = cairn_attr_int("ceil_mode", 1);
    CHECK_OK(run_op("MaxPool", &x, 1, 0, a, 3, &y3, 1));
    const double wc[9] = {7, 9, 10, 17, 19, 20, 22, 24, 25};
    check_near(&y3, wc, 0, "maxpool ceil");
    CHECK_OK(run_op("AveragePool", &x, 1, 0, a, 3, &y3, 1));
    const double wa[9] = {4, 6, 7.5, 14, 16, 17.5, 21.5, 23.5, 25};
    check_near(&y3, wa, 0, "avgpool ceil");
    drop(&x), drop(&y2), drop(&y3);

    /* 1-D shape table: in, k, s, pads, ceil, auto_pad -> out */
    struct { int64_t in, k, s, pb, pe; int ceil; const char *ap; int64_t out; } t[] = {
        {6, 3, 2, 0, 0, 0, "NOTSET", 2},     {6, 3, 2, 0, 0, 1, "NOTSET", 3},
        {5, 2, 3, 0, 1, 1, "NOTSET", 2},     /* ceil's third window would start past the input */
        {5, 2, 3, 0, 1, 0, "NOTSET", 2},     {7, 3, 2, 0, 0, 0, "SAME_UPPER", 4},
        {7, 3, 2, 0, 0, 1, "SAME_LOWER", 4}, {5, 3, 2, 0, 0, 0, "VALID", 2},
        {6, 3, 2, 0, 0, 1, "VALID", 3},      {3, 5, 1, 2, 2, 0, "NOTSET", 3},
        {1, 1, 1, 0, 0, 0, "NOTSET", 1},     {1, 3, 1, 0, 0, 0, "SAME_UPPER", 1},
        {4, 4, 1, 3, 3, 0, "NOTSET", 7},     {7, 2, 3, 1, 1, 1, "NOTSET", 3},
    };
    for (size_t c = 0; c < sizeof t / sizeof t[0]; c++) {
        int64_t sh[3] = {1, 2, t[c].in}, osh[3] = {1, 2, t[c].out};
        const int64_t kk[1] = {t[c].k}, ss[1] = {t[c].s}, pp[2] = {t[c].pb, t[c].pe};
        cairn_attr_t aa[5] = {ints_attr("kernel_shape", kk, 1), ints_attr("strides", ss, 1),
                              cairn_attr_int("ceil_mode", t[c].ceil),
                              cairn_attr_string("auto_pad", t[c].ap), ints_attr("pads", pp, 2)};
        int na = strcmp(t[c].ap, "NOTSET") ? 4 : 5;
        cairn_tensor_t xx = from_doubles(CAIRN_F32, 3, sh, v);
        cairn_tensor_t yy = make_out(CAIRN_F32, 3, osh); /* run checks the shape */
        CHECK_OK(run_op("MaxPool", &xx, 1, 0, aa, na, &yy, 1));
        CHECK_OK(run_op("AveragePool", &xx, 1, 0, aa, na, &yy, 1));
        int finite = 1;
        for (int64_t i = 0; i < numel(&yy); i++)
            finite &= isfinite(at(&yy, i));
        CHECK_MSG(finite, "shape case %zu left an output unwritten", c);
        drop(&xx), drop(&yy);
    }
    /* SAME on 2-D 7x5 with stride 2: 4x3; VALID: 3x2 */
    int64_t s75[4] = {1, 1, 7, 5}, o43[4] = {1, 1, 4, 3}, o32[4] = {1, 1, 3, 2};
    const int64_t k3[2] = {3, 3}, st2[2] = {2, 2};
    cairn_attr_t as[3] = {ints_attr("kernel_shape", k3, 2), ints_attr("strides", st2, 2),
                          cairn_attr_string("auto_pad", "SAME_UPPER")};
    x = from_doubles(CAIRN_F32, 4, s75, v);
    y2 = make_out(CAIRN_F32, 4, o43);
    CHECK_OK(run_op("MaxPool", &x, 1, 0, as, 3, &y2, 1));
    as[2] = cairn_attr_string("auto_pad", "VALID");
    y3 = make_out(CAIRN_F32, 4, o32);
    CHECK_OK(run_op("AveragePool", &x, 1, 0, as, 3, &y3, 1));
    drop(&x), drop(&y2), drop(&y3);
    /* SAME_UPPER puts the odd pad at the end, SAME_LOWER at the start */
    int64_t s1[3] = {1, 1, 5};
    const double x5[5] = {1, 2, 3, 4, 5};
    const int64_t kk2[1] = {2};
    cairn_attr_t au[2] = {ints_attr("kernel_shape", kk2, 1),
                          cairn_attr_string("auto_pad", "SAME_UPPER")};
    x = from_doubles(CAIRN_F32, 3, s1, x5);
    cairn_tensor_t y = make_out(CAIRN_F32, 3, s1);
    CHECK_OK(run_op("MaxPool", &x, 1, 0, au, 2, &y, 1));
    const double wu[5] = {2, 3, 4, 5, 5}, wl[5] = {1, 2, 3, 4, 5};
    const double wau[5] = {1.5, 2.5, 3.5, 4.5, 5}, wal[5] = {1, 1.5, 2.5, 3.5, 4.5};
    check_near(&y, wu, 0, "maxpool SAME_UPPER");
    CHECK_OK(run_op("AveragePool", &x, 1, 0, au, 2, &y, 1));
    check_near(&y, wau, 0, "avgpool SAME_UPPER");
    au[1] = cairn_attr_string("auto_pad", "SAME_LOWER");
    CHECK_OK(run_op("MaxPool", &x, 1, 0, au, 2, &y, 1));
    check_near(&y, wl, 0, "maxpool SAME_LOWER");
    CHECK_OK(run_op("AveragePool", &x, 1, 0, au, 2, &y, 1));
    check_near(&y, wal, 0, "avgpool SAME_LOWER");
    drop(&x), drop(&y);
}

/* ---- random cases against brute force ---- */

typedef struct geo {
    int nsp;
    int64_t in[3], k[3], s[3], d[3], pb[3], pe[3], out[3];
    int ceil_mode, cip, storage_order;
    const char *auto_pad;
} geo_t;

/* Output sizes and resolved pads, written from the spec's formulas. */
static int geo_resolve(geo_t *g)
{
    for (int i = 0; i < g->nsp; i++) {
        int64_t ext = (g->k[i] - 1) * g->d[i] + 1;
        if (!strcmp(g->auto_pad, "SAME_UPPER") || !strcmp(g->auto_pad, "SAME_LOWER")) {
            g->out[i] = (g->in[i] + g->s[i] - 1) / g->s[i];
            int64_t total = (g->out[i] - 1) * g->s[i] + ext - g->in[i];
            if (total < 0)
                total = 0;
            g->pb[i] = !strcmp(g->auto_pad, "SAME_UPPER") ? total / 2 : (total + 1) / 2;
            g->pe[i] = total - g->pb[i];
            continue;
        }
        if (!strcmp(g->auto_pad, "VALID"))
            g->pb[i] = g->pe[i] = 0;
        double span = (double)(g->in[i] + g->pb[i] + g->pe[i] - ext);
        if (span < 0)
            return 0;
        double q = span / (double)g->s[i];
        g->out[i] = (int64_t)(g->ceil_mode ? ceil(q) : floor(q)) + 1;
        if (g->ceil_mode && (g->out[i] - 1) * g->s[i] >= g->in[i] + g->pb[i])
            g->out[i]--;
    }
    return 1;
}

/* Brute force: every output point, every tap of the full window, each
 * tested against [0, in) and [-pb, in + pe). */
static void brute_pool(const geo_t *g, const cairn_tensor_t *x, int is_max, double *want,
                       double *want_idx)
{
    int64_t planes = x->shape[0] * x->shape[1], in_plane = 1, out_plane = 1, taps = 1;
    for (int i = 0; i < g->nsp; i++)
        in_plane *= g->in[i], out_plane *= g->out[i], taps *= g->k[i];
    for (int64_t p = 0; p < planes; p++)
        for (int64_t o = 0; o < out_plane; o++) {
            int64_t oc[3], rem = o;
            for (int i = g->nsp - 1; i >= 0; i--)
                oc[i] = rem % g->out[i], rem /= g->out[i];
            double best = 0, sum = 0, cnt = 0, cnt_pad = 0;
            int64_t best_pos[3] = {0, 0, 0};
            int have = 0;
            for (int64_t t = 0; t < taps; t++) {
                int64_t tc[3], r2 = t, pos[3];
                for (int i = g->nsp - 1; i >= 0; i--)
                    tc[i] = r2 % g->k[i], r2 /= g->k[i];
                int inside = 1, in_padded = 1;
                for (int i = 0; i < g->nsp; i++) {
                    pos[i] = oc[i] * g->s[i] - g->pb[i] + tc[i] * g->d[i];
                    if (pos[i] < 0 || pos[i] >= g->in[i])
                        inside = 0;
                    if (pos[i] < -g->pb[i] || pos[i] >= g->in[i] + g->pe[i])
                        in_padded = 0;
                }
                cnt_pad += in_padded;
                if (!inside)
                    continue;
                int64_t flat = 0;
                for (int i = 0; i < g->nsp; i++)
                    flat = flat * g->in[i] + pos[i];
                double v = at(x, p * in_plane + flat);
                cnt += 1, sum += v;
                if (!have || v > best) {
                    best = v, have = 1;
                    memcpy(best_pos, pos, sizeof best_pos);
                }
            }
            int64_t k = p * out_plane + o;
            if (is_max && !have) { /* dilated taps all in the padding */
                want[k] = x->dtype == CAIRN_I8 ? -128 : x->dtype == CAIRN_U8 ? 0 : -INFINITY;
                want_idx[k] = -1;
            } else if (is_max) {
                want[k] = best;
                int64_t idx = 0, m = 1;
                if (g->storage_order)
                    for (int i = 0; i < g->nsp; i++)
                        idx += best_pos[i] * m, m *= g->in[i];
                else
                    for (int i = 0; i < g->nsp; i++)
                        idx = idx * g->in[i] + best_pos[i];
                want_idx[k] = (double)(p * in_plane + idx);
            } else {
                want[k] = sum / (g->cip ? cnt_pad : cnt);
            }
        }
}

static void test_pool_random(void)
{
    check_rng_t r = {0xc0ffee11u};
    const char *modes[4] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
    const cairn_dtype_t max_types[6] = {CAIRN_F32, CAIRN_F64, CAIRN_F16, CAIRN_BF16, CAIRN_I8, CAIRN_U8};
    int done = 0;
    for (int c = 0; c < 400 && done < 150; c++) {
        geo_t g;
        memset(&g, 0, sizeof g);
        int is_max = c % 2 == 0;
        g.nsp = 1 + (int)(check_rng_next(&r) % 3);
        g.auto_pad = modes[check_rng_next(&r) % 4];
        g.ceil_mode = (int)(check_rng_next(&r) % 2);
        g.cip = (int)(check_rng_next(&r) % 2);
        g.storage_order = (int)(check_rng_next(&r) % 2);
        int use_dil = is_max && check_rng_next(&r) % 2;
        int max_in = g.nsp == 3 ? 5 : 8;
        for (int i = 0; i < g.nsp; i++) {
            g.in[i] = 1 + (int64_t)(check_rng_next(&r) % (uint64_t)max_in);
            g.k[i] = 1 + (int64_t)(check_rng_next(&r) % 4);
            g.s[i] = 1 + (int64_t)(check_rng_next(&r) % 3);
            g.d[i] = use_dil ? 1 + (int64_t)(check_rng_next(&r) % 2) : 1;
            int64_t ext = (g.k[i] - 1) * g.d[i] + 1;
            if (!strcmp(g.auto_pad, "NOTSET")) {
                g.pb[i] = (int64_t)(check_rng_next(&r) % (uint64_t)ext);
                g.pe[i] = (int64_t)(check_rng_next(&r) % (uint64_t)ext);
            }
        }
        int64_t pads_attr[6];
        for (int i = 0; i < g.nsp; i++)
            pads_attr[i] = g.pb[i], pads_attr[g.nsp + i] = g.pe[i];
        if (!geo_resolve(&g))
            continue;
        done++;
        cairn_dtype_t t = is_max ? max_types[c / 2 % 6] : float_types[c / 2 % 4];
        int64_t sh[5] = {1 + c % 2, 1 + c % 3}, osh[5] = {sh[0], sh[1]};
        for (int i = 0; i < g.nsp; i++)
            sh[2 + i] = g.in[i], osh[2 + i] = g.out[i];
        int rank = g.nsp + 2;
        double lo = t == CAIRN_U8 ? 0 : -100, hi = 100;
        cairn_tensor_t x = make_rand(&r, t, rank, sh, lo, hi);
        if (t == CAIRN_I8 || t == CAIRN_U8) /* whole numbers, exactly representable */
            for (int64_t i = 0; i < numel(&x); i++)
                base_store_from_double(x.data, t, i, floor(at(&x, i)));
        int64_t on = 1;
        for (int i = 0; i < rank; i++)
            on *= osh[i];
        double *want = malloc((size_t)on * sizeof *want), *widx = malloc((size_t)on * sizeof *widx);
        brute_pool(&g, &x, is_max, want, widx);
        cairn_attr_t a[8];
        int na = 0;
        a[na++] = ints_attr("kernel_shape", g.k, (size_t)g.nsp);
        a[na++] = ints_attr("strides", g.s, (size_t)g.nsp);
        a[na++] = cairn_attr_string("auto_pad", g.auto_pad);
        a[na++] = cairn_attr_int("ceil_mode", g.ceil_mode);
        if (!strcmp(g.auto_pad, "NOTSET"))
            a[na++] = ints_attr("pads", pads_attr, 2 * (size_t)g.nsp);
        if (is_max) {
            a[na++] = cairn_attr_int("storage_order", g.storage_order);
            if (use_dil)
                a[na++] = ints_attr("dilations", g.d, (size_t)g.nsp);
        } else {
            a[na++] = cairn_attr_int("count_include_pad", g.cip);
        }
        cairn_tensor_t out[2] = {make_out(t, rank, osh), make_out(CAIRN_I64, rank, osh)};
        cairn_status_t st = run_op(is_max ? "MaxPool" : "AveragePool", &x, 1, 0, a, na, out,
                                   is_max ? 2 : 1);
        CHECK_MSG(st == CAIRN_OK, "case %d (%s, %d-D, %s, ceil %d): %s", c,
                  is_max ? "max" : "avg", g.nsp, g.auto_pad, g.ceil_mode, cairn_last_error());
        if (st == CAIRN_OK) {
            check_near(&out[0], want, is_max ? 0 : tol_of(t), is_max ? "maxpool random" : "avgpool random");
            if (is_max)
                check_near(&out[1], widx, 0, "maxpool random indices");
        }
        if (is_max) { /* without indices: the 2-D row kernels (f32, u8, i8) where they apply */
            cairn_tensor_t o1 = make_out(t, rank, osh);
            st = run_op("MaxPool", &x, 1, 0, a, na, &o1, 1);
            CHECK_MSG(st == CAIRN_OK, "case %d without indices: %s", c, cairn_last_error());
            if (st == CAIRN_OK)
                check_near(&o1, want, 0, "maxpool random, no indices");
            drop(&o1);
        }
        free(want), free(widx);
        drop(&x), drop(&out[0]), drop(&out[1]);
    }
    CHECK(done >= 100);
}

static void test_global(void)
{
    int64_t sh[4] = {1, 2, 2, 2}, osh[4] = {1, 2, 1, 1};
    const double xv[8] = {1, 2, 3, 4, -1, -5, -2, -3};
    const double wmax[2] = {4, -1}, wavg[2] = {2.5, -2.75};
    for (int ti = 0; ti < 4; ti++) {
        cairn_tensor_t x = from_doubles(float_types[ti], 4, sh, xv);
        cairn_tensor_t y = make_out(float_types[ti], 4, osh);
        CHECK_OK(run_op("GlobalMaxPool", &x, 1, 0, NULL, 0, &y, 1));
        check_near(&y, wmax, 0, "global max literal");
        CHECK_OK(run_op("GlobalAveragePool", &x, 1, 0, NULL, 0, &y, 1));
        check_near(&y, wavg, tol_of(float_types[ti]), "global avg literal");
        drop(&x), drop(&y);
    }
    check_rng_t r = {0x515151u};
    for (int rank = 3; rank <= 5; rank++) {
        int64_t s[5], o[5];
        for (int i = 0; i < rank; i++) {
            s[i] = 1 + (int64_t)(check_rng_next(&r) % 5);
            o[i] = i < 2 ? s[i] : 1;
        }
        cairn_tensor_t x = make_rand(&r, CAIRN_F32, rank, s, -10, 10);
        int64_t planes = s[0] * s[1], plane = numel(&x) / planes;
        double *wm = malloc((size_t)planes * sizeof *wm), *wa = malloc((size_t)planes * sizeof *wa);
        for (int64_t p = 0; p < planes; p++) {
            double m = -INFINITY, sum = 0;
            for (int64_t i = 0; i < plane; i++) {
                double v = at(&x, p * plane + i);
                m = v > m ? v : m;
                sum += v;
            }
            wm[p] = m, wa[p] = sum / (double)plane;
        }
        cairn_tensor_t y = make_out(CAIRN_F32, rank, o);
        CHECK_OK(run_op("GlobalMaxPool", &x, 1, 0, NULL, 0, &y, 1));
        check_near(&y, wm, 0, "global max random");
        CHECK_OK(run_op("GlobalAveragePool", &x, 1, 0, NULL, 0, &y, 1));
        check_near(&y, wa, 1e-6, "global avg random");
        free(wm), free(wa), drop(&x), drop(&y);
    }
}

static void test_pool_errors(void)
{
    int64_t sh[4] = {1, 1, 4, 4}, osh[4] = {1, 1, 2, 2};
    cairn_tensor_t x = make(CAIRN_F32, 4, sh), y = make_out(CAIRN_F32, 4, osh);
    memset(x.data, 0, cairn_tensor_bytes(&x));
    const int64_t k1[1] = {2}, k2[2] = {2, 2}, s0[2] = {1, 0}, sn[2] = {-1, 1}, p2[2] = {0, 0};
    const int64_t p_big[4] = {2, 0, 0, 0}, k9[2] = {9, 9}, d2[2] = {2, 2}, pneg[4] = {0, -1, 0, 0};
    cairn_attr_t a[3];
    a[0] = ints_attr("kernel_shape", k1, 1);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 1, &y, 1), CAIRN_ERR_SHAPE, "kernel_shape has 1");
    CHECK_FAILS(run_op("AveragePool", &x, 1, 0, a, 1, &y, 1), CAIRN_ERR_SHAPE, "2 spatial");
    a[0] = ints_attr("kernel_shape", k2, 2);
    a[1] = ints_attr("strides", s0, 2);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "strides[1] is 0");
    a[1] = ints_attr("strides", sn, 2);
    CHECK_FAILS(run_op("AveragePool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "strides[0] is -1");
    a[1] = ints_attr("strides", k1, 1);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "strides has 1");
    a[1] = ints_attr("pads", p2, 2);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "pads has 2");
    a[1] = ints_attr("pads", pneg, 4);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, ">= 0");
    a[1] = ints_attr("pads", p_big, 4);
    CHECK_FAILS(run_op("AveragePool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "window extent 2");
    a[1] = ints_attr("dilations", d2, 2);
    CHECK_FAILS(run_op("AveragePool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_UNSUPPORTED, "opset 19");
    a[1] = cairn_attr_string("auto_pad", "SAME");
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "'SAME'");
    a[1] = cairn_attr_string("auto_pad", "VALID");
    a[2] = ints_attr("pads", (const int64_t[4]){1, 1, 1, 1}, 4);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 3, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "auto_pad=VALID");
    a[1] = cairn_attr_int("storage_order", 2);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "storage_order");
    a[1] = cairn_attr_int("ceil_mode", -1);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 2, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "ceil_mode");
    a[0] = ints_attr("kernel_shape", k9, 2);
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, a, 1, &y, 1), CAIRN_ERR_SHAPE, "larger than the padded input");
    CHECK_FAILS(run_op("MaxPool", &x, 1, 0, NULL, 0, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "kernel_shape");
    /* rank and dtype */
    int64_t s2[2] = {4, 4};
    cairn_tensor_t x2 = make(CAIRN_F32, 2, s2);
    memset(x2.data, 0, cairn_tensor_bytes(&x2));
    a[0] = ints_attr("kernel_shape", k2, 2);
    CHECK_FAILS(run_op("MaxPool", &x2, 1, 0, a, 1, &y, 1), CAIRN_ERR_SHAPE, "rank >= 3");
    CHECK_FAILS(run_op("GlobalAveragePool", &x2, 1, 0, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "rank >= 3");
    cairn_tensor_t xi = make(CAIRN_I32, 4, sh), x8 = make(CAIRN_I8, 4, sh);
    memset(xi.data, 0, cairn_tensor_bytes(&xi)), memset(x8.data, 0, cairn_tensor_bytes(&x8));
    CHECK_FAILS(run_op("MaxPool", &xi, 1, 0, a, 1, &y, 1), CAIRN_ERR_DTYPE, "i32");
    CHECK_FAILS(run_op("AveragePool", &x8, 1, 0, a, 1, &y, 1), CAIRN_ERR_DTYPE, "i8");
    CHECK_FAILS(run_op("GlobalMaxPool", &x8, 1, 0, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, "i8");
    drop(&x), drop(&y), drop(&x2), drop(&xi), drop(&x8);
}

/* Symbolic batch and spatial dims: the graph builds with unknown output
 * dims, and each run re-plans with the concrete ones. */
static void test_pool_symbolic(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dims[4] = {0, 1, 0, 0};
    const char *names[4] = {"n", NULL, "h", "w"};
    cairn_value_id x, y[2];
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, dims, names, &x));
    const int64_t k[2] = {3, 3};
    cairn_attr_t a[3] = {ints_attr("kernel_shape", k, 2), cairn_attr_string("auto_pad", "SAME_LOWER"),
                         cairn_attr_int("ceil_mode", 0)};
    CHECK_OK(cairn_graph_add_node(g, "MaxPool", "mp", &x, 1, a, 3, y, 2, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y[0]));
    CHECK_OK(cairn_graph_mark_output(g, y[1]));
    cairn_session_t *s;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    for (int h = 1; h <= 4; h += 3) {
        float in[2 * 4 * 5];
        for (int i = 0; i < 2 * h * 5; i++)
            in[i] = (float)((i * 7) % 13);
        cairn_tensor_t ti = {CAIRN_F32, 4, {2, 1, h, 5}, in};
        cairn_tensor_t to[2];
        memset(to, 0, sizeof to);
        CHECK_OK(cairn_session_run(s, &ti, 1, to, 2));
        CHECK(to[0].rank == 4 && to[0].shape[0] == 2 && to[0].shape[2] == h && to[0].shape[3] == 5);
        CHECK(to[1].dtype == CAIRN_I64 && to[1].shape[2] == h);
        int ok = 1;
        for (int i = 0; i < 2 * h * 5 && to[0].data; i++)
            ok &= ((float *)to[0].data)[i] == in[((int64_t *)to[1].data)[i]];
        CHECK(ok);
    }
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

int main(void)
{
    test_maxpool_literal();
    test_avgpool_literal();
    test_pool_shapes();
    test_pool_random();
    test_global();
    test_pool_errors();
    test_pool_symbolic();
    return check_finish("test_pool");
}
