/*
 * cairn calibrate: measure this machine's peak rates -- f32 FMA (zmm and
 * ymm), bf16 dot, int8 dot, copy and triad bandwidth -- on 1 thread and on
 * all threads, print them and write the machine file (profile/machine.h)
 * that the profiler and `cairn bench` compare against.
 *
 * calibrate_measure() is also used by `cairn bench` when no machine file
 * exists yet. Exit codes: 0 ok, 1 the file could not be written or memory
 * ran out, 2 a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include "base/cpu.h"
#include "base/threadpool.h"
#include "cmd.h"
#include "kernels/calib/calib.h"
#include "profile/machine.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAL_MAX_THREADS 1024

static void cal_usage(FILE *f)
{
    fprintf(f, "usage: cairn calibrate [--quick] [--threads T] [--mem-mib N] [--json]\n"
               "\n"
               "Measures this machine's peak rates on 1 thread and on T threads: f32 FMA\n"
               "(vfmadd231ps on zmm and ymm), bf16 dot (vdpbf16ps), int8 dot (vpdpbusd, or\n"
               "without VNNI the AVX2 path's vpmaddwd on 16-bit pairs),\n"
               "each where the CPU has it, and memory bandwidth (STREAM copy and triad over\n"
               "arrays larger than the last-level cache). Prints them and writes the\n"
               "machine file: $CAIRN_MACHINE_FILE, else ~/.cache/cairn/machine.json.\n"
               "\n"
               "options:\n"
               "  --quick      short runs (about 2 s in all); less stable figures\n"
               "  --threads T  the 'all threads' count (default: one per CPU)\n"
               "  --mem-mib N  the bandwidth arrays' total size in MiB (default: 4x the L3\n"
               "               or 1024, whichever is smaller)\n"
               "  --json       print the machine file's JSON on stdout instead of a table\n"
               "  -h, --help   show this help\n"
               "\n"
               "Exit status: 0 ok, 1 the file could not be written, 2 a usage error.\n");
}

size_t calibrate_default_mem_bytes(void)
{
    const size_t gib = (size_t)1 << 30;
    size_t l3 = base_cpu()->l3;
    if (!l3 || l3 > gib / 4)
        return gib;
    return 4 * l3 < ((size_t)64 << 20) ? ((size_t)64 << 20) : 4 * l3;
}

int calibrate_measure(const int *threads, int n_threads, int quick, size_t mem_bytes,
                      machine_info_t *m, FILE *err)
{
    const base_cpu_t *c = base_cpu();
    snprintf(m->cpu, sizeof m->cpu, "%s", c->model[0] ? c->model : c->vendor);
    snprintf(m->isa, sizeof m->isa, "%s", cairn_isa_name(c->best_isa));
    base_cpu_features_string(c, m->features, sizeof m->features);
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv))
        strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", &tmv);

    int max_t = 1;
    for (int i = 0; i < n_threads; i++)
        max_t = threads[i] > max_t ? threads[i] : max_t;
    base_pool_t *pool = NULL;
    if (max_t > 1 && base_pool_create(max_t, &pool) != CAIRN_OK) {
        fprintf(err, "cairn: cannot start %d threads: %s\n", max_t, cairn_last_error());
        return 1;
    }
    double secs = quick ? 0.03 : 0.2;
    int reps = quick ? 2 : 3, bw_reps = quick ? 2 : 5;
    calib_arrays_t arr;
    memset(&arr, 0, sizeof arr);
    if (mem_bytes && calib_arrays_alloc(&arr, mem_bytes, pool, max_t) != 0) {
        fprintf(err,
                "cairn: cannot allocate %zu MiB for the bandwidth arrays; try --mem-mib "
                "with less\n",
                mem_bytes >> 20);
        base_pool_destroy(pool);
        return 1;
    }
    for (int i = 0; i < n_threads; i++) {
        int t = threads[i];
        base_pool_t *p = t > 1 ? pool : NULL;
        machine_peaks_t r;
        memset(&r, 0, sizeof r);
        r.threads = t;
        double zmm = calib_compute_rate(p, t, CALIB_F32_FMA_ZMM, secs, reps) * 1e-9;
        r.f32_ymm_gflops = calib_compute_rate(p, t, CALIB_F32_FMA_YMM, secs, reps) * 1e-9;
        r.f32_gflops = zmm > r.f32_ymm_gflops ? zmm : r.f32_ymm_gflops;
        r.bf16_gflops = calib_compute_rate(p, t, CALIB_BF16_DOT, secs, reps) * 1e-9;
        r.s8_gops = calib_compute_rate(p, t, CALIB_S8_DOT_ZMM, secs, reps) * 1e-9;
        if (r.s8_gops <= 0)
            r.s8_gops = calib_compute_rate(p, t, CALIB_S8_DOT_YMM, secs, reps) * 1e-9;
        /* no VNNI: the AVX2 int8 GEMM's own instructions (16-bit pairs) */
        if (r.s8_gops <= 0)
            r.s8_gops = calib_compute_rate(p, t, CALIB_S8_MADD_YMM, secs, reps) * 1e-9;
        if (arr.n) {
            r.copy_gbs = calib_bandwidth(p, t, CALIB_BW_COPY, &arr, bw_reps) * 1e-9;
            r.triad_gbs = calib_bandwidth(p, t, CALIB_BW_TRIAD, &arr, bw_reps) * 1e-9;
        }
        if (machine_set(m, &r) != CAIRN_OK) {
            fprintf(err, "cairn: %s\n", cairn_last_error());
            calib_arrays_free(&arr);
            base_pool_destroy(pool);
            return 1;
        }
    }
    calib_arrays_free(&arr);
    base_pool_destroy(pool);
    return 0;
}

static void print_cell(double v)
{
    if (v > 0)
        printf(" %12.1f", v);
    else
        printf(" %12s", "n/a");
}

static void print_table(const machine_info_t *m, size_t mem_bytes)
{
    printf("cpu        %s\nisa        %s\n\n", m->cpu, m->isa);
    printf("%-26s", "peak");
    for (int i = 0; i < m->n_rows; i++) {
        char h[32];
        snprintf(h, sizeof h, "%d thread%s", m->rows[i].threads, m->rows[i].threads > 1 ? "s" : "");
        printf(" %12s", h);
    }
    printf("\n");
    static const struct {
        const char *label;
        size_t off;
    } lines[] = {
        {"f32 FMA zmm+ymm  GFLOP/s", offsetof(machine_peaks_t, f32_gflops)},
        {"f32 FMA ymm      GFLOP/s", offsetof(machine_peaks_t, f32_ymm_gflops)},
        {"bf16 dot         GFLOP/s", offsetof(machine_peaks_t, bf16_gflops)},
        {"int8 dot         GOP/s", offsetof(machine_peaks_t, s8_gops)},
        {"copy             GB/s", offsetof(machine_peaks_t, copy_gbs)},
        {"triad            GB/s", offsetof(machine_peaks_t, triad_gbs)},
    };
    for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
        printf("%-26s", lines[l].label);
        for (int i = 0; i < m->n_rows; i++)
            print_cell(*(const double *)((const char *)&m->rows[i] + lines[l].off));
        printf("\n");
    }
    printf("\nf32 FMA zmm+ymm is the better of the two widths; n/a: the CPU lacks the\n"
           "instruction. Bandwidth: STREAM byte counts over 3 arrays, %zu MiB in all.\n",
           mem_bytes >> 20);
}

static int parse_count(const char *flag, const char *v, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long x = (v && v[0] >= '0' && v[0] <= '9') ? strtol(v, &end, 10) : 0;
    if (!v || !end || *end || errno) {
        fprintf(stderr, "cairn calibrate: %s: '%s' is not a whole number\n", flag, v ? v : "");
        return 0;
    }
    if (x < lo || x > hi) {
        fprintf(stderr, "cairn calibrate: %s: %ld is out of range (%ld to %ld)\n", flag, x, lo, hi);
        return 0;
    }
    *out = x;
    return 1;
}

int cmd_calibrate(int argc, char **argv)
{
    int quick = 0, json = 0;
    long threads = 0, mem_mib = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            cal_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--threads") || !strcmp(a, "--mem-mib")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cairn calibrate: %s needs a value\n", a);
                return 2;
            }
            int ok = !strcmp(a, "--threads")
                         ? parse_count(a, argv[++i], 1, CAL_MAX_THREADS, &threads)
                         : parse_count(a, argv[++i], 1, 1 << 20, &mem_mib);
            if (!ok)
                return 2;
        } else {
            fprintf(stderr, "cairn calibrate: unknown option '%s' (see cairn calibrate --help)\n",
                    a);
            return 2;
        }
    }
    char path[4096];
    if (machine_file_path(path, sizeof path) != CAIRN_OK) {
        fprintf(stderr, "cairn calibrate: %s\n", cairn_last_error());
        return 1;
    }
    int all = threads > 0 ? (int)threads : base_cpu()->logical_cpus;
    if (all < 1)
        all = 1;
    int list[2] = {1, all};
    size_t mem = mem_mib > 0 ? (size_t)mem_mib << 20 : calibrate_default_mem_bytes();
    machine_info_t m;
    memset(&m, 0, sizeof m);
    if (calibrate_measure(list, all > 1 ? 2 : 1, quick, mem, &m, stderr) != 0)
        return 1;
    if (machine_write(path, &m) != CAIRN_OK) {
        fprintf(stderr, "cairn calibrate: %s\n", cairn_last_error());
        return 1;
    }
    if (json) {
        machine_print_json(stdout, &m);
        fprintf(stderr, "cairn calibrate: wrote %s\n", path);
    } else {
        print_table(&m, mem);
        printf("\nwrote %s%s\n", path,
               quick ? " (--quick: rerun without it for steadier figures)" : "");
    }
    return 0;
}
