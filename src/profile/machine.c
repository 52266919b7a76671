/*
 * The machine file: path, writer and a small tolerant JSON reader (see
 * machine.h for the format).
 */
#define _POSIX_C_SOURCE 200809L
#include "profile/machine.h"

#include "base/status.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MACHINE_MAX_FILE (1 << 20)
#define MACHINE_MAX_DEPTH 64

cairn_status_t machine_file_path(char *buf, size_t cap)
{
    const char *env = getenv("CAIRN_MACHINE_FILE");
    int n;
    if (env && env[0]) {
        n = snprintf(buf, cap, "%s", env);
    } else {
        const char *home = getenv("HOME");
        if (!home || !home[0])
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "no place for the machine file: neither CAIRN_MACHINE_FILE nor HOME "
                              "is set; set CAIRN_MACHINE_FILE to a path");
        n = snprintf(buf, cap, "%s/.cache/cairn/machine.json", home);
    }
    if (n < 0 || (size_t)n >= cap)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "the machine file's path is %d characters long, more than the %zu "
                          "allowed; set CAIRN_MACHINE_FILE to a shorter path",
                          n, cap - 1);
    return CAIRN_OK;
}

/* ---- writing ------------------------------------------------------------- */

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void put_rate(FILE *f, const char *key, double v, int last)
{
    fprintf(f, "\"%s\": ", key);
    if (v > 0 && isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
    fputs(last ? "" : ", ", f);
}

void machine_print_json(FILE *f, const machine_info_t *m)
{
    fprintf(f, "{\n  \"format\": \"%s\",\n  \"cpu\": ", MACHINE_FORMAT);
    put_string(f, m->cpu);
    fputs(",\n  \"isa\": ", f);
    put_string(f, m->isa);
    fputs(",\n  \"features\": ", f);
    put_string(f, m->features);
    fputs(",\n  \"date\": ", f);
    put_string(f, m->date);
    fputs(",\n  \"peaks\": [", f);
    for (int i = 0; i < m->n_rows; i++) {
        const machine_peaks_t *r = &m->rows[i];
        fprintf(f, "%s\n    {\"threads\": %d, ", i ? "," : "", r->threads);
        put_rate(f, "f32_gflops", r->f32_gflops, 0);
        put_rate(f, "f32_ymm_gflops", r->f32_ymm_gflops, 0);
        put_rate(f, "bf16_gflops", r->bf16_gflops, 0);
        put_rate(f, "s8_gops", r->s8_gops, 0);
        put_rate(f, "copy_gbs", r->copy_gbs, 0);
        put_rate(f, "triad_gbs", r->triad_gbs, 1);
        fputc('}', f);
    }
    fputs(m->n_rows ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* mkdir -p of the directory part of path */
static cairn_status_t make_parent_dirs(const char *path)
{
    char dir[4096];
    int n = snprintf(dir, sizeof dir, "%s", path);
    if (n < 0 || (size_t)n >= sizeof dir)
        return base_error(CAIRN_ERR_IO, "machine file path too long (%d characters)", n);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return CAIRN_OK;
    *slash = 0;
    for (char *p = dir + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char save = *p;
            *p = 0;
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return base_error(CAIRN_ERR_IO, "cannot create directory '%s': %s", dir,
                                  strerror(errno));
            *p = save;
            if (!save)
                break;
        }
    }
    return CAIRN_OK;
}

cairn_status_t machine_write(const char *path, const machine_info_t *m)
{
    cairn_status_t s = make_parent_dirs(path);
    if (s != CAIRN_OK)
        return s;
    char tmp[4200];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp)
        return base_error(CAIRN_ERR_IO, "machine file path too long: '%s'", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return base_error(CAIRN_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
    machine_print_json(f, m);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        int e = errno;
        remove(tmp);
        return base_error(CAIRN_ERR_IO, "cannot write '%s': %s", tmp, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return base_error(CAIRN_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
    }
    return CAIRN_OK;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct jp {
    const char *s;
    size_t n, i;
    int depth;
} jp_t;

static cairn_status_t jp_fail(const jp_t *p, const char *what)
{
    /* line and column make a hand-edited file easy to fix */
    size_t line = 1, col = 1;
    for (size_t k = 0; k < p->i && k < p->n; k++) {
        if (p->s[k] == '\n')
            line++, col = 1;
        else
            col++;
    }
    return base_error(CAIRN_ERR_PARSE, "machine file: %s at line %zu, column %zu", what, line, col);
}

static void jp_ws(jp_t *p)
{
    while (p->i < p->n &&
           (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static int jp_peek(jp_t *p)
{
    jp_ws(p);
    return p->i < p->n ? (unsigned char)p->s[p->i] : -1;
}

static int jp_lit(jp_t *p, const char *lit)
{
    size_t L = strlen(lit);
    if (p->n - p->i >= L && !memcmp(p->s + p->i, lit, L)) {
        p->i += L;
        return 1;
    }
    return 0;
}

/* A string into out (truncated to cap-1 bytes; out may be NULL to skip). */
static cairn_status_t jp_string(jp_t *p, char *out, size_t cap)
{
    if (jp_peek(p) != '"')
        return jp_fail(p, "expected a string");
    p->i++;
    size_t o = 0;
    for (;;) {
        if (p->i >= p->n)
            return jp_fail(p, "unterminated string");
        unsigned char ch = (unsigned char)p->s[p->i++];
        unsigned code = ch;
        if (ch == '"')
            break;
        if (ch < 0x20)
            return jp_fail(p, "control character in a string");
        if (ch == '\\') {
            if (p->i >= p->n)
                return jp_fail(p, "unterminated string");
            char e = p->s[p->i++];
            switch (e) {
            case '"':
            case '\\':
            case '/': code = (unsigned char)e; break;
            case 'b': code = '\b'; break;
            case 'f': code = '\f'; break;
            case 'n': code = '\n'; break;
            case 'r': code = '\r'; break;
            case 't': code = '\t'; break;
            case 'u': {
                code = 0;
                for (int k = 0; k < 4; k++, p->i++) {
                    char h = p->i < p->n ? p->s[p->i] : 0;
                    int v = h >= '0' && h <= '9'   ? h - '0'
                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                   : -1;
                    if (v < 0)
                        return jp_fail(p, "bad \\u escape");
                    code = code * 16 + (unsigned)v;
                }
                if (code >= 0x80)
                    code = '?'; /* names here are ASCII; keep the reader small */
                break;
            }
            default: return jp_fail(p, "bad escape in a string");
            }
        }
        if (out && o + 1 < cap)
            out[o++] = (char)code;
    }
    if (out && cap)
        out[o] = 0;
    return CAIRN_OK;
}

/* A number, or null (returns 0 in *v and sets *is_null). */
static cairn_status_t jp_number(jp_t *p, double *v, int *is_null)
{
    *is_null = 0;
    int c = jp_peek(p);
    if (c == 'n') {
        if (!jp_lit(p, "null"))
            return jp_fail(p, "expected a number or null");
        *v = 0;
        *is_null = 1;
        return CAIRN_OK;
    }
    char buf[64];
    size_t k = 0;
    while (p->i < p->n && k + 1 < sizeof buf && strchr("+-0123456789.eE", p->s[p->i]))
        buf[k++] = p->s[p->i++];
    buf[k] = 0;
    char *end = NULL;
    double d = k ? strtod(buf, &end) : 0;
    if (!k || !end || *end || (buf[0] != '-' && (buf[0] < '0' || buf[0] > '9')) || !isfinite(d))
        return jp_fail(p, "expected a number or null");
    *v = d;
    return CAIRN_OK;
}

static cairn_status_t jp_skip(jp_t *p);

static cairn_status_t jp_skip_container(jp_t *p, char open, char close)
{
    if (++p->depth > MACHINE_MAX_DEPTH)
        return jp_fail(p, "nested too deeply");
    p->i++; /* the open bracket */
    if (jp_peek(p) == close) {
        p->i++;
        p->depth--;
        return CAIRN_OK;
    }
    for (;;) {
        cairn_status_t s;
        if (open == '{') {
            if ((s = jp_string(p, NULL, 0)) != CAIRN_OK)
                return s;
            if (jp_peek(p) != ':')
                return jp_fail(p, "expected ':'");
            p->i++;
        }
        if ((s = jp_skip(p)) != CAIRN_OK)
            return s;
        int c = jp_peek(p);
        p->i++;
        if (c == close)
            break;
        if (c != ',') {
            p->i--;
            return jp_fail(p, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    p->depth--;
    return CAIRN_OK;
}

static cairn_status_t jp_skip(jp_t *p)
{
    int c = jp_peek(p);
    double d;
    int nul;
    if (c == '{')
        return jp_skip_container(p, '{', '}');
    if (c == '[')
        return jp_skip_container(p, '[', ']');
    if (c == '"')
        return jp_string(p, NULL, 0);
    if (c == 't' && jp_lit(p, "true"))
        return CAIRN_OK;
    if (c == 'f' && jp_lit(p, "false"))
        return CAIRN_OK;
    return jp_number(p, &d, &nul);
}

/* Iterates over an object's members: calls member(p, key, ctx) with p at
 * the value, which member must consume. */
typedef cairn_status_t (*jp_member_fn)(jp_t *p, const char *key, void *ctx);

static cairn_status_t jp_object(jp_t *p, jp_member_fn member, void *ctx)
{
    if (jp_peek(p) != '{')
        return jp_fail(p, "expected an object '{'");
    p->i++;
    if (jp_peek(p) == '}') {
        p->i++;
        return CAIRN_OK;
    }
    for (;;) {
        char key[64];
        cairn_status_t s = jp_string(p, key, sizeof key);
        if (s != CAIRN_OK)
            return s;
        if (jp_peek(p) != ':')
            return jp_fail(p, "expected ':' after a key");
        p->i++;
        if ((s = member(p, key, ctx)) != CAIRN_OK)
            return s;
        int c = jp_peek(p);
        if (c == '}') {
            p->i++;
            return CAIRN_OK;
        }
        if (c != ',')
            return jp_fail(p, "expected ',' or '}'");
        p->i++;
    }
}

typedef struct row_ctx {
    machine_peaks_t r;
    int have_threads;
} row_ctx_t;

static cairn_status_t row_member(jp_t *p, const char *key, void *ctx)
{
    row_ctx_t *rc = ctx;
    static const struct {
        const char *key;
        size_t off;
    } rates[] = {
        {"f32_gflops", offsetof(machine_peaks_t, f32_gflops)},
        {"f32_ymm_gflops", offsetof(machine_peaks_t, f32_ymm_gflops)},
        {"bf16_gflops", offsetof(machine_peaks_t, bf16_gflops)},
        {"s8_gops", offsetof(machine_peaks_t, s8_gops)},
        {"copy_gbs", offsetof(machine_peaks_t, copy_gbs)},
        {"triad_gbs", offsetof(machine_peaks_t, triad_gbs)},
    };
    double v;
    int nul;
    if (!strcmp(key, "threads")) {
        size_t at = p->i;
        cairn_status_t s = jp_number(p, &v, &nul);
        if (s != CAIRN_OK)
            return s;
        if (nul || v < 1 || v > 65536 || v != floor(v)) {
            p->i = at;
            return jp_fail(p, "\"threads\" must be a whole number from 1 to 65536");
        }
        rc->r.threads = (int)v;
        rc->have_threads = 1;
        return CAIRN_OK;
    }
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; k++)
        if (!strcmp(key, rates[k].key)) {
            size_t at = p->i;
            cairn_status_t s = jp_number(p, &v, &nul);
            if (s != CAIRN_OK)
                return s;
            if (v < 0) {
                p->i = at;
                return jp_fail(p, "a rate must not be negative");
            }
            *(double *)((char *)&rc->r + rates[k].off) = v;
            return CAIRN_OK;
        }
    return jp_skip(p); /* a key from a later version: ignore it */
}

static cairn_status_t top_member(jp_t *p, const char *key, void *ctx)
{
    machine_info_t *m = ctx;
    if (!strcmp(key, "format")) {
        char fmt[64];
        size_t at = p->i;
        cairn_status_t s = jp_string(p, fmt, sizeof fmt);
        if (s != CAIRN_OK)
            return s;
        if (strcmp(fmt, MACHINE_FORMAT)) {
            p->i = at;
            return jp_fail(p, "unknown format (want \"" MACHINE_FORMAT "\"; run 'cairn "
                              "calibrate' to rewrite the file)");
        }
        return CAIRN_OK;
    }
    if (!strcmp(key, "cpu"))
        return jp_string(p, m->cpu, sizeof m->cpu);
    if (!strcmp(key, "isa"))
        return jp_string(p, m->isa, sizeof m->isa);
    if (!strcmp(key, "features"))
        return jp_string(p, m->features, sizeof m->features);
    if (!strcmp(key, "date"))
        return jp_string(p, m->date, sizeof m->date);
    if (!strcmp(key, "peaks")) {
        if (jp_peek(p) != '[')
            return jp_fail(p, "\"peaks\" must be an array");
        p->i++;
        if (jp_peek(p) == ']') {
            p->i++;
            return CAIRN_OK;
        }
        for (;;) {
            row_ctx_t rc;
            memset(&rc, 0, sizeof rc);
            size_t at = p->i;
            cairn_status_t s = jp_object(p, row_member, &rc);
            if (s != CAIRN_OK)
                return s;
            if (!rc.have_threads) {
                p->i = at;
                return jp_fail(p, "a row of \"peaks\" has no \"threads\"");
            }
            if (machine_set(m, &rc.r) != CAIRN_OK) {
                p->i = at;
                return jp_fail(p, "too many rows in \"peaks\"");
            }
            int c = jp_peek(p);
            p->i++;
            if (c == ']')
                return CAIRN_OK;
            if (c != ',') {
                p->i--;
                return jp_fail(p, "expected ',' or ']'");
            }
        }
    }
    return jp_skip(p);
}

cairn_status_t machine_parse(const char *text, size_t len, machine_info_t *m)
{
    memset(m, 0, sizeof *m);
    jp_t p = {text, len, 0, 0};
    cairn_status_t s = jp_object(&p, top_member, m);
    if (s != CAIRN_OK)
        return s;
    if (jp_peek(&p) != -1)
        return jp_fail(&p, "unexpected text after the object");
    return CAIRN_OK;
}

cairn_status_t machine_read(const char *path, machine_info_t *m)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f)
        return base_error(CAIRN_ERR_IO, "cannot read machine file '%s': %s", path, strerror(errno));
    char *buf = malloc(MACHINE_MAX_FILE);
    if (!buf) {
        fclose(f);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "no memory to read '%s'", path);
    }
    size_t n = fread(buf, 1, MACHINE_MAX_FILE, f);
    int err = ferror(f), more = !err && n == MACHINE_MAX_FILE && fgetc(f) != EOF;
    fclose(f);
    cairn_status_t s;
    if (err)
        s = base_error(CAIRN_ERR_IO, "cannot read machine file '%s'", path);
    else if (more)
        s = base_error(CAIRN_ERR_PARSE,
                       "machine file '%s' is larger than %d bytes: not a "
                       "machine file",
                       path, MACHINE_MAX_FILE);
    else if ((s = machine_parse(buf, n, m)) != CAIRN_OK)
        base_error_prefix(s, "%s: ", path);
    free(buf);
    return s;
}

const machine_peaks_t *machine_find(const machine_info_t *m, int threads)
{
    for (int i = 0; i < m->n_rows; i++)
        if (m->rows[i].threads == threads)
            return &m->rows[i];
    return NULL;
}

cairn_status_t machine_set(machine_info_t *m, const machine_peaks_t *r)
{
    int i = 0;
    while (i < m->n_rows && m->rows[i].threads < r->threads)
        i++;
    if (i < m->n_rows && m->rows[i].threads == r->threads) {
        m->rows[i] = *r;
        return CAIRN_OK;
    }
    if (m->n_rows == MACHINE_MAX_ROWS)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "the machine file holds at most %d thread counts", MACHINE_MAX_ROWS);
    memmove(&m->rows[i + 1], &m->rows[i], (size_t)(m->n_rows - i) * sizeof m->rows[0]);
    m->rows[i] = *r;
    m->n_rows++;
    return CAIRN_OK;
}
