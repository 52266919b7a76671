/* `cairn profile` and `cairn run --profile` end to end on the demo model,
 * in-process (the tool's sources are compiled in, as test_tool_run does):
 * the JSON report parses, the trace holds one slice per step per run, the
 * HTML page has the SVG and the table, and usage errors exit 2. */
#define _POSIX_C_SOURCE 200809L
#include "../../tools/cairn/cmd_run.c"
#include "../../tools/cairn/demo.c"
#include "../../tools/cairn/cmd_profile.c"
#include "check.h"
#include "json_check.h"

#include <unistd.h>

static char out_buf[1 << 18], err_buf[1 << 14];

static char *read_path(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = 0;
    fclose(f);
    return b;
}

static void grab(FILE *f, char *buf, size_t cap)
{
    fflush(f);
    rewind(f);
    size_t got = fread(buf, 1, cap - 1, f);
    buf[got] = 0;
    fclose(f);
}

static int cli(int argc, char **argv)
{
    FILE *o = tmpfile(), *e = tmpfile();
    int rc = strcmp(argv[0], "run") ? profile_cli(argc, argv, o, e) : run_cli(argc, argv, o, e);
    grab(o, out_buf, sizeof out_buf);
    grab(e, err_buf, sizeof err_buf);
    return rc;
}

int main(void)
{
    char trace[64], html[64];
    snprintf(trace, sizeof trace, "/tmp/cairn_prof_%d.json", (int)getpid());
    snprintf(html, sizeof html, "/tmp/cairn_prof_%d.html", (int)getpid());

    char *a1[] = {"profile", "demo", "--dim", "seq=8", "--iters", "3", "--warmup", "1",
                  "--threads", "2", "--json", "--trace", trace, "--html", html};
    CHECK_MSG(cli(15, a1) == 0, "%s", err_buf);
    CHECK(json_valid(out_buf));
    int steps = count_str(out_buf, "\"kernel\":");
    CHECK_MSG(steps >= 9, "%d steps", steps); /* 2 LayerNorm, 6 GEMM, attention */
    /* the compiler fuses the MLP's first GEMM with its bias and GELU: the
     * step names every model node it covers */
    CHECK(strstr(out_buf, "\"nodes\":\"layer0/mlp/fc1/MatMul, layer0/mlp/fc1/Add, layer0/mlp/Gelu\""));
    char *t = read_path(trace);
    CHECK(t && json_valid(t));
    CHECK_MSG(t && count_str(t, "\"cat\":\"step\"") == 3 * steps, "%d slices for %d steps",
              t ? count_str(t, "\"cat\":\"step\"") : -1, steps);
    free(t);
    char *h = read_path(html);
    CHECK(h && strstr(h, "<svg") && strstr(h, "<table id=\"steps\"") && strstr(h, "</html>"));
    free(h);
    remove(trace);
    remove(html);

    /* text: the table, the rollup, threads and advice; the roofs' source
     * (the calibrated machine file) is named */
    char *a2[] = {"profile", "demo", "--dim", "seq=4", "--iters", "2", "--warmup", "0",
                  "--threads", "1"};
    CHECK(cli(10, a2) == 0);
    CHECK(strstr(out_buf, "per op type") && strstr(out_buf, "per thread") &&
          strstr(out_buf, "advice") && strstr(out_buf, "FusedAttention") &&
          strstr(out_buf, "attention ")); /* the attention chain is one step, its kernel named */
    CHECK(strstr(out_buf, "calibrated, 1 thread"));

    /* cairn run --profile delegates, CSV has one row per step */
    char *a3[] = {"run", "demo", "--profile", "--dim", "seq=4", "--iters", "1", "--warmup",
                  "0", "--csv"};
    CHECK_MSG(cli(10, a3) == 0, "%s", err_buf);
    CHECK(!strncmp(out_buf, "step,name,op,", 13) && count_str(out_buf, "\n") == 1 + steps);

    /* usage errors */
    char *b1[] = {"profile", "demo", "--iters", "0"};
    CHECK(cli(4, b1) == 2 && strstr(err_buf, "--iters"));
    char *b2[] = {"profile", "demo", "--dim", "nope=3", "--iters", "1"};
    CHECK(cli(6, b2) == 2 && strstr(err_buf, "nope"));
    char *b3[] = {"profile"};
    CHECK(cli(1, b3) == 2 && strstr(err_buf, "missing MODEL"));
    char *b4[] = {"profile", "demo", "--json", "--csv"};
    CHECK(cli(4, b4) == 2 && strstr(err_buf, "choose one"));
    char *b5[] = {"profile", "nosuch.model"};
    CHECK(cli(2, b5) == 2 && strstr(err_buf, "nosuch.model"));
    char *b6[] = {"profile", "demo", "--dim", "seq=4", "--iters", "1", "--trace",
                  "/nonexistent-dir/x.json"};
    CHECK(cli(8, b6) == 1 && strstr(err_buf, "cannot write"));
    char *h1[] = {"profile", "--help"};
    CHECK(cli(2, h1) == 0 && strstr(out_buf, "--trace FILE"));
    return check_finish("test_profile_tool");
}
