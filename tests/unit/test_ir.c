/* The IR below the public API: the op table's guard, the verifier on
 * graphs the API cannot build (cycles, dangling values), shape helpers. */
#include "check.h"
#include "ir/op_table.h"

static void test_op_table(void)
{
    CHECK(IR_OP_COUNT > 0);
    for (int i = 0; i < IR_OP_COUNT; i++) {
        const ir_op_def_t *d = ir_op_def(i);
        CHECK_MSG(d->name && d->infer && d->exec && d->cost && d->workspace && d->attrs,
                  "op %d has an empty column", i);
        CHECK_MSG(d->min_in >= 0 && d->min_in <= d->max_in && d->min_out >= 1 &&
                      d->min_out <= d->max_out,
                  "op %s: bad arity", d->name);
        CHECK_MSG(ir_op_find(d->name) == i, "op %s: name is not unique", d->name);
        int na = ir_op_attr_count(d);
        for (int a = 0; a < na; a++) {
            CHECK_MSG(d->attrs[a].type >= CAIRN_ATTR_INT && d->attrs[a].type <= CAIRN_ATTR_TENSOR,
                      "op %s attribute %s: bad type", d->name, d->attrs[a].name);
            for (int b = a + 1; b < na; b++)
                CHECK_MSG(strcmp(d->attrs[a].name, d->attrs[b].name) != 0,
                          "op %s: attribute %s twice", d->name, d->attrs[a].name);
        }
        CHECK(strcmp(ir_fusion_name(d->fusion), "?") != 0);
    }
    CHECK(ir_op_find("Identity") == IR_OP_Identity);
    CHECK(ir_op_find("identity") == -1);
    CHECK(ir_op_find(NULL) == -1);
}

static ir_type_t f32_type(int rank, const int64_t *d)
{
    ir_type_t t;
    memset(&t, 0, sizeof t);
    t.dtype = CAIRN_F32;
    t.shape.rank = rank;
    for (int i = 0; i < rank; i++)
        t.shape.d[i] = d[i];
    return t;
}

static void test_verifier(void)
{
    ir_graph_t *g;
    CHECK_OK(ir_graph_create(&g));
    int64_t d[1] = {3};
    ir_type_t t = f32_type(1, d);
    int x, a, b;
    CHECK_OK(ir_graph_add_input(g, "x", &t, &x));
    CHECK_OK(ir_graph_add_node(g, IR_OP_Identity, "n0", &x, 1, NULL, 0, 1, NULL, &a));
    CHECK_OK(ir_graph_add_node(g, IR_OP_Identity, "n1", &a, 1, NULL, 0, 1, NULL, &b));
    CHECK_OK(ir_graph_mark_output(g, b));
    CHECK_OK(ir_verify(g));

    /* a cycle: n0 reads n1's output */
    g->nodes[0].inputs[0] = b;
    CHECK_FAILS(ir_verify(g), CAIRN_ERR_GRAPH, "cycle");
    g->nodes[0].inputs[0] = x;
    /* a dangling value: produced by no node */
    g->values[a].producer = -1;
    CHECK_FAILS(ir_verify(g), CAIRN_ERR_GRAPH, "dangling");
    g->values[a].producer = 0;
    /* an undefined input */
    g->nodes[1].inputs[0] = 77;
    CHECK_FAILS(ir_verify(g), CAIRN_ERR_GRAPH, "undefined");
    g->nodes[1].inputs[0] = a;
    /* a recorded type that inference disagrees with */
    g->values[b].type.shape.d[0] = 4;
    CHECK_FAILS(ir_verify(g), CAIRN_ERR_SHAPE, "infers");
    g->values[b].type.shape.d[0] = 3;
    /* a duplicated name */
    char *old = g->values[b].name;
    g->values[b].name = g->values[a].name;
    CHECK_FAILS(ir_verify(g), CAIRN_ERR_GRAPH, "twice");
    g->values[b].name = old;
    CHECK_OK(ir_verify(g));

    /* clone is deep and equal */
    ir_graph_t *c;
    CHECK_OK(ir_graph_clone(g, &c));
    char *p1, *p2;
    CHECK_OK(ir_print(g, &p1));
    CHECK_OK(ir_print(c, &p2));
    CHECK(strcmp(p1, p2) == 0);
    CHECK(c->values[0].name != g->values[0].name);
    free(p1);
    free(p2);
    ir_graph_destroy(c);
    ir_graph_destroy(g);
    CHECK_FAILS(ir_verify(NULL), CAIRN_ERR_INVALID_ARGUMENT, NULL);
}

static void test_shapes(void)
{
    ir_shape_t a = {3, {2, 1, 4}}, b = {2, {3, 1}}, o;
    CHECK_OK(ir_shape_broadcast(&a, &b, &o));
    CHECK(o.rank == 3 && o.d[0] == 2 && o.d[1] == 3 && o.d[2] == 4);
    ir_shape_t c = {1, {5}};
    CHECK_FAILS(ir_shape_broadcast(&a, &c, &o), CAIRN_ERR_SHAPE, "broadcast");
    ir_shape_t s = {2, {IR_DIM_SYM(0), 4}}, t = {2, {1, 4}};
    CHECK_OK(ir_shape_broadcast(&s, &t, &o));
    CHECK(o.d[0] == IR_DIM_SYM(0) && o.d[1] == 4);
    ir_shape_t u = {2, {IR_DIM_SYM(1), 4}};
    CHECK_OK(ir_shape_broadcast(&s, &u, &o));
    CHECK(o.d[0] == IR_DIM_UNKNOWN);
    ir_shape_t e = {0, {0}};
    CHECK(ir_shape_numel(&e) == 1);
    ir_shape_t big = {3, {INT64_MAX / 2, 3, 1}};
    CHECK(ir_shape_numel(&big) == -1);
    int ax;
    CHECK_OK(ir_norm_axis(-1, 3, &ax));
    CHECK(ax == 2);
    CHECK_FAILS(ir_norm_axis(3, 3, &ax), CAIRN_ERR_SHAPE, "axis 3");
    char buf[64];
    CHECK(strcmp(ir_shape_str(NULL, &s, buf, sizeof buf), "[$0,4]") == 0);
}

int main(void)
{
    test_op_table();
    test_verifier();
    test_shapes();
    return check_finish("test_ir");
}
