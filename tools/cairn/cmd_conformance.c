/*
 * cairn conformance: runs ONNX backend test directories (model.onnx plus
 * test_data_set_N/input_N.pb and output_N.pb) and compares every output
 * with the expected one, as the ONNX backend runner does: floats within
 * |got - exp| <= atol + rtol * |exp| (rtol 1e-3, atol 1e-7; NaN equals NaN),
 * integers and bools exactly, shapes and dtypes exactly.
 *
 * A test is PASS, FAIL (a wrong answer: the worst element is named) or
 * UNSUPPORTED (cairn refused the model or its data, with the reason). Any
 * error short of a wrong answer counts as UNSUPPORTED, so a model cairn
 * cannot load never reads as a failure, and a wrong number always does.
 * Exit status: 0 when nothing failed, 1 when a test failed, 2 on a usage
 * error.
 */
#define _XOPEN_SOURCE 700
#include "base/dtype.h"
#include "base/status.h"
#include "cmd.h"
#include "frontend/onnx/loader.h"
#include "frontend/onnx/tensor_pb.h"
#include "base/json_out.h"

#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONF_RTOL 1e-3
#define CONF_ATOL 1e-7

enum { CONF_PASS, CONF_FAIL, CONF_UNSUPPORTED };
static const char *const conf_status_name[] = {"PASS", "FAIL", "UNSUPPORTED"};

typedef struct conf_opts {
    int json;
    const char *filter;
    int threads;
} conf_opts_t;

static void conf_usage(FILE *f)
{
    fprintf(f,
            "usage: cairn conformance DIR... [--json] [--filter GLOB] [--threads N]\n"
            "\n"
            "Runs ONNX backend tests. A DIR is one test (it holds model.onnx and\n"
            "test_data_set_*/input_N.pb, output_N.pb) or a folder of tests. Each test\n"
            "prints PASS, FAIL (the output, the index of the worst element, got and\n"
            "expected) or UNSUPPORTED (the reason), then a summary line\n"
            "'N passed, N failed, N unsupported'.\n"
            "\n"
            "Floats pass when |got - expected| <= 1e-7 + 1e-3 * |expected| (NaN equals NaN);\n"
            "integers and bools must be equal; shapes and dtypes must match.\n"
            "\n"
            "options:\n"
            "  --json          print one JSON object: {\"passed\", \"failed\", \"unsupported\",\n"
            "                  \"tests\": [{\"name\", \"status\", \"detail\"}]}\n"
            "  --filter GLOB   run only tests whose name matches GLOB (e.g. 'test_add*')\n"
            "  --threads N     threads per session (default 1)\n"
            "  -h, --help      show this help\n"
            "\n"
            "Exit status: 0 no test failed, 1 a test failed, 2 a usage error.\n");
}

/* printf into a malloc'd string */
static char *conf_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *conf_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of dir that satisfy keep(dir/name). */
static char **list_dir(const char *dir, const char *prefix, int want_dir, int *n_out)
{
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **v = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || (prefix && strncmp(e->d_name, prefix, strlen(prefix))))
            continue;
        char *full = conf_fmt("%s/%s", dir, e->d_name);
        int ok = full && (want_dir ? is_dir(full) : is_file(full));
        free(full);
        if (!ok)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[n] = strdup(e->d_name);
        if (v[n])
            n++;
    }
    closedir(d);
    if (n)
        qsort(v, (size_t)n, sizeof *v, cmp_str);
    *n_out = n;
    return v;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Compares one output; returns NULL when it matches, else the detail. */
static char *compare(const char *name, const cairn_tensor_t *got, const cairn_tensor_t *exp)
{
    char gs[160], es[160];
    if (got->dtype != exp->dtype)
        return conf_fmt("output '%s': dtype %s, expected %s", name, cairn_dtype_name(got->dtype),
                        cairn_dtype_name(exp->dtype));
    int same = got->rank == exp->rank;
    for (int i = 0; same && i < got->rank; i++)
        same = got->shape[i] == exp->shape[i];
    if (!same)
        return conf_fmt("output '%s': shape %s, expected %s", name,
                        base_fmt_dims(gs, sizeof gs, got->shape, got->rank),
                        base_fmt_dims(es, sizeof es, exp->shape, exp->rank));
    int64_t n = cairn_tensor_numel(exp);
    int is_float = base_dtype_is_float(exp->dtype);
    int64_t worst = -1;
    double worst_excess = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = base_load_as_double(got->data, got->dtype, i);
        double e = base_load_as_double(exp->data, exp->dtype, i);
        double excess;
        if (is_float) {
            if (isnan(e) || isnan(g)) {
                if (isnan(e) && isnan(g))
                    continue;
                excess = INFINITY;
            } else if (isinf(e) || isinf(g)) {
                if (g == e)
                    continue;
                excess = INFINITY;
            } else {
                excess = fabs(g - e) - (CONF_ATOL + CONF_RTOL * fabs(e));
                if (excess <= 0)
                    continue;
            }
        } else {
            if (g == e)
                continue;
            excess = fabs(g - e);
        }
        if (worst < 0 || excess > worst_excess)
            worst = i, worst_excess = excess;
    }
    if (worst < 0)
        return NULL;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double g = base_load_as_double(got->data, got->dtype, i);
        double e = base_load_as_double(exp->data, exp->dtype, i);
        int ok = is_float ? ((isnan(g) && isnan(e)) || g == e ||
                             fabs(g - e) <= CONF_ATOL + CONF_RTOL * fabs(e))
                          : g == e;
        bad += !ok;
    }
    return conf_fmt("output '%s' %s %s: element %lld is %.9g, expected %.9g (%lld of %lld "
                    "elements differ)",
                    name, cairn_dtype_name(exp->dtype),
                    base_fmt_dims(gs, sizeof gs, exp->shape, exp->rank), (long long)worst,
                    base_load_as_double(got->data, got->dtype, worst),
                    base_load_as_double(exp->data, exp->dtype, worst), (long long)bad,
                    (long long)n);
}

/* Runs s on inputs and compares with setdir's output_N.pb. */
static int run_compare(cairn_session_t *s, cairn_tensor_t *in, int n_in, const char *setdir,
                       char **detail)
{
    int n_out = cairn_session_output_count(s);
    int status = CONF_PASS;
    cairn_tensor_t *out = calloc((size_t)(n_out ? n_out : 1), sizeof *out);
    if (!out) {
        *detail = conf_fmt("out of memory");
        return CONF_UNSUPPORTED;
    }
    cairn_status_t st = cairn_session_run(s, in, n_in, out, n_out);
    if (st != CAIRN_OK) {
        *detail = conf_fmt("run: %s: %s", cairn_status_string(st), cairn_last_error());
        free(out);
        return CONF_UNSUPPORTED;
    }
    int expected = 0;
    while (expected < 1000) {
        char *p = conf_fmt("%s/output_%d.pb", setdir, expected);
        int ok = p && is_file(p);
        free(p);
        if (!ok)
            break;
        expected++;
    }
    if (expected != n_out) {
        *detail = conf_fmt("the model has %d outputs but the test expects %d", n_out, expected);
        free(out);
        return CONF_FAIL;
    }
    for (int i = 0; i < n_out && status == CONF_PASS; i++) {
        char *p = conf_fmt("%s/output_%d.pb", setdir, i);
        cairn_tensor_t e;
        char *nm = NULL;
        cairn_status_t rs = onnx_tensor_read(p, &e, &nm);
        free(p);
        if (rs != CAIRN_OK) {
            *detail = conf_fmt("expected output %d: %s", i, cairn_last_error());
            status = CONF_UNSUPPORTED;
            break;
        }
        const char *oname = NULL;
        cairn_session_output_info(s, i, &oname, NULL, NULL, NULL, NULL);
        char *d = compare(oname ? oname : (nm && nm[0] ? nm : "?"), &out[i], &e);
        if (d) {
            *detail = d;
            status = CONF_FAIL;
        }
        free(e.data);
        free(nm);
    }
    free(out);
    return status;
}

/* Runs one data set; returns a status and sets *detail. */
static int run_set(const char *model, cairn_session_t *s, const conf_opts_t *o,
                   const char *setdir, char **detail)
{
    int n_in = cairn_session_input_count(s);
    int given = 0;
    while (given < 1000) {
        char *p = conf_fmt("%s/input_%d.pb", setdir, given);
        int ok = p && is_file(p);
        free(p);
        if (!ok)
            break;
        given++;
    }
    if (given != n_in) {
        *detail = conf_fmt("%s: the test gives %d inputs but the model has %d", setdir, given,
                           n_in);
        return CONF_UNSUPPORTED;
    }
    int status = CONF_PASS;
    cairn_tensor_t *in = calloc((size_t)(n_in ? n_in : 1), sizeof *in);
    if (!in) {
        *detail = conf_fmt("out of memory");
        return CONF_UNSUPPORTED;
    }
    for (int i = 0; i < n_in; i++) {
        char *p = conf_fmt("%s/input_%d.pb", setdir, i);
        cairn_status_t st = onnx_tensor_read(p, &in[i], NULL);
        free(p);
        if (st != CAIRN_OK) {
            *detail = conf_fmt("input %d: %s", i, cairn_last_error());
            status = CONF_UNSUPPORTED;
            goto done;
        }
    }
    status = run_compare(s, in, n_in, setdir, detail);
done:
    for (int i = 0; i < n_in; i++)
        free(in[i].data);
    free(in);
    return status;
}

static int run_test(const char *dir, const conf_opts_t *o, char **detail)
{
    *detail = NULL;
    char *model = conf_fmt("%s/model.onnx", dir);
    if (!model) {
        *detail = conf_fmt("out of memory");
        return CONF_UNSUPPORTED;
    }
    cairn_graph_t *g = NULL;
    cairn_status_t st = cairn_graph_load_onnx(model, &g);
    if (st != CAIRN_OK) {
        free(model);
        *detail = conf_fmt("load: %s: %s", cairn_status_string(st), cairn_last_error());
        return CONF_UNSUPPORTED;
    }
    cairn_session_options_t so = cairn_session_options_default();
    so.threads = o->threads;
    cairn_session_t *s = NULL;
    st = cairn_session_create(g, &so, &s);
    cairn_graph_destroy(g);
    if (st != CAIRN_OK) {
        free(model);
        *detail = conf_fmt("session: %s: %s", cairn_status_string(st), cairn_last_error());
        return CONF_UNSUPPORTED;
    }
    int n_sets;
    char **sets = list_dir(dir, "test_data_set_", 1, &n_sets);
    int status = CONF_PASS;
    if (!n_sets) {
        *detail = conf_fmt("no test_data_set_* folder");
        status = CONF_UNSUPPORTED;
    }
    for (int i = 0; i < n_sets && status == CONF_PASS; i++) {
        char *sd = conf_fmt("%s/%s", dir, sets[i]);
        char *d = NULL;
        status = sd ? run_set(model, s, o, sd, &d) : CONF_UNSUPPORTED;
        if (d) {
            *detail = conf_fmt("%s: %s", sets[i], d);
            free(d);
        }
        free(sd);
    }
    free_list(sets, n_sets);
    cairn_session_destroy(s);
    free(model);
    return status;
}

typedef struct conf_state {
    const conf_opts_t *o;
    int counts[3];
    int n_tests;
} conf_state_t;

static void one_test(conf_state_t *S, const char *dir, const char *name)
{
    if (S->o->filter && fnmatch(S->o->filter, name, 0) != 0)
        return;
    char *detail = NULL;
    int st = run_test(dir, S->o, &detail);
    S->counts[st]++;
    if (S->o->json) {
        printf("%s{\"name\": ", S->n_tests ? ", " : "");
        base_json_string(stdout, name);
        printf(", \"status\": \"%s\", \"detail\": ", conf_status_name[st]);
        base_json_string(stdout, detail ? detail : "");
        printf("}");
    } else {
        /* one line per test: newlines in messages become " | " */
        printf("%-12s %s", conf_status_name[st], name);
        if (detail) {
            printf(": ");
            for (const char *c = detail; *c; c++)
                if (*c == '\n')
                    fputs(" |", stdout);
                else
                    putchar(*c);
        }
        printf("\n");
    }
    fflush(stdout);
    S->n_tests++;
    free(detail);
}

/* The last path component, without trailing slashes. */
static const char *base_name(const char *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", p);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = 0;
    const char *s = strrchr(buf, '/');
    return s && s[1] ? s + 1 : buf;
}

int cmd_conformance(int argc, char **argv)
{
    conf_opts_t o = {0, NULL, 1};
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    int n_dirs = 0;
    if (!dirs)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            conf_usage(stdout);
            free(dirs);
            return 0;
        } else if (!strcmp(a, "--json")) {
            o.json = 1;
        } else if (!strcmp(a, "--filter") || !strcmp(a, "--threads")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cairn conformance: %s needs a value\n", a);
                free(dirs);
                return 2;
            }
            if (a[2] == 'f') {
                o.filter = argv[++i];
            } else {
                char *end;
                long v = strtol(argv[++i], &end, 10);
                if (!argv[i][0] || *end || v < 0 || v > 1024) {
                    fprintf(stderr, "cairn conformance: --threads '%s' is not a number from 0 "
                                    "to 1024\n", argv[i]);
                    free(dirs);
                    return 2;
                }
                o.threads = (int)v;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "cairn conformance: unknown option '%s'; see cairn conformance "
                            "--help\n", a);
            free(dirs);
            return 2;
        } else {
            dirs[n_dirs++] = a;
        }
    }
    if (!n_dirs) {
        fprintf(stderr, "cairn conformance: give at least one test directory; see cairn "
                        "conformance --help\n");
        free(dirs);
        return 2;
    }
    for (int i = 0; i < n_dirs; i++)
        if (!is_dir(dirs[i])) {
            fprintf(stderr, "cairn conformance: '%s' is not a directory\n", dirs[i]);
            free(dirs);
            return 2;
        }
    conf_state_t S = {&o, {0, 0, 0}, 0};
    if (o.json)
        printf("{\"tests\": [");
    for (int i = 0; i < n_dirs; i++) {
        char *model = conf_fmt("%s/model.onnx", dirs[i]);
        int single = model && is_file(model);
        free(model);
        if (single) {
            char nb[4096];
            one_test(&S, dirs[i], base_name(dirs[i], nb, sizeof nb));
            continue;
        }
        int n;
        char **subs = list_dir(dirs[i], NULL, 1, &n);
        for (int k = 0; k < n; k++) {
            char *sub = conf_fmt("%s/%s", dirs[i], subs[k]);
            char *m = sub ? conf_fmt("%s/model.onnx", sub) : NULL;
            if (m && is_file(m))
                one_test(&S, sub, subs[k]);
            free(m);
            free(sub);
        }
        free_list(subs, n);
    }
    if (o.json)
        printf("], \"passed\": %d, \"failed\": %d, \"unsupported\": %d}\n",
               S.counts[CONF_PASS], S.counts[CONF_FAIL], S.counts[CONF_UNSUPPORTED]);
    else
        printf("%d passed, %d failed, %d unsupported\n", S.counts[CONF_PASS],
               S.counts[CONF_FAIL], S.counts[CONF_UNSUPPORTED]);
    free(dirs);
    return S.counts[CONF_FAIL] ? 1 : 0;
}
