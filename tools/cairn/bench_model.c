/*
 * cairn bench model: the latency (median, p90) and peak resident memory of
 * one model through cairn and, with --peers, through onnxruntime on the same
 * inputs in the same run.
 *
 * onnxruntime runs in a Python subprocess (the build folder's venv, made by
 * models/venv.sh) that loads the model once and then answers requests on a
 * pipe ("run N" -> N latencies), so cairn and onnxruntime alternate in
 * bursts of about BM_BURST_SECONDS with a pause between them: both see the
 * same machine state, and neither's idle spinning threads slow the other.
 * Both get the same thread count (onnxruntime: intra_op_num_threads = T,
 * inter_op 1, sequential execution, all graph optimisations).
 *
 * Before any number counts the outputs are compared: a broken run cannot
 * report a fake number. Memory: cairn's peak is the VmHWM of a child process
 * forked before anything is loaded that only loads, plans and runs the
 * model; onnxruntime's is the VmHWM of its Python process, which includes
 * the interpreter, numpy and onnxruntime's own libraries (reported apart as
 * "before loading" so a reader can subtract it).
 *
 * Exit codes: 0 ok; 1 a failure (the model does not load or run, the outputs
 * disagree, the peer fails); 2 a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/clock.h"
#include "base/dtype.h"
#include "base/status.h"
#include "cmd.h"
#include "model.h"
#include "runtime/session_internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { BM_OK = 0, BM_FAIL = 1, BM_USAGE = 2 };

#define BM_MAX_DIMS 16
#define BM_MAX_IO 64
#define BM_MAX_ITERS 100000
#define BM_BURST_SECONDS 0.25
/* 500 ms between bursts (and after the warm-up): onnxruntime's idle intra-op
 * threads spin for longer than 100 ms, and at 2 threads on 2 CPUs they took
 * half of cairn's next burst */
#define BM_SETTLE_NS 500000000L
/* outputs agree when max|cairn - ort| <= BM_AGREE * max|ort| (f32 over a
 * whole model: summation orders differ, so not the unit tests' 1e-4);
 * --tol changes it. A dynamically quantised model (DynamicQuantizeLinear
 * before each MatMulInteger) needs ~1e-2: an activation that rounds one
 * ulp apart in an upstream float op can land in the next 8-bit step, and
 * onnxruntime's own optimised and unoptimised graphs differ by 7.5e-3 on
 * the MiniLM encoder quantised by its quantize_dynamic. */
#define BM_AGREE 1e-3

typedef struct bm_dim {
    char name[64];
    int64_t value;
} bm_dim_t;

typedef struct bm_opts {
    const char *model, *python;
    bm_dim_t dims[BM_MAX_DIMS];
    int n_dims, threads, iters, warmup, peers, json;
    uint64_t seed;
    double tol; /* the outputs' largest accepted relative difference */
} bm_opts_t;

static void bm_usage(FILE *f)
{
    fprintf(f,
            "usage: cairn bench model MODEL.onnx [options]\n"
            "\n"
            "Times MODEL through cairn and, with --peers, through onnxruntime on the same\n"
            "inputs, alternating between them in bursts in the same run; reports the median\n"
            "and p90 latency, the ratio cairn/onnxruntime (medians) and each one's peak\n"
            "resident memory, after checking that both compute the same outputs.\n"
            "\n"
            "options:\n"
            "  --threads T     threads for cairn and onnxruntime's intra-op pool (default 1)\n"
            "  --peers         also run onnxruntime (Python, from the build folder's venv:\n"
            "                  make venv, or sh models/venv.sh build/venv)\n"
            "  --python PATH   the Python with onnxruntime (default: $CAIRN_PYTHON, else\n"
            "                  venv/bin/python beside the cairn executable)\n"
            "  --iters N       timed runs of each (default 20)\n"
            "  --warmup N      untimed runs of each first (default 3)\n"
            "  --dim NAME=V    bind a symbolic input dimension (repeatable)\n"
            "  --seed S        seed of the random inputs (default 1)\n"
            "  --tol R         accept outputs within max |cairn - ort| <= R max |ort|\n"
            "                  (default 1e-3; ~1e-2 for dynamically quantised models)\n"
            "  --json          print one JSON object: {\"results\": [{\"impl\", \"median_ms\",\n"
            "                  \"p90_ms\", \"peak_rss_mb\", ...}], \"ratio_vs_onnxruntime\", ...}\n"
            "  -h, --help      show this help\n"
            "\n"
            "Inputs: floats uniform in [-1, 1); integer inputs whose name contains 'mask'\n"
            "all ones; other integers in [0, 10). Memory: peak_rss_mb is VmHWM in MB (10^6\n"
            "bytes): cairn's of a child process that only loads, plans and runs the model;\n"
            "onnxruntime's of its Python process, interpreter and libraries included\n"
            "(rss_before_load_mb says how much of it was there before the model).\n"
            "Exit status: 0 ok, 1 a failure (model, peer, or outputs that disagree),\n"
            "2 a usage error.\n");
}

static int bm_parse_int(const char *flag, const char *v, long long lo, long long hi,
                        long long *out)
{
    char *end = NULL;
    errno = 0;
    long long x = v && *v ? strtoll(v, &end, 10) : 0;
    if (!v || !*v || *end || errno) {
        fprintf(stderr, "cairn bench model: %s: '%s' is not a whole number\n", flag, v ? v : "");
        return 0;
    }
    if (x < lo || x > hi) {
        fprintf(stderr, "cairn bench model: %s: %lld is out of range (%lld to %lld)\n", flag, x,
                lo, hi);
        return 0;
    }
    *out = x;
    return 1;
}

static int bm_parse(int argc, char **argv, bm_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 1;
    o->iters = 20;
    o->warmup = 3;
    o->seed = 1;
    o->tol = BM_AGREE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long v = 0;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            bm_usage(stdout);
            return -1;
        }
        if (!strcmp(a, "--peers")) {
            o->peers = 1;
            continue;
        }
        if (!strcmp(a, "--json")) {
            o->json = 1;
            continue;
        }
        if (a[0] == '-' && a[1] == '-') {
            static const char *const with_value[] = {"--threads", "--iters",  "--warmup", "--dim",
                                                     "--seed",    "--python", "--tol"};
            int known = 0;
            for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
                known |= !strcmp(a, with_value[k]);
            if (!known) {
                fprintf(stderr, "cairn bench model: unknown option '%s' (see --help)\n", a);
                return 0;
            }
            if (i + 1 >= argc) {
                fprintf(stderr, "cairn bench model: %s needs a value\n", a);
                return 0;
            }
            const char *val = argv[++i];
            if (!strcmp(a, "--threads")) {
                if (!bm_parse_int(a, val, 1, 1024, &v))
                    return 0;
                o->threads = (int)v;
            } else if (!strcmp(a, "--iters")) {
                if (!bm_parse_int(a, val, 1, BM_MAX_ITERS, &v))
                    return 0;
                o->iters = (int)v;
            } else if (!strcmp(a, "--warmup")) {
                if (!bm_parse_int(a, val, 0, BM_MAX_ITERS, &v))
                    return 0;
                o->warmup = (int)v;
            } else if (!strcmp(a, "--seed")) {
                if (!bm_parse_int(a, val, 0, INT64_MAX, &v))
                    return 0;
                o->seed = (uint64_t)v;
            } else if (!strcmp(a, "--python")) {
                o->python = val;
            } else if (!strcmp(a, "--tol")) {
                char *end = NULL;
                const double t = strtod(val, &end);
                if (!end || end == val || *end || !(t > 0 && t < 1)) {
                    fprintf(stderr, "cairn bench model: --tol '%s': expected a number in (0, 1), "
                                    "e.g. --tol 1e-2\n", val);
                    return 0;
                }
                o->tol = t;
            } else {
                const char *eq = strchr(val, '=');
                if (!eq || eq == val || (size_t)(eq - val) >= sizeof o->dims[0].name) {
                    fprintf(stderr, "cairn bench model: --dim '%s': expected NAME=VALUE, e.g. "
                                    "--dim seq=128\n", val);
                    return 0;
                }
                if (o->n_dims == BM_MAX_DIMS) {
                    fprintf(stderr, "cairn bench model: more than %d --dim options\n",
                            BM_MAX_DIMS);
                    return 0;
                }
                if (!bm_parse_int("--dim", eq + 1, 1, (long long)1 << 40, &v))
                    return 0;
                bm_dim_t *d = &o->dims[o->n_dims++];
                memcpy(d->name, val, (size_t)(eq - val));
                d->name[eq - val] = 0;
                d->value = v;
            }
            continue;
        }
        if (o->model) {
            fprintf(stderr, "cairn bench model: two models given ('%s' and '%s')\n", o->model, a);
            return 0;
        }
        o->model = a;
    }
    if (!o->model) {
        fprintf(stderr, "cairn bench model: no model given\n\n");
        bm_usage(stderr);
        return 0;
    }
    return 1;
}

/* ---- cairn's side --------------------------------------------------------- */

typedef struct bm_cairn {
    run_model_t m;
    cairn_session_t *s;
    cairn_tensor_t in[BM_MAX_IO], out[BM_MAX_IO];
    const char *in_names[BM_MAX_IO];
    int n_in, n_out;
} bm_cairn_t;

static uint64_t bm_rng(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull; /* splitmix64 */
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void bm_fill(cairn_tensor_t *t, const char *name, uint64_t seed)
{
    int64_t n = cairn_tensor_numel(t);
    int is_mask = strstr(name, "mask") != NULL;
    for (int64_t i = 0; i < n; i++) {
        double u = (double)(bm_rng(&seed) >> 11) * (1.0 / 9007199254740992.0);
        double v = base_dtype_is_float(t->dtype) ? 2.0 * u - 1.0
                   : is_mask || t->dtype == CAIRN_BOOL ? 1.0
                                                       : (double)(int)(u * 10.0);
        base_store_from_double(t->data, t->dtype, i, v);
    }
}

static void bm_cairn_free(bm_cairn_t *c)
{
    for (int i = 0; i < c->n_in; i++)
        free(c->in[i].data);
    cairn_session_destroy(c->s);
    cairn_graph_destroy(c->m.graph);
    memset(c, 0, sizeof *c);
}

/* Loads, plans (via a first run) and makes the inputs; messages go to err. */
static int bm_cairn_setup(const bm_opts_t *o, bm_cairn_t *c, FILE *err)
{
    memset(c, 0, sizeof *c);
    if (load_model(o->model, &c->m) != CAIRN_OK) {
        fprintf(err, "cairn bench model: %s: %s\n", o->model, cairn_last_error());
        return c->m.usage_error ? BM_USAGE : BM_FAIL;
    }
    cairn_session_options_t so = cairn_session_options_default();
    so.threads = o->threads;
    /* the session takes the graph, as a program that only runs the model
     * would: the weights it re-packs are then never held twice */
    cairn_status_t st = cairn_session_create_taking(c->m.graph, &so, NULL, &c->s);
    c->m.graph = NULL;
    if (st != CAIRN_OK) {
        fprintf(err, "cairn bench model: %s: %s\n", o->model, cairn_last_error());
        return BM_FAIL;
    }
    c->n_in = cairn_session_input_count(c->s);
    c->n_out = cairn_session_output_count(c->s);
    if (c->n_in > BM_MAX_IO || c->n_out > BM_MAX_IO) {
        fprintf(err, "cairn bench model: %s has %d inputs and %d outputs; at most %d each\n",
                o->model, c->n_in, c->n_out, BM_MAX_IO);
        return BM_FAIL;
    }
    for (int k = 0; k < o->n_dims; k++) {
        int used = 0;
        for (int i = 0; i < c->n_in; i++) {
            int rank = 0;
            const char *dn[CAIRN_MAX_RANK] = {0};
            cairn_session_input_info(c->s, i, NULL, NULL, &rank, NULL, dn);
            for (int d = 0; d < rank; d++)
                used |= dn[d] && !strcmp(dn[d], o->dims[k].name);
        }
        if (!used) {
            fprintf(err, "cairn bench model: --dim %s: %s has no symbolic input dimension of "
                         "that name\n", o->dims[k].name, o->model);
            return BM_USAGE;
        }
    }
    for (int i = 0; i < c->n_in; i++) {
        const char *dn[CAIRN_MAX_RANK] = {0};
        cairn_tensor_t *t = &c->in[i];
        cairn_session_input_info(c->s, i, &c->in_names[i], &t->dtype, &t->rank, t->shape, dn);
        for (int d = 0; d < t->rank; d++) {
            if (!dn[d])
                continue;
            int found = 0;
            for (int k = 0; k < o->n_dims && !found; k++)
                if (!strcmp(o->dims[k].name, dn[d])) {
                    t->shape[d] = o->dims[k].value;
                    found = 1;
                }
            if (!found && c->m.default_dim && !strcmp(c->m.default_dim, dn[d])) {
                t->shape[d] = c->m.default_value;
                found = 1;
            }
            if (!found) {
                fprintf(err, "cairn bench model: input '%s' dimension %d is the symbolic dim "
                             "'%s': give it a value with --dim %s=N\n",
                        c->in_names[i], d, dn[d], dn[d]);
                return BM_USAGE;
            }
        }
        size_t bytes = cairn_tensor_bytes(t);
        t->data = malloc(bytes ? bytes : 1);
        if (!t->data) {
            fprintf(err, "cairn bench model: cannot allocate %zu bytes for input '%s'\n", bytes,
                    c->in_names[i]);
            return BM_FAIL;
        }
        bm_fill(t, c->in_names[i], o->seed * 1000003u + (uint64_t)i);
    }
    return BM_OK;
}

/* One run; the outputs stay in the session's buffers (c->out). */
static int bm_cairn_run(bm_cairn_t *c, FILE *err)
{
    memset(c->out, 0, sizeof c->out);
    if (cairn_session_run(c->s, c->in, c->n_in, c->out, c->n_out) != CAIRN_OK) {
        fprintf(err, "cairn bench model: run failed: %s\n", cairn_last_error());
        return BM_FAIL;
    }
    return BM_OK;
}

/* VmHWM / VmRSS of this process in kB (0 when /proc is not there). */
static long bm_status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = 0;
    size_t n = strlen(key);
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* The peak resident memory of loading, planning and running the model, in
 * a child forked before the parent has loaded anything: kb[0] VmHWM, kb[1]
 * VmRSS before loading. Returns 0 when the child failed (the parent's own
 * load then says why). */
static int bm_cairn_peak_rss(const bm_opts_t *o, long kb[2])
{
    int fd[2];
    if (pipe(fd))
        return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return 0;
    }
    if (pid == 0) {
        close(fd[0]);
        long r[2] = {0, bm_status_kb("VmRSS")};
        bm_cairn_t c;
        FILE *null = fopen("/dev/null", "w");
        int ok = bm_cairn_setup(o, &c, null ? null : stderr) == BM_OK;
        for (int i = 0; ok && i < 2; i++)
            ok = bm_cairn_run(&c, null ? null : stderr) == BM_OK;
        r[0] = ok ? bm_status_kb("VmHWM") : 0;
        ssize_t w = write(fd[1], r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], kb, 2 * sizeof(long));
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return got == (ssize_t)(2 * sizeof(long)) && kb[0] > 0;
}

/* ---- onnxruntime's side: a Python server on a pipe ------------------------ */

static const char bm_ort_server[] =
    "import os, sys, time\n"
    "def kb(key):\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith(key + ':'):\n"
    "            return int(line.split()[1])\n"
    "    return 0\n"
    "def say(s):\n"
    "    sys.stdout.write(s + '\\n'); sys.stdout.flush()\n"
    "try:\n"
    "    import numpy as np, onnxruntime as ort\n"
    "except Exception as e:\n"
    "    say('err cannot import onnxruntime/numpy (%s): %s' % (sys.executable, e)); sys.exit(1)\n"
    "base = kb('VmRSS')\n"
    "sess, feeds = None, {}\n"
    "DT = {'f32': np.float32, 'f64': np.float64, 'i64': np.int64, 'i32': np.int32,\n"
    "      'i8': np.int8, 'u8': np.uint8, 'i16': np.int16, 'bool': np.bool_, 'f16': np.float16}\n"
    "for line in sys.stdin:\n"
    "    w = line.split()\n"
    "    try:\n"
    "        if w[0] == 'load':\n"
    "            so = ort.SessionOptions()\n"
    "            so.intra_op_num_threads = int(w[2]); so.inter_op_num_threads = 1\n"
    "            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL\n"
    "            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL\n"
    "            sess = ort.InferenceSession(w[1], so, providers=['CPUExecutionProvider'])\n"
    "            say('ok ' + ort.__version__)\n"
    "        elif w[0] == 'input':\n"
    "            shape = [int(d) for d in w[4:]]\n"
    "            feeds[w[1]] = np.fromfile(w[3], DT[w[2]]).reshape(shape)\n"
    "            say('ok')\n"
    "        elif w[0] == 'outputs':\n"
    "            outs = sess.run(None, feeds)\n"
    "            for i, o in enumerate(outs):\n"
    "                np.ascontiguousarray(o, np.float64).tofile(os.path.join(w[1], 'out_%d' % i))\n"
    "            say('ok %d %s' % (len(outs), ' '.join(str(o.size) for o in outs)))\n"
    "        elif w[0] == 'run':\n"
    "            ts = []\n"
    "            for _ in range(int(w[1])):\n"
    "                t0 = time.perf_counter_ns(); sess.run(None, feeds)\n"
    "                ts.append(time.perf_counter_ns() - t0)\n"
    "            say('ok ' + ' '.join(map(str, ts)))\n"
    "        elif w[0] == 'mem':\n"
    "            say('ok %d %d' % (kb('VmHWM'), base))\n"
    "        else:\n"
    "            say('err unknown request ' + w[0])\n"
    "    except Exception as e:\n"
    "        say('err ' + str(e).replace('\\n', ' '))\n";

typedef struct bm_peer {
    pid_t pid;
    FILE *to, *from;
    char version[64];
    char reply[1 << 16];
} bm_peer_t;

/* Sends one request and reads its one-line reply into p->reply (after
 * "ok "). Returns 0 on "ok", else 1 with the error in p->reply. */
static int bm_peer_ask(bm_peer_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bm_peer_ask(bm_peer_t *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->to, fmt, ap);
    va_end(ap);
    fputc('\n', p->to);
    fflush(p->to);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, p->from);
    if (n <= 0) {
        snprintf(p->reply, sizeof p->reply, "the onnxruntime process ended without a reply");
        free(line);
        return 1;
    }
    if (line[n - 1] == '\n')
        line[n - 1] = 0;
    int ok = !strncmp(line, "ok", 2);
    snprintf(p->reply, sizeof p->reply, "%s", line + (ok ? (line[2] ? 3 : 2) : 4));
    free(line);
    return ok ? 0 : 1;
}

static void bm_default_python(char *buf, size_t cap)
{
    const char *env = getenv("CAIRN_PYTHON");
    if (env && *env) {
        snprintf(buf, cap, "%s", env);
        return;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(buf, cap, "venv/bin/python");
        return;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    snprintf(buf, cap, "%.4000s/venv/bin/python", exe);
}

static int bm_peer_start(bm_peer_t *p, const char *python, char *why, size_t cap)
{
    int to[2], from[2];
    memset(p, 0, sizeof *p);
    if (access(python, X_OK)) {
        snprintf(why, cap, "no Python at %.300s (create the venv: make venv, or sh models/venv.sh "
                           "build/venv; or give --python)", python);
        return 1;
    }
    if (pipe(to))
        return snprintf(why, cap, "pipe: %.300s", strerror(errno)), 1;
    if (pipe(from)) {
        close(to[0]);
        close(to[1]);
        return snprintf(why, cap, "pipe: %.300s", strerror(errno)), 1;
    }
    fflush(NULL);
    p->pid = fork();
    if (p->pid < 0) {
        snprintf(why, cap, "fork: %.300s", strerror(errno));
        return 1;
    }
    if (p->pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
        execl(python, python, "-u", "-c", bm_ort_server, (char *)NULL);
        printf("err cannot run %s: %s\n", python, strerror(errno));
        fflush(stdout);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    p->to = fdopen(to[1], "w");
    p->from = fdopen(from[0], "r");
    if (!p->to || !p->from) {
        snprintf(why, cap, "fdopen: %.300s", strerror(errno));
        return 1;
    }
    return 0;
}

static void bm_peer_stop(bm_peer_t *p)
{
    if (p->pid <= 0)
        return;
    if (p->to)
        fclose(p->to); /* EOF ends the server's loop */
    if (p->from)
        fclose(p->from);
    int st;
    waitpid(p->pid, &st, 0);
    p->pid = 0;
}

static const char *bm_np_dtype(cairn_dtype_t t)
{
    switch (t) {
    case CAIRN_F32: return "f32";
    case CAIRN_F64: return "f64";
    case CAIRN_I64: return "i64";
    case CAIRN_I32: return "i32";
    case CAIRN_I16: return "i16";
    case CAIRN_I8: return "i8";
    case CAIRN_U8: return "u8";
    case CAIRN_BOOL: return "bool";
    case CAIRN_F16: return "f16";
    default: return NULL;
    }
}

/* Starts the server, loads the model, hands it cairn's inputs (raw files in
 * dir). Returns 0, or 1 with the reason in why. */
static int bm_peer_setup(bm_peer_t *p, const bm_opts_t *o, const bm_cairn_t *c, const char *dir,
                         char *why, size_t cap)
{
    char python[4096];
    if (o->python)
        snprintf(python, sizeof python, "%s", o->python);
    else
        bm_default_python(python, sizeof python);
    if (bm_peer_start(p, python, why, cap))
        return 1;
    if (strpbrk(o->model, " \t\n")) {
        snprintf(why, cap, "the model path has white space, which the pipe protocol cannot carry");
        return 1;
    }
    if (bm_peer_ask(p, "load %s %d", o->model, o->threads)) {
        snprintf(why, cap, "onnxruntime: %.300s", p->reply);
        return 1;
    }
    snprintf(p->version, sizeof p->version, "%.60s", p->reply);
    for (int i = 0; i < c->n_in; i++) {
        const cairn_tensor_t *t = &c->in[i];
        const char *dt = bm_np_dtype(t->dtype);
        if (!dt) {
            snprintf(why, cap, "input '%.300s' is %.300s, which this benchmark cannot hand to onnxruntime",
                     c->in_names[i], cairn_dtype_name(t->dtype));
            return 1;
        }
        char path[4200], shape[256] = "";
        snprintf(path, sizeof path, "%s/in_%d", dir, i);
        FILE *f = fopen(path, "wb");
        size_t bytes = cairn_tensor_bytes(t);
        if (!f || fwrite(t->data, 1, bytes, f) != bytes) {
            snprintf(why, cap, "cannot write %.300s: %.300s", path, strerror(errno));
            if (f)
                fclose(f);
            return 1;
        }
        fclose(f);
        size_t u = 0;
        for (int d = 0; d < t->rank && u < sizeof shape; d++)
            u += (size_t)snprintf(shape + u, sizeof shape - u, " %lld", (long long)t->shape[d]);
        if (bm_peer_ask(p, "input %s %s %s%s", c->in_names[i], dt, path, shape)) {
            snprintf(why, cap, "onnxruntime: input '%.300s': %.300s", c->in_names[i], p->reply);
            return 1;
        }
    }
    return 0;
}

/* Compares cairn's outputs (from the last run) with onnxruntime's: *err =
 * the largest max|c - o| / max|o| over the outputs. Returns 0, or 1 with
 * why (a count or size mismatch, a missing file). */
static int bm_compare(bm_peer_t *p, bm_cairn_t *c, const char *dir, double *err, char *why,
                      size_t cap)
{
    if (bm_peer_ask(p, "outputs %s", dir)) {
        snprintf(why, cap, "onnxruntime: %.300s", p->reply);
        return 1;
    }
    char *rest = p->reply;
    long n = strtol(rest, &rest, 10);
    if (n != c->n_out) {
        snprintf(why, cap, "onnxruntime gave %ld outputs, cairn %d", n, c->n_out);
        return 1;
    }
    *err = 0;
    for (int i = 0; i < c->n_out; i++) {
        long long numel = strtoll(rest, &rest, 10);
        const cairn_tensor_t *t = &c->out[i];
        if (numel != cairn_tensor_numel(t)) {
            snprintf(why, cap, "output %d: onnxruntime gave %lld elements, cairn %lld", i, numel,
                     (long long)cairn_tensor_numel(t));
            return 1;
        }
        char path[4200];
        snprintf(path, sizeof path, "%s/out_%d", dir, i);
        FILE *f = fopen(path, "rb");
        if (!f) {
            snprintf(why, cap, "cannot read %.300s: %.300s", path, strerror(errno));
            return 1;
        }
        double maxo = 0, maxd = 0, o;
        int nonfinite = 0;
        for (long long k = 0; k < numel; k++) {
            if (fread(&o, sizeof o, 1, f) != 1) {
                fclose(f);
                snprintf(why, cap, "%.300s is short", path);
                return 1;
            }
            double v = base_load_as_double(t->data, t->dtype, k);
            double d = fabs(v - o);
            if (!isfinite(v) && isfinite(o))
                nonfinite = 1;
            if (isfinite(o) && fabs(o) > maxo)
                maxo = fabs(o);
            if (d > maxd || isnan(d))
                maxd = isnan(d) && isfinite(o) ? INFINITY : isnan(d) ? maxd : d;
        }
        fclose(f);
        double e = nonfinite ? INFINITY : maxo > 0 ? maxd / maxo : maxd;
        if (e > *err)
            *err = e;
    }
    return 0;
}

/* ---- timing --------------------------------------------------------------- */

static int bm_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bm_summary(double *ms, int n, double *median, double *p90)
{
    qsort(ms, (size_t)n, sizeof *ms, bm_cmp);
    *median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    int k = (int)ceil(0.9 * n) - 1; /* nearest rank */
    *p90 = ms[k < 0 ? 0 : k];
}

static void bm_settle(void)
{
    struct timespec ts = {0, BM_SETTLE_NS};
    nanosleep(&ts, NULL);
}

static int bm_burst(double per_run_ms, int left)
{
    int b = per_run_ms > 0 ? (int)(BM_BURST_SECONDS * 1e3 / per_run_ms + 0.5) : left;
    return b < 1 ? 1 : b > left ? left : b;
}

static void bm_json_num(double v)
{
    if (isfinite(v))
        printf("%.6g", v);
    else
        printf("null");
}

int bench_model(int argc, char **argv)
{
    bm_opts_t o;
    int pr = bm_parse(argc, argv, &o);
    if (pr < 0)
        return BM_OK;
    if (!pr)
        return BM_USAGE;
    if (o.peers && strcmp(o.model + (strlen(o.model) > 5 ? strlen(o.model) - 5 : 0), ".onnx")) {
        fprintf(stderr, "cairn bench model: --peers needs an .onnx file (onnxruntime cannot run "
                        "'%s')\n", o.model);
        return BM_USAGE;
    }

    long rss_kb[2] = {0, 0};
    int have_rss = bm_cairn_peak_rss(&o, rss_kb);

    bm_peer_t peer;
    memset(&peer, 0, sizeof peer);
    char dir[64] = "", why[1024] = "";
    int peer_ok = 0;
    double max_err = NAN, est_o = 0;
    long ort_kb[2] = {0, 0};
    if (o.peers)
        signal(SIGPIPE, SIG_IGN); /* a peer that dies is an error reply, not our death */

    bm_cairn_t c;
    int rc = bm_cairn_setup(&o, &c, stderr);
    if (rc != BM_OK) {
        bm_cairn_free(&c);
        return rc;
    }
    double *ms_c = calloc((size_t)o.iters, sizeof *ms_c);
    double *ms_o = calloc((size_t)o.iters, sizeof *ms_o);
    if (!ms_c || !ms_o) {
        fprintf(stderr, "cairn bench model: out of memory\n");
        rc = BM_FAIL;
        goto done;
    }

    double est_c = 0;
    for (int i = 0; i < (o.warmup > 0 ? o.warmup : 1); i++) { /* the first run plans */
        uint64_t t0 = base_now_ns();
        if ((rc = bm_cairn_run(&c, stderr)) != BM_OK)
            goto done;
        est_c = base_ns_to_ms(base_now_ns() - t0);
    }

    if (o.peers) {
        snprintf(dir, sizeof dir, "/tmp/cairn-bench-model-XXXXXX");
        if (!mkdtemp(dir)) {
            fprintf(stderr, "cairn bench model: cannot make a temporary folder: %s\n",
                    strerror(errno));
            rc = BM_FAIL;
            goto done;
        }
        if (bm_peer_setup(&peer, &o, &c, dir, why, sizeof why) ||
            bm_compare(&peer, &c, dir, &max_err, why, sizeof why)) {
            fprintf(stderr, "cairn bench model: the peer failed: %s\n", why);
            rc = BM_FAIL;
            goto done;
        }
        if (!(max_err <= o.tol)) {
            fprintf(stderr,
                    "cairn bench model: cairn's and onnxruntime's outputs disagree: max |cairn - "
                    "ort| / max |ort| = %.3g (more than %g, which --tol sets); no timings are reported\n",
                    max_err, o.tol);
            rc = BM_FAIL;
            goto done;
        }
        for (int i = 0; i < (o.warmup > 0 ? o.warmup : 1); i++) {
            if (bm_peer_ask(&peer, "run 1")) {
                fprintf(stderr, "cairn bench model: onnxruntime: %s\n", peer.reply);
                rc = BM_FAIL;
                goto done;
            }
            est_o = atof(peer.reply) * 1e-6;
        }
        peer_ok = 1;
    }

    /* onnxruntime's warm-up just ran: let its threads stop spinning first */
    if (peer_ok)
        bm_settle();
    /* alternate in bursts until each has o.iters timed runs */
    int done_c = 0, done_o = 0;
    while (done_c < o.iters || (peer_ok && done_o < o.iters)) {
        int b = bm_burst(est_c, o.iters - done_c);
        for (int i = 0; i < b && done_c < o.iters; i++) {
            uint64_t t0 = base_now_ns();
            if ((rc = bm_cairn_run(&c, stderr)) != BM_OK)
                goto done;
            ms_c[done_c++] = base_ns_to_ms(base_now_ns() - t0);
        }
        if (!peer_ok)
            continue;
        bm_settle();
        b = bm_burst(est_o, o.iters - done_o);
        if (b > 0 && done_o < o.iters) {
            if (bm_peer_ask(&peer, "run %d", b)) {
                fprintf(stderr, "cairn bench model: onnxruntime: %s\n", peer.reply);
                rc = BM_FAIL;
                goto done;
            }
            char *r = peer.reply;
            for (int i = 0; i < b && done_o < o.iters; i++)
                ms_o[done_o++] = (double)strtoll(r, &r, 10) * 1e-6;
        }
        bm_settle();
    }
    if (peer_ok && bm_peer_ask(&peer, "mem") == 0)
        sscanf(peer.reply, "%ld %ld", &ort_kb[0], &ort_kb[1]);

    double med_c, p90_c, med_o = NAN, p90_o = NAN;
    bm_summary(ms_c, o.iters, &med_c, &p90_c);
    if (peer_ok)
        bm_summary(ms_o, o.iters, &med_o, &p90_o);
    double ratio = peer_ok ? med_c / med_o : NAN;
    double mb = 1024.0 / 1e6; /* kB -> MB */
    char shapes[512] = "";
    for (int i = 0, u = 0; i < c.n_in && u < (int)sizeof shapes; i++) {
        char d[160];
        u += snprintf(shapes + u, sizeof shapes - (size_t)u, "%s%s %s %s", i ? ", " : "",
                      c.in_names[i], cairn_dtype_name(c.in[i].dtype),
                      base_fmt_dims(d, sizeof d, c.in[i].shape, c.in[i].rank));
    }
    if (o.json) {
        printf("{\"model\": \"");
        for (const char *s = o.model; *s; s++)
            printf(*s == '"' || *s == '\\' ? "\\%c" : (unsigned char)*s < 32 ? "?" : "%c", *s);
        printf("\", \"threads\": %d, \"iters\": %d, \"results\": [", o.threads, o.iters);
        printf("{\"impl\": \"cairn\", \"median_ms\": ");
        bm_json_num(med_c);
        printf(", \"p90_ms\": ");
        bm_json_num(p90_c);
        printf(", \"peak_rss_mb\": ");
        bm_json_num(have_rss ? rss_kb[0] * mb : NAN);
        printf(", \"rss_before_load_mb\": ");
        bm_json_num(have_rss ? rss_kb[1] * mb : NAN);
        printf("}");
        if (peer_ok) {
            printf(", {\"impl\": \"onnxruntime\", \"version\": \"%s\", \"median_ms\": ",
                   peer.version);
            bm_json_num(med_o);
            printf(", \"p90_ms\": ");
            bm_json_num(p90_o);
            printf(", \"peak_rss_mb\": ");
            bm_json_num(ort_kb[0] ? ort_kb[0] * mb : NAN);
            printf(", \"rss_before_load_mb\": ");
            bm_json_num(ort_kb[1] ? ort_kb[1] * mb : NAN);
            printf("}");
        }
        printf("], \"ratio_vs_onnxruntime\": ");
        bm_json_num(ratio);
        printf(", \"max_rel_err\": ");
        bm_json_num(max_err);
        printf("}\n");
    } else {
        printf("model      %s\ninputs     %s (random, seed %llu)\n", o.model, shapes,
               (unsigned long long)o.seed);
        printf("threads    %d; %d timed runs each after %d warmup, alternating in bursts\n",
               o.threads, o.iters, o.warmup);
        printf("%-12s median %9.3f ms  p90 %9.3f ms", "cairn", med_c, p90_c);
        if (have_rss)
            printf("  peak RSS %7.1f MB (%.1f before loading)", rss_kb[0] * mb, rss_kb[1] * mb);
        printf("\n");
        if (peer_ok) {
            printf("%-12s median %9.3f ms  p90 %9.3f ms", "onnxruntime", med_o, p90_o);
            if (ort_kb[0])
                printf("  peak RSS %7.1f MB (%.1f before loading)", ort_kb[0] * mb,
                       ort_kb[1] * mb);
            printf("   [onnxruntime %s]\n", peer.version);
            printf("ratio      cairn / onnxruntime = %.3f (medians)\n", ratio);
            printf("outputs    agree: max |cairn - ort| / max |ort| = %.3g\n", max_err);
        }
        printf("memory     peak RSS = VmHWM: cairn's in a child process that only loads, plans "
               "and runs; onnxruntime's of its Python process (interpreter included)\n");
    }
    rc = BM_OK;

done:
    if (o.peers)
        bm_peer_stop(&peer);
    if (dir[0]) {
        char path[128];
        for (int i = 0; i < BM_MAX_IO; i++) {
            snprintf(path, sizeof path, "%s/in_%d", dir, i);
            unlink(path);
            snprintf(path, sizeof path, "%s/out_%d", dir, i);
            unlink(path);
        }
        rmdir(dir);
    }
    free(ms_c);
    free(ms_o);
    bm_cairn_free(&c);
    return rc;
}
