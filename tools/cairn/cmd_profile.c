/*
 * cairn profile MODEL (and cairn run MODEL --profile): runs the model with
 * every plan step timed, hardware counters read and pool threads' busy time
 * recorded, and reports each step against the machine's roofline, the same
 * rolled up per op type, per-thread load balance, counters and advice; as
 * text (default), --json or --csv, plus a Chrome trace (--trace FILE) and a
 * self-contained HTML page (--html FILE).
 *
 * Exit codes follow cairn run: 0 ok, 1 the model failed or a file could not
 * be written, 2 a usage error. Every static here is prefixed prof_ because
 * the tests compile this file together with cmd_run.c.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "base/alloc.h"
#include "base/clock.h"
#include "base/dtype.h"
#include "cmd.h"
#include "peaks.h"
#include "model.h"
#include "profile/profile.h"
#include "profile/report.h"
#include "runtime/session_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROF_MAX_DIMS 32

typedef struct prof_opts {
    const char *cmd; /* "profile" or "run" (for messages) */
    const char *model;
    struct {
        const char *name;
        size_t len;
        int64_t value;
    } dims[PROF_MAX_DIMS];
    int n_dims;
    int threads, warmup, iters;
    cairn_isa_t isa;
    uint64_t seed;
    int json, csv, no_counters;
    const char *trace, *html;
    FILE *out, *err;
} prof_opts_t;

static void prof_usage(FILE *f)
{
    fprintf(f,
            "usage: cairn profile MODEL [options]   (or: cairn run MODEL --profile [options])\n"
            "\n"
            "Runs MODEL with each plan step timed and reports, per step: the source nodes it\n"
            "covers, kernel variant, median time, share, FLOPs and bytes (op cost model),\n"
            "GFLOP/s, GB/s, arithmetic intensity, the roof that bounds it and the fraction\n"
            "reached, IPC and cache miss rate; then per op type, per thread (busy and\n"
            "barrier wait), counter totals and advice.\n"
            "MODEL is 'demo' or anything 'cairn run' loads.\n"
            "\n"
            "options:\n"
            "  --dim NAME=VALUE  bind symbolic dimension NAME (repeatable; demo: seq=128)\n"
            "  --threads N       worker threads (default 0: one per CPU)\n"
            "  --warmup N        unprofiled runs first (default 2)\n"
            "  --iters N         profiled runs (default 10, at least 1)\n"
            "  --isa LEVEL       cap the ISA (auto, ref, avx2, avx512, avx512_bf16, amx)\n"
            "  --seed S          seed of the random inputs (default 1)\n"
            "  --json            one JSON object on stdout instead of the text table\n"
            "  --csv             one CSV row per step on stdout instead of the text table\n"
            "  --trace FILE      write a Chrome trace-event file (Perfetto, chrome://tracing)\n"
            "  --html FILE       write a self-contained HTML report (roofline, timeline, table)\n"
            "  --no-counters     do not open hardware counters\n"
            "  -h, --help        show this help\n");
}

static int prof_int(prof_opts_t *o, const char *flag, const char *text, int64_t lo, int64_t hi,
                    int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!text[0] || text[0] == ' ' || !end || *end || errno == ERANGE) {
        fprintf(o->err, "cairn %s: %s: '%s' is not a whole number\n", o->cmd, flag, text);
        return 0;
    }
    if (v < lo || v > hi) {
        fprintf(o->err, "cairn %s: %s: %lld is out of range (%lld to %lld)\n", o->cmd, flag, v,
                (long long)lo, (long long)hi);
        return 0;
    }
    *out = v;
    return 1;
}

/* 0 ok, 2 usage error, -1 help printed */
static int prof_parse(int argc, char **argv, prof_opts_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            prof_usage(o->out);
            return -1;
        }
        if (a[0] != '-' || !a[1]) {
            if (o->model) {
                fprintf(o->err, "cairn %s: unexpected argument '%s' (the model is '%s')\n",
                        o->cmd, a, o->model);
                return 2;
            }
            o->model = a;
            continue;
        }
        if (!strcmp(a, "--json") || !strcmp(a, "--csv") || !strcmp(a, "--profile") ||
            !strcmp(a, "--no-counters")) {
            if (!strcmp(a, "--json"))
                o->json = 1;
            else if (!strcmp(a, "--csv"))
                o->csv = 1;
            else if (!strcmp(a, "--no-counters"))
                o->no_counters = 1;
            continue;
        }
        static const char *const valued[] = {"--dim",  "--threads", "--warmup", "--iters",
                                             "--isa",  "--seed",    "--trace",  "--html"};
        const char *flag = NULL, *val = NULL;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !flag; k++) {
            size_t n = strlen(valued[k]);
            if (!strcmp(a, valued[k])) {
                flag = valued[k];
                if (i + 1 >= argc) {
                    fprintf(o->err, "cairn %s: %s needs a value (see cairn profile --help)\n",
                            o->cmd, flag);
                    return 2;
                }
                val = argv[++i];
            } else if (!strncmp(a, valued[k], n) && a[n] == '=') {
                flag = valued[k], val = a + n + 1;
            }
        }
        if (!flag) {
            fprintf(o->err, "cairn %s: unknown option '%s' (see cairn profile --help)\n", o->cmd,
                    a);
            return 2;
        }
        int64_t v;
        if (!strcmp(flag, "--dim")) {
            const char *eq = strchr(val, '=');
            if (!eq || eq == val) {
                fprintf(o->err, "cairn %s: --dim '%s': expected NAME=VALUE, e.g. --dim seq=128\n",
                        o->cmd, val);
                return 2;
            }
            if (o->n_dims == PROF_MAX_DIMS) {
                fprintf(o->err, "cairn %s: too many --dim flags (at most %d)\n", o->cmd,
                        PROF_MAX_DIMS);
                return 2;
            }
            if (!prof_int(o, "--dim", eq + 1, 0, INT64_MAX, &v))
                return 2;
            o->dims[o->n_dims].name = val;
            o->dims[o->n_dims].len = (size_t)(eq - val);
            o->dims[o->n_dims++].value = v;
        } else if (!strcmp(flag, "--threads")) {
            if (!prof_int(o, flag, val, 0, 1024, &v))
                return 2;
            o->threads = (int)v;
        } else if (!strcmp(flag, "--warmup")) {
            if (!prof_int(o, flag, val, 0, 1000000, &v))
                return 2;
            o->warmup = (int)v;
        } else if (!strcmp(flag, "--iters")) {
            if (!prof_int(o, flag, val, 1, 1000000, &v))
                return 2;
            o->iters = (int)v;
        } else if (!strcmp(flag, "--seed")) {
            if (!prof_int(o, flag, val, 0, INT64_MAX, &v))
                return 2;
            o->seed = (uint64_t)v;
        } else if (!strcmp(flag, "--isa")) {
            if (cairn_isa_parse(val, &o->isa) != CAIRN_OK) {
                fprintf(o->err, "cairn %s: --isa '%s': unknown level (use auto, ref, avx2, "
                                "avx512, avx512_bf16 or amx)\n",
                        o->cmd, val);
                return 2;
            }
        } else { /* --trace, --html */
            if (!val[0]) {
                fprintf(o->err, "cairn %s: %s needs a file name\n", o->cmd, flag);
                return 2;
            }
            *(!strcmp(flag, "--trace") ? &o->trace : &o->html) = val;
        }
    }
    if (!o->model) {
        fprintf(o->err, "cairn %s: missing MODEL ('demo' or a model file); see cairn profile "
                        "--help\n",
                o->cmd);
        return 2;
    }
    if (o->json && o->csv) {
        fprintf(o->err, "cairn %s: --json and --csv both write stdout; choose one\n", o->cmd);
        return 2;
    }
    return 0;
}

/* ---- the machine's roofs ---- */


/* The roofs for `threads`: the calibrated f32 peak (the ymm rate when the
 * ISA in use stops below AVX-512), the int8 one for the 8-bit steps and
 * memory bandwidth (triad, else copy), from the machine file or a quick
 * calibration run now. */
static int get_roof(const prof_opts_t *o, int threads, cairn_isa_t isa, profile_roof_t *out,
                    char *src, size_t cap)
{
    machine_peaks_t r;
    char where[4200];
    if (tool_get_peaks(o->cmd, threads, 1, &r, where, sizeof where, o->err))
        return 0;
    int ymm = isa < CAIRN_ISA_AVX512 && r.f32_ymm_gflops > 0;
    out->peak_gflops = ymm ? r.f32_ymm_gflops : r.f32_gflops;
    out->peak_gbs = r.triad_gbs > 0 ? r.triad_gbs : r.copy_gbs;
    /* the int8 rate only where the kernels in use reach it (AVX-512 VNNI) */
    out->peak_int8_gops = isa >= CAIRN_ISA_AVX512 ? r.s8_gops : 0;
    snprintf(src, cap, "calibrated, %d thread%s, f32 %s: %s", threads, threads > 1 ? "s" : "",
             ymm ? "ymm" : "best", where);
    return 1;
}

/* ---- inputs ---- */

static void prof_fill(cairn_tensor_t *t, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    if (!s)
        s = 1;
    int64_t n = cairn_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        uint64_t r = s * 2685821657736338717ull;
        double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
        double v = base_dtype_is_float(t->dtype) ? 2.0 * u - 1.0
                   : t->dtype == CAIRN_BOOL      ? (double)(r >> 63)
                                                 : (double)(int)(u * 10.0);
        base_store_from_double(t->data, t->dtype, i, v);
    }
}

static int prof_inputs(prof_opts_t *o, const run_model_t *m, cairn_session_t *s,
                       cairn_tensor_t *in, int n_in)
{
    for (int k = 0; k < o->n_dims; k++) { /* a --dim naming nothing is a typo */
        int found = 0;
        for (int i = 0; i < n_in && !found; i++) {
            int rank = 0;
            const char *dn[CAIRN_MAX_RANK] = {0};
            cairn_session_input_info(s, i, NULL, NULL, &rank, NULL, dn);
            for (int d = 0; d < rank && !found; d++)
                found = dn[d] && strlen(dn[d]) == o->dims[k].len &&
                        !strncmp(dn[d], o->dims[k].name, o->dims[k].len);
        }
        if (!found) {
            fprintf(o->err, "cairn %s: --dim %.*s: the model has no symbolic dim of that name\n",
                    o->cmd, (int)o->dims[k].len, o->dims[k].name);
            return 2;
        }
    }
    for (int i = 0; i < n_in; i++) {
        const char *name = NULL;
        const char *dn[CAIRN_MAX_RANK] = {0};
        cairn_tensor_t t = {CAIRN_F32, 0, {0}, NULL};
        if (cairn_session_input_info(s, i, &name, &t.dtype, &t.rank, t.shape, dn) != CAIRN_OK) {
            fprintf(o->err, "cairn %s: input %d: %s\n", o->cmd, i, cairn_last_error());
            return 1;
        }
        size_t bytes = cairn_dtype_size(t.dtype);
        for (int d = 0; d < t.rank; d++) {
            if (dn[d]) {
                int k = 0;
                while (k < o->n_dims &&
                       !(strlen(dn[d]) == o->dims[k].len &&
                         !strncmp(dn[d], o->dims[k].name, o->dims[k].len)))
                    k++;
                if (k < o->n_dims)
                    t.shape[d] = o->dims[k].value;
                else if (m->default_dim && !strcmp(m->default_dim, dn[d]))
                    t.shape[d] = m->default_value;
                else {
                    fprintf(o->err, "cairn %s: input %d ('%s') dimension %d is the symbolic dim "
                                    "'%s', which has no value: set it with --dim %s=N\n",
                            o->cmd, i, name, d, dn[d], dn[d]);
                    return 2;
                }
            }
            if (!base_mul_size(bytes, (size_t)t.shape[d], &bytes)) {
                fprintf(o->err, "cairn %s: input '%s' is too large\n", o->cmd, name);
                return 2;
            }
        }
        t.data = malloc(bytes ? bytes : 1);
        if (!t.data) {
            fprintf(o->err, "cairn %s: cannot allocate %zu bytes for input '%s'\n", o->cmd,
                    bytes, name);
            return 1;
        }
        prof_fill(&t, o->seed + (uint64_t)i);
        in[i] = t;
    }
    return 0;
}

/* ---- the command ---- */

static int prof_write(prof_opts_t *o, const char *path, const profile_t *p,
                      const profile_analysis_t *a, const report_meta_t *meta, int html)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(o->err, "cairn %s: cannot write '%s': %s\n", o->cmd, path, strerror(errno));
        return 0;
    }
    if (html)
        profile_report_html(f, p, a, meta);
    else
        profile_report_trace(f, p, a);
    if (fclose(f) != 0) {
        fprintf(o->err, "cairn %s: writing '%s' failed: %s\n", o->cmd, path, strerror(errno));
        return 0;
    }
    return 1;
}

static int prof_session(prof_opts_t *o, run_model_t *m)
{
    cairn_session_options_t so = cairn_session_options_default();
    so.threads = o->threads;
    so.isa_cap = o->isa;
    cairn_session_t *s = NULL;
    cairn_status_t st = cairn_session_create_taking(m->graph, &so, NULL, &s);
    m->graph = NULL;
    if (st != CAIRN_OK) {
        fprintf(o->err, "cairn %s: %s: creating the session: %s\n", o->cmd, o->model,
                cairn_last_error());
        return 1;
    }
    int rc = 1, n_in = cairn_session_input_count(s), n_out = cairn_session_output_count(s);
    cairn_tensor_t *in = calloc((size_t)n_in + 1, sizeof *in);
    cairn_tensor_t *outs = calloc((size_t)n_out + 1, sizeof *outs);
    profile_t *prof = profile_create(!o->no_counters);
    profile_analysis_t an;
    memset(&an, 0, sizeof an);
    if (!in || !outs || !prof) {
        fprintf(o->err, "cairn %s: out of memory\n", o->cmd);
        goto done;
    }
    if ((rc = prof_inputs(o, m, s, in, n_in)) != 0)
        goto done;
    rc = 1;
    for (int r = 0; r < o->warmup + o->iters; r++) {
        memset(outs, 0, sizeof *outs * (size_t)n_out);
        st = r < o->warmup ? cairn_session_run(s, in, n_in, outs, n_out)
                           : cairn_session_run_profiled(s, in, n_in, outs, n_out, prof);
        if (st != CAIRN_OK) {
            fprintf(o->err, "cairn %s: %s: run %d failed: %s\n", o->cmd, o->model, r + 1,
                    cairn_last_error());
            goto done;
        }
    }
    cairn_plan_info_t pi;
    cairn_session_plan_info(s, &pi);
    profile_roof_t roof;
    char roof_src[4400];
    if (!get_roof(o, pi.threads, pi.isa, &roof, roof_src, sizeof roof_src))
        goto done;
    if (!o->no_counters)
        pc_warn_once(prof->pc, o->err);
    if (!profile_analyze(prof, &roof, &an)) {
        fprintf(o->err, "cairn %s: out of memory analysing the profile\n", o->cmd);
        goto done;
    }
    report_meta_t meta = {o->model, cairn_isa_name(pi.isa), roof_src,
                          o->no_counters ? "disabled (--no-counters)"
                          : prof->counters ? NULL
                                           : pc_reason(prof->pc)};
    if (o->json)
        profile_report_json(o->out, &an, &meta);
    else if (o->csv)
        profile_report_csv(o->out, &an);
    else
        profile_report_text(o->out, &an, &meta);
    fflush(o->out);
    if ((o->trace && !prof_write(o, o->trace, prof, &an, &meta, 0)) ||
        (o->html && !prof_write(o, o->html, prof, &an, &meta, 1)))
        goto done;
    rc = 0;
done:
    for (int i = 0; in && i < n_in; i++)
        free(in[i].data);
    free(in);
    free(outs);
    profile_analysis_free(&an);
    profile_destroy(prof);
    cairn_session_destroy(s);
    return rc;
}

int profile_cli(int argc, char **argv, FILE *out, FILE *err)
{
    prof_opts_t o;
    memset(&o, 0, sizeof o);
    o.cmd = argc > 0 && argv[0] && !strcmp(argv[0], "run") ? "run --profile" : "profile";
    o.warmup = 2, o.iters = 10, o.seed = 1, o.isa = CAIRN_ISA_AUTO;
    o.out = out, o.err = err;
    int rc = prof_parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    run_model_t m;
    if (load_model(o.model, &m) != CAIRN_OK) {
        fprintf(err, "cairn %s: %s\n", o.cmd, cairn_last_error());
        cairn_graph_destroy(m.graph);
        return m.usage_error ? 2 : 1;
    }
    return prof_session(&o, &m);
}

int cmd_profile(int argc, char **argv) { return profile_cli(argc, argv, stdout, stderr); }
