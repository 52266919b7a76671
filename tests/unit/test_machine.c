/* The machine file (profile/machine.h): writing and reading back, the
 * tolerant reader (unknown keys, nulls, whitespace, escapes), rejected
 * inputs with their messages, the row table and the path rules. */
#define _POSIX_C_SOURCE 200809L
#include "profile/machine.h"

#include "check.h"

#include <errno.h>
#include <unistd.h>

static machine_info_t sample(void)
{
    machine_info_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.cpu, sizeof m.cpu, "Test \"CPU\" \\ 9000");
    snprintf(m.isa, sizeof m.isa, "avx512");
    snprintf(m.features, sizeof m.features, "avx2 fma avx512f");
    snprintf(m.date, sizeof m.date, "2025-01-02T03:04:05Z");
    machine_peaks_t r2 = {2, 200.5, 100.25, 0, 800, 25.5, 27.75};
    machine_peaks_t r1 = {1, 100.5, 50.25, 0, 400, 20.5, 21.75};
    CHECK_OK(machine_set(&m, &r2));
    CHECK_OK(machine_set(&m, &r1));
    return m;
}

static void test_round_trip(const char *dir)
{
    machine_info_t m = sample();
    CHECK(m.n_rows == 2 && m.rows[0].threads == 1 && m.rows[1].threads == 2);
    char path[512];
    /* the directories do not exist yet: the writer creates them */
    snprintf(path, sizeof path, "%s/a/b/machine.json", dir);
    CHECK_OK(machine_write(path, &m));
    machine_info_t back;
    CHECK_OK(machine_read(path, &back));
    CHECK(!strcmp(back.cpu, m.cpu));
    CHECK(!strcmp(back.isa, "avx512") && !strcmp(back.features, m.features));
    CHECK(!strcmp(back.date, m.date));
    CHECK(back.n_rows == 2);
    const machine_peaks_t *r = machine_find(&back, 2);
    CHECK(r && r->f32_gflops == 200.5 && r->f32_ymm_gflops == 100.25 && r->s8_gops == 800);
    CHECK(r && r->bf16_gflops == 0); /* written as null, read back as unknown */
    CHECK(r && r->copy_gbs == 25.5 && r->triad_gbs == 27.75);
    CHECK(machine_find(&back, 3) == NULL);
    /* rewriting replaces the file */
    m.rows[0].f32_gflops = 1.5;
    CHECK_OK(machine_write(path, &m));
    CHECK_OK(machine_read(path, &back));
    CHECK(machine_find(&back, 1)->f32_gflops == 1.5);
    remove(path);
}

static void test_tolerant(void)
{
    const char *text = "\n{ \"future_key\": {\"x\": [1, 2.5e3, true, false, null, \"s\"]},\n"
                       "  \"cpu\": \"A\\u0042C\\n\", \"format\": \"cairn-machine-1\",\n"
                       "  \"peaks\": [ {\"threads\": 4, \"f32_gflops\": 1e2, \"new\": [],"
                       " \"copy_gbs\": null},\n {\"threads\": 1} ] }  \n";
    machine_info_t m;
    CHECK_OK(machine_parse(text, strlen(text), &m));
    CHECK(!strcmp(m.cpu, "ABC\n"));
    CHECK(m.n_rows == 2 && m.rows[0].threads == 1 && m.rows[1].threads == 4);
    CHECK(m.rows[1].f32_gflops == 100 && m.rows[1].copy_gbs == 0);
    /* a duplicate thread count: the later row wins */
    const char *dup = "{\"peaks\": [{\"threads\": 2, \"f32_gflops\": 1},"
                      " {\"threads\": 2, \"f32_gflops\": 3}]}";
    CHECK_OK(machine_parse(dup, strlen(dup), &m));
    CHECK(m.n_rows == 1 && m.rows[0].f32_gflops == 3);
    /* empty object and empty peaks are fine */
    CHECK_OK(machine_parse("{}", 2, &m));
    CHECK(m.n_rows == 0);
    CHECK_OK(machine_parse("{\"peaks\": []}", 13, &m));
    /* the length bounds the text: no NUL needed, trailing bytes ignored */
    CHECK_OK(machine_parse("{}garbage", 2, &m));
}

static void test_rejected(void)
{
    machine_info_t m;
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"", "expected an object"},
        {"[1]", "expected an object"},
        {"{\"cpu\": 3}", "expected a string"},
        {"{\"cpu\": \"x\"", "expected ','"},
        {"{\"cpu\": \"x}", "unterminated string"},
        {"{\"peaks\": [{\"f32_gflops\": 1}]}", "no \"threads\""},
        {"{\"peaks\": [{\"threads\": 0}]}", "whole number from 1"},
        {"{\"peaks\": [{\"threads\": 1.5}]}", "whole number from 1"},
        {"{\"peaks\": [{\"threads\": 1, \"f32_gflops\": -2}]}", "must not be negative"},
        {"{\"peaks\": [{\"threads\": 1, \"f32_gflops\": \"fast\"}]}", "expected a number"},
        {"{\"peaks\": {}}", "must be an array"},
        {"{\"format\": \"cairn-machine-0\"}", "unknown format"},
        {"{} {}", "unexpected text after"},
        {"{\"a\": tru}", "expected a number"},
        {"{\"a\": \"\\q\"}", "bad escape"},
        {"{\"a\" 1}", "expected ':'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_FAILS(machine_parse(bad[i].text, strlen(bad[i].text), &m), CAIRN_ERR_PARSE,
                    bad[i].needle);
    /* line and column point at the problem */
    const char *two = "{\n  \"cpu\": 7}";
    CHECK_FAILS(machine_parse(two, strlen(two), &m), CAIRN_ERR_PARSE, "line 2, column 10");
    /* deep nesting is refused, not recursed into without bound */
    char deep[400];
    size_t n = 0;
    n += (size_t)snprintf(deep, sizeof deep, "{\"x\": ");
    for (int i = 0; i < 100; i++)
        deep[n++] = '[';
    deep[n] = 0;
    CHECK_FAILS(machine_parse(deep, n, &m), CAIRN_ERR_PARSE, "nested too deeply");
    /* more rows than the table holds */
    char many[2048];
    n = (size_t)snprintf(many, sizeof many, "{\"peaks\": [");
    for (int i = 1; i <= MACHINE_MAX_ROWS + 1; i++)
        n +=
            (size_t)snprintf(many + n, sizeof many - n, "%s{\"threads\": %d}", i > 1 ? "," : "", i);
    n += (size_t)snprintf(many + n, sizeof many - n, "]}");
    CHECK_FAILS(machine_parse(many, n, &m), CAIRN_ERR_PARSE, "too many rows");
}

static void test_files(const char *dir)
{
    machine_info_t m;
    char path[512];
    snprintf(path, sizeof path, "%s/missing.json", dir);
    cairn_status_t s = machine_read(path, &m);
    CHECK(s == CAIRN_ERR_IO && errno == ENOENT);
    CHECK(strstr(cairn_last_error(), "missing.json") != NULL);
    snprintf(path, sizeof path, "%s/bad.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"cpu\": }", f);
        fclose(f);
    }
    CHECK_FAILS(machine_read(path, &m), CAIRN_ERR_PARSE, "bad.json");
    remove(path);
    /* a directory where the file's parent should be */
    snprintf(path, sizeof path, "%s/plainfile", dir);
    f = fopen(path, "w");
    if (f)
        fclose(f);
    char under[600];
    snprintf(under, sizeof under, "%s/x.json", path);
    machine_info_t w = sample();
    CHECK_FAILS(machine_write(under, &w), CAIRN_ERR_IO, NULL);
    remove(path);
}

static void test_path(void)
{
    char buf[256];
    setenv("CAIRN_MACHINE_FILE", "/tmp/somewhere/m.json", 1);
    CHECK_OK(machine_file_path(buf, sizeof buf));
    CHECK(!strcmp(buf, "/tmp/somewhere/m.json"));
    CHECK_FAILS(machine_file_path(buf, 8), CAIRN_ERR_INVALID_ARGUMENT, "CAIRN_MACHINE_FILE");
    setenv("CAIRN_MACHINE_FILE", "", 1);
    setenv("HOME", "/home/u", 1);
    CHECK_OK(machine_file_path(buf, sizeof buf));
    CHECK(!strcmp(buf, "/home/u/.cache/cairn/machine.json"));
    unsetenv("CAIRN_MACHINE_FILE");
    unsetenv("HOME");
    CHECK_FAILS(machine_file_path(buf, sizeof buf), CAIRN_ERR_INVALID_ARGUMENT, "HOME");
}

static void test_table(void)
{
    machine_info_t m;
    memset(&m, 0, sizeof m);
    for (int t = MACHINE_MAX_ROWS; t >= 1; t--) {
        machine_peaks_t r = {t, t * 10.0, 0, 0, 0, 0, 0};
        CHECK_OK(machine_set(&m, &r));
    }
    CHECK(m.n_rows == MACHINE_MAX_ROWS);
    for (int i = 0; i < m.n_rows; i++)
        CHECK(m.rows[i].threads == i + 1 && m.rows[i].f32_gflops == (i + 1) * 10.0);
    machine_peaks_t extra = {99, 1, 0, 0, 0, 0, 0};
    CHECK_FAILS(machine_set(&m, &extra), CAIRN_ERR_INVALID_ARGUMENT, "at most");
    machine_peaks_t again = {5, 7, 0, 0, 0, 0, 0};
    CHECK_OK(machine_set(&m, &again)); /* replacing needs no room */
    CHECK(machine_find(&m, 5)->f32_gflops == 7);
}

int main(void)
{
    char dir[] = "/tmp/cairn_machine_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_round_trip(dir);
    test_tolerant();
    test_rejected();
    test_files(dir);
    test_path();
    test_table();
    char sub[600];
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/a", dir);
    rmdir(sub);
    rmdir(dir);
    return check_finish("test_machine");
}
