/*
 * Data-movement kernels (Transpose, Slice, Expand, Tile, Concat, Split,
 * Gather, GatherElements, Pad, Range, fills). They never look at values,
 * only at bytes: every routine takes an element size, so one kernel serves
 * every dtype. The workhorse is mv_copy_nd, a strided N-d copy; the ops
 * describe themselves to it as "output index -> input offset" strides.
 */
#ifndef CAIRN_KERNELS_MOVEMENT_H
#define CAIRN_KERNELS_MOVEMENT_H

#include "kernels/ktensor.h"

#include <stddef.h>
#include <stdint.h>

/* The most dims mv_copy_nd takes (Tile views a tensor with twice its rank). */
#define MV_MAX_DIMS (2 * CAIRN_MAX_RANK)

/* Copies the `rank`-d box `shape` from src to dst; strides are in elements
 * and may be negative (src) or zero (src, broadcast). */
void mv_copy_nd(int rank, const int64_t *shape, void *dst, const int64_t *dst_st,
                const void *src, const int64_t *src_st, size_t esize);

/* out[i...] = in[i[perm[0]], ...]: out dim d is in dim perm[d]. */
void mv_transpose(const ktensor_t *in, const int *perm, ktensor_t *out);
/* out dim d takes in index start[d] + i * step[d]; out's shape says how many. */
void mv_slice(const ktensor_t *in, const int64_t *start, const int64_t *step, ktensor_t *out);
/* numpy broadcast of in to out's shape. */
void mv_expand(const ktensor_t *in, ktensor_t *out);
/* out[i] = in[i mod in.shape]: out.shape[d] must be a multiple of in.shape[d]. */
void mv_tile(const ktensor_t *in, ktensor_t *out);
/* Concatenates / splits along axis (every tensor has the same rank). */
void mv_concat(const ktensor_t *in, int n_in, int axis, ktensor_t *out);
void mv_split(const ktensor_t *in, int axis, ktensor_t *out, int n_out);

/* Gather along axis with i32/i64 indices (negative counts from the end).
 * An index out of range is CAIRN_ERR_RUNTIME, checked before any read. */
cairn_status_t mv_gather(const ktensor_t *data, const ktensor_t *indices, int axis,
                         ktensor_t *out);
cairn_status_t mv_gather_elements(const ktensor_t *data, const ktensor_t *indices, int axis,
                                  ktensor_t *out);

typedef enum mv_pad_mode { MV_PAD_CONSTANT = 0, MV_PAD_REFLECT, MV_PAD_EDGE } mv_pad_mode_t;
/* out index o along dim d reads in index o - begin[d] (begin may be negative:
 * a crop); positions outside the input take `value` (esize bytes), the
 * nearest edge, or the mirror image (without repeating the edge). */
void mv_pad(const ktensor_t *in, const int64_t *begin, mv_pad_mode_t mode, const void *value,
            ktensor_t *out);

/* dst[0..n) = value (esize bytes). */
void mv_fill(void *dst, int64_t n, const void *value, size_t esize);

/* out[i] = start + i * delta for i < n, in the out dtype. Integers exactly
 * (int64 arithmetic); floats in double, rounded once. */
void mv_range_int(cairn_dtype_t t, int64_t start, int64_t delta, void *out, int64_t n);
void mv_range_float(cairn_dtype_t t, double start, double delta, void *out, int64_t n);

#endif
