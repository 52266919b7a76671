/*
 * What profiling costs: the demo encoder block run with profiling off
 * (cairn_session_run) and on (cairn_session_run_profiled, counters
 * included where the kernel allows), alternating so drift hits both alike,
 * and the medians compared. Usage: bench_profile_overhead [seq] [rounds]
 * [threads] (defaults 64, 40, 0 = one per CPU).
 */
#define _POSIX_C_SOURCE 200809L
#include "../tools/cairn/demo.c"

#include "base/clock.h"
#include "runtime/session_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int seq = argc > 1 ? atoi(argv[1]) : 64, rounds = argc > 2 ? atoi(argv[2]) : 40;
    int threads = argc > 3 ? atoi(argv[3]) : 0;
    if (seq < 1 || rounds < 1 || threads < 0) {
        fprintf(stderr, "usage: bench_profile_overhead [seq>=1] [rounds>=1] [threads>=0]\n");
        return 2;
    }
    demo_config_t c = demo_config_default();
    cairn_graph_t *g = NULL;
    cairn_session_t *s = NULL;
    if (demo_build(&c, &g) != CAIRN_OK) {
        fprintf(stderr, "demo: %s\n", cairn_last_error());
        return 1;
    }
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = threads;
    if (cairn_session_create(g, &o, &s) != CAIRN_OK) {
        fprintf(stderr, "session: %s\n", cairn_last_error());
        return 1;
    }
    size_t n = (size_t)seq * (size_t)c.d_model;
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
    cairn_tensor_t in = {CAIRN_F32, 3, {1, seq, c.d_model}, x}, out;
    profile_t *p = profile_create(1);
    double *off = malloc(sizeof(double) * (size_t)rounds), *on = malloc(sizeof(double) * (size_t)rounds);
    for (int r = -3; r < rounds; r++) { /* three warm-up pairs */
        for (int k = 0; k < 2; k++) {
            int prof = (r + k) % 2; /* alternate which goes first */
            memset(&out, 0, sizeof out);
            uint64_t t0 = base_now_ns();
            cairn_status_t st = prof ? cairn_session_run_profiled(s, &in, 1, &out, 1, p)
                                     : cairn_session_run(s, &in, 1, &out, 1);
            double ms = base_ns_to_ms(base_now_ns() - t0);
            if (st != CAIRN_OK) {
                fprintf(stderr, "run: %s\n", cairn_last_error());
                return 1;
            }
            if (r >= 0)
                (prof ? on : off)[r] = ms;
        }
    }
    double m_off = median(off, rounds), m_on = median(on, rounds);
    printf("demo seq=%d, %d threads, %d steps, counters %s\n", seq,
           p->threads, p->n_steps, p->counters ? "on" : "unavailable");
    printf("median off %.4f ms, on %.4f ms, overhead %+.2f%% (%d alternating rounds)\n", m_off,
           m_on, 100.0 * (m_on - m_off) / m_off, rounds);
    profile_destroy(p);
    free(off), free(on), free(x);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
    return 0;
}
