/*
 * Aligned allocation. Buffers that kernels stream through are aligned to a
 * cache line (64 bytes), which is also the widest vector (AVX-512), so
 * aligned loads are legal and no access splits a line.
 */
#ifndef CAIRN_BASE_ALLOC_H
#define CAIRN_BASE_ALLOC_H

#include <stddef.h>

#define BASE_ALIGN 64
/* Allocations of at least this many bytes (the plan's arena and
 * workspace, kernel scratch, weight blobs) are 2 MB aligned, rounded up to
 * 2 MB and asked to be backed by transparent huge pages (madvise; Linux's
 * default "madvise" mode grants them): the kernels' strided walks (C tiles
 * MR rows apart, B rows in place, a convolution's planes) then miss the
 * TLB far less. ResNet-50 on a Xeon VM, alternating: 42.7 -> 42.3 ms on 1
 * thread, 24.9 -> 24.6 on 2; the transformer models level; peak RSS
 * unchanged. CAIRN_HUGE_PAGES=0 turns it off (read once). */
#define BASE_HUGE_MIN ((size_t)4 << 20)
int base_huge_pages(void);

/* Returns NULL on failure or when size is 0 rounds to nothing useful;
 * free with base_aligned_free. align must be a power of two. */
void *base_aligned_alloc(size_t size, size_t align);
void base_aligned_free(void *p);

/* Scratch kept for the life of the process: a free slot of at least
 * `bytes` (64-byte aligned; grown when too small), marked busy until
 * base_scratch_put(p, *slot). Kernels take their temporary buffers here so
 * that a run allocates nothing once the slots have grown (32 slots, any
 * thread; when all are busy it falls back to an allocation, slot -1, which
 * base_scratch_put frees). NULL when the memory cannot be had. */
void *base_scratch_get(size_t bytes, int *slot);
void base_scratch_put(void *p, int slot);

/* Rounds n up to a multiple of a (a power of two). */
static inline size_t base_round_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

/* n*m without overflow: returns 0 and leaves *out alone on overflow. */
int base_mul_size(size_t n, size_t m, size_t *out);

#endif
