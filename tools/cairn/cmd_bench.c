/*
 * cairn bench: benchmarks of single kernels against the machine's
 * calibrated peak and against other libraries. Targets are rows of a table
 * (today 'gemm'; 'model' can join as another row).
 *
 * bench gemm times C = A*B (f32, row-major, optional transposes) through
 * cairn and, with --peers, through OpenBLAS, BLIS and oneDNN loaded with
 * dlopen, alternating between them in the same run so that all see the same
 * machine state. Each peer's result is checked against cairn's before its
 * number counts, so a broken binding cannot report a fake rate.
 *
 * --dtype bf16 times gemm_bf16 (f32 C) and --dtype s8 gemm_u8s8s32 (s32 C),
 * against the machine's bf16 / int8 dot-product peak; they have no peers
 * yet (oneDNN 2.6 has no bf16 GEMM in its C API; its dnnl_gemm_u8s8s32 is
 * not wired).
 *
 * Exit codes: 0 ok; 1 a failure (memory, a peer's result disagreeing with
 * cairn's, an unwritable machine file); 2 a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/alloc.h"
#include "base/clock.h"
#include "base/cpu.h"
#include "base/threadpool.h"
#include "cmd.h"
#include "peaks.h"
#include "kernels/gemm/gemm.h"
#include "profile/machine.h"
#include "profile/perf_counters.h"
#include "base/json_out.h"

#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BENCH_OK = 0, BENCH_FAIL = 1, BENCH_USAGE = 2 };

#define BENCH_MAX_THREADS 1024
#define BENCH_MAX_DIM ((int64_t)1 << 20)
#define BENCH_MAX_RUNS 100000
#define BENCH_MIN_RUNS 5
#define BENCH_MIN_SECONDS 0.3
#define BENCH_SLOW_RUN 1.0 /* runs longer than this: 3 are enough */
#define BENCH_BURST_SECONDS 0.1
#define BENCH_SETTLE_NS 120000000L /* 120 ms between bursts with --peers */

/* ---- cairn's GEMM --------------------------------------------------------- */

/* The one place that names cairn's f32 GEMM. */
static void cairn_sgemm(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                        float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                        float beta, float *C, int64_t ldc)
{
    gemm_f32(k, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* Says which kernel cairn_sgemm runs, for the report. */
static void cairn_sgemm_variant(char *buf, size_t cap, int threads)
{
    snprintf(buf, cap, "gemm_f32 %s, %d thread%s", gemm_f32_variant_name(), threads,
             threads > 1 ? "s" : "");
}

/* ---- the problem and the implementations --------------------------------- */

typedef struct gemm_problem {
    int64_t M, N, K;
    int transA, transB;
    int64_t lda, ldb, ldc;
    const float *A, *B;
    const void *Alp, *Blp; /* bf16 or u8 / s8 operands for those dtypes */
    int dtype;             /* 0 f32, 1 bf16, 2 s8 */
    int threads;
    kctx_t kctx;
} gemm_problem_t;

typedef void (*cblas_sgemm_fn)(int order, int ta, int tb, int M, int N, int K, float alpha,
                               const float *A, int lda, const float *B, int ldb, float beta,
                               float *C, int ldc);
typedef int (*dnnl_sgemm_fn)(char ta, char tb, int64_t M, int64_t N, int64_t K, float alpha,
                             const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
                             float *C, int64_t ldc);

/* oneDNN's int8 GEMM (row-major; ao / bo zero points, offsetc 'F' with one
 * C offset) */
typedef int (*dnnl_u8s8s32_fn)(char ta, char tb, char offsetc, int64_t M, int64_t N, int64_t K,
                               float alpha, const uint8_t *A, int64_t lda, uint8_t ao,
                               const int8_t *B, int64_t ldb, int8_t bo, float beta, int32_t *C,
                               int64_t ldc, const int32_t *co);

enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

typedef struct gemm_impl {
    const char *name;
    char detail[160];
    void *handle;
    cblas_sgemm_fn cblas;
    dnnl_sgemm_fn dnnl;
    dnnl_u8s8s32_fn dnnl_s8;
    float *C;
    double *secs, total;
    int n_secs;
    double max_rel_err;
    int failed; /* its result disagreed with cairn's, or it returned an error */
    char why[200];
} gemm_impl_t;

static int impl_call(gemm_impl_t *im, const gemm_problem_t *p)
{
    if (im->cblas) {
        im->cblas(CBLAS_ROW_MAJOR, p->transA ? CBLAS_TRANS : CBLAS_NO_TRANS,
                  p->transB ? CBLAS_TRANS : CBLAS_NO_TRANS, (int)p->M, (int)p->N, (int)p->K, 1.0f,
                  p->A, (int)p->lda, p->B, (int)p->ldb, 0.0f, im->C, (int)p->ldc);
        return 0;
    }
    if (im->dnnl_s8) {
        static const int32_t zero = 0;
        return im->dnnl_s8(p->transA ? 'T' : 'N', p->transB ? 'T' : 'N', 'F', p->M, p->N, p->K,
                           1.0f, p->Alp, p->lda, 0, p->Blp, p->ldb, 0, 0.0f,
                           (int32_t *)(void *)im->C, p->ldc, &zero);
    }
    if (im->dnnl)
        return im->dnnl(p->transA ? 'T' : 'N', p->transB ? 'T' : 'N', p->M, p->N, p->K, 1.0f, p->A,
                        p->lda, p->B, p->ldb, 0.0f, im->C, p->ldc);
    if (p->dtype == 1)
        gemm_bf16(&p->kctx, p->transA, p->transB, p->M, p->N, p->K, 1.0f, p->Alp, p->lda, p->Blp,
                  p->ldb, 0.0f, im->C, p->ldc);
    else if (p->dtype == 2)
        gemm_u8s8s32(&p->kctx, p->transA, p->transB, p->M, p->N, p->K, p->Alp, p->lda, p->Blp,
                     p->ldb, (int32_t *)(void *)im->C, p->ldc, 0);
    else
        cairn_sgemm(&p->kctx, p->transA, p->transB, p->M, p->N, p->K, 1.0f, p->A, p->lda, p->B,
                    p->ldb, 0.0f, im->C, p->ldc);
    return 0;
}

/* ---- peers ---------------------------------------------------------------- */

static void *peer_open(const char *soname, char *why, size_t cap)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, cap, "%s not loadable (%s); install it, e.g. apt-get install %s", soname,
                 e ? e : "?",
                 !strncmp(soname, "libopenblas", 11) ? "libopenblas0"
                 : !strncmp(soname, "libblis", 7)    ? "libblis4"
                                                     : "libdnnl2");
    }
    return h;
}

static void *peer_sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    return p;
}

/* Prepares the environment the peers read when they load: their thread
 * count, and no OpenBLAS core or cache override (some machines here set
 * them; a benchmark must see the library's own choice). */
static void peers_environment(int threads, FILE *note)
{
    static const char *const overrides[] = {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"};
    for (size_t i = 0; i < sizeof overrides / sizeof overrides[0]; i++) {
        const char *v = getenv(overrides[i]);
        if (v) {
            fprintf(note, "note: %s=%s was set; unset for this benchmark\n", overrides[i], v);
            unsetenv(overrides[i]);
        }
    }
    char t[16];
    snprintf(t, sizeof t, "%d", threads);
    setenv("OMP_NUM_THREADS", t, 1);
    setenv("OPENBLAS_NUM_THREADS", t, 1);
    setenv("BLIS_NUM_THREADS", t, 1);
}

/* Loads each peer; those not installed are left with handle NULL and why. */
static void peers_load(gemm_impl_t *ob, gemm_impl_t *bl, gemm_impl_t *dn, int threads, int mask,
                       int dtype)
{
    if (dtype == 2)
        mask &= 4; /* int8: only oneDNN has a u8 x s8 GEMM */
    ob->name = "openblas";
    bl->name = "blis";
    dn->name = "onednn";
    if (!(mask & 1))
        ob->name = NULL;
    if (!(mask & 2))
        bl->name = NULL;
    if (!(mask & 4))
        dn->name = NULL;
    if (ob->name)
        ob->handle = peer_open("libopenblas.so.0", ob->why, sizeof ob->why);
    if (ob->handle) {
        ob->cblas = (cblas_sgemm_fn)peer_sym(ob->handle, "cblas_sgemm");
        void (*set)(int) = (void (*)(int))peer_sym(ob->handle, "openblas_set_num_threads");
        char *(*core)(void) = (char *(*)(void))peer_sym(ob->handle, "openblas_get_corename");
        if (set)
            set(threads);
        snprintf(ob->detail, sizeof ob->detail, "OpenBLAS, core %s", core ? core() : "unknown");
        if (!ob->cblas)
            snprintf(ob->why, sizeof ob->why, "libopenblas.so.0 has no cblas_sgemm");
    }
    if (bl->name)
        bl->handle = peer_open("libblis.so.4", bl->why, sizeof bl->why);
    if (bl->handle) {
        bl->cblas = (cblas_sgemm_fn)peer_sym(bl->handle, "cblas_sgemm");
        void (*set)(long) = (void (*)(long))peer_sym(bl->handle, "bli_thread_set_num_threads");
        char *(*ver)(void) = (char *(*)(void))peer_sym(bl->handle, "bli_info_get_version_str");
        if (set)
            set(threads);
        snprintf(bl->detail, sizeof bl->detail, "BLIS %s", ver ? ver() : "");
        if (!bl->cblas)
            snprintf(bl->why, sizeof bl->why, "libblis.so.4 has no cblas_sgemm");
    }
    if (dn->name)
        dn->handle = peer_open("libdnnl.so.2", dn->why, sizeof dn->why);
    if (dn->handle) {
        if (dtype == 2)
            dn->dnnl_s8 = (dnnl_u8s8s32_fn)peer_sym(dn->handle, "dnnl_gemm_u8s8s32");
        else
            dn->dnnl = (dnnl_sgemm_fn)peer_sym(dn->handle, "dnnl_sgemm");
        /* oneDNN threads with OpenMP: the env var was set before loading;
         * this sets it again in case libgomp was already initialised */
        void (*omp_set)(int) = (void (*)(int))peer_sym(dn->handle, "omp_set_num_threads");
        if (omp_set)
            omp_set(threads);
        typedef struct {
            int major, minor, patch;
            const char *hash;
            unsigned cpu_runtime, gpu_runtime;
        } dnnl_version_t;
        const dnnl_version_t *(*ver)(void) =
            (const dnnl_version_t *(*)(void))peer_sym(dn->handle, "dnnl_version");
        const dnnl_version_t *v = ver ? ver() : NULL;
        if (v)
            snprintf(dn->detail, sizeof dn->detail, "oneDNN %d.%d.%d", v->major, v->minor,
                     v->patch);
        else
            snprintf(dn->detail, sizeof dn->detail, "oneDNN");
        if (!dn->dnnl && !dn->dnnl_s8)
            snprintf(dn->why, sizeof dn->why, "libdnnl.so.2 has no %s",
                     dtype == 2 ? "dnnl_gemm_u8s8s32" : "dnnl_sgemm");
    }
}

/* Writes over buf (--cold): one store a cache line, so the lines of A, B
 * and C that a run left in the caches are gone before the next. */
static void evict_caches(char *buf, size_t bytes)
{
    volatile char *v = buf;
    for (size_t i = 0; i < bytes; i += 64)
        v[i] = (char)(v[i] + 1);
}

/* ---- options -------------------------------------------------------------- */

typedef struct gemm_opts {
    int64_t M, N, K;
    int threads, transA, transB, peers, json, iters, warmup, profile, cold;
    const char *dtype;
    uint64_t seed;
} gemm_opts_t;

static void gemm_usage(FILE *f)
{
    fprintf(
        f,
        "usage: cairn bench gemm --m M --n N --k K [options]\n"
        "\n"
        "Times C = op(A) * op(B) (row-major; A is MxK, B is KxN before op) and reports\n"
        "the median GFLOP/s, the fraction of the calibrated peak (from the machine\n"
        "file; a quick calibration runs first when there is none), and with --peers\n"
        "the same problem through OpenBLAS, BLIS and oneDNN in the same run.\n"
        "\n"
        "options:\n"
        "  --m M, --n N, --k K   the problem (each 1 to %lld)\n"
        "  --threads T           threads for cairn and the peers (default 0: one per CPU)\n"
        "  --dtype f32|bf16|s8   element type (default f32; s8 is u8 x s8 -> s32)\n"
        "  --trans-a, --trans-b  transpose A (stored KxM) or B (stored NxK)\n"
        "  --peers[=LIST]        also run OpenBLAS, BLIS and oneDNN where installed\n"
        "                        (LIST: some of openblas,blis,onednn)\n"
        "  --iters N             exactly N timed runs of each (default: at least %d runs\n"
        "                        and %.1f s each; 3 runs when one takes over %.0f s)\n"
        "  --warmup N            untimed runs of each first (default 1)\n"
        "  --seed S              seed for the random matrices (default 1)\n"
        "  --cold                before each timed run, write over a buffer of twice the\n"
        "                        last-level cache (not timed), so that every run reads\n"
        "                        A and B from memory, as a model's first use of them does\n"
        "                        (at most 200 runs of each unless --iters)\n"
        "  --profile             also count cairn's calls with hardware counters (cycles,\n"
        "                        instructions, IPC, cache and L1D misses per call), where\n"
        "                        the kernel allows perf_event_open\n"
        "  --json                print one JSON object: {\"results\": [{\"impl\",\n"
        "                        \"gflops\", \"peak_fraction\", ...}], \"ratio_vs_best_peer\"}\n"
        "  -h, --help            show this help\n"
        "\n"
        "Exit status: 0 ok, 1 a failure (e.g. a peer's result disagrees with cairn's),\n"
        "2 a usage error or a dtype not available yet.\n",
        (long long)BENCH_MAX_DIM, BENCH_MIN_RUNS, BENCH_MIN_SECONDS, BENCH_SLOW_RUN);
}

static int parse_i64(const char *flag, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long x = (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) ? strtoll(v, &end, 10) : 0;
    if (!end || *end || errno) {
        fprintf(stderr, "cairn bench gemm: %s: '%s' is not a whole number\n", flag, v);
        return 0;
    }
    if (x < lo || x > hi) {
        fprintf(stderr, "cairn bench gemm: %s: %lld is out of range (%lld to %lld)\n", flag, x,
                (long long)lo, (long long)hi);
        return 0;
    }
    *out = x;
    return 1;
}

enum { PEER_OPENBLAS = 1, PEER_BLIS = 2, PEER_ONEDNN = 4, PEERS_ALL = 7 };

/* "openblas,blis,onednn" (any subset) into a mask */
static int parse_peers(const char *list, int *mask)
{
    static const char *const names[] = {"openblas", "blis", "onednn"};
    *mask = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        int found = 0;
        for (int i = 0; i < 3; i++)
            if (n == strlen(names[i]) && !strncmp(p, names[i], n))
                *mask |= 1 << i, found = 1;
        if (!found) {
            fprintf(stderr,
                    "cairn bench gemm: --peers: unknown library '%.*s' (known: openblas, "
                    "blis, onednn)\n",
                    (int)n, p);
            return 0;
        }
        p += n + (p[n] == ',');
    }
    if (!*mask) {
        fprintf(stderr, "cairn bench gemm: --peers= needs a list, e.g. --peers=openblas,onednn\n");
        return 0;
    }
    return 1;
}

/* BENCH_OK, BENCH_USAGE, or -1 after --help */
static int gemm_parse(int argc, char **argv, gemm_opts_t *o)
{
    o->M = o->N = o->K = -1;
    o->dtype = "f32";
    o->warmup = 1;
    o->seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            gemm_usage(stdout);
            return -1;
        }
        if (!strncmp(a, "--peers=", 8)) {
            if (!parse_peers(a + 8, &o->peers))
                return BENCH_USAGE;
            continue;
        }
        if (!strcmp(a, "--profile")) {
            o->profile = 1;
            continue;
        }
        if (!strcmp(a, "--cold")) {
            o->cold = 1;
            continue;
        }
        if (!strcmp(a, "--trans-a") || !strcmp(a, "--trans-b") || !strcmp(a, "--peers") ||
            !strcmp(a, "--json")) {
            *(!strcmp(a, "--trans-a")   ? &o->transA
              : !strcmp(a, "--trans-b") ? &o->transB
              : !strcmp(a, "--peers")   ? &o->peers
                                        : &o->json) = !strcmp(a, "--peers") ? PEERS_ALL : 1;
            continue;
        }
        static const char *const valued[] = {"--m",     "--n",     "--k",      "--threads",
                                             "--dtype", "--iters", "--warmup", "--seed"};
        const char *flag = NULL, *val = NULL;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !flag; k++) {
            size_t n = strlen(valued[k]);
            if (!strcmp(a, valued[k])) {
                flag = valued[k];
                if (i + 1 >= argc) {
                    fprintf(stderr, "cairn bench gemm: %s needs a value\n", flag);
                    return BENCH_USAGE;
                }
                val = argv[++i];
            } else if (!strncmp(a, valued[k], n) && a[n] == '=') {
                flag = valued[k], val = a + n + 1;
            }
        }
        if (!flag) {
            fprintf(stderr, "cairn bench gemm: unknown option '%s' (see cairn bench gemm --help)\n",
                    a);
            return BENCH_USAGE;
        }
        int64_t v = 0;
        if (!strcmp(flag, "--dtype")) {
            if (strcmp(val, "f32") && strcmp(val, "bf16") && strcmp(val, "s8")) {
                fprintf(stderr, "cairn bench gemm: --dtype '%s': expected f32, bf16 or s8\n", val);
                return BENCH_USAGE;
            }
            o->dtype = val;
        } else if (!strcmp(flag, "--m") || !strcmp(flag, "--n") || !strcmp(flag, "--k")) {
            if (!parse_i64(flag, val, 1, BENCH_MAX_DIM, &v))
                return BENCH_USAGE;
            *(flag[2] == 'm' ? &o->M : flag[2] == 'n' ? &o->N : &o->K) = v;
        } else if (!strcmp(flag, "--threads")) {
            if (!parse_i64(flag, val, 0, BENCH_MAX_THREADS, &v))
                return BENCH_USAGE;
            o->threads = (int)v;
        } else if (!strcmp(flag, "--iters")) {
            if (!parse_i64(flag, val, 1, BENCH_MAX_RUNS, &v))
                return BENCH_USAGE;
            o->iters = (int)v;
        } else if (!strcmp(flag, "--warmup")) {
            if (!parse_i64(flag, val, 0, 1000, &v))
                return BENCH_USAGE;
            o->warmup = (int)v;
        } else {
            if (!parse_i64(flag, val, 0, INT64_MAX, &v))
                return BENCH_USAGE;
            o->seed = (uint64_t)v;
        }
    }
    if (o->M < 0 || o->N < 0 || o->K < 0) {
        fprintf(stderr,
                "cairn bench gemm: --m, --n and --k are required (missing:%s%s%s), "
                "e.g. --m 512 --n 512 --k 512\n",
                o->M < 0 ? " --m" : "", o->N < 0 ? " --n" : "", o->K < 0 ? " --k" : "");
        return BENCH_USAGE;
    }
    if (o->M * o->N > ((int64_t)1 << 31) || o->M * o->K > ((int64_t)1 << 31) ||
        o->K * o->N > ((int64_t)1 << 31)) {
        fprintf(stderr,
                "cairn bench gemm: %lld x %lld x %lld: a matrix would have more than "
                "2^31 elements (the peers take 32-bit sizes); use smaller sizes\n",
                (long long)o->M, (long long)o->N, (long long)o->K);
        return BENCH_USAGE;
    }
    return BENCH_OK;
}

/* ---- peak ----------------------------------------------------------------- */

typedef struct peak_info {
    double gflops;
    char source[4200];
} peak_info_t;

/* The peak of dtype (0 f32, 1 bf16 dot, 2 int8 dot) for `threads`: from the
 * machine file, else measured now (quickly) and written to it. Messages go
 * to stderr. */
static int gemm_peak(int threads, int dtype, peak_info_t *pk)
{
    machine_peaks_t r;
    if (tool_get_peaks("bench gemm", threads, 0, &r, pk->source, sizeof pk->source, stderr))
        return BENCH_FAIL;
    pk->gflops = dtype == 1 ? r.bf16_gflops : dtype == 2 ? r.s8_gops : r.f32_gflops;
    if (dtype == 1 && !(pk->gflops > 0)) {
        /* no bf16 dot instruction: the bf16 GEMM converts its panels to f32
         * and runs the f32 kernel, so the f32 FMA rate is its ceiling */
        pk->gflops = r.f32_gflops;
        size_t len = strlen(pk->source);
        snprintf(pk->source + len, sizeof pk->source - len,
                 "; no bf16 dot on this CPU: the f32 FMA peak");
    }
    return BENCH_OK;
}

/* ---- measuring ------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: fast, and good enough for test matrices */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float *random_matrix(int64_t n, uint64_t *seed)
{
    float *p = base_aligned_alloc((size_t)n * sizeof(float), BASE_ALIGN);
    if (p)
        for (int64_t i = 0; i < n; i++)
            p[i] = (float)((double)(rng_next(seed) >> 11) * 0x1p-53 * 2.0 - 1.0);
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* max |C - ref| / max |ref| over the M x N result; NaN anywhere gives inf */
static double rel_error(const float *C, const float *ref, int64_t n)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)C[i] - (double)ref[i]);
        if (d != d)
            return INFINITY;
        num = d > num ? d : num;
        double a = fabs((double)ref[i]);
        den = a > den ? a : den;
    }
    return den > 0 ? num / den : num;
}

/* ---- --profile: hardware counters per call -------------------------------- */

typedef struct bench_counters {
    int available, calls;
    unsigned mask;
    char reason[256];
    uint64_t v[PC_N]; /* totals over `calls` calls */
} bench_counters_t;

static void bench_count(gemm_impl_t *im, const gemm_problem_t *p, base_pool_t *pool,
                        bench_counters_t *c)
{
    int tids[65] = {0}; /* 0: the calling thread */
    int n = 1 + (pool ? base_pool_thread_ids(pool, tids + 1, 64) : 0);
    pc_set_t *set = pc_open(tids, n);
    if (!set) {
        snprintf(c->reason, sizeof c->reason, "out of memory");
        return;
    }
    c->available = pc_available(set);
    c->mask = pc_mask(set);
    snprintf(c->reason, sizeof c->reason, "%s", pc_reason(set));
    if (c->available) {
        uint64_t a[PC_N], b[PC_N];
        c->calls = 5;
        pc_read(set, a);
        for (int r = 0; r < c->calls; r++)
            impl_call(im, p);
        pc_read(set, b);
        for (int k = 0; k < PC_N; k++)
            c->v[k] = b[k] - a[k];
    } else {
        pc_warn_once(set, stderr);
    }
    pc_close(set);
}

static double per_call(const bench_counters_t *c, int k)
{
    return (c->mask & (1u << k)) && c->calls ? (double)c->v[k] / c->calls : NAN;
}

static void bench_counters_text(FILE *f, const bench_counters_t *c)
{
    if (!c->available) {
        fprintf(f, "\ncounters: unavailable (%s)\n", c->reason);
        return;
    }
    fprintf(f, "\ncounters for cairn, per call (mean of %d calls, all threads):\n", c->calls);
    for (int k = 0; k < PC_N; k++)
        fprintf(f, "  %-14s %.4g\n", pc_name(k), per_call(c, k));
    double ipc = per_call(c, PC_INSTRUCTIONS) / per_call(c, PC_CYCLES);
    double miss = per_call(c, PC_CACHE_MISSES) / per_call(c, PC_CACHE_REFS);
    fprintf(f, "  %-14s %.3f\n  %-14s %.2f%%\n", "ipc", ipc, "cache miss rate", 100 * miss);
}

static void bench_counters_json(FILE *f, const bench_counters_t *c)
{
    fprintf(f, ", \"counters\": {\"available\": %s", c->available ? "true" : "false");
    if (!c->available) {
        fprintf(f, ", \"reason\": ");
        base_json_string(f, c->reason);
    } else {
        fprintf(f, ", \"calls\": %d", c->calls);
        for (int k = 0; k < PC_N; k++) {
            fprintf(f, ", \"%s_per_call\": ", pc_name(k));
            base_json_number(f, per_call(c, k));
        }
    }
    fprintf(f, "}");
}

static int bench_gemm(int argc, char **argv)
{
    gemm_opts_t o;
    memset(&o, 0, sizeof o);
    int rc = gemm_parse(argc, argv, &o);
    if (rc < 0)
        return BENCH_OK;
    if (rc != BENCH_OK)
        return rc;
    int dtype = !strcmp(o.dtype, "bf16") ? 1 : !strcmp(o.dtype, "s8") ? 2 : 0;
    if (dtype == 1 && o.peers) {
        fprintf(stderr, "cairn bench gemm: --dtype bf16: no peer to compare with (oneDNN 2.6 has "
                        "no bf16 GEMM in its C API, OpenBLAS and BLIS none in theirs); timing "
                        "cairn alone\n");
        o.peers = 0;
    }
    int threads = o.threads > 0 ? o.threads : base_cpu()->logical_cpus;
    if (threads < 1)
        threads = 1;

    peak_info_t pk;
    if ((rc = gemm_peak(threads, dtype, &pk)) != BENCH_OK)
        return rc;

    /* the peers read their thread counts and OpenBLAS its overrides when
     * they load, so the environment is set first */
    gemm_impl_t impls[4];
    memset(impls, 0, sizeof impls);
    int n_impls = 1;
    impls[0].name = "cairn";
    cairn_sgemm_variant(impls[0].detail, sizeof impls[0].detail, threads);
    if (dtype)
        snprintf(impls[0].detail, sizeof impls[0].detail, "%s %s, %d thread%s",
                 dtype == 1 ? "gemm_bf16" : "gemm_u8s8s32",
                 dtype == 1 ? gemm_bf16_variant_name() : gemm_s8_variant_name(), threads,
                 threads > 1 ? "s" : "");
    if (o.peers) {
        peers_environment(threads, stderr);
        peers_load(&impls[1], &impls[2], &impls[3], threads, o.peers, dtype);
        n_impls = 4;
    }

    gemm_problem_t p;
    memset(&p, 0, sizeof p);
    p.M = o.M, p.N = o.N, p.K = o.K, p.transA = o.transA, p.transB = o.transB;
    p.lda = o.transA ? o.M : o.K;
    p.ldb = o.transB ? o.K : o.N;
    p.ldc = o.N;
    p.threads = threads;
    base_pool_t *pool = NULL;
    float *A = NULL, *B = NULL;
    rc = BENCH_OK;
    if (threads > 1 && base_pool_create(threads, &pool) != CAIRN_OK) {
        fprintf(stderr, "cairn bench gemm: cannot start %d threads: %s\n", threads,
                cairn_last_error());
        return BENCH_FAIL;
    }
    p.kctx.pool = pool;
    p.kctx.threads = threads;
    uint64_t seed = o.seed;
    A = random_matrix(o.M * o.K, &seed);
    B = random_matrix(o.K * o.N, &seed);
    p.A = A, p.B = B;
    p.dtype = dtype;
    void *Alp = NULL, *Blp = NULL;
    if (dtype && A && B) {
        size_t es = dtype == 1 ? 2 : 1;
        Alp = base_aligned_alloc((size_t)(o.M * o.K) * es, BASE_ALIGN);
        Blp = base_aligned_alloc((size_t)(o.K * o.N) * es, BASE_ALIGN);
        if (!Alp || !Blp) {
            base_aligned_free(A), base_aligned_free(B);
            A = B = NULL;
        } else if (dtype == 1) {
            gemm_cvt_f32_to_bf16(A, Alp, (size_t)(o.M * o.K));
            gemm_cvt_f32_to_bf16(B, Blp, (size_t)(o.K * o.N));
        } else {
            /* A in [0, 127]: a u8 x s8 pair sum then fits int16, so a peer's
             * non-VNNI path (vpmaddubsw saturates to int16) is exact too */
            for (int64_t e = 0; e < o.M * o.K; e++)
                ((uint8_t *)Alp)[e] = (uint8_t)(int)((A[e] + 1.0f) * 63.5f);
            for (int64_t e = 0; e < o.K * o.N; e++)
                ((int8_t *)Blp)[e] = (int8_t)(int)(B[e] * 127.0f);
        }
    }
    p.Alp = Alp, p.Blp = Blp;
    /* --cold: a buffer of twice the last-level cache, written over before
     * each timed run */
    char *evict = NULL;
    size_t evict_bytes = 0;
    if (o.cold) {
        size_t l3 = base_cpu()->l3 ? base_cpu()->l3 : (size_t)32 << 20;
        evict_bytes = 2 * l3;
        evict = base_aligned_alloc(evict_bytes, BASE_ALIGN);
        if (!evict) {
            fprintf(stderr, "cairn bench gemm: --cold: out of memory for a %zu-byte buffer\n",
                    evict_bytes);
            rc = BENCH_FAIL;
            goto done;
        }
        memset(evict, 0, evict_bytes);
    }
    /* cold runs cost the writing-over too: 200 of them give the median */
    int max_runs = o.iters ? o.iters : o.cold ? 200 : BENCH_MAX_RUNS;
    for (int i = 0; i < n_impls; i++) {
        gemm_impl_t *im = &impls[i];
        if (i && (!im->handle || (!im->cblas && !im->dnnl && !im->dnnl_s8)))
            continue;
        im->C = base_aligned_alloc((size_t)(o.M * o.N) * sizeof(float), BASE_ALIGN);
        im->secs = malloc((size_t)max_runs * sizeof(double));
        if (!im->C || !im->secs)
            rc = BENCH_FAIL;
        else /* NaN everywhere: an element a library fails to write shows */
            for (int64_t e = 0; e < o.M * o.N; e++)
                im->C[e] = NAN;
    }
    if (!A || !B || rc != BENCH_OK) {
        fprintf(stderr, "cairn bench gemm: out of memory for %lld x %lld x %lld\n", (long long)o.M,
                (long long)o.N, (long long)o.K);
        rc = BENCH_FAIL;
        goto done;
    }

    /* warm-up, then the first result of each peer is checked against cairn's */
    for (int w = 0; w < (o.warmup > 0 ? o.warmup : 1); w++)
        for (int i = 0; i < n_impls; i++)
            if (impls[i].C && !impls[i].failed && impl_call(&impls[i], &p) != 0) {
                impls[i].failed = 1;
                snprintf(impls[i].why, sizeof impls[i].why, "returned an error status");
            }
    /* the check's tolerance: f32 rounding grows about like sqrt(K); a wrong
     * binding (transposes, leading dims) is off by O(1) */
    double tol = 1e-5 * sqrt((double)o.K) + 1e-5;
    for (int i = 1; i < n_impls; i++) {
        gemm_impl_t *im = &impls[i];
        if (!im->C || im->failed)
            continue;
        if (dtype == 2) {
            /* int32 results: exact or wrong */
            const int32_t *x = (const int32_t *)(void *)im->C;
            const int32_t *y = (const int32_t *)(void *)impls[0].C;
            int64_t bad = 0;
            for (int64_t e = 0; e < o.M * o.N; e++)
                bad += x[e] != y[e];
            im->max_rel_err = bad ? 1.0 : 0.0;
            if (bad) {
                im->failed = 1;
                snprintf(im->why, sizeof im->why,
                         "result differs from cairn's in %lld of %lld int32 elements",
                         (long long)bad, (long long)(o.M * o.N));
            }
            continue;
        }
        im->max_rel_err = rel_error(im->C, impls[0].C, o.M * o.N);
        if (!(im->max_rel_err <= tol)) {
            im->failed = 1;
            snprintf(im->why, sizeof im->why,
                     "result differs from cairn's: max relative error %.3g > %.3g", im->max_rel_err,
                     tol);
        }
    }

    /* Timed rounds: each implementation in turn runs a burst of calls (at
     * least BENCH_BURST_SECONDS, or one call), after a pause that lets the
     * previous library's idle threads stop spinning: OpenMP and OpenBLAS
     * workers spin for milliseconds after a call, and on a machine with few
     * cores that spinning would be charged to whoever runs next. */
    for (int round = 0;; round++) {
        int need_more = 0;
        for (int i = 0; i < n_impls; i++) {
            gemm_impl_t *im = &impls[i];
            if (!im->C || im->failed)
                continue;
            if (o.iters && im->n_secs >= o.iters)
                continue;
            if (o.peers) {
                struct timespec settle = {0, BENCH_SETTLE_NS};
                nanosleep(&settle, NULL);
            }
            double burst = 0;
            do {
                if (evict)
                    evict_caches(evict, evict_bytes);
                uint64_t t0 = base_now_ns();
                impl_call(im, &p);
                double t = (double)(base_now_ns() - t0) * 1e-9;
                im->secs[im->n_secs++] = t;
                im->total += t;
                burst += t;
            } while (burst < BENCH_BURST_SECONDS && im->n_secs < max_runs &&
                     (!o.iters || im->n_secs < o.iters));
            int min_runs = im->secs[0] > BENCH_SLOW_RUN ? 3 : BENCH_MIN_RUNS;
            if (o.iters ? im->n_secs < o.iters
                        : (im->n_secs < min_runs || im->total < BENCH_MIN_SECONDS) &&
                              im->n_secs < max_runs)
                need_more = 1;
        }
        if (!need_more || round > BENCH_MAX_RUNS)
            break;
    }

    /* --profile: hardware counters over a few more of cairn's calls, on the
     * calling thread and the pool's workers (the threads the kernel runs on) */
    bench_counters_t ctr;
    memset(&ctr, 0, sizeof ctr);
    if (o.profile && impls[0].C && !impls[0].failed)
        bench_count(&impls[0], &p, pool, &ctr);

    /* report */
    double flops = 2.0 * (double)o.M * (double)o.N * (double)o.K;
    double gf[4] = {0, 0, 0, 0}, ms[4] = {0, 0, 0, 0};
    double best_peer = 0;
    int best_i = -1;
    for (int i = 0; i < n_impls; i++) {
        gemm_impl_t *im = &impls[i];
        if (!im->C || im->failed || !im->n_secs)
            continue;
        double med = median(im->secs, im->n_secs);
        ms[i] = med * 1e3;
        gf[i] = med > 0 ? flops / med * 1e-9 : 0;
        if (i && gf[i] > best_peer)
            best_peer = gf[i], best_i = i;
    }
    double ratio = best_peer > 0 ? gf[0] / best_peer : NAN;
    int any_failed = 0;
    for (int i = 1; i < n_impls; i++)
        any_failed |= impls[i].failed;

    if (o.json) {
        printf("{\"m\": %lld, \"n\": %lld, \"k\": %lld, \"dtype\": \"%s\", \"trans_a\": %s, "
               "\"trans_b\": %s, \"threads\": %d, \"cold\": %s, \"peak_gflops\": ",
               (long long)o.M, (long long)o.N, (long long)o.K, o.dtype, o.transA ? "true" : "false",
               o.transB ? "true" : "false", threads, o.cold ? "true" : "false");
        base_json_number(stdout, pk.gflops > 0 ? pk.gflops : NAN);
        printf(", \"peak_source\": ");
        base_json_string(stdout, pk.source);
        printf(", \"results\": [");
        int first = 1;
        for (int i = 0; i < n_impls; i++) {
            gemm_impl_t *im = &impls[i];
            if (!im->n_secs || im->failed)
                continue;
            printf("%s{\"impl\": \"%s\", \"gflops\": ", first ? "" : ", ", im->name);
            base_json_number(stdout, gf[i]);
            printf(", \"peak_fraction\": ");
            base_json_number(stdout, pk.gflops > 0 ? gf[i] / pk.gflops : NAN);
            printf(", \"median_ms\": ");
            base_json_number(stdout, ms[i]);
            printf(", \"runs\": %d, \"detail\": ", im->n_secs);
            base_json_string(stdout, im->detail);
            if (i) {
                printf(", \"max_rel_err\": ");
                base_json_number(stdout, im->max_rel_err);
            }
            printf("}");
            first = 0;
        }
        printf("], \"skipped\": [");
        first = 1;
        for (int i = 1; i < n_impls; i++) {
            gemm_impl_t *im = &impls[i];
            if (!im->name || (im->n_secs && !im->failed))
                continue;
            printf("%s{\"impl\": \"%s\", \"failed\": %s, \"reason\": ", first ? "" : ", ", im->name,
                   im->failed ? "true" : "false");
            base_json_string(stdout, im->why[0] ? im->why : "not run");
            printf("}");
            first = 0;
        }
        printf("], \"ratio_vs_best_peer\": ");
        base_json_number(stdout, ratio);
        if (o.profile)
            bench_counters_json(stdout, &ctr);
        printf("}\n");
    } else {
        const char *unit = dtype == 2 ? "GOP/s" : "GFLOP/s";
        printf("gemm %-4s M=%lld N=%lld K=%lld  %s%s  threads %d%s\n", o.dtype, (long long)o.M,
               (long long)o.N, (long long)o.K, o.transA ? "A^T" : "A", o.transB ? "*B^T" : "*B", threads,
               o.cold ? "  cold (caches written over before each run)" : "");
        if (pk.gflops > 0)
            printf("peak     %.1f %s %s at %d thread%s, from %s\n\n", pk.gflops, unit, o.dtype, threads,
                   threads > 1 ? "s" : "", pk.source);
        printf("%-9s %9s %7s %10s %5s %11s  %s\n", "impl", unit, "%peak", "median ms", "runs",
               "max rel err", "detail");
        for (int i = 0; i < n_impls; i++) {
            gemm_impl_t *im = &impls[i];
            if (!im->name)
                continue;
            if (!im->n_secs || im->failed) {
                printf("%-9s %9s %7s %10s %5s %11s  %s%s\n", im->name, "-", "-", "-", "-", "-",
                       im->failed ? "REJECTED: " : "skipped: ", im->why);
                continue;
            }
            char pf[16] = "-", err[16] = "(oracle)";
            if (pk.gflops > 0)
                snprintf(pf, sizeof pf, "%.1f%%", 100 * gf[i] / pk.gflops);
            if (i)
                snprintf(err, sizeof err, "%.1e", im->max_rel_err);
            printf("%-9s %9.1f %7s %10.3f %5d %11s  %s\n", im->name, gf[i], pf, ms[i], im->n_secs,
                   err, im->detail);
        }
        if (best_i > 0)
            printf("\ncairn / best peer (%s): %.2f\n", impls[best_i].name, ratio);
        if (o.profile)
            bench_counters_text(stdout, &ctr);
    }
    if (any_failed) {
        fprintf(stderr, "cairn bench gemm: a peer's result disagreed with cairn's (see the "
                        "table); its numbers are not reported\n");
        rc = BENCH_FAIL;
    }

done:
    for (int i = 0; i < n_impls; i++) {
        base_aligned_free(impls[i].C);
        free(impls[i].secs);
        /* the libraries stay loaded: their worker threads may still be
         * winding down, and unloading under them would crash */
    }
    base_aligned_free(A);
    base_aligned_free(B);
    base_aligned_free(Alp);
    base_aligned_free(Blp);
    base_aligned_free(evict);
    base_pool_destroy(pool);
    return rc;
}

/* ---- the target table ----------------------------------------------------- */

typedef struct bench_target {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} bench_target_t;

static const bench_target_t targets[] = {
    {"gemm", bench_gemm, "f32 GEMM: GFLOP/s, fraction of peak, and OpenBLAS/BLIS/oneDNN (--peers)"},
    {"model", bench_model, "one ONNX model: latency median/p90, peak RSS, and onnxruntime (--peers)"},
};

static void bench_usage(FILE *f)
{
    fprintf(f, "usage: cairn bench <target> [options]\n\ntargets:\n");
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        fprintf(f, "  %-8s %s\n", targets[i].name, targets[i].summary);
    fprintf(f, "\n'cairn bench <target> --help' describes a target's options.\n");
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2) {
        bench_usage(stderr);
        return BENCH_USAGE;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        bench_usage(stdout);
        return BENCH_OK;
    }
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (!strcmp(argv[1], targets[i].name))
            return targets[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cairn bench: unknown target '%s'\n\n", argv[1]);
    bench_usage(stderr);
    return BENCH_USAGE;
}
