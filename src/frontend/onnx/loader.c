/*
 * ONNX ModelProto -> cairn graph.
 *
 * The order of work is chosen so that a bad or unsupported model is refused
 * before anything is built, with everything wrong said at once where that
 * helps the user: (1) unpack and check the opset imports, (2) index every
 * value name (initializers, graph inputs, node outputs) and refuse duplicates,
 * (3) sort the nodes topologically (a file need not be sorted; a cycle is an
 * error naming its nodes), (4) collect every (op, opset) cairn lacks and
 * refuse them in one message, (5) build: initializers and Constant nodes
 * become constants, the other graph inputs become inputs (dim_param and
 * unnamed unknown dims become symbols), and each node is mapped onto cairn
 * ops. cairn's ops follow opset 17; older forms are rewritten here (axes and
 * similar attributes become constant inputs, Softmax-1/11's coercion to 2-D
 * becomes Flatten + Softmax + Reshape, Add-6's broadcast/axis becomes a
 * reshape of the second operand). Every IR node records the ONNX node it
 * came from as a source name.
 *
 * The bytes are untrusted: protobuf-c checks the wire format; everything the
 * schema cannot express (counts, names, dims, types) is checked here.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* madvise */
#include "frontend/onnx/loader.h"

#include "base/dtype.h"
#include "base/status.h"
#include "frontend/onnx/tensor_pb.h"
#include "ir/op_table.h"
#include "onnx.pb-c.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The IR behind a public graph (runtime/api_graph.c). */
const ir_graph_t *cairn_graph_ir(const cairn_graph_t *g);

#define LD_MAX_ATTRS 64
#define LD_MAX_IO 64
#define LD_OPSET_MAX 17

/* ---- a string -> int hash map (value names to value ids) -------------- */

typedef struct nm_entry {
    char *key;
    int val;
} nm_entry_t;

typedef struct namemap {
    nm_entry_t *e;
    size_t cap, n;
} namemap_t;

static uint64_t nm_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static int nm_get(const namemap_t *m, const char *k)
{
    if (!m->cap)
        return -1;
    for (size_t i = nm_hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->e[i].key)
            return -1;
        if (!strcmp(m->e[i].key, k))
            return m->e[i].val;
    }
}

/* Inserts or replaces; 0 on out of memory. */
static int nm_put(namemap_t *m, const char *k, int v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        nm_entry_t *ne = calloc(nc, sizeof *ne);
        if (!ne)
            return 0;
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].key)
                continue;
            size_t j = nm_hash(m->e[i].key) & (nc - 1);
            while (ne[j].key)
                j = (j + 1) & (nc - 1);
            ne[j] = m->e[i];
        }
        free(m->e);
        m->e = ne, m->cap = nc;
    }
    size_t i = nm_hash(k) & (m->cap - 1);
    while (m->e[i].key) {
        if (!strcmp(m->e[i].key, k)) {
            m->e[i].val = v;
            return 1;
        }
        i = (i + 1) & (m->cap - 1);
    }
    size_t len = strlen(k) + 1;
    m->e[i].key = malloc(len);
    if (!m->e[i].key)
        return 0;
    memcpy(m->e[i].key, k, len);
    m->e[i].val = v;
    m->n++;
    return 1;
}

static void nm_free(namemap_t *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->e[i].key);
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* ---- loader state ----------------------------------------------------- */

/* The names of an If branch being inlined. ONNX subgraphs read outer values
 * by name, so a lookup walks out through the enclosing scopes to the main
 * graph. Values the branch defines get IR names under `prefix` (cairn value
 * names are unique graph-wide), except a value that is a branch output: it
 * takes the If output's name directly, so no Identity is needed for it. */
typedef struct ld_scope {
    namemap_t map;              /* ONNX name in the branch -> value id */
    namemap_t outs;             /* branch output name -> If output index */
    char **out_ir;              /* per If output: its IR name (NULL: unnamed) */
    char *prefix;               /* "<If node>/then" or "<If node>/else" */
    struct ld_scope *parent;
} ld_scope_t;

#define LD_MAX_DEPTH 32 /* nested If branches inlined */

/* Where an initializer's raw_data lies in the model's bytes (strip_model). */
typedef struct ld_span {
    size_t off, len; /* off == SIZE_MAX: the initializer had no raw_data */
} ld_span_t;

typedef struct ld {
    cairn_graph_t *g;
    ir_graph_t *ir;
    const char *label; /* the model, for messages */
    const char *dir;   /* external data folder, or NULL */
    int64_t opset;
    namemap_t names;   /* value name -> cairn value id */
    int gen;           /* counter for generated names */
    int n_unknown_dims;
    const onnx_bound_input_t *bound;
    int n_bound;
    /* the ONNX node being mapped */
    const char *node_name;
    const char *op_type;
    ld_scope_t *sub;   /* the innermost branch being inlined, or NULL */
    int depth;
    /* the model's bytes, and where its initializers' raw_data lie in them
     * when the skeleton was unpacked (NULL: the whole model was) */
    const uint8_t *buf;
    int mapped; /* buf is a private read-only mapping of the file */
    const struct ld_span *spans;
} ld_t;

static cairn_status_t oom(void) { return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory"); }

static const char *str_or(const char *s, const char *def) { return s && s[0] ? s : def; }

/* A generated value or node name that no ONNX name is likely to take. */
static const char *ld_gen_name(ld_t *L, char *buf, size_t cap, const char *what)
{
    snprintf(buf, cap, "%s/cairn_%s_%d", L->node_name ? L->node_name : "graph", what, ++L->gen);
    return buf;
}

/* A value by ONNX name, seen from the current scope; -1 if none. */
static int ld_lookup(const ld_t *L, const char *name)
{
    for (const ld_scope_t *sc = L->sub; sc; sc = sc->parent) {
        int id = nm_get(&sc->map, name);
        if (id >= 0)
            return id;
    }
    return nm_get(&L->names, name);
}

/* Binds an ONNX name in the current scope; 0 on out of memory. */
static int ld_bind(ld_t *L, const char *name, int id)
{
    return nm_put(L->sub ? &L->sub->map : &L->names, name, id);
}

/* The IR name for a value the current scope defines under ONNX name `key`. */
static const char *ld_ir_name(const ld_t *L, const char *key, char *buf, size_t cap)
{
    if (!L->sub)
        return key;
    int k = nm_get(&L->sub->outs, key);
    if (k >= 0 && L->sub->out_ir[k])
        return L->sub->out_ir[k];
    snprintf(buf, cap, "%s/%s", L->sub->prefix, key);
    return buf;
}

/* Looks a value up by name for the current node's input `i`. */
static cairn_status_t ld_value(ld_t *L, const char *name, int i, int *out)
{
    int id = ld_lookup(L, name);
    if (id < 0)
        return base_error(CAIRN_ERR_GRAPH,
                          "node '%s' (%s): input %d '%s' is not produced by any node, "
                          "initializer or graph input",
                          L->node_name, L->op_type, i, name);
    *out = id;
    return CAIRN_OK;
}

static const ir_type_t *ld_type(const ld_t *L, int id) { return &L->ir->values[id].type; }

/* Adds a cairn node for the current ONNX node; its IR nodes are tagged with
 * the ONNX node's name afterwards (see ld_map_node). out_names may hold NULLs
 * (generated names). */
static cairn_status_t ld_node(ld_t *L, const char *op, const int *in, int n_in,
                              const cairn_attr_t *attrs, int n_attrs, int *outs, int n_out,
                              const char *const *out_names)
{
    char nbuf[512], gen[LD_MAX_IO][512];
    const char *names[LD_MAX_IO], *keys[LD_MAX_IO];
    if (n_out > LD_MAX_IO)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (%s): more than %d outputs",
                          L->node_name, L->op_type, LD_MAX_IO);
    for (int o = 0; o < n_out; o++) {
        if (out_names && out_names[o]) {
            keys[o] = out_names[o];
            names[o] = ld_ir_name(L, keys[o], gen[o], sizeof gen[o]);
        } else {
            keys[o] = names[o] = ld_gen_name(L, gen[o], sizeof gen[o], op);
        }
    }
    const char *nname = L->node_name;
    if (strcmp(op, L->op_type))
        nname = ld_gen_name(L, nbuf, sizeof nbuf, op);
    cairn_status_t s =
        cairn_graph_add_node(L->g, op, nname, in, n_in, attrs, n_attrs, outs, n_out, names);
    if (s != CAIRN_OK)
        return s;
    for (int o = 0; o < n_out; o++)
        if (!ld_bind(L, keys[o], outs[o]))
            return oom();
    return CAIRN_OK;
}

/* Adds a constant (named by a generated name unless `name` is given). */
static cairn_status_t ld_const(ld_t *L, const char *name, const cairn_tensor_t *t, int *out)
{
    char buf[512];
    const char *ir_name = name ? ld_ir_name(L, name, buf, sizeof buf)
                               : (name = ld_gen_name(L, buf, sizeof buf, "const"));
    BASE_TRY(cairn_graph_add_constant(L->g, ir_name, t, out));
    if (!ld_bind(L, name, *out))
        return oom();
    return CAIRN_OK;
}

static cairn_status_t ld_const_i64(ld_t *L, const int64_t *v, int n, int *out)
{
    static int64_t none;
    cairn_tensor_t t = {CAIRN_I64, 1, {n}, (void *)(n ? v : &none)};
    return ld_const(L, NULL, &t, out);
}

/* A scalar constant of dtype dt holding v. */
static cairn_status_t ld_const_scalar(ld_t *L, cairn_dtype_t dt, double v, int *out)
{
    uint64_t buf = 0;
    if (!base_dtype_valid(dt))
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (%s): cannot make a constant of the "
                          "input's type (not known)", L->node_name, L->op_type);
    base_store_from_double(&buf, dt, 0, v);
    cairn_tensor_t t = {dt, 0, {0}, &buf};
    return ld_const(L, NULL, &t, out);
}

/* ---- attributes ------------------------------------------------------- */

typedef struct ld_attrs {
    int n;
    cairn_attr_t a[LD_MAX_ATTRS];
    char *strs[LD_MAX_ATTRS];
    cairn_tensor_t tens[LD_MAX_ATTRS];
    const Onnx__AttributeProto *src[LD_MAX_ATTRS];
} ld_attrs_t;

static void attrs_free(ld_attrs_t *A)
{
    for (int i = 0; i < LD_MAX_ATTRS; i++) {
        free(A->strs[i]);
        free(A->tens[i].data);
    }
    memset(A, 0, sizeof *A);
}

static int attrs_find(const ld_attrs_t *A, const char *name)
{
    for (int i = 0; i < A->n; i++)
        if (!strcmp(A->a[i].name, name))
            return i;
    return -1;
}

static void attrs_remove(ld_attrs_t *A, const char *name)
{
    int i = attrs_find(A, name);
    if (i < 0)
        return;
    /* the owned buffers stay in their slots (freed at the end); only the
     * visible list shrinks */
    for (int j = i; j + 1 < A->n; j++)
        A->a[j] = A->a[j + 1], A->src[j] = A->src[j + 1];
    A->n--;
}

static int64_t attrs_i(const ld_attrs_t *A, const char *name, int64_t def)
{
    int i = attrs_find(A, name);
    return i >= 0 && A->a[i].type == CAIRN_ATTR_INT ? A->a[i].i : def;
}

static double attrs_f(const ld_attrs_t *A, const char *name, double def)
{
    int i = attrs_find(A, name);
    if (i < 0)
        return def;
    if (A->a[i].type == CAIRN_ATTR_FLOAT)
        return A->a[i].f;
    if (A->a[i].type == CAIRN_ATTR_INT)
        return (double)A->a[i].i;
    return def;
}

/* The INTS attribute `name`: 1 and (*v, *n) when present. */
static int attrs_ints(const ld_attrs_t *A, const char *name, const int64_t **v, int *n)
{
    int i = attrs_find(A, name);
    if (i < 0 || A->a[i].type != CAIRN_ATTR_INTS)
        return 0;
    *v = A->a[i].ints, *n = (int)A->a[i].n;
    return 1;
}

static cairn_status_t attrs_set_int(ld_attrs_t *A, const char *name, int64_t v)
{
    int i = attrs_find(A, name);
    if (i < 0) {
        if (A->n == LD_MAX_ATTRS)
            return base_error(CAIRN_ERR_UNSUPPORTED, "too many attributes");
        i = A->n++;
        A->src[i] = NULL;
    }
    A->a[i] = cairn_attr_int(name, v);
    return CAIRN_OK;
}

static const char *attr_type_str(int t)
{
    switch (t) {
    case 1: return "FLOAT";
    case 2: return "INT";
    case 3: return "STRING";
    case 4: return "TENSOR";
    case 5: return "GRAPH";
    case 6: return "FLOATS";
    case 7: return "INTS";
    case 8: return "STRINGS";
    case 9: return "TENSORS";
    case 10: return "GRAPHS";
    case 11: return "SPARSE_TENSOR";
    case 12: return "SPARSE_TENSORS";
    case 13: return "TYPE_PROTO";
    case 14: return "TYPE_PROTOS";
    default: return "UNDEFINED";
    }
}

/* Converts node attributes; refuses kinds cairn has no use for. */
static cairn_status_t attrs_load(ld_t *L, const Onnx__NodeProto *nd, ld_attrs_t *A)
{
    static const int64_t no_ints;
    static const float no_floats;
    memset(A, 0, sizeof *A);
    if (nd->n_attribute > LD_MAX_ATTRS)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (%s): %zu attributes (at most %d)",
                          L->node_name, L->op_type, nd->n_attribute, LD_MAX_ATTRS);
    for (size_t k = 0; k < nd->n_attribute; k++) {
        const Onnx__AttributeProto *p = nd->attribute[k];
        if (!p || !p->name || !p->name[0])
            return base_error(CAIRN_ERR_PARSE, "node '%s' (%s): attribute %zu has no name",
                              L->node_name, L->op_type, k);
        if (p->ref_attr_name && p->ref_attr_name[0])
            return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (%s): attribute '%s' refers to "
                              "a function attribute ('%s'); only plain graphs are supported",
                              L->node_name, L->op_type, p->name, p->ref_attr_name);
        for (int j = 0; j < A->n; j++)
            if (!strcmp(A->a[j].name, p->name))
                return base_error(CAIRN_ERR_PARSE, "node '%s' (%s): attribute '%s' is given twice",
                                  L->node_name, L->op_type, p->name);
        int type = p->has_type ? (int)p->type : 0;
        if (!type) { /* files from old exporters may leave the type out */
            if (p->has_f) type = 1;
            else if (p->has_i) type = 2;
            else if (p->has_s) type = 3;
            else if (p->t) type = 4;
            else if (p->g) type = 5;
            else if (p->n_floats) type = 6;
            else if (p->n_ints) type = 7;
            else if (p->n_strings) type = 8;
        }
        int i = A->n;
        cairn_attr_t *a = &A->a[i];
        A->src[i] = p;
        memset(a, 0, sizeof *a);
        a->name = p->name;
        switch (type) {
        case 1: *a = cairn_attr_float(p->name, p->f); break;
        case 2: *a = cairn_attr_int(p->name, p->i); break;
        case 3: {
            char *s = malloc(p->s.len + 1);
            if (!s)
                return oom();
            if (p->s.len)
                memcpy(s, p->s.data, p->s.len);
            s[p->s.len] = 0;
            if (strlen(s) != p->s.len) {
                free(s);
                return base_error(CAIRN_ERR_PARSE, "node '%s' (%s): string attribute '%s' "
                                  "contains a NUL byte", L->node_name, L->op_type, p->name);
            }
            A->strs[i] = s;
            *a = cairn_attr_string(p->name, s);
            break;
        }
        case 4: {
            if (!p->t)
                return base_error(CAIRN_ERR_PARSE, "node '%s' (%s): TENSOR attribute '%s' has "
                                  "no tensor", L->node_name, L->op_type, p->name);
            char lab[512];
            snprintf(lab, sizeof lab, "%s: node '%s' attribute '%s'", L->label, L->node_name,
                     p->name);
            BASE_TRY(onnx_tensor_decode(p->t, lab, L->dir, &A->tens[i]));
            *a = cairn_attr_tensor(p->name, &A->tens[i]);
            break;
        }
        case 6:
            *a = cairn_attr_floats(p->name, p->n_floats ? p->floats : &no_floats, p->n_floats);
            break;
        case 7: *a = cairn_attr_ints(p->name, p->n_ints ? p->ints : &no_ints, p->n_ints); break;
        default:
            return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (%s): attribute '%s' is of type "
                              "%s, which cairn does not support", L->node_name, L->op_type,
                              p->name, attr_type_str(type));
        }
        A->n++;
    }
    return CAIRN_OK;
}

/* ---- op mapping ------------------------------------------------------- */

typedef struct ld_io {
    int in[LD_MAX_IO];
    int n_in;
    const char *out_names[LD_MAX_IO];
    int outs[LD_MAX_IO];
    int n_out;
} ld_io_t;

static cairn_status_t map_generic(ld_t *L, const char *op, ld_io_t *io, ld_attrs_t *A)
{
    return ld_node(L, op, io->in, io->n_in, A->a, A->n, io->outs, io->n_out, io->out_names);
}

/* An INTS attribute that later opsets made an input: appended as input
 * `slot` (omitted inputs before it become -1). */
static cairn_status_t attr_to_input(ld_t *L, ld_io_t *io, ld_attrs_t *A, const char *name,
                                    int slot)
{
    const int64_t *v;
    int n;
    if (!attrs_ints(A, name, &v, &n))
        return CAIRN_OK;
    int id;
    BASE_TRY(ld_const_i64(L, v, n, &id));
    attrs_remove(A, name);
    while (io->n_in < slot)
        io->in[io->n_in++] = -1;
    if (slot < io->n_in && io->in[slot] >= 0)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): '%s' given both as attribute and "
                          "as input", L->node_name, L->op_type, name);
    io->in[slot] = id;
    if (io->n_in <= slot)
        io->n_in = slot + 1;
    return CAIRN_OK;
}

static cairn_status_t map_constant(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    if (io->n_out != 1 || io->n_in != 0 || A->n != 1)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (Constant): needs no inputs, one output "
                          "and exactly one value attribute (has %d inputs, %d outputs, %d "
                          "attributes)", L->node_name, io->n_in, io->n_out, A->n);
    const cairn_attr_t *a = &A->a[0];
    const char *nm = a->name;
    cairn_tensor_t t = {0};
    if (!strcmp(nm, "value") && a->type == CAIRN_ATTR_TENSOR) {
        t = *a->t;
    } else if (!strcmp(nm, "value_float") && a->type == CAIRN_ATTR_FLOAT) {
        t.dtype = CAIRN_F32, t.rank = 0, t.data = (void *)&a->f;
    } else if (!strcmp(nm, "value_int") && a->type == CAIRN_ATTR_INT) {
        t.dtype = CAIRN_I64, t.rank = 0, t.data = (void *)&a->i;
    } else if (!strcmp(nm, "value_floats") && a->type == CAIRN_ATTR_FLOATS) {
        static const float none;
        t.dtype = CAIRN_F32, t.rank = 1, t.shape[0] = (int64_t)a->n;
        t.data = (void *)(a->n ? a->floats : &none);
    } else if (!strcmp(nm, "value_ints") && a->type == CAIRN_ATTR_INTS) {
        static const int64_t none;
        t.dtype = CAIRN_I64, t.rank = 1, t.shape[0] = (int64_t)a->n;
        t.data = (void *)(a->n ? a->ints : &none);
    } else if (!strncmp(nm, "value_string", 12) || !strcmp(nm, "sparse_value")) {
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (Constant): '%s' constants are not "
                          "supported (cairn has no string or sparse tensors)", L->node_name, nm);
    } else {
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (Constant): unknown or mistyped value "
                          "attribute '%s'", L->node_name, nm);
    }
    return ld_const(L, io->out_names[0], &t, &io->outs[0]);
}

/* Dropout at inference is the identity; the mask output, if wanted, is all
 * true. Training mode (a constant true, or not known) is refused. */
static cairn_status_t map_dropout(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    if (io->n_in < 1 || io->in[0] < 0 || io->n_out < 1 || io->n_out > 2)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (Dropout): needs an input and 1 or 2 "
                          "outputs", L->node_name);
    if (attrs_i(A, "is_test", 1) == 0 && L->opset < 7)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (Dropout): training mode "
                          "(is_test=0) is not supported", L->node_name);
    if (io->n_in >= 3 && io->in[2] >= 0) {
        const ir_value_t *v = &L->ir->values[io->in[2]];
        if (v->kind != IR_VALUE_CONSTANT || !v->data || v->type.dtype != CAIRN_BOOL ||
            *(const uint8_t *)v->data)
            return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (Dropout): training_mode must "
                              "be a constant false (random dropout is not supported)",
                              L->node_name);
    }
    int y;
    BASE_TRY(ld_node(L, "Identity", io->in, 1, NULL, 0, &y, 1, io->out_names));
    io->outs[0] = y;
    if (io->n_out == 2 && io->out_names[1]) {
        int shp, mask;
        BASE_TRY(ld_node(L, "Shape", io->in, 1, NULL, 0, &shp, 1, NULL));
        uint8_t one = 1;
        cairn_tensor_t t = {CAIRN_BOOL, 1, {1}, &one};
        cairn_attr_t v = cairn_attr_tensor("value", &t);
        BASE_TRY(ld_node(L, "ConstantOfShape", &shp, 1, &v, 1, &mask, 1, &io->out_names[1]));
        io->outs[1] = mask;
    }
    return CAIRN_OK;
}

/* Binary ops before opset 7: `broadcast`=1 lets B (of rank k) line up with
 * A's dims starting at `axis` (default: the trailing dims), which numpy
 * broadcasting does once B is reshaped to B.shape + [1] * (rankA-axis-k). */
static cairn_status_t map_legacy_binary(ld_t *L, const char *op, ld_io_t *io, ld_attrs_t *A)
{
    int64_t bc = attrs_i(A, "broadcast", 0);
    int has_axis = attrs_find(A, "axis") >= 0;
    int64_t axis = attrs_i(A, "axis", -1);
    attrs_remove(A, "broadcast");
    attrs_remove(A, "axis");
    if (io->n_in != 2 || io->in[0] < 0 || io->in[1] < 0)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): needs 2 inputs", L->node_name, op);
    if (bc && has_axis) {
        const ir_type_t *ta = ld_type(L, io->in[0]), *tb = ld_type(L, io->in[1]);
        int ra = ta->shape.rank, rb = tb->shape.rank;
        if (ra < 0 || rb < 0)
            return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (%s-%lld): broadcast with axis "
                              "needs the ranks of both inputs, which are not known",
                              L->node_name, op, (long long)L->opset);
        if (axis < 0)
            axis += ra;
        if (axis < 0 || axis + rb > ra)
            return base_error(CAIRN_ERR_SHAPE, "node '%s' (%s): axis %lld does not fit B of "
                              "rank %d into A of rank %d", L->node_name, op,
                              (long long)attrs_i(A, "axis", -1), rb, ra);
        int trail = ra - (int)axis - rb;
        if (trail > 0) {
            int64_t ax[CAIRN_MAX_RANK];
            for (int i = 0; i < trail; i++)
                ax[i] = rb + i;
            int axes, b2;
            BASE_TRY(ld_const_i64(L, ax, trail, &axes));
            int in2[2] = {io->in[1], axes};
            BASE_TRY(ld_node(L, "Unsqueeze", in2, 2, NULL, 0, &b2, 1, NULL));
            io->in[1] = b2;
        }
    }
    return map_generic(L, op, io, A);
}

/* Softmax, LogSoftmax before opset 13: the input is coerced to 2-D at
 * `axis` (default 1) and normalised over the whole second half. */
static cairn_status_t map_legacy_softmax(ld_t *L, const char *op, ld_io_t *io, ld_attrs_t *A)
{
    int64_t axis = attrs_i(A, "axis", 1);
    attrs_remove(A, "axis");
    if (io->n_in != 1 || io->in[0] < 0 || io->n_out != 1)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): needs 1 input and 1 output",
                          L->node_name, op);
    int rank = ld_type(L, io->in[0])->shape.rank;
    if (rank >= 0) {
        int64_t a = axis < 0 ? axis + rank : axis;
        if (a < 0 || a > rank || (rank > 0 && a == rank))
            return base_error(CAIRN_ERR_SHAPE, "node '%s' (%s): axis %lld is out of range for "
                              "rank %d", L->node_name, op, (long long)axis, rank);
        if (a == rank - 1) { /* already the last axis: the modern op is the same */
            cairn_attr_t at = cairn_attr_int("axis", -1);
            return ld_node(L, op, io->in, 1, &at, 1, io->outs, 1, io->out_names);
        }
    }
    int flat, sm, shp;
    cairn_attr_t fa = cairn_attr_int("axis", axis);
    BASE_TRY(ld_node(L, "Flatten", io->in, 1, &fa, 1, &flat, 1, NULL));
    cairn_attr_t sa = cairn_attr_int("axis", -1);
    BASE_TRY(ld_node(L, op, &flat, 1, &sa, 1, &sm, 1, NULL));
    BASE_TRY(ld_node(L, "Shape", io->in, 1, NULL, 0, &shp, 1, NULL));
    int rin[2] = {sm, shp};
    return ld_node(L, "Reshape", rin, 2, NULL, 0, io->outs, 1, io->out_names);
}

/* Clip before opset 11: min/max attributes become constant inputs. */
static cairn_status_t map_legacy_clip(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    if (io->n_in != 1 || io->in[0] < 0)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (Clip): needs 1 input", L->node_name);
    cairn_dtype_t dt = ld_type(L, io->in[0])->dtype;
    int lo = -1, hi = -1;
    if (attrs_find(A, "min") >= 0)
        BASE_TRY(ld_const_scalar(L, dt, attrs_f(A, "min", 0), &lo));
    if (attrs_find(A, "max") >= 0)
        BASE_TRY(ld_const_scalar(L, dt, attrs_f(A, "max", 0), &hi));
    attrs_remove(A, "min");
    attrs_remove(A, "max");
    io->in[1] = lo, io->in[2] = hi, io->n_in = 3;
    return map_generic(L, "Clip", io, A);
}

/* Pad before opset 11: pads and value attributes become inputs. */
static cairn_status_t map_legacy_pad(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    if (io->n_in != 1 || io->in[0] < 0)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (Pad): needs 1 input", L->node_name);
    if (attrs_find(A, "pads") < 0)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (Pad-%lld): the 'pads' attribute is "
                          "missing", L->node_name, (long long)L->opset);
    BASE_TRY(attr_to_input(L, io, A, "pads", 1));
    if (attrs_find(A, "value") >= 0) {
        int v;
        BASE_TRY(ld_const_scalar(L, ld_type(L, io->in[0])->dtype, attrs_f(A, "value", 0), &v));
        attrs_remove(A, "value");
        io->in[2] = v, io->n_in = 3;
    }
    return map_generic(L, "Pad", io, A);
}

/* Slice before opset 10: starts/ends/axes attributes become inputs. */
static cairn_status_t map_legacy_slice(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    if (io->n_in != 1)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (Slice-%lld): needs 1 input",
                          L->node_name, (long long)L->opset);
    const int64_t *v;
    int n;
    if (!attrs_ints(A, "starts", &v, &n) || !attrs_ints(A, "ends", &v, &n))
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (Slice-%lld): 'starts' and 'ends' are "
                          "required", L->node_name, (long long)L->opset);
    BASE_TRY(attr_to_input(L, io, A, "starts", 1));
    BASE_TRY(attr_to_input(L, io, A, "ends", 2));
    BASE_TRY(attr_to_input(L, io, A, "axes", 3));
    return map_generic(L, "Slice", io, A);
}

/* Cast-1..5: `to` is a type name. */
static cairn_status_t map_legacy_cast(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    int i = attrs_find(A, "to");
    if (i >= 0 && A->a[i].type == CAIRN_ATTR_STRING) {
        static const char *const names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16",
                                            "INT16", "INT32", "INT64", "STRING", "BOOL",
                                            "FLOAT16", "DOUBLE", "UINT32", "UINT64",
                                            "COMPLEX64", "COMPLEX128", "BFLOAT16"};
        int64_t to = -1;
        for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
            if (!strcmp(A->a[i].s, names[k]))
                to = k;
        if (to < 0)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (Cast): unknown type name '%s'",
                              L->node_name, A->a[i].s);
        BASE_TRY(attrs_set_int(A, "to", to));
    }
    return map_generic(L, "Cast", io, A);
}

/* BatchNormalization before opset 9: is_test and spatial attributes. */
static cairn_status_t map_legacy_bn(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    if (attrs_i(A, "spatial", 1) != 1)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (BatchNormalization-%lld): "
                          "spatial=0 (per-element statistics) is not supported", L->node_name,
                          (long long)L->opset);
    if (attrs_find(A, "is_test") >= 0 && attrs_i(A, "is_test", 0) != 1)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (BatchNormalization-%lld): "
                          "training mode (is_test=0) is not supported", L->node_name,
                          (long long)L->opset);
    if (io->n_out != 1)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (BatchNormalization-%lld): only "
                          "the inference form (one output) is supported", L->node_name,
                          (long long)L->opset);
    attrs_remove(A, "spatial");
    attrs_remove(A, "is_test");
    return map_generic(L, "BatchNormalization", io, A);
}

/* PRelu: x < 0 ? slope * x : x, as Where(Less(x, 0), Mul(x, slope), x).
 * Before opset 7 a 1-D slope of C values (C > 1) is per channel (axis 1),
 * so it is reshaped to [C, 1, ...] for numpy broadcasting. */
/* A STRING attribute set to a literal (no owned buffer). */
static cairn_status_t attrs_set_lit(ld_attrs_t *A, const char *name, const char *v)
{
    int i = attrs_find(A, name);
    if (i < 0) {
        if (A->n == LD_MAX_ATTRS)
            return base_error(CAIRN_ERR_UNSUPPORTED, "too many attributes");
        i = A->n++;
        A->src[i] = NULL;
    }
    A->a[i] = cairn_attr_string(name, v);
    return CAIRN_OK;
}

/* Upsample-7/9 and Resize-10 become Resize with an omitted roi: these
 * versions sample at x_out / scale ("asymmetric") and take the floor for
 * nearest, which Resize spells with explicit attributes. Upsample-7's
 * scales attribute becomes a constant input. */
static cairn_status_t map_legacy_resize(ld_t *L, const char *op, ld_io_t *io, ld_attrs_t *A)
{
    int ai = attrs_find(A, "mode");
    const char *mode = ai >= 0 && A->a[ai].type == CAIRN_ATTR_STRING ? A->a[ai].s : "nearest";
    if (!strcmp(mode, "bilinear"))
        mode = "linear";
    if (strcmp(mode, "nearest") && strcmp(mode, "linear"))
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (%s-%lld): mode '%s' is not "
                          "supported (nearest or linear)", L->node_name, op,
                          (long long)L->opset, mode);
    int si = attrs_find(A, "scales");
    if (si >= 0) {
        if (A->a[si].type != CAIRN_ATTR_FLOATS || io->n_in != 1)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s-%lld): 'scales' must be a FLOATS "
                              "attribute on a node with one input", L->node_name, op,
                              (long long)L->opset);
        cairn_tensor_t t = {CAIRN_F32, 1, {(int64_t)A->a[si].n}, (void *)A->a[si].floats};
        int id;
        BASE_TRY(ld_const(L, NULL, &t, &id));
        attrs_remove(A, "scales");
        io->in[1] = id, io->n_in = 2;
    }
    if (io->n_in != 2 || io->in[1] < 0)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (%s-%lld): needs X and scales",
                          L->node_name, op, (long long)L->opset);
    io->in[2] = io->in[1], io->in[1] = -1, io->n_in = 3;
    BASE_TRY(attrs_set_lit(A, "mode", mode));
    BASE_TRY(attrs_set_lit(A, "coordinate_transformation_mode", "asymmetric"));
    BASE_TRY(attrs_set_lit(A, "nearest_mode", "floor"));
    return map_generic(L, "Resize", io, A);
}

static cairn_status_t map_prelu(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    if (io->n_in != 2 || io->in[0] < 0 || io->in[1] < 0 || io->n_out != 1 || A->n)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (PRelu): needs 2 inputs, 1 output and no "
                          "attributes", L->node_name);
    int x = io->in[0], slope = io->in[1];
    const ir_type_t *tx = ld_type(L, x), *ts = ld_type(L, slope);
    if (L->opset < 7 && ts->shape.rank == 1 && ts->shape.d[0] != 1) {
        if (tx->shape.rank < 0 || !ir_dim_known(ts->shape.d[0]))
            return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (PRelu-%lld): a per-channel "
                              "slope needs the input's rank", L->node_name, (long long)L->opset);
        if (tx->shape.rank >= 3) {
            int64_t ax[CAIRN_MAX_RANK];
            int n = tx->shape.rank - 2;
            for (int i = 0; i < n; i++)
                ax[i] = 1 + i;
            int axes, s2;
            BASE_TRY(ld_const_i64(L, ax, n, &axes));
            int in2[2] = {slope, axes};
            BASE_TRY(ld_node(L, "Unsqueeze", in2, 2, NULL, 0, &s2, 1, NULL));
            slope = s2;
        }
    }
    int zero, neg, prod;
    BASE_TRY(ld_const_scalar(L, tx->dtype, 0.0, &zero));
    int lin[2] = {x, zero}, min[2] = {x, slope};
    BASE_TRY(ld_node(L, "Less", lin, 2, NULL, 0, &neg, 1, NULL));
    BASE_TRY(ld_node(L, "Mul", min, 2, NULL, 0, &prod, 1, NULL));
    int win[3] = {neg, prod, x};
    return ld_node(L, "Where", win, 3, NULL, 0, io->outs, 1, io->out_names);
}

/* CastLike: Cast to the second input's element type (known when building). */
static cairn_status_t map_castlike(ld_t *L, ld_io_t *io, ld_attrs_t *A)
{
    if (io->n_in != 2 || io->in[0] < 0 || io->in[1] < 0 || io->n_out != 1)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (CastLike): needs 2 inputs and 1 output",
                          L->node_name);
    cairn_dtype_t to = ld_type(L, io->in[1])->dtype;
    if (!base_dtype_valid(to))
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (CastLike): the target type is not "
                          "known", L->node_name);
    BASE_TRY(attrs_set_int(A, "to", (int64_t)to));
    io->n_in = 1;
    return map_generic(L, "Cast", io, A);
}

static int is_legacy_binary(const char *op)
{
    static const char *const ops[] = {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor",
                                      "Equal", "Less", "Greater"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, ops[i]))
            return 1;
    return 0;
}

/* ---- onnxruntime's quantised contrib ops (domain com.microsoft) --------
 *
 * onnxruntime's quantize_static in the QOperator format writes, beside the
 * default domain's QLinearConv and QLinearMatMul, ops of its own domain for
 * the rest of a network: QLinearAdd for residual sums, QLinearGlobalAveragePool,
 * QGemm for a classifier, QLinearMul and QLinearSoftmax in transformers. Each
 * is defined as "dequantise the 8-bit inputs, run the float op, quantise the
 * result" (x = (q - zero_point) * scale, q = saturate(round(y / scale) +
 * zero_point), ties to even), and that is how they are written here: in
 * DequantizeLinear, the float op and QuantizeLinear, the shape of the QDQ
 * form, which fuse_qdq and fuse_eltwise then fuse (an 8-bit elementwise op
 * becomes one pass over 8-bit data, a GEMM of two dequantised operands the
 * int8 GEMM). onnxruntime's own kernels fold the scales into one multiplier
 * ((a - za) * (sa / sc) ...), so the two may differ by one step of the output
 * grid where a value falls near a rounding boundary. */

static const char *const contrib_ops[] = {
    "QLinearAdd",     "QLinearMul",       "QLinearSigmoid", "QLinearLeakyRelu",
    "QLinearConcat",  "QLinearSoftmax",   "QGemm",          "QLinearGlobalAveragePool",
    "QLinearAveragePool"};

#define CONTRIB_OPS_TEXT                                                                  \
    "QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearConcat, "          \
    "QLinearSoftmax, QGemm, QLinearGlobalAveragePool and QLinearAveragePool"

static int is_ms_domain(const char *dom) { return dom && !strcmp(dom, "com.microsoft"); }

static int contrib_supported(const char *op)
{
    for (size_t i = 0; i < sizeof contrib_ops / sizeof contrib_ops[0]; i++)
        if (!strcmp(op, contrib_ops[i]))
            return 1;
    return 0;
}

/* input i of the node, or -1 where it is omitted */
static int ct_in(const ld_io_t *io, int i) { return i < io->n_in ? io->in[i] : -1; }

/* the inputs the op cannot do without are present, and the 8-bit data
 * inputs are 8-bit */
static cairn_status_t ct_need(ld_t *L, const ld_io_t *io, int min_in, const int *req, int n_req,
                              const int *q8, int n_q8)
{
    if (io->n_in < min_in || io->n_out != 1)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (com.microsoft %s): needs at least %d "
                          "inputs and 1 output (has %d and %d)", L->node_name, L->op_type,
                          min_in, io->n_in, io->n_out);
    for (int k = 0; k < n_req; k++)
        if (ct_in(io, req[k]) < 0)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (com.microsoft %s): input %d is "
                              "required", L->node_name, L->op_type, req[k]);
    for (int k = 0; k < n_q8; k++) {
        cairn_dtype_t dt = ld_type(L, io->in[q8[k]])->dtype;
        if (dt != CAIRN_U8 && dt != CAIRN_I8)
            return base_error(CAIRN_ERR_DTYPE, "node '%s' (com.microsoft %s): input %d must be "
                              "uint8 or int8, not %s", L->node_name, L->op_type, q8[k],
                              cairn_dtype_name(dt));
    }
    return CAIRN_OK;
}

/* DequantizeLinear(x, scale[, zero_point]); axis: of a 1-D scale, or NULL
 * for DequantizeLinear's default */
static cairn_status_t ct_dq(ld_t *L, int x, int scale, int zp, const cairn_attr_t *axis, int *out)
{
    int in[3] = {x, scale, zp};
    return ld_node(L, "DequantizeLinear", in, zp >= 0 ? 3 : 2, axis, axis ? 1 : 0, out, 1, NULL);
}

/* QuantizeLinear(y, scale, zero_point) into the node's output; an omitted
 * zero point is 0 of type dt (the op's 8-bit type, which QuantizeLinear
 * takes from its zero point) */
static cairn_status_t ct_q(ld_t *L, ld_io_t *io, int y, int scale, int zp, cairn_dtype_t dt)
{
    if (zp < 0)
        BASE_TRY(ld_const_scalar(L, dt, 0.0, &zp));
    int in[3] = {y, scale, zp};
    return ld_node(L, "QuantizeLinear", in, 3, NULL, 0, io->outs, 1, io->out_names);
}

/* NCHW <-> NHWC for the channels_last forms: perm of rank r moving the last
 * axis to 1 (to_first) or axis 1 to the end */
static cairn_status_t ct_transpose(ld_t *L, int x, int to_first, int *out)
{
    int r = ld_type(L, x)->shape.rank;
    if (r < 3)
        return base_error(CAIRN_ERR_SHAPE, "node '%s' (com.microsoft %s): channels_last needs "
                          "an input of known rank 3 or more", L->node_name, L->op_type);
    int64_t perm[CAIRN_MAX_RANK];
    perm[0] = 0;
    for (int i = 1; i < r; i++)
        perm[i] = to_first ? (i == 1 ? r - 1 : i - 1) : (i == r - 1 ? 1 : i + 1);
    cairn_attr_t a = cairn_attr_ints("perm", perm, (size_t)r);
    return ld_node(L, "Transpose", &x, 1, &a, 1, out, 1, NULL);
}

static cairn_status_t map_contrib(ld_t *L, const char *op, ld_io_t *io, ld_attrs_t *A)
{
    int t1, t2, y;
    if (!strcmp(op, "QLinearAdd") || !strcmp(op, "QLinearMul")) {
        /* A, A_scale, A_zero_point?, B, B_scale, B_zero_point?, C_scale, C_zero_point? */
        static const int req[] = {0, 1, 3, 4, 6}, q8[] = {0, 3};
        BASE_TRY(ct_need(L, io, 7, req, 5, q8, 2));
        BASE_TRY(ct_dq(L, io->in[0], io->in[1], ct_in(io, 2), NULL, &t1));
        BASE_TRY(ct_dq(L, io->in[3], io->in[4], ct_in(io, 5), NULL, &t2));
        int in[2] = {t1, t2};
        BASE_TRY(ld_node(L, op[7] == 'A' ? "Add" : "Mul", in, 2, NULL, 0, &y, 1, NULL));
        return ct_q(L, io, y, io->in[6], ct_in(io, 7), ld_type(L, io->in[0])->dtype);
    }
    if (!strcmp(op, "QLinearSigmoid") || !strcmp(op, "QLinearLeakyRelu") ||
        !strcmp(op, "QLinearSoftmax") || !strcmp(op, "QLinearGlobalAveragePool") ||
        !strcmp(op, "QLinearAveragePool")) {
        /* X, X_scale, X_zero_point?, Y_scale, Y_zero_point? */
        static const int req[] = {0, 1, 3}, q8[] = {0};
        BASE_TRY(ct_need(L, io, 4, req, 3, q8, 1));
        const cairn_dtype_t dt = ld_type(L, io->in[0])->dtype;
        BASE_TRY(ct_dq(L, io->in[0], io->in[1], ct_in(io, 2), NULL, &t1));
        const int last = attrs_i(A, "channels_last", 0) != 0;
        attrs_remove(A, "channels_last");
        if (!strcmp(op, "QLinearSigmoid")) {
            BASE_TRY(ld_node(L, "Sigmoid", &t1, 1, NULL, 0, &y, 1, NULL));
        } else if (!strcmp(op, "QLinearLeakyRelu")) {
            cairn_attr_t a = cairn_attr_float("alpha", (float)attrs_f(A, "alpha", 0.01));
            BASE_TRY(ld_node(L, "LeakyRelu", &t1, 1, &a, 1, &y, 1, NULL));
        } else if (!strcmp(op, "QLinearSoftmax")) {
            /* `opset`: the Softmax whose semantics it follows (before 13
             * the input is coerced to 2-D at axis) */
            if (attrs_find(A, "opset") < 0)
                return base_error(CAIRN_ERR_GRAPH, "node '%s' (com.microsoft QLinearSoftmax): "
                                  "the 'opset' attribute is required", L->node_name);
            const int64_t ver = attrs_i(A, "opset", 13), axis = attrs_i(A, "axis", -1);
            ld_io_t s;
            ld_attrs_t sa;
            memset(&s, 0, sizeof s);
            memset(&sa, 0, sizeof sa);
            s.in[0] = t1, s.n_in = 1, s.n_out = 1;
            BASE_TRY(attrs_set_int(&sa, "axis", axis));
            if (ver < 13) {
                BASE_TRY(map_legacy_softmax(L, "Softmax", &s, &sa));
            } else {
                BASE_TRY(map_generic(L, "Softmax", &s, &sa));
            }
            y = s.outs[0];
        } else if (!strcmp(op, "QLinearGlobalAveragePool")) {
            if (last) { /* NHWC: the mean over the spatial axes, kept */
                int r = ld_type(L, t1)->shape.rank, axes;
                if (r < 3)
                    return base_error(CAIRN_ERR_SHAPE, "node '%s' (com.microsoft %s): needs "
                                      "an input of known rank 3 or more", L->node_name, op);
                int64_t ax[CAIRN_MAX_RANK];
                for (int i = 1; i < r - 1; i++)
                    ax[i - 1] = i;
                BASE_TRY(ld_const_i64(L, ax, r - 2, &axes));
                int in[2] = {t1, axes};
                cairn_attr_t k = cairn_attr_int("keepdims", 1);
                BASE_TRY(ld_node(L, "ReduceMean", in, 2, &k, 1, &y, 1, NULL));
            } else {
                BASE_TRY(ld_node(L, "GlobalAveragePool", &t1, 1, NULL, 0, &y, 1, NULL));
            }
        } else { /* QLinearAveragePool: AveragePool's attributes */
            if (last)
                BASE_TRY(ct_transpose(L, t1, 1, &t1));
            BASE_TRY(ld_node(L, "AveragePool", &t1, 1, A->a, A->n, &y, 1, NULL));
            if (last)
                BASE_TRY(ct_transpose(L, y, 0, &y));
        }
        return ct_q(L, io, y, io->in[3], ct_in(io, 4), dt);
    }
    if (!strcmp(op, "QLinearConcat")) {
        /* Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per input */
        if (io->n_in < 5 || (io->n_in - 2) % 3 || io->n_out != 1 || io->in[0] < 0 ||
            io->in[1] < 0)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (com.microsoft QLinearConcat): needs "
                              "Y_scale, Y_zero_point and a (tensor, scale, zero point) triple "
                              "per input (has %d inputs)", L->node_name, io->n_in);
        int n = (io->n_in - 2) / 3, parts[LD_MAX_IO];
        for (int k = 0; k < n; k++) {
            int x = io->in[2 + 3 * k], s = io->in[3 + 3 * k], z = io->in[4 + 3 * k];
            if (x < 0 || s < 0)
                return base_error(CAIRN_ERR_GRAPH, "node '%s' (com.microsoft QLinearConcat): "
                                  "input %d lacks its tensor or scale", L->node_name, k);
            BASE_TRY(ct_dq(L, x, s, z, NULL, &parts[k]));
        }
        cairn_attr_t a = cairn_attr_int("axis", attrs_i(A, "axis", 0));
        BASE_TRY(ld_node(L, "Concat", parts, n, &a, 1, &y, 1, NULL));
        /* the output's type is Y_zero_point's */
        return ct_q(L, io, y, io->in[0], io->in[1], CAIRN_U8);
    }
    if (!strcmp(op, "QGemm")) {
        /* A, a_scale, a_zero_point, B, b_scale, b_zero_point, C?, y_scale?,
         * y_zero_point?; Y = alpha (A - za)(B - zb) sa sb + alpha C sa sb
         * (C int32 on the product's grid, as onnxruntime adds it to the sums
         * before scaling), quantised when y_scale is given, else float */
        static const int req[] = {0, 1, 3, 4}, q8[] = {0, 3};
        BASE_TRY(ct_need(L, io, 6, req, 4, q8, 2));
        const double alpha = attrs_f(A, "alpha", 1.0);
        const int64_t ta = attrs_i(A, "transA", 0), tb = attrs_i(A, "transB", 0);
        const int c = ct_in(io, 6), ys = ct_in(io, 7), yz = ct_in(io, 8);
        if (ys >= 0 && yz < 0)
            return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (com.microsoft QGemm): y_scale "
                              "without y_zero_point is not supported", L->node_name);
        if (ys < 0 && yz >= 0)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (com.microsoft QGemm): y_zero_point "
                              "without y_scale", L->node_name);
        BASE_TRY(ct_dq(L, io->in[0], io->in[1], ct_in(io, 2), NULL, &t1));
        /* a per-column b_scale runs along B's columns: axis 1 of B, 0 of Bᵀ */
        const cairn_attr_t bax = cairn_attr_int("axis", tb ? 0 : 1);
        BASE_TRY(ct_dq(L, io->in[3], io->in[4], ct_in(io, 5), &bax, &t2));
        int in[3] = {t1, t2, -1}, n_in = 2;
        if (c >= 0) {
            if (ld_type(L, c)->dtype != CAIRN_I32)
                return base_error(CAIRN_ERR_DTYPE, "node '%s' (com.microsoft QGemm): C must be "
                                  "int32, not %s", L->node_name,
                                  cairn_dtype_name(ld_type(L, c)->dtype));
            int cf, ss, al, sc;
            cairn_attr_t to = cairn_attr_int("to", CAIRN_F32);
            BASE_TRY(ld_node(L, "Cast", &c, 1, &to, 1, &cf, 1, NULL));
            int sin[2] = {io->in[1], io->in[4]};
            BASE_TRY(ld_node(L, "Mul", sin, 2, NULL, 0, &ss, 1, NULL));
            if (alpha != 1.0) {
                BASE_TRY(ld_const_scalar(L, CAIRN_F32, alpha, &al));
                int ain[2] = {ss, al};
                BASE_TRY(ld_node(L, "Mul", ain, 2, NULL, 0, &ss, 1, NULL));
            }
            int cin[2] = {cf, ss};
            BASE_TRY(ld_node(L, "Mul", cin, 2, NULL, 0, &sc, 1, NULL));
            in[2] = sc, n_in = 3;
        }
        cairn_attr_t ga[3] = {cairn_attr_float("alpha", (float)alpha),
                              cairn_attr_int("transA", ta), cairn_attr_int("transB", tb)};
        if (ys < 0)
            return ld_node(L, "Gemm", in, n_in, ga, 3, io->outs, 1, io->out_names);
        BASE_TRY(ld_node(L, "Gemm", in, n_in, ga, 3, &y, 1, NULL));
        return ct_q(L, io, y, ys, yz, CAIRN_U8);
    }
    return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s': com.microsoft %s is not supported",
                      L->node_name, op);
}

/* Why cairn cannot run (op, opset), or NULL if it can (as far as the op
 * name and version tell; attributes are checked when the node is built). */
static const char *op_support(const char *op, int64_t v)
{
    if (!strcmp(op, "Constant") || !strcmp(op, "Dropout") || !strcmp(op, "PRelu") ||
        !strcmp(op, "If") ||
        !strcmp(op, "CastLike") || !strcmp(op, "Scatter"))
        return NULL;
    if (!strcmp(op, "Tile") && v < 6)
        return "Tile before opset 6 (tiles/axis inputs) is not supported";
    if (!strcmp(op, "Pad") && v < 2)
        return "Pad-1 (the 'paddings' attribute) is not supported";
    if (!strcmp(op, "Upsample") && v < 7)
        return "Upsample-1 (height_scale/width_scale attributes) is not supported";
    if (!strcmp(op, "Upsample"))
        return NULL; /* becomes Resize */
    if (!strcmp(op, "Split") && v < 2)
        return "Split-1 is not supported";
    if (!strcmp(op, "Hardmax") && v < 13)
        return "Hardmax before opset 13 (the input coerced to 2-D at axis) is not supported";
    if (ir_op_find(op) < 0)
        return "cairn has no such op";
    return NULL;
}

static cairn_status_t map_if(ld_t *L, const Onnx__NodeProto *nd, const ld_io_t *io);
static cairn_status_t check_support(ld_t *L, const Onnx__GraphProto *gp);
static char **node_names(const Onnx__GraphProto *gp);
static cairn_status_t sort_nodes(ld_t *L, const Onnx__GraphProto *gp, char **names,
                                 size_t **order_out);

static cairn_status_t map_node(ld_t *L, const Onnx__NodeProto *nd)
{
    ld_io_t io;
    ld_attrs_t *A = malloc(sizeof *A);
    if (!A)
        return oom();
    memset(A, 0, sizeof *A); /* attrs_free is safe even if attrs_load never ran */
    memset(&io, 0, sizeof io);
    cairn_status_t s = CAIRN_OK;
    const char *op = L->op_type;
    int64_t v = L->opset;
    if (nd->n_input > LD_MAX_IO || nd->n_output > LD_MAX_IO) {
        free(A);
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (%s): more than %d inputs or outputs",
                          L->node_name, op, LD_MAX_IO);
    }
    io.n_in = (int)nd->n_input;
    for (int i = 0; i < io.n_in; i++) {
        const char *nm = nd->input[i];
        io.in[i] = -1;
        if (nm && nm[0] && (s = ld_value(L, nm, i, &io.in[i])) != CAIRN_OK) {
            free(A);
            return s;
        }
    }
    /* trailing omitted optional inputs mean nothing to cairn */
    while (io.n_in > 0 && io.in[io.n_in - 1] < 0)
        io.n_in--;
    io.n_out = (int)nd->n_output;
    for (int o = 0; o < io.n_out; o++)
        io.out_names[o] = nd->output[o] && nd->output[o][0] ? nd->output[o] : NULL;
    while (io.n_out > 1 && !io.out_names[io.n_out - 1])
        io.n_out--;

    if (!strcmp(op, "If")) { /* GRAPH attributes, which attrs_load refuses */
        s = map_if(L, nd, &io);
        goto done;
    }
    if ((s = attrs_load(L, nd, A)) != CAIRN_OK)
        goto done;
    attrs_remove(A, "consumed_inputs"); /* a legacy in-place hint */

    if (is_ms_domain(nd->domain))
        s = map_contrib(L, op, &io, A);
    else if (!strcmp(op, "Constant"))
        s = map_constant(L, &io, A);
    else if (!strcmp(op, "Dropout"))
        s = map_dropout(L, &io, A);
    else if (!strcmp(op, "PRelu"))
        s = map_prelu(L, &io, A);
    else if (!strcmp(op, "CastLike"))
        s = map_castlike(L, &io, A);
    else if (v < 7 && is_legacy_binary(op))
        s = map_legacy_binary(L, op, &io, A);
    else if (v < 13 && (!strcmp(op, "Softmax") || !strcmp(op, "LogSoftmax")))
        s = map_legacy_softmax(L, op, &io, A);
    else if (v < 11 && !strcmp(op, "Clip"))
        s = map_legacy_clip(L, &io, A);
    else if (v < 11 && !strcmp(op, "Pad"))
        s = map_legacy_pad(L, &io, A);
    else if (v < 10 && !strcmp(op, "Slice"))
        s = map_legacy_slice(L, &io, A);
    else if (v < 6 && !strcmp(op, "Cast"))
        s = map_legacy_cast(L, &io, A);
    else if (!strcmp(op, "Upsample") || (v < 11 && !strcmp(op, "Resize")))
        s = map_legacy_resize(L, op, &io, A);
    else if (v < 9 && !strcmp(op, "BatchNormalization"))
        s = map_legacy_bn(L, &io, A);
    else {
        if (v < 7 && !strcmp(op, "Gemm"))
            attrs_remove(A, "broadcast"); /* Gemm-7 always broadcasts C */
        if (v < 4 && !strcmp(op, "Concat") && attrs_find(A, "axis") < 0)
            s = attrs_set_int(A, "axis", 1);
        if (s == CAIRN_OK && v < 13 &&
            (!strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze") || !strcmp(op, "ReduceSum")))
            s = attr_to_input(L, &io, A, "axes", 1);
        if (s == CAIRN_OK && v < 13 && !strcmp(op, "Split"))
            s = attr_to_input(L, &io, A, "split", 1);
        if (s == CAIRN_OK && v < 5 && !strcmp(op, "Reshape"))
            s = attr_to_input(L, &io, A, "shape", 1);
        if (s == CAIRN_OK && v < 10 && !strcmp(op, "TopK") && attrs_find(A, "k") >= 0) {
            int64_t k = attrs_i(A, "k", 0);
            int id;
            attrs_remove(A, "k");
            s = ld_const_i64(L, &k, 1, &id);
            io.in[1] = id, io.n_in = 2;
        }
        /* Scatter-9/11 (deprecated) is ScatterElements without reduction */
        if (s == CAIRN_OK && !strcmp(op, "Scatter"))
            op = "ScatterElements";
        if (s == CAIRN_OK)
            s = map_generic(L, op, &io, A);
    }
done:
    attrs_free(A);
    free(A);
    return s;
}

/* ---- model-level checks ----------------------------------------------- */

static cairn_status_t read_opsets(ld_t *L, const Onnx__ModelProto *m)
{
    L->opset = -1;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if (!o)
            continue;
        const char *d = o->domain ? o->domain : "";
        if (d[0] && strcmp(d, "ai.onnx"))
            continue; /* other domains matter only if a node uses them */
        if (!o->has_version)
            return base_error(CAIRN_ERR_PARSE, "'%s': the default-domain opset import has no "
                              "version", L->label);
        if (L->opset >= 0 && L->opset != o->version)
            return base_error(CAIRN_ERR_PARSE, "'%s': the default domain is imported twice "
                              "(opsets %lld and %lld)", L->label, (long long)L->opset,
                              (long long)o->version);
        L->opset = o->version;
    }
    if (L->opset < 0) {
        if (m->n_opset_import)
            L->opset = 1; /* imports other domains only; default-domain nodes are checked */
        else
            return base_error(CAIRN_ERR_PARSE, "'%s': the model imports no opset", L->label);
    }
    if (L->opset < 1 || L->opset > LD_OPSET_MAX)
        return base_error(CAIRN_ERR_UNSUPPORTED, "'%s': default-domain opset %lld is not "
                          "supported (cairn reads opsets 1 to %d)", L->label,
                          (long long)L->opset, LD_OPSET_MAX);
    return CAIRN_OK;
}

/* One node cairn cannot run, for check_support's message. */
typedef struct sup_item {
    const char *op, *dom, *why;
    char *name; /* owned; a branch node is "<If node>/then/<node>" */
} sup_item_t;

typedef struct sup_list {
    sup_item_t *v;
    size_t n, cap;
} sup_list_t;

static int sup_add(sup_list_t *S, const char *op, const char *dom, const char *why,
                   const char *prefix, const char *name)
{
    if (S->n == S->cap) {
        size_t nc = S->cap ? S->cap * 2 : 16;
        sup_item_t *nv = realloc(S->v, nc * sizeof *nv);
        if (!nv)
            return 0;
        S->v = nv, S->cap = nc;
    }
    size_t len = (prefix ? strlen(prefix) + 1 : 0) + strlen(name) + 1;
    char *nm = malloc(len);
    if (!nm)
        return 0;
    snprintf(nm, len, "%s%s%s", prefix ? prefix : "", prefix ? "/" : "", name);
    S->v[S->n++] = (sup_item_t){op, dom, why, nm};
    return 1;
}

/* Reads a one-element bool TensorProto: 0 or 1, or -1 when it is not one. */
static int prescan_bool(const ld_t *L, const Onnx__TensorProto *tp)
{
    cairn_tensor_t t;
    if (!tp || onnx_tensor_decode(tp, L->label, L->dir, &t) != CAIRN_OK)
        return -1;
    int v = t.dtype == CAIRN_BOOL && cairn_tensor_numel(&t) == 1 ? *(const uint8_t *)t.data != 0
                                                                  : -1;
    free(t.data);
    return v;
}

/* What an If condition is before anything is built, looked up through the
 * enclosing graphs (chain[depth-1] innermost): 1 or 0 when it is a bool
 * initializer or Constant node, -2 when it is an input of the main graph
 * (never constant), -1 when only building can tell (e.g. a bound input, or a
 * node's output). */
static int prescan_cond(const ld_t *L, const Onnx__GraphProto *const *chain, int depth,
                        const char *name)
{
    for (int d = depth - 1; d >= 0; d--) {
        const Onnx__GraphProto *gp = chain[d];
        for (size_t i = 0; i < gp->n_initializer; i++) {
            Onnx__TensorProto *tp = gp->initializer[i];
            if (!tp->name || strcmp(tp->name, name))
                continue;
            /* the main graph's raw_data may have been left in the file
             * (see strip_model): read it from there for the look */
            const ld_span_t *sp = d == 0 && !L->sub && L->spans && L->spans[i].off != SIZE_MAX
                                      ? &L->spans[i]
                                      : NULL;
            if (!sp)
                return prescan_bool(L, tp);
            tp->has_raw_data = 1;
            tp->raw_data.len = sp->len;
            tp->raw_data.data = (uint8_t *)L->buf + sp->off;
            int v = prescan_bool(L, tp);
            tp->has_raw_data = 0;
            tp->raw_data.len = 0;
            tp->raw_data.data = NULL;
            return v;
        }
        for (size_t i = 0; i < gp->n_node; i++) {
            const Onnx__NodeProto *nd = gp->node[i];
            for (size_t o = 0; o < nd->n_output; o++) {
                if (!nd->output[o] || strcmp(nd->output[o], name))
                    continue;
                if (nd->op_type && !strcmp(nd->op_type, "Constant") && nd->n_attribute == 1 &&
                    nd->attribute[0]->name && !strcmp(nd->attribute[0]->name, "value"))
                    return prescan_bool(L, nd->attribute[0]->t);
                return -1;
            }
        }
        for (size_t i = 0; i < gp->n_input; i++) {
            if (!gp->input[i]->name || strcmp(gp->input[i]->name, name))
                continue;
            if (d > 0 || L->sub)
                return -1; /* a branch input names an outer value */
            for (int b = 0; b < L->n_bound; b++)
                if (!strcmp(L->bound[b].name, name))
                    return -1;
            return -2;
        }
    }
    return -1;
}

/* The branch attribute `name` of an If node, or NULL. */
static const Onnx__GraphProto *if_branch(const Onnx__NodeProto *nd, const char *name)
{
    for (size_t a = 0; a < nd->n_attribute; a++)
        if (nd->attribute[a] && nd->attribute[a]->name &&
            !strcmp(nd->attribute[a]->name, name))
            return nd->attribute[a]->g;
    return NULL;
}

static const char if_dynamic_why[] =
    "the condition must be a constant (an initializer or a Constant node) so that cairn can "
    "inline one branch; here it is a graph input";

/* Collects the nodes of chain[depth-1] that cairn cannot run; for an If
 * whose condition is known already, the chosen branch's nodes too. */
static int sup_collect(const ld_t *L, const Onnx__GraphProto **chain, int depth,
                       const char *prefix, sup_list_t *S)
{
    const Onnx__GraphProto *gp = chain[depth - 1];
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *nd = gp->node[i];
        const char *dom = nd->domain ? nd->domain : "";
        char gen[600];
        snprintf(gen, sizeof gen, "%.500s_%zu", nd->op_type, i);
        const char *name = str_or(nd->name, gen);
        if (is_ms_domain(dom) && contrib_supported(nd->op_type))
            continue;
        if (dom[0] && strcmp(dom, "ai.onnx")) {
            if (!sup_add(S, nd->op_type, dom, NULL, prefix, name))
                return 0;
            continue;
        }
        if (strcmp(nd->op_type, "If")) {
            const char *why = op_support(nd->op_type, L->opset);
            if (why && !sup_add(S, nd->op_type, "", why, prefix, name))
                return 0;
            continue;
        }
        int c = nd->n_input >= 1 && nd->input[0] && nd->input[0][0]
                    ? prescan_cond(L, chain, depth, nd->input[0])
                    : -1;
        if (c == -2 && !sup_add(S, nd->op_type, "", if_dynamic_why, prefix, name))
            return 0;
        const char *bn = c == 1 ? "then_branch" : "else_branch";
        const Onnx__GraphProto *br = c >= 0 ? if_branch(nd, bn) : NULL;
        if (br && depth < LD_MAX_DEPTH) { /* malformed or too deep: building says so */
            size_t len = (prefix ? strlen(prefix) + 1 : 0) + strlen(name) + 6;
            char *sub = malloc(len);
            if (!sub)
                return 0;
            snprintf(sub, len, "%s%s%s/%s", prefix ? prefix : "", prefix ? "/" : "", name,
                     c ? "then" : "else");
            chain[depth] = br;
            int ok = sup_collect(L, chain, depth + 1, sub, S);
            free(sub);
            if (!ok)
                return 0;
        }
    }
    return 1;
}

static int str_eq0(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* Everything cairn lacks, in one message: (op, opset) pairs or foreign
 * domains with the nodes that use them, including the nodes of If branches
 * whose condition is a constant (the branch that will be inlined). */
static cairn_status_t check_support(ld_t *L, const Onnx__GraphProto *gp)
{
    const Onnx__GraphProto *chain[LD_MAX_DEPTH + 1] = {gp};
    sup_list_t S = {0};
    size_t cap = 1024, len = 0;
    char *msg = malloc(cap);
    char *seen = NULL;
    int ok = msg && sup_collect(L, chain, 1, NULL, &S);
    if (ok)
        seen = calloc(S.n ? S.n : 1, 1);
    ok = ok && seen;
    if (ok)
        msg[0] = 0;
#define APPEND(...)                                                          \
    do {                                                                     \
        int need_ = snprintf(NULL, 0, __VA_ARGS__);                          \
        if (ok && need_ > 0 && len + (size_t)need_ + 1 > cap) {              \
            size_t nc_ = (len + (size_t)need_ + 1) * 2;                      \
            char *nm_ = realloc(msg, nc_);                                   \
            ok = nm_ != NULL;                                                \
            if (ok)                                                          \
                msg = nm_, cap = nc_;                                        \
        }                                                                    \
        if (ok && need_ > 0)                                                 \
            len += (size_t)snprintf(msg + len, cap - len, __VA_ARGS__);      \
    } while (0)
    int n_missing = 0;
    for (size_t i = 0; ok && i < S.n; i++) {
        if (seen[i])
            continue;
        const sup_item_t *it = &S.v[i];
        n_missing++;
        if (!it->why && is_ms_domain(it->dom))
            APPEND("\n  %s (domain 'com.microsoft'): of onnxruntime's own ops cairn runs only "
                   "the quantised " CONTRIB_OPS_TEXT "; nodes:", it->op);
        else if (!it->why)
            APPEND("\n  %s (domain '%s'): cairn supports only the default ONNX domain and "
                   "onnxruntime's quantised ops; nodes:", it->op, it->dom);
        else
            APPEND("\n  %s-%lld (%s); nodes:", it->op, (long long)L->opset, it->why);
        int shown = 0;
        for (size_t j = i; j < S.n; j++) {
            const sup_item_t *o = &S.v[j];
            if (strcmp(o->op, it->op) || strcmp(o->dom, it->dom) || !str_eq0(o->why, it->why))
                continue;
            seen[j] = 1;
            if (shown++ < 8)
                APPEND(" '%s'", o->name);
            else if (shown == 9)
                APPEND(" ...");
        }
    }
#undef APPEND
    cairn_status_t s = CAIRN_OK;
    if (!ok)
        s = oom();
    else if (n_missing)
        s = base_error(CAIRN_ERR_UNSUPPORTED, "'%s': %d op%s cairn cannot run (opset %lld):%s",
                       L->label, n_missing, n_missing == 1 ? "" : "s", (long long)L->opset, msg);
    for (size_t i = 0; i < S.n; i++)
        free(S.v[i].name);
    free(S.v);
    free(seen);
    free(msg);
    return s;
}

/* The node names used in messages and as source names: the file's, or
 * "<OpType>_<index>" where it has none. */
static char **node_names(const Onnx__GraphProto *gp)
{
    char **names = calloc(gp->n_node ? gp->n_node : 1, sizeof *names);
    if (!names)
        return NULL;
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *nd = gp->node[i];
        char gen[600];
        const char *src = nd->name && nd->name[0] ? nd->name : gen;
        if (src == gen)
            snprintf(gen, sizeof gen, "%.500s_%zu", nd->op_type, i);
        names[i] = malloc(strlen(src) + 1);
        if (!names[i]) {
            for (size_t j = 0; j < i; j++)
                free(names[j]);
            free(names);
            return NULL;
        }
        strcpy(names[i], src);
    }
    return names;
}

/* One producer -> consumer edge of sort_nodes: counted in pass 0, stored
 * in pass 1. */
static void sort_edge(size_t p, size_t i, int pass, size_t *first, int *indeg, size_t *edges,
                      size_t *fill)
{
    if (pass == 0) {
        first[p + 1]++;
        indeg[i]++;
    } else {
        edges[first[p] + fill[p]++] = i;
    }
}

/* The subgraphs of node i (If branches, at any depth) read outer values by
 * name, not through the node's inputs; their producers must come first. */
static void sort_sub_edges(const Onnx__NodeProto *nd, const namemap_t *defined, size_t i,
                           int pass, size_t *first, int *indeg, size_t *edges, size_t *fill,
                           int depth)
{
    if (depth > LD_MAX_DEPTH)
        return; /* inlining refuses such depth anyway */
    for (size_t a = 0; a < nd->n_attribute; a++) {
        const Onnx__AttributeProto *at = nd->attribute[a];
        size_t ng = at ? at->n_graphs + (at->g != NULL) : 0;
        for (size_t k = 0; k < ng; k++) {
            const Onnx__GraphProto *sg = k < at->n_graphs ? at->graphs[k] : at->g;
            for (size_t j = 0; sg && j < sg->n_node + sg->n_output; j++) {
                const Onnx__NodeProto *sn = j < sg->n_node ? sg->node[j] : NULL;
                size_t n_names = sn ? sn->n_input : 1;
                for (size_t q = 0; q < n_names; q++) {
                    const char *nm = sn ? sn->input[q] : sg->output[j - sg->n_node]->name;
                    int p = nm && nm[0] ? nm_get(defined, nm) : -1;
                    if (p >= 0 && (size_t)p != i)
                        sort_edge((size_t)p, i, pass, first, indeg, edges, fill);
                }
                if (sn)
                    sort_sub_edges(sn, defined, i, pass, first, indeg, edges, fill, depth + 1);
            }
        }
    }
}

/* Basic well-formedness of each node and the topological order. Every value
 * must be defined once; every input must be defined somewhere. */
static cairn_status_t sort_nodes(ld_t *L, const Onnx__GraphProto *gp, char **names,
                                 size_t **order_out)
{
    size_t n = gp->n_node;
    cairn_status_t s = CAIRN_OK;
    namemap_t defined = {0}; /* name -> producer node (or -1 for inputs/initializers) */
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    int *indeg = calloc(n ? n : 1, sizeof *indeg);
    size_t *first = calloc(n + 1, sizeof *first);
    size_t n_edges = 0;
    size_t *edges = NULL;
    if (!order || !indeg || !first) {
        s = oom();
        goto done;
    }
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        if (!t->name || !t->name[0]) {
            s = base_error(CAIRN_ERR_GRAPH, "'%s': initializer %zu has no name", L->label, i);
            goto done;
        }
        /* initializers are stored as -2 - index so duplicates can be told */
        if (nm_get(&defined, t->name) <= -2) {
            s = base_error(CAIRN_ERR_GRAPH, "'%s': two initializers are named '%s'", L->label,
                           t->name);
            goto done;
        }
        if (!nm_put(&defined, t->name, -2 - (int)i)) {
            s = oom();
            goto done;
        }
    }
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        if (!vi->name || !vi->name[0]) {
            s = base_error(CAIRN_ERR_GRAPH, "'%s': graph input %zu has no name", L->label, i);
            goto done;
        }
        int prev = nm_get(&defined, vi->name);
        /* an input that is also an initializer is a constant with a default;
         * two inputs of one name are an error */
        if (prev == INT_MIN) {
            s = base_error(CAIRN_ERR_GRAPH, "'%s': two graph inputs are named '%s'", L->label,
                           vi->name);
            goto done;
        }
        if (prev == -1 && !nm_put(&defined, vi->name, INT_MIN)) {
            s = oom();
            goto done;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *nd = gp->node[i];
        if (!nd->op_type || !nd->op_type[0]) {
            s = base_error(CAIRN_ERR_GRAPH, "'%s': node %zu ('%s') has no op_type", L->label, i,
                           names[i]);
            goto done;
        }
        for (size_t o = 0; o < nd->n_output; o++) {
            const char *nm = nd->output[o];
            if (!nm || !nm[0])
                continue;
            int prev = nm_get(&defined, nm);
            if (prev != -1) {
                const char *what = prev >= 0 ? "the output of node" : prev == INT_MIN
                                                                          ? "a graph input"
                                                                          : "an initializer";
                s = base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): output '%s' is already %s%s%s%s",
                               names[i], nd->op_type, nm, what, prev >= 0 ? " '" : "",
                               prev >= 0 ? names[prev] : "", prev >= 0 ? "'" : "");
                goto done;
            }
            if (!nm_put(&defined, nm, (int)i)) {
                s = oom();
                goto done;
            }
        }
    }
    /* edges producer -> consumer, as CSR over producers */
    for (int pass = 0; pass < 2; pass++) {
        size_t *fill = NULL;
        if (pass == 1) {
            for (size_t i = 0; i < n; i++)
                first[i + 1] += first[i];
            n_edges = first[n];
            edges = malloc((n_edges ? n_edges : 1) * sizeof *edges);
            fill = calloc(n ? n : 1, sizeof *fill);
            if (!edges || !fill) {
                free(fill);
                s = oom();
                goto done;
            }
        }
        for (size_t i = 0; i < n; i++) {
            const Onnx__NodeProto *nd = gp->node[i];
            for (size_t k = 0; k < nd->n_input; k++) {
                const char *nm = nd->input[k];
                if (!nm || !nm[0])
                    continue;
                int p = nm_get(&defined, nm);
                if (p == -1 && L->sub && ld_lookup(L, nm) >= 0)
                    continue; /* a branch reading an outer value */
                if (p == -1) {
                    free(fill);
                    s = base_error(CAIRN_ERR_GRAPH, "node '%s' (%s): input %zu '%s' is not "
                                   "produced by any node, initializer or graph input", names[i],
                                   nd->op_type, k, nm);
                    goto done;
                }
                if (p < 0)
                    continue;
                sort_edge((size_t)p, i, pass, first, indeg, edges, fill);
            }
            sort_sub_edges(nd, &defined, i, pass, first, indeg, edges, fill, 0);
        }
        free(fill);
    }
    /* Kahn's algorithm; FIFO over ready nodes in file order */
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (!indeg[i])
            order[tail++] = i;
    while (head < tail) {
        size_t u = order[head++];
        for (size_t e = first[u]; e < first[u + 1]; e++)
            if (--indeg[edges[e]] == 0)
                order[tail++] = edges[e];
    }
    if (tail < n) {
        char buf[600] = "";
        size_t len = 0;
        int shown = 0;
        for (size_t i = 0; i < n && shown < 6; i++)
            if (indeg[i]) {
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s'%.80s'",
                                        shown ? ", " : "", names[i]);
                shown++;
                if (len >= sizeof buf)
                    break;
            }
        s = base_error(CAIRN_ERR_GRAPH, "'%s': the graph has a cycle: %zu nodes depend on each "
                       "other's outputs (among them %s)", L->label, n - tail, buf);
        goto done;
    }
    *order_out = order;
    order = NULL;
done:
    free(order);
    free(indeg);
    free(first);
    free(edges);
    nm_free(&defined);
    return s;
}

/* ---- If with a condition known when loading --------------------------- */

/* Inlines `br` (the chosen branch of If node nd, whose outer-scope output
 * names are nd->output) in a new scope: its initializers and Constant nodes
 * become constants, its nodes are mapped like the main graph's (named
 * "<If>/<tag>/<node>", with that name as a source; the caller adds the If's
 * name), and its outputs, by position, become the If's outputs. */
static cairn_status_t inline_branch(ld_t *L, const Onnx__NodeProto *nd,
                                    const Onnx__GraphProto *br, const char *tag)
{
    const char *if_name = L->node_name;
    if (L->depth >= LD_MAX_DEPTH)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (If): Ifs nested more than %d deep "
                          "are not supported", if_name, LD_MAX_DEPTH);
    if (br->n_output != nd->n_output)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (If): its %s_branch has %zu output%s but "
                          "the node has %zu; they must match one to one", if_name, tag,
                          br->n_output, br->n_output == 1 ? "" : "s", nd->n_output);
    if (br->n_sparse_initializer)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (If): sparse initializers in its "
                          "%s_branch are not supported", if_name, tag);
    for (size_t o = 0; o < br->n_output; o++)
        if (!br->output[o]->name || !br->output[o]->name[0])
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (If): output %zu of its %s_branch has "
                              "no name", if_name, o, tag);

    ld_scope_t sc;
    memset(&sc, 0, sizeof sc);
    sc.parent = L->sub;
    size_t plen = strlen(if_name) + strlen(tag) + 2;
    char *label = malloc(strlen(L->label) + plen + 32);
    sc.prefix = malloc(plen);
    sc.out_ir = calloc(nd->n_output ? nd->n_output : 1, sizeof *sc.out_ir);
    if (!label || !sc.prefix || !sc.out_ir) {
        free(label), free(sc.prefix), free(sc.out_ir);
        return oom();
    }
    snprintf(sc.prefix, plen, "%s/%s", if_name, tag);
    sprintf(label, "%s: branch '%s'", L->label, sc.prefix);
    cairn_status_t s = CAIRN_OK;
    /* a value the branch defines and returns takes the If output's IR name */
    for (size_t o = 0; s == CAIRN_OK && o < nd->n_output; o++) {
        const char *on = nd->output[o];
        if (!on || !on[0] || nm_get(&sc.outs, br->output[o]->name) >= 0)
            continue;
        char buf[512];
        const char *irn = ld_ir_name(L, on, buf, sizeof buf);
        sc.out_ir[o] = malloc(strlen(irn) + 1);
        if (!sc.out_ir[o] || !nm_put(&sc.outs, br->output[o]->name, (int)o))
            s = oom();
        else
            strcpy(sc.out_ir[o], irn);
    }

    const char *saved_label = L->label, *saved_op = L->op_type;
    L->sub = &sc, L->label = label, L->depth++;
    char **names = NULL;
    size_t *order = NULL;
    if (s == CAIRN_OK && !(names = node_names(br)))
        s = oom();
    if (s == CAIRN_OK)
        s = sort_nodes(L, br, names, &order);
    if (s == CAIRN_OK)
        s = check_support(L, br);
    /* If branches take no inputs; a listed one can only name an outer value */
    for (size_t i = 0; s == CAIRN_OK && i < br->n_input; i++) {
        const char *in = br->input[i]->name;
        int id = in ? ld_lookup(L, in) : -1;
        if (id < 0)
            s = base_error(CAIRN_ERR_GRAPH, "node '%s' (If): its %s_branch has input '%s', "
                           "which no enclosing graph defines (If branches take no inputs; "
                           "they read outer values by name)", if_name, tag, in ? in : "");
        else if (!ld_bind(L, in, id))
            s = oom();
    }
    for (size_t i = 0; s == CAIRN_OK && i < br->n_initializer; i++) {
        const Onnx__TensorProto *tp = br->initializer[i];
        char lab[1200];
        snprintf(lab, sizeof lab, "%s: initializer '%.500s'", label, tp->name);
        cairn_tensor_t t;
        if ((s = onnx_tensor_decode(tp, lab, L->dir, &t)) != CAIRN_OK)
            break;
        int id;
        L->node_name = sc.prefix;
        s = ld_const(L, tp->name, &t, &id);
        free(t.data);
    }
    int first_node = L->ir->n_nodes;
    for (size_t k = 0; s == CAIRN_OK && k < br->n_node; k++) {
        size_t i = order[k];
        char full[1200];
        snprintf(full, sizeof full, "%s/%s", sc.prefix, names[i]);
        L->node_name = full;
        L->op_type = br->node[i]->op_type;
        s = map_node(L, br->node[i]);
        for (int j = first_node; j < L->ir->n_nodes && s == CAIRN_OK; j++)
            s = ir_node_add_source(&L->ir->nodes[j], full);
        first_node = L->ir->n_nodes;
    }
    int outs[LD_MAX_IO];
    for (size_t o = 0; s == CAIRN_OK && o < br->n_output; o++) {
        const char *bn = br->output[o]->name;
        if (o >= LD_MAX_IO || (outs[o] = ld_lookup(L, bn)) < 0)
            s = o >= LD_MAX_IO ? base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (If): more than "
                                            "%d outputs", if_name, LD_MAX_IO)
                               : base_error(CAIRN_ERR_GRAPH, "node '%s' (If): output '%s' of its "
                                            "%s_branch is not produced by any node, initializer "
                                            "or enclosing graph", if_name, bn, tag);
    }
    L->sub = sc.parent, L->label = saved_label, L->depth--;
    L->node_name = if_name, L->op_type = saved_op;
    /* outputs the branch did not produce under the If output's name (an outer
     * value, a branch input, one value returned twice) get an Identity */
    for (size_t o = 0; s == CAIRN_OK && o < nd->n_output; o++) {
        const char *on = nd->output[o];
        if (!on || !on[0])
            continue;
        if (sc.out_ir[o] && !strcmp(L->ir->values[outs[o]].name, sc.out_ir[o])) {
            if (!ld_bind(L, on, outs[o]))
                s = oom();
        } else {
            int y;
            s = ld_node(L, "Identity", &outs[o], 1, NULL, 0, &y, 1, &on);
        }
    }
    if (names)
        for (size_t i = 0; i < br->n_node; i++)
            free(names[i]);
    free(names);
    free(order);
    for (size_t o = 0; o < nd->n_output; o++)
        free(sc.out_ir[o]);
    free(sc.out_ir);
    free(sc.prefix);
    free(label);
    nm_free(&sc.map);
    nm_free(&sc.outs);
    return s;
}

/* If: the condition must be a constant when loading (an initializer, a
 * Constant node, a bound input); the chosen branch is inlined. */
static cairn_status_t map_if(ld_t *L, const Onnx__NodeProto *nd, const ld_io_t *io)
{
    const Onnx__GraphProto *br[2] = {NULL, NULL};
    static const char *const bname[2] = {"else_branch", "then_branch"};
    for (size_t a = 0; a < nd->n_attribute; a++) {
        const Onnx__AttributeProto *p = nd->attribute[a];
        int k = p && p->name ? (!strcmp(p->name, "then_branch") ? 1
                                : !strcmp(p->name, "else_branch") ? 0 : -1)
                             : -1;
        if (k < 0)
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (If): unknown attribute '%s' (If has "
                              "only then_branch and else_branch)", L->node_name,
                              p && p->name ? p->name : "");
        if (!p->g || (p->has_type && p->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH))
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (If): attribute '%s' must be a graph",
                              L->node_name, p->name);
        br[k] = p->g;
    }
    for (int k = 1; k >= 0; k--)
        if (!br[k])
            return base_error(CAIRN_ERR_GRAPH, "node '%s' (If): the '%s' attribute is missing "
                              "(If needs both then_branch and else_branch graphs)",
                              L->node_name, bname[k]);
    if (nd->n_input != 1 || io->in[0] < 0)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (If): needs exactly one input, the "
                          "condition (has %zu)", L->node_name, nd->n_input);
    const ir_value_t *c = &L->ir->values[io->in[0]];
    if (c->kind != IR_VALUE_CONSTANT || !c->data)
        return base_error(CAIRN_ERR_UNSUPPORTED, "node '%s' (If): the condition '%s' is not known "
                          "when loading; cairn runs If only when the condition is a constant (an "
                          "initializer or a Constant node), by inlining the chosen branch",
                          L->node_name, nd->input[0]);
    if (c->type.dtype != CAIRN_BOOL || ir_shape_numel(&c->type.shape) != 1)
        return base_error(CAIRN_ERR_GRAPH, "node '%s' (If): the condition '%s' must be a bool "
                          "tensor of one element (it is %s with %lld elements)", L->node_name,
                          nd->input[0], cairn_dtype_name(c->type.dtype),
                          (long long)ir_shape_numel(&c->type.shape));
    int k = *(const uint8_t *)c->data != 0;
    return inline_branch(L, nd, br[k], k ? "then" : "else");
}

/* Element type and shape of a graph input, from its ValueInfoProto. */
static cairn_status_t load_input(ld_t *L, const Onnx__ValueInfoProto *vi)
{
    const char *nm = vi->name;
    if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        !vi->type->tensor_type)
        return base_error(CAIRN_ERR_UNSUPPORTED, "'%s': graph input '%s' is not a tensor "
                          "(sequences, maps, optionals and sparse tensors are not supported)",
                          L->label, nm);
    const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
    cairn_dtype_t dt = tt->has_elem_type ? (cairn_dtype_t)tt->elem_type : CAIRN_DTYPE_UNDEFINED;
    if (!base_dtype_valid(dt))
        return base_error(CAIRN_ERR_UNSUPPORTED, "'%s': graph input '%s' has element type %d, "
                          "which cairn does not support", L->label, nm,
                          tt->has_elem_type ? (int)tt->elem_type : 0);
    if (!tt->shape)
        return base_error(CAIRN_ERR_UNSUPPORTED, "'%s': graph input '%s' has no shape (unknown "
                          "rank is not supported)", L->label, nm);
    if (tt->shape->n_dim > CAIRN_MAX_RANK)
        return base_error(CAIRN_ERR_UNSUPPORTED, "'%s': graph input '%s' has rank %zu (cairn "
                          "supports up to %d)", L->label, nm, tt->shape->n_dim, CAIRN_MAX_RANK);
    int rank = (int)tt->shape->n_dim;
    int64_t dims[CAIRN_MAX_RANK];
    const char *dn[CAIRN_MAX_RANK];
    char gen[CAIRN_MAX_RANK][64];
    for (int i = 0; i < rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        dims[i] = 0, dn[i] = NULL;
        if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (d->dim_value < 0)
                return base_error(CAIRN_ERR_PARSE, "'%s': graph input '%s': dimension %d is "
                                  "%lld; sizes must be >= 0", L->label, nm, i,
                                  (long long)d->dim_value);
            dims[i] = d->dim_value;
        } else if (d && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                   d->dim_param && d->dim_param[0]) {
            dn[i] = d->dim_param;
        } else {
            snprintf(gen[i], sizeof gen[i], "unk__%d", ++L->n_unknown_dims);
            dn[i] = gen[i];
        }
    }
    int id;
    BASE_TRY(cairn_graph_add_input(L->g, nm, dt, rank, dims, dn, &id));
    if (!nm_put(&L->names, nm, id))
        return oom();
    return CAIRN_OK;
}

/* value_info and graph outputs that declare an element type must agree with
 * what cairn infers: a mismatch means a malformed model (or a cairn bug), and
 * either way running it would not give the declared result. */
static cairn_status_t check_declared(ld_t *L, const Onnx__ValueInfoProto *vi, const char *what)
{
    if (!vi || !vi->name || !vi->type ||
        vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type ||
        !vi->type->tensor_type->has_elem_type || !vi->type->tensor_type->elem_type)
        return CAIRN_OK;
    int id = nm_get(&L->names, vi->name);
    if (id < 0)
        return CAIRN_OK;
    cairn_dtype_t got = ld_type(L, id)->dtype;
    int want = vi->type->tensor_type->elem_type;
    if (got != CAIRN_DTYPE_UNDEFINED && (int)got != want)
        return base_error(CAIRN_ERR_GRAPH, "'%s': %s '%s' is declared with element type %d but "
                          "its producer gives %s (type %d)", L->label, what, vi->name, want,
                          cairn_dtype_name(got), (int)got);
    const Onnx__TensorShapeProto *sp = vi->type->tensor_type->shape;
    const ir_shape_t *sh = &ld_type(L, id)->shape;
    if (sp && sh->rank >= 0 && (int)sp->n_dim != sh->rank)
        return base_error(CAIRN_ERR_GRAPH, "'%s': %s '%s' is declared with rank %zu but cairn "
                          "infers rank %d", L->label, what, vi->name, sp->n_dim, sh->rank);
    return CAIRN_OK;
}

/* ---- reading the model without holding its weights twice ------------------
 *
 * protobuf-c copies every bytes field while it unpacks, so unpacking a
 * model whole holds the file's bytes and a copy of every weight at once.
 * Instead the model is first rewritten into a skeleton without the
 * initializers' raw_data (a walk over the wire format, three levels deep:
 * ModelProto.graph = 7, GraphProto.initializer = 5, TensorProto.raw_data =
 * 9), the skeleton is unpacked, and each initializer's raw_data is decoded
 * straight from the file's bytes when the initializer becomes a constant.
 * Anything unexpected in the walk (groups, a second graph or raw_data
 * field, lengths past the end) falls back to unpacking the whole buffer,
 * which also gives malformed files their proper message. */


typedef struct ld_out {
    uint8_t *p;
    size_t n, cap;
    int oom;
} ld_out_t;

static void out_put(ld_out_t *o, const void *b, size_t n)
{
    if (o->oom)
        return;
    if (o->n + n > o->cap) {
        size_t nc = o->cap ? o->cap : 4096;
        while (nc < o->n + n)
            nc *= 2;
        uint8_t *q = realloc(o->p, nc);
        if (!q) {
            o->oom = 1;
            return;
        }
        o->p = q, o->cap = nc;
    }
    if (n)
        memcpy(o->p + o->n, b, n);
    o->n += n;
}

static void out_varint(ld_out_t *o, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    out_put(o, b, n);
}

static int pb_varint(const uint8_t *b, size_t end, size_t *pos, uint64_t *v)
{
    uint64_t r = 0;
    for (int sh = 0; sh < 64 && *pos < end; sh += 7) {
        uint8_t c = b[(*pos)++];
        r |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) {
            *v = r;
            return 1;
        }
    }
    return 0;
}

/* Reads one field at *pos (< end): its number, wire type and, for
 * length-delimited ones, the payload's range; *pos moves past it. */
static int pb_field(const uint8_t *b, size_t end, size_t *pos, uint64_t *field, size_t *pl,
                    size_t *plen)
{
    uint64_t key, v;
    if (!pb_varint(b, end, pos, &key))
        return 0;
    *field = key >> 3;
    switch (key & 7) {
    case 0: return pb_varint(b, end, pos, &v);
    case 1: if (end - *pos < 8) return 0; *pos += 8; return 1;
    case 5: if (end - *pos < 4) return 0; *pos += 4; return 1;
    case 2:
        if (!pb_varint(b, end, pos, &v) || v > end - *pos)
            return 0;
        *pl = *pos, *plen = (size_t)v, *pos += (size_t)v;
        *field |= (uint64_t)1 << 60; /* marks "length-delimited" for the callers */
        return 1;
    default: return 0; /* groups: not in ONNX */
    }
}

#define LD_LEN(f) (((uint64_t)1 << 60) | (f))

static int strip_tensor(const uint8_t *b, size_t start, size_t end, ld_out_t *o, ld_span_t *sp)
{
    sp->off = SIZE_MAX, sp->len = 0;
    for (size_t pos = start; pos < end;) {
        size_t f0 = pos, pl = 0, plen = 0;
        uint64_t f;
        if (!pb_field(b, end, &pos, &f, &pl, &plen))
            return 0;
        if (f == LD_LEN(9)) {
            if (sp->off != SIZE_MAX)
                return 0;
            sp->off = pl, sp->len = plen;
        } else {
            out_put(o, b + f0, pos - f0);
        }
    }
    return 1;
}

static int strip_graph(const uint8_t *b, size_t start, size_t end, ld_out_t *o, ld_span_t **spans,
                       size_t *n_spans)
{
    ld_out_t t = {0};
    size_t cap = 0;
    int ok = 1;
    for (size_t pos = start; ok && pos < end;) {
        size_t f0 = pos, pl = 0, plen = 0;
        uint64_t f;
        if (!(ok = pb_field(b, end, &pos, &f, &pl, &plen)))
            break;
        if (f != LD_LEN(5)) {
            out_put(o, b + f0, pos - f0);
            continue;
        }
        if (*n_spans == cap) {
            cap = cap ? cap * 2 : 64;
            ld_span_t *q = realloc(*spans, cap * sizeof *q);
            if (!q) {
                ok = 0;
                break;
            }
            *spans = q;
        }
        t.n = 0;
        if (!(ok = strip_tensor(b, pl, pl + plen, &t, &(*spans)[*n_spans])))
            break;
        ++*n_spans;
        out_varint(o, (5 << 3) | 2);
        out_varint(o, t.n);
        out_put(o, t.p, t.n);
        ok = !t.oom;
    }
    free(t.p);
    return ok && !o->oom;
}

/* The skeleton of model buf (in *skel) and the raw_data span of each of
 * its graph's initializers, in order. 0: use the whole buffer instead. */
static int strip_model(const uint8_t *b, size_t len, ld_out_t *skel, ld_span_t **spans,
                       size_t *n_spans)
{
    ld_out_t g = {0};
    int ok = 1, seen = 0;
    *spans = NULL, *n_spans = 0;
    for (size_t pos = 0; ok && pos < len;) {
        size_t f0 = pos, pl = 0, plen = 0;
        uint64_t f;
        if (!(ok = pb_field(b, len, &pos, &f, &pl, &plen)))
            break;
        if (f != LD_LEN(7)) {
            out_put(skel, b + f0, pos - f0);
            continue;
        }
        if (seen++ || !(ok = strip_graph(b, pl, pl + plen, &g, spans, n_spans)))
            break;
        out_varint(skel, (7 << 3) | 2);
        out_varint(skel, g.n);
        out_put(skel, g.p, g.n);
    }
    free(g.p);
    if (!ok || seen != 1 || skel->oom) {
        free(skel->p), free(*spans);
        memset(skel, 0, sizeof *skel);
        *spans = NULL, *n_spans = 0;
        return 0;
    }
    return 1;
}

/* Drops the pages of a mapped file's range from the process (they are
 * read again from the file if touched): the model's weights are not held
 * twice while they become constants. */
static void ld_release(const ld_t *L, size_t off, size_t len)
{
    if (!L->mapped || !len)
        return;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)L->buf + off) & ~(pg - 1);
    uintptr_t e = (uintptr_t)L->buf + off + len;
    madvise((void *)a, (size_t)(e - a), MADV_DONTNEED);
}

static cairn_status_t build(ld_t *L, Onnx__ModelProto *m)
{
    const Onnx__GraphProto *gp = m->graph;
    BASE_TRY(read_opsets(L, m));
    if (gp->n_sparse_initializer)
        return base_error(CAIRN_ERR_UNSUPPORTED, "'%s': sparse initializers are not supported",
                          L->label);
    char **names = node_names(gp);
    if (!names)
        return oom();
    size_t *order = NULL;
    cairn_status_t s = sort_nodes(L, gp, names, &order);
    if (s == CAIRN_OK)
        s = check_support(L, gp);

    /* initializers, then the graph inputs that are not initializers */
    for (size_t i = 0; s == CAIRN_OK && i < gp->n_initializer; i++) {
        /* the proto is the loader's own: its bytes go once they are a constant */
        Onnx__TensorProto *tp = gp->initializer[i];
        const ld_span_t *sp = L->spans && L->spans[i].off != SIZE_MAX ? &L->spans[i] : NULL;
        if (sp) { /* stripped from the skeleton: decoded from the file's bytes */
            tp->has_raw_data = 1;
            tp->raw_data.len = sp->len;
            tp->raw_data.data = (uint8_t *)L->buf + sp->off;
        }
        char lab[600];
        snprintf(lab, sizeof lab, "%s: initializer '%.500s'", L->label, tp->name);
        cairn_tensor_t t;
        s = onnx_tensor_decode(tp, lab, L->dir, &t);
        if (sp) {
            tp->has_raw_data = 0;
            tp->raw_data.len = 0;
            tp->raw_data.data = NULL;
            ld_release(L, sp->off, sp->len);
        } else if (tp->has_raw_data) {
            free(tp->raw_data.data); /* protobuf-c's default allocator is malloc */
            tp->raw_data.len = 0;
            tp->raw_data.data = NULL;
            tp->has_raw_data = 0;
        }
        if (s != CAIRN_OK)
            break;
        int id;
        s = ld_const(L, tp->name, &t, &id);
        free(t.data);
    }
    for (int b = 0; s == CAIRN_OK && b < L->n_bound; b++) {
        int found = 0;
        for (size_t i = 0; i < gp->n_input && !found; i++)
            found = !strcmp(gp->input[i]->name, L->bound[b].name) &&
                    nm_get(&L->names, L->bound[b].name) < 0;
        if (!found) {
            s = base_error(CAIRN_ERR_INVALID_ARGUMENT, "'%s': '%s' is not a graph input (that "
                           "is not an initializer); it cannot be bound", L->label,
                           L->bound[b].name);
            break;
        }
        int id;
        s = ld_const(L, L->bound[b].name, L->bound[b].value, &id);
    }
    for (size_t i = 0; s == CAIRN_OK && i < gp->n_input; i++)
        if (nm_get(&L->names, gp->input[i]->name) < 0)
            s = load_input(L, gp->input[i]);

    int first_node = L->ir->n_nodes;
    for (size_t k = 0; s == CAIRN_OK && k < gp->n_node; k++) {
        size_t i = order[k];
        const Onnx__NodeProto *nd = gp->node[i];
        L->node_name = names[i];
        L->op_type = nd->op_type;
        s = map_node(L, nd);
        if (s == CAIRN_OK)
            for (int j = first_node; j < L->ir->n_nodes && s == CAIRN_OK; j++)
                s = ir_node_add_source(&L->ir->nodes[j], names[i]);
        first_node = L->ir->n_nodes;
    }
    L->node_name = NULL;
    for (size_t i = 0; s == CAIRN_OK && i < gp->n_value_info; i++)
        s = check_declared(L, gp->value_info[i], "value");
    if (s == CAIRN_OK && !gp->n_output)
        s = base_error(CAIRN_ERR_GRAPH, "'%s': the graph has no outputs", L->label);
    for (size_t i = 0; s == CAIRN_OK && i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        int id = vi->name ? nm_get(&L->names, vi->name) : -1;
        if (id < 0) {
            s = base_error(CAIRN_ERR_GRAPH, "'%s': graph output '%s' is not produced by any node, "
                           "initializer or input", L->label, vi->name ? vi->name : "");
            break;
        }
        if ((s = check_declared(L, vi, "graph output")) != CAIRN_OK)
            break;
        s = cairn_graph_mark_output(L->g, id);
    }
    for (size_t i = 0; i < gp->n_node; i++)
        free(names[i]);
    free(names);
    free(order);
    return s;
}

cairn_status_t onnx_model_load_buffer(const uint8_t *buf, size_t len, const char *dir,
                                      const char *label, cairn_graph_t **out)
{
    return onnx_model_load_buffer_bound(buf, len, dir, label, NULL, 0, out);
}

static cairn_status_t load_buffer(const uint8_t *buf, size_t len, int mapped, const char *dir,
                                  const char *label, const onnx_bound_input_t *bound,
                                  int n_bound, cairn_graph_t **out)
{
    if (!label)
        label = "model";
    if ((!buf && len) || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "onnx_model_load_buffer: NULL argument");
    *out = NULL;
    static const uint8_t empty = 0;
    ld_out_t skel = {0};
    ld_span_t *spans = NULL;
    size_t n_spans = 0;
    Onnx__ModelProto *m = NULL;
    if (buf && strip_model(buf, len, &skel, &spans, &n_spans)) {
        m = onnx__model_proto__unpack(NULL, skel.n, skel.p ? skel.p : &empty);
        free(skel.p);
        if (m && (!m->graph || m->graph->n_initializer != n_spans)) {
            onnx__model_proto__free_unpacked(m, NULL);
            m = NULL;
        }
        if (!m) {
            free(spans);
            spans = NULL;
        }
    }
    if (!m)
        m = onnx__model_proto__unpack(NULL, len, buf ? buf : &empty);
    if (mapped && len) /* what the walk and the unpack touched */
        madvise((void *)buf, len, MADV_DONTNEED);
    if (!m)
        return base_error(CAIRN_ERR_PARSE, "'%s': not a valid ONNX model (%zu bytes; truncated "
                          "or not an ONNX protobuf file)", label, len);
    if (!m->graph) {
        onnx__model_proto__free_unpacked(m, NULL);
        free(spans);
        return base_error(CAIRN_ERR_PARSE, "'%s': the model has no graph (is it an ONNX model "
                          "file?)", label);
    }
    ld_t L;
    memset(&L, 0, sizeof L);
    L.label = label, L.dir = dir;
    L.bound = bound, L.n_bound = bound ? n_bound : 0;
    L.buf = buf, L.mapped = mapped, L.spans = spans;
    cairn_status_t s = cairn_graph_create(&L.g);
    if (s == CAIRN_OK) {
        L.ir = (ir_graph_t *)cairn_graph_ir(L.g);
        s = build(&L, m);
    }
    nm_free(&L.names);
    onnx__model_proto__free_unpacked(m, NULL);
    free(spans);
    if (s != CAIRN_OK) {
        cairn_graph_destroy(L.g);
        return s;
    }
    *out = L.g;
    return CAIRN_OK;
}

cairn_status_t onnx_model_load_buffer_bound(const uint8_t *buf, size_t len, const char *dir,
                                            const char *label, const onnx_bound_input_t *bound,
                                            int n_bound, cairn_graph_t **out)
{
    return load_buffer(buf, len, 0, dir, label, bound, n_bound, out);
}

cairn_status_t cairn_graph_load_onnx(const char *path, cairn_graph_t **out)
{
    base_error_clear();
    return onnx_model_load_file(path, NULL, 0, out);
}

cairn_status_t onnx_model_load_file(const char *path, const onnx_bound_input_t *bound,
                                    int n_bound, cairn_graph_t **out)
{
    if (!path || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "cairn_graph_load_onnx: NULL argument");
    *out = NULL;
    /* external data is relative to the model's folder */
    char *dir = malloc(strlen(path) + 2);
    if (!dir)
        return oom();
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = 0;
    else
        strcpy(dir, ".");
    /* mapped, not read: the pages of each weight leave the process once it
     * is a constant (pipes and other unmappable files are read) */
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= SIZE_MAX) {
        size_t mlen = (size_t)st.st_size;
        void *map = mmap(NULL, mlen, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            close(fd);
            cairn_status_t s = load_buffer(map, mlen, 1, dir, path, bound, n_bound, out);
            munmap(map, mlen);
            free(dir);
            return s;
        }
    }
    if (fd >= 0)
        close(fd);
    FILE *f = fopen(path, "rb");
    if (!f) {
        free(dir);
        return base_error(CAIRN_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            free(dir);
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "'%s': out of memory reading the file",
                              path);
        }
        if (len == cap) {
            uint8_t *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!nb)
                free(buf);
            buf = nb, cap *= 2;
            continue;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (!got)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        free(dir);
        return base_error(CAIRN_ERR_IO, "cannot read '%s'", path);
    }
    cairn_status_t s = load_buffer(buf, len, 0, dir, path, bound, n_bound, out);
    free(dir);
    free(buf);
    return s;
}
