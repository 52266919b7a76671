/* Sessions: a private copy of the graph, a thread pool, and the plan for the
 * last input shapes (rebuilt when the shapes change). */
#include "base/cpu.h"
#include "base/dtype.h"
#include "base/threadpool.h"
#include "compiler/pass.h"
#include "ir/ops/fused.h"
#include "kernels/gemm/gemm.h"
#include "runtime/plan.h"
#include "runtime/session_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const ir_graph_t *cairn_graph_ir(const cairn_graph_t *g);

struct cairn_session {
    ir_graph_t *graph;
    base_pool_t *pool;
    kctx_t kctx;
    cairn_isa_t isa;
    plan_t *plan;
    ir_type_t *in_types;       /* the shapes the plan was built for */
    const void **in_data;      /* scratch for run: no allocation per run */
    const void **in_values;    /* per input: data the plan is specialised on, or NULL */
    unsigned char *value_input; /* inputs whose values the plan needs (found while planning) */
    void **out_data;
    const char **in_dim_names; /* CAIRN_MAX_RANK per input */
    const char **out_dim_names;
};

cairn_session_options_t cairn_session_options_default(void)
{
    cairn_session_options_t o;
    memset(&o, 0, sizeof o);
    o.threads = 0;
    o.isa_cap = CAIRN_ISA_AUTO;
    return o;
}

void cairn_session_destroy(cairn_session_t *s)
{
    if (!s)
        return;
    plan_destroy(s->plan);
    base_pool_destroy(s->pool);
    ir_graph_destroy(s->graph);
    free(s->in_types);
    free(s->in_data);
    free(s->in_values);
    free(s->value_input);
    free(s->out_data);
    free(s->in_dim_names);
    free(s->out_dim_names);
    free(s);
}

cairn_status_t cairn_session_create(const cairn_graph_t *graph,
                                    const cairn_session_options_t *opts, cairn_session_t **out)
{
    return cairn_session_create_compiled(graph, opts, NULL, out);
}

static cairn_status_t session_create(const cairn_graph_t *graph, cairn_graph_t *owned,
                                     const cairn_session_options_t *opts,
                                     const cairn_compile_options_t *co, cairn_session_t **out);
static cairn_status_t session_create_impl(const cairn_graph_t *graph, cairn_graph_t **owned,
                                          const cairn_session_options_t *opts,
                                          const cairn_compile_options_t *co,
                                          cairn_session_t **out);

cairn_status_t cairn_session_create_compiled(const cairn_graph_t *graph,
                                             const cairn_session_options_t *opts,
                                             const cairn_compile_options_t *co,
                                             cairn_session_t **out)
{
    return session_create(graph, NULL, opts, co, out);
}

cairn_status_t cairn_session_create_from(cairn_graph_t *g, const cairn_session_options_t *opts,
                                         cairn_session_t **out)
{
    return cairn_session_create_taking(g, opts, NULL, out);
}

cairn_status_t cairn_session_create_taking(cairn_graph_t *graph,
                                           const cairn_session_options_t *opts,
                                           const cairn_compile_options_t *co,
                                           cairn_session_t **out)
{
    return session_create(graph, graph, opts, co, out);
}

/* owned: graph itself when the session takes it (destroyed here), or NULL */
static cairn_status_t session_create(const cairn_graph_t *graph, cairn_graph_t *owned,
                                     const cairn_session_options_t *opts,
                                     const cairn_compile_options_t *co, cairn_session_t **out)
{
    base_error_clear();
    cairn_status_t st = session_create_impl(graph, &owned, opts, co, out);
    cairn_graph_destroy(owned); /* NULL once the session has dropped it */
    return st;
}

static cairn_status_t session_create_impl(const cairn_graph_t *graph, cairn_graph_t **owned,
                                          const cairn_session_options_t *opts,
                                          const cairn_compile_options_t *co,
                                          cairn_session_t **out)
{
    if (!graph || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cairn_session_create: %s is NULL",
                          graph ? "out" : "graph");
    cairn_session_options_t o = opts ? *opts : cairn_session_options_default();
    if (o.threads < 0 || o.threads > 1024)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "session options: threads = %d; use 0 (one per CPU) to 1024", o.threads);
    if ((int)o.isa_cap < CAIRN_ISA_AUTO || o.isa_cap > CAIRN_ISA_AMX)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "session options: unknown ISA cap %d",
                          (int)o.isa_cap);
    const ir_graph_t *g = cairn_graph_ir(graph);
    BASE_TRY(ir_verify(g));
    cairn_session_t *s = calloc(1, sizeof *s);
    if (!s)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    int ni = g->n_inputs, no = g->n_outputs;
    cairn_status_t st = ir_graph_clone(g, &s->graph);
    if (st != CAIRN_OK)
        goto fail;
    if (*owned) {
        /* the clone shares every constant: the graph's references go now */
        cairn_graph_destroy(*owned);
        *owned = NULL;
        graph = NULL, g = NULL;
    }
    if ((st = base_pool_create(o.threads, &s->pool)) != CAIRN_OK)
        goto fail;
    s->kctx.pool = s->pool;
    s->kctx.threads = base_pool_threads(s->pool);
    s->isa = base_isa_select(o.isa_cap);
    {
        /* the compiler rewrites the session's own copy, before any plan */
        pass_ctx_t pc = {&s->kctx};
        if ((st = compiler_run(s->graph, &pc, co ? co->passes : NULL, co ? co->dump_after : NULL,
                               co ? co->dump : NULL)) != CAIRN_OK)
            goto fail;
    }
    s->in_types = calloc((size_t)ni + 1, sizeof *s->in_types);
    s->in_data = calloc((size_t)ni + 1, sizeof *s->in_data);
    s->in_values = calloc((size_t)ni + 1, sizeof *s->in_values);
    s->value_input = calloc((size_t)ni + 1, 1);
    s->out_data = calloc((size_t)no + 1, sizeof *s->out_data);
    s->in_dim_names = calloc(((size_t)ni + 1) * CAIRN_MAX_RANK, sizeof(char *));
    s->out_dim_names = calloc(((size_t)no + 1) * CAIRN_MAX_RANK, sizeof(char *));
    if (!s->in_types || !s->in_data || !s->in_values || !s->value_input || !s->out_data || !s->in_dim_names || !s->out_dim_names) {
        st = base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
        goto fail;
    }
    *out = s;
    return CAIRN_OK;
fail:
    cairn_session_destroy(s);
    return st;
}

int cairn_session_input_count(const cairn_session_t *s) { return s ? s->graph->n_inputs : 0; }
int cairn_session_output_count(const cairn_session_t *s) { return s ? s->graph->n_outputs : 0; }

static cairn_status_t value_info(const cairn_session_t *s, int v, const ir_type_t *planned,
                                 const char **dn_store, const char **name, cairn_dtype_t *dtype,
                                 int *rank, int64_t *shape, const char **dim_names)
{
    const ir_value_t *val = &s->graph->values[v];
    const ir_type_t *t = planned ? planned : &val->type;
    if (name)
        *name = val->name;
    if (dtype)
        *dtype = t->dtype;
    if (rank)
        *rank = t->shape.rank;
    for (int i = 0; i < t->shape.rank; i++) {
        int64_t d = t->shape.d[i], decl = val->type.shape.rank == t->shape.rank ? val->type.shape.d[i] : IR_DIM_UNKNOWN;
        dn_store[i] = ir_dim_is_sym(decl) ? s->graph->symbols[ir_dim_sym_id(decl)] : NULL;
        if (shape)
            shape[i] = d >= 0 ? d : -1;
        if (dim_names)
            dim_names[i] = dn_store[i];
    }
    return CAIRN_OK;
}

cairn_status_t cairn_session_input_info(const cairn_session_t *s, int i, const char **name,
                                        cairn_dtype_t *dtype, int *rank, int64_t *shape,
                                        const char **dim_names)
{
    base_error_clear();
    if (!s || i < 0 || i >= s->graph->n_inputs)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "input_info: no input %d", i);
    return value_info(s, s->graph->inputs[i], NULL, s->in_dim_names + (size_t)i * CAIRN_MAX_RANK,
                      name, dtype, rank, shape, dim_names);
}

cairn_status_t cairn_session_output_info(const cairn_session_t *s, int i, const char **name,
                                         cairn_dtype_t *dtype, int *rank, int64_t *shape,
                                         const char **dim_names)
{
    base_error_clear();
    if (!s || i < 0 || i >= s->graph->n_outputs)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "output_info: no output %d", i);
    int v = s->graph->outputs[i];
    return value_info(s, v, s->plan ? &s->plan->types[v] : NULL,
                      s->out_dim_names + (size_t)i * CAIRN_MAX_RANK, name, dtype, rank, shape,
                      dim_names);
}

static int same_inputs(const cairn_session_t *s, const cairn_tensor_t *inputs)
{
    if (!s->plan)
        return 0;
    for (int i = 0; i < s->graph->n_inputs; i++) {
        const ir_type_t *t = &s->in_types[i];
        if (t->dtype != inputs[i].dtype || t->shape.rank != inputs[i].rank)
            return 0;
        for (int d = 0; d < t->shape.rank; d++)
            if (t->shape.d[d] != inputs[i].shape[d])
                return 0;
        /* a plan specialised on an input's value holds only for that value */
        const void *planned = s->plan->value_data[s->graph->inputs[i]];
        if (s->value_input[i] && planned &&
            memcmp(planned, inputs[i].data, cairn_tensor_bytes(&inputs[i])) != 0)
            return 0;
    }
    return 1;
}

static cairn_status_t session_run(cairn_session_t *s, const cairn_tensor_t *inputs, int n_inputs,
                                  cairn_tensor_t *outputs, int n_outputs, profile_t *prof)
{
    base_error_clear();
    if (!s)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cairn_session_run: session is NULL");
    const ir_graph_t *g = s->graph;
    if (n_inputs != g->n_inputs || (n_inputs > 0 && !inputs))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "cairn_session_run: the graph has %d inputs, got %d%s", g->n_inputs,
                          n_inputs, n_inputs > 0 && !inputs ? " (inputs is NULL)" : "");
    if (n_outputs != g->n_outputs || (n_outputs > 0 && !outputs))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "cairn_session_run: the graph has %d outputs, got %d%s", g->n_outputs,
                          n_outputs, n_outputs > 0 && !outputs ? " (outputs is NULL)" : "");
    for (int i = 0; i < n_inputs; i++) {
        const cairn_tensor_t *t = &inputs[i];
        const char *nm = g->values[g->inputs[i]].name;
        if (t->rank < 0 || t->rank > CAIRN_MAX_RANK)
            return base_error(CAIRN_ERR_SHAPE, "input %d ('%s'): rank %d is outside [0, %d]", i,
                              nm, t->rank, CAIRN_MAX_RANK);
        for (int d = 0; d < t->rank; d++)
            if (t->shape[d] < 0)
                return base_error(CAIRN_ERR_SHAPE, "input %d ('%s'): dimension %d is negative",
                                  i, nm, d);
        if (!t->data && cairn_tensor_numel(t) != 0)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "input %d ('%s'): data is NULL", i, nm);
    }
    if (!same_inputs(s, inputs)) {
        plan_destroy(s->plan);
        s->plan = NULL;
        for (int i = 0; i < n_inputs; i++) {
            ir_type_t *t = &s->in_types[i];
            memset(t, 0, sizeof *t);
            t->dtype = inputs[i].dtype;
            t->shape.rank = inputs[i].rank;
            for (int d = 0; d < inputs[i].rank; d++)
                t->shape.d[d] = inputs[i].shape[d];
        }
        if (prof)
            profile_reset(prof); /* its steps described the old plan */
        /* Plan; where an op needs the value of a small input to
         * know its output shape, specialise the plan on that input's value
         * and plan again. Each round adds one input, so this ends. */
        for (;;) {
            int need = -1;
            for (int i = 0; i < n_inputs; i++)
                s->in_values[i] = s->value_input[i] ? inputs[i].data : NULL;
            cairn_status_t st = plan_build(g, s->in_types, s->in_values, &s->kctx, &s->plan, &need);
            if (st == CAIRN_OK) {
                base_error_clear(); /* an earlier round's message is no longer true */
                break;
            }
            if (st != CAIRN_ERR_UNSUPPORTED || need < 0 || s->value_input[need])
                return st;
            s->value_input[need] = 1;
        }
    }
    plan_t *p = s->plan;
    for (int o = 0; o < n_outputs; o++) {
        cairn_tensor_t *t = &outputs[o];
        const ir_type_t *want = &p->types[g->outputs[o]];
        if (t->data) {
            int ok = t->dtype == want->dtype && t->rank == want->shape.rank;
            for (int d = 0; ok && d < t->rank; d++)
                ok = t->shape[d] == want->shape.d[d];
            if (!ok) {
                char a[256], b[256];
                return base_error(CAIRN_ERR_SHAPE,
                                  "output %d ('%s'): the buffer given is %s%s but the output is "
                                  "%s%s; pass data = NULL to use the session's buffer",
                                  o, g->values[g->outputs[o]].name, cairn_dtype_name(t->dtype),
                                  base_fmt_dims(a, sizeof a, t->shape, t->rank < 0 ? 0 : t->rank),
                                  cairn_dtype_name(want->dtype),
                                  ir_shape_str(NULL, &want->shape, b, sizeof b));
            }
        }
        s->out_data[o] = t->data;
    }
    for (int i = 0; i < n_inputs; i++)
        s->in_data[i] = inputs[i].data;
    if (!prof) {
        BASE_TRY(plan_run(p, s->in_data, s->out_data, &s->kctx));
    } else {
        if (!profile_attach(prof, s->pool))
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory (profile)");
        cairn_status_t st = plan_run_profiled(p, s->in_data, s->out_data, &s->kctx, prof);
        profile_detach(prof);
        BASE_TRY(st);
    }
    for (int o = 0; o < n_outputs; o++) {
        cairn_tensor_t *t = &outputs[o];
        const ir_type_t *want = &p->types[g->outputs[o]];
        t->dtype = want->dtype;
        t->rank = want->shape.rank;
        for (int d = 0; d < t->rank; d++)
            t->shape[d] = want->shape.d[d];
        t->data = s->out_data[o];
    }
    return CAIRN_OK;
}

cairn_status_t cairn_session_run(cairn_session_t *s, const cairn_tensor_t *inputs, int n_inputs,
                                 cairn_tensor_t *outputs, int n_outputs)
{
    return session_run(s, inputs, n_inputs, outputs, n_outputs, NULL);
}

cairn_status_t cairn_session_run_profiled(cairn_session_t *s, const cairn_tensor_t *inputs,
                                          int n_inputs, cairn_tensor_t *outputs, int n_outputs,
                                          profile_t *prof)
{
    if (!prof)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cairn_session_run_profiled: profile is NULL");
    return session_run(s, inputs, n_inputs, outputs, n_outputs, prof);
}

cairn_status_t cairn_session_plan_info(const cairn_session_t *s, cairn_plan_info_t *out)
{
    base_error_clear();
    if (!s || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "plan_info: NULL argument");
    memset(out, 0, sizeof *out);
    out->isa = s->isa;
    out->threads = s->kctx.threads;
    if (!s->plan)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "plan_info: no plan yet; run the session once first");
    out->arena_bytes = s->plan->arena_bytes + s->plan->ws_bytes;
    out->constant_bytes = s->plan->const_bytes;
    for (int v = 0; v < s->graph->n_values; v++)
        if (s->graph->values[v].kind == IR_VALUE_CONSTANT)
            out->constant_bytes += s->graph->values[v].data_bytes;
    out->steps = s->plan->n_steps;
    return CAIRN_OK;
}


int cairn_session_step_count(const cairn_session_t *s)
{
    return s && s->plan ? s->plan->n_steps : -1;
}

cairn_status_t cairn_session_step_info(const cairn_session_t *s, int i, cairn_step_info_t *out)
{
    base_error_clear();
    if (!s || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "step_info: NULL argument");
    if (!s->plan)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "step_info: no plan yet; run the session once first");
    if (i < 0 || i >= s->plan->n_steps)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "step_info: no step %d (the plan has %d)",
                          i, s->plan->n_steps);
    const plan_step_t *st = &s->plan->steps[i];
    const ir_node_t *n = st->n;
    memset(out, 0, sizeof *out);
    out->name = n->name;
    out->op = ir_op_def(n->op)->name;
    out->n_sources = n->n_sources;
    out->sources = (const char *const *)n->sources;
    out->n_out = st->n_out < CAIRN_STEP_MAX_OUT ? st->n_out : CAIRN_STEP_MAX_OUT;
    for (int o = 0; o < out->n_out; o++)
        out->out[o] = st->out[o];
    out->threads = s->kctx.threads;
    out->flops = st->cost.flops;
    out->bytes = st->cost.bytes;
    out->ws_bytes = st->ws_bytes;
    plan_step_kernel(st, out->kernel, sizeof out->kernel);
    return CAIRN_OK;
}

size_t cairn_session_arena_peak(const cairn_session_t *s)
{
    return s && s->plan ? s->plan->arena_bytes : 0;
}
