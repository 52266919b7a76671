/*
 * Constant folding at compile time: a node whose inputs are all constants
 * runs once now (its op's own exec), and its outputs become constants. So
 * do Shape and Size of a value whose shape is static. The plan still folds
 * what only becomes constant once input shapes are bound; this pass folds
 * what is constant for every run, so later passes see the constants
 * (a LayerNorm's epsilon behind an Identity, a weight behind a Transpose).
 */
#include "compiler/rewrite.h"

#include "base/alloc.h"
#include "base/dtype.h"

#include <string.h>

/* Folding writes the whole output into memory held for the session's
 * life: beyond this the plan-time folding (or the run) is the better place. */
#define FOLD_MAX_BYTES ((size_t)256 << 20)

static void fold_kt(ktensor_t *kt, const ir_type_t *t, void *data)
{
    memset(kt, 0, sizeof *kt);
    kt->dtype = t->dtype;
    kt->rank = t->shape.rank;
    for (int i = 0; i < t->shape.rank; i++)
        kt->shape[i] = t->shape.d[i];
    kt->data = data;
}

static int foldable(const ir_graph_t *g, const ir_node_t *n)
{
    const char *op = ir_op_def(n->op)->name;
    /* random generators are not constant, whatever their inputs */
    if (!strncmp(op, "Random", 6) || !strcmp(op, "Multinomial") || !strcmp(op, "Bernoulli"))
        return 0;
    if (n->n_inputs > 64 || n->n_outputs > 64)
        return 0;
    if (!strcmp(op, "Shape") || !strcmp(op, "Size"))
        return n->inputs[0] >= 0 && g->values[n->inputs[0]].type.shape.rank >= 0 &&
               ir_shape_is_concrete(&g->values[n->inputs[0]].type.shape);
    for (int j = 0; j < n->n_inputs; j++) {
        int v = n->inputs[j];
        if (v >= 0 && g->values[v].kind != IR_VALUE_CONSTANT)
            return 0;
    }
    return 1;
}

/* Runs node i; on success its outputs are constants. Returns CAIRN_OK and
 * *done = 0 when the node cannot be folded now (shapes not concrete). */
static cairn_status_t fold_one(ir_graph_t *g, int i, const kctx_t *k, int *done)
{
    ir_node_t *n = &g->nodes[i];
    const ir_op_def_t *d = ir_op_def(n->op);
    ir_type_t out_t[64];
    ktensor_t in[64], out[64];
    void *bufs[64] = {0};
    size_t sizes[64];
    *done = 0;
    /* inference at plan-time strictness: every shape must come out concrete */
    if (ir_infer_node(g, n, 0, out_t) != CAIRN_OK) {
        base_error_clear();
        return CAIRN_OK;
    }
    for (int o = 0; o < n->n_outputs; o++) {
        int64_t ne = ir_shape_numel(&out_t[o].shape);
        if (ne < 0 || !base_mul_size((size_t)ne, cairn_dtype_size(out_t[o].dtype), &sizes[o]) ||
            sizes[o] > FOLD_MAX_BYTES)
            return CAIRN_OK;
    }
    for (int j = 0; j < n->n_inputs; j++) {
        int v = n->inputs[j];
        if (v < 0)
            memset(&in[j], 0, sizeof in[j]);
        else
            fold_kt(&in[j], &g->values[v].type, g->values[v].data);
    }
    cairn_status_t s = CAIRN_OK;
    for (int o = 0; o < n->n_outputs && s == CAIRN_OK; o++) {
        bufs[o] = base_aligned_alloc(sizes[o], BASE_ALIGN);
        if (!bufs[o])
            s = base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
        fold_kt(&out[o], &out_t[o], bufs[o]);
    }
    void *ws = NULL;
    if (s == CAIRN_OK) {
        size_t wsb = d->workspace(n, in, n->n_inputs, out, n->n_outputs);
        ws = wsb ? base_aligned_alloc(wsb, BASE_ALIGN) : NULL;
        if (wsb && !ws)
            s = base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (s == CAIRN_OK)
        s = d->exec(n, in, n->n_inputs, out, n->n_outputs, ws, k);
    base_aligned_free(ws);
    if (s != CAIRN_OK) {
        for (int o = 0; o < n->n_outputs; o++)
            base_aligned_free(bufs[o]);
        if (s == CAIRN_ERR_OUT_OF_MEMORY)
            return s;
        /* a kernel that rejects its constant inputs fails the same way at
         * run time, with the node named: leave it to the plan */
        base_error_clear();
        return CAIRN_OK;
    }
    ir_blob_t *blobs[64];
    for (int o = 0; o < n->n_outputs; o++) {
        blobs[o] = ir_blob_adopt(bufs[o], sizes[o]);
        bufs[o] = NULL;
        if (!blobs[o])
            s = base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (s != CAIRN_OK) {
        for (int o = 0; o < n->n_outputs; o++)
            ir_blob_unref(blobs[o]);
        return s;
    }
    for (int o = 0; o < n->n_outputs; o++) {
        ir_value_t *v = &g->values[n->outputs[o]];
        v->kind = IR_VALUE_CONSTANT;
        v->type = out_t[o];
        ir_value_set_blob(v, blobs[o]);
        ir_blob_unref(blobs[o]); /* the value holds it now */
        v->producer = -1;
    }
    *done = 1;
    return CAIRN_OK;
}

cairn_status_t pass_fold(ir_graph_t *g, const pass_ctx_t *c)
{
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    for (int i = 0; i < g->n_nodes; i++) {
        int done = 0;
        if (!foldable(g, &g->nodes[i]))
            continue;
        cairn_status_t s = fold_one(g, i, c ? c->k : NULL, &done);
        if (s != CAIRN_OK) {
            rw_free(&r);
            return base_error_prefix(s, "folding node '%s': ", g->nodes[i].name);
        }
        if (done)
            r.dead[i] = 1;
    }
    return rw_finish(&r);
}
