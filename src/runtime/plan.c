/* Plan building (binding, folding, liveness, arena) and execution. */
#include "runtime/plan.h"

#include "base/alloc.h"
#include "base/clock.h"
#include "base/dtype.h"
#include "ir/ops/fused.h"
#include "ir/ops/quant.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/mbconv.h"
#include "kernels/eltwise/fused.h"
#include "kernels/attn/attn.h"
#include "kernels/gemm/gemm.h"
#include "kernels/norm/fast.h"
#include "kernels/pool/fast.h"
#include "kernels/quant/quant.h"
#include "profile/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cairn_status_t oom(void) { return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory"); }

static void to_ktensor(ktensor_t *kt, const ir_type_t *t, void *data)
{
    memset(kt, 0, sizeof *kt);
    kt->dtype = t->dtype;
    kt->rank = t->shape.rank;
    for (int i = 0; i < t->shape.rank; i++)
        kt->shape[i] = t->shape.d[i];
    kt->data = data;
}

static cairn_status_t type_bytes(const ir_type_t *t, size_t *out)
{
    int64_t n = ir_shape_numel(&t->shape);
    if (n < 0 || !base_mul_size((size_t)n, cairn_dtype_size(t->dtype), out))
        return base_error(CAIRN_ERR_SHAPE, "tensor size overflows");
    return CAIRN_OK;
}

void plan_destroy(plan_t *p)
{
    if (!p)
        return;
    for (int s = 0; s < p->n_steps; s++) {
        free(p->steps[s].in);
        free(p->steps[s].out);
        free(p->steps[s].in_ref);
        free(p->steps[s].out_ref);
    }
    free(p->steps);
    if (p->value_data && p->owned)
        for (int v = 0; v < p->graph->n_values; v++)
            if (p->owned[v])
                base_aligned_free(p->value_data[v]);
    free(p->value_data);
    free(p->owned);
    free(p->types);
    free(p->sym_values);
    base_aligned_free(p->arena);
    base_aligned_free(p->ws);
    if (p->out_bufs)
        for (int o = 0; o < p->graph->n_outputs; o++)
            base_aligned_free(p->out_bufs[o]);
    free(p->out_bufs);
    free(p->out_bytes);
    free(p->out_src);
    free(p->out_copy);
    free(p);
}

/* Binds the symbols from the inputs' concrete shapes, checking every
 * static dim and every repeated symbol. */
static cairn_status_t bind_inputs(plan_t *p, const ir_type_t *in_types)
{
    const ir_graph_t *g = p->graph;
    for (int s = 0; s < g->n_symbols; s++)
        p->sym_values[s] = -1;
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_value_t *v = &g->values[g->inputs[i]];
        const ir_type_t *t = &in_types[i];
        char want[256], got[256];
        ir_shape_str(g, &v->type.shape, want, sizeof want);
        ir_shape_str(NULL, &t->shape, got, sizeof got);
        if (t->dtype != v->type.dtype)
            return base_error(CAIRN_ERR_DTYPE, "input '%s' must be %s, got %s", v->name,
                              cairn_dtype_name(v->type.dtype), cairn_dtype_name(t->dtype));
        if (t->shape.rank != v->type.shape.rank)
            return base_error(CAIRN_ERR_SHAPE, "input '%s' must have shape %s (rank %d), got %s",
                              v->name, want, v->type.shape.rank, got);
        for (int d = 0; d < t->shape.rank; d++) {
            int64_t have = t->shape.d[d], decl = v->type.shape.d[d];
            if (have < 0)
                return base_error(CAIRN_ERR_SHAPE, "input '%s': dimension %d is negative (%s)",
                                  v->name, d, got);
            if (decl >= 0 && have != decl)
                return base_error(CAIRN_ERR_SHAPE, "input '%s' must have shape %s, got %s "
                                  "(dimension %d)", v->name, want, got, d);
            if (ir_dim_is_sym(decl)) {
                int sym = ir_dim_sym_id(decl);
                if (p->sym_values[sym] < 0)
                    p->sym_values[sym] = have;
                else if (p->sym_values[sym] != have)
                    return base_error(CAIRN_ERR_SHAPE,
                                      "input '%s': dimension %d is symbol '%s' = %lld, but an "
                                      "earlier input bound it to %lld",
                                      v->name, d, g->symbols[sym], (long long)have,
                                      (long long)p->sym_values[sym]);
            }
        }
        p->types[g->inputs[i]] = *t;
    }
    return CAIRN_OK;
}

/* Executes node n at plan time into plan-owned buffers (constant folding). */
static cairn_status_t fold_node(plan_t *p, const ir_node_t *n, const kctx_t *k)
{
    ktensor_t in[64], out[64];
    for (int i = 0; i < n->n_inputs; i++) {
        int v = n->inputs[i];
        if (v < 0)
            memset(&in[i], 0, sizeof in[i]);
        else
            to_ktensor(&in[i], &p->types[v], p->value_data[v]);
    }
    for (int o = 0; o < n->n_outputs; o++) {
        int v = n->outputs[o];
        size_t bytes;
        BASE_TRY(type_bytes(&p->types[v], &bytes));
        void *buf = base_aligned_alloc(bytes, BASE_ALIGN);
        if (!buf)
            return oom();
        p->value_data[v] = buf;
        p->owned[v] = 1;
        p->const_bytes += bytes;
        to_ktensor(&out[o], &p->types[v], buf);
    }
    const ir_op_def_t *d = ir_op_def(n->op);
    size_t wsb = d->workspace(n, in, n->n_inputs, out, n->n_outputs);
    void *ws = wsb ? base_aligned_alloc(wsb, BASE_ALIGN) : NULL;
    if (wsb && !ws)
        return oom();
    cairn_status_t s = d->exec(n, in, n->n_inputs, out, n->n_outputs, ws, k);
    base_aligned_free(ws);
    return s;
}

typedef struct live {
    int value;
    int first, last; /* step indices */
    size_t bytes, offset;
} live_t;

static int cmp_live_size(const void *a, const void *b)
{
    const live_t *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->first - y->first;
}

/* Greedy by size: each value goes at the lowest offset that does not
 * overlap a value already placed whose lifetime intersects its own. */
static size_t assign_offsets(live_t *lv, int n)
{
    size_t peak = 0;
    qsort(lv, (size_t)n, sizeof *lv, cmp_live_size);
    for (int i = 0; i < n; i++) {
        size_t off = 0;
        int moved = 1;
        while (moved) {
            moved = 0;
            for (int j = 0; j < i; j++) {
                if (lv[j].last < lv[i].first || lv[i].last < lv[j].first)
                    continue;
                if (off < lv[j].offset + lv[j].bytes && lv[j].offset < off + lv[i].bytes) {
                    off = base_round_up(lv[j].offset + lv[j].bytes, BASE_ALIGN);
                    moved = 1;
                }
            }
        }
        lv[i].offset = off;
        if (off + lv[i].bytes > peak)
            peak = off + lv[i].bytes;
    }
    return peak;
}

/* The graph input whose value, were it known, would let value v be
 * computed at plan time: a walk back through producers of non-constant
 * values to a small graph input that is not yet specialised. */
static int find_value_input(const plan_t *p, int v)
{
    const ir_graph_t *g = p->graph;
    int *stack = malloc(((size_t)g->n_values + 1) * sizeof(int));
    unsigned char *seen = calloc((size_t)g->n_values + 1, 1);
    int found = -1, top = 0;
    if (!stack || !seen)
        goto done;
    stack[top++] = v;
    seen[v] = 1;
    while (top > 0 && found < 0) {
        int w = stack[--top];
        if (p->value_data[w])
            continue;
        const ir_value_t *val = &g->values[w];
        if (val->kind == IR_VALUE_INPUT) {
            int64_t n = ir_shape_numel(&p->types[w].shape);
            if (n < 0 || n > PLAN_MAX_VALUE_INPUT)
                continue;
            for (int i = 0; i < g->n_inputs; i++)
                if (g->inputs[i] == w)
                    found = i;
            continue;
        }
        if (val->producer < 0)
            continue;
        const ir_node_t *n = &g->nodes[val->producer];
        for (int j = 0; j < n->n_inputs; j++) {
            int u = n->inputs[j];
            if (u >= 0 && !seen[u]) {
                seen[u] = 1;
                stack[top++] = u;
            }
        }
    }
done:
    free(stack);
    free(seen);
    return found;
}

cairn_status_t plan_build(const ir_graph_t *g, const ir_type_t *in_types,
                          const void *const *in_values, const kctx_t *k, plan_t **out,
                          int *need_input)
{
    if (need_input)
        *need_input = -1;
    cairn_status_t s = CAIRN_OK;
    plan_t *p = calloc(1, sizeof *p);
    if (!p)
        return oom();
    p->graph = g;
    /* Shape and Size read only their input's shape: fold them always */
    const int shape_op = ir_op_find("Shape"), size_op = ir_op_find("Size");
    /* ops whose output is their first input's bytes under another shape:
     * the output becomes a view of the input (no step, no copy) */
    const int view_ops[5] = {ir_op_find("Reshape"), ir_op_find("Flatten"), ir_op_find("Squeeze"),
                             ir_op_find("Unsqueeze"), ir_op_find("Identity")};
    int nv = g->n_values;
    p->types = calloc((size_t)nv + 1, sizeof *p->types);
    p->value_data = calloc((size_t)nv + 1, sizeof *p->value_data);
    p->owned = calloc((size_t)nv + 1, 1);
    p->sym_values = calloc((size_t)g->n_symbols + 1, sizeof *p->sym_values);
    p->steps = calloc((size_t)g->n_nodes + 1, sizeof *p->steps);
    p->out_bufs = calloc((size_t)g->n_outputs + 1, sizeof *p->out_bufs);
    p->out_bytes = calloc((size_t)g->n_outputs + 1, sizeof *p->out_bytes);
    p->out_src = calloc((size_t)g->n_outputs + 1, sizeof *p->out_src);
    p->out_copy = calloc((size_t)g->n_outputs + 1, 1);
    int *step_of = malloc(((size_t)nv + 1) * sizeof(int));     /* producing step, -1 */
    int *last_use = malloc(((size_t)nv + 1) * sizeof(int));    /* last consuming step */
    int *out_slot = malloc(((size_t)nv + 1) * sizeof(int));    /* first output slot, -1 */
    int *root = malloc(((size_t)nv + 1) * sizeof(int));        /* storage owner (views) */
    unsigned char *is_gout = calloc((size_t)nv + 1, 1);        /* a graph output */
    live_t *lv = calloc((size_t)nv + 1, sizeof *lv);
    if (!p->types || !p->value_data || !p->owned || !p->sym_values || !p->steps || !p->out_bufs ||
        !p->out_bytes || !p->out_src || !p->out_copy || !step_of || !last_use || !out_slot ||
        !lv || !root || !is_gout) {
        s = oom();
        goto done;
    }
    for (int v = 0; v < nv; v++) {
        step_of[v] = -1;
        last_use[v] = -1;
        out_slot[v] = -1;
        root[v] = v;
        if (g->values[v].kind == IR_VALUE_CONSTANT) {
            p->types[v] = g->values[v].type;
            p->value_data[v] = g->values[v].data;
        }
    }
    for (int o = 0; o < g->n_outputs; o++)
        is_gout[g->outputs[o]] = 1;
    if ((s = bind_inputs(p, in_types)) != CAIRN_OK)
        goto done;
    for (int i = 0; in_values && i < g->n_inputs; i++) {
        int v = g->inputs[i];
        size_t bytes;
        if (!in_values[i])
            continue;
        if ((s = type_bytes(&p->types[v], &bytes)) != CAIRN_OK)
            goto done;
        void *copy = base_aligned_alloc(bytes, BASE_ALIGN);
        if (!copy) {
            s = oom();
            goto done;
        }
        if (bytes)
            memcpy(copy, in_values[i], bytes);
        p->value_data[v] = copy;
        p->owned[v] = 1;
    }

    /* inference, folding, steps */
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        const ir_op_def_t *d = ir_op_def(n->op);
        ir_type_t in_t[64], out_t[64];
        const void *in_d[64];
        int all_const = 1;
        for (int j = 0; j < n->n_inputs; j++) {
            int v = n->inputs[j];
            if (v < 0) {
                memset(&in_t[j], 0, sizeof in_t[j]);
                in_d[j] = NULL;
                continue;
            }
            in_t[j] = p->types[v];
            in_d[j] = p->value_data[v];
            if (!in_d[j] && ir_shape_numel(&in_t[j].shape) != 0)
                all_const = 0;
        }
        memset(out_t, 0, sizeof(ir_type_t) * (size_t)n->n_outputs);
        int missing = -1;
        ir_infer_ctx_t c = {g, n, 0, n->n_inputs, in_t, in_d, n->n_outputs, out_t, &missing};
        if ((s = d->infer(&c)) != CAIRN_OK) {
            if (need_input && missing >= 0 && n->inputs[missing] >= 0)
                *need_input = find_value_input(p, n->inputs[missing]);
            base_error_prefix(s, "node '%s' (%s): ", n->name, d->name);
            goto done;
        }
        for (int o = 0; o < n->n_outputs; o++) {
            size_t bytes;
            if (!ir_shape_is_concrete(&out_t[o].shape)) {
                s = base_error(CAIRN_ERR_INTERNAL, "node '%s' (%s): output %d has no concrete "
                               "shape after inference", n->name, d->name, o);
                goto done;
            }
            if (type_bytes(&out_t[o], &bytes) != CAIRN_OK) {
                s = base_error(CAIRN_ERR_SHAPE, "node '%s' (%s): output %d is too large",
                               n->name, d->name, o);
                goto done;
            }
            p->types[n->outputs[o]] = out_t[o];
        }
        if (all_const || (n->op >= 0 && (n->op == shape_op || n->op == size_op))) {
            if ((s = fold_node(p, n, k)) != CAIRN_OK) {
                base_error_prefix(s, "node '%s' (%s), folding: ", n->name, d->name);
                goto done;
            }
            continue;
        }
        /* a view: the output shares the input's storage (a graph output
         * keeps its copy into the caller's buffer) */
        int is_view = 0;
        for (int q = 0; q < 5; q++)
            is_view |= view_ops[q] >= 0 && n->op == view_ops[q];
        if (is_view && n->n_outputs == 1 && n->n_inputs >= 1 && n->inputs[0] >= 0 &&
            !is_gout[n->outputs[0]] &&
            p->types[n->inputs[0]].dtype == p->types[n->outputs[0]].dtype) {
            root[n->outputs[0]] = root[n->inputs[0]];
            continue;
        }
        plan_step_t *st = &p->steps[p->n_steps];
        st->node = i;
        st->n = n;
        st->exec = d->exec;
        st->n_in = n->n_inputs;
        st->n_out = n->n_outputs;
        st->in = calloc((size_t)n->n_inputs + 1, sizeof(ktensor_t));
        st->out = calloc((size_t)n->n_outputs + 1, sizeof(ktensor_t));
        st->in_ref = calloc((size_t)n->n_inputs + 1, sizeof(plan_ref_t));
        st->out_ref = calloc((size_t)n->n_outputs + 1, sizeof(plan_ref_t));
        p->n_steps++;
        if (!st->in || !st->out || !st->in_ref || !st->out_ref) {
            s = oom();
            goto done;
        }
        for (int j = 0; j < n->n_inputs; j++) {
            int v = n->inputs[j];
            if (v >= 0) {
                to_ktensor(&st->in[j], &p->types[v], NULL);
                last_use[root[v]] = p->n_steps - 1;
            }
        }
        for (int o = 0; o < n->n_outputs; o++) {
            to_ktensor(&st->out[o], &p->types[n->outputs[o]], NULL);
            step_of[n->outputs[o]] = p->n_steps - 1;
        }
        st->ws_bytes = d->workspace(n, st->in, st->n_in, st->out, st->n_out);
        d->cost(n, st->in, st->n_in, st->out, st->n_out, &st->cost);
        if (st->ws_bytes > p->ws_bytes)
            p->ws_bytes = st->ws_bytes;
    }

    /* outputs: the first slot naming a step-produced value is written in
     * place; every other output is copied at the end of the run */
    for (int o = 0; o < g->n_outputs; o++) {
        int v = g->outputs[o];
        if ((s = type_bytes(&p->types[v], &p->out_bytes[o])) != CAIRN_OK)
            goto done;
        p->out_bufs[o] = base_aligned_alloc(p->out_bytes[o], BASE_ALIGN);
        if (!p->out_bufs[o]) {
            s = oom();
            goto done;
        }
        if (step_of[v] >= 0 && out_slot[v] < 0)
            out_slot[v] = o;
        else
            p->out_copy[o] = 1;
    }

    /* liveness and the arena */
    int nl = 0;
    for (int v = 0; v < nv; v++) {
        if (step_of[v] < 0 || out_slot[v] >= 0)
            continue;
        lv[nl].value = v;
        lv[nl].first = step_of[v];
        lv[nl].last = last_use[v] > step_of[v] ? last_use[v] : step_of[v];
        if ((s = type_bytes(&p->types[v], &lv[nl].bytes)) != CAIRN_OK)
            goto done;
        lv[nl].bytes = base_round_up(lv[nl].bytes ? lv[nl].bytes : 1, BASE_ALIGN);
        nl++;
    }
    p->arena_bytes = assign_offsets(lv, nl);
    size_t *offset_of = calloc((size_t)nv + 1, sizeof(size_t));
    if (!offset_of) {
        s = oom();
        goto done;
    }
    for (int i = 0; i < nl; i++)
        offset_of[lv[i].value] = lv[i].offset;
    p->arena = base_aligned_alloc(p->arena_bytes, BASE_ALIGN);
    p->ws = p->ws_bytes ? base_aligned_alloc(p->ws_bytes, BASE_ALIGN) : NULL;
    if (!p->arena || (p->ws_bytes && !p->ws)) {
        free(offset_of);
        s = oom();
        goto done;
    }

    /* where each step's tensors live */
    int *input_index = malloc(((size_t)nv + 1) * sizeof(int));
    if (!input_index) {
        free(offset_of);
        s = oom();
        goto done;
    }
    for (int v = 0; v < nv; v++)
        input_index[v] = -1;
    for (int i = 0; i < g->n_inputs; i++)
        input_index[g->inputs[i]] = i;
#define REF_OF(ref, v0)                                                 \
    do {                                                                \
        const int v = (v0) < 0 ? (v0) : root[v0];                       \
        if ((v) < 0) {                                                  \
            (ref).kind = PLAN_BUF_NONE;                                 \
        } else if (p->value_data[v] || step_of[v] < 0) {                \
            if (input_index[v] >= 0) {                                  \
                (ref).kind = PLAN_BUF_INPUT;                            \
                (ref).index = input_index[v];                           \
            } else {                                                    \
                (ref).kind = PLAN_BUF_CONST;                            \
                (ref).ptr = p->value_data[v];                           \
            }                                                           \
        } else if (out_slot[v] >= 0) {                                  \
            (ref).kind = PLAN_BUF_OUTPUT;                               \
            (ref).index = out_slot[v];                                  \
        } else {                                                        \
            (ref).kind = PLAN_BUF_ARENA;                                \
            (ref).offset = offset_of[v];                                \
        }                                                               \
    } while (0)
    for (int si = 0; si < p->n_steps; si++) {
        plan_step_t *st = &p->steps[si];
        for (int j = 0; j < st->n_in; j++)
            REF_OF(st->in_ref[j], st->n->inputs[j]);
        for (int o = 0; o < st->n_out; o++)
            REF_OF(st->out_ref[o], st->n->outputs[o]);
    }
    for (int o = 0; o < g->n_outputs; o++)
        if (p->out_copy[o])
            REF_OF(p->out_src[o], g->outputs[o]);
#undef REF_OF
    free(input_index);
    free(offset_of);

done:
    free(root);
    free(is_gout);
    free(step_of);
    free(last_use);
    free(out_slot);
    free(lv);
    if (s != CAIRN_OK) {
        plan_destroy(p);
        return s;
    }
    *out = p;
    return CAIRN_OK;
}

static void *resolve(const plan_t *p, const plan_ref_t *r, const void *const *in_data,
                     void *const *out_data)
{
    switch (r->kind) {
    case PLAN_BUF_NONE: return NULL;
    case PLAN_BUF_ARENA: return (char *)p->arena + r->offset;
    case PLAN_BUF_INPUT: return (void *)in_data[r->index];
    case PLAN_BUF_OUTPUT: return out_data[r->index];
    case PLAN_BUF_CONST: return r->ptr;
    }
    return NULL;
}

cairn_status_t plan_run(plan_t *p, const void *const *in_data, void **out_data, const kctx_t *k)
{
    const ir_graph_t *g = p->graph;
    for (int o = 0; o < g->n_outputs; o++)
        if (!out_data[o])
            out_data[o] = p->out_bufs[o];
    for (int si = 0; si < p->n_steps; si++) {
        plan_step_t *st = &p->steps[si];
        for (int j = 0; j < st->n_in; j++)
            st->in[j].data = resolve(p, &st->in_ref[j], in_data, out_data);
        for (int o = 0; o < st->n_out; o++)
            st->out[o].data = resolve(p, &st->out_ref[o], in_data, out_data);
        cairn_status_t s = st->exec(st->n, st->in, st->n_in, st->out, st->n_out, p->ws, k);
        if (s != CAIRN_OK)
            return base_error_prefix(s, "node '%s' (%s): ", st->n->name,
                                     ir_op_def(st->n->op)->name);
    }
    for (int o = 0; o < g->n_outputs; o++) {
        if (!p->out_copy[o] || !p->out_bytes[o])
            continue;
        const void *src = resolve(p, &p->out_src[o], in_data, out_data);
        if (src && src != out_data[o])
            memmove(out_data[o], src, p->out_bytes[o]);
    }
    return CAIRN_OK;
}

/* The fused epilogue of a FusedMatMul / FusedConv in the order it runs:
 * e.g. " bias +relu +residual +relu" (act, then residual, then post_act). */
static const char *epilogue_str(const plan_step_t *st, int act_slot, int post_slot, int bias_in,
                                int res_in, char *buf, size_t cap)
{
    static const char *const acts[] = {"", " +relu", " +gelu_erf", " +gelu_tanh", " +silu",
                                       " +sigmoid", " +clip"};
    const ir_node_t *n = st->n;
    int64_t a = ir_attr_i(n, act_slot), pa = ir_attr_i(n, post_slot);
    int bias = st->n_in > bias_in && n->inputs[bias_in] >= 0;
    int res = st->n_in > res_in && n->inputs[res_in] >= 0;
    snprintf(buf, cap, "%s%s%s%s%s", bias ? " bias" : "",
             a > 0 && a <= GEMM_ACT_CLIP ? acts[a] : "", res ? " +residual" : "",
             pa > 0 && pa <= GEMM_ACT_CLIP ? acts[pa] : "",
             bias || a > 0 || res || pa > 0 ? "" : " none");
    return buf;
}

/* An RMSNormalization step that the fast f32 kernel runs: f32 data and a
 * full-size f32 scale (knorm_rmsnorm_f32_fast's conditions). */
static int rms_fast(const plan_step_t *st)
{
    int axis;
    if (st->n_in < 2 || st->in[0].dtype != CAIRN_F32 || st->in[1].dtype != CAIRN_F32 ||
        !knorm_f32_select()->rmsnorm || ir_norm_axis(ir_attr_i(st->n, 0), st->in[0].rank, &axis))
        return 0;
    int64_t d = 1;
    for (int i = axis; i < st->in[0].rank; i++)
        d *= st->in[0].shape[i];
    return d > 0 && kt_numel(&st->in[1]) == d;
}

/* A LayerNormalization step the fast f32 kernel runs (knorm_layernorm_f32_fast's
 * conditions: f32, full-size f32 scale and bias, non-empty rows). */
static int layernorm_fast(const plan_step_t *st)
{
    int axis;
    if (st->n_in < 2 || st->in[0].dtype != CAIRN_F32 || st->in[1].dtype != CAIRN_F32 ||
        !knorm_f32_select()->layernorm ||
        ir_norm_axis(ir_attr_i(st->n, 0), st->in[0].rank, &axis))
        return 0;
    int64_t d = 1;
    for (int i = axis; i < st->in[0].rank; i++)
        d *= st->in[0].shape[i];
    if (d <= 0 || kt_numel(&st->in[1]) != d)
        return 0;
    return st->n_in < 3 || st->n->inputs[2] < 0 ||
           (st->in[2].dtype == CAIRN_F32 && kt_numel(&st->in[2]) == d);
}

/* A Softmax / LogSoftmax step over the last axis in f32 (knorm_softmax_f32_fast). */
static int softmax_fast(const plan_step_t *st)
{
    int axis;
    return st->n_in >= 1 && st->in[0].dtype == CAIRN_F32 && st->in[0].rank >= 1 &&
           knorm_f32_select()->softmax &&
           !ir_norm_axis(ir_attr_i(st->n, 0), st->in[0].rank, &axis) &&
           axis == st->in[0].rank - 1;
}

/* What the profiler shows for each step: its node, the source-model nodes
 * it covers, the kernel variant and the cost model's FLOPs and bytes. */
void plan_step_kernel(const plan_step_t *st, char *buf, size_t cap)
{
    const ir_node_t *n = st->n;
    int f32 = st->n_in > 0 && st->in[0].dtype == CAIRN_F32;
    char epi[96];
    if (n->op == IR_OP_FusedMatMul) {
        snprintf(buf, cap, "gemm %s%s, epilogue:%s", gemm_f32_variant_name(),
                 ir_attr_i(n, FUSED_MM_PACKED) ? " packed-B" : "",
                 epilogue_str(st, FUSED_MM_ACTIVATION, FUSED_MM_POST_ACTIVATION, 2, 3, epi,
                              sizeof epi));
    } else if ((n->op == IR_OP_MatMul || n->op == IR_OP_Gemm) && f32) {
        snprintf(buf, cap, "gemm %s", gemm_f32_variant_name());
    } else if (n->op == IR_OP_FusedConv && f32 && ir_attr_i(n, FUSED_CONV_PACKED)) {
        snprintf(buf, cap, "conv %s + gemm %s packed-W, epilogue:%s",
                 op_linalg_conv_packed_path(n, st->in), gemm_f32_variant_name(),
                 epilogue_str(st, FUSED_CONV_ACTIVATION, FUSED_CONV_POST_ACTIVATION, 2, 3, epi,
                              sizeof epi));
    } else if ((n->op == IR_OP_Conv || n->op == IR_OP_FusedConv) && f32 && st->n_in > 1 &&
               st->in[0].rank >= 3 && st->in[1].rank == st->in[0].rank) {
        /* depthwise when each output channel reads one input channel: W is
         * [C, 1, k...] and the input has C channels */
        int dw = st->in[1].shape[1] == 1 && st->in[1].shape[0] == st->in[0].shape[1] &&
                 st->in[0].rank <= 4;
        char tail[112] = "";
        if (n->op == IR_OP_FusedConv)
            snprintf(tail, sizeof tail, ", epilogue:%s",
                     epilogue_str(st, FUSED_CONV_ACTIVATION, FUSED_CONV_POST_ACTIVATION, 2, 3,
                                  epi, sizeof epi));
        if (dw)
            snprintf(buf, cap, "conv depthwise %s%s", conv_dw_variant_name(), tail);
        else
            snprintf(buf, cap, "conv im2col/1x1 + gemm %s%s", gemm_f32_variant_name(), tail);
    } else if (n->op == IR_OP_FusedMBConv) {
        const char *dwc = NULL;
        conv_dwc_row_select(&dwc);
        const long long k1 = (long long)ir_attr_i(n, FUSED_MB_EXPAND_KERNEL);
        char stem[96] = "";
        if (k1 > 1) /* the stem form: a KxK expansion by indirect A */
            snprintf(stem, sizeof stem, " %lldx%lld/%lld indirect-A", k1, k1,
                     (long long)ir_attr_i(n, FUSED_MB_EXPAND_STRIDE));
        snprintf(buf, cap, "mbconv %lldx%lld/%lld: expand%s gemm %s, depthwise %s, project indirect-A",
                 (long long)ir_attr_i(n, FUSED_MB_KERNEL), (long long)ir_attr_i(n, FUSED_MB_KERNEL),
                 (long long)ir_attr_i(n, FUSED_MB_STRIDE), stem, gemm_f32_variant_name(), dwc);
    } else if (n->op == IR_OP_FusedAttention) {
        snprintf(buf, cap, "attention %s%s%s", kattn_select()->name,
                 ir_attr_i(n, FUSED_ATTN_CAUSAL) ? " causal" : "",
                 st->n_in > 3 && n->inputs[3] >= 0 ? " +mask" : "");
    } else if (n->op == IR_OP_FusedElementwise) {
        size_t nc = 0;
        ir_attr_ints(n, FUSED_ELT_PROGRAM, &nc);
        snprintf(buf, cap, "eltwise fused %s, %zu instructions", efused_select()->name, nc / 3);
    } else if ((n->op == IR_OP_MaxPool || n->op == IR_OP_AveragePool ||
                n->op == IR_OP_GlobalAveragePool) &&
               f32 && n->n_outputs == 1) {
        /* the vectorised 2-D planes (global average: any rank); other
         * geometries fall back to the reference inside the kernel */
        snprintf(buf, cap, "pool %s", kpool_f32_variant_name());
    } else if (n->op == IR_OP_MaxPool && n->n_outputs == 1 && st->n_in > 0 &&
               (st->in[0].dtype == CAIRN_U8 || st->in[0].dtype == CAIRN_I8) &&
               base_isa_select(CAIRN_ISA_AUTO) >= CAIRN_ISA_AVX2) {
        /* kpool_max_8bit_fast; other geometries take the reference inside */
        snprintf(buf, cap, "pool 8-bit avx2");
    } else if (n->op == IR_OP_RMSNormalization && rms_fast(st)) {
        snprintf(buf, cap, "rmsnorm %s", knorm_f32_select()->name);
    } else if (n->op == IR_OP_FusedMatMulInteger && st->n_in > 0 && st->in[0].rank >= 1) {
        snprintf(buf, cap, "%s %s%s, dequantised, epilogue:%s",
                 quant_matmul_fast(st->in[0].shape[st->in[0].rank - 1]) ? "int8 gemm"
                                                                        : "int8 ref",
                 gemm_s8_variant_name(), ir_attr_i(n, FUSED_MM_PACKED) ? " packed-B" : "",
                 epilogue_str(st, FUSED_MM_ACTIVATION, FUSED_MM_POST_ACTIVATION, 5, 6, epi,
                              sizeof epi));
    } else if (n->op == IR_OP_FusedConvInteger) {
        const ir_attr_t *pk = ir_node_attr(n, "packed"), *gr = ir_node_attr(n, "group");
        const ir_attr_t *ac = ir_node_attr(n, "activation");
        const int64_t act = ac ? ac->i : 0;
        char how[96];
        if (gr && gr->i > 1)
            snprintf(how, sizeof how, "int8 depthwise %s", op_quant_dw_variant(n, st->in));
        else
            snprintf(how, sizeof how, "int8 conv: im2col + int8 gemm %s%s", gemm_s8_variant_name(),
                     pk && pk->i ? " packed-W" : "");
        snprintf(buf, cap, "%s, %s%s%s%s", how,
                 ir_node_attr(n, "requant") && ir_node_attr(n, "requant")->i ? "requantised"
                                                                              : "dequantised",
                 n->n_inputs > 5 && n->inputs[5] >= 0 ? ", bias" : "",
                 act == GEMM_ACT_RELU ? ", relu" : act == GEMM_ACT_CLIP ? ", clip" : "",
                 n->n_inputs > 6 && n->inputs[6] >= 0 ? ", residual" : "");
    } else if ((n->op == IR_OP_MatMulInteger || n->op == IR_OP_QLinearMatMul) && st->n_in > 0 &&
               st->in[0].rank >= 1 && quant_matmul_fast(st->in[0].shape[st->in[0].rank - 1])) {
        snprintf(buf, cap, "int8 gemm %s, zero points by row / column sums%s",
                 gemm_s8_variant_name(), n->op == IR_OP_QLinearMatMul ? ", requantised" : "");
    } else if ((n->op == IR_OP_QLinearConv || n->op == IR_OP_ConvInteger) &&
               st->n_in >= (n->op == IR_OP_QLinearConv ? 4 : 2)) {
        op_quant_conv_describe(n, st->in, buf, cap);
    } else if (n->op == IR_OP_DynamicQuantizeLinear) {
        snprintf(buf, cap, "dynamic quantize %s", quant_dynamic_path());
    } else if (n->op == IR_OP_LayerNormalization && layernorm_fast(st)) {
        snprintf(buf, cap, "layernorm %s", knorm_f32_select()->name);
    } else if ((n->op == IR_OP_Softmax || n->op == IR_OP_LogSoftmax) && softmax_fast(st)) {
        snprintf(buf, cap, "%s %s", n->op == IR_OP_Softmax ? "softmax" : "logsoftmax",
                 knorm_f32_select()->name);
    } else {
        snprintf(buf, cap, "ref");
    }
}

static void describe_steps(const plan_t *p, profile_t *prof)
{
    for (int si = 0; si < p->n_steps; si++) {
        const plan_step_t *st = &p->steps[si];
        const ir_op_def_t *d = ir_op_def(st->n->op);
        profile_step_t *ps = &prof->steps[si];
        snprintf(ps->name, sizeof ps->name, "%s", st->n->name ? st->n->name : "");
        snprintf(ps->op, sizeof ps->op, "%s", d->name);
        plan_step_kernel(st, ps->kernel, sizeof ps->kernel);
        size_t u = 0;
        ps->sources[0] = 0;
        for (int k = 0; k < st->n->n_sources && u < sizeof ps->sources; k++)
            u += (size_t)snprintf(ps->sources + u, sizeof ps->sources - u, "%s%s", k ? ", " : "",
                                  st->n->sources[k]);
        if (!ps->sources[0])
            snprintf(ps->sources, sizeof ps->sources, "%s", ps->name);
        ps->flops = st->cost.flops;
        ps->bytes = st->cost.bytes;
        ps->fusible = d->fusion == IR_FUSE_ELEMENTWISE || d->fusion == IR_FUSE_BROADCAST;
        if ((st->n->op == IR_OP_MatMul || st->n->op == IR_OP_Gemm) && st->n_out > 0 &&
            st->out[0].rank > 0) {
            int64_t numel = 1;
            for (int d2 = 0; d2 < st->out[0].rank - 1; d2++)
                numel *= st->out[0].shape[d2];
            ps->m = numel;
        }
        ps->out_bytes = 0;
        for (int o = 0; o < st->n_out; o++) {
            double n = (double)cairn_dtype_size(st->out[o].dtype);
            for (int d2 = 0; d2 < st->out[o].rank; d2++)
                n *= (double)st->out[o].shape[d2];
            ps->out_bytes += n;
        }
        ps->uses_prev = 0;
        if (si > 0)
            for (int j = 0; j < st->n_in && !ps->uses_prev; j++)
                for (int o = 0; o < p->steps[si - 1].n_out; o++)
                    if (st->n->inputs[j] >= 0 && st->n->inputs[j] == p->steps[si - 1].n->outputs[o])
                        ps->uses_prev = 1;
    }
}

cairn_status_t plan_run_profiled(plan_t *p, const void *const *in_data, void **out_data,
                                 const kctx_t *k, profile_t *prof)
{
    if (prof->plan != p || prof->n_steps != p->n_steps || !prof->steps) {
        if (!profile_set_steps(prof, p->n_steps))
            return oom();
        describe_steps(p, prof);
        prof->plan = p;
    }
    if (!profile_iter_begin(prof))
        return oom();
    const ir_graph_t *g = p->graph;
    for (int o = 0; o < g->n_outputs; o++)
        if (!out_data[o])
            out_data[o] = p->out_bufs[o];
    for (int si = 0; si < p->n_steps; si++) {
        plan_step_t *st = &p->steps[si];
        for (int j = 0; j < st->n_in; j++)
            st->in[j].data = resolve(p, &st->in_ref[j], in_data, out_data);
        for (int o = 0; o < st->n_out; o++)
            st->out[o].data = resolve(p, &st->out_ref[o], in_data, out_data);
        profile_step_begin(prof);
        uint64_t t0 = base_now_ns();
        cairn_status_t s = st->exec(st->n, st->in, st->n_in, st->out, st->n_out, p->ws, k);
        uint64_t t1 = base_now_ns();
        if (s != CAIRN_OK)
            return base_error_prefix(s, "node '%s' (%s): ", st->n->name,
                                     ir_op_def(st->n->op)->name);
        profile_step_end(prof, si, t0, t1);
    }
    for (int o = 0; o < g->n_outputs; o++) {
        if (!p->out_copy[o] || !p->out_bytes[o])
            continue;
        const void *src = resolve(p, &p->out_src[o], in_data, out_data);
        if (src && src != out_data[o])
            memmove(out_data[o], src, p->out_bytes[o]);
    }
    profile_iter_end(prof);
    return CAIRN_OK;
}
