/*
 * FusedAttention, made by the fuse_attention pass (src/compiler/): the
 * exported MatMul -> scale -> [mask] -> Softmax -> MatMul chain as one
 * node, run by the tiled online-softmax kernel of src/kernels/attn.
 *
 * Inputs Q, K, V are 4-D f32 tensors in any axis order; the attributes
 * q_perm / k_perm / v_perm name the input axes holding the logical
 * [batch, head, sequence, feature] axes, so the exporter's transposes are
 * absorbed (the kernel reads through strides). The optional mask is f32,
 * added to the scaled scores, and broadcasts (numpy rules) to
 * [B, Hq, Sq, Sk]. The output is Transpose(O, out_perm) of the logical
 * O [B, Hq, Sq, Dv], so a following head-merging transpose is absorbed too.
 * With q_view / k_view / v_view an input is instead a column range of a
 * 3-D [B, S, L] tensor (see fused.h): the kernel reads the QKV projection's
 * output in place, rows L apart.
 */
#include "base/dtype.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/attn/attn.h"

#include <stdio.h>
#include <string.h>

cairn_status_t op_fused_attn_infer(ir_infer_ctx_t *c);
cairn_status_t op_fused_attn_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_fused_attn_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost);

const ir_attr_def_t op_fused_attn_attrs[] = {
    IR_ATTR_FLOAT("scale", 1.0f), IR_ATTR_INT("causal", 0), IR_ATTR_INTS("q_perm"),
    IR_ATTR_INTS("k_perm"),       IR_ATTR_INTS("v_perm"),   IR_ATTR_INTS("out_perm"),
    IR_ATTR_INTS("q_view"),       IR_ATTR_INTS("k_view"),   IR_ATTR_INTS("v_view"),
    IR_ATTR_END};

static const char *const fa_names[4] = {"q_perm", "k_perm", "v_perm", "out_perm"};

/* The perm in slot `slot` (identity when absent); if it is not a
 * permutation of 0..3, CAIRN_ERR_INVALID_ARGUMENT with the reason in msg. */
static cairn_status_t fa_perm(const ir_node_t *n, int slot, int64_t perm[4], char *msg,
                              size_t cap)
{
    size_t cnt = 0;
    const int64_t *p = ir_attr_ints(n, slot, &cnt);
    const char *name = fa_names[slot - FUSED_ATTN_Q_PERM];
    if (!p || cnt == 0) {
        for (int i = 0; i < 4; i++)
            perm[i] = i;
        return CAIRN_OK;
    }
    if (cnt != 4) {
        snprintf(msg, cap, "%s has %zu entries; it must have 4", name, cnt);
        return CAIRN_ERR_INVALID_ARGUMENT;
    }
    int seen[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        if (p[i] < 0 || p[i] > 3 || seen[p[i]]++) {
            snprintf(msg, cap, "%s = [%lld, %lld, %lld, %lld] is not a permutation of 0..3",
                     name, (long long)p[0], (long long)p[1], (long long)p[2], (long long)p[3]);
            return CAIRN_ERR_INVALID_ARGUMENT;
        }
        perm[i] = p[i];
    }
    return CAIRN_OK;
}

/* a and b may be the same dim: unknown, or equal */
static int fa_same(int64_t a, int64_t b)
{
    return a == IR_DIM_UNKNOWN || b == IR_DIM_UNKNOWN || a == b;
}

/* Input t's 4-D shape as the kernel sees it (before its perm): its own,
 * or with a view [offset, H, D] of the 3-D X [B, S, L], [B, S, H, D]
 * (*off the offset, *ld = L). Returns 0 and fills msg when the view does
 * not fit X (unknown dims pass). */
static int fa_view(const ir_node_t *n, int t, const int64_t *xd, int xrank, int64_t d4[4],
                   int64_t *off, int64_t *ld, char *msg, size_t cap)
{
    static const char *const vn[3] = {"q_view", "k_view", "v_view"};
    size_t cnt = 0;
    const int64_t *v = ir_attr_ints(n, FUSED_ATTN_Q_VIEW + t, &cnt);
    *off = 0, *ld = 0;
    if (!v || cnt == 0) {
        if (xrank != 4) {
            snprintf(msg, cap,
                     "must be 4-D (batch, heads, sequence, features in the order its perm "
                     "gives), got rank %d",
                     xrank);
            return 0;
        }
        memcpy(d4, xd, 4 * sizeof(int64_t));
        return 1;
    }
    if (cnt != 3 || v[0] < 0 || v[1] < 1 || v[2] < 1 || xrank != 3) {
        snprintf(msg, cap,
                 "%s must be [offset >= 0, heads >= 1, features >= 1] over a 3-D [B, S, L] "
                 "input (got %zu entries, rank %d)",
                 vn[t], cnt, xrank);
        return 0;
    }
    if (ir_dim_known(xd[2]) && v[0] + v[1] * v[2] > xd[2]) {
        snprintf(msg, cap, "%s = [%lld, %lld, %lld] reaches column %lld of rows %lld long",
                 vn[t], (long long)v[0], (long long)v[1], (long long)v[2],
                 (long long)(v[0] + v[1] * v[2]), (long long)xd[2]);
        return 0;
    }
    d4[0] = xd[0], d4[1] = xd[1], d4[2] = v[1], d4[3] = v[2];
    *off = v[0], *ld = xd[2];
    return 1;
}

cairn_status_t op_fused_attn_infer(ir_infer_ctx_t *c)
{
    static const char *const what[3] = {"Q", "K", "V"};
    int64_t perm[4][4], lg[3][4];
    for (int t = 0; t < 4; t++) {
        char msg[160];
        cairn_status_t s = fa_perm(c->node, FUSED_ATTN_Q_PERM + t, perm[t], msg, sizeof msg);
        if (s != CAIRN_OK)
            return ir_infer_error(c, s, "%s", msg);
    }
    int known = 1;
    for (int t = 0; t < 3; t++) {
        const ir_type_t *x = &c->in[t];
        if (x->dtype != CAIRN_F32)
            return ir_infer_error(c, CAIRN_ERR_DTYPE, "%s must be f32, got %s", what[t],
                                  cairn_dtype_name(x->dtype));
        if (x->shape.rank < 0) {
            known = 0;
            continue;
        }
        int64_t d4[4], off, ld;
        char msg[200];
        if (!fa_view(c->node, t, x->shape.d, x->shape.rank, d4, &off, &ld, msg, sizeof msg))
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "%s %s", what[t], msg);
        for (int a = 0; a < 4; a++)
            lg[t][a] = d4[perm[t][a]];
    }
    if (!known) {
        ir_infer_unknown(c, 0, CAIRN_F32, 4);
        return CAIRN_OK;
    }
    /* logical: Q [B, Hq, Sq, D], K [B, Hk, Sk, D], V [B, Hk, Sk, Dv] */
    if (!fa_same(lg[0][0], lg[1][0]) || !fa_same(lg[0][0], lg[2][0]) ||
        !fa_same(lg[1][1], lg[2][1]) || !fa_same(lg[1][2], lg[2][2]) ||
        !fa_same(lg[0][3], lg[1][3]))
        return ir_infer_error(
            c, CAIRN_ERR_SHAPE,
            "Q [B=%lld, H=%lld, S=%lld, D=%lld], K [%lld, %lld, %lld, %lld] and V [%lld, %lld, "
            "%lld, %lld] (logical axes) must share the batch, K and V their heads and length, "
            "Q and K the feature size",
            (long long)lg[0][0], (long long)lg[0][1], (long long)lg[0][2], (long long)lg[0][3],
            (long long)lg[1][0], (long long)lg[1][1], (long long)lg[1][2], (long long)lg[1][3],
            (long long)lg[2][0], (long long)lg[2][1], (long long)lg[2][2], (long long)lg[2][3]);
    if (ir_dim_known(lg[0][1]) && ir_dim_known(lg[1][1]) &&
        (lg[1][1] == 0 ? lg[0][1] != 0 : lg[0][1] % lg[1][1] != 0))
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "K/V have %lld heads, which must divide Q's %lld heads",
                              (long long)lg[1][1], (long long)lg[0][1]);
    int64_t full[4] = {lg[0][0], lg[0][1], lg[0][2], lg[1][2]};
    if (c->n_in > 3 && c->in[3].dtype != CAIRN_DTYPE_UNDEFINED) {
        const ir_type_t *m = &c->in[3];
        if (m->dtype != CAIRN_F32)
            return ir_infer_error(c, CAIRN_ERR_DTYPE, "mask must be f32, got %s",
                                  cairn_dtype_name(m->dtype));
        if (m->shape.rank > 4)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "mask has rank %d; it must broadcast to the 4-D scores",
                                  m->shape.rank);
        for (int i = 0; i < m->shape.rank; i++) {
            int64_t md = m->shape.d[i], fd = full[4 - m->shape.rank + i];
            if (ir_dim_known(md) && md != 1 && ir_dim_known(fd) && md != fd)
                return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                      "mask dim %d is %lld; it must be 1 or %lld to broadcast "
                                      "to the scores [B, H, Sq, Sk]",
                                      i, (long long)md, (long long)fd);
        }
    }
    int64_t o[4] = {lg[0][0], lg[0][1], lg[0][2], lg[2][3]};
    c->out[0].dtype = CAIRN_F32;
    c->out[0].shape.rank = 4;
    for (int i = 0; i < 4; i++)
        c->out[0].shape.d[i] = o[perm[3][i]];
    return CAIRN_OK;
}

/* The logical [b, h, s, d] strides of a 4-D d4 whose rows (dim 2 x dim 3
 * elements) are ld apart (ld 0: contiguous). */
static void fa_strides(const int64_t d4[4], int64_t ld, const int64_t perm[4], int64_t ls[4])
{
    int64_t st[4];
    st[3] = 1, st[2] = d4[3];
    st[1] = ld ? ld : d4[2] * d4[3];
    st[0] = st[1] * d4[1];
    for (int a = 0; a < 4; a++)
        ls[a] = st[perm[a]];
}

cairn_status_t op_fused_attn_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    int64_t perm[4][4];
    char msg[160];
    for (int t = 0; t < 4; t++)
        if (fa_perm(n, FUSED_ATTN_Q_PERM + t, perm[t], msg, sizeof msg) != CAIRN_OK)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s", msg);
    int64_t d4[3][4], off[3], ld[3];
    for (int t = 0; t < 3; t++)
        if (!fa_view(n, t, in[t].shape, in[t].rank, d4[t], &off[t], &ld[t], msg, sizeof msg))
            return base_error(CAIRN_ERR_SHAPE, "FusedAttention %s: input %d %s",
                              n->name ? n->name : "", t, msg);
    kattn_params_t p;
    memset(&p, 0, sizeof p);
    p.B = d4[0][perm[0][0]];
    p.Hq = d4[0][perm[0][1]];
    p.Sq = d4[0][perm[0][2]];
    p.D = d4[0][perm[0][3]];
    p.Hk = d4[1][perm[1][1]];
    p.Sk = d4[1][perm[1][2]];
    p.Dv = d4[2][perm[2][3]];
    if (p.Hk == 0)
        p.Hk = 1; /* then Hq is 0 too: nothing runs */
    p.q = (const float *)in[0].data + off[0];
    p.k = (const float *)in[1].data + off[1];
    p.v = (const float *)in[2].data + off[2];
    p.o = out[0].data;
    fa_strides(d4[0], ld[0], perm[0], p.qs);
    fa_strides(d4[1], ld[1], perm[1], p.ks);
    fa_strides(d4[2], ld[2], perm[2], p.vs);
    /* out axis i holds logical axis out_perm[i] */
    int64_t st[4], s = 1;
    for (int i = 3; i >= 0; i--)
        st[i] = s, s *= out[0].shape[i];
    for (int i = 0; i < 4; i++)
        p.os[perm[3][i]] = st[i];
    if (n_in > 3 && in[3].dtype != CAIRN_DTYPE_UNDEFINED && in[3].data) {
        const ktensor_t *m = &in[3];
        int64_t ms[4] = {0, 0, 0, 0};
        s = 1;
        for (int i = m->rank - 1; i >= 0; i--) {
            ms[4 - m->rank + i] = m->shape[i] == 1 ? 0 : s;
            s *= m->shape[i];
        }
        p.mask = m->data;
        memcpy(p.ms, ms, sizeof ms);
    }
    p.scale = ir_attr_f(n, FUSED_ATTN_SCALE);
    p.causal = ir_attr_i(n, FUSED_ATTN_CAUSAL) != 0;
    return kattn_f32(NULL, &p, k);
}

void op_fused_attn_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost)
{
    int64_t perm[4][4];
    char msg[160];
    for (int t = 0; t < 4; t++)
        if (fa_perm(n, FUSED_ATTN_Q_PERM + t, perm[t], msg, sizeof msg) != CAIRN_OK)
            return;
    int64_t d4[3][4], off, ld;
    for (int t = 0; t < 3; t++)
        if (!fa_view(n, t, in[t].shape, in[t].rank, d4[t], &off, &ld, msg, sizeof msg))
            return;
    double sk = (double)d4[1][perm[1][2]], d = (double)d4[0][perm[0][3]];
    double dv = (double)d4[2][perm[2][3]];
    double rows = (double)kt_numel(&out[0]) / (dv > 0 ? dv : 1);
    if (ir_attr_i(n, FUSED_ATTN_CAUSAL)) {
        /* only the allowed (query, key) pairs are computed: on average
         * (sum over i of min(Sk, max(0, i + Sk - Sq + 1))) / Sq keys a row */
        double sq = (double)d4[0][perm[0][2]], pairs = 0;
        for (double i = 0; i < sq; i++) {
            double c = i + sk - sq + 1;
            pairs += c < 0 ? 0 : c > sk ? sk : c;
        }
        sk = sq > 0 ? pairs / sq : 0;
    }
    double bytes = 0;
    for (int i = 0; i < n_in; i++)
        if (i < 3)
            bytes += (double)(d4[i][0] * d4[i][1] * d4[i][2] * d4[i][3]) * 4.0;
        else if (in[i].dtype != CAIRN_DTYPE_UNDEFINED)
            bytes += (double)kt_numel(&in[i]) * 4.0;
    for (int o = 0; o < n_out; o++)
        bytes += (double)kt_numel(&out[o]) * 4.0;
    cost->flops = rows * sk * (2.0 * d + 2.0 * dv + 4.0); /* + scale, mask, exp, sum */
    cost->bytes = bytes;
}
