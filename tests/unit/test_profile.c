/* The profiler: cost figures per step, the Chrome trace (valid JSON, one
 * slice per step per run), the HTML page, JSON and CSV reports, counter
 * fallback under an injected perf_event_open failure, the pool's busy-time
 * accounting, and each advice rule on synthetic rows (firing and not). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "json_check.h"

#include "base/threadpool.h"
#include "profile/profile.h"
#include "profile/report.h"
#include "runtime/session_internal.h"

#include <errno.h>

/* ---- helpers ---- */

static char *slurp_file(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    if (buf)
        buf[got] = 0;
    fclose(f);
    return buf;
}

typedef struct model {
    cairn_graph_t *g;
    cairn_session_t *s;
    cairn_tensor_t in[8];
    int n_in;
} model_t;

static void add_input(model_t *m, const char *name, int rank, const int64_t *dims,
                      cairn_value_id *v)
{
    CHECK_OK(cairn_graph_add_input(m->g, name, CAIRN_F32, rank, dims, NULL, v));
    cairn_tensor_t *t = &m->in[m->n_in++];
    t->dtype = CAIRN_F32;
    t->rank = rank;
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        t->shape[d] = dims[d], n *= dims[d];
    t->data = calloc((size_t)n, sizeof(float));
    for (int64_t i = 0; i < n; i++)
        ((float *)t->data)[i] = (float)((i * 7) % 11) * 0.1f - 0.5f;
}

/* MatMul [5,7]x[7,3]; Conv [1,2,6,6] * [4,2,3,3] + bias[4], pads 1; Relu on
 * the conv; a batched attention-style MatMul [2,3,4,5]x[2,3,5,6]. */
static void build_model(model_t *m, int threads)
{
    memset(m, 0, sizeof *m);
    CHECK_OK(cairn_graph_create(&m->g));
    cairn_value_id a, b, x, w, bias, q, k, y[4];
    int64_t da[2] = {5, 7}, db[2] = {7, 3}, dx[4] = {1, 2, 6, 6}, dw[4] = {4, 2, 3, 3},
            dbias[1] = {4}, dq[4] = {2, 3, 4, 5}, dk[4] = {2, 3, 5, 6};
    add_input(m, "a", 2, da, &a);
    add_input(m, "b", 2, db, &b);
    add_input(m, "x", 4, dx, &x);
    add_input(m, "w", 4, dw, &w);
    add_input(m, "bias", 1, dbias, &bias);
    add_input(m, "q", 4, dq, &q);
    add_input(m, "k", 4, dk, &k);
    cairn_value_id mm_in[2] = {a, b}, conv_in[3] = {x, w, bias}, att_in[2] = {q, k};
    int64_t pads[4] = {1, 1, 1, 1};
    cairn_attr_t pa = cairn_attr_ints("pads", pads, 4);
    CHECK_OK(cairn_graph_add_node(m->g, "MatMul", "mm", mm_in, 2, NULL, 0, &y[0], 1, NULL));
    CHECK_OK(cairn_graph_add_node(m->g, "Conv", "conv", conv_in, 3, &pa, 1, &y[1], 1, NULL));
    CHECK_OK(cairn_graph_add_node(m->g, "Relu", "relu", &y[1], 1, NULL, 0, &y[2], 1, NULL));
    CHECK_OK(cairn_graph_add_node(m->g, "MatMul", "scores", att_in, 2, NULL, 0, &y[3], 1, NULL));
    CHECK_OK(cairn_graph_mark_output(m->g, y[0]));
    CHECK_OK(cairn_graph_mark_output(m->g, y[2]));
    CHECK_OK(cairn_graph_mark_output(m->g, y[3]));
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = threads;
    CHECK_OK(cairn_session_create(m->g, &o, &m->s));
}

static void free_model(model_t *m)
{
    for (int i = 0; i < m->n_in; i++)
        free(m->in[i].data);
    cairn_session_destroy(m->s);
    cairn_graph_destroy(m->g);
}

static int run_profiled(model_t *m, profile_t *p, int iters)
{
    cairn_tensor_t out[3];
    for (int i = 0; i < iters; i++) {
        memset(out, 0, sizeof out);
        cairn_status_t s = cairn_session_run_profiled(m->s, m->in, 7, out, 3, p);
        CHECK_OK(s);
        if (s != CAIRN_OK)
            return 0;
    }
    return 1;
}

static const profile_step_t *find_step(const profile_t *p, const char *name)
{
    for (int i = 0; i < p->n_steps; i++)
        if (!strcmp(p->steps[i].name, name))
            return &p->steps[i];
    return NULL;
}

/* ---- cost figures ---- */

static void test_costs(void)
{
    model_t m;
    build_model(&m, 1);
    profile_t *p = profile_create(0);
    if (!run_profiled(&m, p, 1))
        goto done;
    CHECK(p->n_steps == 4 && p->iters == 1);
    const profile_step_t *mm = find_step(p, "mm"), *cv = find_step(p, "conv"),
                         *sc = find_step(p, "scores"), *re = find_step(p, "relu");
    CHECK(mm && cv && sc && re);
    if (!mm || !cv || !sc || !re)
        goto done;
    /* GEMM: 2*M*N*K; bytes: A, B read once, C written once */
    CHECK(mm->flops == 2.0 * 5 * 3 * 7);
    CHECK(mm->bytes == 4.0 * (5 * 7 + 7 * 3 + 5 * 3));
    /* the f32 MatMul runs on the GEMM engine; the step names its variant */
    CHECK(mm->m == 5 && !strcmp(mm->op, "MatMul") && !strncmp(mm->kernel, "gemm ", 5));
    /* Conv: 2 * N*Cout*Ho*Wo * Cin*kh*kw, plus one add per output for the bias */
    double outs = 1.0 * 4 * 6 * 6;
    CHECK(cv->flops == 2.0 * outs * 2 * 3 * 3 + outs);
    CHECK(cv->bytes == 4.0 * (72 + 72 + 4 + outs));
    /* attention scores, Q K^T per batch and head: 2 * B*H*S*T*D */
    CHECK(sc->flops == 2.0 * 2 * 3 * 4 * 6 * 5);
    CHECK(sc->bytes == 4.0 * (2 * 3 * 4 * 5 + 2 * 3 * 5 * 6 + 2 * 3 * 4 * 6));
    CHECK(sc->m == 2 * 3 * 4);
    CHECK(re->fusible && re->uses_prev && !mm->fusible);
    CHECK(!strcmp(mm->sources, "mm"));
    for (int s = 0; s < p->n_steps; s++)
        CHECK(p->t1[s] >= p->t0[s]);
done:
    profile_destroy(p);
    free_model(&m);
}

/* ---- trace, HTML, JSON, CSV ---- */

static void test_outputs(void)
{
    model_t m;
    build_model(&m, 2);
    profile_t *p = profile_create(1);
    const int iters = 3;
    if (!run_profiled(&m, p, iters))
        goto done;
    CHECK(p->iters == iters && p->threads == 2);
    profile_roof_t roof = {100.0, 10.0, 0.0};
    profile_analysis_t a;
    CHECK(profile_analyze(p, &roof, &a));
    report_meta_t meta = {"test<model>", "ref", "given", NULL};

    FILE *f = tmpfile();
    profile_report_trace(f, p, &a);
    char *t = slurp_file(f);
    CHECK(t && json_valid(t));
    CHECK_MSG(count_str(t, "\"cat\":\"step\"") == p->n_steps * iters, "%d slices",
              count_str(t, "\"cat\":\"step\""));
    CHECK(count_str(t, "\"name\":\"conv\",\"cat\":\"step\"") == iters);
    CHECK(count_str(t, "\"thread_name\"") == 2);
    free(t);

    f = tmpfile();
    profile_report_html(f, p, &a, &meta);
    char *h = slurp_file(f);
    CHECK(h && strstr(h, "<svg") && strstr(h, "id=\"roofline\"") && strstr(h, "id=\"timeline\""));
    CHECK(h && strstr(h, "<table id=\"steps\"") && strstr(h, "<td class=\"l\">scores</td>"));
    CHECK(h && strstr(h, "test&lt;model&gt;"));
    /* self-contained: the only URLs are the SVG namespace names */
    CHECK(h && count_str(h, "http") == count_str(h, "xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(h && !strstr(h, "<script src") && !strstr(h, "<link"));
    CHECK(h && count_str(h, "<circle class=\"step\"") == 4); /* every step has FLOPs */
    free(h);

    f = tmpfile();
    profile_report_json(f, &a, &meta);
    char *j = slurp_file(f);
    CHECK(j && json_valid(j));
    CHECK(j && count_str(j, "\"kernel\":\"") == 4 && count_str(j, "\"kernel\":\"gemm ") == 2 /* mm, scores */);
    free(j);

    f = tmpfile();
    profile_report_csv(f, &a);
    char *c = slurp_file(f);
    CHECK(c && count_str(c, "\n") == 1 + 4 && !strncmp(c, "step,name,op,", 13));
    free(c);

    f = tmpfile();
    profile_report_text(f, &a, &meta);
    char *x = slurp_file(f);
    CHECK(x && strstr(x, "per op type") && strstr(x, "per thread") && strstr(x, "advice"));
    free(x);
    profile_analysis_free(&a);
done:
    profile_destroy(p);
    free_model(&m);
}

/* ---- counters ---- */

static void test_counter_fallback(void)
{
    pc_inject_failure(EACCES);
    pc_set_t *s = pc_open(NULL, 1);
    CHECK(s && !pc_available(s) && pc_mask(s) == 0);
    CHECK(strstr(pc_reason(s), "permission denied") && strstr(pc_reason(s), "perf_event_paranoid"));
    uint64_t v[PC_N];
    memset(v, 0xff, sizeof v);
    pc_read(s, v);
    for (int c = 0; c < PC_N; c++)
        CHECK(v[c] == 0);
    FILE *f = tmpfile();
    pc_warn_once(s, f);
    pc_warn_once(s, f);
    char *w = slurp_file(f);
    CHECK(w && count_str(w, "hardware counters unavailable") == 1);
    free(w);
    pc_close(s);

    /* a whole profiled run carries on without counters */
    model_t m;
    build_model(&m, 2);
    profile_t *p = profile_create(1);
    if (run_profiled(&m, p, 2)) {
        CHECK(p->pc_tried && !p->counters && p->iters == 2);
        profile_roof_t roof = {100.0, 10.0, 0.0};
        profile_analysis_t a;
        CHECK(profile_analyze(p, &roof, &a));
        CHECK(!a.counters && a.ctr_total[PC_CYCLES] == 0);
        FILE *j = tmpfile();
        report_meta_t meta = {"m", "ref", "given", pc_reason(p->pc)};
        profile_report_json(j, &a, &meta);
        char *txt = slurp_file(j);
        CHECK(txt && json_valid(txt) && strstr(txt, "\"counters\":null"));
        free(txt);
        profile_analysis_free(&a);
    }
    profile_destroy(p);
    free_model(&m);
    pc_inject_failure(0);

    /* without injection: either counting or a reason, never a failure */
    s = pc_open(NULL, 1);
    CHECK(s && (pc_available(s) ? (pc_mask(s) & 1u) != 0 : pc_reason(s)[0] != 0));
    if (pc_available(s)) {
        uint64_t a0[PC_N], a1[PC_N];
        pc_read(s, a0);
        volatile double z = 0;
        for (int i = 0; i < 100000; i++)
            z += i;
        pc_read(s, a1);
        CHECK(a1[PC_INSTRUCTIONS] > a0[PC_INSTRUCTIONS]);
    }
    pc_close(s);
}

/* ---- the pool's busy accounting ---- */

static void spin_task(void *ctx, size_t b, size_t e, int worker)
{
    volatile double *acc = ctx;
    double z = 0;
    for (size_t i = b; i < e; i++)
        for (int k = 0; k < 2000; k++)
            z += (double)k * 1e-9;
    acc[worker] += z;
}

static void test_pool_stats(void)
{
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    base_pool_tstat_t *ts = aligned_alloc(64, 2 * sizeof *ts);
    memset(ts, 0, 2 * sizeof *ts);
    base_pool_stats_t st = {0, 0, ts};
    volatile double acc[2] = {0, 0};
    base_pool_parallel_for_1d(pool, 64, 1, spin_task, (void *)acc); /* detached */
    CHECK(st.jobs == 0 && ts[0].busy_ns == 0);
    base_pool_set_stats(pool, &st);
    base_pool_parallel_for_1d(pool, 64, 1, spin_task, (void *)acc);
    base_pool_parallel_for_1d(pool, 64, 0, spin_task, (void *)acc);
    base_pool_set_stats(pool, NULL);
    CHECK(st.jobs == 2 && st.region_ns > 0);
    CHECK(ts[0].busy_ns > 0 && ts[0].busy_ns <= st.region_ns);
    base_pool_parallel_for_1d(pool, 64, 1, spin_task, (void *)acc); /* detached again */
    CHECK(st.jobs == 2);
    int tids[4] = {0};
    CHECK(base_pool_thread_ids(pool, tids, 4) == 2 && tids[0] > 0 && tids[1] > 0 &&
          tids[0] != tids[1]);
    free(ts);
    base_pool_destroy(pool);
}

/* ---- advice rules on synthetic rows ---- */

static profile_row_t *row(profile_analysis_t *a, const char *op, double ms, double flops,
                          double bytes)
{
    profile_row_t *r = &a->rows[a->n_rows++];
    memset(r, 0, sizeof *r);
    snprintf(r->step.name, sizeof r->step.name, "%s_%d", op, a->n_rows);
    snprintf(r->step.op, sizeof r->step.op, "%s", op);
    r->step.flops = flops, r->step.bytes = bytes, r->ms = ms;
    r->step.out_bytes = bytes / 3;
    return r;
}

static void setup(profile_analysis_t *a, profile_row_t *rows, profile_thread_t *thr)
{
    memset(a, 0, sizeof *a);
    a->roof.peak_gflops = 100, a->roof.peak_gbs = 10; /* ridge at 10 FLOP/B */
    a->rows = rows;
    a->thr = thr;
    a->threads = 1;
    thr[0].busy_ms = 1;
}

static int fires(profile_analysis_t *a, profile_rule_t rule)
{
    CHECK(profile_derive(a));
    profile_advise(a);
    int n = 0;
    for (int i = 0; i < a->n_advice; i++)
        n += a->advice[i].rule == rule && a->advice[i].text[0];
    free(a->ops);
    a->ops = NULL;
    return n;
}

static void test_advice(void)
{
    profile_row_t rows[8];
    profile_thread_t thr[4];
    profile_analysis_t a;

    /* small-M GEMM far below the compute roof: 2 GFLOP/s of 100 */
    setup(&a, rows, thr);
    row(&a, "MatMul", 1.0, 2e6, 1e5)->step.m = 4;
    row(&a, "Relu", 0.1, 1e3, 1e7);
    CHECK(fires(&a, PROFILE_RULE_SMALL_GEMM) == 1);
    rows[0].step.m = 512; /* a large M: a different problem */
    CHECK(fires(&a, PROFILE_RULE_SMALL_GEMM) == 0);
    rows[0].step.m = 4, rows[0].step.flops = 5e7; /* 50 GFLOP/s: near the roof */
    CHECK(fires(&a, PROFILE_RULE_SMALL_GEMM) == 0);

    /* transposes and copies above 10 % */
    setup(&a, rows, thr);
    row(&a, "MatMul", 8.0, 1e9, 1e7);
    row(&a, "Transpose", 1.5, 0, 1e6);
    row(&a, "Reshape", 0.5, 0, 1e6);
    CHECK(fires(&a, PROFILE_RULE_MOVES) == 1); /* 20 % */
    rows[1].ms = 0.3, rows[2].ms = 0.2;        /* 5.9 % */
    CHECK(fires(&a, PROFILE_RULE_MOVES) == 0);

    /* a chain of memory-bound elementwise steps */
    setup(&a, rows, thr);
    row(&a, "MatMul", 2.0, 1e9, 1e7);
    profile_row_t *r1 = row(&a, "Add", 1.0, 1e5, 1e6);
    profile_row_t *r2 = row(&a, "Gelu", 1.0, 1e5, 1e6);
    r1->step.fusible = r2->step.fusible = 1;
    r1->step.uses_prev = r2->step.uses_prev = 1;
    CHECK(fires(&a, PROFILE_RULE_FUSABLE_CHAIN) == 1);
    r2->step.uses_prev = 0; /* Gelu reads something else: nothing to fuse */
    CHECK(fires(&a, PROFILE_RULE_FUSABLE_CHAIN) == 0);
    r2->step.uses_prev = 1, r2->step.flops = 1e8; /* compute-bound: not a memory chain */
    CHECK(fires(&a, PROFILE_RULE_FUSABLE_CHAIN) == 0);

    /* load imbalance above 20 % */
    setup(&a, rows, thr);
    row(&a, "MatMul", 2.0, 1e9, 1e7);
    a.threads = 2;
    thr[0].busy_ms = 10, thr[1].busy_ms = 5, a.imbalance = 0.25;
    CHECK(fires(&a, PROFILE_RULE_IMBALANCE) == 1);
    thr[1].busy_ms = 9, a.imbalance = 0.05;
    CHECK(fires(&a, PROFILE_RULE_IMBALANCE) == 0);
    a.threads = 1, a.imbalance = 0.5; /* one thread cannot be imbalanced */
    CHECK(fires(&a, PROFILE_RULE_IMBALANCE) == 0);

    /* tiny tensors far below the memory roof */
    setup(&a, rows, thr);
    row(&a, "MatMul", 1.0, 1e9, 1e7);
    row(&a, "Add", 0.5, 250, 3000); /* 6 MB/s of 10 GB/s */
    CHECK(fires(&a, PROFILE_RULE_TINY_STEPS) == 1);
    rows[1].step.bytes = 1e8; /* not tiny */
    CHECK(fires(&a, PROFILE_RULE_TINY_STEPS) == 0);
    rows[1].step.bytes = 3000, rows[1].ms = 0.01; /* tiny but only 1 % of the time */
    CHECK(fires(&a, PROFILE_RULE_TINY_STEPS) == 0);

    /* a healthy profile gets no advice */
    setup(&a, rows, thr);
    row(&a, "MatMul", 1.0, 8e7, 1e6); /* 80 GFLOP/s, compute-bound */
    row(&a, "Relu", 0.1, 1e5, 8e5);   /* 8 GB/s, memory-bound */
    CHECK(profile_derive(&a) && profile_advise(&a) == 0);
    CHECK(!a.rows[0].memory_bound && a.rows[1].memory_bound);
    CHECK(fabs(a.rows[0].frac - 0.8) < 1e-9 && fabs(a.rows[1].frac - 0.8) < 1e-9);
    free(a.ops);

    /* 8-bit steps are held to the int8 roof where it is known: 240 GOP/s
     * of 400 (ridge 40 OP/B), not 240 % of the f32 100; an f32 step beside
     * them keeps the f32 roof; without the int8 roof, the f32 one */
    const char *int8_ops[] = {"FusedConvInteger", "FusedMatMulInteger", "MatMulInteger",
                              "ConvInteger",      "QLinearConv",        "QLinearMatMul"};
    for (int k = 0; k < 6; k++) {
        setup(&a, rows, thr);
        a.roof.peak_int8_gops = 400;
        row(&a, int8_ops[k], 1.0, 2.4e8, 4e6); /* 60 OP/B: compute-bound */
        row(&a, "MatMul", 1.0, 8e7, 1e6);
        row(&a, int8_ops[k], 1.0, 2e8, 1e7); /* 20 OP/B: under the int8 ridge */
        CHECK(profile_derive(&a));
        CHECK_MSG(!a.rows[0].memory_bound && fabs(a.rows[0].frac - 0.6) < 1e-9 &&
                      a.rows[0].peak == 400,
                  "%s: frac %g", int8_ops[k], a.rows[0].frac);
        CHECK(fabs(a.rows[1].frac - 0.8) < 1e-9 && a.rows[1].peak == 100);
        CHECK(a.rows[2].memory_bound && fabs(a.rows[2].frac - 1.0) < 1e-9);
        free(a.ops);
        a.ops = NULL;
    }
    setup(&a, rows, thr);
    row(&a, "FusedConvInteger", 1.0, 2.4e8, 4e6);
    row(&a, "QuantizeLinear", 1.0, 1e6, 1e6); /* not a product: f32 roof */
    CHECK(profile_derive(&a) && a.rows[0].peak == 100 && fabs(a.rows[0].frac - 2.4) < 1e-9);
    free(a.ops);
    a.ops = NULL;
    a.roof.peak_int8_gops = 400;
    CHECK(profile_derive(&a) && a.rows[1].peak == 100);
    free(a.ops);
}

static void test_json_checker(void)
{
    CHECK(json_valid("{\"a\":[1,2.5e3,-0.1,true,null,\"x\\n\"]}"));
    CHECK(!json_valid("{\"a\":[1,]}"));
    CHECK(!json_valid("{\"a\":01}"));
    CHECK(!json_valid("{\"a\":1} x"));
    CHECK(!json_valid("{'a':1}"));
}

int main(void)
{
    test_json_checker();
    test_costs();
    test_outputs();
    test_counter_fallback();
    test_pool_stats();
    test_advice();
    return check_finish("test_profile");
}
