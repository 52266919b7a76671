/*
 * Aligned allocation. Buffers that kernels stream through are aligned to a
 * cache line (64 bytes), which is also the widest vector (AVX-512), so
 * aligned loads are legal and no access splits a line.
 */
#ifndef CAIRN_BASE_ALLOC_H
#define CAIRN_BASE_ALLOC_H

#include <stddef.h>

#define BASE_ALIGN 64

/* Returns NULL on failure or when size is 0 rounds to nothing useful;
 * free with base_aligned_free. align must be a power of two. */
void *base_aligned_alloc(size_t size, size_t align);
void base_aligned_free(void *p);

/* Rounds n up to a multiple of a (a power of two). */
static inline size_t base_round_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

/* n*m without overflow: returns 0 and leaves *out alone on overflow. */
int base_mul_size(size_t n, size_t m, size_t *out);

#endif
