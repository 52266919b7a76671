/* The text printer: one line per input, constant, node and output. */
#include "ir/op_table.h"
#include "ir/ops/fused.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int failed;
} sbuf_t;

static void sb_printf(sbuf_t *b, const char *fmt, ...) BASE_PRINTF(2, 3);
static void sb_printf(sbuf_t *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->p ? b->p + b->n : NULL, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)w < b->cap - b->n) {
            b->n += (size_t)w;
            return;
        }
        size_t nc = (b->cap + (size_t)w + 1) * 2;
        char *q = realloc(b->p, nc);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = nc;
    }
}

static void print_value_type(sbuf_t *b, const ir_graph_t *g, int v)
{
    char sh[256];
    const ir_value_t *val = &g->values[v];
    sb_printf(b, "%%%s: %s%s", val->name, cairn_dtype_name(val->type.dtype),
              ir_shape_str(g, &val->type.shape, sh, sizeof sh));
}

static void print_attr(sbuf_t *b, const ir_attr_t *a)
{
    sb_printf(b, "%s=", a->name);
    switch (a->type) {
    case CAIRN_ATTR_INT: sb_printf(b, "%lld", (long long)a->i); break;
    case CAIRN_ATTR_FLOAT: sb_printf(b, "%g", (double)a->f); break;
    case CAIRN_ATTR_STRING: sb_printf(b, "\"%s\"", a->s); break;
    case CAIRN_ATTR_INTS:
        sb_printf(b, "[");
        for (size_t i = 0; i < a->n; i++)
            sb_printf(b, "%s%lld", i ? "," : "", (long long)a->ints[i]);
        sb_printf(b, "]");
        break;
    case CAIRN_ATTR_FLOATS:
        sb_printf(b, "[");
        for (size_t i = 0; i < a->n; i++)
            sb_printf(b, "%s%g", i ? "," : "", (double)a->floats[i]);
        sb_printf(b, "]");
        break;
    case CAIRN_ATTR_TENSOR: {
        char sh[256];
        sb_printf(b, "tensor<%s%s>", cairn_dtype_name(a->t_type.dtype),
                  ir_shape_str(NULL, &a->t_type.shape, sh, sizeof sh));
        break;
    }
    }
}

cairn_status_t ir_print(const ir_graph_t *g, char **out_text)
{
    if (!g || !out_text)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "print: NULL argument");
    sbuf_t b = {NULL, 0, 0, 0};
    sb_printf(&b, "graph (%d inputs, %d nodes, %d outputs)\n", g->n_inputs, g->n_nodes,
              g->n_outputs);
    for (int i = 0; i < g->n_inputs; i++) {
        sb_printf(&b, "  input ");
        print_value_type(&b, g, g->inputs[i]);
        sb_printf(&b, "\n");
    }
    for (int v = 0; v < g->n_values; v++) {
        if (g->values[v].kind != IR_VALUE_CONSTANT)
            continue;
        sb_printf(&b, "  const ");
        print_value_type(&b, g, v);
        sb_printf(&b, "\n");
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        sb_printf(&b, "  ");
        for (int k = 0; k < n->n_outputs; k++) {
            if (k)
                sb_printf(&b, ", ");
            print_value_type(&b, g, n->outputs[k]);
        }
        sb_printf(&b, " = %s(", ir_op_def(n->op)->name);
        for (int k = 0; k < n->n_inputs; k++) {
            if (n->inputs[k] < 0)
                sb_printf(&b, "%s_", k ? ", " : "");
            else
                sb_printf(&b, "%s%%%s", k ? ", " : "", g->values[n->inputs[k]].name);
        }
        sb_printf(&b, ")");
        if (n->n_attrs) {
            sb_printf(&b, " {");
            for (int a = 0; a < n->n_attrs; a++) {
                if (a)
                    sb_printf(&b, ", ");
                print_attr(&b, &n->attrs[a]);
            }
            sb_printf(&b, "}");
        }
        if (n->op == IR_OP_FusedElementwise) {
            char prog[2048];
            op_fused_eltwise_describe(n, prog, sizeof prog);
            sb_printf(&b, " <%s>", prog);
        }
        sb_printf(&b, "  # %s", n->name);
        for (int s = 0; s < n->n_sources; s++)
            sb_printf(&b, "%s%s", s ? ", " : " <- ", n->sources[s]);
        sb_printf(&b, "\n");
    }
    for (int o = 0; o < g->n_outputs; o++)
        sb_printf(&b, "  output %%%s\n", g->values[g->outputs[o]].name);
    if (b.failed) {
        free(b.p);
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "print: out of memory");
    }
    *out_text = b.p;
    return CAIRN_OK;
}
