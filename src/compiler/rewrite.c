/* Graph rewriting helpers for the compiler's passes (see rewrite.h). */
#include "compiler/rewrite.h"

#include "base/alloc.h"
#include "base/dtype.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cairn_status_t rw_oom(void) { return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory"); }

void rw_free_node(ir_node_t *n)
{
    free(n->name);
    free(n->inputs);
    free(n->outputs);
    for (int i = 0; i < n->n_attrs; i++) {
        free(n->attrs[i].name);
        free(n->attrs[i].s);
        free(n->attrs[i].ints);
        free(n->attrs[i].floats);
        base_aligned_free(n->attrs[i].t_data);
    }
    free(n->attrs);
    free(n->attr_slot);
    for (int i = 0; i < n->n_sources; i++)
        free(n->sources[i]);
    free(n->sources);
    memset(n, 0, sizeof *n);
}

/* Grows the per-node and per-value arrays to the graph's current sizes. */
static cairn_status_t rw_fit(rw_t *r)
{
    ir_graph_t *g = r->g;
    if (g->n_nodes > r->cap_nodes) {
        unsigned char *d = realloc(r->dead, (size_t)g->n_nodes);
        if (!d)
            return rw_oom();
        memset(d + r->cap_nodes, 0, (size_t)(g->n_nodes - r->cap_nodes));
        r->dead = d;
        r->cap_nodes = g->n_nodes;
    }
    if (g->n_values > r->cap_values) {
        int *u = realloc(r->uses, (size_t)g->n_values * sizeof(int));
        if (!u)
            return rw_oom();
        r->uses = u;
        unsigned char *o = realloc(r->is_out, (size_t)g->n_values);
        if (!o)
            return rw_oom();
        r->is_out = o;
        r->cap_values = g->n_values;
    }
    return CAIRN_OK;
}

cairn_status_t rw_refresh(rw_t *r)
{
    BASE_TRY(rw_fit(r));
    ir_graph_t *g = r->g;
    if (g->n_values) {
        memset(r->uses, 0, (size_t)g->n_values * sizeof(int));
        memset(r->is_out, 0, (size_t)g->n_values);
    }
    for (int i = 0; i < g->n_nodes; i++) {
        if (r->dead[i])
            continue;
        for (int j = 0; j < g->nodes[i].n_inputs; j++)
            if (g->nodes[i].inputs[j] >= 0)
                r->uses[g->nodes[i].inputs[j]]++;
    }
    for (int o = 0; o < g->n_outputs; o++)
        r->is_out[g->outputs[o]] = 1;
    return CAIRN_OK;
}

cairn_status_t rw_init(rw_t *r, ir_graph_t *g)
{
    memset(r, 0, sizeof *r);
    r->g = g;
    cairn_status_t s = rw_refresh(r);
    if (s != CAIRN_OK)
        rw_free(r);
    return s;
}

void rw_free(rw_t *r)
{
    free(r->dead);
    free(r->uses);
    free(r->is_out);
    memset(r, 0, sizeof *r);
}

int rw_sole_consumer(const rw_t *r, int v)
{
    if (v < 0 || r->uses[v] != 1 || r->is_out[v])
        return -1;
    const ir_graph_t *g = r->g;
    for (int i = 0; i < g->n_nodes; i++) {
        if (r->dead[i])
            continue;
        for (int j = 0; j < g->nodes[i].n_inputs; j++)
            if (g->nodes[i].inputs[j] == v)
                return i;
    }
    return -1;
}

int rw_producer(const rw_t *r, int v, int op)
{
    if (v < 0)
        return -1;
    int p = r->g->values[v].producer;
    if (p < 0 || r->dead[p])
        return -1;
    if (op >= 0 && r->g->nodes[p].op != op)
        return -1;
    return p;
}

int rw_const_scalar(const ir_graph_t *g, int v, double *out)
{
    if (v < 0)
        return 0;
    const ir_value_t *val = &g->values[v];
    if (val->kind != IR_VALUE_CONSTANT || !val->data || ir_shape_numel(&val->type.shape) != 1)
        return 0;
    switch (val->type.dtype) {
    case CAIRN_F32: *out = *(const float *)val->data; return 1;
    case CAIRN_F64: *out = *(const double *)val->data; return 1;
    default: return 0;
    }
}

int rw_other_input(const ir_node_t *n, int v)
{
    if (n->n_inputs != 2)
        return -2;
    if (n->inputs[0] == v)
        return n->inputs[1];
    if (n->inputs[1] == v)
        return n->inputs[0];
    return -2;
}

int rw_cast_mul(const rw_t *r, int v, int *cast, int *mul, int *scale)
{
    const ir_graph_t *g = r->g;
    *cast = rw_sole_consumer(r, v);
    if (*cast < 0 || g->nodes[*cast].op != IR_OP_Cast ||
        g->values[g->nodes[*cast].outputs[0]].type.dtype != CAIRN_F32)
        return 0;
    const int cv = g->nodes[*cast].outputs[0];
    *mul = rw_sole_consumer(r, cv);
    if (*mul < 0 || g->nodes[*mul].op != IR_OP_Mul)
        return 0;
    *scale = rw_other_input(&g->nodes[*mul], cv);
    return *scale >= 0 && *scale != cv;
}

int rw_near(double a, double b, double tol) { return fabs(a - b) <= tol * fabs(b); }

int rw_group_closed(const rw_t *r, int at, const int *covered, int n_cov)
{
    const ir_graph_t *g = r->g;
    for (int c = 0; c < n_cov; c++) {
        const ir_node_t *n = &g->nodes[covered[c]];
        if (covered[c] == at)
            continue;
        if (covered[c] > at || r->dead[covered[c]])
            return 0;
        for (int o = 0; o < n->n_outputs; o++) {
            int v = n->outputs[o];
            if (r->is_out[v])
                return 0;
            int inside = 0;
            for (int d = 0; d < n_cov; d++) {
                const ir_node_t *m = &g->nodes[covered[d]];
                for (int j = 0; j < m->n_inputs; j++)
                    inside += m->inputs[j] == v;
            }
            if (inside != r->uses[v])
                return 0;
        }
    }
    return 1;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

cairn_status_t rw_replace(rw_t *r, int at, int op, const int *inputs, int n_in,
                          const cairn_attr_t *attrs, int n_attrs, const int *covered, int n_cov)
{
    ir_graph_t *g = r->g;
    int n_out = g->nodes[at].n_outputs;
    if (n_out > 8)
        return base_error(CAIRN_ERR_INTERNAL, "rw_replace: node '%s' has %d outputs",
                          g->nodes[at].name, n_out);
    char names[8][64];
    const char *np[8];
    int tmp[8];
    for (int o = 0; o < n_out; o++) {
        snprintf(names[o], sizeof names[o], "__cairn_rw_%d_%d", r->counter++, o);
        np[o] = names[o];
    }
    char *name = NULL;
    {
        size_t len = strlen(g->nodes[at].name) + 1;
        name = malloc(len);
        if (!name)
            return rw_oom();
        memcpy(name, g->nodes[at].name, len);
    }
    cairn_status_t s = ir_graph_add_node(g, op, name, inputs, n_in, attrs, n_attrs, n_out, np, tmp);
    free(name);
    BASE_TRY(s);
    /* move the new node into at's slot, with at's output values */
    ir_node_t nn = g->nodes[g->n_nodes - 1];
    g->n_nodes--;
    int old_out[8];
    for (int o = 0; o < n_out; o++)
        old_out[o] = g->nodes[at].outputs[o];
    int *sorted = malloc((size_t)n_cov * sizeof(int));
    if (!sorted) {
        rw_free_node(&nn);
        return rw_oom();
    }
    memcpy(sorted, covered, (size_t)n_cov * sizeof(int));
    qsort(sorted, (size_t)n_cov, sizeof(int), cmp_int);
    for (int c = 0; c < n_cov && s == CAIRN_OK; c++) {
        const ir_node_t *m = &g->nodes[sorted[c]];
        if (m->n_sources == 0)
            s = ir_node_add_source(&nn, m->name);
        for (int k = 0; k < m->n_sources && s == CAIRN_OK; k++)
            s = ir_node_add_source(&nn, m->sources[k]);
    }
    free(sorted);
    if (s != CAIRN_OK) {
        rw_free_node(&nn);
        return s;
    }
    for (int o = 0; o < n_out; o++) {
        /* the temporary output values are the last ones added */
        free(g->values[nn.outputs[o]].name);
        nn.outputs[o] = old_out[o];
        g->values[old_out[o]].producer = at;
    }
    g->n_values -= n_out;
    rw_free_node(&g->nodes[at]);
    g->nodes[at] = nn;
    for (int c = 0; c < n_cov; c++)
        if (covered[c] != at)
            r->dead[covered[c]] = 1;
    return rw_refresh(r);
}

static cairn_status_t unique_name(rw_t *r, const char *hint, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", hint);
    while (ir_graph_find_value(r->g, buf) >= 0)
        snprintf(buf, cap, "%s_%d", hint, r->counter++);
    return CAIRN_OK;
}

cairn_status_t rw_add_const(rw_t *r, const char *hint, cairn_dtype_t dtype, int rank,
                            const int64_t *dims, const void *data, int *out)
{
    char name[512];
    ir_type_t t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.shape.rank = rank;
    for (int i = 0; i < rank; i++)
        t.shape.d[i] = dims[i];
    BASE_TRY(unique_name(r, hint, name, sizeof name));
    BASE_TRY(ir_graph_add_constant(r->g, name, &t, data, out));
    return rw_refresh(r);
}

cairn_status_t rw_add_const_owned(rw_t *r, const char *hint, cairn_dtype_t dtype, int rank,
                                  const int64_t *dims, void *data, size_t bytes, int *out)
{
    ir_blob_t *b = ir_blob_adopt(data, bytes);
    if (!b)
        return rw_oom();
    cairn_status_t s = rw_add_const_blob(r, hint, dtype, rank, dims, b, out);
    ir_blob_unref(b);
    return s;
}

cairn_status_t rw_add_const_blob(rw_t *r, const char *hint, cairn_dtype_t dtype, int rank,
                                 const int64_t *dims, ir_blob_t *b, int *out)
{
    char name[512];
    ir_type_t t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.shape.rank = rank;
    for (int i = 0; i < rank; i++)
        t.shape.d[i] = dims[i];
    BASE_TRY(unique_name(r, hint, name, sizeof name));
    BASE_TRY(ir_graph_add_constant_blob(r->g, name, &t, b, out));
    return rw_refresh(r);
}

cairn_status_t rw_finish(rw_t *r)
{
    ir_graph_t *g = r->g;
    cairn_status_t s = rw_fit(r);
    int nv = g->n_values, nn = g->n_nodes;
    int *vmap = malloc(((size_t)nv + 1) * sizeof(int));
    int *nmap = malloc(((size_t)nn + 1) * sizeof(int));
    unsigned char *keep = calloc((size_t)nv + 1, 1);
    if (s != CAIRN_OK || !vmap || !nmap || !keep) {
        free(vmap), free(nmap), free(keep);
        rw_free(r);
        return s != CAIRN_OK ? s : rw_oom();
    }
    for (int i = 0; i < g->n_inputs; i++)
        keep[g->inputs[i]] = 1;
    for (int i = 0; i < g->n_outputs; i++)
        keep[g->outputs[i]] = 1;
    for (int i = 0; i < nn; i++) {
        if (r->dead[i])
            continue;
        for (int j = 0; j < g->nodes[i].n_inputs; j++)
            if (g->nodes[i].inputs[j] >= 0)
                keep[g->nodes[i].inputs[j]] = 1;
        for (int o = 0; o < g->nodes[i].n_outputs; o++)
            keep[g->nodes[i].outputs[o]] = 1;
    }
    int k = 0;
    for (int i = 0; i < nn; i++) {
        if (r->dead[i]) {
            nmap[i] = -1;
            rw_free_node(&g->nodes[i]);
            continue;
        }
        nmap[i] = k;
        if (k != i)
            g->nodes[k] = g->nodes[i];
        k++;
    }
    g->n_nodes = k;
    k = 0;
    for (int v = 0; v < nv; v++) {
        if (!keep[v]) {
            vmap[v] = -1;
            free(g->values[v].name);
            ir_value_set_blob(&g->values[v], NULL);
            continue;
        }
        vmap[v] = k;
        if (k != v)
            g->values[k] = g->values[v];
        k++;
    }
    g->n_values = k;
    for (int v = 0; v < g->n_values; v++) {
        int p = g->values[v].producer;
        g->values[v].producer = p >= 0 ? nmap[p] : -1;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node_t *n = &g->nodes[i];
        for (int j = 0; j < n->n_inputs; j++)
            if (n->inputs[j] >= 0)
                n->inputs[j] = vmap[n->inputs[j]];
        for (int o = 0; o < n->n_outputs; o++)
            n->outputs[o] = vmap[n->outputs[o]];
    }
    for (int i = 0; i < g->n_inputs; i++)
        g->inputs[i] = vmap[g->inputs[i]];
    for (int i = 0; i < g->n_outputs; i++)
        g->outputs[i] = vmap[g->outputs[i]];
    free(vmap), free(nmap), free(keep);
    rw_free(r);
    /* types again, in order: folded constants and new nodes may make
     * shapes further down known */
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node_t *n = &g->nodes[i];
        ir_type_t t[64];
        if (n->n_outputs > 64 || ir_infer_node(g, n, 1, t) != CAIRN_OK) {
            base_error_clear(); /* keep what the graph recorded */
            continue;
        }
        for (int o = 0; o < n->n_outputs; o++)
            g->values[n->outputs[o]].type = t[o];
    }
    return CAIRN_OK;
}

cairn_status_t rw_try_replace(rw_t *r, int at, int op, const int *inputs, int n_in,
                              const cairn_attr_t *attrs, int n_attrs, const int *covered,
                              int n_cov)
{
    cairn_status_t s = rw_replace(r, at, op, inputs, n_in, attrs, n_attrs, covered, n_cov);
    if (s == CAIRN_OK || s == CAIRN_ERR_OUT_OF_MEMORY || s == CAIRN_ERR_INTERNAL)
        return s;
    base_error_clear();
    return CAIRN_OK;
}

int rw_epilogue_activation(const ir_graph_t *g, int a, int v, int allow_gelu, gemm_act_t *act,
                           float *lo, float *hi)
{
    const ir_node_t *n = &g->nodes[a];
    if (n->inputs[0] != v)
        return 0;
    *lo = -FLT_MAX, *hi = FLT_MAX;
    switch (n->op) {
    case IR_OP_Relu: *act = GEMM_ACT_RELU; return 1;
    case IR_OP_Sigmoid: *act = GEMM_ACT_SIGMOID; return 1;
    case IR_OP_Gelu: {
        if (!allow_gelu)
            return 0;
        const ir_attr_t *ap = ir_node_attr(n, "approximate");
        *act = ap && ap->s && !strcmp(ap->s, "tanh") ? GEMM_ACT_GELU_TANH : GEMM_ACT_GELU_ERF;
        return 1;
    }
    case IR_OP_Swish: { /* SiLU, x * sigmoid(x), only (alpha = 1) */
        const ir_attr_t *al = ir_node_attr(n, "alpha");
        if (!allow_gelu || (al && al->f != 1.0f))
            return 0;
        *act = GEMM_ACT_SILU;
        return 1;
    }
    case IR_OP_Clip: {
        double x;
        for (int k = 1; k < n->n_inputs; k++) {
            if (n->inputs[k] < 0)
                continue;
            if (g->values[n->inputs[k]].type.dtype != CAIRN_F32 ||
                !rw_const_scalar(g, n->inputs[k], &x))
                return 0;
            *(k == 1 ? lo : hi) = (float)x;
        }
        *act = GEMM_ACT_CLIP;
        return 1;
    }
    default: return 0;
    }
}
