/* Dead-code elimination: a node is kept when one of its outputs is a graph
 * output or is read by a kept node; the rest go, with the values (and
 * constants) nothing refers to any more. */
#include "compiler/rewrite.h"

cairn_status_t pass_dce(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    /* reverse topological order: every reader of a value comes after it */
    unsigned char *needed = r.is_out; /* reused: values a kept node or the outputs need */
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        ir_node_t *n = &g->nodes[i];
        int live = 0;
        for (int o = 0; o < n->n_outputs && !live; o++)
            live = needed[n->outputs[o]];
        r.dead[i] = (unsigned char)!live;
        if (live)
            for (int j = 0; j < n->n_inputs; j++)
                if (n->inputs[j] >= 0)
                    needed[n->inputs[j]] = 1;
    }
    return rw_finish(&r);
}
