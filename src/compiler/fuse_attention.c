/*
 * Attention fusion: the chain exporters write for scaled dot-product
 * attention,
 *
 *   S = MatMul(Q, KT)            KT = Transpose(K, perm) or any [B,H,D,Sk]
 *   S = S * c | S / c            c a constant scalar (optional)
 *   S = S + mask                 f32 mask broadcasting to S (optional), or
 *   S = Where(C, fill, S)        C a constant bool [.., Sq, Sk] equal to the
 *                                causal pattern j > i + Sk - Sq, fill <= -1e4
 *                                (or Where(!C, S, fill)), as masked_fill
 *                                exports it
 *   P = Softmax(S, axis = -1)
 *   O = MatMul(P, V)
 *
 * on 4-D f32 tensors becomes one FusedAttention(Q, K, V, [mask]). The
 * transposes feeding Q, KT and V and one transposing O (the head merge)
 * are absorbed as the node's perms when this chain is their only reader.
 * Every intermediate must have no reader outside the chain and not be a
 * graph output; the batch and head dims of Q, KT and V must be known and
 * equal (no MatMul broadcasting).
 *
 * Then, where Q, K and V are cut from one [B, S, L] projection (Reshapes
 * to [B, S, H, D] of a Split along its last axis, or Gathers of a
 * Reshape + Transpose to [n, B, H, S, D]), the node reads them as column
 * views of the projection (q_view, k_view, v_view) and the cutting nodes
 * go.
 */
#include "compiler/rewrite.h"

#include "ir/ops/fused.h"

#include <math.h>
#include <string.h>

/* The perm of Transpose node t if it is a 4-D one. */
static int transpose_perm(const ir_graph_t *g, int t, int64_t perm[4])
{
    const ir_attr_t *a = ir_node_attr(&g->nodes[t], "perm");
    if (!a || a->n != 4 || !a->ints)
        return 0;
    for (int i = 0; i < 4; i++)
        perm[i] = a->ints[i];
    return 1;
}

/* v is produced by a 4-D Transpose whose only reader is node `reader`:
 * that Transpose's index (perm in perm), else -1. */
static int absorbable_transpose(const rw_t *r, int v, int reader, int64_t perm[4])
{
    int t = rw_producer(r, v, IR_OP_Transpose);
    if (t < 0 || rw_sole_consumer(r, v) != reader || !transpose_perm(r->g, t, perm))
        return -1;
    const ir_type_t *in = &r->g->values[r->g->nodes[t].inputs[0]].type;
    return in->shape.rank == 4 ? t : -1;
}

static int is_f32_rank4(const ir_graph_t *g, int v)
{
    return v >= 0 && g->values[v].type.dtype == CAIRN_F32 && g->values[v].type.shape.rank == 4;
}

/* Where(C, fill, s) (keep_when_true = 0) or Where(C, s, fill) (= 1) with a
 * constant C that is exactly the causal pattern for scores type st. */
static int causal_where(const ir_graph_t *g, const ir_node_t *w, int s, const ir_type_t *st)
{
    if (w->n_inputs != 3 || w->inputs[0] < 0)
        return 0;
    int keep_true;
    if (w->inputs[2] == s && w->inputs[1] != s)
        keep_true = 0;
    else if (w->inputs[1] == s && w->inputs[2] != s)
        keep_true = 1;
    else
        return 0;
    int fill = w->inputs[keep_true ? 2 : 1];
    double fv;
    if (!rw_const_scalar(g, fill, &fv) || !(fv <= -1e4))
        return 0;
    const ir_value_t *c = &g->values[w->inputs[0]];
    if (c->kind != IR_VALUE_CONSTANT || !c->data || c->type.dtype != CAIRN_BOOL ||
        c->type.shape.rank < 2 || c->type.shape.rank > 4)
        return 0;
    int cr = c->type.shape.rank;
    for (int i = 0; i < cr - 2; i++)
        if (c->type.shape.d[i] != 1)
            return 0;
    int64_t sq = st->shape.d[2], sk = st->shape.d[3];
    if (!ir_dim_known(sq) || !ir_dim_known(sk) || c->type.shape.d[cr - 2] != sq ||
        c->type.shape.d[cr - 1] != sk)
        return 0;
    const unsigned char *cb = c->data;
    for (int64_t i = 0; i < sq; i++)
        for (int64_t j = 0; j < sk; j++) {
            int masked = j > i + sk - sq;
            if ((cb[i * sk + j] != 0) != (keep_true ? !masked : masked))
                return 0;
        }
    return 1;
}

/* The mask m (other input of the Add) broadcasts to scores type st without
 * growing it: each of its dims is 1 or the same as the scores'. */
static int mask_fits(const ir_graph_t *g, int m, const ir_type_t *st)
{
    if (m < 0 || g->values[m].type.dtype != CAIRN_F32)
        return 0;
    const ir_shape_t *ms = &g->values[m].type.shape;
    if (ms->rank < 0 || ms->rank > 4)
        return 0;
    for (int i = 0; i < ms->rank; i++) {
        int64_t md = ms->d[i], sd = st->shape.d[4 - ms->rank + i];
        if (md != 1 && (md != sd || md == IR_DIM_UNKNOWN))
            return 0;
    }
    return 1;
}

static cairn_status_t fuse_one(rw_t *r, int smx)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *sm = &g->nodes[smx];
    int sin = sm->inputs[0], sout = sm->outputs[0];
    if (!is_f32_rank4(g, sin))
        return CAIRN_OK;
    const ir_attr_t *ax = ir_node_attr(sm, "axis");
    if (ax && ax->i != -1 && ax->i != 3)
        return CAIRN_OK;
    const ir_type_t *st = &g->values[sin].type;
    int grp[10], ng = 0;
    grp[ng++] = smx;
    int mm2 = rw_sole_consumer(r, sout);
    if (mm2 < 0 || g->nodes[mm2].op != IR_OP_MatMul || g->nodes[mm2].inputs[0] != sout)
        return CAIRN_OK;
    grp[ng++] = mm2;
    int V = g->nodes[mm2].inputs[1];
    if (!is_f32_rank4(g, V))
        return CAIRN_OK;

    /* backwards from the softmax input: [mask] then [scale] then MatMul */
    int cur = sin, mask = -1, causal = 0;
    int p = rw_producer(r, cur, -1);
    if (p >= 0 && g->nodes[p].op == IR_OP_Add) {
        const ir_node_t *a = &g->nodes[p];
        for (int side = 0; side < 2; side++) {
            int x = a->inputs[side], m = a->inputs[1 - side];
            int px = rw_producer(r, x, -1);
            if (px < 0 || !is_f32_rank4(g, x) || rw_sole_consumer(r, x) != p)
                continue;
            int op = g->nodes[px].op;
            if ((op == IR_OP_Mul || op == IR_OP_Div || op == IR_OP_MatMul) &&
                mask_fits(g, m, st) && ir_shape_equal(&g->values[x].type.shape, &st->shape)) {
                mask = m, cur = x;
                grp[ng++] = p;
                break;
            }
        }
        if (mask < 0)
            return CAIRN_OK;
    } else if (p >= 0 && g->nodes[p].op == IR_OP_Where) {
        const ir_node_t *w = &g->nodes[p];
        int x = w->inputs[1], px = -1;
        if (!causal_where(g, w, x, st)) {
            x = w->inputs[2];
            if (!causal_where(g, w, x, st))
                return CAIRN_OK;
        }
        px = rw_producer(r, x, -1);
        if (px < 0 || !is_f32_rank4(g, x) || rw_sole_consumer(r, x) != p ||
            !ir_shape_equal(&g->values[x].type.shape, &st->shape))
            return CAIRN_OK;
        causal = 1, cur = x;
        grp[ng++] = p;
    }
    double scale = 1.0;
    p = rw_producer(r, cur, -1);
    if (p >= 0 && (g->nodes[p].op == IR_OP_Mul || g->nodes[p].op == IR_OP_Div)) {
        const ir_node_t *s = &g->nodes[p];
        int x = -1;
        double c;
        if (s->op == IR_OP_Div) {
            if (rw_const_scalar(g, s->inputs[1], &c) && c != 0)
                x = s->inputs[0], scale = 1.0 / c;
        } else {
            for (int side = 0; side < 2 && x < 0; side++)
                if (rw_const_scalar(g, s->inputs[1 - side], &c))
                    x = s->inputs[side], scale = c;
        }
        if (x < 0 || !is_f32_rank4(g, x) || rw_sole_consumer(r, x) != p ||
            !ir_shape_equal(&g->values[x].type.shape, &st->shape))
            return CAIRN_OK;
        cur = x;
        grp[ng++] = p;
    }
    int mm1 = rw_producer(r, cur, IR_OP_MatMul);
    if (mm1 < 0 || rw_sole_consumer(r, cur) != (ng > 2 ? grp[ng - 1] : smx))
        return CAIRN_OK;
    grp[ng++] = mm1;
    int Q = g->nodes[mm1].inputs[0], KT = g->nodes[mm1].inputs[1];
    if (!is_f32_rank4(g, Q) || !is_f32_rank4(g, KT))
        return CAIRN_OK;
    /* same batch and heads everywhere (no MatMul broadcasting) */
    const ir_shape_t *qs = &g->values[Q].type.shape, *ks = &g->values[KT].type.shape,
                     *vs = &g->values[V].type.shape;
    for (int i = 0; i < 2; i++)
        if (qs->d[i] == IR_DIM_UNKNOWN || qs->d[i] != ks->d[i] || qs->d[i] != vs->d[i])
            return CAIRN_OK;

    int64_t qp[4] = {0, 1, 2, 3}, kp[4] = {0, 1, 3, 2}, vp[4] = {0, 1, 2, 3},
            op4[4] = {0, 1, 2, 3}, tp[4];
    int t, out_node = mm2;
    if (Q != KT && (t = absorbable_transpose(r, Q, mm1, tp)) >= 0) {
        memcpy(qp, tp, sizeof tp);
        Q = g->nodes[t].inputs[0];
        grp[ng++] = t;
    }
    if (Q != KT && (t = absorbable_transpose(r, KT, mm1, tp)) >= 0) {
        kp[0] = tp[0], kp[1] = tp[1], kp[2] = tp[3], kp[3] = tp[2];
        KT = g->nodes[t].inputs[0];
        grp[ng++] = t;
    }
    if ((t = absorbable_transpose(r, V, mm2, tp)) >= 0) {
        memcpy(vp, tp, sizeof tp);
        V = g->nodes[t].inputs[0];
        grp[ng++] = t;
    }
    int oc = rw_sole_consumer(r, g->nodes[mm2].outputs[0]);
    if (oc >= 0 && g->nodes[oc].op == IR_OP_Transpose && transpose_perm(g, oc, tp)) {
        memcpy(op4, tp, sizeof tp);
        grp[ng++] = out_node = oc;
    }
    int at = out_node;
    for (int i = 0; i < ng; i++)
        if (grp[i] > at)
            at = grp[i];
    if (at != out_node || !rw_group_closed(r, at, grp, ng))
        return CAIRN_OK;
    int in[4] = {Q, KT, V, mask};
    cairn_attr_t attrs[6] = {
        {"scale", CAIRN_ATTR_FLOAT, 0, (float)scale, NULL, NULL, NULL, 0, NULL},
        {"causal", CAIRN_ATTR_INT, causal, 0.0f, NULL, NULL, NULL, 0, NULL},
        {"q_perm", CAIRN_ATTR_INTS, 0, 0.0f, NULL, qp, NULL, 4, NULL},
        {"k_perm", CAIRN_ATTR_INTS, 0, 0.0f, NULL, kp, NULL, 4, NULL},
        {"v_perm", CAIRN_ATTR_INTS, 0, 0.0f, NULL, vp, NULL, 4, NULL},
        {"out_perm", CAIRN_ATTR_INTS, 0, 0.0f, NULL, op4, NULL, 4, NULL}};
    return rw_try_replace(r, at, IR_OP_FusedAttention, in, mask >= 0 ? 4 : 3, attrs, 6, grp, ng);
}

/* Input v of attention node an (without a view yet) as a column view of
 * the projection's output: v = Reshape(Split(X, last axis)[o]) to
 * [B, S, H, D], X [B, S, L] f32, every dim known, each intermediate read
 * only by the next. Sets *x, view = [offset, H, D], the Reshape and Split
 * nodes. */
static int column_view(const rw_t *r, int v, int an, int *x, int64_t view[3], int *rs, int *sp)
{
    const ir_graph_t *g = r->g;
    int t = rw_producer(r, v, IR_OP_Reshape);
    if (t < 0 || rw_sole_consumer(r, v) != an)
        return 0;
    int sv = g->nodes[t].inputs[0];
    int s = rw_producer(r, sv, IR_OP_Split);
    if (s < 0 || rw_sole_consumer(r, sv) != t)
        return 0;
    const ir_node_t *sn = &g->nodes[s];
    const ir_type_t *xt = &g->values[sn->inputs[0]].type;
    const ir_shape_t *vs = &g->values[v].type.shape;
    const ir_attr_t *ax = ir_node_attr(sn, "axis");
    int64_t axis = ax ? ax->i : 0;
    if (xt->dtype != CAIRN_F32 || xt->shape.rank != 3 || (axis != -1 && axis != 2) ||
        vs->rank != 4 || !ir_shape_is_concrete(&xt->shape) || !ir_shape_is_concrete(vs))
        return 0;
    int64_t off = 0;
    int o = 0;
    for (; o < sn->n_outputs && sn->outputs[o] != sv; o++) {
        const ir_shape_t *os = &g->values[sn->outputs[o]].type.shape;
        if (os->rank != 3 || !ir_dim_known(os->d[2]))
            return 0;
        off += os->d[2];
    }
    const ir_shape_t *ss = &g->values[sv].type.shape;
    if (o == sn->n_outputs || ss->rank != 3 || vs->d[0] != xt->shape.d[0] ||
        vs->d[1] != xt->shape.d[1] || vs->d[2] * vs->d[3] != ss->d[2] ||
        off + ss->d[2] > xt->shape.d[2])
        return 0;
    *x = sn->inputs[0];
    view[0] = off, view[1] = vs->d[2], view[2] = vs->d[3];
    *rs = t, *sp = s;
    return 1;
}

/* The encoder form of the same: v = Gather(Transpose(Reshape(X,
 * [B, S, n, H, D]), perm (2, 0, 3, 1, 4)), i, axis 0), [B, H, S, D], X
 * [B, S, n H D] f32 with every dim known, i a constant scalar; the Gather's
 * output read only by an, the Reshape's only by the Transpose. Sets *x, view
 * and nodes = {Gather, Transpose, Reshape}. The view's axes are
 * [B, S, H, D]: the caller swaps the perm's axes 1 and 2. */
static int gather_view(const rw_t *r, int v, int an, int *x, int64_t view[3], int nodes[3])
{
    const ir_graph_t *g = r->g;
    int ga = rw_producer(r, v, IR_OP_Gather);
    if (ga < 0 || rw_sole_consumer(r, v) != an)
        return 0;
    const ir_node_t *gn = &g->nodes[ga];
    const ir_attr_t *ax = ir_node_attr(gn, "axis");
    const ir_value_t *iv = gn->n_inputs > 1 && gn->inputs[1] >= 0 ? &g->values[gn->inputs[1]]
                                                                  : NULL;
    if ((ax && ax->i != 0) || !iv || iv->kind != IR_VALUE_CONSTANT || !iv->data ||
        iv->type.shape.rank != 0)
        return 0;
    int64_t idx;
    if (iv->type.dtype == CAIRN_I64)
        idx = *(const int64_t *)iv->data;
    else if (iv->type.dtype == CAIRN_I32)
        idx = *(const int32_t *)iv->data;
    else
        return 0;
    int tr = rw_producer(r, gn->inputs[0], IR_OP_Transpose);
    if (tr < 0)
        return 0;
    static const int64_t want[5] = {2, 0, 3, 1, 4};
    const ir_attr_t *pa = ir_node_attr(&g->nodes[tr], "perm");
    if (!pa || pa->n != 5 || !pa->ints || memcmp(pa->ints, want, sizeof want))
        return 0;
    int rv = g->nodes[tr].inputs[0];
    int rs = rw_producer(r, rv, IR_OP_Reshape);
    if (rs < 0 || rw_sole_consumer(r, rv) != tr)
        return 0;
    int xv = g->nodes[rs].inputs[0];
    const ir_type_t *xt = &g->values[xv].type;
    const ir_shape_t *r5 = &g->values[rv].type.shape;
    if (xt->dtype != CAIRN_F32 || xt->shape.rank != 3 || r5->rank != 5 ||
        !ir_shape_is_concrete(&xt->shape) || !ir_shape_is_concrete(r5))
        return 0;
    const int64_t np = r5->d[2], H = r5->d[3], D = r5->d[4];
    if (idx < 0)
        idx += np;
    if (idx < 0 || idx >= np || r5->d[0] != xt->shape.d[0] || r5->d[1] != xt->shape.d[1] ||
        np * H * D != xt->shape.d[2])
        return 0;
    *x = xv;
    view[0] = idx * H * D, view[1] = H, view[2] = D;
    nodes[0] = ga, nodes[1] = tr, nodes[2] = rs;
    return 1;
}

/* Attention node an reads Q, K, V through column views of the projection
 * that made them, where they are cut from it by Split + Reshape (GPT-2's
 * c_attn) or by Reshape + Transpose + Gather (the encoder's qkv[0], [1],
 * [2]): the cutting nodes go, and with them copies of the projection. */
static cairn_status_t read_qkv_in_place(rw_t *r, int an)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[an];
    for (int t = 0; t < 3; t++) {
        size_t cnt = 0;
        if (ir_attr_ints(n, FUSED_ATTN_Q_VIEW + t, &cnt) && cnt)
            return CAIRN_OK; /* views already */
    }
    int64_t perm[4][4];
    for (int t = 0; t < 4; t++) {
        size_t cnt = 0;
        const int64_t *pp = ir_attr_ints(n, FUSED_ATTN_Q_PERM + t, &cnt);
        for (int a = 0; a < 4; a++)
            perm[t][a] = pp && cnt == 4 ? pp[a] : a;
    }
    int in[4] = {n->inputs[0], n->inputs[1], n->inputs[2], n->n_inputs > 3 ? n->inputs[3] : -1};
    /* grp: the node and the cut nodes that go with it; opt: nodes that go
     * too when nothing else reads them (in an order that lets each one's
     * readers come first) */
    int grp[16], ng = 0, opt[8], nopt = 0, got = 0;
    int64_t views[3][3];
    int has[3] = {0, 0, 0};
    grp[ng++] = an;
    for (int t = 0; t < 3; t++) {
        int x, rs, sp, gnodes[3];
        /* Q and K may be one value (self-attention on one tensor): leave it */
        if ((t > 0 && n->inputs[t] == n->inputs[0]) || (t == 2 && n->inputs[2] == n->inputs[1]))
            continue;
        if (column_view(r, n->inputs[t], an, &x, views[t], &rs, &sp)) {
            grp[ng++] = rs;
            opt[nopt++] = sp;
        } else if (gather_view(r, n->inputs[t], an, &x, views[t], gnodes)) {
            /* the view's axes [B, S, H, D] are the Gather's [B, H, S, D]
             * with 1 and 2 swapped */
            for (int a = 0; a < 4; a++)
                perm[t][a] = perm[t][a] == 1 ? 2 : perm[t][a] == 2 ? 1 : perm[t][a];
            grp[ng++] = gnodes[0];
            opt[nopt++] = gnodes[1];
            opt[nopt++] = gnodes[2];
        } else {
            continue;
        }
        in[t] = x, has[t] = 1, got++;
    }
    if (!got)
        return CAIRN_OK;
    for (int i = 0; i < nopt; i++) {
        int dup = 0;
        for (int k = 0; k < ng; k++)
            dup |= grp[k] == opt[i];
        grp[ng] = opt[i];
        if (!dup && rw_group_closed(r, an, grp, ng + 1))
            ng++;
    }
    if (!rw_group_closed(r, an, grp, ng))
        return CAIRN_OK;
    static const char *const names[7] = {"q_perm", "k_perm", "v_perm", "out_perm",
                                         "q_view", "k_view", "v_view"};
    cairn_attr_t attrs[9];
    int na = 0;
    attrs[na++] = cairn_attr_float("scale", ir_attr_f(n, FUSED_ATTN_SCALE));
    attrs[na++] = cairn_attr_int("causal", ir_attr_i(n, FUSED_ATTN_CAUSAL));
    for (int t = 0; t < 4; t++)
        attrs[na++] = cairn_attr_ints(names[t], perm[t], 4);
    for (int t = 0; t < 3; t++)
        if (has[t])
            attrs[na++] = cairn_attr_ints(names[4 + t], views[t], 3);
    return rw_try_replace(r, an, IR_OP_FusedAttention, in, n->n_inputs, attrs, na, grp, ng);
}

cairn_status_t pass_fuse_attention(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && g->nodes[i].op == IR_OP_Softmax)
            s = fuse_one(&r, i);
    if (s == CAIRN_OK)
        s = rw_refresh(&r);
    for (int i = 0; i < g->n_nodes && s == CAIRN_OK; i++)
        if (!r.dead[i] && g->nodes[i].op == IR_OP_FusedAttention)
            s = read_qkv_in_place(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
