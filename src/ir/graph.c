/* Graph construction, copying and destruction. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "base/alloc.h"
#include "base/dtype.h"
#include "ir/op_table.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_str(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* Grows *arr (of elem bytes each) so it holds at least need entries. */
static int grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 1;
    int nc = *cap ? *cap : 8;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p)
        return 0;
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return 1;
}

static cairn_status_t oom(void) { return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory"); }

ir_blob_t *ir_blob_adopt(void *data, size_t bytes)
{
    if (!data)
        return NULL;
    ir_blob_t *b = malloc(sizeof *b);
    if (!b) {
        base_aligned_free(data);
        return NULL;
    }
    atomic_init(&b->refs, 1);
    b->size = bytes;
    b->data = data;
    b->mapped = 0;
    b->map_len = 0;
    b->parent = NULL;
    return b;
}

#define IR_BLOB_MAP_MIN ((size_t)64 << 10)

ir_blob_t *ir_blob_alloc(size_t bytes)
{
    if (bytes < IR_BLOB_MAP_MIN)
        return ir_blob_adopt(base_aligned_alloc(bytes, BASE_ALIGN), bytes);
    ir_blob_t *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        free(b);
        return NULL;
    }
#if defined(MADV_HUGEPAGE)
    if (bytes >= BASE_HUGE_MIN && base_huge_pages())
        (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    atomic_init(&b->refs, 1);
    b->size = bytes;
    b->data = p; /* page-aligned */
    b->mapped = 1;
    b->map_len = bytes;
    b->parent = NULL;
    return b;
}

ir_blob_t *ir_blob_alloc_huge(size_t bytes)
{
    const size_t huge = (size_t)2 << 20, page = 4096;
    if (bytes > SIZE_MAX - 2 * huge)
        return NULL;
    const size_t len = ((bytes ? bytes : 1) + page - 1) / page * page; /* whole pages */
    ir_blob_t *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    /* map a huge page more than needed and unmap what lies before the
     * first 2 MiB boundary and after the blob */
    char *p = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        free(b);
        return NULL;
    }
    char *a = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    if (p + len + huge > a + len)
        munmap(a + len, (size_t)(p + len + huge - (a + len)));
#if defined(MADV_HUGEPAGE)
    if (base_huge_pages())
        (void)madvise(a, len, MADV_HUGEPAGE);
#endif
    atomic_init(&b->refs, 1);
    b->size = bytes;
    b->data = a;
    b->mapped = 1;
    b->map_len = len;
    b->parent = NULL;
    return b;
}

ir_blob_t *ir_blob_view(ir_blob_t *parent, size_t offset, size_t bytes)
{
    if (!parent || offset > parent->size || bytes > parent->size - offset ||
        offset % BASE_ALIGN != 0)
        return NULL;
    ir_blob_t *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    b->size = bytes;
    b->data = (char *)parent->data + offset;
    b->mapped = 0;
    b->map_len = 0;
    b->parent = ir_blob_ref(parent);
    return b;
}

ir_blob_t *ir_blob_ref(ir_blob_t *b)
{
    if (b)
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    return b;
}

void ir_blob_unref(ir_blob_t *b)
{
    /* acq_rel: every holder's reads of the bytes happen before the free */
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) {
        if (b->parent)
            ir_blob_unref(b->parent);
        else if (b->mapped)
            munmap(b->data, b->map_len);
        else
            base_aligned_free(b->data);
        free(b);
    }
}

void ir_value_set_blob(ir_value_t *v, ir_blob_t *b)
{
    ir_blob_t *old = v->blob;
    v->blob = ir_blob_ref(b);
    v->data = b ? b->data : NULL;
    v->data_bytes = b ? b->size : 0;
    ir_blob_unref(old);
}

cairn_status_t ir_graph_create(ir_graph_t **out)
{
    if (!out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "ir_graph_create: out is NULL");
    ir_graph_t *g = calloc(1, sizeof *g);
    if (!g)
        return oom();
    *out = g;
    return CAIRN_OK;
}

static void free_attr(ir_attr_t *a)
{
    free(a->name);
    free(a->s);
    free(a->ints);
    free(a->floats);
    base_aligned_free(a->t_data);
}

static void free_node(ir_node_t *n)
{
    free(n->name);
    free(n->inputs);
    free(n->outputs);
    for (int i = 0; i < n->n_attrs; i++)
        free_attr(&n->attrs[i]);
    free(n->attrs);
    free(n->attr_slot);
    for (int i = 0; i < n->n_sources; i++)
        free(n->sources[i]);
    free(n->sources);
}

void ir_graph_destroy(ir_graph_t *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n_values; i++) {
        free(g->values[i].name);
        ir_value_set_blob(&g->values[i], NULL);
    }
    free(g->values);
    for (int i = 0; i < g->n_nodes; i++)
        free_node(&g->nodes[i]);
    free(g->nodes);
    free(g->inputs);
    free(g->outputs);
    for (int i = 0; i < g->n_symbols; i++)
        free(g->symbols[i]);
    free(g->symbols);
    free(g);
}

int ir_graph_symbol(ir_graph_t *g, const char *name)
{
    for (int i = 0; i < g->n_symbols; i++)
        if (strcmp(g->symbols[i], name) == 0)
            return i;
    if (!grow((void **)&g->symbols, &g->cap_symbols, g->n_symbols + 1, sizeof(char *)))
        return -1;
    char *s = dup_str(name);
    if (!s)
        return -1;
    g->symbols[g->n_symbols] = s;
    return g->n_symbols++;
}

int ir_graph_find_value(const ir_graph_t *g, const char *name)
{
    for (int i = 0; i < g->n_values; i++)
        if (g->values[i].name && strcmp(g->values[i].name, name) == 0)
            return i;
    return -1;
}

static cairn_status_t check_type(const char *what, const char *name, const ir_type_t *t)
{
    if (!base_dtype_valid(t->dtype))
        return base_error(CAIRN_ERR_DTYPE, "%s '%s': invalid element type %d", what, name,
                          (int)t->dtype);
    if (t->shape.rank < -1 || t->shape.rank > CAIRN_MAX_RANK)
        return base_error(CAIRN_ERR_SHAPE, "%s '%s': rank %d is outside [0, %d]", what, name,
                          t->shape.rank, CAIRN_MAX_RANK);
    for (int i = 0; i < t->shape.rank; i++)
        if (t->shape.d[i] < 0 && !ir_dim_is_sym(t->shape.d[i]) &&
            t->shape.d[i] != IR_DIM_UNKNOWN)
            return base_error(CAIRN_ERR_SHAPE, "%s '%s': dimension %d is negative", what, name,
                              i);
    return CAIRN_OK;
}

cairn_status_t ir_graph_add_value(ir_graph_t *g, const char *name, const ir_type_t *type,
                                  ir_value_kind_t kind, int *out)
{
    if (!g || !name || !type)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "ir_graph_add_value: NULL argument");
    if (name[0] && ir_graph_find_value(g, name) >= 0)
        return base_error(CAIRN_ERR_GRAPH, "value name '%s' is already used", name);
    if (!grow((void **)&g->values, &g->cap_values, g->n_values + 1, sizeof(ir_value_t)))
        return oom();
    ir_value_t *v = &g->values[g->n_values];
    memset(v, 0, sizeof *v);
    v->name = dup_str(name);
    if (!v->name)
        return oom();
    v->type = *type;
    v->kind = kind;
    v->producer = -1;
    if (out)
        *out = g->n_values;
    g->n_values++;
    return CAIRN_OK;
}

cairn_status_t ir_graph_add_input(ir_graph_t *g, const char *name, const ir_type_t *type,
                                  int *out)
{
    int id;
    if (!g || !name || !type)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "ir_graph_add_input: NULL argument");
    BASE_TRY(check_type("input", name, type));
    if (type->shape.rank < 0)
        return base_error(CAIRN_ERR_SHAPE, "input '%s': rank must be known", name);
    if (!grow((void **)&g->inputs, &g->cap_inputs, g->n_inputs + 1, sizeof(int)))
        return oom();
    BASE_TRY(ir_graph_add_value(g, name, type, IR_VALUE_INPUT, &id));
    g->inputs[g->n_inputs++] = id;
    if (out)
        *out = id;
    return CAIRN_OK;
}

cairn_status_t ir_graph_add_constant(ir_graph_t *g, const char *name, const ir_type_t *type,
                                     const void *data, int *out)
{
    if (!g || !name || !type)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "ir_graph_add_constant: NULL argument");
    BASE_TRY(check_type("constant", name, type));
    if (!ir_shape_is_concrete(&type->shape))
        return base_error(CAIRN_ERR_SHAPE, "constant '%s': shape must be concrete", name);
    int64_t n = ir_shape_numel(&type->shape);
    size_t bytes;
    if (n < 0 || !base_mul_size((size_t)n, cairn_dtype_size(type->dtype), &bytes))
        return base_error(CAIRN_ERR_SHAPE, "constant '%s': size overflows", name);
    if (bytes > 0 && !data)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "constant '%s': data is NULL", name);
    ir_blob_t *b = ir_blob_alloc(bytes);
    if (!b)
        return oom();
    if (bytes)
        memcpy(b->data, data, bytes);
    cairn_status_t s = ir_graph_add_constant_blob(g, name, type, b, out);
    ir_blob_unref(b);
    return s;
}

cairn_status_t ir_graph_add_constant_blob(ir_graph_t *g, const char *name, const ir_type_t *type,
                                          ir_blob_t *b, int *out)
{
    int id;
    if (!g || !name || !type || !b)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "ir_graph_add_constant: NULL argument");
    BASE_TRY(check_type("constant", name, type));
    if (!ir_shape_is_concrete(&type->shape))
        return base_error(CAIRN_ERR_SHAPE, "constant '%s': shape must be concrete", name);
    int64_t n = ir_shape_numel(&type->shape);
    size_t bytes;
    if (n < 0 || !base_mul_size((size_t)n, cairn_dtype_size(type->dtype), &bytes))
        return base_error(CAIRN_ERR_SHAPE, "constant '%s': size overflows", name);
    if (b->size != bytes)
        return base_error(CAIRN_ERR_INTERNAL, "constant '%s': payload of %zu bytes for a type "
                          "of %zu", name, b->size, bytes);
    BASE_TRY(ir_graph_add_value(g, name, type, IR_VALUE_CONSTANT, &id));
    ir_value_set_blob(&g->values[id], b);
    if (out)
        *out = id;
    return CAIRN_OK;
}

static cairn_status_t copy_attr(ir_attr_t *dst, const cairn_attr_t *src)
{
    memset(dst, 0, sizeof *dst);
    dst->name = dup_str(src->name);
    if (!dst->name)
        return oom();
    dst->type = src->type;
    switch (src->type) {
    case CAIRN_ATTR_INT: dst->i = src->i; break;
    case CAIRN_ATTR_FLOAT: dst->f = src->f; break;
    case CAIRN_ATTR_STRING:
        dst->s = dup_str(src->s ? src->s : "");
        if (!dst->s)
            return oom();
        break;
    case CAIRN_ATTR_INTS:
        dst->n = src->n;
        dst->ints = malloc((src->n ? src->n : 1) * sizeof(int64_t));
        if (!dst->ints)
            return oom();
        if (src->n) {
            if (!src->ints)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT, "attribute '%s': ints is NULL",
                                  src->name);
            memcpy(dst->ints, src->ints, src->n * sizeof(int64_t));
        }
        break;
    case CAIRN_ATTR_FLOATS:
        dst->n = src->n;
        dst->floats = malloc((src->n ? src->n : 1) * sizeof(float));
        if (!dst->floats)
            return oom();
        if (src->n) {
            if (!src->floats)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT, "attribute '%s': floats is NULL",
                                  src->name);
            memcpy(dst->floats, src->floats, src->n * sizeof(float));
        }
        break;
    case CAIRN_ATTR_TENSOR: {
        const cairn_tensor_t *t = src->t;
        if (!t || t->rank < 0 || t->rank > CAIRN_MAX_RANK || !base_dtype_valid(t->dtype))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "attribute '%s': bad tensor",
                              src->name);
        dst->t_type.dtype = t->dtype;
        dst->t_type.shape.rank = t->rank;
        for (int i = 0; i < t->rank; i++) {
            if (t->shape[i] < 0)
                return base_error(CAIRN_ERR_SHAPE, "attribute '%s': negative dimension",
                                  src->name);
            dst->t_type.shape.d[i] = t->shape[i];
        }
        size_t bytes;
        int64_t n = ir_shape_numel(&dst->t_type.shape);
        if (n < 0 || !base_mul_size((size_t)n, cairn_dtype_size(t->dtype), &bytes))
            return base_error(CAIRN_ERR_SHAPE, "attribute '%s': size overflows", src->name);
        dst->t_data = base_aligned_alloc(bytes, BASE_ALIGN);
        if (!dst->t_data)
            return oom();
        if (bytes) {
            if (!t->data)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT, "attribute '%s': data is NULL",
                                  src->name);
            memcpy(dst->t_data, t->data, bytes);
        }
        break;
    }
    default:
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "attribute '%s': unknown type %d",
                          src->name, (int)src->type);
    }
    return CAIRN_OK;
}

static const char *attr_type_name(cairn_attr_type_t t)
{
    switch (t) {
    case CAIRN_ATTR_INT: return "int";
    case CAIRN_ATTR_FLOAT: return "float";
    case CAIRN_ATTR_STRING: return "string";
    case CAIRN_ATTR_INTS: return "ints";
    case CAIRN_ATTR_FLOATS: return "floats";
    case CAIRN_ATTR_TENSOR: return "tensor";
    }
    return "?";
}

/* Resolves n's attributes onto its op's schema slots. */
static cairn_status_t bind_slots(ir_node_t *n)
{
    const ir_op_def_t *d = ir_op_def(n->op);
    int ns = ir_op_attr_count(d);
    n->attr_slot = malloc((size_t)(ns ? ns : 1) * sizeof(int));
    if (!n->attr_slot)
        return oom();
    for (int s = 0; s < ns; s++)
        n->attr_slot[s] = -1;
    for (int a = 0; a < n->n_attrs; a++) {
        int s;
        for (s = 0; s < ns; s++)
            if (strcmp(d->attrs[s].name, n->attrs[a].name) == 0)
                break;
        if (s == ns)
            return base_error(CAIRN_ERR_UNSUPPORTED, "unknown attribute '%s' for op %s",
                              n->attrs[a].name, d->name);
        if (n->attr_slot[s] >= 0)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "attribute '%s' is given twice",
                              n->attrs[a].name);
        /* an INT given where FLOAT is expected is accepted (and vice versa
         * is not): exporters write integral floats as ints at times */
        if (n->attrs[a].type != d->attrs[s].type) {
            if (n->attrs[a].type == CAIRN_ATTR_INT && d->attrs[s].type == CAIRN_ATTR_FLOAT) {
                n->attrs[a].f = (float)n->attrs[a].i;
                n->attrs[a].type = CAIRN_ATTR_FLOAT;
            } else {
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "attribute '%s' must be %s, got %s", n->attrs[a].name,
                                  attr_type_name(d->attrs[s].type),
                                  attr_type_name(n->attrs[a].type));
            }
        }
        n->attr_slot[s] = a;
    }
    for (int s = 0; s < ns; s++)
        if (d->attrs[s].required && n->attr_slot[s] < 0)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "required attribute '%s' is missing",
                              d->attrs[s].name);
    return CAIRN_OK;
}

cairn_status_t ir_node_add_source(ir_node_t *n, const char *source)
{
    char **p = realloc(n->sources, (size_t)(n->n_sources + 1) * sizeof(char *));
    if (!p)
        return oom();
    n->sources = p;
    p[n->n_sources] = dup_str(source);
    if (!p[n->n_sources])
        return oom();
    n->n_sources++;
    return CAIRN_OK;
}

cairn_status_t ir_infer_node(const ir_graph_t *g, const ir_node_t *n, int partial,
                             ir_type_t *out_types)
{
    ir_type_t in_types[64];
    const void *in_data[64];
    if (n->n_inputs > 64)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s': more than 64 inputs", n->name);
    for (int i = 0; i < n->n_inputs; i++) {
        int v = n->inputs[i];
        if (v < 0) {
            memset(&in_types[i], 0, sizeof in_types[i]);
            in_data[i] = NULL;
        } else {
            in_types[i] = g->values[v].type;
            in_data[i] = g->values[v].data;
        }
    }
    for (int o = 0; o < n->n_outputs; o++)
        memset(&out_types[o], 0, sizeof out_types[o]);
    ir_infer_ctx_t c = {g, n, partial, n->n_inputs, in_types, in_data, n->n_outputs, out_types, NULL};
    return ir_op_def(n->op)->infer(&c);
}

cairn_status_t ir_graph_add_node(ir_graph_t *g, int op, const char *name, const int *inputs,
                                 int n_inputs, const cairn_attr_t *attrs, int n_attrs,
                                 int n_outputs, const char *const *out_names, int *outputs)
{
    if (!g || !name || (n_inputs > 0 && !inputs) || (n_attrs > 0 && !attrs) ||
        (n_outputs > 0 && !outputs))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "add node '%s': NULL argument",
                          name ? name : "?");
    if (op < 0 || op >= IR_OP_COUNT)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s': unknown op id %d", name, op);
    const ir_op_def_t *d = ir_op_def(op);
    if (n_inputs < d->min_in || n_inputs > d->max_in)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): takes %d to %d inputs, got %d", name,
                          d->name, d->min_in, d->max_in, n_inputs);
    if (n_outputs < d->min_out || n_outputs > d->max_out)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): has %d to %d outputs, got %d", name,
                          d->name, d->min_out, d->max_out, n_outputs);
    if (n_outputs > 64)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s': more than 64 outputs", name);
    for (int i = 0; i < n_inputs; i++) {
        if (inputs[i] < -1 || inputs[i] >= g->n_values)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): input %d refers to value %d, "
                              "which does not exist", name, d->name, i, inputs[i]);
        if (inputs[i] == -1 && i < d->min_in)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): input %d is required", name,
                              d->name, i);
    }
    for (int i = 0; i < n_attrs; i++)
        if (!attrs[i].name)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "node '%s': attribute %d has no name",
                              name, i);

    ir_node_t n;
    memset(&n, 0, sizeof n);
    n.op = op;
    cairn_status_t s = CAIRN_OK;
    ir_type_t out_types[64];
    n.name = dup_str(name);
    n.inputs = malloc((size_t)(n_inputs ? n_inputs : 1) * sizeof(int));
    n.outputs = malloc((size_t)(n_outputs ? n_outputs : 1) * sizeof(int));
    n.attrs = calloc((size_t)(n_attrs ? n_attrs : 1), sizeof(ir_attr_t));
    if (!n.name || !n.inputs || !n.outputs || !n.attrs) {
        s = oom();
        goto fail;
    }
    n.n_inputs = n_inputs;
    if (n_inputs)
        memcpy(n.inputs, inputs, (size_t)n_inputs * sizeof(int));
    for (int i = 0; i < n_attrs; i++) {
        n.n_attrs = i + 1;
        if ((s = copy_attr(&n.attrs[i], &attrs[i])) != CAIRN_OK)
            goto fail;
    }
    if ((s = bind_slots(&n)) != CAIRN_OK)
        goto fail;
    /* inference needs the output count (Split's equal parts, optional outputs) */
    n.n_outputs = n_outputs;
    if ((s = ir_infer_node(g, &n, 1, out_types)) != CAIRN_OK)
        goto fail;
    /* output names must be new and distinct */
    char auto_name[64][512];
    const char *names[64];
    for (int o = 0; o < n_outputs; o++) {
        if (out_names && out_names[o]) {
            names[o] = out_names[o];
        } else {
            snprintf(auto_name[o], sizeof auto_name[o], "%s:%d", name, o);
            names[o] = auto_name[o];
        }
        if (ir_graph_find_value(g, names[o]) >= 0) {
            s = base_error(CAIRN_ERR_GRAPH, "value name '%s' is already used", names[o]);
            goto fail;
        }
        for (int p = 0; p < o; p++)
            if (strcmp(names[p], names[o]) == 0) {
                s = base_error(CAIRN_ERR_GRAPH, "two outputs are named '%s'", names[o]);
                goto fail;
            }
    }
    if (!grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(ir_node_t)) ||
        !grow((void **)&g->values, &g->cap_values, g->n_values + n_outputs, sizeof(ir_value_t))) {
        s = oom();
        goto fail;
    }
    {
        int first = g->n_values;
        for (int o = 0; o < n_outputs; o++) {
            int id;
            if ((s = ir_graph_add_value(g, names[o], &out_types[o], IR_VALUE_INTERMEDIATE,
                                        &id)) != CAIRN_OK) {
                /* roll back the values added so far */
                for (int v = first; v < g->n_values; v++)
                    free(g->values[v].name);
                g->n_values = first;
                goto fail;
            }
            g->values[id].producer = g->n_nodes;
            n.outputs[o] = id;
            outputs[o] = id;
        }
    }
    n.n_outputs = n_outputs;
    g->nodes[g->n_nodes++] = n;
    return CAIRN_OK;
fail:
    free_node(&n);
    return base_error_prefix(s, "node '%s' (%s): ", name, d->name);
}

cairn_status_t ir_graph_mark_output(ir_graph_t *g, int value)
{
    if (!g || value < 0 || value >= g->n_values)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "mark output: no value with id %d", value);
    if (!grow((void **)&g->outputs, &g->cap_outputs, g->n_outputs + 1, sizeof(int)))
        return oom();
    g->outputs[g->n_outputs++] = value;
    return CAIRN_OK;
}

static cairn_status_t clone_attr(ir_attr_t *dst, const ir_attr_t *src)
{
    cairn_attr_t a = {src->name, src->type, src->i, src->f, src->s, src->ints, src->floats,
                      src->n, NULL};
    cairn_tensor_t t;
    if (src->type == CAIRN_ATTR_TENSOR) {
        memset(&t, 0, sizeof t);
        t.dtype = src->t_type.dtype;
        t.rank = src->t_type.shape.rank;
        for (int i = 0; i < t.rank; i++)
            t.shape[i] = src->t_type.shape.d[i];
        t.data = src->t_data;
        a.t = &t;
    }
    return copy_attr(dst, &a);
}

cairn_status_t ir_graph_clone(const ir_graph_t *g, ir_graph_t **out)
{
    ir_graph_t *c;
    BASE_TRY(ir_graph_create(&c));
    cairn_status_t s = CAIRN_OK;
#define CLONE_FAIL(expr)           \
    do {                           \
        if ((s = (expr)) != CAIRN_OK) \
            goto fail;             \
    } while (0)
    for (int i = 0; i < g->n_symbols; i++)
        if (ir_graph_symbol(c, g->symbols[i]) != i)
            CLONE_FAIL(oom());
    if (!grow((void **)&c->values, &c->cap_values, g->n_values, sizeof(ir_value_t)) ||
        !grow((void **)&c->nodes, &c->cap_nodes, g->n_nodes, sizeof(ir_node_t)) ||
        !grow((void **)&c->inputs, &c->cap_inputs, g->n_inputs, sizeof(int)) ||
        !grow((void **)&c->outputs, &c->cap_outputs, g->n_outputs, sizeof(int)))
        CLONE_FAIL(oom());
    for (int i = 0; i < g->n_values; i++) {
        const ir_value_t *v = &g->values[i];
        ir_value_t *w = &c->values[i];
        *w = *v;
        w->name = dup_str(v->name);
        /* constants are immutable: the clone shares the payload */
        ir_blob_ref(w->blob);
        c->n_values = i + 1;
        if (!w->name)
            CLONE_FAIL(oom());
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        ir_node_t *m = &c->nodes[i];
        memset(m, 0, sizeof *m);
        c->n_nodes = i + 1;
        m->op = n->op;
        m->name = dup_str(n->name);
        m->inputs = malloc((size_t)(n->n_inputs ? n->n_inputs : 1) * sizeof(int));
        m->outputs = malloc((size_t)(n->n_outputs ? n->n_outputs : 1) * sizeof(int));
        m->attrs = calloc((size_t)(n->n_attrs ? n->n_attrs : 1), sizeof(ir_attr_t));
        int ns = ir_op_attr_count(ir_op_def(n->op));
        m->attr_slot = malloc((size_t)(ns ? ns : 1) * sizeof(int));
        if (!m->name || !m->inputs || !m->outputs || !m->attrs || !m->attr_slot)
            CLONE_FAIL(oom());
        m->n_inputs = n->n_inputs;
        m->n_outputs = n->n_outputs;
        if (n->n_inputs)
            memcpy(m->inputs, n->inputs, (size_t)n->n_inputs * sizeof(int));
        if (n->n_outputs)
            memcpy(m->outputs, n->outputs, (size_t)n->n_outputs * sizeof(int));
        if (ns)
            memcpy(m->attr_slot, n->attr_slot, (size_t)ns * sizeof(int));
        for (int a = 0; a < n->n_attrs; a++) {
            m->n_attrs = a + 1;
            CLONE_FAIL(clone_attr(&m->attrs[a], &n->attrs[a]));
        }
        for (int k = 0; k < n->n_sources; k++)
            CLONE_FAIL(ir_node_add_source(m, n->sources[k]));
    }
    if (g->n_inputs) /* a graph of constants only has no inputs (and a NULL array) */
        memcpy(c->inputs, g->inputs, (size_t)g->n_inputs * sizeof(int));
    c->n_inputs = g->n_inputs;
    if (g->n_outputs)
        memcpy(c->outputs, g->outputs, (size_t)g->n_outputs * sizeof(int));
    c->n_outputs = g->n_outputs;
    *out = c;
    return CAIRN_OK;
#undef CLONE_FAIL
fail:
    ir_graph_destroy(c);
    return s;
}

const ir_attr_t *ir_node_attr(const ir_node_t *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}
