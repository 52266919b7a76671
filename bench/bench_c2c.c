/*
 * What it costs one core to use data another core just wrote: the round
 * trip of a cache line bounced between two threads pinned to CPUs a and b
 * (each waits for the other's store), and the rate at which the thread on
 * b reads a block that the thread on a has just written, against a
 * re-reading its own block. On the development VM (Zen 2, 2 vCPUs) the
 * round trip measured 55-60 ns at some times of 2026-12-03 and 370-480 ns
 * at others, minutes apart: the host moves the vCPUs between cores that
 * share an L3 and cores that do not (or deschedules one), and every
 * 2-thread figure moves with it. bench/gemm.sh and bench/models.sh record
 * the round trip before and after their runs.
 *
 *   build/bench/bench_c2c [cpu_a] [cpu_b] [block_kib]
 */
#define _GNU_SOURCE
#include "base/clock.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BOUNCES = 100000, BATCHES = 7, BLOCK_ROUNDS = 41 };

static _Atomic int64_t flag __attribute__((aligned(64)));
static _Atomic int phase __attribute__((aligned(64)));
static float *block;
static size_t block_n;
static volatile float sink;

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void write_block(float v)
{
    for (size_t i = 0; i < block_n; i++)
        block[i] = v + (float)i;
}

/* one float per 64-byte line into 8 independent sums, so that the loop
 * waits on the lines rather than on its own additions */
static void read_block(void)
{
    float s[8] = {0};
    for (size_t i = 0; i + 128 <= block_n; i += 128)
        for (int u = 0; u < 8; u++)
            s[u] += block[i + 16 * (size_t)u];
    sink = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

/* the thread on cpu b: answers each bounce, then for each block round
 * waits for a's block and reads it, timing the read */
static void *partner(void *arg)
{
    int cpu = *(int *)arg;
    if (pin(cpu) != 0)
        return (void *)1;
    for (int64_t i = 0; i < (int64_t)BATCHES * BOUNCES; i++) {
        while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 1)
            ;
        atomic_store_explicit(&flag, 2 * i + 2, memory_order_release);
    }
    double *t = malloc(sizeof(double) * BLOCK_ROUNDS);
    for (int r = 0; r < BLOCK_ROUNDS && t; r++) {
        while (atomic_load_explicit(&phase, memory_order_acquire) != 2 * r + 1)
            ;
        uint64_t t0 = base_now_ns();
        read_block();
        t[r] = (double)(base_now_ns() - t0);
        atomic_store_explicit(&phase, 2 * r + 2, memory_order_release);
    }
    return t;
}

int main(int argc, char **argv)
{
    int a = argc > 1 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
    int kib = argc > 3 ? atoi(argv[3]) : 256;
    if (a < 0 || b < 0 || a == b || kib < 4 || kib % 4) {
        fprintf(stderr, "usage: bench_c2c [cpu_a] [cpu_b != cpu_a] [block_kib >= 4, a multiple of 4]\n");
        return 2;
    }
    block_n = (size_t)kib * 1024 / sizeof(float);
    block = aligned_alloc(64, block_n * sizeof(float));
    if (!block)
        return 1;
    if (pin(a) != 0) {
        fprintf(stderr, "bench_c2c: cannot run on cpu %d\n", a);
        return 1;
    }
    pthread_t th;
    if (pthread_create(&th, NULL, partner, &b) != 0)
        return 1;
    double rt[BATCHES];
    for (int bt = 0; bt < BATCHES; bt++) {
        uint64_t t0 = base_now_ns();
        for (int64_t i = (int64_t)bt * BOUNCES; i < (int64_t)(bt + 1) * BOUNCES; i++) {
            atomic_store_explicit(&flag, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 2)
                ;
        }
        rt[bt] = (double)(base_now_ns() - t0) / BOUNCES;
    }
    /* block rounds: a writes, b reads (timed in partner); then a writes
     * again and re-reads it itself (timed here) */
    double own[BLOCK_ROUNDS];
    for (int r = 0; r < BLOCK_ROUNDS; r++) {
        write_block((float)r);
        atomic_store_explicit(&phase, 2 * r + 1, memory_order_release);
        while (atomic_load_explicit(&phase, memory_order_acquire) != 2 * r + 2)
            ;
        write_block((float)r + 0.5f);
        uint64_t t0 = base_now_ns();
        read_block();
        own[r] = (double)(base_now_ns() - t0);
    }
    void *ret;
    pthread_join(th, &ret);
    if (ret == (void *)1 || !ret) {
        fprintf(stderr, "bench_c2c: the partner could not run on cpu %d\n", b);
        return 1;
    }
    double *other = ret;
    qsort(rt, BATCHES, sizeof(double), cmp_double);
    qsort(own, BLOCK_ROUNDS, sizeof(double), cmp_double);
    qsort(other, BLOCK_ROUNDS, sizeof(double), cmp_double);
    const double bytes = (double)block_n * sizeof(float);
    printf("cache-line round trip cpu %d <-> cpu %d: %.0f ns (median of %d x %d)\n", a, b,
           rt[BATCHES / 2], BATCHES, BOUNCES);
    printf("read a %d KiB block just written by cpu %d: on cpu %d itself %.1f GB/s, on cpu %d "
           "%.1f GB/s (medians of %d)\n",
           kib, a, a, bytes / own[BLOCK_ROUNDS / 2], b, bytes / other[BLOCK_ROUNDS / 2],
           BLOCK_ROUNDS);
    free(other);
    free(block);
    return 0;
}
