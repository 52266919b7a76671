/*
 * cairn run: load a model (today the built-in 'demo'; ONNX files once the
 * frontend lands, in load_model), feed it inputs (random with a fixed seed,
 * or ONNX TensorProto files), time warmup + timed runs with the monotonic
 * clock, and report latency, plan facts and a summary of every output, as
 * text or as one JSON object.
 *
 * Exit codes: 0 success; 1 the model failed to build, plan or run, or a file
 * could not be read or written; 2 a usage error (bad flag or value, unknown
 * model, unbound or unknown symbolic dim, a model format not available).
 * Everything is written to the streams in run_opts_t so tests can capture it.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/alloc.h"
#include "base/clock.h"
#include "base/dtype.h"
#include "base/status.h"
#include "cmd.h"
#include "demo.h"
#include "compiler/pass.h"
#include "frontend/onnx/tensor_pb.h"
#include "runtime/session_internal.h"
#include "model.h"
#include "base/json_out.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RUN_MAX_DIMS 32
#define RUN_MAX_ITERS 1000000
#define RUN_FIRST_VALUES 6

enum { RUN_OK = 0, RUN_FAIL = 1, RUN_USAGE = 2 };

typedef struct run_dim {
    const char *name; /* points into argv */
    size_t name_len;
    int64_t value;
} run_dim_t;

typedef struct run_opts {
    const char *model;
    run_dim_t dims[RUN_MAX_DIMS];
    int n_dims;
    const char *inputs_dir, *outputs_dir;
    int threads, warmup, iters;
    cairn_isa_t isa;
    int json, explain;
    const char *dump_after, *passes;
    uint64_t seed;
    FILE *out, *err;
} run_opts_t;

static void run_usage(FILE *f)
{
    fprintf(f,
            "usage: cairn run MODEL [options]\n"
            "\n"
            "Runs MODEL and reports latency, plan facts and a summary of each output.\n"
            "MODEL is 'demo' (a transformer encoder block: input x f32 [1,seq,256], seq\n"
            "symbolic, default 128) or a path to an .onnx file.\n"
            "\n"
            "options:\n"
            "  --dim NAME=VALUE  bind symbolic dimension NAME to VALUE (repeatable); every\n"
            "                    symbolic dim of a generated input needs one (demo: seq=128)\n"
            "  --inputs DIR      read input N from DIR/input_N.pb (ONNX TensorProto) instead\n"
            "                    of generating random values\n"
            "  --outputs DIR     write output N to DIR/output_N.pb (created if missing)\n"
            "  --threads N       worker threads (default 0: one per CPU)\n"
            "  --warmup N        untimed runs first (default 2)\n"
            "  --iters N         timed runs (default 10, at least 1)\n"
            "  --isa LEVEL       cap the ISA: auto, ref, avx2, avx512, avx512_bf16, amx\n"
            "                    (default auto; the CAIRN_ISA variable also caps)\n"
            "  --seed S          seed for generated inputs (default 1); the demo's weights\n"
            "                    are fixed\n"
            "  --json            print exactly one JSON object on stdout instead of text\n"
            "  --explain         print the optimised plan: each step, the model nodes it\n"
            "                    covers, output shapes, kernel variant, threads; the arena\n"
            "  --dump-after PASS print the graph after compiler pass PASS (fuse_qdq,\n"
            "                    fold, dce, canonicalize, fold_bn, fuse_conv, fuse_mbconv,\n"
            "                    fuse_attention, fuse_gemm, fuse_eltwise, prepack)\n"
            "  --passes LIST     compiler passes to run: all (default), none, or a comma-\n"
            "                    separated list (overrides the CAIRN_PASSES variable)\n"
            "  --profile         per-step profile instead (see cairn profile --help)\n"
            "  -h, --help        show this help\n"
            "\n"
            "Generated inputs: floats uniform in [-1, 1), integers in [0, 10), bools 0/1.\n"
            "Exit status: 0 ok, 1 the model failed to build or run or a file failed,\n"
            "2 a usage error.\n");
}

/* ---- argument parsing ------------------------------------------------- */

static int parse_int(FILE *err, const char *flag, const char *text, int64_t lo, int64_t hi,
                     int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = (text[0] == ' ' || text[0] == '\t' || !text[0]) ? 0 : strtoll(text, &end, 10);
    if (!text[0] || !end || *end || errno == ERANGE || text[0] == ' ' || text[0] == '\t') {
        fprintf(err, "cairn run: %s: '%s' is not a whole number\n", flag, text);
        return 0;
    }
    if (v < lo || v > hi) {
        fprintf(err, "cairn run: %s: %lld is out of range (%lld to %lld)\n", flag, v,
                (long long)lo, (long long)hi);
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_dim(run_opts_t *o, const char *text)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text) {
        fprintf(o->err, "cairn run: --dim '%s': expected NAME=VALUE, e.g. --dim seq=128\n", text);
        return 0;
    }
    size_t len = (size_t)(eq - text);
    for (int i = 0; i < o->n_dims; i++)
        if (o->dims[i].name_len == len && !strncmp(o->dims[i].name, text, len)) {
            fprintf(o->err, "cairn run: --dim '%.*s' given twice\n", (int)len, text);
            return 0;
        }
    if (o->n_dims == RUN_MAX_DIMS) {
        fprintf(o->err, "cairn run: too many --dim flags (at most %d)\n", RUN_MAX_DIMS);
        return 0;
    }
    int64_t v;
    if (!parse_int(o->err, "--dim", eq + 1, 0, INT64_MAX, &v))
        return 0;
    run_dim_t *d = &o->dims[o->n_dims++];
    d->name = text, d->name_len = len, d->value = v;
    return 1;
}

/* Returns RUN_OK, RUN_USAGE, or -1 when --help was printed. */
static int parse_args(int argc, char **argv, run_opts_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            run_usage(o->out);
            return -1;
        }
        if (a[0] != '-' || !a[1]) {
            if (o->model) {
                fprintf(o->err, "cairn run: unexpected argument '%s' (the model is '%s')\n", a,
                        o->model);
                return RUN_USAGE;
            }
            o->model = a;
            continue;
        }
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (!strcmp(a, "--explain")) {
            o->explain = 1;
            continue;
        }
        static const char *const valued[] = {"--dim",    "--inputs", "--outputs", "--threads",
                                             "--warmup", "--iters",  "--isa",     "--seed",
                                             "--dump-after", "--passes"};
        const char *flag = NULL, *val = NULL;
        char flagbuf[32];
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !flag; k++) {
            size_t n = strlen(valued[k]);
            if (!strcmp(a, valued[k])) {
                flag = valued[k];
                if (i + 1 >= argc) {
                    fprintf(o->err, "cairn run: %s needs a value (see cairn run --help)\n", flag);
                    return RUN_USAGE;
                }
                val = argv[++i];
            } else if (!strncmp(a, valued[k], n) && a[n] == '=') {
                flag = valued[k], val = a + n + 1;
            }
        }
        if (!flag) {
            fprintf(o->err, "cairn run: unknown option '%s' (see cairn run --help)\n", a);
            return RUN_USAGE;
        }
        snprintf(flagbuf, sizeof flagbuf, "%s", flag);
        int64_t v;
        if (!strcmp(flag, "--dim")) {
            if (!parse_dim(o, val))
                return RUN_USAGE;
        } else if (!strcmp(flag, "--inputs") || !strcmp(flag, "--outputs")) {
            if (!val[0]) {
                fprintf(o->err, "cairn run: %s needs a directory\n", flag);
                return RUN_USAGE;
            }
            *(!strcmp(flag, "--inputs") ? &o->inputs_dir : &o->outputs_dir) = val;
        } else if (!strcmp(flag, "--dump-after")) {
            if (!compiler_find_pass(val)) {
                fprintf(o->err,
                        "cairn run: --dump-after '%s': unknown pass (use fuse_qdq, fold, dce, "
                        "canonicalize, fold_bn, fuse_conv, fuse_mbconv, fuse_attention, "
                        "fuse_gemm, fuse_eltwise or prepack)\n",
                        val);
                return RUN_USAGE;
            }
            o->dump_after = val;
        } else if (!strcmp(flag, "--passes")) {
            o->passes = val;
        } else if (!strcmp(flag, "--threads")) {
            if (!parse_int(o->err, flagbuf, val, 0, 1024, &v))
                return RUN_USAGE;
            o->threads = (int)v;
        } else if (!strcmp(flag, "--warmup")) {
            if (!parse_int(o->err, flagbuf, val, 0, RUN_MAX_ITERS, &v))
                return RUN_USAGE;
            o->warmup = (int)v;
        } else if (!strcmp(flag, "--iters")) {
            if (!parse_int(o->err, flagbuf, val, 1, RUN_MAX_ITERS, &v))
                return RUN_USAGE;
            o->iters = (int)v;
        } else if (!strcmp(flag, "--seed")) {
            if (!parse_int(o->err, flagbuf, val, 0, INT64_MAX, &v))
                return RUN_USAGE;
            o->seed = (uint64_t)v;
        } else { /* --isa */
            if (cairn_isa_parse(val, &o->isa) != CAIRN_OK) {
                fprintf(o->err,
                        "cairn run: --isa '%s': unknown level (use auto, ref, avx2, avx512, "
                        "avx512_bf16 or amx)\n",
                        val);
                return RUN_USAGE;
            }
        }
    }
    if (o->explain && o->json) {
        fprintf(o->err, "cairn run: --explain prints text; use it without --json\n");
        return RUN_USAGE;
    }
    if (!o->model) {
        fprintf(o->err, "cairn run: missing MODEL ('demo' or a path to an .onnx file); see "
                        "cairn run --help\n");
        return RUN_USAGE;
    }
    return RUN_OK;
}

/* ---- models ----------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* The one place a model format is recognised. The ONNX loader goes here. */
cairn_status_t load_model(const char *path, run_model_t *m)
{
    memset(m, 0, sizeof *m);
    if (!strcmp(path, "demo")) {
        m->default_dim = DEMO_SEQ_NAME;
        m->default_value = DEMO_SEQ_DEFAULT;
        demo_config_t c = demo_config_default();
        cairn_status_t s = demo_build(&c, &m->graph);
        if (s != CAIRN_OK)
            return base_error_prefix(s, "building the demo model: ");
        return CAIRN_OK;
    }
    if (ends_with(path, ".onnx"))
        return cairn_graph_load_onnx(path, &m->graph);
    m->usage_error = 1;
    return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                      "unknown model '%s': give 'demo' or a path to an .onnx file", path);
}

/* ---- inputs ----------------------------------------------------------- */

typedef struct run_input {
    cairn_tensor_t t;
    char source[320];
} run_input_t;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static void fill_random(cairn_tensor_t *t, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    if (!s)
        s = 1;
    int64_t n = cairn_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rng_next(&s);
        double u = (double)(r >> 11) * (1.0 / 9007199254740992.0); /* [0,1) */
        double v;
        if (base_dtype_is_float(t->dtype))
            v = 2.0 * u - 1.0;
        else if (t->dtype == CAIRN_BOOL)
            v = (double)(r >> 63);
        else
            v = (double)(int)(u * 10.0);
        if (t->dtype == CAIRN_F32)
            ((float *)t->data)[i] = (float)v;
        else
            base_store_from_double(t->data, t->dtype, i, v);
    }
}

static run_dim_t *find_dim(run_opts_t *o, const char *name)
{
    for (int i = 0; i < o->n_dims; i++)
        if (strlen(name) == o->dims[i].name_len && !strncmp(o->dims[i].name, name, o->dims[i].name_len))
            return &o->dims[i];
    return NULL;
}

/* Lists the session's symbolic dim names into buf ("seq, batch" or "none"). */
static void list_sym_dims(cairn_session_t *s, char *buf, size_t cap)
{
    size_t u = 0;
    buf[0] = 0;
    for (int i = 0; i < cairn_session_input_count(s); i++) {
        int rank = 0;
        const char *names[CAIRN_MAX_RANK] = {0};
        if (cairn_session_input_info(s, i, NULL, NULL, &rank, NULL, names) != CAIRN_OK)
            continue;
        for (int d = 0; d < rank; d++) {
            if (!names[d] || (strstr(buf, names[d]) && u))
                continue;
            if (u < cap)
                u += (size_t)snprintf(buf + u, cap - u, "%s%s", u ? ", " : "", names[d]);
        }
    }
    if (!buf[0])
        snprintf(buf, cap, "none");
}

/* Every --dim must name a symbolic dim of some input: a typo must not be
 * silently ignored. */
static int check_dim_names(run_opts_t *o, cairn_session_t *s)
{
    for (int k = 0; k < o->n_dims; k++) {
        int found = 0;
        for (int i = 0; i < cairn_session_input_count(s) && !found; i++) {
            int rank = 0;
            const char *names[CAIRN_MAX_RANK] = {0};
            if (cairn_session_input_info(s, i, NULL, NULL, &rank, NULL, names) != CAIRN_OK)
                continue;
            for (int d = 0; d < rank && !found; d++)
                found = names[d] && strlen(names[d]) == o->dims[k].name_len &&
                        !strncmp(names[d], o->dims[k].name, o->dims[k].name_len);
        }
        if (!found) {
            char have[256];
            list_sym_dims(s, have, sizeof have);
            fprintf(o->err,
                    "cairn run: --dim %.*s: the model has no symbolic dim '%.*s' (its symbolic "
                    "dims: %s)\n",
                    (int)o->dims[k].name_len, o->dims[k].name, (int)o->dims[k].name_len,
                    o->dims[k].name, have);
            return RUN_USAGE;
        }
    }
    return RUN_OK;
}

/* A declared shape with symbolic dims by name: "[seq,256]". */
static const char *fmt_declared(char *buf, size_t cap, const int64_t *shape,
                                const char *const *names, int rank)
{
    size_t u = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < rank && u < cap; d++) {
        if (names[d])
            u += (size_t)snprintf(buf + u, cap - u, "%s%s", d ? "," : "", names[d]);
        else
            u += (size_t)snprintf(buf + u, cap - u, "%s%lld", d ? "," : "", (long long)shape[d]);
    }
    if (u < cap)
        snprintf(buf + u, cap - u, "]");
    return buf;
}

static int make_inputs(run_opts_t *o, const run_model_t *m, cairn_session_t *s, run_input_t *in,
                       int n_in)
{
    char dbuf[160], dbuf2[160];
    for (int i = 0; i < n_in; i++) {
        const char *name = NULL;
        cairn_dtype_t dt;
        int rank;
        int64_t shape[CAIRN_MAX_RANK];
        const char *dn[CAIRN_MAX_RANK] = {0};
        if (cairn_session_input_info(s, i, &name, &dt, &rank, shape, dn) != CAIRN_OK) {
            fprintf(o->err, "cairn run: input %d: %s\n", i, cairn_last_error());
            return RUN_FAIL;
        }
        if (o->inputs_dir) {
            snprintf(in[i].source, sizeof in[i].source, "%s/input_%d.pb", o->inputs_dir, i);
            if (onnx_tensor_read(in[i].source, &in[i].t, NULL) != CAIRN_OK) {
                fprintf(o->err, "cairn run: input %d ('%s'): %s\n", i, name, cairn_last_error());
                return RUN_FAIL;
            }
            const cairn_tensor_t *t = &in[i].t;
            int ok = t->dtype == dt && t->rank == rank;
            for (int d = 0; ok && d < rank; d++) {
                run_dim_t *bound = dn[d] ? find_dim(o, dn[d]) : NULL;
                if (!dn[d] ? t->shape[d] != shape[d] : bound && bound->value != t->shape[d])
                    ok = 0;
                if (bound && bound->value != t->shape[d]) {
                    fprintf(o->err,
                            "cairn run: '%s': dimension %d is %lld but --dim %s=%lld was given\n",
                            in[i].source, d, (long long)t->shape[d], dn[d],
                            (long long)bound->value);
                    return RUN_FAIL;
                }
            }
            if (!ok) {
                fprintf(o->err, "cairn run: '%s' holds %s %s but input %d ('%s') is %s %s\n",
                        in[i].source, cairn_dtype_name(t->dtype),
                        base_fmt_dims(dbuf, sizeof dbuf, t->shape, t->rank), i, name,
                        cairn_dtype_name(dt), fmt_declared(dbuf2, sizeof dbuf2, shape, dn, rank));
                return RUN_FAIL;
            }
            continue;
        }
        cairn_tensor_t t = {dt, rank, {0}, NULL};
        for (int d = 0; d < rank; d++) {
            if (!dn[d]) {
                t.shape[d] = shape[d];
                continue;
            }
            run_dim_t *bound = find_dim(o, dn[d]);
            if (bound) {
                t.shape[d] = bound->value;
            } else if (m->default_dim && !strcmp(m->default_dim, dn[d])) {
                t.shape[d] = m->default_value;
            } else {
                fprintf(o->err,
                        "cairn run: input %d ('%s') dimension %d is the symbolic dim '%s', which "
                        "has no value: set it with --dim %s=N (or give --inputs DIR)\n",
                        i, name, d, dn[d], dn[d]);
                return RUN_USAGE;
            }
        }
        size_t bytes = cairn_dtype_size(dt);
        for (int d = 0; d < rank; d++)
            if (!base_mul_size(bytes, (size_t)t.shape[d], &bytes)) {
                fprintf(o->err, "cairn run: input '%s' of shape %s is too large\n", name,
                        base_fmt_dims(dbuf, sizeof dbuf, t.shape, rank));
                return RUN_USAGE;
            }
        t.data = malloc(bytes ? bytes : 1);
        if (!t.data) {
            fprintf(o->err, "cairn run: cannot allocate %zu bytes for input '%s' %s\n", bytes,
                    name, base_fmt_dims(dbuf, sizeof dbuf, t.shape, rank));
            return RUN_FAIL;
        }
        fill_random(&t, o->seed + (uint64_t)i);
        in[i].t = t;
        snprintf(in[i].source, sizeof in[i].source, "random");
    }
    return RUN_OK;
}

/* ---- statistics and reporting ----------------------------------------- */

typedef struct out_stats {
    double mean, std, min, max;
    int64_t nonfinite, n;
    double first[RUN_FIRST_VALUES];
    int n_first;
} out_stats_t;

static void tensor_stats(const cairn_tensor_t *t, out_stats_t *st)
{
    memset(st, 0, sizeof *st);
    st->n = cairn_tensor_numel(t);
    double sum = 0, sq = 0;
    int64_t finite = 0;
    st->min = INFINITY, st->max = -INFINITY;
    for (int64_t i = 0; i < st->n; i++) {
        double v = base_load_as_double(t->data, t->dtype, i);
        if (i < RUN_FIRST_VALUES)
            st->first[st->n_first++] = v;
        if (!isfinite(v)) {
            st->nonfinite++;
            continue;
        }
        finite++;
        sum += v;
        if (v < st->min)
            st->min = v;
        if (v > st->max)
            st->max = v;
    }
    st->mean = finite ? sum / (double)finite : NAN;
    for (int64_t i = 0; i < st->n && finite; i++) {
        double v = base_load_as_double(t->data, t->dtype, i);
        if (isfinite(v))
            sq += (v - st->mean) * (v - st->mean);
    }
    st->std = finite ? sqrt(sq / (double)finite) : NAN;
    if (!finite)
        st->min = st->max = NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct latency {
    double min, median, p90, max, mean, total_s;
} latency_t;

static latency_t latency_summary(double *ms, int n)
{
    latency_t l = {0};
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += ms[i];
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    l.min = ms[0], l.max = ms[n - 1];
    l.median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    int rank90 = (int)ceil(0.9 * n); /* nearest-rank percentile */
    l.p90 = ms[rank90 < 1 ? 0 : rank90 - 1];
    l.mean = sum / n;
    l.total_s = sum * 1e-3;
    return l;
}

static void json_shape(FILE *f, const cairn_tensor_t *t)
{
    fputc('[', f);
    for (int d = 0; d < t->rank; d++)
        fprintf(f, "%s%lld", d ? "," : "", (long long)t->shape[d]);
    fputc(']', f);
}

static const char *fmt_bytes(char *buf, size_t cap, size_t b)
{
    if (b >= (1u << 20))
        snprintf(buf, cap, "%.2f MiB", (double)b / (1 << 20));
    else if (b >= 1024)
        snprintf(buf, cap, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, cap, "%zu B", b);
    return buf;
}

static void report_text(const run_opts_t *o, cairn_session_t *s, const run_input_t *in, int n_in,
                        const cairn_tensor_t *outs, const out_stats_t *st, int n_out,
                        const cairn_plan_info_t *pi, const latency_t *l)
{
    FILE *f = o->out;
    char b1[64], b2[64], dims[160];
    fprintf(f, "%-11s %s\n", "model", o->model);
    for (int i = 0; i < n_in; i++) {
        const char *name = NULL;
        cairn_session_input_info(s, i, &name, NULL, NULL, NULL, NULL);
        fprintf(f, "%-11s %s: %s %s (%s", i ? "" : "inputs", name ? name : "?",
                cairn_dtype_name(in[i].t.dtype),
                base_fmt_dims(dims, sizeof dims, in[i].t.shape, in[i].t.rank), in[i].source);
        if (!o->inputs_dir)
            fprintf(f, ", seed %llu", (unsigned long long)(o->seed + (uint64_t)i));
        fprintf(f, ")\n");
    }
    fprintf(f, "%-11s %d steps, arena %s, constants %s, isa %s, %d threads\n", "plan", pi->steps,
            fmt_bytes(b1, sizeof b1, pi->arena_bytes), fmt_bytes(b2, sizeof b2, pi->constant_bytes),
            cairn_isa_name(pi->isa), pi->threads);
    /* sub-millisecond runs get more decimals, so tiny models do not read 0.000 */
    const char *lf = l->min < 1.0 ? "%-11s min %.4f ms, median %.4f ms, p90 %.4f ms, max %.4f ms"
                                  : "%-11s min %.3f ms, median %.3f ms, p90 %.3f ms, max %.3f ms";
    fprintf(f, lf, "latency", l->min, l->median, l->p90, l->max);
    fprintf(f, " (%d runs after %d warmup)\n", o->iters, o->warmup);
    fprintf(f, "%-11s %.2f runs/s\n", "throughput", l->total_s > 0 ? o->iters / l->total_s : 0.0);
    for (int i = 0; i < n_out; i++) {
        const char *name = NULL;
        cairn_session_output_info(s, i, &name, NULL, NULL, NULL, NULL);
        fprintf(f, "output %-4d %s: %s %s  mean %.6g  std %.6g  min %.6g  max %.6g", i,
                name ? name : "?", cairn_dtype_name(outs[i].dtype),
                base_fmt_dims(dims, sizeof dims, outs[i].shape, outs[i].rank), st[i].mean,
                st[i].std, st[i].min, st[i].max);
        if (st[i].nonfinite)
            fprintf(f, "  (%lld non-finite)", (long long)st[i].nonfinite);
        fprintf(f, "\n%-11s first:", "");
        for (int k = 0; k < st[i].n_first; k++)
            fprintf(f, " %.6g", st[i].first[k]);
        fprintf(f, "%s\n", st[i].n > st[i].n_first ? " ..." : "");
        if (o->outputs_dir)
            fprintf(f, "%-11s written to %s/output_%d.pb\n", "", o->outputs_dir, i);
    }
}

static void report_json(const run_opts_t *o, cairn_session_t *s, const run_input_t *in, int n_in,
                        const cairn_tensor_t *outs, const out_stats_t *st, int n_out,
                        const cairn_plan_info_t *pi, const latency_t *l)
{
    FILE *f = o->out;
    fprintf(f, "{\"model\":");
    base_json_string(f, o->model);
    fprintf(f, ",\"inputs\":[");
    for (int i = 0; i < n_in; i++) {
        const char *name = NULL;
        cairn_session_input_info(s, i, &name, NULL, NULL, NULL, NULL);
        fprintf(f, "%s{\"name\":", i ? "," : "");
        base_json_string(f, name);
        fprintf(f, ",\"dtype\":\"%s\",\"shape\":", cairn_dtype_name(in[i].t.dtype));
        json_shape(f, &in[i].t);
        fprintf(f, ",\"source\":");
        base_json_string(f, in[i].source);
        fprintf(f, "}");
    }
    fprintf(f, "],\"iters\":%d,\"warmup\":%d,\"threads\":%d,\"isa\":\"%s\",\"seed\":%llu",
            o->iters, o->warmup, pi->threads, cairn_isa_name(pi->isa),
            (unsigned long long)o->seed);
    fprintf(f, ",\"arena_bytes\":%zu,\"constant_bytes\":%zu,\"steps\":%d", pi->arena_bytes,
            pi->constant_bytes, pi->steps);
    fprintf(f, ",\"latency_ms\":{\"min\":");
    base_json_number(f, l->min);
    fprintf(f, ",\"median\":");
    base_json_number(f, l->median);
    fprintf(f, ",\"p90\":");
    base_json_number(f, l->p90);
    fprintf(f, ",\"max\":");
    base_json_number(f, l->max);
    fprintf(f, ",\"mean\":");
    base_json_number(f, l->mean);
    fprintf(f, "},\"throughput_per_s\":");
    base_json_number(f, l->total_s > 0 ? o->iters / l->total_s : 0.0);
    fprintf(f, ",\"outputs\":[");
    for (int i = 0; i < n_out; i++) {
        const char *name = NULL;
        cairn_session_output_info(s, i, &name, NULL, NULL, NULL, NULL);
        fprintf(f, "%s{\"name\":", i ? "," : "");
        base_json_string(f, name);
        fprintf(f, ",\"dtype\":\"%s\",\"shape\":", cairn_dtype_name(outs[i].dtype));
        json_shape(f, &outs[i]);
        static const char *const keys[4] = {"mean", "std", "min", "max"};
        const double vals[4] = {st[i].mean, st[i].std, st[i].min, st[i].max};
        for (int k = 0; k < 4; k++) {
            fprintf(f, ",\"%s\":", keys[k]);
            base_json_number(f, vals[k]);
        }
        fprintf(f, ",\"nonfinite\":%lld,\"first\":[", (long long)st[i].nonfinite);
        for (int k = 0; k < st[i].n_first; k++) {
            if (k)
                fputc(',', f);
            base_json_number(f, st[i].first[k]);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]}\n");
}

/* ---- the run ---------------------------------------------------------- */

static int ensure_dir(FILE *err, const char *dir)
{
    struct stat sb;
    if (!stat(dir, &sb)) {
        if (S_ISDIR(sb.st_mode))
            return 1;
        fprintf(err, "cairn run: --outputs '%s' exists and is not a directory\n", dir);
        return 0;
    }
    if (mkdir(dir, 0777) != 0) {
        fprintf(err, "cairn run: cannot create the output directory '%s': %s\n", dir,
                strerror(errno));
        return 0;
    }
    return 1;
}

/* --explain: the plan as built for this run's input shapes. */
static void explain_plan(FILE *f, const cairn_session_t *s)
{
    int n = cairn_session_step_count(s);
    char peak[64];
    size_t arena = cairn_session_arena_peak(s);
    fmt_bytes(peak, sizeof peak, arena);
    fprintf(f, "plan: %d steps; arena peak %zu bytes (%s)\n", n, arena, peak);
    for (int i = 0; i < n; i++) {
        cairn_step_info_t si;
        if (cairn_session_step_info(s, i, &si) != CAIRN_OK)
            break;
        fprintf(f, "step %-4d %-20s %s\n", i, si.op, si.name);
        fprintf(f, "          covers:");
        if (si.n_sources == 0)
            fprintf(f, " %s", si.name);
        for (int k = 0; k < si.n_sources; k++)
            fprintf(f, "%s %s", k ? "," : "", si.sources[k]);
        fprintf(f, "\n          out:");
        for (int o = 0; o < si.n_out; o++) {
            fprintf(f, "%s %s [", o ? "," : "", cairn_dtype_name(si.out[o].dtype));
            for (int d = 0; d < si.out[o].rank; d++)
                fprintf(f, "%s%lld", d ? "," : "", (long long)si.out[o].shape[d]);
            fprintf(f, "]");
        }
        fprintf(f, "\n          kernel: %s; threads %d; %.3g MFLOP, %.3g MB moved\n", si.kernel,
                si.threads, si.flops / 1e6, si.bytes / 1e6);
    }
}

/* Runs a loaded model (takes ownership of m->graph). */
static int run_model(run_opts_t *o, run_model_t *m)
{
    cairn_session_options_t so = cairn_session_options_default();
    so.threads = o->threads;
    so.isa_cap = o->isa;
    cairn_session_t *s = NULL;
    cairn_compile_options_t co = {o->passes, o->dump_after, o->json ? o->err : o->out};
    /* the session takes the graph: weights it re-packs are not held twice */
    cairn_status_t st = cairn_session_create_taking(m->graph, &so, &co, &s);
    m->graph = NULL;
    if (st != CAIRN_OK) {
        fprintf(o->err, "cairn run: %s: creating the session: %s\n", o->model, cairn_last_error());
        return RUN_FAIL;
    }
    int rc = RUN_FAIL;
    int n_in = cairn_session_input_count(s), n_out = cairn_session_output_count(s);
    run_input_t *in = calloc((size_t)(n_in ? n_in : 1), sizeof *in);
    cairn_tensor_t *ins = calloc((size_t)(n_in ? n_in : 1), sizeof *ins);
    cairn_tensor_t *outs = calloc((size_t)(n_out ? n_out : 1), sizeof *outs);
    out_stats_t *stats = calloc((size_t)(n_out ? n_out : 1), sizeof *stats);
    double *ms = calloc((size_t)o->iters, sizeof *ms);
    if (!in || !ins || !outs || !stats || !ms) {
        fprintf(o->err, "cairn run: out of memory\n");
        goto done;
    }
    if ((rc = check_dim_names(o, s)) != RUN_OK || (rc = make_inputs(o, m, s, in, n_in)) != RUN_OK)
        goto done;
    rc = RUN_FAIL;
    if (o->outputs_dir && !ensure_dir(o->err, o->outputs_dir))
        goto done;
    for (int i = 0; i < n_in; i++)
        ins[i] = in[i].t;

    for (int r = 0; r < o->warmup + o->iters; r++) {
        memset(outs, 0, sizeof *outs * (size_t)n_out); /* session-owned outputs */
        uint64_t t0 = base_now_ns();
        st = cairn_session_run(s, ins, n_in, outs, n_out);
        uint64_t t1 = base_now_ns();
        if (st != CAIRN_OK) {
            fprintf(o->err, "cairn run: %s: run %d failed: %s\n", o->model, r + 1,
                    cairn_last_error());
            goto done;
        }
        if (r >= o->warmup)
            ms[r - o->warmup] = base_ns_to_ms(t1 - t0);
    }
    latency_t lat = latency_summary(ms, o->iters);
    cairn_plan_info_t pi;
    if (cairn_session_plan_info(s, &pi) != CAIRN_OK) {
        fprintf(o->err, "cairn run: plan info: %s\n", cairn_last_error());
        goto done;
    }
    for (int i = 0; i < n_out; i++) {
        tensor_stats(&outs[i], &stats[i]);
        if (o->outputs_dir) {
            char path[4096];
            const char *name = NULL;
            cairn_session_output_info(s, i, &name, NULL, NULL, NULL, NULL);
            snprintf(path, sizeof path, "%s/output_%d.pb", o->outputs_dir, i);
            if (onnx_tensor_write(path, &outs[i], name) != CAIRN_OK) {
                fprintf(o->err, "cairn run: output %d: %s\n", i, cairn_last_error());
                goto done;
            }
        }
    }
    if (o->explain)
        explain_plan(o->out, s);
    if (o->json)
        report_json(o, s, in, n_in, outs, stats, n_out, &pi, &lat);
    else
        report_text(o, s, in, n_in, outs, stats, n_out, &pi, &lat);
    fflush(o->out);
    rc = RUN_OK;
done:
    for (int i = 0; in && i < n_in; i++)
        free(in[i].t.data);
    free(in);
    free(ins);
    free(outs);
    free(stats);
    free(ms);
    cairn_session_destroy(s);
    return rc;
}

static void run_opts_init(run_opts_t *o, FILE *out, FILE *err)
{
    memset(o, 0, sizeof *o);
    o->warmup = 2, o->iters = 10, o->seed = 1, o->isa = CAIRN_ISA_AUTO;
    o->out = out, o->err = err;
}

/* The whole command with its streams: what cmd_run and the tests call. */
static int run_cli(int argc, char **argv, FILE *out, FILE *err)
{
    /* --profile hands the whole command (and its flags) to cairn profile */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--profile"))
            return profile_cli(argc, argv, out, err);
    run_opts_t o;
    run_opts_init(&o, out, err);
    int rc = parse_args(argc, argv, &o);
    if (rc < 0)
        return RUN_OK; /* --help */
    if (rc != RUN_OK)
        return rc;
    run_model_t m;
    cairn_status_t st = load_model(o.model, &m);
    if (st != CAIRN_OK) {
        fprintf(err, "cairn run: %s\n", cairn_last_error());
        return m.usage_error ? RUN_USAGE : RUN_FAIL;
    }
    return run_model(&o, &m);
}

int cmd_run(int argc, char **argv)
{
    return run_cli(argc, argv, stdout, stderr);
}
