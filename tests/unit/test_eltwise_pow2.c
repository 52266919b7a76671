/* Pow by a constant 2 takes the x*x fast path: bit-identical to the
 * correctly rounded square, including specials, for every size class. */
#include "check.h"

static void run_pow(const float *x, int64_t n, float e, float *y)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    cairn_value_id xi, ei, yi;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 1, &n, NULL, &xi));
    cairn_tensor_t et = {CAIRN_F32, 0, {0}, &e};
    CHECK_OK(cairn_graph_add_constant(g, "e", &et, &ei));
    CHECK_OK(cairn_graph_add_node(g, "Pow", "p", (cairn_value_id[]){xi, ei}, 2, NULL, 0, &yi, 1,
                                  NULL));
    CHECK_OK(cairn_graph_mark_output(g, yi));
    cairn_session_t *s;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    cairn_tensor_t in = {CAIRN_F32, 1, {n}, (void *)x}, out = {CAIRN_F32, 1, {n}, y};
    CHECK_OK(cairn_session_run(s, &in, 1, &out, 1));
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

int main(void)
{
    check_rng_t r = {42};
    int64_t sizes[] = {1, 15, 16, 17, 1000, 40001};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int64_t n = sizes[k];
        float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
        check_fill_f32(&r, x, n, -1e3, 1e3);
        if (n > 6) {
            x[0] = NAN, x[1] = INFINITY, x[2] = -INFINITY, x[3] = 1e30f, x[4] = -0.0f;
            x[5] = 1e-30f;
        }
        for (int64_t i = 0; i < n; i++)
            y[i] = NAN;
        run_pow(x, n, 2.0f, y);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++) {
            float want = (float)((double)x[i] * (double)x[i]);
            if (!(y[i] == want || (isnan(y[i]) && isnan(want))))
                bad++;
        }
        CHECK_MSG(bad == 0, "n %lld: %lld squares differ", (long long)n, (long long)bad);
        /* another exponent still takes the general path */
        run_pow(x, n, 3.0f, y);
        CHECK(n < 7 || (isnan(y[0]) && y[1] == INFINITY && y[2] == -INFINITY));
        free(x);
        free(y);
    }
    return check_finish("test_eltwise_pow2");
}
