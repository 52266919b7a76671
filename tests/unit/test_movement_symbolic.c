/* Movement ops with symbolic dims: what build-time (partial) inference keeps,
 * and shape chains (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Range
 * over Size) that the runtime folds at plan time, run at several sizes in
 * one session. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static cairn_value_id cst_i64(cairn_graph_t *g, const char *name, const int64_t *v, int n, int rank)
{
    cairn_tensor_t t = {CAIRN_I64, rank, {n}, (void *)v};
    cairn_value_id id = -1;
    CHECK_OK(cairn_graph_add_constant(g, name, &t, &id));
    return id;
}

static cairn_value_id node1(cairn_graph_t *g, const char *op, const char *name,
                            const cairn_value_id *in, int n_in, const cairn_attr_t *attrs,
                            int n_attrs)
{
    cairn_value_id out = -1;
    CHECK_OK(cairn_graph_add_node(g, op, name, in, n_in, attrs, n_attrs, &out, 1, NULL));
    return out;
}

/* The line of the listing that mentions `needle` must also contain `want`. */
static void check_line(const char *text, const char *needle, const char *want)
{
    const char *p = strstr(text, needle);
    CHECK_MSG(p != NULL, "listing has no '%s'", needle);
    if (!p)
        return;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char line[512];
    if (len >= sizeof line)
        len = sizeof line - 1;
    memcpy(line, p, len);
    line[len] = 0;
    CHECK_MSG(strstr(line, want) != NULL, "'%s' should show %s: %s", needle, want, line);
}

static void test_partial_shapes(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dims[3] = {0, 0, 768};
    const char *names[3] = {"batch", "seq", NULL};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 3, dims, names, &x));
    /* [batch,seq,768] -> [0,0,12,64] keeps both symbols */
    const int64_t s1[4] = {0, 0, 12, 64}, s2[3] = {0, -1, 64}, s3[3] = {0, 0, -1};
    cairn_value_id in1[2] = {x, cst_i64(g, "s1", s1, 4, 1)};
    cairn_value_id heads = node1(g, "Reshape", "heads", in1, 2, NULL, 0);
    cairn_value_id in2[2] = {x, cst_i64(g, "s2", s2, 3, 1)};
    node1(g, "Reshape", "r2", in2, 2, NULL, 0);
    /* [batch,seq,12,64] -> [0,0,-1]: the symbols cancel, -1 = 768 */
    cairn_value_id in3[2] = {heads, cst_i64(g, "s3", s3, 3, 1)};
    node1(g, "Reshape", "merged", in3, 2, NULL, 0);
    /* [batch,seq,12,64] -> [0,-1,768]: the -1 stands for seq */
    const int64_t s4[3] = {0, -1, 768};
    cairn_value_id in4[2] = {heads, cst_i64(g, "s4", s4, 3, 1)};
    node1(g, "Reshape", "back", in4, 2, NULL, 0);
    int64_t perm[4] = {0, 2, 1, 3};
    cairn_attr_t ap = cairn_attr_ints("perm", perm, 4);
    cairn_value_id tr = node1(g, "Transpose", "tr", &heads, 1, &ap, 1);
    cairn_attr_t fa = cairn_attr_int("axis", 2);
    node1(g, "Flatten", "fl", &tr, 1, &fa, 1);
    const int64_t ax0[1] = {0};
    cairn_value_id inu[2] = {x, cst_i64(g, "ax0", ax0, 1, 1)};
    cairn_value_id un = node1(g, "Unsqueeze", "un", inu, 2, NULL, 0);
    cairn_value_id ins[2] = {un, cst_i64(g, "ax0b", ax0, 1, 1)};
    node1(g, "Squeeze", "sq", ins, 2, NULL, 0);
    node1(g, "Squeeze", "sqall", &x, 1, NULL, 0);
    cairn_value_id cc[2] = {x, x};
    cairn_attr_t c1 = cairn_attr_int("axis", 1), c2 = cairn_attr_int("axis", 2);
    node1(g, "Concat", "cat_seq", cc, 2, &c1, 1);
    node1(g, "Concat", "cat_feat", cc, 2, &c2, 1);
    /* slicing the whole symbolic axis keeps it; a part of it does not */
    const int64_t st[1] = {0}, en[1] = {INT64_MAX}, en2[1] = {-1}, ax1[1] = {1};
    cairn_value_id sl[4] = {x, cst_i64(g, "st", st, 1, 1), cst_i64(g, "en", en, 1, 1),
                            cst_i64(g, "ax1", ax1, 1, 1)};
    node1(g, "Slice", "sl_all", sl, 4, NULL, 0);
    sl[2] = cst_i64(g, "en2", en2, 1, 1);
    node1(g, "Slice", "sl_part", sl, 4, NULL, 0);
    cairn_value_id shp = node1(g, "Shape", "shape", &x, 1, NULL, 0);
    const int64_t idx[2] = {0, -1};
    cairn_value_id gi[2] = {x, cst_i64(g, "idx", idx, 2, 1)};
    node1(g, "Gather", "gat", gi, 2, &c1, 1);
    const int64_t ex[4] = {2, 1, 1, 1};
    cairn_value_id ei[2] = {x, cst_i64(g, "ex", ex, 4, 1)};
    node1(g, "Expand", "exp", ei, 2, NULL, 0);
    /* a Reshape whose shape is computed: rank known from the shape's length, dims not */
    cairn_value_id rr[2] = {x, shp};
    cairn_value_id dyn = node1(g, "Reshape", "dyn", rr, 2, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, dyn));

    char *text = NULL;
    CHECK_OK(cairn_graph_print(g, &text));
    if (text) {
        check_line(text, "heads:0", "[batch,seq,12,64]");
        check_line(text, "r2:0", "[batch,?,64]");
        check_line(text, "merged:0", "[batch,seq,768]");
        check_line(text, "back:0", "[batch,seq,768]");
        check_line(text, "tr:0", "[batch,12,seq,64]");
        check_line(text, "fl:0", "[?,?]");
        check_line(text, "un:0", "[1,batch,seq,768]");
        check_line(text, "sq:0", "[batch,seq,768]");
        check_line(text, "sqall:0", "[?rank]");
        check_line(text, "cat_seq:0", "[batch,?,768]");
        check_line(text, "cat_feat:0", "[batch,seq,1536]");
        check_line(text, "sl_all:0", "[batch,seq,768]");
        check_line(text, "sl_part:0", "[batch,?,768]");
        check_line(text, "shape:0", "[3]");
        check_line(text, "gat:0", "[batch,2,768]");
        check_line(text, "exp:0", "[2,batch,seq,768]");
        check_line(text, "dyn:0", "[?,?,?]");
    }
    free(text);
    /* a Squeeze of a static dim that is not 1 fails at build time */
    const int64_t ax2[1] = {2};
    cairn_value_id bad[2] = {x, cst_i64(g, "ax2", ax2, 1, 1)};
    cairn_value_id out;
    CHECK_FAILS(cairn_graph_add_node(g, "Squeeze", "bad", bad, 2, NULL, 0, &out, 1, NULL),
                CAIRN_ERR_SHAPE, "size 768");
    cairn_graph_destroy(g);
}

/* x: [seq, 4] -> Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [2], [2])) -> [seq,2,2],
 * plus Range(0, Size(x), 1) -> [4*seq]; everything but the Reshape copy folds. */
static void test_folded_chain(void)
{
    cairn_graph_t *g;
    CHECK_OK(cairn_graph_create(&g));
    int64_t dims[2] = {0, 4};
    const char *names[2] = {"seq", NULL};
    cairn_value_id x;
    CHECK_OK(cairn_graph_add_input(g, "x", CAIRN_F32, 2, dims, names, &x));
    cairn_value_id shp = node1(g, "Shape", "shape", &x, 1, NULL, 0);
    const int64_t zero = 0, two[1] = {2}, ax0[1] = {0};
    cairn_value_id gi[2] = {shp, cst_i64(g, "i0", &zero, 0, 0)};
    cairn_value_id seq = node1(g, "Gather", "gather", gi, 2, NULL, 0);
    cairn_value_id ui[2] = {seq, cst_i64(g, "ax0", ax0, 1, 1)};
    cairn_value_id seq1 = node1(g, "Unsqueeze", "unsq", ui, 2, NULL, 0);
    cairn_value_id two_id = cst_i64(g, "two", two, 1, 1);
    cairn_value_id ci[3] = {seq1, two_id, two_id};
    cairn_attr_t a0 = cairn_attr_int("axis", 0);
    cairn_value_id tgt = node1(g, "Concat", "concat", ci, 3, &a0, 1);
    cairn_value_id ri[2] = {x, tgt};
    cairn_value_id y = node1(g, "Reshape", "reshape", ri, 2, NULL, 0);
    cairn_value_id sz = node1(g, "Size", "size", &x, 1, NULL, 0);
    const int64_t one = 1;
    cairn_value_id rgi[3] = {cst_i64(g, "zero", &zero, 0, 0), sz, cst_i64(g, "one", &one, 0, 0)};
    cairn_value_id rg = node1(g, "Range", "range", rgi, 3, NULL, 0);
    CHECK_OK(cairn_graph_mark_output(g, y));
    CHECK_OK(cairn_graph_mark_output(g, rg));
    cairn_session_t *s;
    CHECK_OK(cairn_session_create(g, NULL, &s));
    cairn_graph_destroy(g);
    const int seqs[3] = {3, 5, 3};
    for (int k = 0; k < 3; k++) {
        int n = seqs[k];
        float in[64];
        for (int i = 0; i < 4 * n; i++)
            in[i] = (float)(i * 3 + k);
        cairn_tensor_t ti = {CAIRN_F32, 2, {n, 4}, in};
        cairn_tensor_t to[2];
        memset(to, 0, sizeof to);
        CHECK_OK(cairn_session_run(s, &ti, 1, to, 2));
        if (!to[0].data || !to[1].data)
            continue;
        CHECK(to[0].rank == 3 && to[0].shape[0] == n && to[0].shape[1] == 2 &&
              to[0].shape[2] == 2);
        CHECK(memcmp(to[0].data, in, (size_t)(4 * n) * sizeof(float)) == 0);
        CHECK(to[1].rank == 1 && to[1].shape[0] == 4 * n);
        int ok = 1;
        for (int i = 0; i < 4 * n; i++)
            ok &= ((int64_t *)to[1].data)[i] == i;
        CHECK(ok);
        cairn_plan_info_t info;
        CHECK_OK(cairn_session_plan_info(s, &info));
        CHECK_MSG(info.steps == 1, "steps = %d (everything but the Reshape should fold)",
                  info.steps);
    }
    cairn_session_destroy(s);
}

int main(void)
{
    test_partial_shapes();
    test_folded_chain();
    return check_finish("test_movement_symbolic");
}
