/*
 * Hardware counters through Linux perf_event_open: cycles, instructions,
 * cache references, cache misses and L1D read misses, opened as one event
 * group per thread (so the five are scheduled together and read with one
 * read()), counting user space only (what perf_event_paranoid <= 2 allows).
 *
 * Where the kernel refuses (paranoid level, seccomp, a VM without a PMU)
 * pc_open reports it unavailable with a reason, and everything else becomes
 * a no-op returning zeros: callers carry on without counters. Events that a
 * PMU lacks (L1D misses on some CPUs) are left out of the group and read as
 * "not available" rather than failing the rest.
 */
#ifndef CAIRN_PROFILE_PERF_COUNTERS_H
#define CAIRN_PROFILE_PERF_COUNTERS_H

#include <stdint.h>
#include <stdio.h>

enum {
    PC_CYCLES = 0,
    PC_INSTRUCTIONS,
    PC_CACHE_REFS,
    PC_CACHE_MISSES,
    PC_L1D_MISSES,
    PC_N
};

/* Short names, e.g. "cycles", "l1d_misses" (for JSON keys, CSV columns). */
const char *pc_name(int counter);

typedef struct pc_set pc_set_t;

/* Opens one group per thread id in tids[0..n) (0 means the calling thread).
 * Always returns a set (NULL only when out of memory); pc_available() says
 * whether it counts. */
pc_set_t *pc_open(const int *tids, int n);
void pc_close(pc_set_t *s);
int pc_available(const pc_set_t *s);
/* Which counters are present (bit i for counter i). */
unsigned pc_mask(const pc_set_t *s);
/* Why counters are unavailable ("" when they are). */
const char *pc_reason(const pc_set_t *s);

/* Current totals over all threads' groups (zeros when unavailable). */
void pc_read(pc_set_t *s, uint64_t out[PC_N]);

/* Writes "hardware counters unavailable: REASON" to f the first time it is
 * called with an unavailable set in this process; later calls say nothing. */
void pc_warn_once(const pc_set_t *s, FILE *f);

/* Tests: make the next perf_event_open calls fail with errno = err (0 turns
 * the injection off). */
void pc_inject_failure(int err);

#endif
