/* `cairn run`: argument errors, symbolic dims, input/output files, the JSON
 * report and the statistics, tested in-process. The tool's sources are not
 * in the library, so they are compiled into this test directly; models other
 * than 'demo' are handed to run_model() as graphs built here from Identity
 * nodes, so these tests do not depend on which ops exist. */
#define _POSIX_C_SOURCE 200809L
#include "../../tools/cairn/cmd_run.c"
#include "../../tools/cairn/demo.c"
#include "../../tools/cairn/cmd_profile.c"
#include "check.h"

#include <unistd.h>

static char tmpdir[64];

typedef struct capture {
    FILE *out, *err;
    char o[1 << 16], e[1 << 13];
} capture_t;

static capture_t cap;

static void cap_begin(void)
{
    cap.out = tmpfile();
    cap.err = tmpfile();
    cap.o[0] = cap.e[0] = 0;
}

static void slurp(FILE *f, char *buf, size_t n)
{
    fflush(f);
    rewind(f);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = 0;
    fclose(f);
}

static void cap_end(void)
{
    slurp(cap.out, cap.o, sizeof cap.o);
    slurp(cap.err, cap.e, sizeof cap.e);
}

/* Runs `cairn run ARGS...` (argv[0] is "run"). */
static int cli(int argc, const char **argv)
{
    cap_begin();
    int rc = run_cli(argc, (char **)argv, cap.out, cap.err);
    cap_end();
    return rc;
}

#define CLI(...)                                                    \
    cli((int)(sizeof((const char *[]){"run", __VA_ARGS__}) / sizeof(const char *)), \
        (const char *[]){"run", __VA_ARGS__})

/* Two inputs: a f32 [batch, 3] and b i64 [2]; outputs copy them. */
static run_model_t identity_model(void)
{
    run_model_t m = {0};
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t da[2] = {0, 3}, db[1] = {2};
    const char *na[2] = {"batch", NULL};
    cairn_value_id a, b, ya, yb;
    CHECK_OK(cairn_graph_add_input(g, "a", CAIRN_F32, 2, da, na, &a));
    CHECK_OK(cairn_graph_add_input(g, "b", CAIRN_I64, 1, db, NULL, &b));
    const char *nya[1] = {"ya"}, *nyb[1] = {"yb"};
    CHECK_OK(cairn_graph_add_node(g, "Identity", "id_a", &a, 1, NULL, 0, &ya, 1, nya));
    CHECK_OK(cairn_graph_add_node(g, "Identity", "id_b", &b, 1, NULL, 0, &yb, 1, nyb));
    CHECK_OK(cairn_graph_mark_output(g, ya));
    CHECK_OK(cairn_graph_mark_output(g, yb));
    m.graph = g;
    return m;
}

/* Parses ARGS for the model "ident" and runs the Identity model. */
static int run_ident(int argc, const char **argv)
{
    run_opts_t o;
    cap_begin();
    run_opts_init(&o, cap.out, cap.err);
    int rc = parse_args(argc, (char **)argv, &o);
    CHECK(rc == RUN_OK);
    run_model_t m = identity_model();
    if (rc == RUN_OK)
        rc = run_model(&o, &m);
    else
        cairn_graph_destroy(m.graph);
    cap_end();
    return rc;
}
#define IDENT(...)                                                       \
    run_ident((int)(sizeof((const char *[]){"run", "ident", __VA_ARGS__}) / sizeof(const char *)), \
              (const char *[]){"run", "ident", __VA_ARGS__})

static const char *path_in(const char *leaf)
{
    static char buf[4][160];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, leaf);
    return buf[k];
}

static void test_usage_errors(void)
{
    static const struct {
        const char *args[4];
        int n;
        const char *needle;
    } cases[] = {
        {{"demo", "--iters", "abc"}, 3, "'abc' is not a whole number"},
        {{"demo", "--iters", "0"}, 3, "out of range"},
        {{"demo", "--iters", "12x"}, 3, "not a whole number"},
        {{"demo", "--warmup", "-1"}, 3, "out of range"},
        {{"demo", "--threads", "99999"}, 3, "out of range"},
        {{"demo", "--seed", ""}, 3, "not a whole number"},
        {{"demo", "--iters"}, 2, "--iters needs a value"},
        {{"demo", "--bogus"}, 2, "unknown option '--bogus'"},
        {{"demo", "--dim", "seq"}, 3, "expected NAME=VALUE"},
        {{"demo", "--dim", "=4"}, 3, "expected NAME=VALUE"},
        {{"demo", "--dim", "seq=-4"}, 3, "out of range"},
        {{"demo", "--dim", "seq=x"}, 3, "not a whole number"},
        {{"demo", "--dim=seq=1", "--dim", "seq=2"}, 4, "given twice"},
        {{"demo", "--isa", "sse9"}, 3, "unknown level"},
        {{"demo", "other"}, 2, "unexpected argument 'other'"},
        {{"--json"}, 1, "missing MODEL"},
        {{"resnet"}, 1, "unknown model 'resnet'"},
        {{"demo", "--inputs", ""}, 3, "needs a directory"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[5] = {"run"};
        for (int k = 0; k < cases[i].n; k++)
            argv[k + 1] = cases[i].args[k];
        int rc = cli(cases[i].n + 1, argv);
        CHECK_MSG(rc == RUN_USAGE, "case %zu: rc %d", i, rc);
        CHECK_MSG(strstr(cap.e, cases[i].needle) != NULL, "case %zu: stderr '%s' lacks '%s'", i,
                  cap.e, cases[i].needle);
        CHECK_MSG(cap.o[0] == 0, "case %zu: stdout not empty: '%s'", i, cap.o);
    }
}

static void test_help(void)
{
    CHECK(CLI("--help") == RUN_OK);
    static const char *const flags[] = {"--dim NAME=VALUE", "--inputs DIR", "--outputs DIR",
                                        "--threads N",      "--warmup N",   "--iters N",
                                        "--isa LEVEL",      "--json",       "--seed S"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        CHECK_MSG(strstr(cap.o, flags[i]) != NULL, "help lacks %s", flags[i]);
    CHECK(CLI("demo", "-h") == RUN_OK && strstr(cap.o, "usage: cairn run"));
}

/* One JSON object on one line: balanced braces/brackets outside strings. */
static int json_one_object(const char *s)
{
    size_t n = strlen(s);
    if (n < 3 || s[0] != '{' || s[n - 1] != '\n' || s[n - 2] != '}')
        return 0;
    int depth = 0, in_str = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
            continue;
        }
        if (c == '"')
            in_str = 1;
        else if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']')
            depth--;
        else if (c == '\n')
            return 0;
        if (depth == 0 && i + 2 < n)
            return 0; /* closed before the end: more than one value */
    }
    return depth == 0 && !in_str;
}

static void test_demo(void)
{
    /* The demo needs MatMul, LayerNormalization, ... Until they exist it must
     * fail cleanly, naming the node; once they do it must run. */
    int rc = CLI("demo", "--json", "--iters", "2", "--warmup", "0", "--dim", "seq=5",
                 "--threads", "2");
    if (rc == RUN_OK) {
        CHECK(json_one_object(cap.o));
        CHECK(strstr(cap.o, "\"name\":\"y\",\"dtype\":\"f32\",\"shape\":[1,5,256]") != NULL);
        CHECK(strstr(cap.o, "\"shape\":[1,5,256],\"source\":\"random\"") != NULL);
        CHECK(!strstr(cap.o, "null"));
    } else {
        CHECK_MSG(rc == RUN_FAIL, "rc %d", rc);
        CHECK_MSG(strstr(cap.e, "building the demo model: node 'layer0/") &&
                      strstr(cap.e, "cairn has no op"),
                  "stderr: %s", cap.e);
    }
    /* the demo's dim is 'seq'; a typo is an error either way, once it builds */
    rc = CLI("demo", "--dim", "sequence=5");
    CHECK(rc != RUN_OK);
}

static void test_dims(void)
{
    CHECK(IDENT("--iters", "1") == RUN_USAGE);
    CHECK_MSG(strstr(cap.e, "symbolic dim 'batch'") && strstr(cap.e, "--dim batch=N"), "%s",
              cap.e);
    CHECK(IDENT("--dim", "nope=3") == RUN_USAGE);
    CHECK_MSG(strstr(cap.e, "no symbolic dim 'nope'") && strstr(cap.e, "batch"), "%s", cap.e);
    CHECK(IDENT("--dim", "batch=4", "--dim", "batchX=1") == RUN_USAGE);
    CHECK(strstr(cap.e, "'batchX'") != NULL);
}

static void test_json_and_outputs(void)
{
    const char *odir = path_in("out");
    int rc = IDENT("--dim", "batch=3", "--json", "--iters", "3", "--warmup", "1", "--threads",
                   "1", "--outputs", odir, "--seed", "7");
    CHECK_MSG(rc == RUN_OK, "rc %d: %s", rc, cap.e);
    CHECK_MSG(json_one_object(cap.o), "not one JSON object: %s", cap.o);
    static const char *const keys[] = {
        "\"model\":\"ident\"", "\"latency_ms\":{\"min\":", "\"median\":", "\"p90\":",
        "\"max\":",            "\"iters\":3",              "\"threads\":1", "\"isa\":\"",
        "\"arena_bytes\":",    "\"outputs\":[{\"name\":\"ya\",\"dtype\":\"f32\",\"shape\":[3,3]",
        "\"mean\":",           "\"std\":",                 "{\"name\":\"yb\",\"dtype\":\"i64\",\"shape\":[2]"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CHECK_MSG(strstr(cap.o, keys[i]) != NULL, "JSON lacks %s: %s", keys[i], cap.o);

    /* output_0.pb holds exactly the generated input (Identity), named ya */
    char p0[200];
    snprintf(p0, sizeof p0, "%s/output_0.pb", odir);
    cairn_tensor_t t;
    char *name = NULL;
    CHECK_OK(onnx_tensor_read(p0, &t, &name));
    CHECK(t.dtype == CAIRN_F32 && t.rank == 2 && t.shape[0] == 3 && t.shape[1] == 3);
    CHECK(name && !strcmp(name, "ya"));
    float want[9];
    cairn_tensor_t w = {CAIRN_F32, 2, {3, 3}, want};
    fill_random(&w, 7);
    CHECK(!memcmp(t.data, want, sizeof want));
    int in_range = 1;
    for (int i = 0; i < 9; i++)
        in_range &= want[i] >= -1 && want[i] < 1;
    CHECK(in_range);
    free(t.data);
    free(name);
    char p1[200];
    snprintf(p1, sizeof p1, "%s/output_1.pb", odir);
    CHECK_OK(onnx_tensor_read(p1, &t, NULL));
    int ints_ok = t.dtype == CAIRN_I64 && t.rank == 1;
    for (int i = 0; ints_ok && i < 2; i++)
        ints_ok = ((int64_t *)t.data)[i] >= 0 && ((int64_t *)t.data)[i] < 10;
    CHECK(ints_ok);
    free(t.data);
    remove(p0);
    remove(p1);

    /* --outputs naming a file is an error */
    const char *file = path_in("plainfile");
    FILE *f = fopen(file, "w");
    if (f)
        fclose(f);
    CHECK(IDENT("--dim", "batch=1", "--outputs", file) == RUN_FAIL);
    CHECK(strstr(cap.e, "not a directory") != NULL);
    remove(file);
    rmdir(odir);
}

static void test_input_files(void)
{
    const char *idir = path_in("in");
    CHECK(mkdir(idir, 0777) == 0);
    char pa[200], pb[200];
    snprintf(pa, sizeof pa, "%s/input_0.pb", idir);
    snprintf(pb, sizeof pb, "%s/input_1.pb", idir);

    /* missing files */
    CHECK(IDENT("--inputs", idir) == RUN_FAIL);
    CHECK_MSG(strstr(cap.e, "input_0.pb") && strstr(cap.e, "cannot open"), "%s", cap.e);

    float av[6] = {1, 2, 3, 4, 5, -6};
    int64_t bv[2] = {-7, 8};
    cairn_tensor_t a = {CAIRN_F32, 2, {2, 3}, av}, b = {CAIRN_I64, 1, {2}, bv};
    CHECK_OK(onnx_tensor_write(pa, &a, "a"));
    CHECK(IDENT("--inputs", idir) == RUN_FAIL);
    CHECK_MSG(strstr(cap.e, "input_1.pb"), "%s", cap.e);
    CHECK_OK(onnx_tensor_write(pb, &b, "b"));

    /* a good run, text report: the batch comes from the file */
    CHECK(IDENT("--inputs", idir, "--iters", "2", "--warmup", "0") == RUN_OK);
    CHECK_MSG(strstr(cap.o, "latency") && strstr(cap.o, "throughput") &&
                  strstr(cap.o, "ya: f32 [2,3]") && strstr(cap.o, "mean 1.5 ") &&
                  strstr(cap.o, "min -6") && strstr(cap.o, "max 5") &&
                  strstr(cap.o, "first: 1 2 3 4 5 -6\n") && strstr(cap.o, "yb: i64 [2]") &&
                  strstr(cap.o, "arena"),
              "%s", cap.o);
    /* a --dim that disagrees with the file */
    CHECK(IDENT("--inputs", idir, "--dim", "batch=5") == RUN_FAIL);
    CHECK_MSG(strstr(cap.e, "--dim batch=5") && strstr(cap.e, "input_0.pb"), "%s", cap.e);
    CHECK(IDENT("--inputs", idir, "--dim", "batch=2") == RUN_OK);

    /* wrong dtype, wrong static dim, garbage */
    int32_t iv[6] = {0};
    cairn_tensor_t ai = {CAIRN_I32, 2, {2, 3}, iv};
    CHECK_OK(onnx_tensor_write(pa, &ai, "a"));
    CHECK(IDENT("--inputs", idir) == RUN_FAIL);
    CHECK_MSG(strstr(cap.e, "holds i32 [2,3]") && strstr(cap.e, "is f32 [batch,3]"), "%s", cap.e);
    cairn_tensor_t a4 = {CAIRN_F32, 2, {3, 2}, av};
    CHECK_OK(onnx_tensor_write(pa, &a4, "a"));
    CHECK(IDENT("--inputs", idir) == RUN_FAIL);
    CHECK(strstr(cap.e, "holds f32 [3,2]") != NULL);
    FILE *f = fopen(pa, "wb");
    if (f) {
        fputs("\xff\xff\xff\xff garbage", f);
        fclose(f);
    }
    CHECK(IDENT("--inputs", idir) == RUN_FAIL);
    CHECK_MSG(strstr(cap.e, "not a valid ONNX TensorProto"), "%s", cap.e);
    remove(pa);
    remove(pb);
    rmdir(idir);
}

static void test_stats(void)
{
    double ms[5] = {5, 1, 3, 2, 4};
    latency_t l = latency_summary(ms, 5);
    CHECK(l.min == 1 && l.median == 3 && l.p90 == 5 && l.max == 5 && l.mean == 3);
    double ms4[4] = {4, 1, 3, 2};
    l = latency_summary(ms4, 4);
    CHECK(l.median == 2.5 && l.p90 == 4);
    double ms20[20];
    for (int i = 0; i < 20; i++)
        ms20[i] = 20 - i;
    l = latency_summary(ms20, 20);
    CHECK(l.p90 == 18 && l.median == 10.5);
    double one[1] = {7};
    l = latency_summary(one, 1);
    CHECK(l.min == 7 && l.median == 7 && l.p90 == 7 && l.max == 7);

    float v[4] = {1, 2, 3, NAN};
    cairn_tensor_t t = {CAIRN_F32, 1, {4}, v};
    out_stats_t st;
    tensor_stats(&t, &st);
    CHECK(st.mean == 2 && fabs(st.std - sqrt(2.0 / 3)) < 1e-12 && st.min == 1 && st.max == 3 &&
          st.nonfinite == 1 && st.n_first == 4);
    uint16_t h[2] = {0x3C00, 0xC000}; /* f16 1, -2 */
    cairn_tensor_t th = {CAIRN_F16, 1, {2}, h};
    tensor_stats(&th, &st);
    CHECK(st.mean == -0.5 && st.std == 1.5 && st.min == -2 && st.max == 1);
    cairn_tensor_t te = {CAIRN_F32, 2, {0, 3}, v};
    tensor_stats(&te, &st);
    CHECK(isnan(st.mean) && st.n_first == 0);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cairn_run_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cannot create a temporary directory\n");
        return 1;
    }
    test_usage_errors();
    test_help();
    test_demo();
    test_dims();
    test_json_and_outputs();
    test_input_files();
    test_stats();
    rmdir(tmpdir);
    return check_finish("test_tool_run");
}
