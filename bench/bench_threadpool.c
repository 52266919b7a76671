/*
 * Dispatch overhead of the thread pool: a parallel-for of empty tasks, one
 * task per thread, timed over many rounds; the median of several batches is
 * reported. For scale, the same fork-join done by creating and joining
 * threads each time is measured in the same run.
 *
 *   build/bench/bench_threadpool [threads] [rounds]
 */
#include "base/clock.h"
#include "base/threadpool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void empty_task(void *ctx, size_t b, size_t e, int worker)
{
    (void)ctx, (void)b, (void)e, (void)worker;
}

static void *empty_thread(void *arg) { return arg; }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    int rounds = argc > 2 ? atoi(argv[2]) : 20000;
    if (threads < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_threadpool [threads >= 1] [rounds >= 1]\n");
        return 2;
    }
    base_pool_t *pool;
    if (base_pool_create(threads, &pool) != CAIRN_OK) {
        fprintf(stderr, "could not create the pool\n");
        return 1;
    }
    enum { BATCHES = 15 };
    double pool_ns[BATCHES], spawn_ns[BATCHES];
    for (int r = 0; r < 1000; r++) /* warm up */
        base_pool_parallel_for_1d(pool, (size_t)threads, 1, empty_task, NULL);
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = base_now_ns();
        for (int r = 0; r < rounds; r++)
            base_pool_parallel_for_1d(pool, (size_t)threads, 1, empty_task, NULL);
        pool_ns[b] = (double)(base_now_ns() - t0) / rounds;
    }
    int spawn_rounds = rounds / 20 > 0 ? rounds / 20 : 1;
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = base_now_ns();
        for (int r = 0; r < spawn_rounds; r++) {
            for (int t = 1; t < threads; t++)
                pthread_create(&tids[t], NULL, empty_thread, NULL);
            for (int t = 1; t < threads; t++)
                pthread_join(tids[t], NULL);
        }
        spawn_ns[b] = (double)(base_now_ns() - t0) / spawn_rounds;
    }
    qsort(pool_ns, BATCHES, sizeof(double), cmp_double);
    qsort(spawn_ns, BATCHES, sizeof(double), cmp_double);
    printf("threads %d, %d dispatches per batch, median of %d batches\n", threads, rounds, BATCHES);
    printf("  pool parallel-for (empty tasks): %8.0f ns per dispatch (min %.0f, max %.0f)\n",
           pool_ns[BATCHES / 2], pool_ns[0], pool_ns[BATCHES - 1]);
    printf("  pthread create+join per call:    %8.0f ns per fork-join\n", spawn_ns[BATCHES / 2]);
    printf("  ratio spawn / pool:              %8.1fx\n", spawn_ns[BATCHES / 2] / pool_ns[BATCHES / 2]);
    free(tids);
    base_pool_destroy(pool);
    return 0;
}
