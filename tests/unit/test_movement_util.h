/*
 * Shared helpers of the movement tests: run one op through the public API
 * (graph -> session -> run) and hand back its outputs. Data arguments become
 * graph inputs (so the kernel runs as a plan step); arguments marked const
 * become constants (so shape-valued inputs are known, as in real models).
 * Each op runs three times: into session buffers, then into caller buffers
 * poisoned with two different byte patterns; the two poisoned runs must
 * agree, so an element the kernel forgets to write cannot go unnoticed.
 */
#ifndef TEST_MOVEMENT_UTIL_H
#define TEST_MOVEMENT_UTIL_H

#include "check.h"

#include <stdlib.h>
#include <string.h>

typedef struct mt_arg {
    cairn_dtype_t dtype; /* UNDEFINED: an omitted optional input */
    int rank;
    int64_t shape[CAIRN_MAX_RANK];
    const void *data;
    int is_const;
} mt_arg_t;

#define MT_IN(dt, ptr, r, ...) ((mt_arg_t){(dt), (r), {__VA_ARGS__}, (ptr), 0})
#define MT_CONST(dt, ptr, r, ...) ((mt_arg_t){(dt), (r), {__VA_ARGS__}, (ptr), 1})
#define MT_NONE ((mt_arg_t){CAIRN_DTYPE_UNDEFINED, 0, {0}, NULL, 0})

typedef struct mt_out {
    cairn_dtype_t dtype;
    int rank;
    int64_t shape[CAIRN_MAX_RANK];
    void *data; /* malloc'd; mt_free */
} mt_out_t;

static inline void mt_free(mt_out_t *o, int n)
{
    for (int i = 0; i < n; i++) {
        free(o[i].data);
        o[i].data = NULL;
    }
}

static inline int64_t mt_numel(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

static inline cairn_status_t mt_run(const char *op, const mt_arg_t *a, int na,
                                    const cairn_attr_t *attrs, int nattr, mt_out_t *outs, int nout)
{
    cairn_graph_t *g = NULL;
    cairn_session_t *s = NULL;
    cairn_status_t st;
    cairn_value_id ids[64], oids[64];
    cairn_tensor_t tin[64], tout[64];
    int nin = 0;
    memset(outs, 0, sizeof(mt_out_t) * (size_t)nout);
    if ((st = cairn_graph_create(&g)) != CAIRN_OK)
        return st;
    for (int i = 0; i < na; i++) {
        char name[32];
        snprintf(name, sizeof name, "a%d", i);
        if (a[i].dtype == CAIRN_DTYPE_UNDEFINED) {
            ids[i] = -1;
            continue;
        }
        cairn_tensor_t t = {a[i].dtype, a[i].rank, {0}, (void *)a[i].data};
        memcpy(t.shape, a[i].shape, sizeof t.shape);
        if (a[i].is_const) {
            st = cairn_graph_add_constant(g, name, &t, &ids[i]);
        } else {
            st = cairn_graph_add_input(g, name, a[i].dtype, a[i].rank, a[i].shape, NULL, &ids[i]);
            tin[nin++] = t;
        }
        if (st != CAIRN_OK)
            goto done;
    }
    if ((st = cairn_graph_add_node(g, op, "n", ids, na, attrs, nattr, oids, nout, NULL)) !=
        CAIRN_OK)
        goto done;
    for (int o = 0; o < nout; o++)
        if ((st = cairn_graph_mark_output(g, oids[o])) != CAIRN_OK)
            goto done;
    cairn_session_options_t opt = cairn_session_options_default();
    opt.threads = 1;
    if ((st = cairn_session_create(g, &opt, &s)) != CAIRN_OK)
        goto done;
    memset(tout, 0, sizeof(cairn_tensor_t) * (size_t)nout);
    if ((st = cairn_session_run(s, tin, nin, tout, nout)) != CAIRN_OK)
        goto done;
    void *second[64];
    for (int o = 0; o < nout; o++) {
        size_t bytes = cairn_tensor_bytes(&tout[o]);
        outs[o].dtype = tout[o].dtype;
        outs[o].rank = tout[o].rank;
        memcpy(outs[o].shape, tout[o].shape, sizeof outs[o].shape);
        outs[o].data = malloc(bytes + 1);
        second[o] = malloc(bytes + 1);
        memset(outs[o].data, 0xCD, bytes);
        memset(second[o], 0x32, bytes);
    }
    for (int pass = 0; pass < 2 && st == CAIRN_OK; pass++) {
        for (int o = 0; o < nout; o++)
            tout[o].data = pass ? second[o] : outs[o].data;
        st = cairn_session_run(s, tin, nin, tout, nout);
    }
    for (int o = 0; o < nout; o++) {
        if (st == CAIRN_OK)
            CHECK_MSG(memcmp(outs[o].data, second[o], cairn_tensor_bytes(&tout[o])) == 0,
                      "%s: output %d has unwritten elements", op, o);
        free(second[o]);
    }
done:
    if (st != CAIRN_OK)
        mt_free(outs, nout);
    cairn_session_destroy(s);
    cairn_graph_destroy(g);
    return st;
}

/* Runs op with one output and checks its shape and bytes against want. */
static inline void mt_expect(const char *what, const char *op, const mt_arg_t *a, int na,
                             const cairn_attr_t *attrs, int nattr, cairn_dtype_t dt, int rank,
                             const int64_t *shape, const void *want)
{
    mt_out_t o;
    cairn_status_t st = mt_run(op, a, na, attrs, nattr, &o, 1);
    CHECK_MSG(st == CAIRN_OK, "%s: %s: %s", what, cairn_status_string(st), cairn_last_error());
    if (st != CAIRN_OK)
        return;
    int ok = o.dtype == dt && o.rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = o.shape[i] == shape[i];
    CHECK_MSG(ok, "%s: wrong dtype/shape (rank %d, first dim %lld)", what, o.rank,
              (long long)(o.rank > 0 ? o.shape[0] : -1));
    if (ok)
        CHECK_MSG(memcmp(o.data, want, (size_t)mt_numel(rank, shape) * cairn_dtype_size(dt)) == 0,
                  "%s: wrong values", what);
    mt_free(&o, 1);
}

#endif
