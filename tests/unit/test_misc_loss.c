/*
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss through the public
 * API: literal hand-computed cases, random cases (every float dtype, i32 and
 * i64 targets, 0..3 extra dims, weights, ignore_index, all reductions)
 * against double formulations written here (the SCE reference takes the log
 * of exp(x)/sum(exp(x)) without a max shift), and the error paths.
 */
#include "check.h"

#include "base/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "op_test_util.h"

static const cairn_tensor_t none_tensor = {CAIRN_DTYPE_UNDEFINED, 0, {0}, NULL};

static void test_nll_literal(void)
{
    int64_t xs[2] = {2, 3}, ts[1] = {2}, ws[1] = {3}, sc[1] = {1};
    const double xv[6] = {0.1, 0.2, 0.7, 0.5, 0.3, 0.2};
    const double tv[2] = {2, 0}, wv[3] = {1, 2, 3};
    cairn_tensor_t x = from_doubles(CAIRN_F32, 2, xs, xv);
    cairn_tensor_t t = from_doubles(CAIRN_I64, 1, ts, tv);
    cairn_tensor_t w = from_doubles(CAIRN_F32, 1, ws, wv);
    cairn_tensor_t in3[3] = {x, t, w};
    cairn_attr_t rnone = cairn_attr_string("reduction", "none");
    cairn_attr_t rsum = cairn_attr_string("reduction", "sum");
    cairn_attr_t rmean = cairn_attr_string("reduction", "mean");
    cairn_tensor_t yv = make_out(CAIRN_F32, 1, ts), ys = make_out(CAIRN_F32, 0, sc);

    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 2, 0, &rnone, 1, &yv, 1));
    check_near(&yv, (const double[]){-0.7, -0.5}, 1e-7, "nll none");
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 2, 0, &rsum, 1, &ys, 1));
    check_near(&ys, (const double[]){-1.2}, 1e-7, "nll sum");
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 2, 0, NULL, 0, &ys, 1)); /* default mean */
    check_near(&ys, (const double[]){-0.6}, 1e-7, "nll mean");
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 3, 0, &rnone, 1, &yv, 1));
    check_near(&yv, (const double[]){-2.1, -0.5}, 1e-7, "nll none weight");
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 3, 4, &rsum, 1, &ys, 1)); /* const w */
    check_near(&ys, (const double[]){-2.6}, 1e-7, "nll sum weight");
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 3, 7, &rmean, 1, &ys, 1)); /* folded */
    check_near(&ys, (const double[]){-0.65}, 1e-7, "nll mean weight (folded)");

    /* ignore_index 2: the first target drops out of the sum and the weight */
    cairn_attr_t a[2] = {rnone, cairn_attr_int("ignore_index", 2)};
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 3, 0, a, 2, &yv, 1));
    check_near(&yv, (const double[]){0.0, -0.5}, 1e-7, "nll none ii");
    a[0] = rmean;
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 3, 0, a, 2, &ys, 1));
    check_near(&ys, (const double[]){-0.5}, 1e-7, "nll mean weight ii");
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in3, 2, 0, a, 2, &ys, 1));
    check_near(&ys, (const double[]){-0.5}, 1e-7, "nll mean ii");
    /* every target ignored: mean is 0/0 */
    double tv2[2] = {2, 2};
    cairn_tensor_t t2 = from_doubles(CAIRN_I32, 1, ts, tv2);
    cairn_tensor_t in2[2] = {x, t2};
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in2, 2, 0, a, 2, &ys, 1));
    CHECK(isnan(((float *)ys.data)[0]));
    drop(&t2), drop(&yv), drop(&ys);

    /* (N, C, d1) = (1, 2, 2): x[0][c][d] */
    int64_t xs3[3] = {1, 2, 2}, ts3[2] = {1, 2};
    cairn_tensor_t x3 = from_doubles(CAIRN_F64, 3, xs3, (const double[]){1, 2, 3, 4});
    cairn_tensor_t t3 = from_doubles(CAIRN_I32, 2, ts3, (const double[]){1, 0});
    cairn_tensor_t y3 = make_out(CAIRN_F64, 2, ts3);
    cairn_tensor_t in33[2] = {x3, t3};
    CHECK_OK(run_op("NegativeLogLikelihoodLoss", in33, 2, 0, &rnone, 1, &y3, 1));
    check_near(&y3, (const double[]){-3, -2}, 0, "nll NCd1 none");
    drop(&x3), drop(&t3), drop(&y3);
    drop(&x), drop(&t), drop(&w);
}

static void test_sce_literal(void)
{
    int64_t xs[2] = {2, 3}, ts[1] = {2}, sc[1] = {1};
    /* rows [0,0,0] and [1,2,3] */
    cairn_tensor_t x = from_doubles(CAIRN_F64, 2, xs, (const double[]){0, 0, 0, 1, 2, 3});
    cairn_tensor_t t = from_doubles(CAIRN_I64, 1, ts, (const double[]){1, 2});
    cairn_tensor_t in[2] = {x, t};
    const double l3 = 1.09861228866810969, a = 2.40760596444437921, b = 1.40760596444437921,
                 c = 0.407605964444379211;
    cairn_tensor_t outs[2] = {make_out(CAIRN_F64, 1, ts), make_out(CAIRN_F64, 2, xs)};
    cairn_attr_t rnone = cairn_attr_string("reduction", "none");
    CHECK_OK(run_op("SoftmaxCrossEntropyLoss", in, 2, 0, &rnone, 1, outs, 2));
    check_near(&outs[0], (const double[]){l3, c}, 1e-14, "sce none");
    check_near(&outs[1], (const double[]){-l3, -l3, -l3, -a, -b, -c}, 1e-14, "sce log_prob");
    cairn_tensor_t ys = make_out(CAIRN_F64, 0, sc);
    CHECK_OK(run_op("SoftmaxCrossEntropyLoss", in, 2, 0, NULL, 0, &ys, 1));
    check_near(&ys, (const double[]){(l3 + c) / 2}, 1e-14, "sce mean");
    /* weights [1, 4, 2] and ignore_index 1: only row 1 (label 2, weight 2) */
    int64_t wsh[1] = {3};
    cairn_tensor_t w = from_doubles(CAIRN_F64, 1, wsh, (const double[]){1, 4, 2});
    cairn_tensor_t in3[3] = {x, t, w};
    cairn_attr_t ii = cairn_attr_int("ignore_index", 1);
    CHECK_OK(run_op("SoftmaxCrossEntropyLoss", in3, 3, 0, &ii, 1, &ys, 1));
    check_near(&ys, (const double[]){c}, 1e-14, "sce mean weight ii");
    cairn_attr_t rs[2] = {cairn_attr_string("reduction", "sum"), ii};
    CHECK_OK(run_op("SoftmaxCrossEntropyLoss", in3, 3, 0, rs, 2, &ys, 1));
    check_near(&ys, (const double[]){2 * c}, 1e-14, "sce sum weight ii");
    /* large scores do not overflow */
    cairn_tensor_t xb = from_doubles(CAIRN_F32, 2, xs, (const double[]){1000, 1000, 1000, 1001, 1002, 1003});
    cairn_tensor_t inb[2] = {xb, t};
    cairn_tensor_t yb = make_out(CAIRN_F32, 1, ts);
    CHECK_OK(run_op("SoftmaxCrossEntropyLoss", inb, 2, 0, &rnone, 1, &yb, 1));
    check_near(&yb, (const double[]){l3, c}, 1e-6, "sce large scores");
    drop(&xb), drop(&yb);
    drop(&x), drop(&t), drop(&w), drop(&ys), drop(&outs[0]), drop(&outs[1]);
}

/* ---- random against double references ---- */

static void test_loss_random(int sce)
{
    const char *op = sce ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss";
    const char *reds[3] = {"none", "sum", "mean"};
    check_rng_t r = {sce ? 0x5ce5ce77u : 0x411u};
    for (int it = 0; it < 60; it++) {
        cairn_dtype_t dt = float_types[it % 4];
        cairn_dtype_t tt = (it / 4) % 2 ? CAIRN_I32 : CAIRN_I64;
        int extra = (int)(check_rng_next(&r) % 4);
        int rank = 2 + extra;
        int64_t xs[6], ts[5];
        xs[0] = 1 + (int64_t)(check_rng_next(&r) % 4);
        xs[1] = 1 + (int64_t)(check_rng_next(&r) % 5);
        for (int d = 2; d < rank; d++)
            xs[d] = 1 + (int64_t)(check_rng_next(&r) % 3);
        ts[0] = xs[0];
        for (int d = 2; d < rank; d++)
            ts[d - 1] = xs[d];
        int64_t N = xs[0], C = xs[1], D = 1;
        for (int d = 2; d < rank; d++)
            D *= xs[d];
        int has_w = (int)(check_rng_next(&r) % 2), has_ii = (int)(check_rng_next(&r) % 2);
        int64_t ii = (int64_t)(check_rng_next(&r) % 3) - 1; /* -1, 0 or 1 */
        if (ii == 1)
            ii = C + 3; /* outside the classes */
        const char *red = reds[it % 3];
        cairn_tensor_t x = make_rand(&r, dt, rank, xs, -3, 3);
        cairn_tensor_t t = make(tt, rank - 1, ts);
        for (int64_t i = 0; i < N * D; i++) {
            int64_t v = (int64_t)(check_rng_next(&r) % (uint64_t)C);
            if (has_ii && check_rng_next(&r) % 4 == 0)
                v = ii;
            base_store_from_double(t.data, tt, i, (double)v);
        }
        int64_t wsh[1] = {C};
        cairn_tensor_t w = has_w ? make_rand(&r, dt, 1, wsh, 0.1, 2) : none_tensor;
        /* reference: log-probabilities, then the weighted gather */
        double *lp = malloc((size_t)(N * C * D) * sizeof *lp);
        for (int64_t n = 0; n < N; n++)
            for (int64_t d = 0; d < D; d++) {
                double s = 0;
                for (int64_t c = 0; c < C; c++)
                    s += exp(at(&x, (n * C + c) * D + d));
                for (int64_t c = 0; c < C; c++) {
                    int64_t i = (n * C + c) * D + d;
                    lp[i] = sce ? log(exp(at(&x, i)) / s) : at(&x, i);
                }
            }
        double *want = malloc((size_t)(N * D) * sizeof *want), sum = 0, wsum = 0;
        for (int64_t n = 0; n < N; n++)
            for (int64_t d = 0; d < D; d++) {
                int64_t tv = (int64_t)at(&t, n * D + d);
                double wt = 0, l = 0;
                if (!(has_ii && tv == ii)) {
                    wt = has_w ? at(&w, tv) : 1;
                    l = -wt * lp[(n * C + tv) * D + d];
                }
                want[n * D + d] = l;
                sum += l, wsum += wt;
            }
        int none = !strcmp(red, "none");
        if (!strcmp(red, "sum"))
            want[0] = sum;
        else if (!none)
            want[0] = sum / wsum;
        cairn_attr_t attrs[2] = {cairn_attr_string("reduction", red),
                                 cairn_attr_int("ignore_index", ii)};
        cairn_tensor_t ins[3] = {x, t, w};
        cairn_tensor_t outs[2];
        outs[0] = none ? make_out(dt, rank - 1, ts) : make_out(dt, 0, ts);
        outs[1] = make_out(dt, rank, xs);
        int n_out = sce ? 1 + it % 2 : 1;
        CHECK_OK(run_op(op, ins, has_w ? 3 : 2, (unsigned)(it % 3 == 0 ? 6 : 0), attrs,
                        has_ii ? 2 : 1, outs, n_out));
        char what[96];
        snprintf(what, sizeof what, "%s random %d (%s, rank %d, w %d, ii %d)", op, it, red, rank,
                 has_w, has_ii);
        if (!none && wsum == 0)
            CHECK(isnan(at(&outs[0], 0)));
        else
            check_near(&outs[0], want, tol_of(dt) * (none ? 1 : 4), what);
        if (n_out == 2)
            check_near(&outs[1], lp, tol_of(dt), "sce random log_prob");
        free(lp), free(want);
        drop(&x), drop(&t), drop(&outs[0]), drop(&outs[1]);
        if (has_w)
            drop(&w);
    }
}

/* ---- errors ---- */

static void test_loss_errors(void)
{
    int64_t xs[2] = {2, 3}, ts[1] = {2}, sc[1] = {1}, bad_ts[1] = {3}, w4[1] = {4};
    cairn_tensor_t x = make_rand(&(check_rng_t){7}, CAIRN_F32, 2, xs, -1, 1);
    cairn_tensor_t t = from_doubles(CAIRN_I64, 1, ts, (const double[]){1, 5});
    cairn_tensor_t y = make_out(CAIRN_F32, 0, sc);
    cairn_tensor_t in[3] = {x, t, none_tensor};
    for (int sce = 0; sce < 2; sce++) {
        const char *op = sce ? "SoftmaxCrossEntropyLoss" : "NegativeLogLikelihoodLoss";
        /* target 5 with 3 classes, at run time */
        ((int64_t *)t.data)[1] = 5;
        CHECK_FAILS(run_op(op, in, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_RUNTIME, "target value 5");
        ((int64_t *)t.data)[1] = -1; /* negative and not the ignore_index */
        cairn_attr_t ii = cairn_attr_int("ignore_index", -100);
        CHECK_FAILS(run_op(op, in, 2, 0, &ii, 1, &y, 1), CAIRN_ERR_RUNTIME, "target value -1");
        ((int64_t *)t.data)[1] = 1;
        cairn_attr_t bad = cairn_attr_string("reduction", "avg");
        CHECK_FAILS(run_op(op, in, 2, 0, &bad, 1, &y, 1), CAIRN_ERR_INVALID_ARGUMENT, "avg");
        cairn_tensor_t tb = from_doubles(CAIRN_I64, 1, bad_ts, (const double[]){0, 0, 0});
        cairn_tensor_t inb[2] = {x, tb};
        CHECK_FAILS(run_op(op, inb, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "without dim 1");
        drop(&tb);
        cairn_tensor_t tf = from_doubles(CAIRN_F32, 1, ts, (const double[]){0, 1});
        cairn_tensor_t inf[2] = {x, tf};
        CHECK_FAILS(run_op(op, inf, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, "input 1");
        drop(&tf);
        cairn_tensor_t xi = from_doubles(CAIRN_I32, 2, xs, (const double[]){0, 0, 0, 0, 0, 0});
        cairn_tensor_t ini[2] = {xi, t};
        CHECK_FAILS(run_op(op, ini, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, "input 0");
        drop(&xi);
        cairn_tensor_t x1 = from_doubles(CAIRN_F32, 1, ts, (const double[]){0, 0});
        cairn_tensor_t in1[2] = {x1, t};
        CHECK_FAILS(run_op(op, in1, 2, 0, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "(N, C)");
        drop(&x1);
        cairn_tensor_t w = from_doubles(CAIRN_F32, 1, w4, (const double[]){1, 1, 1, 1});
        cairn_tensor_t inw[3] = {x, t, w};
        CHECK_FAILS(run_op(op, inw, 3, 0, NULL, 0, &y, 1), CAIRN_ERR_SHAPE, "weight");
        drop(&w);
        cairn_tensor_t wd = from_doubles(CAIRN_F64, 1, bad_ts, (const double[]){1, 1, 1});
        cairn_tensor_t inwd[3] = {x, t, wd};
        CHECK_FAILS(run_op(op, inwd, 3, 0, NULL, 0, &y, 1), CAIRN_ERR_DTYPE, NULL);
        drop(&wd);
    }
    cairn_tensor_t y2[2] = {make_out(CAIRN_F32, 0, sc), make_out(CAIRN_F32, 2, xs)};
    cairn_status_t s = run_op("NegativeLogLikelihoodLoss", in, 2, 0, NULL, 0, y2, 2);
    CHECK(s != CAIRN_OK);
    drop(&y2[0]), drop(&y2[1]);
    drop(&x), drop(&t), drop(&y);
}

int main(void)
{
    test_nll_literal();
    test_sce_literal();
    test_loss_random(0);
    test_loss_random(1);
    test_loss_errors();
    return check_finish("test_misc_loss");
}
