/*
 * What kernels see of a tensor: data pointer, element type, dense row-major
 * shape. Kernels know nothing of graphs, nodes or plans; they take these
 * views (or plain pointers and sizes) and a small context with the thread
 * pool. No file under src/kernels/ includes an IR or runtime header.
 */
#ifndef CAIRN_KERNELS_KTENSOR_H
#define CAIRN_KERNELS_KTENSOR_H

#include "base/status.h"
#include "base/threadpool.h"
#include "cairn.h"

#include <stdint.h>

typedef cairn_tensor_t ktensor_t;

typedef struct kctx {
    base_pool_t *pool;  /* may be NULL: run serially */
    int threads;
} kctx_t;

static inline int64_t kt_numel(const ktensor_t *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

/* Row-major element strides of t into st (st[rank-1] == 1). */
static inline void kt_strides(const ktensor_t *t, int64_t *st)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        st[i] = s;
        s *= t->shape[i];
    }
}

/* Strides for reading `t` as if broadcast to out_rank dims (numpy rules):
 * dims of size 1 and missing leading dims get stride 0. */
static inline void kt_broadcast_strides(const ktensor_t *t, int out_rank, int64_t *st)
{
    int64_t s = 1;
    int off = out_rank - t->rank;
    for (int i = out_rank - 1; i >= 0; i--) {
        int j = i - off;
        if (j < 0) {
            st[i] = 0;
        } else {
            st[i] = t->shape[j] == 1 ? 0 : s;
            s *= t->shape[j];
        }
    }
}

#endif
