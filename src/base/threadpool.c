/*
 * Thread pool (see threadpool.h).
 *
 * Dispatch: the caller publishes a job and bumps `gen`; workers that are
 * spinning see it within a few hundred nanoseconds. A worker that has spun
 * for SPIN_NS without work goes to sleep on a condition variable; the
 * caller takes the mutex to broadcast only when some worker sleeps. The
 * sleeper count and gen are both sequentially consistent, so either the
 * caller sees the sleeper (and wakes it) or the sleeper sees the new gen
 * (and does not sleep): no wake-up is lost.
 *
 * Work: chunks are claimed with fetch_add on `next`, the caller works too,
 * then it waits (spinning: the wait is at most one chunk long) until every
 * worker has left the job.
 */
#define _GNU_SOURCE
#include "base/threadpool.h"

#include "base/alloc.h"
#include "base/clock.h"
#include "base/status.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

#define SPIN_NS 200000u /* how long an idle worker spins before sleeping */

typedef struct job {
    base_task_1d_fn fn;
    void *ctx;
    size_t n, grain, chunks;
    base_pool_stats_t *stats; /* NULL unless the profiler is attached */
} job_t;

struct base_pool {
    int threads;
    pthread_t *tids;
    _Atomic int *ktids; /* kernel thread id of each worker, 0 until it starts */
    base_pool_stats_t *stats;
    job_t job;
    /* written by the caller once per job, read by every worker */
    _Alignas(64) _Atomic unsigned long gen;
    _Atomic int sleepers;
    /* written by everyone while a job runs: kept off gen's line */
    _Alignas(64) _Atomic size_t next; /* next chunk to claim */
    _Alignas(64) _Atomic int busy;    /* workers still inside the current job */
    _Atomic int stop;
    _Alignas(64) pthread_mutex_t mu;
    pthread_cond_t cv;
};

static _Thread_local int tl_in_pool_task;

typedef struct worker_arg {
    base_pool_t *pool;
    int id;
} worker_arg_t;

static void run_chunks(base_pool_t *p, int worker)
{
    const job_t *j = &p->job;
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (c >= j->chunks)
            break;
        size_t b = c * j->grain;
        size_t e = b + j->grain < j->n ? b + j->grain : j->n;
        j->fn(j->ctx, b, e, worker);
    }
}

/* The stats pointer is read once per job, so detached accounting costs one
 * branch per job, not per chunk. */
static void run_job(base_pool_t *p, int worker)
{
    base_pool_stats_t *st = p->job.stats;
    if (!st) {
        run_chunks(p, worker);
        return;
    }
    uint64_t t0 = base_now_ns();
    run_chunks(p, worker);
    st->t[worker].busy_ns += base_now_ns() - t0;
}

static void *worker_main(void *arg)
{
    worker_arg_t wa = *(worker_arg_t *)arg;
    free(arg);
    base_pool_t *p = wa.pool;
    unsigned long seen = 0; /* gen at creation: a job published before this thread ran is not missed */
    tl_in_pool_task = 1;
    atomic_store(&p->ktids[wa.id], (int)syscall(SYS_gettid));
    for (;;) {
        /* spin, then sleep, until gen moves */
        uint64_t t0 = 0;
        unsigned spins = 0;
        while (atomic_load_explicit(&p->gen, memory_order_acquire) == seen) {
            CPU_RELAX();
            if ((++spins & 255u) == 0) {
                uint64_t now = base_now_ns();
                if (!t0)
                    t0 = now;
                else if (now - t0 > SPIN_NS) {
                    pthread_mutex_lock(&p->mu);
                    atomic_fetch_add(&p->sleepers, 1);
                    while (atomic_load(&p->gen) == seen)
                        pthread_cond_wait(&p->cv, &p->mu);
                    atomic_fetch_sub(&p->sleepers, 1);
                    pthread_mutex_unlock(&p->mu);
                    break;
                }
            }
        }
        seen = atomic_load_explicit(&p->gen, memory_order_acquire);
        if (atomic_load(&p->stop))
            break;
        run_job(p, wa.id);
        atomic_fetch_sub_explicit(&p->busy, 1, memory_order_release);
    }
    return NULL;
}

static void publish(base_pool_t *p)
{
    atomic_fetch_add(&p->gen, 1);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

cairn_status_t base_pool_create(int threads, base_pool_t **out)
{
    if (!out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "base_pool_create: out is NULL");
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    base_pool_t *p = base_aligned_alloc(sizeof *p, _Alignof(base_pool_t));
    if (!p)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    memset(p, 0, sizeof *p);
    p->threads = threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->tids = calloc((size_t)threads, sizeof(pthread_t));
    p->ktids = calloc((size_t)threads, sizeof(*p->ktids));
    if (!p->tids || !p->ktids) {
        free(p->tids);
        free((void *)p->ktids);
        base_aligned_free(p);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (int i = 1; i < threads; i++) {
        worker_arg_t *wa = malloc(sizeof *wa);
        if (!wa || (wa->pool = p, wa->id = i, pthread_create(&p->tids[i], NULL, worker_main, wa))) {
            free(wa);
            p->threads = i; /* destroy joins the ones started */
            base_pool_destroy(p);
            return base_error(CAIRN_ERR_RUNTIME, "could not start worker thread %d of %d", i,
                              threads);
        }
    }
    *out = p;
    return CAIRN_OK;
}

void base_pool_destroy(base_pool_t *p)
{
    if (!p)
        return;
    atomic_store(&p->stop, 1);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->gen, 1);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->threads; i++)
        pthread_join(p->tids[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->tids);
    free((void *)p->ktids);
    base_aligned_free(p);
}

int base_pool_threads(const base_pool_t *p) { return p ? p->threads : 1; }

void base_pool_set_stats(base_pool_t *p, base_pool_stats_t *stats)
{
    if (p)
        p->stats = stats;
}

int base_pool_thread_ids(base_pool_t *p, int *out, int cap)
{
    if (cap <= 0)
        return 0;
    out[0] = (int)syscall(SYS_gettid);
    int n = p ? p->threads : 1;
    if (n > cap)
        n = cap;
    for (int i = 1; i < n; i++) {
        int t;
        while (!(t = atomic_load(&p->ktids[i])))
            sched_yield();
        out[i] = t;
    }
    return n;
}

void base_pool_parallel_for_1d(base_pool_t *p, size_t n, size_t grain, base_task_1d_fn task,
                               void *ctx)
{
    if (n == 0)
        return;
    int nt = p ? p->threads : 1;
    if (grain == 0)
        grain = (n + (size_t)nt - 1) / (size_t)nt;
    size_t chunks = (n + grain - 1) / grain;
    if (!p || nt == 1 || chunks == 1 || tl_in_pool_task) {
        for (size_t b = 0; b < n; b += grain)
            task(ctx, b, b + grain < n ? b + grain : n, 0);
        return;
    }
    p->job.fn = task;
    p->job.ctx = ctx;
    p->job.n = n;
    p->job.grain = grain;
    p->job.chunks = chunks;
    base_pool_stats_t *st = p->job.stats = p->stats;
    uint64_t r0 = st ? base_now_ns() : 0;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->busy, nt - 1, memory_order_relaxed);
    publish(p);
    tl_in_pool_task = 1;
    run_job(p, 0);
    tl_in_pool_task = 0;
    while (atomic_load_explicit(&p->busy, memory_order_acquire) > 0)
        CPU_RELAX();
    if (st) {
        st->region_ns += base_now_ns() - r0;
        st->jobs++;
    }
}

typedef struct tiles2d {
    base_task_2d_fn fn;
    void *ctx;
    size_t n0, n1, t0, t1, tiles1;
} tiles2d_t;

static void run_tiles2d(void *arg, size_t b, size_t e, int worker)
{
    const tiles2d_t *t = arg;
    for (size_t k = b; k < e; k++) {
        size_t i0 = (k / t->tiles1) * t->t0, i1 = (k % t->tiles1) * t->t1;
        size_t c0 = i0 + t->t0 < t->n0 ? t->t0 : t->n0 - i0;
        size_t c1 = i1 + t->t1 < t->n1 ? t->t1 : t->n1 - i1;
        t->fn(t->ctx, i0, c0, i1, c1, worker);
    }
}

void base_pool_parallel_for_2d(base_pool_t *p, size_t n0, size_t n1, size_t t0, size_t t1,
                               base_task_2d_fn task, void *ctx)
{
    if (n0 == 0 || n1 == 0)
        return;
    tiles2d_t t = {task, ctx, n0, n1, t0 ? t0 : n0, t1 ? t1 : n1, 0};
    t.tiles1 = (n1 + t.t1 - 1) / t.t1;
    size_t tiles = ((n0 + t.t0 - 1) / t.t0) * t.tiles1;
    base_pool_parallel_for_1d(p, tiles, 1, run_tiles2d, &t);
}
