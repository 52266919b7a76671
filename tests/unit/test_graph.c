/* Graph building, verification, printing and the error paths of the API. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void test_identity_roundtrip(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dims[2] = {0, 3};
    const char *names[2] = {"batch", NULL};
    cairn_value_id x, y;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dims, names, &x));
    CHECK_OK(cairn_graph_add_node(g, "Identity", "id", &x, 1, NULL, 0, &y, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    CHECK_OK(cairn_graph_verify(g));
    char *text = NULL;
    CHECK_OK(cairn_graph_print(g, &text));
    CHECK(text && strstr(text, "Identity") && strstr(text, "[batch,3]"));
    free(text);

    cairn_session_t *s;
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = 2;
    CHECK_OK(cairn_session_create(g, &o, &s));
    cairn_graph_destroy(g); /* the session has its own copy */
    for (int b = 1; b <= 3; b++) {
        float in[9], out_buf[9];
        for (int i = 0; i < 3 * b; i++)
            in[i] = (float)(i * 10 + b);
        cairn_tensor_t ti = {CAIRN_F32, 2, {b, 3}, in};
        cairn_tensor_t to = {CAIRN_F32, 2, {b, 3}, out_buf};
        CHECK_OK(cairn_session_run(s, &ti, 1, &to, 1));
        int ok = 1;
        for (int i = 0; i < 3 * b; i++)
            ok &= out_buf[i] == in[i];
        CHECK(ok);
        /* session-owned output */
        cairn_tensor_t t2 = {0};
        CHECK_OK(cairn_session_run(s, &ti, 1, &t2, 1));
        CHECK(t2.data && t2.rank == 2 && t2.shape[0] == b && ((float *)t2.data)[0] == in[0]);
    }
    /* a wrong static dim, a negative dim, NULL data */
    float in[6] = {0};
    cairn_tensor_t bad = {CAIRN_F32, 2, {2, 4}, in};
    cairn_tensor_t out = {0};
    CHECK_FAILS(cairn_session_run(s, &bad, 1, &out, 1), CAIRN_ERR_SHAPE, "'x'");
    cairn_tensor_t neg = {CAIRN_F32, 2, {-1, 3}, in};
    CHECK_FAILS(cairn_session_run(s, &neg, 1, &out, 1), CAIRN_ERR_SHAPE, "negative");
    cairn_tensor_t nul = {CAIRN_F32, 2, {2, 3}, NULL};
    CHECK_FAILS(cairn_session_run(s, &nul, 1, &out, 1), CAIRN_ERR_INVALID_ARGUMENT, "NULL");
    cairn_tensor_t wrong_type = {CAIRN_I32, 2, {2, 3}, in};
    CHECK_FAILS(cairn_session_run(s, &wrong_type, 1, &out, 1), CAIRN_ERR_DTYPE, "f32");
    CHECK_FAILS(cairn_session_run(s, NULL, 1, &out, 1), CAIRN_ERR_INVALID_ARGUMENT, NULL);
    CHECK_FAILS(cairn_session_run(NULL, &bad, 1, &out, 1), CAIRN_ERR_INVALID_ARGUMENT, NULL);
    /* an output buffer of the wrong shape */
    float ob[6];
    cairn_tensor_t good = {CAIRN_F32, 2, {2, 3}, in};
    cairn_tensor_t wrong_out = {CAIRN_F32, 2, {3, 2}, ob};
    CHECK_FAILS(cairn_session_run(s, &good, 1, &wrong_out, 1), CAIRN_ERR_SHAPE, "output 0");
    cairn_session_destroy(s);
}

static void test_errors(void)
{
    cairn_graph_t *g;
    CHECK_FAILS(cairn_graph_create(NULL), CAIRN_ERR_INVALID_ARGUMENT, NULL);
    CHECK_OK(cairn_graph_create(&g));
    int64_t d[1] = {4};
    cairn_value_id x, y;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 1, d, NULL, &x));
    CHECK_FAILS(cairn_graph_add_input(g, "x", CAIRN_F32, 1, d, NULL, &y), CAIRN_ERR_GRAPH,
                "already used");
    CHECK_FAILS(cairn_graph_add_input(g, "z", CAIRN_F32, 9, d, NULL, &y), CAIRN_ERR_SHAPE, "rank");
    CHECK_FAILS(cairn_graph_add_input(g, "z", (cairn_dtype_t)42, 1, d, NULL, &y), CAIRN_ERR_DTYPE,
                NULL);
    int64_t neg[1] = {-3};
    CHECK_FAILS(cairn_graph_add_input(g, "z", CAIRN_F32, 1, neg, NULL, &y), CAIRN_ERR_SHAPE,
                "symbolic");
    CHECK_FAILS(cairn_graph_add_node(g, "NoSuchOp", "n", &x, 1, NULL, 0, &y, 1, NULL),
                CAIRN_ERR_UNSUPPORTED, "NoSuchOp");
    cairn_value_id two[2] = {x, x};
    CHECK_FAILS(cairn_graph_add_node(g, "Identity", "n", two, 2, NULL, 0, &y, 1, NULL),
                CAIRN_ERR_GRAPH, "inputs");
    cairn_value_id bogus = 99;
    CHECK_FAILS(cairn_graph_add_node(g, "Identity", "n", &bogus, 1, NULL, 0, &y, 1, NULL),
                CAIRN_ERR_GRAPH, "does not exist");
    cairn_attr_t a = cairn_attr_int("axis", 1);
    CHECK_FAILS(cairn_graph_add_node(g, "Identity", "n", &x, 1, &a, 1, &y, 1, NULL),
                CAIRN_ERR_UNSUPPORTED, "axis");
    CHECK_FAILS(cairn_graph_add_node(g, "Identity", NULL, &x, 1, NULL, 0, &y, 1, NULL),
                CAIRN_ERR_INVALID_ARGUMENT, NULL);
    /* no outputs yet */
    CHECK_FAILS(cairn_graph_verify(g), CAIRN_ERR_GRAPH, "no outputs");
    cairn_session_t *s = NULL;
    CHECK_FAILS(cairn_session_create(g, NULL, &s), CAIRN_ERR_GRAPH, NULL);
    CHECK_FAILS(cairn_session_create(NULL, NULL, &s), CAIRN_ERR_INVALID_ARGUMENT, NULL);
    CHECK_FAILS(cairn_graph_mark_output(g, 1234), CAIRN_ERR_INVALID_ARGUMENT, "1234");
    CHECK_OK(cairn_graph_mark_output(g, x));
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = -4;
    CHECK_FAILS(cairn_session_create(g, &o, &s), CAIRN_ERR_INVALID_ARGUMENT, "threads");
    /* input passed straight through to an output */
    o.threads = 1;
    CHECK_OK(cairn_session_create(g, &o, &s));
    float in[4] = {1, 2, 3, 4};
    cairn_tensor_t ti = {CAIRN_F32, 1, {4}, in}, to = {0};
    CHECK_OK(cairn_session_run(s, &ti, 1, &to, 1));
    CHECK(to.data && ((float *)to.data)[3] == 4.0f);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

static void test_constant_folding_to_output(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    float w[3] = {1.5f, -2.0f, 3.25f};
    cairn_tensor_t wt = {CAIRN_F32, 1, {3}, w};
    cairn_value_id c, y;
    CHECK_OK(cairn_graph_add_constant(g, "w", &wt, &c));
    CHECK_OK(cairn_graph_add_node(g, "Identity", "id", &c, 1, NULL, 0, &y, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    cairn_session_t *s;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    cairn_tensor_t out = {0};
    CHECK_OK(cairn_session_run(s, NULL, 0, &out, 1));
    CHECK(out.data && ((float *)out.data)[2] == 3.25f);
    cairn_plan_info_t info;
    CHECK_OK(cairn_session_plan_info(s, &info));
    CHECK(info.steps == 0);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

/* A session that takes its graph: the graph is gone afterwards (on failure
 * too; LeakSanitizer checks that), and the session runs. */
static void test_session_create_from(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    float w[3] = {1, 2, 3};
    cairn_tensor_t wt = {CAIRN_F32, 1, {3}, w};
    cairn_value_id x, c, y;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 1, (int64_t[]){3}, NULL, &x));
    CHECK_OK(cairn_graph_add_constant(g, "w", &wt, &c));
    CHECK_OK(cairn_graph_add_node(g, "Identity", "id", &x, 1, NULL, 0, &y, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    cairn_session_t *s = NULL;
    CHECK_OK(cairn_session_create_from(g, NULL, &s));
    float in[3] = {4, 5, 6};
    cairn_tensor_t ti = {CAIRN_F32, 1, {3}, in}, to = {0};
    CHECK_OK(cairn_session_run(s, &ti, 1, &to, 1));
    CHECK(to.data && ((float *)to.data)[2] == 6.0f);
    cairn_session_destroy(s);
    /* a graph that fails verification is destroyed all the same */
    CHECK_OK(cairn_graph_create(&g));
    CHECK_FAILS(cairn_session_create_from(g, NULL, &s), CAIRN_ERR_GRAPH, "no outputs");
    CHECK_FAILS(cairn_session_create_from(NULL, NULL, &s), CAIRN_ERR_INVALID_ARGUMENT, NULL);
}

int main(void)
{
    test_session_create_from();
    test_identity_roundtrip();
    test_errors();
    test_constant_folding_to_output();
    return check_finish("test_graph");
}
