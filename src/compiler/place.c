/*
 * Constant placement: the constants the nodes read (after prepack, the
 * packed weights above all) are moved into one mapping, in the order in
 * which the nodes first read them, that starts on a 2 MiB boundary and is
 * asked to be backed by transparent huge pages (ir_blob_alloc_huge); each
 * value's payload becomes a view of its piece (ir_blob_view).
 *
 * Why: a model whose weights do not stay in the last-level cache between
 * runs reads each of them from memory once per run, and with 4 KiB pages
 * every page of them is a TLB miss (MobileNetV2's 14 MB are 3500 pages,
 * more than Zen 4's 3072-entry L2 TLB holds) and a restart of the
 * hardware prefetcher. With the weights on 2 MiB pages, MobileNetV2 on 1
 * thread ran 6.33 -> 6.20 ms (Zen 4, alternating, medians of 7), its 7x7
 * blocks 10-18 us faster each and the classifier (5 MB of weights) 26 us.
 *
 * Only blobs that this graph's values alone hold are moved (their
 * reference count is the number of values that carry them): a blob that
 * the caller's graph shares (cairn_session_create without _taking) would
 * otherwise be kept twice. They are copied one at a time and each old
 * blob released as soon as its values hold the new view, so the peak is
 * the placed bytes plus the largest of them. Graphs whose movable
 * constants are under PLACE_MIN in all are left as they are: they fit in
 * few pages and the caches anyway.
 */
#include "compiler/pass.h"

#include "base/alloc.h"
#include "base/status.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PLACE_MIN ((size_t)2 << 20)

typedef struct entry {
    ir_blob_t *blob;
    int count;     /* values of the graph that carry it */
    int first;     /* in `vals`: its values, count of them from here */
    int64_t order; /* placement order (-1: not read by a node, or not movable) */
    size_t offset;
} entry_t;

static int by_blob(const void *a, const void *b)
{
    const uintptr_t x = (uintptr_t)((const entry_t *)a)->blob;
    const uintptr_t y = (uintptr_t)((const entry_t *)b)->blob;
    return x < y ? -1 : x > y;
}

static int by_order(const void *a, const void *b)
{
    const int64_t x = ((const entry_t *)a)->order, y = ((const entry_t *)b)->order;
    return x < y ? -1 : x > y;
}

static entry_t *find(entry_t *e, int n, const ir_blob_t *b)
{
    entry_t key = {(ir_blob_t *)b, 0, 0, 0, 0};
    return bsearch(&key, e, (size_t)n, sizeof *e, by_blob);
}

static size_t round_align(size_t n) { return (n + BASE_ALIGN - 1) / BASE_ALIGN * BASE_ALIGN; }

cairn_status_t compiler_place_constants(ir_graph_t *g, size_t min_bytes)
{
    if (!g)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "place: null graph");
    /* the distinct blobs of the graph's constants, with their values */
    int nb = 0;
    for (int v = 0; v < g->n_values; v++)
        nb += g->values[v].kind == IR_VALUE_CONSTANT && g->values[v].blob != NULL;
    if (nb == 0)
        return CAIRN_OK;
    entry_t *e = calloc((size_t)nb, sizeof *e);
    int *vals = malloc((size_t)nb * sizeof *vals);
    if (!e || !vals) {
        free(e), free(vals);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "place: out of memory");
    }
    int k = 0;
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].kind == IR_VALUE_CONSTANT && g->values[v].blob)
            e[k++].blob = g->values[v].blob;
    qsort(e, (size_t)nb, sizeof *e, by_blob);
    int n = 0; /* distinct */
    for (int i = 0; i < nb; i++)
        if (n == 0 || e[n - 1].blob != e[i].blob)
            e[n++] = (entry_t){e[i].blob, 0, 0, -1, 0};
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].kind == IR_VALUE_CONSTANT && g->values[v].blob)
            find(e, n, g->values[v].blob)->count++;
    for (int i = 0, at = 0; i < n; i++)
        e[i].first = at, at += e[i].count, e[i].count = 0;
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].kind == IR_VALUE_CONSTANT && g->values[v].blob) {
            entry_t *x = find(e, n, g->values[v].blob);
            vals[x->first + x->count++] = v;
        }
    /* order of first reading; movable: held by these values alone, not a
     * view already (placed before), not empty */
    int64_t order = 0;
    size_t total = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node_t *nd = &g->nodes[i];
        for (int j = 0; j < nd->n_inputs; j++) {
            const int v = nd->inputs[j];
            if (v < 0 || g->values[v].kind != IR_VALUE_CONSTANT || !g->values[v].blob)
                continue;
            entry_t *x = find(e, n, g->values[v].blob);
            const ir_blob_t *b = x->blob;
            if (x->order >= 0 || b->parent || b->size == 0 ||
                atomic_load_explicit(&b->refs, memory_order_acquire) != x->count)
                continue;
            x->order = order++;
            x->offset = total;
            total += round_align(b->size);
        }
    }
    cairn_status_t st = CAIRN_OK;
    if (total == 0 || total < min_bytes)
        goto done;
    ir_blob_t *arena = ir_blob_alloc_huge(total);
    if (!arena) /* not an error: the constants stay where they are */
        goto done;
    /* movable ones first, in placement order */
    for (int i = 0; i < n; i++)
        if (e[i].order < 0)
            e[i].order = INT64_MAX;
    qsort(e, (size_t)n, sizeof *e, by_order);
    for (int i = 0; i < n && e[i].order != INT64_MAX; i++) {
        ir_blob_t *old = e[i].blob;
        memcpy((char *)arena->data + e[i].offset, old->data, old->size);
        ir_blob_t *view = ir_blob_view(arena, e[i].offset, old->size);
        if (!view) {
            st = base_error(CAIRN_ERR_OUT_OF_MEMORY, "place: out of memory");
            break;
        }
        /* the last of these releases old */
        for (int q = 0; q < e[i].count; q++)
            ir_value_set_blob(&g->values[vals[e[i].first + q]], view);
        ir_blob_unref(view);
    }
    ir_blob_unref(arena); /* the views hold it now */
done:
    free(e), free(vals);
    return st;
}

cairn_status_t pass_place(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    return compiler_place_constants(g, PLACE_MIN);
}
