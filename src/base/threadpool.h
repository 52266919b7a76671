/*
 * A persistent thread pool with parallel-for over 1-D and 2-D tile ranges.
 *
 * Workers are created once and wait for work; dispatch wakes them with one
 * atomic store (they spin briefly before sleeping on a futex/condvar), so a
 * parallel-for of tiny tasks costs microseconds, not a thread creation.
 * The calling thread takes part as worker 0; a pool of n threads starts
 * n-1 workers. Tiles are handed out by an atomic counter, so uneven tiles
 * balance themselves.
 *
 * One pool runs one parallel-for at a time (a session owns its pool);
 * calls from inside a task run serially in the calling thread.
 */
#ifndef CAIRN_BASE_THREADPOOL_H
#define CAIRN_BASE_THREADPOOL_H

#include "cairn.h"
#include <stddef.h>
#include <stdint.h>

typedef struct base_pool base_pool_t;

/* task(ctx, tile index range [begin, end), worker id in [0, threads)) */
typedef void (*base_task_1d_fn)(void *ctx, size_t begin, size_t end, int worker);
/* task(ctx, i0 range, i1 range, worker id) for a tile of a 2-D range */
typedef void (*base_task_2d_fn)(void *ctx, size_t i0, size_t n0, size_t i1, size_t n1,
                                int worker);

/* Optional busy-time accounting for the profiler. While attached, each
 * dispatched parallel-for reads the pointer once: every worker adds the time
 * it spent running chunks to busy_ns[worker], and the caller adds the time
 * from dispatch to the end of the join to region_ns. Serial parallel-fors
 * (one thread, one chunk, nested) are not counted: they are the caller's own
 * time. Detached (NULL, the default) it costs one load and branch per
 * parallel-for, nothing per chunk. */
typedef struct base_pool_tstat {
    _Alignas(64) uint64_t busy_ns; /* one cache line per thread */
} base_pool_tstat_t;

typedef struct base_pool_stats {
    uint64_t region_ns;
    uint64_t jobs;
    base_pool_tstat_t *t; /* base_pool_threads() entries */
} base_pool_stats_t;

/* threads <= 0: one per online CPU. */
cairn_status_t base_pool_create(int threads, base_pool_t **out);
void base_pool_destroy(base_pool_t *p);
int base_pool_threads(const base_pool_t *p);

/* Attaches (or with NULL detaches) busy-time accounting; call it only
 * between parallel-fors. */
void base_pool_set_stats(base_pool_t *p, base_pool_stats_t *stats);

/* Kernel thread ids of the pool's threads (out[0] is the caller's), for
 * per-thread hardware counters; waits until every worker has started.
 * Returns the count written (at most cap). */
int base_pool_thread_ids(base_pool_t *p, int *out, int cap);

/* Runs task over [0, n) in chunks of `grain` items (grain 0: n/threads).
 * p may be NULL: then the task runs serially in the caller. */
void base_pool_parallel_for_1d(base_pool_t *p, size_t n, size_t grain,
                               base_task_1d_fn task, void *ctx);

/* Runs task over the n0 x n1 range in tiles of t0 x t1 (0: whole extent). */
void base_pool_parallel_for_2d(base_pool_t *p, size_t n0, size_t n1, size_t t0,
                               size_t t1, base_task_2d_fn task, void *ctx);

#endif
