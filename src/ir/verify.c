/* The verifier: a graph that passes can be planned without surprises. */
#include "base/dtype.h"
#include "ir/op_table.h"

#include <stdlib.h>
#include <string.h>

static int same_type(const ir_type_t *a, const ir_type_t *b)
{
    return a->dtype == b->dtype && ir_shape_equal(&a->shape, &b->shape);
}

cairn_status_t ir_verify(const ir_graph_t *g)
{
    if (!g)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "verify: graph is NULL");
    /* values: names unique and present, kinds consistent */
    for (int v = 0; v < g->n_values; v++) {
        const ir_value_t *val = &g->values[v];
        if (!val->name || !val->name[0])
            return base_error(CAIRN_ERR_GRAPH, "value %d has no name", v);
        for (int w = v + 1; w < g->n_values; w++)
            if (strcmp(val->name, g->values[w].name) == 0)
                return base_error(CAIRN_ERR_GRAPH, "value name '%s' is used twice", val->name);
        if (!base_dtype_valid(val->type.dtype))
            return base_error(CAIRN_ERR_DTYPE, "value '%s' has an invalid element type",
                              val->name);
        if (val->kind == IR_VALUE_CONSTANT && !val->data && ir_shape_numel(&val->type.shape) != 0)
            return base_error(CAIRN_ERR_GRAPH, "constant '%s' has no data", val->name);
        if (val->kind == IR_VALUE_INTERMEDIATE &&
            (val->producer < 0 || val->producer >= g->n_nodes))
            return base_error(CAIRN_ERR_GRAPH, "value '%s' is produced by no node (dangling)",
                              val->name);
        if (val->kind != IR_VALUE_INTERMEDIATE && val->producer >= 0)
            return base_error(CAIRN_ERR_GRAPH, "value '%s' is an input or constant but is also "
                              "produced by node %d", val->name, val->producer);
    }
    /* nodes: topological order (so no cycles), producers agree, types agree */
    ir_type_t out_types[64];
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        const ir_op_def_t *d;
        if (n->op < 0 || n->op >= IR_OP_COUNT)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' has an unknown op", n->name);
        d = ir_op_def(n->op);
        if (n->n_inputs < d->min_in || n->n_inputs > d->max_in || n->n_outputs < d->min_out ||
            n->n_outputs > d->max_out || n->n_outputs > 64)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): wrong number of inputs or outputs",
                              n->name, d->name);
        for (int k = 0; k < n->n_inputs; k++) {
            int v = n->inputs[k];
            if (v == -1 && k >= d->min_in)
                continue;
            if (v < 0 || v >= g->n_values)
                return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): input %d is undefined",
                                  n->name, d->name, k);
            int p = g->values[v].producer;
            if (p >= i)
                return base_error(CAIRN_ERR_GRAPH,
                                  "node '%s' (%s): input '%s' is produced by node '%s', which "
                                  "does not come before it (a cycle, or nodes out of order)",
                                  n->name, d->name, g->values[v].name, g->nodes[p].name);
        }
        for (int k = 0; k < n->n_outputs; k++) {
            int v = n->outputs[k];
            if (v < 0 || v >= g->n_values || g->values[v].producer != i)
                return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): output %d is not its own",
                                  n->name, d->name, k);
        }
        cairn_status_t s = ir_infer_node(g, n, 1, out_types);
        if (s != CAIRN_OK)
            return base_error_prefix(s, "node '%s' (%s): ", n->name, d->name);
        for (int k = 0; k < n->n_outputs; k++) {
            const ir_type_t *have = &g->values[n->outputs[k]].type;
            if (!same_type(have, &out_types[k])) {
                char a[128], b[128];
                return base_error(CAIRN_ERR_SHAPE,
                                  "node '%s' (%s): output '%s' is recorded as %s %s but infers "
                                  "as %s %s",
                                  n->name, d->name, g->values[n->outputs[k]].name,
                                  cairn_dtype_name(have->dtype),
                                  ir_shape_str(g, &have->shape, a, sizeof a),
                                  cairn_dtype_name(out_types[k].dtype),
                                  ir_shape_str(g, &out_types[k].shape, b, sizeof b));
            }
        }
    }
    if (g->n_outputs == 0)
        return base_error(CAIRN_ERR_GRAPH, "the graph has no outputs");
    for (int o = 0; o < g->n_outputs; o++)
        if (g->outputs[o] < 0 || g->outputs[o] >= g->n_values)
            return base_error(CAIRN_ERR_GRAPH, "graph output %d is undefined", o);
    for (int i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] < 0 || g->inputs[i] >= g->n_values ||
            g->values[g->inputs[i]].kind != IR_VALUE_INPUT)
            return base_error(CAIRN_ERR_GRAPH, "graph input %d is not an input value", i);
    return CAIRN_OK;
}
