/* Conv and ConvTranspose through the public API: hand-computed cases, and
 * random cases against independent double-precision formulations written
 * here (Conv: im2col + matmul; ConvTranspose: scatter of every input
 * element), over 1-D/2-D/3-D, groups, strides, pads, dilations, auto_pad,
 * output_padding/output_shape, bias, dtypes; plus the error paths. */
#include "test_linalg_util.h"

#define U24 (1.0 / 16777216.0)

typedef struct conv_case {
    int nsp;
    int64_t N, C, M, group;
    int64_t in[3], k[3], s[3], d[3], pads[6];
    const char *auto_pad;  /* NULL: not set */
    int bias;
    int give_kernel_shape; /* set kernel_shape (else inferred from W) */
    int give_pads;         /* set pads/strides/dilations attributes at all */
    int64_t opad[3];       /* ConvTranspose output_padding (0s: not set) */
    int64_t oshape[3];     /* ConvTranspose output_shape (0s: not set) */
} conv_case_t;

static int has_any(const int64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i])
            return 1;
    return 0;
}

/* Output spatial dims and begin pads per the ONNX formulas. */
static void expect_geom(const conv_case_t *cc, int tr, int64_t *out, int64_t *pb)
{
    for (int i = 0; i < cc->nsp; i++) {
        int64_t in = cc->in[i], k = cc->k[i], s = cc->s[i], d = cc->d[i];
        int64_t ek = d * (k - 1) + 1;
        int same = cc->auto_pad && strncmp(cc->auto_pad, "SAME", 4) == 0;
        int upper = cc->auto_pad && strcmp(cc->auto_pad, "SAME_UPPER") == 0;
        int valid = cc->auto_pad && strcmp(cc->auto_pad, "VALID") == 0;
        int64_t b = valid ? 0 : cc->pads[i], e = valid ? 0 : cc->pads[cc->nsp + i];
        if (!tr) {
            if (same) {
                out[i] = (in + s - 1) / s;
                int64_t total = (out[i] - 1) * s + ek - in;
                if (total < 0)
                    total = 0;
                b = upper ? total / 2 : (total + 1) / 2;
            } else {
                out[i] = (in + b + e - ek) / s + 1;
            }
        } else {
            int64_t op = cc->opad[i];
            if (has_any(cc->oshape, cc->nsp) || same) {
                out[i] = has_any(cc->oshape, cc->nsp) ? cc->oshape[i] : in * s;
                int64_t total = s * (in - 1) + op + ek - out[i];
                b = upper ? total / 2 : total - total / 2;
            } else {
                out[i] = s * (in - 1) + op + ek - b - e;
            }
        }
        pb[i] = b;
    }
}

/* Runs one case in dtype t (threads 1 or 2) and checks it. */
static void conv_run(const conv_case_t *cc, int tr, cairn_dtype_t t, int threads, uint64_t seed)
{
    check_rng_t r = {seed};
    const int nsp = cc->nsp;
    int64_t out[3] = {1, 1, 1}, pb[3] = {0, 0, 0};
    expect_geom(cc, tr, out, pb);
    int64_t in_sz = 1, k_sz = 1, out_sz = 1;
    for (int i = 0; i < nsp; i++)
        in_sz *= cc->in[i], k_sz *= cc->k[i], out_sz *= out[i];
    const int64_t cg = cc->C / cc->group, mg = cc->M / cc->group;
    cairn_tensor_t X = {t, 2 + nsp, {cc->N, cc->C}, NULL}, W = {t, 2 + nsp, {0}, NULL},
                   B = {t, 1, {cc->M}, NULL}, Y = {t, 2 + nsp, {cc->N, cc->M}, NULL};
    W.shape[0] = tr ? cc->C : cc->M;
    W.shape[1] = tr ? mg : cg;
    for (int i = 0; i < nsp; i++) {
        X.shape[2 + i] = cc->in[i];
        W.shape[2 + i] = cc->k[i];
        Y.shape[2 + i] = out[i];
    }
    int64_t nx = lt_numel(&X), nw = lt_numel(&W), ny = lt_numel(&Y);
    size_t es = cairn_dtype_size(t);
    X.data = malloc(es * (size_t)nx + 8);
    W.data = malloc(es * (size_t)nw + 8);
    B.data = malloc(es * (size_t)cc->M + 8);
    Y.data = malloc(es * (size_t)ny + 8);
    lt_fill(&r, X.data, t, nx, -1, 1);
    lt_fill(&r, W.data, t, nw, -1, 1);
    lt_fill(&r, B.data, t, cc->M, -1, 1);
    lt_poison(Y.data, t, ny);
    double *want = calloc((size_t)ny + 1, sizeof(double));
    double *mag = calloc((size_t)ny + 1, sizeof(double));
    int64_t pin[3] = {1, 1, 1}, pk[3] = {1, 1, 1}, po[3] = {1, 1, 1}, ps[3] = {1, 1, 1},
            pd[3] = {1, 1, 1}, pp[3] = {0, 0, 0};
    for (int i = 0; i < nsp; i++) { /* right-align into 3 dims */
        int j = 3 - nsp + i;
        pin[j] = cc->in[i], pk[j] = cc->k[i], po[j] = out[i], ps[j] = cc->s[i],
        pd[j] = cc->d[i], pp[j] = pb[i];
    }
#define XV(n, c, p) base_load_as_double(X.data, t, ((n) * cc->C + (c)) * in_sz + (p))
    if (!tr) {
        /* im2col: rows (c, kernel tap), cols output positions; then W_g x col */
        const int64_t R = cg * k_sz;
        double *col = malloc(sizeof(double) * (size_t)(R * out_sz + 1));
        for (int64_t n = 0; n < cc->N; n++)
            for (int64_t g = 0; g < cc->group; g++) {
                for (int64_t c = 0; c < cg; c++)
                    for (int64_t kk = 0; kk < k_sz; kk++) {
                        int64_t kx[3] = {kk / (pk[1] * pk[2]), kk / pk[2] % pk[1], kk % pk[2]};
                        for (int64_t p = 0; p < out_sz; p++) {
                            int64_t ox[3] = {p / (po[1] * po[2]), p / po[2] % po[1], p % po[2]};
                            int64_t ix[3], inside = 1;
                            for (int a = 0; a < 3; a++) {
                                ix[a] = ox[a] * ps[a] - pp[a] + kx[a] * pd[a];
                                inside &= ix[a] >= 0 && ix[a] < pin[a];
                            }
                            col[(c * k_sz + kk) * out_sz + p] =
                                inside ? XV(n, g * cg + c, (ix[0] * pin[1] + ix[1]) * pin[2] + ix[2])
                                       : 0.0;
                        }
                    }
                for (int64_t ml = 0; ml < mg; ml++) {
                    int64_t m = g * mg + ml;
                    for (int64_t p = 0; p < out_sz; p++) {
                        double s = cc->bias ? base_load_as_double(B.data, t, m) : 0, a = fabs(s);
                        for (int64_t rr = 0; rr < R; rr++) {
                            double v = base_load_as_double(W.data, t, m * R + rr) * col[rr * out_sz + p];
                            s += v;
                            a += fabs(v);
                        }
                        want[(n * cc->M + m) * out_sz + p] = s;
                        mag[(n * cc->M + m) * out_sz + p] = a;
                    }
                }
            }
        free(col);
    } else {
        /* scatter: every x element adds x * w into the outputs it reaches */
        for (int64_t n = 0; n < cc->N; n++)
            for (int64_t m = 0; m < cc->M; m++)
                for (int64_t p = 0; p < out_sz; p++) {
                    double b = cc->bias ? base_load_as_double(B.data, t, m) : 0;
                    want[(n * cc->M + m) * out_sz + p] = b;
                    mag[(n * cc->M + m) * out_sz + p] = fabs(b);
                }
        for (int64_t n = 0; n < cc->N; n++)
            for (int64_t c = 0; c < cc->C; c++)
                for (int64_t i = 0; i < in_sz; i++) {
                    int64_t ix[3] = {i / (pin[1] * pin[2]), i / pin[2] % pin[1], i % pin[2]};
                    double xv = XV(n, c, i);
                    int64_t g = c / cg;
                    for (int64_t ml = 0; ml < mg; ml++)
                        for (int64_t kk = 0; kk < k_sz; kk++) {
                            int64_t kx[3] = {kk / (pk[1] * pk[2]), kk / pk[2] % pk[1], kk % pk[2]};
                            int64_t ox[3], inside = 1;
                            for (int a = 0; a < 3; a++) {
                                ox[a] = ix[a] * ps[a] - pp[a] + kx[a] * pd[a];
                                inside &= ox[a] >= 0 && ox[a] < po[a];
                            }
                            if (!inside)
                                continue;
                            double v = xv * base_load_as_double(W.data, t, (c * mg + ml) * k_sz + kk);
                            int64_t o = (n * cc->M + g * mg + ml) * out_sz +
                                        (ox[0] * po[1] + ox[1]) * po[2] + ox[2];
                            want[o] += v;
                            mag[o] += fabs(v);
                        }
                }
    }
#undef XV
    /* attributes */
    cairn_attr_t at[9];
    int na = 0;
    if (cc->give_pads) {
        at[na++] = cairn_attr_ints("strides", cc->s, (size_t)nsp);
        at[na++] = cairn_attr_ints("dilations", cc->d, (size_t)nsp);
        if (!cc->auto_pad)
            at[na++] = cairn_attr_ints("pads", cc->pads, 2 * (size_t)nsp);
    }
    if (cc->auto_pad)
        at[na++] = cairn_attr_string("auto_pad", cc->auto_pad);
    if (cc->group != 1 || cc->give_kernel_shape)
        at[na++] = cairn_attr_int("group", cc->group);
    if (cc->give_kernel_shape)
        at[na++] = cairn_attr_ints("kernel_shape", cc->k, (size_t)nsp);
    if (tr && has_any(cc->opad, nsp))
        at[na++] = cairn_attr_ints("output_padding", cc->opad, (size_t)nsp);
    if (tr && has_any(cc->oshape, nsp))
        at[na++] = cairn_attr_ints("output_shape", cc->oshape, (size_t)nsp);
    cairn_tensor_t ins[3] = {X, W, B};
    const char *op = tr ? "ConvTranspose" : "Conv";
    cairn_status_t st = lt_run(op, ins, cc->bias ? 3 : 2, at, na, &Y, threads, 0);
    char ys[64];
    base_fmt_dims(ys, sizeof ys, Y.shape, Y.rank);
    CHECK_MSG(st == CAIRN_OK, "%s %dD %s -> %s: %s", op, nsp, cairn_dtype_name(t), ys,
              cairn_last_error());
    double eps = t == CAIRN_F16 ? 1.0 / 1024 : t == CAIRN_BF16 ? 1.0 / 128 : t == CAIRN_F64 ? 1e-15 : U24;
    int64_t red = tr ? cc->C * k_sz : cg * k_sz;
    int64_t bad = -1;
    for (int64_t i = 0; i < ny && bad < 0; i++) {
        double g = base_load_as_double(Y.data, t, i);
        if (!(fabs(g - want[i]) <= eps * mag[i] + 2.0 * (double)(red + 1) * U24 * mag[i] + 1e-300))
            bad = i;
    }
    CHECK_MSG(bad < 0, "%s %dD %s -> %s threads %d: element %lld got %.9g want %.9g", op, nsp,
              cairn_dtype_name(t), ys, threads, (long long)bad,
              bad >= 0 ? base_load_as_double(Y.data, t, bad) : 0.0, bad >= 0 ? want[bad] : 0.0);
    free(X.data), free(W.data), free(B.data), free(Y.data), free(want), free(mag);
}

static void test_conv_hand(void)
{
    float x[5] = {1, 2, 3, 4, 5}, w[3] = {1, 0, -1}, y[5];
    cairn_tensor_t ins[2] = {{CAIRN_F32, 3, {1, 1, 5}, x}, {CAIRN_F32, 3, {1, 1, 3}, w}};
    cairn_tensor_t out = {CAIRN_F32, 3, {1, 1, 3}, y};
    lt_poison(y, CAIRN_F32, 5);
    CHECK_OK(lt_run("Conv", ins, 2, NULL, 0, &out, 1, 0));
    CHECK(y[0] == -2 && y[1] == -2 && y[2] == -2);
    int64_t pads[2] = {1, 1};
    cairn_attr_t pa = cairn_attr_ints("pads", pads, 2);
    cairn_tensor_t out5 = {CAIRN_F32, 3, {1, 1, 5}, y};
    lt_poison(y, CAIRN_F32, 5);
    CHECK_OK(lt_run("Conv", ins, 2, &pa, 1, &out5, 1, 0));
    CHECK(y[0] == -2 && y[1] == -2 && y[2] == -2 && y[3] == -2 && y[4] == 4);
    /* 2-D, 2x2 box filter with bias 1 */
    float x2[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w2[4] = {1, 1, 1, 1}, b2[1] = {1}, y2[4];
    cairn_tensor_t in2[3] = {{CAIRN_F32, 4, {1, 1, 3, 3}, x2}, {CAIRN_F32, 4, {1, 1, 2, 2}, w2},
                             {CAIRN_F32, 1, {1}, b2}};
    cairn_tensor_t o2 = {CAIRN_F32, 4, {1, 1, 2, 2}, y2};
    lt_poison(y2, CAIRN_F32, 4);
    CHECK_OK(lt_run("Conv", in2, 3, NULL, 0, &o2, 1, 1)); /* constants: folded */
    CHECK(y2[0] == 13 && y2[1] == 17 && y2[2] == 25 && y2[3] == 29);
}

static void test_convt_hand(void)
{
    float x[3] = {1, 2, 3}, w[2] = {1, 1}, y[6];
    cairn_tensor_t ins[2] = {{CAIRN_F32, 3, {1, 1, 3}, x}, {CAIRN_F32, 3, {1, 1, 2}, w}};
    cairn_tensor_t o4 = {CAIRN_F32, 3, {1, 1, 4}, y};
    lt_poison(y, CAIRN_F32, 6);
    CHECK_OK(lt_run("ConvTranspose", ins, 2, NULL, 0, &o4, 1, 0));
    CHECK(y[0] == 1 && y[1] == 3 && y[2] == 5 && y[3] == 3);
    int64_t s2 = 2;
    cairn_attr_t st = cairn_attr_ints("strides", &s2, 1);
    cairn_tensor_t o6 = {CAIRN_F32, 3, {1, 1, 6}, y};
    lt_poison(y, CAIRN_F32, 6);
    CHECK_OK(lt_run("ConvTranspose", ins, 2, &st, 1, &o6, 1, 0));
    CHECK(y[0] == 1 && y[1] == 1 && y[2] == 2 && y[3] == 2 && y[4] == 3 && y[5] == 3);
    /* the ONNX documentation's example: 3x3 input, 3x3 ones kernel, 2 output channels */
    float x2[9], w2[18], y2[50];
    for (int i = 0; i < 9; i++)
        x2[i] = (float)i;
    for (int i = 0; i < 18; i++)
        w2[i] = 1;
    const float want[25] = {0, 1, 3,  3,  2,  3, 8,  15, 12, 7,  9,  21, 36,
                            27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8};
    cairn_tensor_t in2[2] = {{CAIRN_F32, 4, {1, 1, 3, 3}, x2}, {CAIRN_F32, 4, {1, 2, 3, 3}, w2}};
    cairn_tensor_t o2 = {CAIRN_F32, 4, {1, 2, 5, 5}, y2};
    lt_poison(y2, CAIRN_F32, 50);
    CHECK_OK(lt_run("ConvTranspose", in2, 2, NULL, 0, &o2, 1, 0));
    int ok = 1;
    for (int i = 0; i < 50; i++)
        ok &= y2[i] == want[i % 25];
    CHECK(ok);
}

static const conv_case_t conv_cases[] = {
    /* nsp N C M g  in         k          s          d          pads              auto bias ks gp */
    {1, 2, 3, 4, 1, {11}, {3}, {2}, {1}, {1, 2}, NULL, 1, 1, 1, {0}, {0}},
    {1, 1, 6, 3, 3, {9}, {2}, {2}, {3}, {0}, "SAME_UPPER", 0, 0, 1, {0}, {0}},
    {1, 1, 2, 2, 1, {8}, {4}, {3}, {1}, {0}, "SAME_LOWER", 1, 0, 1, {0}, {0}},
    {1, 3, 2, 5, 1, {7}, {1}, {1}, {1}, {0, 0}, NULL, 1, 0, 0, {0}, {0}}, /* defaults */
    {2, 1, 4, 6, 2, {7, 8}, {3, 2}, {2, 1}, {1, 2}, {1, 0, 2, 1}, NULL, 1, 1, 1, {0}, {0}},
    {2, 2, 4, 4, 4, {6, 5}, {3, 3}, {2, 2}, {1, 1}, {0}, "SAME_LOWER", 1, 0, 1, {0}, {0}},
    {2, 1, 3, 2, 1, {6, 7}, {2, 3}, {1, 1}, {2, 2}, {0}, "SAME_UPPER", 0, 1, 1, {0}, {0}},
    {2, 1, 2, 3, 1, {5, 6}, {2, 3}, {1, 2}, {2, 1}, {0}, "VALID", 1, 0, 1, {0}, {0}},
    {2, 0, 2, 2, 1, {4, 4}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1, 0, 1, {0}, {0}}, /* N = 0 */
    {3, 1, 2, 2, 1, {4, 5, 3}, {2, 3, 2}, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}, NULL, 1, 1, 1, {0}, {0}},
    {3, 2, 4, 2, 2, {3, 4, 5}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {0}, "SAME_UPPER", 1, 0, 1, {0}, {0}},
    {2, 2, 8, 16, 1, {16, 16}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, NULL, 1, 0, 1, {0}, {0}}, /* big: pool */
};

static const conv_case_t convt_cases[] = {
    {1, 2, 2, 3, 1, {5}, {3}, {2}, {1}, {1, 0}, NULL, 1, 1, 1, {1}, {0}},
    {2, 1, 4, 6, 2, {3, 4}, {2, 3}, {2, 3}, {1, 2}, {1, 0, 0, 2}, NULL, 1, 0, 1, {0, 1}, {0}},
    {2, 1, 2, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {0}, NULL, 0, 0, 1, {0}, {6, 5}}, /* output_shape */
    {2, 1, 1, 2, 1, {3, 4}, {3, 3}, {2, 2}, {1, 1}, {0}, "SAME_UPPER", 1, 0, 1, {0}, {0}},
    {2, 1, 1, 2, 1, {3, 4}, {3, 3}, {2, 2}, {1, 1}, {0}, "SAME_LOWER", 1, 0, 1, {0}, {0}},
    {2, 1, 2, 2, 1, {3, 3}, {3, 3}, {2, 2}, {1, 1}, {0}, "SAME_UPPER", 0, 0, 1, {0}, {7, 5}},
    {1, 1, 3, 2, 1, {4}, {2}, {3}, {2}, {0}, "VALID", 1, 1, 1, {0}, {0}},
    {3, 1, 4, 2, 2, {2, 3, 2}, {2, 2, 3}, {2, 1, 2}, {1, 2, 1}, {0, 1, 0, 0, 0, 1}, NULL, 1, 0, 1, {1, 0, 1}, {0}},
    {2, 2, 8, 8, 1, {8, 8}, {4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}, NULL, 1, 0, 1, {0}, {0}}, /* big: pool */
};

static void test_conv_random(void)
{
    for (size_t c = 0; c < sizeof conv_cases / sizeof conv_cases[0]; c++)
        for (int threads = 1; threads <= 2; threads++)
            conv_run(&conv_cases[c], 0, CAIRN_F32, threads, 50 + c);
    const cairn_dtype_t ts[] = {CAIRN_F64, CAIRN_F16, CAIRN_BF16};
    for (size_t ti = 0; ti < 3; ti++) {
        conv_run(&conv_cases[4], 0, ts[ti], 1, 77);
        conv_run(&conv_cases[9], 0, ts[ti], 2, 78);
    }
}

static void test_convt_random(void)
{
    for (size_t c = 0; c < sizeof convt_cases / sizeof convt_cases[0]; c++)
        for (int threads = 1; threads <= 2; threads++)
            conv_run(&convt_cases[c], 1, CAIRN_F32, threads, 90 + c);
    const cairn_dtype_t ts[] = {CAIRN_F64, CAIRN_F16, CAIRN_BF16};
    for (size_t ti = 0; ti < 3; ti++) {
        conv_run(&convt_cases[1], 1, ts[ti], 1, 97);
        conv_run(&convt_cases[7], 1, ts[ti], 2, 98);
    }
}

static void test_conv_errors(void)
{
    static float d[4096], y[4096];
    cairn_tensor_t out = {CAIRN_F32, 4, {1, 2, 3, 3}, y};
    const char *ops[2] = {"Conv", "ConvTranspose"};
    /* channels not divisible by group */
    cairn_tensor_t a[2] = {{CAIRN_F32, 4, {1, 3, 5, 5}, d}, {CAIRN_F32, 4, {2, 1, 3, 3}, d}};
    cairn_attr_t g2 = cairn_attr_int("group", 2);
    for (int o = 0; o < 2; o++)
        CHECK_FAILS(lt_run(ops[o], a, 2, &g2, 1, &out, 1, 0), CAIRN_ERR_SHAPE, "divisible by group");
    /* X channels do not match W */
    cairn_tensor_t b[2] = {{CAIRN_F32, 4, {1, 4, 5, 5}, d}, {CAIRN_F32, 4, {2, 3, 3, 3}, d}};
    for (int o = 0; o < 2; o++)
        CHECK_FAILS(lt_run(ops[o], b, 2, NULL, 0, &out, 1, 0), CAIRN_ERR_SHAPE, "channels");
    /* M not divisible by group (Conv) */
    cairn_tensor_t mg[2] = {{CAIRN_F32, 4, {1, 4, 5, 5}, d}, {CAIRN_F32, 4, {3, 2, 3, 3}, d}};
    CHECK_FAILS(lt_run("Conv", mg, 2, &g2, 1, &out, 1, 0), CAIRN_ERR_SHAPE, "group");
    /* wrong W rank */
    cairn_tensor_t c[2] = {{CAIRN_F32, 4, {1, 2, 5, 5}, d}, {CAIRN_F32, 3, {2, 2, 3}, d}};
    for (int o = 0; o < 2; o++)
        CHECK_FAILS(lt_run(ops[o], c, 2, NULL, 0, &out, 1, 0), CAIRN_ERR_SHAPE, "W must have rank 4");
    cairn_tensor_t ok[2] = {{CAIRN_F32, 4, {1, 2, 5, 5}, d}, {CAIRN_F32, 4, {2, 2, 3, 3}, d}};
    /* bad auto_pad string */
    cairn_attr_t ap = cairn_attr_string("auto_pad", "SAME");
    for (int o = 0; o < 2; o++)
        CHECK_FAILS(lt_run(ops[o], ok, 2, &ap, 1, &out, 1, 0), CAIRN_ERR_INVALID_ARGUMENT, "auto_pad");
    /* attribute lengths and values */
    int64_t three[3] = {1, 1, 1}, zero2[2] = {0, 1}, negp[4] = {0, -1, 0, 0}, ks[2] = {2, 3};
    cairn_attr_t bad[] = {cairn_attr_ints("strides", three, 3), cairn_attr_ints("strides", zero2, 2),
                          cairn_attr_ints("dilations", zero2, 2), cairn_attr_ints("pads", negp, 4),
                          cairn_attr_ints("pads", three, 3), cairn_attr_int("group", 0)};
    const char *needle[] = {"strides has 3", "strides[0]", "dilations[0]", "pads[1]", "pads has 3", "group"};
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < 6; i++)
            CHECK_FAILS(lt_run(ops[o], ok, 2, &bad[i], 1, &out, 1, 0), CAIRN_ERR_INVALID_ARGUMENT,
                        needle[i]);
    cairn_attr_t ksa = cairn_attr_ints("kernel_shape", ks, 2);
    for (int o = 0; o < 2; o++)
        CHECK_FAILS(lt_run(ops[o], ok, 2, &ksa, 1, &out, 1, 0), CAIRN_ERR_SHAPE, "kernel_shape");
    /* pads together with auto_pad */
    int64_t p1[4] = {1, 1, 1, 1};
    cairn_attr_t both[2] = {cairn_attr_string("auto_pad", "SAME_UPPER"), cairn_attr_ints("pads", p1, 4)};
    CHECK_FAILS(lt_run("Conv", ok, 2, both, 2, &out, 1, 0), CAIRN_ERR_INVALID_ARGUMENT, "auto_pad");
    /* kernel larger than the padded input */
    cairn_tensor_t big[2] = {{CAIRN_F32, 4, {1, 2, 2, 2}, d}, {CAIRN_F32, 4, {2, 2, 3, 3}, d}};
    CHECK_FAILS(lt_run("Conv", big, 2, NULL, 0, &out, 1, 0), CAIRN_ERR_SHAPE, "smaller than the dilated kernel");
    /* bias of the wrong length / rank */
    cairn_tensor_t bb[3] = {ok[0], ok[1], {CAIRN_F32, 1, {3}, d}};
    CHECK_FAILS(lt_run("Conv", bb, 3, NULL, 0, &out, 1, 0), CAIRN_ERR_SHAPE, "bias");
    cairn_tensor_t b2[3] = {ok[0], ok[1], {CAIRN_F32, 2, {1, 2}, d}};
    CHECK_FAILS(lt_run("Conv", b2, 3, NULL, 0, &out, 1, 0), CAIRN_ERR_SHAPE, "1-D");
    /* dtypes */
    cairn_tensor_t it[2] = {{CAIRN_I32, 4, {1, 2, 5, 5}, d}, {CAIRN_I32, 4, {2, 2, 3, 3}, d}};
    CHECK_FAILS(lt_run("Conv", it, 2, NULL, 0, &out, 1, 0), CAIRN_ERR_DTYPE, "i32");
    cairn_tensor_t mix[2] = {{CAIRN_F32, 4, {1, 2, 5, 5}, d}, {CAIRN_F16, 4, {2, 2, 3, 3}, d}};
    CHECK_FAILS(lt_run("Conv", mix, 2, NULL, 0, &out, 1, 0), CAIRN_ERR_DTYPE, "same type");
    /* X without spatial dims */
    cairn_tensor_t r2[2] = {{CAIRN_F32, 2, {1, 2}, d}, {CAIRN_F32, 2, {2, 2}, d}};
    CHECK_FAILS(lt_run("Conv", r2, 2, NULL, 0, &out, 1, 0), CAIRN_ERR_SHAPE, "rank 2");
    /* ConvTranspose: output_padding must be below stride or dilation */
    int64_t op1[2] = {1, 1};
    cairn_attr_t opa = cairn_attr_ints("output_padding", op1, 2);
    CHECK_FAILS(lt_run("ConvTranspose", ok, 2, &opa, 1, &out, 1, 0), CAIRN_ERR_INVALID_ARGUMENT,
                "output_padding");
    int64_t os3[3] = {4, 4, 4};
    cairn_attr_t osa = cairn_attr_ints("output_shape", os3, 3);
    CHECK_FAILS(lt_run("ConvTranspose", ok, 2, &osa, 1, &out, 1, 0), CAIRN_ERR_INVALID_ARGUMENT,
                "output_shape");
}

/* Symbolic batch and spatial dims: shapes flow through at build time. */
static void test_conv_symbolic(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t xd[4] = {0, 3, 0, 9};
    const char *xn[4] = {"n", NULL, "h", NULL};
    static float w[4 * 3 * 3 * 3];
    cairn_tensor_t wt = {CAIRN_F32, 4, {4, 3, 3, 3}, w};
    cairn_value_id x, wv, y;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 4, xd, xn, &x));
    CHECK_OK(cairn_graph_add_constant(g, "w", &wt, &wv));
    int64_t s2[2] = {2, 2};
    cairn_attr_t at[2] = {cairn_attr_ints("strides", s2, 2), cairn_attr_string("auto_pad", "SAME_UPPER")};
    cairn_value_id in[2] = {x, wv};
    CHECK_OK(cairn_graph_add_node(g, "Conv", "c", in, 2, at, 2, &y, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    char *text = NULL;
    CHECK_OK(cairn_graph_print(g, &text));
    CHECK(text && strstr(text, "[n,4,?,5]"));
    free(text);
    cairn_graph_destroy(g);
}

int main(void)
{
    test_conv_hand();
    test_convt_hand();
    test_conv_random();
    test_convt_random();
    test_conv_errors();
    test_conv_symbolic();
    return check_finish("test_linalg_conv");
}
