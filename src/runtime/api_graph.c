/* The public graph-building API (include/cairn.h) over the IR. */
#include "base/dtype.h"
#include "ir/op_table.h"

#include <stdlib.h>
#include <string.h>

struct cairn_graph {
    ir_graph_t *ir;
};

/* For the runtime: the IR behind a public graph. */
const ir_graph_t *cairn_graph_ir(const cairn_graph_t *g);
const ir_graph_t *cairn_graph_ir(const cairn_graph_t *g) { return g ? g->ir : NULL; }

int64_t cairn_tensor_numel(const cairn_tensor_t *t)
{
    if (!t)
        return 0;
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

size_t cairn_tensor_bytes(const cairn_tensor_t *t)
{
    return t ? (size_t)cairn_tensor_numel(t) * cairn_dtype_size(t->dtype) : 0;
}

cairn_attr_t cairn_attr_int(const char *name, int64_t v)
{
    cairn_attr_t a = {0};
    a.name = name, a.type = CAIRN_ATTR_INT, a.i = v;
    return a;
}
cairn_attr_t cairn_attr_float(const char *name, float v)
{
    cairn_attr_t a = {0};
    a.name = name, a.type = CAIRN_ATTR_FLOAT, a.f = v;
    return a;
}
cairn_attr_t cairn_attr_string(const char *name, const char *v)
{
    cairn_attr_t a = {0};
    a.name = name, a.type = CAIRN_ATTR_STRING, a.s = v;
    return a;
}
cairn_attr_t cairn_attr_ints(const char *name, const int64_t *v, size_t n)
{
    cairn_attr_t a = {0};
    a.name = name, a.type = CAIRN_ATTR_INTS, a.ints = v, a.n = n;
    return a;
}
cairn_attr_t cairn_attr_floats(const char *name, const float *v, size_t n)
{
    cairn_attr_t a = {0};
    a.name = name, a.type = CAIRN_ATTR_FLOATS, a.floats = v, a.n = n;
    return a;
}
cairn_attr_t cairn_attr_tensor(const char *name, const cairn_tensor_t *t)
{
    cairn_attr_t a = {0};
    a.name = name, a.type = CAIRN_ATTR_TENSOR, a.t = t;
    return a;
}

cairn_status_t cairn_graph_create(cairn_graph_t **out)
{
    base_error_clear();
    if (!out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cairn_graph_create: out is NULL");
    cairn_graph_t *g = calloc(1, sizeof *g);
    if (!g)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    cairn_status_t s = ir_graph_create(&g->ir);
    if (s != CAIRN_OK) {
        free(g);
        return s;
    }
    *out = g;
    return CAIRN_OK;
}

void cairn_graph_destroy(cairn_graph_t *g)
{
    if (!g)
        return;
    ir_graph_destroy(g->ir);
    free(g);
}

#define CHECK_GRAPH(g, fn)                                                          \
    do {                                                                            \
        base_error_clear();                                                         \
        if (!(g))                                                                   \
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, fn ": graph is NULL");     \
    } while (0)

cairn_status_t cairn_graph_add_input(cairn_graph_t *g, const char *name, cairn_dtype_t dtype,
                                     int rank, const int64_t *dims, const char *const *dim_names,
                                     cairn_value_id *out)
{
    CHECK_GRAPH(g, "cairn_graph_add_input");
    if (!name)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cairn_graph_add_input: name is NULL");
    if (rank < 0 || rank > CAIRN_MAX_RANK)
        return base_error(CAIRN_ERR_SHAPE, "input '%s': rank %d is outside [0, %d]", name, rank,
                          CAIRN_MAX_RANK);
    if (rank > 0 && !dims && !dim_names)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "input '%s': dims is NULL", name);
    ir_type_t t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.shape.rank = rank;
    for (int i = 0; i < rank; i++) {
        if (dim_names && dim_names[i]) {
            int sym = ir_graph_symbol(g->ir, dim_names[i]);
            if (sym < 0)
                return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
            t.shape.d[i] = IR_DIM_SYM(sym);
        } else {
            if (!dims)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT, "input '%s': dims is NULL", name);
            if (dims[i] < 0)
                return base_error(CAIRN_ERR_SHAPE,
                                  "input '%s': dimension %d is %lld; give it a name in "
                                  "dim_names to make it symbolic",
                                  name, i, (long long)dims[i]);
            t.shape.d[i] = dims[i];
        }
    }
    int id;
    BASE_TRY(ir_graph_add_input(g->ir, name, &t, &id));
    if (out)
        *out = id;
    return CAIRN_OK;
}

cairn_status_t cairn_graph_add_constant(cairn_graph_t *g, const char *name,
                                        const cairn_tensor_t *value, cairn_value_id *out)
{
    CHECK_GRAPH(g, "cairn_graph_add_constant");
    if (!name || !value)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cairn_graph_add_constant: NULL argument");
    if (value->rank < 0 || value->rank > CAIRN_MAX_RANK)
        return base_error(CAIRN_ERR_SHAPE, "constant '%s': rank %d is outside [0, %d]", name,
                          value->rank, CAIRN_MAX_RANK);
    ir_type_t t;
    memset(&t, 0, sizeof t);
    t.dtype = value->dtype;
    t.shape.rank = value->rank;
    for (int i = 0; i < value->rank; i++) {
        if (value->shape[i] < 0)
            return base_error(CAIRN_ERR_SHAPE, "constant '%s': dimension %d is negative", name, i);
        t.shape.d[i] = value->shape[i];
    }
    int id;
    BASE_TRY(ir_graph_add_constant(g->ir, name, &t, value->data, &id));
    if (out)
        *out = id;
    return CAIRN_OK;
}

cairn_status_t cairn_graph_add_node(cairn_graph_t *g, const char *op_type, const char *name,
                                    const cairn_value_id *inputs, int n_inputs,
                                    const cairn_attr_t *attrs, int n_attrs,
                                    cairn_value_id *outputs, int n_outputs,
                                    const char *const *output_names)
{
    CHECK_GRAPH(g, "cairn_graph_add_node");
    if (!op_type || !name)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cairn_graph_add_node: %s is NULL",
                          op_type ? "name" : "op_type");
    if (n_inputs < 0 || n_outputs < 0 || n_attrs < 0)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "node '%s': negative count", name);
    int op = ir_op_find(op_type);
    if (op < 0)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s': cairn has no op '%s'", name, op_type);
    int ids[64];
    if (n_outputs > 64)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s': more than 64 outputs", name);
    BASE_TRY(ir_graph_add_node(g->ir, op, name, inputs, n_inputs, attrs, n_attrs, n_outputs,
                               output_names, ids));
    if (n_outputs && !outputs)
        return CAIRN_OK;
    for (int o = 0; o < n_outputs; o++)
        outputs[o] = ids[o];
    return CAIRN_OK;
}

cairn_status_t cairn_graph_mark_output(cairn_graph_t *g, cairn_value_id v)
{
    CHECK_GRAPH(g, "cairn_graph_mark_output");
    return ir_graph_mark_output(g->ir, v);
}

cairn_status_t cairn_graph_verify(const cairn_graph_t *g)
{
    CHECK_GRAPH(g, "cairn_graph_verify");
    return ir_verify(g->ir);
}

cairn_status_t cairn_graph_print(const cairn_graph_t *g, char **out_text)
{
    CHECK_GRAPH(g, "cairn_graph_print");
    return ir_print(g->ir, out_text);
}
