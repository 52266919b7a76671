/*
 * The ONNX loader, on small ModelProtos built here with protobuf-c: valid
 * models (initializers, Constant nodes, symbolic dims, unsorted nodes, older
 * opset forms, external data) are loaded and run against values computed in
 * the test; malformed ones (garbage, truncation, negative dims, short raw
 * data, missing and duplicated names, cycles, unknown domains, missing ops,
 * external paths leaving the folder) must fail with a clear message.
 * onnxruntime's quantised com.microsoft ops are checked against their
 * formulas (QLinearAdd bit for bit, QGemm), and the ones cairn lacks or
 * cannot take named.
 */
#define _XOPEN_SOURCE 700
#include "check.h"
#include "frontend/onnx/loader.h"
#include "ir/ir.h"
#include "onnx.pb-c.h"

#include <unistd.h>

const ir_graph_t *cairn_graph_ir(const cairn_graph_t *g);

/* ---- an arena for the protobuf structs of one model ---- */

static void *arena[4096];
static int n_arena;

static void *A(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p || n_arena == 4096) {
        fprintf(stderr, "test arena full\n");
        exit(2);
    }
    arena[n_arena++] = p;
    return p;
}

static void arena_free(void)
{
    while (n_arena)
        free(arena[--n_arena]);
}

static char *S(const char *s)
{
    char *p = A(strlen(s) + 1);
    strcpy(p, s);
    return p;
}

static Onnx__GraphProto *G;
static Onnx__ModelProto *M;

static void model_new(int64_t opset)
{
    M = A(sizeof *M);
    onnx__model_proto__init(M);
    M->has_ir_version = 1, M->ir_version = 8;
    G = A(sizeof *G);
    onnx__graph_proto__init(G);
    G->name = S("g");
    M->graph = G;
    M->opset_import = A(4 * sizeof(void *));
    Onnx__OperatorSetIdProto *o = A(sizeof *o);
    onnx__operator_set_id_proto__init(o);
    o->domain = S("");
    o->has_version = 1, o->version = opset;
    M->opset_import[M->n_opset_import++] = o;
    G->node = A(64 * sizeof(void *));
    G->initializer = A(64 * sizeof(void *));
    G->input = A(64 * sizeof(void *));
    G->output = A(64 * sizeof(void *));
}

static Onnx__NodeProto *node(const char *op, const char *name, const char *in0, const char *in1,
                             const char *out0)
{
    Onnx__NodeProto *n = A(sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = S(op);
    n->name = S(name);
    n->input = A(4 * sizeof(char *));
    n->output = A(4 * sizeof(char *));
    if (in0)
        n->input[n->n_input++] = S(in0);
    if (in1)
        n->input[n->n_input++] = S(in1);
    if (out0)
        n->output[n->n_output++] = S(out0);
    n->attribute = A(8 * sizeof(void *));
    G->node[G->n_node++] = n;
    return n;
}

static Onnx__AttributeProto *attr(Onnx__NodeProto *n, const char *name, int type)
{
    Onnx__AttributeProto *a = A(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = S(name);
    a->has_type = 1, a->type = (Onnx__AttributeProto__AttributeType)type;
    n->attribute[n->n_attribute++] = a;
    return a;
}

static void attr_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1, a->i = v;
}

static void attr_ints(Onnx__NodeProto *n, const char *name, const int64_t *v, size_t k)
{
    Onnx__AttributeProto *a = attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->ints = A(k * sizeof *v);
    memcpy(a->ints, v, k * sizeof *v);
    a->n_ints = k;
}

static Onnx__TensorProto *tensor_f32(const char *name, int rank, const int64_t *dims,
                                     const float *v, size_t n)
{
    Onnx__TensorProto *t = A(sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = S(name);
    t->has_data_type = 1, t->data_type = CAIRN_F32;
    t->dims = A((size_t)rank * sizeof(int64_t));
    memcpy(t->dims, dims, (size_t)rank * sizeof(int64_t));
    t->n_dims = (size_t)rank;
    if (v) {
        t->has_raw_data = 1;
        t->raw_data.len = n * sizeof(float);
        t->raw_data.data = A(n * sizeof(float));
        memcpy(t->raw_data.data, v, n * sizeof(float));
    }
    return t;
}

static void initializer(Onnx__TensorProto *t) { G->initializer[G->n_initializer++] = t; }

/* A tensor ValueInfo; dims < 0 are named by params[i] (NULL: unnamed). */
static Onnx__ValueInfoProto *vinfo(const char *name, int elem, int rank, const int64_t *dims,
                                   const char *const *params)
{
    Onnx__ValueInfoProto *v = A(sizeof *v);
    onnx__value_info_proto__init(v);
    v->name = S(name);
    v->type = A(sizeof *v->type);
    onnx__type_proto__init(v->type);
    v->type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    v->type->tensor_type = A(sizeof *v->type->tensor_type);
    onnx__type_proto__tensor__init(v->type->tensor_type);
    v->type->tensor_type->has_elem_type = 1;
    v->type->tensor_type->elem_type = elem;
    Onnx__TensorShapeProto *sp = A(sizeof *sp);
    onnx__tensor_shape_proto__init(sp);
    sp->dim = A((size_t)(rank + 1) * sizeof(void *));
    for (int i = 0; i < rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = A(sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (dims[i] >= 0) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = dims[i];
        } else if (params && params[i]) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = S(params[i]);
        }
        sp->dim[sp->n_dim++] = d;
    }
    v->type->tensor_type->shape = sp;
    return v;
}

static void input(const char *name, int rank, const int64_t *dims, const char *const *params)
{
    G->input[G->n_input++] = vinfo(name, CAIRN_F32, rank, dims, params);
}

static void output(const char *name) { G->output[G->n_output++] = vinfo(name, 0, 0, NULL, NULL); }

/* Packs M into a malloc'd buffer. */
static uint8_t *pack(size_t *len)
{
    *len = onnx__model_proto__get_packed_size(M);
    uint8_t *b = malloc(*len ? *len : 1);
    onnx__model_proto__pack(M, b);
    return b;
}

static cairn_status_t load(cairn_graph_t **g)
{
    size_t len;
    uint8_t *b = pack(&len);
    cairn_status_t s = onnx_model_load_buffer(b, len, NULL, "test.onnx", g);
    free(b);
    arena_free();
    return s;
}

static char tmpdir[64];

static const char *tmp(const char *leaf)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, leaf);
    return buf[k];
}

/* Writes M to tmp(leaf) and loads it through the public call. */
static cairn_status_t load_file(const char *leaf, cairn_graph_t **g)
{
    size_t len;
    uint8_t *b = pack(&len);
    arena_free();
    FILE *f = fopen(tmp(leaf), "wb");
    fwrite(b, 1, len, f);
    fclose(f);
    free(b);
    return cairn_graph_load_onnx(tmp(leaf), g);
}

/* Runs a one-input one-output graph on x; returns the output in y (n floats). */
static int run1(cairn_graph_t *g, int rank, const int64_t *shape, const float *x, float *y,
                int64_t n)
{
    cairn_session_t *s = NULL;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    if (!s)
        return 0;
    cairn_tensor_t in = {CAIRN_F32, rank, {0}, (void *)x};
    for (int i = 0; i < rank; i++)
        in.shape[i] = shape[i];
    cairn_tensor_t out = {0};
    cairn_status_t st = cairn_session_run(s, &in, 1, &out, 1);
    CHECK_OK(st);
    int ok = st == CAIRN_OK && out.dtype == CAIRN_F32 && cairn_tensor_numel(&out) == n;
    CHECK(ok);
    if (ok)
        memcpy(y, out.data, (size_t)n * sizeof(float));
    cairn_session_destroy(s);
    return ok;
}

/* ---- valid models ---- */

/* y = Relu(x + W) with W an initializer, x [N, 3] with N symbolic; the
 * nodes are stored in reverse order, so the loader must sort them. */
static void test_basic(void)
{
    model_new(13);
    node("Relu", "relu", "s", NULL, "y");
    node("Add", "", "x", "W", "s"); /* no name: "Add_1" */
    float w[3] = {1, -2, 0.5f};
    int64_t wd[1] = {3};
    initializer(tensor_f32("W", 1, wd, w, 3));
    int64_t xd[2] = {-1, 3};
    const char *params[2] = {"N", NULL};
    input("x", 2, xd, params);
    output("y");
    cairn_graph_t *g = NULL;
    CHECK_OK(load_file("basic.onnx", &g));
    if (!g)
        return;
    const ir_graph_t *ir = cairn_graph_ir(g);
    CHECK(ir->n_nodes == 2);
    CHECK(ir->n_symbols == 1 && !strcmp(ir->symbols[0], "N"));
    int found_add = 0, found_relu = 0;
    for (int i = 0; i < ir->n_nodes; i++)
        for (int k = 0; k < ir->nodes[i].n_sources; k++) {
            found_add |= !strcmp(ir->nodes[i].sources[k], "Add_1");
            found_relu |= !strcmp(ir->nodes[i].sources[k], "relu");
        }
    CHECK(found_add && found_relu);
    float x[6] = {0, 0, 0, -2, 3, -1}, y[6];
    int64_t shape[2] = {2, 3};
    if (run1(g, 2, shape, x, y, 6)) {
        const double want[6] = {1, 0, 0.5, 0, 1, 0};
        check_close_f32(y, want, 6, 0, 0, "basic");
    }
    cairn_graph_destroy(g);
}

/* Constant nodes (value_ints feeding Reshape, value_float feeding Mul). */
static void test_constants(void)
{
    model_new(13);
    Onnx__NodeProto *c = node("Constant", "shape", NULL, NULL, "shp");
    int64_t sv[2] = {3, 2};
    attr_ints(c, "value_ints", sv, 2);
    Onnx__NodeProto *k = node("Constant", "k", NULL, NULL, "kk");
    Onnx__AttributeProto *a = attr(k, "value_float", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1, a->f = 2.0f;
    node("Reshape", "r", "x", "shp", "xr");
    node("Mul", "m", "xr", "kk", "y");
    int64_t xd[2] = {2, 3};
    input("x", 2, xd, NULL);
    output("y");
    cairn_graph_t *g = NULL;
    CHECK_OK(load(&g));
    float x[6] = {1, 2, 3, 4, 5, 6}, y[6];
    if (g && run1(g, 2, xd, x, y, 6)) {
        const double want[6] = {2, 4, 6, 8, 10, 12};
        check_close_f32(y, want, 6, 0, 0, "constants");
    }
    cairn_graph_destroy(g);

    model_new(13);
    c = node("Constant", "s", NULL, NULL, "y");
    a = attr(c, "value_string", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1, a->s.data = (uint8_t *)S("hi"), a->s.len = 2;
    output("y");
    g = NULL;
    CHECK_FAILS(load(&g), CAIRN_ERR_UNSUPPORTED, "value_string");
    CHECK(g == NULL);
}

/* Older opset forms: Squeeze-11 axes attribute, Add-6 broadcast with axis,
 * Softmax-11 coercion to 2-D. */
static void test_old_opsets(void)
{
    /* Squeeze-11 with axes=[1] on [2,1,3] */
    model_new(11);
    Onnx__NodeProto *n = node("Squeeze", "sq", "x", NULL, "y");
    int64_t ax[1] = {1};
    attr_ints(n, "axes", ax, 1);
    int64_t xd[3] = {2, 1, 3};
    input("x", 3, xd, NULL);
    output("y");
    cairn_graph_t *g = NULL;
    CHECK_OK(load(&g));
    if (g) {
        const ir_graph_t *ir = cairn_graph_ir(g);
        const ir_shape_t *sh = &ir->values[ir->outputs[0]].type.shape;
        CHECK(sh->rank == 2 && sh->d[0] == 2 && sh->d[1] == 3);
    }
    cairn_graph_destroy(g);

    /* Add-6: x [2,3,2] + b [3] with broadcast=1, axis=1 adds b along dim 1 */
    model_new(6);
    n = node("Add", "add", "x", "b", "y");
    attr_int(n, "broadcast", 1);
    attr_int(n, "axis", 1);
    float b[3] = {10, 20, 30};
    int64_t bd[1] = {3};
    initializer(tensor_f32("b", 1, bd, b, 3));
    int64_t x3[3] = {2, 3, 2};
    input("x", 3, x3, NULL);
    output("y");
    g = NULL;
    CHECK_OK(load(&g));
    float x[12], y[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;
    if (g && run1(g, 3, x3, x, y, 12)) {
        double want[12];
        for (int i = 0; i < 12; i++)
            want[i] = i + b[(i / 2) % 3];
        check_close_f32(y, want, 12, 0, 0, "Add-6 broadcast axis");
    }
    cairn_graph_destroy(g);

    /* Softmax-11, axis=1 on [2,2,3]: normalised over the 6 trailing values */
    model_new(11);
    n = node("Softmax", "sm", "x", NULL, "y");
    attr_int(n, "axis", 1);
    int64_t sd[3] = {2, 2, 3};
    input("x", 3, sd, NULL);
    output("y");
    g = NULL;
    CHECK_OK(load(&g));
    check_rng_t r = {7};
    check_fill_f32(&r, x, 12, -2, 2);
    if (g && run1(g, 3, sd, x, y, 12)) {
        double want[12];
        for (int row = 0; row < 2; row++) {
            double mx = -1e300, sum = 0;
            for (int i = 0; i < 6; i++)
                mx = fmax(mx, x[row * 6 + i]);
            for (int i = 0; i < 6; i++)
                sum += exp(x[row * 6 + i] - mx);
            for (int i = 0; i < 6; i++)
                want[row * 6 + i] = exp(x[row * 6 + i] - mx) / sum;
        }
        check_close_f32(y, want, 12, 1e-6, 1e-5, "Softmax-11 axis 1");
    }
    cairn_graph_destroy(g);
}

/* External data inside the folder works; '..', absolute paths and symlinks
 * leaving it are refused. */
static void add_external(const char *location)
{
    int64_t wd[1] = {3};
    Onnx__TensorProto *t = tensor_f32("W", 1, wd, NULL, 0);
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    t->external_data = A(2 * sizeof(void *));
    Onnx__StringStringEntryProto *e = A(sizeof *e);
    onnx__string_string_entry_proto__init(e);
    e->key = S("location"), e->value = S(location);
    t->external_data[t->n_external_data++] = e;
    initializer(t);
}

static void external_model(const char *location)
{
    model_new(13);
    node("Add", "add", "x", "W", "y");
    add_external(location);
    int64_t xd[1] = {3};
    input("x", 1, xd, NULL);
    output("y");
}

static void test_external(void)
{
    float w[3] = {1, 2, 3};
    FILE *f = fopen(tmp("w.bin"), "wb");
    fwrite(w, sizeof w, 1, f);
    fclose(f);
    external_model("w.bin");
    cairn_graph_t *g = NULL;
    CHECK_OK(load_file("ext.onnx", &g));
    float x[3] = {1, 1, 1}, y[3];
    int64_t xd[1] = {3};
    if (g && run1(g, 1, xd, x, y, 3)) {
        const double want[3] = {2, 3, 4};
        check_close_f32(y, want, 3, 0, 0, "external data");
    }
    cairn_graph_destroy(g);

    g = NULL;
    external_model("../w.bin");
    CHECK_FAILS(load_file("ext.onnx", &g), CAIRN_ERR_PARSE, "'..'");
    external_model("/etc/passwd");
    CHECK_FAILS(load_file("ext.onnx", &g), CAIRN_ERR_PARSE, "absolute");
    unlink(tmp("link.bin"));
    CHECK(symlink("/etc/hostname", tmp("link.bin")) == 0);
    external_model("link.bin");
    CHECK_FAILS(load_file("ext.onnx", &g), CAIRN_ERR_PARSE, "outside");
    external_model("missing.bin");
    CHECK_FAILS(load_file("ext.onnx", &g), CAIRN_ERR_IO, "missing.bin");
    /* too short: 2 floats for a [3] tensor */
    f = fopen(tmp("w.bin"), "wb");
    fwrite(w, sizeof(float), 2, f);
    fclose(f);
    external_model("w.bin");
    CHECK_FAILS(load_file("ext.onnx", &g), CAIRN_ERR_PARSE, "too few");
    CHECK(g == NULL);
    unlink(tmp("link.bin"));
    unlink(tmp("w.bin"));
    unlink(tmp("ext.onnx"));
    unlink(tmp("basic.onnx"));
}

/* ---- malformed models ---- */

static void simple_model(void)
{
    model_new(13);
    node("Relu", "relu", "x", NULL, "y");
    int64_t xd[1] = {4};
    input("x", 1, xd, NULL);
    output("y");
}

static void test_malformed(void)
{
    cairn_graph_t *g = NULL;
    const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x99};
    CHECK_FAILS(onnx_model_load_buffer(garbage, sizeof garbage, NULL, "garbage", &g),
                CAIRN_ERR_PARSE, "not a valid ONNX model");
    CHECK_FAILS(onnx_model_load_buffer(NULL, 0, NULL, "empty", &g), CAIRN_ERR_PARSE, "no graph");

    /* every truncation of a valid model fails cleanly or loads */
    simple_model();
    size_t len;
    uint8_t *b = pack(&len);
    arena_free();
    int failed = 0;
    for (size_t cut = 0; cut < len; cut++) {
        cairn_status_t s = onnx_model_load_buffer(b, cut, NULL, "cut", &g);
        if (s != CAIRN_OK)
        {
            failed++;
            CHECK(cairn_last_error()[0] != 0);
        }
        else
            cairn_graph_destroy(g);
        g = NULL;
    }
    CHECK(failed > 0);
    free(b);

    CHECK_FAILS(cairn_graph_load_onnx("/nonexistent/m.onnx", &g), CAIRN_ERR_IO, "cannot open");

    /* negative dims in an initializer */
    model_new(13);
    node("Add", "add", "x", "W", "y");
    int64_t bad[1] = {-3};
    initializer(tensor_f32("W", 1, bad, NULL, 0));
    int64_t xd[1] = {3};
    input("x", 1, xd, NULL);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_PARSE, "dimension 0 is -3");

    /* dims whose product overflows */
    model_new(13);
    node("Add", "add", "x", "W", "y");
    int64_t huge[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 4};
    initializer(tensor_f32("W", 3, huge, NULL, 0));
    input("x", 1, xd, NULL);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_PARSE, "overflows");

    /* raw data shorter than the shape */
    model_new(13);
    node("Add", "add", "x", "W", "y");
    float w[2] = {1, 2};
    initializer(tensor_f32("W", 1, xd, w, 2));
    input("x", 1, xd, NULL);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_PARSE, "raw_data has 8 bytes");

    /* negative dim in a graph input */
    model_new(13);
    node("Relu", "relu", "x", NULL, "y");
    Onnx__ValueInfoProto *vi = vinfo("x", CAIRN_F32, 1, xd, NULL);
    vi->type->tensor_type->shape->dim[0]->dim_value = -5;
    G->input[G->n_input++] = vi;
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_PARSE, "dimension 0 is -5");

    /* a missing value */
    model_new(13);
    node("Add", "add", "x", "nowhere", "y");
    input("x", 1, xd, NULL);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_GRAPH, "'nowhere'");

    /* a cycle */
    model_new(13);
    node("Add", "a1", "x", "t2", "t1");
    node("Relu", "a2", "t1", NULL, "t2");
    node("Relu", "out", "t1", NULL, "y");
    input("x", 1, xd, NULL);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_GRAPH, "cycle");

    /* two nodes writing one name */
    model_new(13);
    node("Relu", "r1", "x", NULL, "y");
    node("Neg", "r2", "x", NULL, "y");
    input("x", 1, xd, NULL);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_GRAPH, "output 'y' is already the output of node 'r1'");

    /* a graph output nobody produces */
    simple_model();
    output("zz");
    CHECK_FAILS(load(&g), CAIRN_ERR_GRAPH, "'zz'");

    /* a declared type that disagrees with the producer */
    simple_model();
    G->output[0] = vinfo("y", CAIRN_I64, 1, xd, NULL);
    CHECK_FAILS(load(&g), CAIRN_ERR_GRAPH, "declared with element type 7");

    /* an unknown domain and missing ops, all named at once */
    model_new(13);
    Onnx__NodeProto *n = node("Frobnicate", "f1", "x", NULL, "t1");
    n->domain = S("com.example");
    node("NoSuchOp", "n1", "t1", NULL, "t2");
    node("NoSuchOp", "n2", "t2", NULL, "t3");
    node("OtherMissing", "o1", "t3", NULL, "y");
    input("x", 1, xd, NULL);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_UNSUPPORTED, "3 ops");
    const char *msg = cairn_last_error();
    CHECK(strstr(msg, "com.example") && strstr(msg, "'f1'"));
    CHECK(strstr(msg, "NoSuchOp-13") && strstr(msg, "'n1'") && strstr(msg, "'n2'"));
    CHECK(strstr(msg, "OtherMissing-13") && strstr(msg, "'o1'"));

    /* opsets out of range */
    simple_model();
    M->opset_import[0]->version = 99;
    CHECK_FAILS(load(&g), CAIRN_ERR_UNSUPPORTED, "opset 99");
    CHECK(g == NULL);
}

/* ---- onnxruntime's quantised contrib ops (domain com.microsoft) ---- */

/* a node of n inputs ("" omits one) in domain com.microsoft */
static Onnx__NodeProto *ms_node(const char *op, const char *name, const char *const *ins, int n,
                                const char *out)
{
    Onnx__NodeProto *nd = node(op, name, NULL, NULL, out);
    nd->domain = S("com.microsoft");
    nd->input = A((size_t)n * sizeof(char *));
    for (int i = 0; i < n; i++)
        nd->input[nd->n_input++] = S(ins[i]);
    return nd;
}

/* an initializer of any element type from raw bytes */
static void init_raw(const char *name, int dtype, int rank, const int64_t *dims, const void *v,
                     size_t bytes)
{
    static const int64_t scalar_dims[1] = {0};
    Onnx__TensorProto *t = tensor_f32(name, rank, dims ? dims : scalar_dims, NULL, 0);
    t->data_type = dtype;
    t->has_raw_data = 1;
    t->raw_data.len = bytes;
    t->raw_data.data = A(bytes);
    memcpy(t->raw_data.data, v, bytes);
    initializer(t);
}

static void init_f32(const char *name, float v) { init_raw(name, CAIRN_F32, 0, NULL, &v, 4); }

static float rne(float v) { return nearbyintf(v); }

static void test_contrib(void)
{
    cairn_graph_t *g = NULL;
    cairn_session_t *ss = NULL;
    int64_t d6[1] = {6};

    /* QLinearAdd of int8 tensors without C's zero point: the output is
     * int8 too, q = saturate(round(((a - za) sa + (b - zb) sb) / sc)), the
     * formula in f32 operations, bit for bit */
    const int8_t a[6] = {-128, -3, 0, 7, 100, 127}, b[6] = {127, 5, -1, -60, 100, -128};
    const int8_t za = 3, zb = -2;
    const float sa = 0.05f, sb = 0.031f, sc = 0.07f;
    model_new(13);
    const char *ins[7] = {"a", "sa", "za", "b", "sb", "zb", "sc"};
    ms_node("QLinearAdd", "qadd", ins, 7, "y");
    G->input[G->n_input++] = vinfo("a", CAIRN_I8, 1, d6, NULL);
    init_f32("sa", sa), init_f32("sb", sb), init_f32("sc", sc);
    init_raw("za", CAIRN_I8, 0, NULL, &za, 1), init_raw("zb", CAIRN_I8, 0, NULL, &zb, 1);
    init_raw("b", CAIRN_I8, 1, d6, b, 6);
    output("y");
    CHECK_OK(load(&g));
    if (g) {
        CHECK_OK(cairn_session_create(g, NULL, &ss));
        cairn_tensor_t in = {CAIRN_I8, 1, {6}, (void *)a}, out = {0};
        if (ss && cairn_session_run(ss, &in, 1, &out, 1) == CAIRN_OK) {
            CHECK(out.dtype == CAIRN_I8 && cairn_tensor_numel(&out) == 6);
            for (int i = 0; i < 6 && out.dtype == CAIRN_I8; i++) {
                float v = rne(((float)(a[i] - za) * sa + (float)(b[i] - zb) * sb) / sc);
                v = v < -128 ? -128 : v > 127 ? 127 : v;
                CHECK(((const int8_t *)out.data)[i] == (int8_t)v);
            }
        } else {
            CHECK(0);
        }
        cairn_session_destroy(ss), ss = NULL;
        cairn_graph_destroy(g), g = NULL;
    }

    /* QGemm with Bᵀ, per-column scales and zero points, an int32 C and
     * alpha, no y_scale: float Y = alpha sa sb[n] (sum (a - za)(b - zb) + C[n]) */
    const uint8_t qa[2 * 3] = {0, 17, 255, 128, 3, 90}, qza = 128;
    const int8_t qb[4 * 3] = {1, -2, 3, -128, 127, 0, 5, 5, 5, -7, 0, 9}, qzb[4] = {0, 1, -1, 2};
    const float qsa = 0.02f, qsb[4] = {0.1f, 0.05f, 0.2f, 0.01f}, alpha = 0.5f;
    const int32_t qc[4] = {100, -2000, 0, 77};
    int64_t d23[2] = {2, 3}, d43[2] = {4, 3}, d4[1] = {4};
    model_new(13);
    const char *gins[7] = {"A", "sa", "za", "B", "sb", "zb", "C"};
    Onnx__NodeProto *qg = ms_node("QGemm", "qgemm", gins, 7, "Y");
    attr_int(qg, "transB", 1);
    Onnx__AttributeProto *al = attr(qg, "alpha", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    al->has_f = 1, al->f = alpha;
    G->input[G->n_input++] = vinfo("A", CAIRN_U8, 2, d23, NULL);
    init_f32("sa", qsa);
    init_raw("za", CAIRN_U8, 0, NULL, &qza, 1);
    init_raw("B", CAIRN_I8, 2, d43, qb, sizeof qb);
    init_raw("sb", CAIRN_F32, 1, d4, qsb, sizeof qsb);
    init_raw("zb", CAIRN_I8, 1, d4, qzb, sizeof qzb);
    init_raw("C", CAIRN_I32, 1, d4, qc, sizeof qc);
    output("Y");
    CHECK_OK(load(&g));
    if (g) {
        CHECK_OK(cairn_session_create(g, NULL, &ss));
        cairn_tensor_t in = {CAIRN_U8, 2, {2, 3}, (void *)qa}, out = {0};
        if (ss && cairn_session_run(ss, &in, 1, &out, 1) == CAIRN_OK) {
            CHECK(out.dtype == CAIRN_F32 && out.rank == 2 && out.shape[0] == 2 &&
                  out.shape[1] == 4);
            for (int m = 0; m < 2 && out.dtype == CAIRN_F32; m++)
                for (int n = 0; n < 4; n++) {
                    double acc = qc[n];
                    for (int k = 0; k < 3; k++)
                        acc += (double)(qa[m * 3 + k] - qza) * (qb[n * 3 + k] - qzb[n]);
                    double want = alpha * (double)qsa * qsb[n] * acc;
                    double got = ((const float *)out.data)[m * 4 + n];
                    CHECK(fabs(got - want) <= 1e-5 * (1 + fabs(want)));
                }
        } else {
            CHECK(0);
        }
        cairn_session_destroy(ss), ss = NULL;
        cairn_graph_destroy(g), g = NULL;
    }

    /* what cairn does not run, or cannot, is named */
    model_new(13);
    const char *qi[3] = {"x", "x", "x"};
    ms_node("QAttention", "qatt", qi, 3, "y");
    G->input[G->n_input++] = vinfo("x", CAIRN_U8, 1, d6, NULL);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_UNSUPPORTED, "QAttention (domain 'com.microsoft')");
    CHECK(strstr(cairn_last_error(), "QLinearAdd") && strstr(cairn_last_error(), "'qatt'"));

    model_new(13); /* too few inputs */
    ms_node("QLinearAdd", "short", ins, 5, "y");
    G->input[G->n_input++] = vinfo("a", CAIRN_U8, 1, d6, NULL);
    init_f32("sa", sa), init_f32("sb", sb);
    init_raw("za", CAIRN_U8, 0, NULL, &za, 1);
    init_raw("b", CAIRN_U8, 1, d6, b, 6);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_GRAPH, "node 'short' (com.microsoft QLinearAdd): needs at "
                                           "least 7 inputs");

    model_new(13); /* float data */
    const char *fins[5] = {"x", "s", "", "s", ""};
    ms_node("QLinearSigmoid", "fsig", fins, 5, "y");
    input("x", 1, d6, NULL);
    init_f32("s", 0.1f);
    output("y");
    CHECK_FAILS(load(&g), CAIRN_ERR_DTYPE, "input 0 must be uint8 or int8, not f32");

    model_new(13); /* y_scale without y_zero_point */
    const char *yins[8] = {"A", "sa", "za", "B", "sb", "zb", "", "sa"};
    ms_node("QGemm", "noyz", yins, 8, "Y");
    G->input[G->n_input++] = vinfo("A", CAIRN_U8, 2, d23, NULL);
    init_f32("sa", qsa);
    init_raw("za", CAIRN_U8, 0, NULL, &qza, 1);
    init_raw("B", CAIRN_I8, 2, d43, qb, sizeof qb);
    init_raw("sb", CAIRN_F32, 1, d4, qsb, sizeof qsb);
    init_raw("zb", CAIRN_I8, 1, d4, qzb, sizeof qzb);
    output("Y");
    CHECK_FAILS(load(&g), CAIRN_ERR_UNSUPPORTED, "y_scale without y_zero_point");
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cairn_onnx_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_basic();
    test_constants();
    test_old_opsets();
    test_external();
    test_malformed();
    test_contrib();
    rmdir(tmpdir);
    return check_finish("test_onnx_loader");
}
