/*
 * Canonicalisation: the patterns PyTorch's exporter writes for ops ONNX (at
 * the opsets it targets) had no single node for, turned back into one node
 * of the op cairn has a kernel for.
 *
 *   LayerNorm:  m = ReduceMean(x); d = x - m; v = ReduceMean(d^2);
 *               y = d / Sqrt(v + eps) [* gamma] [+ beta]
 *               -> LayerNormalization(x, gamma, beta, axis, epsilon)
 *   GELU (erf): x * 0.5 * (1 + Erf(x / sqrt 2))   (x/sqrt2 also as x*(1/sqrt2);
 *               the three products in any order) -> Gelu(x)
 *   GELU (tanh): x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
 *               (x^3 as Pow(x, 3) or x*(x*x)) -> Gelu(x, approximate = tanh)
 *   RMSNorm:    s = ReduceMean(x^2) over trailing axes (keepdims), x^2 as
 *               Pow(x, 2) or x*x; r = s + eps; then x / Sqrt(r), or
 *               x * (1 / Sqrt(r)), x * Reciprocal(Sqrt(r)), x * Pow(r, -0.5)
 *               (products in either order); [* weight]
 *               -> RMSNormalization(x, weight or ones, axis, epsilon)
 *   SiLU:       x * Sigmoid(x) (either order) -> Swish(x) (alpha = 1)
 *
 * A pattern is rewritten only when none of its intermediate values is used
 * outside it or is a graph output. Constants are compared with a relative
 * tolerance of 1e-3: exporters round them differently.
 */
#include "compiler/rewrite.h"

#include "base/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CANON_TOL 1e-3

/* Other input of binary node `node` (of op `op`) besides v, when that other
 * input is a float scalar constant near `want`; else 0. */
static int scalar_operand(const rw_t *r, int node, int op, int v, double want)
{
    if (node < 0 || r->g->nodes[node].op != op)
        return 0;
    const ir_node_t *n = &r->g->nodes[node];
    int o = rw_other_input(n, v);
    double c;
    /* for Div and Sub only the second operand can be the constant */
    if ((op == IR_OP_Div || op == IR_OP_Sub) && n->inputs[0] != v)
        return 0;
    return o >= 0 && rw_const_scalar(r->g, o, &c) && rw_near(c, want, CANON_TOL);
}

/* The end of a GELU: o = 1 + f(x); the product x * 0.5 * o in any order.
 * Adds the nodes to grp and returns the last one, or -1. */
static int gelu_tail(const rw_t *r, int o, int x, int *grp, int *ng)
{
    int c1 = rw_sole_consumer(r, o);
    if (c1 < 0 || r->g->nodes[c1].op != IR_OP_Mul)
        return -1;
    const ir_node_t *m1 = &r->g->nodes[c1];
    int y = rw_other_input(m1, o);
    int c1out = m1->outputs[0];
    if (y == x) { /* (x * o) * 0.5 */
        int c2 = rw_sole_consumer(r, c1out);
        if (!scalar_operand(r, c2, IR_OP_Mul, c1out, 0.5))
            return -1;
        grp[(*ng)++] = c1;
        grp[(*ng)++] = c2;
        return c2;
    }
    if (scalar_operand(r, c1, IR_OP_Mul, o, 0.5)) { /* (o * 0.5) * x */
        int c2 = rw_sole_consumer(r, c1out);
        if (c2 < 0 || r->g->nodes[c2].op != IR_OP_Mul || rw_other_input(&r->g->nodes[c2], c1out) != x)
            return -1;
        grp[(*ng)++] = c1;
        grp[(*ng)++] = c2;
        return c2;
    }
    int ph = rw_producer(r, y, IR_OP_Mul); /* (x * 0.5) * o */
    if (ph < 0 || !scalar_operand(r, ph, IR_OP_Mul, x, 0.5))
        return -1;
    grp[(*ng)++] = ph;
    grp[(*ng)++] = c1;
    return c1;
}

static int is_float(const ir_graph_t *g, int v)
{
    cairn_dtype_t t = g->values[v].type.dtype;
    return t == CAIRN_F32 || t == CAIRN_F64 || t == CAIRN_F16 || t == CAIRN_BF16;
}

/* Rewrites, or leaves the graph as it was when the new node is rejected
 * (its inference disagrees with the pattern's shapes): *done says which. */
static cairn_status_t try_replace(rw_t *r, int at, int op, const int *in, int n_in,
                                  const cairn_attr_t *attrs, int n_attrs, const int *grp, int ng)
{
    if (!rw_group_closed(r, at, grp, ng))
        return CAIRN_OK;
    return rw_try_replace(r, at, op, in, n_in, attrs, n_attrs, grp, ng);
}

static cairn_status_t gelu_erf(rw_t *r, int e)
{
    const ir_graph_t *g = r->g;
    int grp[8], ng = 0;
    int a = g->nodes[e].inputs[0];
    int pa = rw_producer(r, a, -1), x = -1;
    if (pa < 0)
        return CAIRN_OK;
    const ir_node_t *na = &g->nodes[pa];
    if (scalar_operand(r, pa, IR_OP_Div, na->inputs[0], sqrt(2.0)))
        x = na->inputs[0];
    else if (na->op == IR_OP_Mul) {
        for (int k = 0; k < 2 && x < 0; k++)
            if (scalar_operand(r, pa, IR_OP_Mul, na->inputs[k], sqrt(0.5)))
                x = na->inputs[k];
    }
    if (x < 0 || !is_float(g, x))
        return CAIRN_OK;
    int eo = g->nodes[e].outputs[0];
    int add1 = rw_sole_consumer(r, eo);
    if (!scalar_operand(r, add1, IR_OP_Add, eo, 1.0))
        return CAIRN_OK;
    grp[ng++] = pa;
    grp[ng++] = e;
    grp[ng++] = add1;
    int last = gelu_tail(r, g->nodes[add1].outputs[0], x, grp, &ng);
    if (last < 0)
        return CAIRN_OK;
    return try_replace(r, last, IR_OP_Gelu, &x, 1, NULL, 0, grp, ng);
}

/* x^3 as Pow(x, 3) or x * (x * x): the nodes, and x (or -1). */
static int cube_of(const rw_t *r, int v, int *grp, int *ng)
{
    const ir_graph_t *g = r->g;
    int p = rw_producer(r, v, -1);
    if (p < 0)
        return -1;
    const ir_node_t *n = &g->nodes[p];
    double e;
    if (n->op == IR_OP_Pow && rw_const_scalar(g, n->inputs[1], &e) && e == 3.0) {
        grp[(*ng)++] = p;
        return n->inputs[0];
    }
    if (n->op != IR_OP_Mul)
        return -1;
    for (int k = 0; k < 2; k++) {
        int x = n->inputs[k], sq = n->inputs[1 - k];
        int ps = rw_producer(r, sq, IR_OP_Mul);
        if (ps >= 0 && g->nodes[ps].inputs[0] == x && g->nodes[ps].inputs[1] == x) {
            grp[(*ng)++] = ps;
            grp[(*ng)++] = p;
            return x;
        }
    }
    return -1;
}

static cairn_status_t gelu_tanh(rw_t *r, int t)
{
    const ir_graph_t *g = r->g;
    int grp[12], ng = 0;
    int s = g->nodes[t].inputs[0];
    int ps = rw_producer(r, s, IR_OP_Mul);
    if (ps < 0)
        return CAIRN_OK;
    int a = -1;
    for (int k = 0; k < 2 && a < 0; k++)
        if (scalar_operand(r, ps, IR_OP_Mul, g->nodes[ps].inputs[k], 0.79788456080286535588))
            a = g->nodes[ps].inputs[k];
    int pa = rw_producer(r, a, IR_OP_Add);
    if (pa < 0)
        return CAIRN_OK;
    int x = -1;
    for (int k = 0; k < 2 && x < 0; k++) {
        int xc = g->nodes[pa].inputs[k], m = g->nodes[pa].inputs[1 - k];
        int pm = rw_producer(r, m, IR_OP_Mul);
        if (pm < 0)
            continue;
        for (int j = 0; j < 2 && x < 0; j++) {
            int cube = g->nodes[pm].inputs[j];
            int save = ng;
            if (!scalar_operand(r, pm, IR_OP_Mul, cube, 0.044715))
                continue;
            if (cube_of(r, cube, grp, &ng) == xc) {
                x = xc;
                grp[ng++] = pm;
            } else {
                ng = save;
            }
        }
    }
    if (x < 0 || !is_float(g, x))
        return CAIRN_OK;
    grp[ng++] = pa;
    grp[ng++] = ps;
    grp[ng++] = t;
    int to = g->nodes[t].outputs[0];
    int add1 = rw_sole_consumer(r, to);
    if (!scalar_operand(r, add1, IR_OP_Add, to, 1.0))
        return CAIRN_OK;
    grp[ng++] = add1;
    int last = gelu_tail(r, g->nodes[add1].outputs[0], x, grp, &ng);
    if (last < 0)
        return CAIRN_OK;
    cairn_attr_t at = {"approximate", CAIRN_ATTR_STRING, 0, 0.0f, "tanh", NULL, NULL, 0, NULL};
    return try_replace(r, last, IR_OP_Gelu, &x, 1, &at, 1, grp, ng);
}

/* ReduceMean node m's reduced axes, if they are the trailing ones of a
 * rank-`rank` input with keepdims = 1: the first of them; else -1. */
static int trailing_axes(const ir_node_t *m, int rank)
{
    const ir_attr_t *ax = ir_node_attr(m, "axes");
    const ir_attr_t *kd = ir_node_attr(m, "keepdims");
    if (m->n_inputs > 1 && m->inputs[1] >= 0)
        return -1;
    if (!ax || ax->n == 0 || ax->n > (size_t)rank || (kd && kd->i != 1))
        return -1;
    unsigned seen = 0;
    for (size_t i = 0; i < ax->n; i++) {
        int a;
        if (ir_norm_axis(ax->ints[i], rank, &a) != CAIRN_OK) {
            base_error_clear();
            return -1;
        }
        seen |= 1u << a;
    }
    int first = rank - (int)ax->n;
    for (int a = first; a < rank; a++)
        if (!(seen & (1u << a)))
            return -1;
    return first;
}

static int same_axes(const ir_node_t *a, const ir_node_t *b)
{
    const ir_attr_t *x = ir_node_attr(a, "axes"), *y = ir_node_attr(b, "axes");
    const ir_attr_t *kx = ir_node_attr(a, "keepdims"), *ky = ir_node_attr(b, "keepdims");
    if (!x || !y || x->n != y->n || (kx ? kx->i : 1) != (ky ? ky->i : 1))
        return 0;
    return memcmp(x->ints, y->ints, x->n * sizeof(int64_t)) == 0;
}

/* The constant `other` input of node `node` if it is a constant of dtype t;
 * else -1. */
static int const_input(const rw_t *r, int node, int v, cairn_dtype_t t)
{
    int o = rw_other_input(&r->g->nodes[node], v);
    if (o < 0 || r->g->values[o].kind != IR_VALUE_CONSTANT || r->g->values[o].type.dtype != t)
        return -1;
    return o;
}

static cairn_status_t layer_norm(rw_t *r, int m1)
{
    const ir_graph_t *g = r->g;
    int grp[10], ng = 0;
    int x = g->nodes[m1].inputs[0];
    const ir_type_t *xt = &g->values[x].type;
    if (!is_float(g, x) || xt->shape.rank < 1)
        return CAIRN_OK;
    int axis = trailing_axes(&g->nodes[m1], xt->shape.rank);
    if (axis < 0)
        return CAIRN_OK;
    int mo = g->nodes[m1].outputs[0];
    int sub = rw_sole_consumer(r, mo);
    if (sub < 0 || g->nodes[sub].op != IR_OP_Sub || g->nodes[sub].inputs[0] != x ||
        g->nodes[sub].inputs[1] != mo)
        return CAIRN_OK;
    int d = g->nodes[sub].outputs[0];
    if (r->is_out[d]) /* its readers are checked with the whole group */
        return CAIRN_OK;
    int pw = -1, dv = -1;
    for (int i = sub + 1; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        if (r->dead[i] || n->n_inputs < 1 || n->inputs[0] != d)
            continue;
        double e;
        if (n->op == IR_OP_Pow && rw_const_scalar(g, n->inputs[1], &e) && e == 2.0)
            pw = i;
        else if (n->op == IR_OP_Mul && n->inputs[1] == d)
            pw = i;
        else if (n->op == IR_OP_Div)
            dv = i;
    }
    if (pw < 0 || dv < 0)
        return CAIRN_OK;
    int m2 = rw_sole_consumer(r, g->nodes[pw].outputs[0]);
    if (m2 < 0 || g->nodes[m2].op != IR_OP_ReduceMean || !same_axes(&g->nodes[m1], &g->nodes[m2]))
        return CAIRN_OK;
    int vo = g->nodes[m2].outputs[0];
    int ae = rw_sole_consumer(r, vo);
    double eps;
    if (ae < 0 || g->nodes[ae].op != IR_OP_Add ||
        !rw_const_scalar(g, rw_other_input(&g->nodes[ae], vo), &eps) || !(eps >= 0))
        return CAIRN_OK;
    int sq = rw_sole_consumer(r, g->nodes[ae].outputs[0]);
    if (sq < 0 || g->nodes[sq].op != IR_OP_Sqrt)
        return CAIRN_OK;
    int so = g->nodes[sq].outputs[0];
    if (rw_sole_consumer(r, so) != dv || g->nodes[dv].inputs[1] != so)
        return CAIRN_OK;
    grp[ng++] = m1, grp[ng++] = sub, grp[ng++] = pw, grp[ng++] = m2, grp[ng++] = ae;
    grp[ng++] = sq, grp[ng++] = dv;
    int last = dv, cur = g->nodes[dv].outputs[0];
    int scale = -1, bias = -1;
    cairn_dtype_t t = xt->dtype;
    int mu = rw_sole_consumer(r, cur);
    if (mu >= 0 && g->nodes[mu].op == IR_OP_Mul && (scale = const_input(r, mu, cur, t)) >= 0) {
        grp[ng++] = mu;
        last = mu;
        cur = g->nodes[mu].outputs[0];
        int ad = rw_sole_consumer(r, cur);
        if (ad >= 0 && g->nodes[ad].op == IR_OP_Add && (bias = const_input(r, ad, cur, t)) >= 0) {
            grp[ng++] = ad;
            last = ad;
        }
    }
    /* the output keeps x's shape only when gamma and beta do not broadcast
     * it wider: LayerNormalization's inference checks that they fit */
    if (!rw_group_closed(r, last, grp, ng))
        return CAIRN_OK;
    if (scale < 0) {
        /* LayerNormalization needs a scale: ones over the normalised dims */
        int64_t dims[CAIRN_MAX_RANK], cnt = 1;
        int nd = xt->shape.rank - axis;
        for (int i = 0; i < nd; i++) {
            dims[i] = xt->shape.d[axis + i];
            if (!ir_dim_known(dims[i]))
                return CAIRN_OK;
            cnt *= dims[i];
        }
        void *buf = malloc(((size_t)cnt + 1) * cairn_dtype_size(t));
        if (!buf)
            return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
        for (int64_t i = 0; i < cnt; i++)
            base_store_from_double(buf, t, i, 1.0);
        cairn_status_t s = rw_add_const(r, "layernorm_ones", t, nd, dims, buf, &scale);
        free(buf);
        BASE_TRY(s);
    }
    int in[3] = {x, scale, bias};
    cairn_attr_t attrs[2] = {
        {"axis", CAIRN_ATTR_INT, axis, 0.0f, NULL, NULL, NULL, 0, NULL},
        {"epsilon", CAIRN_ATTR_FLOAT, 0, (float)eps, NULL, NULL, NULL, 0, NULL}};
    return try_replace(r, last, IR_OP_LayerNormalization, in, bias >= 0 ? 3 : 2, attrs, 2, grp,
                       ng);
}

/* A constant of dtype t filled with ones, over x's dims [axis, rank) when
 * they are all known (so the fast kernels see a full-size scale), else of
 * shape [1] (which broadcasts). */
static cairn_status_t ones_scale(rw_t *r, const ir_type_t *xt, int axis, const char *hint, int *out)
{
    cairn_dtype_t t = xt->dtype;
    int64_t dims[CAIRN_MAX_RANK], cnt = 1;
    int nd = xt->shape.rank - axis;
    for (int i = 0; i < nd; i++) {
        dims[i] = xt->shape.d[axis + i];
        if (!ir_dim_known(dims[i])) {
            nd = 1, dims[0] = 1, cnt = 1;
            break;
        }
        cnt *= dims[i];
    }
    void *buf = malloc(((size_t)cnt + 1) * cairn_dtype_size(t));
    if (!buf)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY, "out of memory");
    for (int64_t i = 0; i < cnt; i++)
        base_store_from_double(buf, t, i, 1.0);
    cairn_status_t s = rw_add_const(r, hint, t, nd, dims, buf, out);
    free(buf);
    return s;
}

/* RMSNorm, found from its ReduceMean m (see the top of the file). */
static cairn_status_t rms_norm(rw_t *r, int m)
{
    const ir_graph_t *g = r->g;
    int grp[8], ng = 0;
    int sq = g->nodes[m].inputs[0];
    int ps = rw_producer(r, sq, -1), x = -1;
    if (ps < 0)
        return CAIRN_OK;
    const ir_node_t *pn = &g->nodes[ps];
    double c;
    if (pn->op == IR_OP_Pow && rw_const_scalar(g, pn->inputs[1], &c) && c == 2.0)
        x = pn->inputs[0];
    else if (pn->op == IR_OP_Mul && pn->inputs[0] == pn->inputs[1])
        x = pn->inputs[0];
    if (x < 0 || !is_float(g, x) || g->values[x].type.shape.rank < 1)
        return CAIRN_OK;
    const ir_type_t *xt = &g->values[x].type;
    int axis = trailing_axes(&g->nodes[m], xt->shape.rank);
    if (axis < 0)
        return CAIRN_OK;
    int mo = g->nodes[m].outputs[0];
    int ae = rw_sole_consumer(r, mo);
    double eps;
    if (ae < 0 || g->nodes[ae].op != IR_OP_Add ||
        !rw_const_scalar(g, rw_other_input(&g->nodes[ae], mo), &eps) || !(eps >= 0))
        return CAIRN_OK;
    grp[ng++] = ps, grp[ng++] = m, grp[ng++] = ae;
    int ao = g->nodes[ae].outputs[0];
    int k = rw_sole_consumer(r, ao), last = -1, inv = -1;
    if (k < 0)
        return CAIRN_OK;
    const ir_node_t *kn = &g->nodes[k];
    if (kn->op == IR_OP_Sqrt) {
        grp[ng++] = k;
        int so = kn->outputs[0];
        int d = rw_sole_consumer(r, so);
        if (d < 0)
            return CAIRN_OK;
        const ir_node_t *dn = &g->nodes[d];
        if (dn->op == IR_OP_Div && dn->inputs[1] == so && dn->inputs[0] == x)
            last = d; /* x / rms */
        else if (dn->op == IR_OP_Div && dn->inputs[1] == so &&
                 rw_const_scalar(g, dn->inputs[0], &c) && c == 1.0)
            inv = dn->outputs[0]; /* 1 / rms: torch.rsqrt */
        else if (dn->op == IR_OP_Reciprocal)
            inv = dn->outputs[0];
        else
            return CAIRN_OK;
        grp[ng++] = d;
    } else if (kn->op == IR_OP_Pow && kn->inputs[0] == ao && rw_const_scalar(g, kn->inputs[1], &c) &&
               c == -0.5) {
        grp[ng++] = k;
        inv = kn->outputs[0];
    } else {
        return CAIRN_OK;
    }
    if (inv >= 0) {
        int mu = rw_sole_consumer(r, inv);
        if (mu < 0 || g->nodes[mu].op != IR_OP_Mul || rw_other_input(&g->nodes[mu], inv) != x)
            return CAIRN_OK;
        grp[ng++] = last = mu;
    }
    int cur = g->nodes[last].outputs[0], scale = -1;
    int mw = rw_sole_consumer(r, cur);
    if (mw >= 0 && g->nodes[mw].op == IR_OP_Mul &&
        (scale = const_input(r, mw, cur, xt->dtype)) >= 0)
        grp[ng++] = last = mw;
    /* a weight that would broadcast the output wider than x is refused by
     * RMSNormalization's inference, and the pattern stays as it was */
    if (!rw_group_closed(r, last, grp, ng))
        return CAIRN_OK;
    if (scale < 0)
        BASE_TRY(ones_scale(r, xt, axis, "rmsnorm_ones", &scale));
    int in[2] = {x, scale};
    cairn_attr_t attrs[2] = {
        {"axis", CAIRN_ATTR_INT, axis, 0.0f, NULL, NULL, NULL, 0, NULL},
        {"epsilon", CAIRN_ATTR_FLOAT, 0, (float)eps, NULL, NULL, NULL, 0, NULL}};
    return try_replace(r, last, IR_OP_RMSNormalization, in, 2, attrs, 2, grp, ng);
}

/* SiLU, found from its Sigmoid s. */
static cairn_status_t silu(rw_t *r, int s)
{
    const ir_graph_t *g = r->g;
    int x = g->nodes[s].inputs[0], so = g->nodes[s].outputs[0];
    if (!is_float(g, x))
        return CAIRN_OK;
    int mu = rw_sole_consumer(r, so);
    if (mu < 0 || g->nodes[mu].op != IR_OP_Mul || rw_other_input(&g->nodes[mu], so) != x)
        return CAIRN_OK;
    int grp[2] = {s, mu};
    return try_replace(r, mu, IR_OP_Swish, &x, 1, NULL, 0, grp, 2);
}

cairn_status_t pass_canonicalize(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++) {
        if (r.dead[i])
            continue;
        switch (g->nodes[i].op) {
        case IR_OP_ReduceMean:
            s = layer_norm(&r, i);
            if (s == CAIRN_OK && !r.dead[i] && g->nodes[i].op == IR_OP_ReduceMean)
                s = rms_norm(&r, i);
            break;
        case IR_OP_Erf: s = gelu_erf(&r, i); break;
        case IR_OP_Tanh: s = gelu_tanh(&r, i); break;
        case IR_OP_Sigmoid: s = silu(&r, i); break;
        default: break;
        }
    }
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
