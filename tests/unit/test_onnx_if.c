/*
 * The ONNX loader's If: with a condition known when loading (an
 * initializer, a Constant node) the chosen branch is inlined, its nodes
 * named under the If's name and tagged with it as a source; branches read
 * outer values by name, carry their own initializers, nest, and may return
 * outer values directly. The graphs are run and their values checked. A
 * condition that is not constant, and malformed branches, are refused with
 * a message naming the node and the problem.
 */
#include "check.h"
#include "frontend/onnx/loader.h"
#include "ir/ir.h"
#include "onnx.pb-c.h"

const ir_graph_t *cairn_graph_ir(const cairn_graph_t *g);

/* ---- protobuf structs of one model; all freed by drop_all() ---- */

typedef struct keep {
    struct keep *next;
    max_align_t data[];
} keep_t;

static keep_t *kept;

static void *mem(size_t n)
{
    keep_t *k = calloc(1, sizeof *k + n + 1);
    if (!k) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    k->next = kept, kept = k;
    return k->data;
}

static void drop_all(void)
{
    while (kept) {
        keep_t *n = kept->next;
        free(kept);
        kept = n;
    }
}

static char *str(const char *s) { return strcpy(mem(strlen(s) + 1), s); }

/* A graph with room for 16 of everything. */
static Onnx__GraphProto *graph_new(const char *name)
{
    Onnx__GraphProto *g = mem(sizeof *g);
    onnx__graph_proto__init(g);
    g->name = str(name);
    g->node = mem(16 * sizeof(void *));
    g->initializer = mem(16 * sizeof(void *));
    g->input = mem(16 * sizeof(void *));
    g->output = mem(16 * sizeof(void *));
    return g;
}

/* Adds a node with up to two inputs and one output (NULL: none). */
static Onnx__NodeProto *add_node(Onnx__GraphProto *g, const char *op, const char *name,
                                 const char *a, const char *b, const char *y)
{
    Onnx__NodeProto *n = mem(sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = str(op);
    n->name = str(name);
    n->input = mem(2 * sizeof(char *));
    n->output = mem(2 * sizeof(char *));
    n->attribute = mem(4 * sizeof(void *));
    if (a)
        n->input[n->n_input++] = str(a);
    if (b)
        n->input[n->n_input++] = str(b);
    if (y)
        n->output[n->n_output++] = str(y);
    g->node[g->n_node++] = n;
    return n;
}

static void add_graph_attr(Onnx__NodeProto *n, const char *name, Onnx__GraphProto *sub)
{
    Onnx__AttributeProto *a = mem(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = str(name);
    a->has_type = 1, a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    a->g = sub;
    n->attribute[n->n_attribute++] = a;
}

/* An If node reading `cond` with then/else branches (either may be NULL). */
static Onnx__NodeProto *add_if(Onnx__GraphProto *g, const char *name, const char *cond,
                               const char *y, Onnx__GraphProto *then_g, Onnx__GraphProto *else_g)
{
    Onnx__NodeProto *n = add_node(g, "If", name, cond, NULL, y);
    if (then_g)
        add_graph_attr(n, "then_branch", then_g);
    if (else_g)
        add_graph_attr(n, "else_branch", else_g);
    return n;
}

/* A tensor proto of dtype dt and n elements of `elem` bytes, 1-D unless n
 * is 0 (then a scalar holding one element). */
static Onnx__TensorProto *tensor(const char *name, int dt, const void *v, size_t n, size_t elem)
{
    Onnx__TensorProto *t = mem(sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = str(name);
    t->has_data_type = 1, t->data_type = dt;
    size_t cnt = n ? n : 1;
    if (n) {
        t->dims = mem(sizeof(int64_t));
        t->dims[0] = (int64_t)n, t->n_dims = 1;
    }
    t->has_raw_data = 1;
    t->raw_data.len = cnt * elem;
    t->raw_data.data = memcpy(mem(cnt * elem), v, cnt * elem);
    return t;
}

static Onnx__TensorProto *bool_scalar(const char *name, int v)
{
    uint8_t b = (uint8_t)v;
    return tensor(name, CAIRN_BOOL, &b, 0, 1);
}

static void add_init(Onnx__GraphProto *g, Onnx__TensorProto *t)
{
    g->initializer[g->n_initializer++] = t;
}

/* A Constant node with a `value` tensor attribute. */
static void add_constant(Onnx__GraphProto *g, const char *name, const char *y,
                         Onnx__TensorProto *t)
{
    Onnx__NodeProto *n = add_node(g, "Constant", name, NULL, NULL, y);
    Onnx__AttributeProto *a = mem(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = str("value");
    a->has_type = 1, a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    a->t = t;
    n->attribute[n->n_attribute++] = a;
}

/* A float tensor ValueInfo of shape [3] (rank < 0: no type at all, as
 * branch outputs often are). */
static Onnx__ValueInfoProto *vi(const char *name, int rank)
{
    Onnx__ValueInfoProto *v = mem(sizeof *v);
    onnx__value_info_proto__init(v);
    v->name = str(name);
    if (rank < 0)
        return v;
    v->type = mem(sizeof *v->type);
    onnx__type_proto__init(v->type);
    v->type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    Onnx__TypeProto__Tensor *tt = mem(sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1, tt->elem_type = CAIRN_F32;
    tt->shape = mem(sizeof *tt->shape);
    onnx__tensor_shape_proto__init(tt->shape);
    tt->shape->dim = mem(sizeof(void *));
    Onnx__TensorShapeProto__Dimension *d = mem(sizeof *d);
    onnx__tensor_shape_proto__dimension__init(d);
    d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d->dim_value = 3;
    tt->shape->dim[tt->shape->n_dim++] = d;
    v->type->tensor_type = tt;
    return v;
}

static void add_output(Onnx__GraphProto *g, const char *name) { g->output[g->n_output++] = vi(name, -1); }

/* The main graph: input x (f32 [3]), output y. */
static Onnx__GraphProto *main_graph(void)
{
    Onnx__GraphProto *g = graph_new("main");
    g->input[g->n_input++] = vi("x", 1);
    add_output(g, "y");
    return g;
}

/* Packs a model of opset 13 around g and loads it; frees the protos. */
static cairn_status_t load(Onnx__GraphProto *g, cairn_graph_t **out)
{
    Onnx__ModelProto m;
    onnx__model_proto__init(&m);
    m.has_ir_version = 1, m.ir_version = 8;
    m.graph = g;
    Onnx__OperatorSetIdProto op;
    onnx__operator_set_id_proto__init(&op);
    op.domain = str("");
    op.has_version = 1, op.version = 13;
    Onnx__OperatorSetIdProto *ops[1] = {&op};
    m.opset_import = ops, m.n_opset_import = 1;
    size_t len = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = malloc(len);
    onnx__model_proto__pack(&m, buf);
    *out = NULL;
    cairn_status_t s = onnx_model_load_buffer(buf, len, NULL, "if.onnx", out);
    free(buf);
    drop_all();
    return s;
}

static const float X[3] = {1, -2, 3};

/* Loads g, runs it on X and checks y against want; destroys the graph. */
static void load_run_check(Onnx__GraphProto *g, const double *want, const char *what)
{
    cairn_graph_t *cg = NULL;
    CHECK_OK(load(g, &cg));
    if (!cg) {
        fprintf(stderr, "  (in %s)\n", what);
        return;
    }
    cairn_session_t *s = NULL;
    CHECK_OK(cairn_session_create(cg, NULL, &s));
    if (s) {
        cairn_tensor_t in = {CAIRN_F32, 1, {3}, (void *)X};
        cairn_tensor_t out = {0};
        CHECK_OK(cairn_session_run(s, &in, 1, &out, 1));
        CHECK(out.dtype == CAIRN_F32 && out.rank == 1 && out.shape[0] == 3);
        if (out.dtype == CAIRN_F32 && cairn_tensor_numel(&out) == 3)
            check_close_f32(out.data, want, 3, 0, 0, what);
        cairn_session_destroy(s);
    }
    cairn_graph_destroy(cg);
}

/* 1 if some node is named `name` and lists every source in `src` (NULL
 * ended). */
static int has_node(const cairn_graph_t *cg, const char *name, const char *const *src)
{
    const ir_graph_t *ir = cairn_graph_ir(cg);
    for (int i = 0; i < ir->n_nodes; i++) {
        const ir_node_t *n = &ir->nodes[i];
        if (strcmp(n->name, name))
            continue;
        int all = 1;
        for (int k = 0; src[k]; k++) {
            int found = 0;
            for (int j = 0; j < n->n_sources; j++)
                found |= !strcmp(n->sources[j], src[k]);
            all &= found;
        }
        return all;
    }
    return 0;
}

/* then: x + x (outer x); else: x * w, w the else branch's initializer. */
static void simple_branches(Onnx__GraphProto **then_g, Onnx__GraphProto **else_g)
{
    *then_g = graph_new("then");
    add_node(*then_g, "Add", "Add_1", "x", "x", "t");
    add_output(*then_g, "t");
    *else_g = graph_new("else");
    const float w[3] = {10, 20, 30};
    add_init(*else_g, tensor("w", CAIRN_F32, w, 3, 4));
    add_node(*else_g, "Mul", "Mul_1", "x", "w", "e");
    add_output(*else_g, "e");
}

static const double WANT_THEN[3] = {2, -4, 6}, WANT_ELSE[3] = {10, -40, 90};

static void test_initializer_cond(void)
{
    for (int c = 0; c <= 1; c++) {
        Onnx__GraphProto *g = main_graph(), *t, *e;
        simple_branches(&t, &e);
        add_init(g, bool_scalar("cond", c));
        add_if(g, "If_3", "cond", "y", t, e);
        load_run_check(g, c ? WANT_THEN : WANT_ELSE, c ? "initializer: then" : "initializer: else");
    }
    /* the names and sources of the inlined nodes; y keeps its name */
    Onnx__GraphProto *g = main_graph(), *t, *e;
    simple_branches(&t, &e);
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_3", "cond", "y", t, e);
    cairn_graph_t *cg = NULL;
    CHECK_OK(load(g, &cg));
    if (cg) {
        const char *src[] = {"If_3/then/Add_1", "If_3", NULL};
        CHECK(has_node(cg, "If_3/then/Add_1", src));
        const ir_graph_t *ir = cairn_graph_ir(cg);
        CHECK(ir->n_nodes == 1); /* no Identity: the Add writes y itself */
        CHECK(ir->n_outputs == 1 && !strcmp(ir->values[ir->outputs[0]].name, "y"));
        cairn_graph_destroy(cg);
    }
}

static void test_constant_node_cond(void)
{
    for (int c = 0; c <= 1; c++) {
        Onnx__GraphProto *g = main_graph(), *t, *e;
        simple_branches(&t, &e);
        /* the If comes first in the file: the loader must sort */
        add_if(g, "If_3", "cond", "y", t, e);
        add_constant(g, "C", "cond", bool_scalar("", c));
        load_run_check(g, c ? WANT_THEN : WANT_ELSE, c ? "Constant: then" : "Constant: else");
    }
}

/* A branch reading an outer value that a later node (in file order)
 * produces, and a branch returning its own initializer or Constant. */
static void test_outer_values(void)
{
    Onnx__GraphProto *g = main_graph();
    Onnx__GraphProto *t = graph_new("then"), *e = graph_new("else");
    add_node(t, "Mul", "Mul_1", "x", "nx", "t");
    add_output(t, "t");
    add_output(e, "x");
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_1", "cond", "y", t, e);
    add_node(g, "Neg", "neg", "x", NULL, "nx");
    const double want[3] = {-1, -4, -9};
    load_run_check(g, want, "outer value read after sorting");

    /* else returns the outer x directly: an Identity with y's name */
    g = main_graph();
    t = graph_new("then"), e = graph_new("else");
    add_node(t, "Neg", "n", "x", NULL, "t");
    add_output(t, "t");
    add_output(e, "x");
    add_init(g, bool_scalar("cond", 0));
    add_if(g, "If_1", "cond", "y", t, e);
    const double want_x[3] = {1, -2, 3};
    load_run_check(g, want_x, "branch output is an outer value");

    /* a branch whose output is its own initializer, added to x outside */
    g = main_graph();
    t = graph_new("then"), e = graph_new("else");
    const float b[3] = {0.5f, 0.25f, 4};
    add_init(t, tensor("bias", CAIRN_F32, b, 3, 4));
    add_output(t, "bias");
    add_constant(e, "c", "k", tensor("", CAIRN_F32, b, 3, 4));
    add_output(e, "k");
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_1", "cond", "bb", t, e);
    add_node(g, "Add", "add", "x", "bb", "y");
    const double want_b[3] = {1.5, -1.75, 7};
    load_run_check(g, want_b, "branch output is its initializer");

    /* a branch that lists the outer value it reads as an input, and
     * returns it */
    g = main_graph();
    t = graph_new("then"), e = graph_new("else");
    t->input[t->n_input++] = vi("x", 1);
    add_output(t, "x");
    add_output(e, "x");
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_1", "cond", "y", t, e);
    load_run_check(g, want_x, "branch output is a branch input");
}

/* then_branch holds an If on an outer initializer, whose else branch holds
 * an If on a Constant of the middle branch: y = relu(2x). */
static Onnx__GraphProto *nested_model(void)
{
    Onnx__GraphProto *g = main_graph();
    Onnx__GraphProto *outer_t = graph_new("ot"), *outer_e = graph_new("oe");
    Onnx__GraphProto *mid_t = graph_new("mt"), *mid_e = graph_new("me");
    Onnx__GraphProto *in_t = graph_new("it"), *in_e = graph_new("ie");
    add_node(outer_e, "Neg", "n", "x", NULL, "oe_y");
    add_output(outer_e, "oe_y");
    add_node(mid_t, "Neg", "n", "x", NULL, "mt_y");
    add_output(mid_t, "mt_y");
    add_constant(mid_e, "C", "c3", bool_scalar("", 1));
    const float two[3] = {2, 2, 2};
    add_init(in_t, tensor("two", CAIRN_F32, two, 3, 4));
    add_node(in_t, "Mul", "Mul_1", "x", "two", "it_y");
    add_output(in_t, "it_y");
    add_node(in_e, "Abs", "a", "x", NULL, "ie_y");
    add_output(in_e, "ie_y");
    add_if(mid_e, "inner", "c3", "me_y", in_t, in_e);
    add_output(mid_e, "me_y");
    add_if(outer_t, "mid", "c2", "ot_y", mid_t, mid_e);
    add_node(outer_t, "Relu", "relu", "ot_y", NULL, "ot_z");
    add_output(outer_t, "ot_z");
    add_init(g, bool_scalar("c1", 1));
    add_init(g, bool_scalar("c2", 0));
    add_if(g, "If_3", "c1", "y", outer_t, outer_e);
    return g;
}

static void test_nested(void)
{
    cairn_graph_t *cg = NULL;
    CHECK_OK(load(nested_model(), &cg));
    if (cg) {
        const char *src[] = {"If_3/then/mid/else/inner/then/Mul_1", "If_3/then/mid/else/inner",
                             "If_3/then/mid", "If_3", NULL};
        CHECK(has_node(cg, "If_3/then/mid/else/inner/then/Mul_1", src));
        cairn_graph_destroy(cg);
    }
    const double want[3] = {2, 0, 6};
    load_run_check(nested_model(), want, "nested");
}

/* Missing ops are found in the chosen branch (not in the other one) when
 * the condition is known before building. */
static void test_missing_ops(void)
{
    Onnx__GraphProto *g = main_graph();
    Onnx__GraphProto *t = graph_new("then"), *e = graph_new("else");
    add_node(t, "NoSuchOp", "bad", "x", NULL, "t");
    add_output(t, "t");
    add_node(e, "OtherMissing", "bad2", "x", NULL, "e");
    add_output(e, "e");
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_3", "cond", "y", t, e);
    cairn_graph_t *cg = NULL;
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_UNSUPPORTED, "'If_3/then/bad'");
    CHECK(!strstr(cairn_last_error(), "OtherMissing"));
    CHECK(cg == NULL);

    /* the unchosen branch may hold anything */
    g = main_graph();
    t = graph_new("then"), e = graph_new("else");
    add_node(t, "NoSuchOp", "bad", "x", NULL, "t");
    add_output(t, "t");
    add_node(e, "Neg", "n", "x", NULL, "e");
    add_output(e, "e");
    add_init(g, bool_scalar("cond", 0));
    add_if(g, "If_3", "cond", "y", t, e);
    const double want[3] = {-1, 2, -3};
    load_run_check(g, want, "unchosen branch unsupported");
}

static void test_dynamic_cond(void)
{
    /* a graph input as the condition: listed with the other missing ops */
    Onnx__GraphProto *g = main_graph(), *t, *e;
    simple_branches(&t, &e);
    Onnx__ValueInfoProto *c = vi("cond", 1);
    c->type->tensor_type->elem_type = CAIRN_BOOL;
    c->type->tensor_type->shape->dim[0]->dim_value = 1;
    g->input[g->n_input++] = c;
    add_if(g, "If_3", "cond", "y", t, e);
    add_node(g, "NoSuchOp", "other", "x", NULL, "z");
    cairn_graph_t *cg = NULL;
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_UNSUPPORTED, "condition must be a constant");
    const char *msg = cairn_last_error();
    CHECK(strstr(msg, "'If_3'") && strstr(msg, "2 ops") && strstr(msg, "'other'"));
    CHECK(cg == NULL);

    /* a node's output: refused when building, naming the node */
    g = main_graph();
    simple_branches(&t, &e);
    add_node(g, "ReduceMax", "rm", "x", NULL, "mx");
    add_node(g, "Greater", "gt", "mx", "mx", "cond");
    add_if(g, "If_7", "cond", "y", t, e);
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_UNSUPPORTED, "node 'If_7' (If): the condition 'cond'");
    CHECK(strstr(cairn_last_error(), "constant"));
    CHECK(cg == NULL);
}

static void test_malformed(void)
{
    cairn_graph_t *cg = NULL;
    Onnx__GraphProto *g = main_graph(), *t, *e;
    simple_branches(&t, &e);
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_3", "cond", "y", t, NULL);
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_GRAPH, "'else_branch' attribute is missing");
    CHECK(strstr(cairn_last_error(), "If_3"));

    /* two branch outputs for one If output */
    g = main_graph();
    simple_branches(&t, &e);
    add_output(t, "x");
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_3", "cond", "y", t, e);
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_GRAPH, "then_branch has 2 outputs but the node has 1");

    /* a branch output nothing produces */
    g = main_graph();
    simple_branches(&t, &e);
    t->output[0]->name = str("nowhere");
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_3", "cond", "y", t, e);
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_GRAPH, "'nowhere'");

    /* a branch node reading a value no scope defines */
    g = main_graph();
    simple_branches(&t, &e);
    t->node[0]->input[1] = str("ghost");
    add_init(g, bool_scalar("cond", 1));
    add_if(g, "If_3", "cond", "y", t, e);
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_GRAPH, "'ghost'");

    /* a condition that is not a bool scalar */
    g = main_graph();
    simple_branches(&t, &e);
    const float f = 1;
    add_init(g, tensor("cond", CAIRN_F32, &f, 0, 4));
    add_if(g, "If_3", "cond", "y", t, e);
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_GRAPH, "must be a bool tensor of one element");

    /* an input that is not a graph */
    g = main_graph();
    simple_branches(&t, &e);
    add_init(g, bool_scalar("cond", 1));
    Onnx__NodeProto *n = add_if(g, "If_3", "cond", "y", t, e);
    n->attribute[0]->g = NULL;
    n->attribute[0]->has_type = 1;
    n->attribute[0]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    CHECK_FAILS(load(g, &cg), CAIRN_ERR_GRAPH, "'then_branch' must be a graph");
    CHECK(cg == NULL);
}

int main(void)
{
    test_initializer_cond();
    test_constant_node_cond();
    test_outer_values();
    test_nested();
    test_missing_ops();
    test_dynamic_cond();
    test_malformed();
    return check_finish("test_onnx_if");
}
