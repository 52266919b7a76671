/*
 * The fast f32 elementwise kernels (src/kernels/eltwise/fast.c and its ISA
 * variants) against the reference kernels: every variant this CPU runs plus
 * the dispatched one (CAIRN_ISA caps it: ctest runs this under ref, avx2
 * and avx512), at edge sizes around the vector widths and past the
 * parallel chunk size, with poisoned outputs. Tolerances follow the ulp
 * bounds of vmath_impl.h (<= 3 ulp, the reference's float libm adds <= 1);
 * Gelu gets an absolute term for the reference's own cancellation in
 * 1 + erf(x) at negative x. Add/Sub/Mul/Div are single IEEE operations, so
 * they must match exactly.
 */
#include "base/threadpool.h"
#include "check.h"
#include "kernels/eltwise/fast.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int64_t sizes[] = {1, 15, 16, 17, 31, 33, 1000, 40000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static ktensor_t t1(float *p, int64_t n)
{
    ktensor_t t;
    memset(&t, 0, sizeof t);
    t.dtype = CAIRN_F32;
    t.rank = 1;
    t.shape[0] = n;
    t.data = p;
    return t;
}

static ktensor_t tn(float *p, int rank, const int64_t *shape)
{
    ktensor_t t;
    memset(&t, 0, sizeof t);
    t.dtype = CAIRN_F32;
    t.rank = rank;
    memcpy(t.shape, shape, sizeof(int64_t) * (size_t)rank);
    t.data = p;
    return t;
}

static void poison(float *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = NAN;
}

static void test_unary(const eltwise_f32_variant_t *v, const kctx_t *k, check_rng_t *rng)
{
    static const struct {
        eltwise_unop_t op;
        int gelu_tanh;
        double lo, hi, atol;
    } ops[] = {
        {ELTWISE_RELU, 0, -5, 5, 0},      {ELTWISE_EXP, 0, -90, 90, 0},
        {ELTWISE_LOG, 0, 0, 1e4, 0},      {ELTWISE_ERF, 0, -5, 5, 0},
        {ELTWISE_TANH, 0, -10, 10, 0},    {ELTWISE_SIGMOID, 0, -30, 30, 0},
        {ELTWISE_GELU, 0, -8, 8, 2e-6},   {ELTWISE_GELU, 1, -8, 8, 2e-6},
    };
    const int nops = (int)(sizeof ops / sizeof ops[0]);
    float *x = malloc(40000 * sizeof *x), *y = malloc(40000 * sizeof *y),
          *r = malloc(40000 * sizeof *r);
    for (int o = 0; o < nops; o++) {
        for (int s = 0; s < NSIZES; s++) {
            int64_t n = sizes[s];
            check_fill_f32(rng, x, n, ops[o].lo, ops[o].hi);
            ktensor_t tx = t1(x, n), ty = t1(y, n), tr = t1(r, n);
            eltwise_params_t p = eltwise_params_default();
            p.gelu_tanh = ops[o].gelu_tanh;
            poison(y, n);
            CHECK_OK(eltwise_unary_ref(ops[o].op, &p, &tx, &tr));
            int done = eltwise_unary_f32_fast(v, ops[o].op, &p, &tx, &ty, k);
            const eltwise_f32_variant_t *sel = v ? v : eltwise_f32_select();
            CHECK(done == (sel->unary != NULL));
            if (!done)
                continue;
            int bad = 0;
            for (int64_t i = 0; i < n && bad < 3; i++) {
                double tol = 4.0 * 1.1920929e-7 * fabs((double)r[i]) + ops[o].atol + 1e-38;
                if (!(y[i] == r[i] || fabs((double)y[i] - (double)r[i]) <= tol)) {
                    bad++;
                    CHECK_MSG(0, "%s %s (tanh form %d) n=%lld x[%lld]=%.9g: got %.9g, ref %.9g",
                              sel->name, eltwise_unop_name(ops[o].op), ops[o].gelu_tanh,
                              (long long)n, (long long)i, (double)x[i], (double)y[i],
                              (double)r[i]);
                }
            }
        }
    }
    /* not covered: other ops and dtypes go to the reference */
    ktensor_t tx = t1(x, 4), ty = t1(y, 4);
    CHECK(eltwise_unary_f32_fast(v, ELTWISE_SIN, NULL, &tx, &ty, k) == 0);
    tx.dtype = CAIRN_F64;
    CHECK(eltwise_unary_f32_fast(v, ELTWISE_EXP, NULL, &tx, &ty, k) == 0);
    free(x), free(y), free(r);
}

typedef struct bcase {
    int ra, rb, ro;
    int64_t a[4], b[4], o[4];
    int covered;
} bcase_t;

static void test_binary(const eltwise_f32_variant_t *v, const kctx_t *k, check_rng_t *rng)
{
    static const bcase_t cases[] = {
        {3, 3, 3, {2, 3, 17}, {2, 3, 17}, {2, 3, 17}, 1},
        {1, 1, 1, {33}, {1}, {33}, 1},
        {1, 1, 1, {1}, {31}, {31}, 1},
        {3, 1, 3, {4, 5, 33}, {33}, {4, 5, 33}, 1},
        {4, 4, 4, {1, 12, 7, 128}, {1, 1, 1, 128}, {1, 12, 7, 128}, 1},
        {2, 2, 2, {3, 1000}, {3, 1}, {3, 1000}, 1},
        {3, 3, 3, {1, 7, 31}, {1, 7, 1}, {1, 7, 31}, 1},
        {2, 2, 2, {5, 1}, {1, 17}, {5, 17}, 1},
        {1, 1, 1, {40000}, {40000}, {40000}, 1},
        {2, 1, 2, {300, 384}, {384}, {300, 384}, 1},
        {2, 2, 2, {300, 384}, {300, 1}, {300, 384}, 1},
        {3, 3, 3, {3, 1, 5}, {3, 4, 5}, {3, 4, 5}, 0},
        {3, 2, 3, {3, 4, 5}, {4, 1}, {3, 4, 5}, 0},
    };
    const int nc = (int)(sizeof cases / sizeof cases[0]);
    static const eltwise_binop_t ops[] = {ELTWISE_ADD, ELTWISE_SUB, ELTWISE_MUL, ELTWISE_DIV};
    for (int c = 0; c < nc; c++) {
        const bcase_t *bc = &cases[c];
        ktensor_t ta = tn(NULL, bc->ra, bc->a), tb = tn(NULL, bc->rb, bc->b),
                  to = tn(NULL, bc->ro, bc->o);
        int64_t na = kt_numel(&ta), nb = kt_numel(&tb), no = kt_numel(&to);
        float *a = malloc((size_t)na * sizeof *a), *b = malloc((size_t)nb * sizeof *b);
        float *o = malloc((size_t)no * sizeof *o), *r = malloc((size_t)no * sizeof *r);
        ta.data = a, tb.data = b, to.data = o;
        ktensor_t tr = tn(r, bc->ro, bc->o);
        check_fill_f32(rng, a, na, -4, 4);
        check_fill_f32(rng, b, nb, 0.5, 3);
        for (int op = 0; op < 4; op++) {
            poison(o, no);
            CHECK_OK(eltwise_binary_ref(ops[op], &ta, &tb, &tr));
            int done = eltwise_binary_f32_fast(v, ops[op], &ta, &tb, &to, k);
            const eltwise_f32_variant_t *sel = v ? v : eltwise_f32_select();
            CHECK_MSG(done == (bc->covered && sel->binary != NULL), "case %d %s: done=%d", c,
                      eltwise_binop_name(ops[op]), done);
            if (done)
                CHECK_MSG(memcmp(o, r, (size_t)no * sizeof *o) == 0, "%s case %d %s differs",
                          sel->name, c, eltwise_binop_name(ops[op]));
        }
        /* in place: out aliases the full operand a */
        if (bc->covered && na == no) {
            CHECK_OK(eltwise_binary_ref(ELTWISE_MUL, &ta, &tb, &tr));
            ktensor_t tio = ta;
            if (eltwise_binary_f32_fast(v, ELTWISE_MUL, &ta, &tb, &tio, k))
                CHECK_MSG(memcmp(a, r, (size_t)no * sizeof *o) == 0, "in-place case %d", c);
        }
        free(a), free(b), free(o), free(r);
    }
}

int main(void)
{
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    kctx_t k1 = {NULL, 1}, k2 = {pool, 2};
    check_rng_t rng = {0x5eed1234abcdull};
    const eltwise_f32_variant_t *vs[5];
    int nv = 0;
    for (int i = 0; i < eltwise_f32_n_variants; i++)
        if (eltwise_f32_variant_for(eltwise_f32_variants[i].isa) == &eltwise_f32_variants[i])
            vs[nv++] = &eltwise_f32_variants[i];
    vs[nv++] = NULL; /* the dispatched variant */
    for (int i = 0; i < nv; i++) {
        test_unary(vs[i], &k1, &rng);
        test_unary(vs[i], &k2, &rng);
        test_binary(vs[i], &k1, &rng);
        test_binary(vs[i], &k2, &rng);
    }
    base_pool_destroy(pool);
    return check_finish("test_fastk_eltwise");
}
