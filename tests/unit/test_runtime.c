/* The runtime: liveness-planned arena, no allocation on repeated runs,
 * re-planning for new symbolic shapes, concurrent sessions. Uses only
 * Identity so it tests the plan, not the kernels. */
#define _GNU_SOURCE
#include "check.h"
#include "runtime/session_internal.h"

#include <pthread.h>
#include <stdatomic.h>

/* Counting allocator: glibc lets a program replace malloc and friends; the
 * originals stay reachable as __libc_*. Sanitizer builds own malloc, so
 * there the count is not taken. */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNT_ALLOCS 0
#endif
#endif
#ifndef COUNT_ALLOCS
#if defined(__GLIBC__)
#define COUNT_ALLOCS 1
#else
#define COUNT_ALLOCS 0
#endif
#endif

#if COUNT_ALLOCS
static _Atomic long g_allocs;
#endif
#if COUNT_ALLOCS
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
void *malloc(size_t n)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_realloc(p, n);
}
int posix_memalign(void **out, size_t align, size_t n)
{
    atomic_fetch_add(&g_allocs, 1);
    void *p = __libc_memalign(align, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void free(void *p) { __libc_free(p); }
#endif

/* x -> op x n -> y (op: Identity, or Relu where views must not apply) */
static cairn_graph_t *chain_of(const char *op, int n, int symbolic)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dims[2] = {4, 256};
    const char *names[2] = {"seq", NULL};
    cairn_value_id v;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dims, symbolic ? names : NULL, &v));
    for (int i = 0; i < n; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "id%d", i);
        CHECK_OK(cairn_graph_add_node(g, op, nm, &v, 1, NULL, 0, &v, 1, NULL));
    }
    CHECK_OK(cairn_graph_mark_output(g, v));
    return g;
}

static cairn_graph_t *chain(int n, int symbolic)
{
    return chain_of("Identity", n, symbolic);
}

static void test_arena_reuse(void)
{
    /* Relu (x >= 0 here, so y = x) uncompiled: 10 steps; Identity would be
     * planned as views of x (test_views) */
    cairn_graph_t *g = chain_of("Relu", 10, 0);
    cairn_session_t *s;
    cairn_session_options_t so = cairn_session_options_default();
    cairn_compile_options_t none = {"none", NULL, NULL};
    CHECK_OK(cairn_session_create_compiled(g, &so, &none, &s));
    float x[4 * 256], y[4 * 256];
    for (int i = 0; i < 4 * 256; i++)
        x[i] = (float)i;
    cairn_tensor_t in = {CAIRN_F32, 2, {4, 256}, x}, out = {CAIRN_F32, 2, {4, 256}, y};
    cairn_plan_info_t info;
    CHECK_FAILS(cairn_session_plan_info(s, &info), CAIRN_ERR_INVALID_ARGUMENT, "run");
    CHECK_OK(cairn_session_run(s, &in, 1, &out, 1));
    CHECK(memcmp(x, y, sizeof x) == 0);
    CHECK_OK(cairn_session_plan_info(s, &info));
    CHECK(info.steps == 10);
    /* 9 intermediates of 4 KiB, each live for two steps: two buffers suffice */
    CHECK_MSG(info.arena_bytes == 2 * sizeof x, "arena %zu, want %zu", info.arena_bytes,
              2 * sizeof x);

#if COUNT_ALLOCS
    CHECK(atomic_load(&g_allocs) > 0); /* the counter sees cairn's allocations */
    long before = atomic_load(&g_allocs);
    for (int r = 0; r < 20; r++)
        CHECK_OK(cairn_session_run(s, &in, 1, &out, 1));
    cairn_tensor_t owned = {0};
    CHECK_OK(cairn_session_run(s, &in, 1, &owned, 1));
    CHECK_MSG(atomic_load(&g_allocs) == before, "%ld allocations in 21 repeated runs",
              atomic_load(&g_allocs) - before);
#endif
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

/* Reshape, Flatten, Squeeze, Unsqueeze and Identity are views: no step, no
 * copy, the output read from its input's storage. An Identity chain is one
 * step (the copy into the caller's output); in Relu -> Reshape -> Relu ->
 * Flatten -> Relu the views read the arena and a graph input, the Relus'
 * storage stays live through their views' readers, and results are right. */
static void test_views(void)
{
    cairn_graph_t *g = chain(6, 0);
    cairn_session_t *s;
    cairn_session_options_t so = cairn_session_options_default();
    cairn_compile_options_t none = {"none", NULL, NULL};
    CHECK_OK(cairn_session_create_compiled(g, &so, &none, &s));
    float x[4 * 256], y[4 * 256];
    for (int i = 0; i < 4 * 256; i++)
        x[i] = (float)i - 300.0f;
    cairn_tensor_t in = {CAIRN_F32, 2, {4, 256}, x}, out = {CAIRN_F32, 2, {4, 256}, y};
    CHECK_OK(cairn_session_run(s, &in, 1, &out, 1));
    CHECK(memcmp(x, y, sizeof x) == 0);
    cairn_plan_info_t info;
    CHECK_OK(cairn_session_plan_info(s, &info));
    CHECK_MSG(info.steps == 1 && info.arena_bytes == 0, "%d steps, arena %zu", info.steps,
              info.arena_bytes);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);

    CHECK_OK(cairn_graph_create(&g));
    int64_t dims[2] = {4, 256}, shp[3] = {16, 8, 8};
    cairn_value_id v, x0, sv;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dims, NULL, &x0));
    cairn_tensor_t st = {CAIRN_I64, 1, {3}, shp};
    CHECK_OK(cairn_graph_add_constant(g, "shape", &st, &sv));
    /* a view of the graph input itself, read by a Neg */
    cairn_value_id rin[2] = {x0, sv};
    CHECK_OK(cairn_graph_add_node(g, "Reshape", "r0", rin, 2, NULL, 0, &v, 1, NULL));
    CHECK_OK(cairn_graph_add_node(g, "Neg", "n0", &v, 1, NULL, 0, &v, 1, NULL));
    CHECK_OK(cairn_graph_add_node(g, "Relu", "a", &v, 1, NULL, 0, &v, 1, NULL));
    cairn_value_id rin2[2] = {v, sv};
    CHECK_OK(cairn_graph_add_node(g, "Reshape", "r1", rin2, 2, NULL, 0, &v, 1, NULL));
    cairn_value_id keep = v; /* read twice: by Neg now and by Add at the end */
    CHECK_OK(cairn_graph_add_node(g, "Neg", "b", &v, 1, NULL, 0, &v, 1, NULL));
    cairn_attr_t fa = cairn_attr_int("axis", 1);
    CHECK_OK(cairn_graph_add_node(g, "Flatten", "f", &v, 1, &fa, 1, &v, 1, NULL));
    CHECK_OK(cairn_graph_add_node(g, "Neg", "c", &v, 1, NULL, 0, &v, 1, NULL));
    cairn_value_id fin[2] = {keep, sv};
    cairn_value_id k3;
    CHECK_OK(cairn_graph_add_node(g, "Reshape", "r2", fin, 2, NULL, 0, &k3, 1, NULL));
    cairn_attr_t fb = cairn_attr_int("axis", 1);
    CHECK_OK(cairn_graph_add_node(g, "Flatten", "f2", &k3, 1, &fb, 1, &k3, 1, NULL));
    cairn_value_id ain[2] = {v, k3};
    CHECK_OK(cairn_graph_add_node(g, "Add", "sum", ain, 2, NULL, 0, &v, 1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, v));
    CHECK_OK(cairn_session_create_compiled(g, &so, &none, &s));
    float y2[16 * 64];
    cairn_tensor_t out2 = {CAIRN_F32, 2, {16, 64}, y2};
    CHECK_OK(cairn_session_run(s, &in, 1, &out2, 1));
    /* a = relu(-x); c = -(-a) = a; sum = a + a */
    int bad = 0;
    for (int i = 0; i < 4 * 256; i++) {
        float a = -x[i] > 0 ? -x[i] : 0.0f;
        bad += y2[i] != a + a;
    }
    CHECK_MSG(bad == 0, "%d wrong outputs", bad);
    CHECK_OK(cairn_session_plan_info(s, &info));
    CHECK_MSG(info.steps == 5, "%d steps (Neg, Relu, Neg, Neg, Add)", info.steps);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

static void test_symbolic_rebind(void)
{
    cairn_graph_t *g = chain(3, 1);
    cairn_session_t *s;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    const char *name, *dn[CAIRN_MAX_RANK];
    cairn_dtype_t dt;
    int rank;
    int64_t shape[CAIRN_MAX_RANK];
    CHECK_OK(cairn_session_input_info(s, 0, &name, &dt, &rank, shape, dn));
    CHECK(!strcmp(name, "x") && dt == CAIRN_F32 && rank == 2 && shape[0] == -1 &&
          shape[1] == 256 && dn[0] && !strcmp(dn[0], "seq") && dn[1] == NULL);
    CHECK_FAILS(cairn_session_input_info(s, 1, &name, &dt, &rank, shape, dn),
                CAIRN_ERR_INVALID_ARGUMENT, NULL);
    int seqs[] = {3, 5, 3, 1, 0};
    for (size_t k = 0; k < sizeof seqs / sizeof seqs[0]; k++) {
        int sq = seqs[k];
        float *x = malloc(sizeof(float) * (size_t)(sq * 256 + 1));
        for (int i = 0; i < sq * 256; i++)
            x[i] = (float)(i + sq);
        cairn_tensor_t in = {CAIRN_F32, 2, {sq, 256}, x}, out = {0};
        CHECK_OK(cairn_session_run(s, &in, 1, &out, 1));
        CHECK(out.rank == 2 && out.shape[0] == sq && out.shape[1] == 256);
        CHECK(sq == 0 || memcmp(out.data, x, sizeof(float) * (size_t)(sq * 256)) == 0);
        CHECK_OK(cairn_session_output_info(s, 0, &name, &dt, &rank, shape, dn));
        CHECK(shape[0] == sq);
        free(x);
    }
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

typedef struct worker {
    const cairn_graph_t *g;
    int seed, failures;
} worker_t;

static void *run_worker(void *arg)
{
    worker_t *w = arg;
    cairn_session_t *s;
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = 1;
    if (cairn_session_create(w->g, &o, &s) != CAIRN_OK) {
        w->failures++;
        return NULL;
    }
    float x[2 * 256];
    for (int r = 0; r < 300; r++) {
        int sq = 1 + (r + w->seed) % 2;
        for (int i = 0; i < sq * 256; i++)
            x[i] = (float)(w->seed * 1000 + r + i);
        cairn_tensor_t in = {CAIRN_F32, 2, {sq, 256}, x}, out = {0};
        if (cairn_session_run(s, &in, 1, &out, 1) != CAIRN_OK ||
            memcmp(out.data, x, sizeof(float) * (size_t)(sq * 256)) != 0)
            w->failures++;
        /* an error on this thread must not leak into the other's message */
        cairn_tensor_t bad = {CAIRN_F32, 2, {sq, 7}, x};
        if (cairn_session_run(s, &bad, 1, &out, 1) != CAIRN_ERR_SHAPE ||
            !strstr(cairn_last_error(), "'x'"))
            w->failures++;
    }
    cairn_session_destroy(s);
    return NULL;
}

static void test_concurrent_sessions(void)
{
    cairn_graph_t *g = chain(4, 1);
    pthread_t t[2];
    worker_t w[2] = {{g, 1, 0}, {g, 2, 0}};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, run_worker, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK(w[0].failures == 0 && w[1].failures == 0);
    cairn_graph_destroy(g);
}

/* Reshape whose target shape is a graph input: the plan is specialised on
 * the input's value and re-planned when the value changes. */
static void test_value_specialised_plan(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    cairn_value_id x, shp, y;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 1, (int64_t[]){24}, NULL, &x));
    CHECK_OK(cairn_graph_add_input(g, "shape", CAIRN_I64, 1, (int64_t[]){2}, NULL, &shp));
    CHECK_OK(cairn_graph_add_node(g, "Reshape", "r", (cairn_value_id[]){x, shp}, 2, NULL, 0, &y,
                                  1, NULL));
    CHECK_OK(cairn_graph_mark_output(g, y));
    cairn_session_t *s;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    float xd[24];
    for (int i = 0; i < 24; i++)
        xd[i] = (float)i;
    int64_t shapes[3][2] = {{4, 6}, {6, -1}, {4, 6}};
    int64_t want[3][2] = {{4, 6}, {6, 4}, {4, 6}};
    for (int r = 0; r < 3; r++) {
        cairn_tensor_t in[2] = {{CAIRN_F32, 1, {24}, xd}, {CAIRN_I64, 1, {2}, shapes[r]}};
        cairn_tensor_t out = {0};
        CHECK_OK(cairn_session_run(s, in, 2, &out, 1));
        CHECK_MSG(out.rank == 2 && out.shape[0] == want[r][0] && out.shape[1] == want[r][1],
                  "run %d: got rank %d [%lld,%lld]", r, out.rank, (long long)out.shape[0],
                  (long long)out.shape[1]);
        CHECK(out.data && ((float *)out.data)[23] == 23.0f);
    }
    /* a value that does not fit is still a clear error */
    int64_t bad[2] = {5, 5};
    cairn_tensor_t in[2] = {{CAIRN_F32, 1, {24}, xd}, {CAIRN_I64, 1, {2}, bad}};
    cairn_tensor_t out = {0};
    CHECK_FAILS(cairn_session_run(s, in, 2, &out, 1), CAIRN_ERR_SHAPE, "[5,5]");
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
}

int main(void)
{
    test_value_specialised_plan();
    test_arena_reuse();
    test_views();
    test_symbolic_rebind();
    test_concurrent_sessions();
    return check_finish("test_runtime");
}
