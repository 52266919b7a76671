/*
 * Elementwise fusion: a tree of f32 elementwise nodes whose intermediate
 * values have no other reader becomes one FusedElementwise node, which
 * reads each input once and writes the result once (unfused, every node
 * reads and writes a whole tensor: a chain of k binary ops moves about
 * 3k tensors' bytes, the fused node k + 2 at most).
 *
 * It runs after the epilogue fusions (fuse_conv, fuse_attention,
 * fuse_gemm), so an activation or residual that a GEMM or Conv can apply
 * per tile stays there, and before prepack. Walking the nodes from the
 * last, each fusable node not yet taken is the root of a group that grows
 * towards its inputs: the producer of an input joins when it is fusable,
 * its output has the root's shape, is read only by the group (one use) and
 * is not a graph output. Growth stops at EFUSED_MAX_IN distinct inputs or
 * EFUSED_MAX_INSTR instructions. A group of at least two nodes is replaced
 * (rw_replace, at the root's slot).
 *
 * Fusable, and reproduced bit for bit by the kernel: f32 Add, Sub, Mul,
 * Div, two-input Min and Max, Pow with a constant scalar exponent 2 (as
 * x*x, which the unfused kernel also uses), Relu, Neg, Abs, Sqrt,
 * Reciprocal, Exp, Log, Tanh, Sigmoid, Erf, Gelu, Clip with constant (or
 * absent) bounds, LeakyRelu, and the one-instruction qdq nodes that
 * fuse_qdq makes of QuantizeLinear -> DequantizeLinear pairs; and, with
 * constant per-tensor parameters, DequantizeLinear of an 8-bit tensor (the
 * group reads the 8-bit tensor: a dequant instruction) and QuantizeLinear
 * as the group's root (its output 8-bit: quant), so that a QDQ model's
 * residual sums and onnxruntime's QLinearAdd / QLinearMul become one pass
 * over 8-bit data. Each input must be, against the node's
 * output, of the same shape, a scalar, or a row (trailing dims); scalar
 * constants become immediates of the program. Anything else (integer or
 * f16 types, column or mixed broadcasts, other Pow exponents, Where) is
 * left alone.
 */
#include "compiler/rewrite.h"

#include "ir/ops/fused.h"
#include "kernels/eltwise/fused.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Nodes one group may hold (every node is at least one instruction). */
#define FE_MAX_NODES EFUSED_MAX_INSTR

/* How one node maps to an instruction. */
typedef struct fe_info {
    int opc;        /* efused_opc_t */
    int n_data;     /* data inputs read (1 or 2): inputs[0], [1] */
    int square;     /* Pow(x, 2): opc MUL reading input 0 twice */
    int n_imm;      /* immediates the instruction takes (Clip 2, LeakyRelu 1, qdq 4) */
    float imm[4];
} fe_info_t;

/* Every dim known or a named symbol (bound the same everywhere). */
static int fe_definite(const ir_shape_t *s)
{
    if (s->rank < 0)
        return 0;
    for (int i = 0; i < s->rank; i++)
        if (s->d[i] == IR_DIM_UNKNOWN)
            return 0;
    return 1;
}

/* t against the output shape o: same shape, one element, or a row (after
 * t's leading 1s, its dims equal o's trailing dims). */
static int fe_input_ok(const ir_shape_t *t, const ir_shape_t *o)
{
    if (!fe_definite(t))
        return 0;
    if (ir_shape_equal(t, o) || ir_shape_numel(t) == 1)
        return 1;
    int f = 0;
    while (f < t->rank && t->d[f] == 1)
        f++;
    int len = t->rank - f;
    if (len > o->rank)
        return 0;
    for (int i = 0; i < len; i++)
        if (t->d[f + i] != o->d[o->rank - len + i])
            return 0;
    return 1;
}

static int fe_unary_opc(int op)
{
    switch (op) {
    case IR_OP_Relu: return EFU_RELU;
    case IR_OP_Neg: return EFU_NEG;
    case IR_OP_Abs: return EFU_ABS;
    case IR_OP_Sqrt: return EFU_SQRT;
    case IR_OP_Reciprocal: return EFU_RECIP;
    case IR_OP_Exp: return EFU_EXP;
    case IR_OP_Log: return EFU_LOG;
    case IR_OP_Tanh: return EFU_TANH;
    case IR_OP_Sigmoid: return EFU_SIGMOID;
    case IR_OP_Erf: return EFU_ERF;
    default: return -1;
    }
}

static int fe_binary_opc(int op)
{
    switch (op) {
    case IR_OP_Add: return EFU_ADD;
    case IR_OP_Sub: return EFU_SUB;
    case IR_OP_Mul: return EFU_MUL;
    case IR_OP_Div: return EFU_DIV;
    case IR_OP_Min: return EFU_MIN;
    case IR_OP_Max: return EFU_MAX;
    default: return -1;
    }
}

/* A constant f32 scalar bound of Clip (absent: def). */
static int fe_clip_bound(const ir_graph_t *g, const ir_node_t *n, int i, float def, float *out)
{
    if (i >= n->n_inputs || n->inputs[i] < 0) {
        *out = def;
        return 1;
    }
    const ir_value_t *v = &g->values[n->inputs[i]];
    double d;
    if (v->type.dtype != CAIRN_F32 || !rw_const_scalar(g, n->inputs[i], &d))
        return 0;
    *out = (float)d;
    return 1;
}

/* Node ni is fusable: fills *fi. */
/* A DequantizeLinear / QuantizeLinear node's constant scalar scale and
 * zero point (absent: 0) of the 8-bit type qt; 0 when not per tensor. */
static int fe_q_params(const ir_graph_t *g, const ir_node_t *n, cairn_dtype_t qt, float *s,
                       float *z)
{
    double d;
    if (n->n_inputs < 2 || g->values[n->inputs[1]].type.dtype != CAIRN_F32 ||
        !rw_const_scalar(g, n->inputs[1], &d))
        return 0;
    *s = (float)d, *z = 0;
    if (n->n_inputs < 3 || n->inputs[2] < 0)
        return 1;
    const ir_value_t *zv = &g->values[n->inputs[2]];
    if (zv->type.dtype != qt || zv->kind != IR_VALUE_CONSTANT || !zv->data ||
        ir_shape_numel(&zv->type.shape) != 1)
        return 0;
    *z = qt == CAIRN_U8 ? (float)*(const uint8_t *)zv->data : (float)*(const int8_t *)zv->data;
    return 1;
}

static int fe_q8(cairn_dtype_t t) { return t == CAIRN_U8 || t == CAIRN_I8; }

/* root: n would be the group's root, where a QuantizeLinear may end it */
static int fe_classify(const rw_t *r, int ni, int root, fe_info_t *fi)
{
    const ir_graph_t *g = r->g;
    const ir_node_t *n = &g->nodes[ni];
    memset(fi, 0, sizeof *fi);
    if (r->dead[ni] || n->n_outputs != 1)
        return 0;
    const ir_type_t *ot = &g->values[n->outputs[0]].type;
    if (!fe_definite(&ot->shape))
        return 0;
    if (n->op == IR_OP_QuantizeLinear || n->op == IR_OP_DequantizeLinear) {
        /* per tensor, constant parameters: a DequantizeLinear of an 8-bit
         * input (dequant), a QuantizeLinear ending the group (quant, the
         * group's output then 8-bit) */
        const int q = n->op == IR_OP_QuantizeLinear;
        const cairn_dtype_t xt = g->values[n->inputs[0]].type.dtype;
        const cairn_dtype_t qt = q ? ot->dtype : xt;
        if ((q && (!root || xt != CAIRN_F32)) || !fe_q8(qt) || (!q && ot->dtype != CAIRN_F32) ||
            !ir_shape_equal(&g->values[n->inputs[0]].type.shape, &ot->shape))
            return 0;
        float s, z;
        if (!fe_q_params(g, n, qt, &s, &z))
            return 0;
        fi->opc = q ? EFU_QUANT : EFU_DEQUANT, fi->n_data = 1;
        if (q) {
            fi->n_imm = 4;
            fi->imm[0] = s, fi->imm[1] = z;
            fi->imm[2] = qt == CAIRN_U8 ? 0.0f : -128.0f, fi->imm[3] = qt == CAIRN_U8 ? 255.0f : 127.0f;
        } else {
            fi->n_imm = 2;
            fi->imm[0] = z, fi->imm[1] = s;
        }
        return 1;
    }
    if (ot->dtype != CAIRN_F32)
        return 0;
    int opc = fe_binary_opc(n->op);
    if (opc >= 0) {
        if (n->n_inputs != 2)
            return 0;
        fi->n_data = 2;
    } else if ((opc = fe_unary_opc(n->op)) >= 0) {
        fi->n_data = 1;
    } else if (n->op == IR_OP_Pow) {
        double e;
        if (n->n_inputs != 2 || !rw_const_scalar(g, n->inputs[1], &e) || e != 2.0)
            return 0;
        opc = EFU_MUL, fi->n_data = 1, fi->square = 1;
    } else if (n->op == IR_OP_Gelu) {
        const char *a = ir_attr_s(n, 0); /* approximate */
        if (!a || (strcmp(a, "none") && strcmp(a, "tanh")))
            return 0;
        opc = strcmp(a, "tanh") ? EFU_GELU_ERF : EFU_GELU_TANH;
        fi->n_data = 1;
    } else if (n->op == IR_OP_Clip) {
        if (!fe_clip_bound(g, n, 1, -INFINITY, &fi->imm[0]) ||
            !fe_clip_bound(g, n, 2, INFINITY, &fi->imm[1]))
            return 0;
        opc = EFU_CLIP, fi->n_data = 1, fi->n_imm = 2;
    } else if (n->op == IR_OP_LeakyRelu) {
        opc = EFU_LEAKY, fi->n_data = 1, fi->n_imm = 1;
        fi->imm[0] = ir_attr_f(n, 0); /* alpha */
    } else if (n->op == IR_OP_FusedElementwise) {
        /* a QuantizeLinear -> DequantizeLinear pair as fuse_qdq leaves it */
        const float *imm = op_fused_eltwise_qdq(n);
        if (!imm)
            return 0;
        opc = EFU_QDQ, fi->n_data = 1, fi->n_imm = 4;
        memcpy(fi->imm, imm, sizeof fi->imm);
    } else {
        return 0;
    }
    for (int i = 0; i < fi->n_data; i++) {
        int v = n->inputs[i];
        if (v < 0 || g->values[v].type.dtype != CAIRN_F32 ||
            !fe_input_ok(&g->values[v].type.shape, &ot->shape))
            return 0;
    }
    fi->opc = opc;
    return 1;
}

/* A group and the program made from it. */
typedef struct fe_group {
    int nodes[FE_MAX_NODES];
    fe_info_t info[FE_MAX_NODES];
    int n;
    int inputs[EFUSED_MAX_IN];
    int n_in;
    int64_t code[3 * EFUSED_MAX_INSTR];
    int n_instr;
    float imm[EFUSED_MAX_IMM];
    int n_imm;
} fe_group_t;

static int fe_member(const fe_group_t *G, int node)
{
    for (int i = 0; i < G->n; i++)
        if (G->nodes[i] == node)
            return i;
    return -1;
}

/* A value the program reads as an immediate: a constant f32 scalar. */
static int fe_is_imm(const ir_graph_t *g, int v, float *out)
{
    double d;
    if (g->values[v].type.dtype != CAIRN_F32 || !rw_const_scalar(g, v, &d))
        return 0;
    *out = (float)d;
    return 1;
}

static int fe_cmp_member(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Builds G's program (members in graph order, the root last); 0 when it
 * exceeds a limit. */
static int fe_build(const ir_graph_t *g, fe_group_t *G)
{
    int order[FE_MAX_NODES];
    memcpy(order, G->nodes, (size_t)G->n * sizeof(int));
    qsort(order, (size_t)G->n, sizeof(int), fe_cmp_member);
    /* the inputs: values read from outside, but scalar constants */
    G->n_in = 0;
    for (int k = 0; k < G->n; k++) {
        const int m = fe_member(G, order[k]);
        const ir_node_t *n = &g->nodes[order[k]];
        for (int i = 0; i < G->info[m].n_data; i++) {
            int v = n->inputs[i], p = g->values[v].producer;
            float c;
            if ((p >= 0 && fe_member(G, p) >= 0) || fe_is_imm(g, v, &c))
                continue;
            int seen = 0;
            for (int j = 0; j < G->n_in; j++)
                seen |= G->inputs[j] == v;
            if (seen)
                continue;
            if (G->n_in == EFUSED_MAX_IN)
                return 0;
            G->inputs[G->n_in++] = v;
        }
    }
    if (G->n_in == 0)
        return 0; /* all constants: folding's business */
    /* the instructions; reg_of[k]: the register of member order[k] */
    int reg_of[FE_MAX_NODES];
    int imm_val[EFUSED_MAX_INSTR], imm_reg[EFUSED_MAX_INSTR], n_imm_regs = 0;
    G->n_instr = 0;
    G->n_imm = 0;
#define FE_EMIT(o, a, b)                                         \
    do {                                                         \
        if (G->n_instr == EFUSED_MAX_INSTR)                      \
            return 0;                                            \
        G->code[3 * G->n_instr] = (o);                           \
        G->code[3 * G->n_instr + 1] = (a);                       \
        G->code[3 * G->n_instr + 2] = (b);                       \
        G->n_instr++;                                            \
    } while (0)
    for (int k = 0; k < G->n; k++) {
        const int m = fe_member(G, order[k]);
        const ir_node_t *n = &g->nodes[order[k]];
        const fe_info_t *fi = &G->info[m];
        int reg[2] = {0, 0};
        for (int i = 0; i < fi->n_data; i++) {
            int v = n->inputs[i], p = g->values[v].producer, pm;
            float c;
            if (p >= 0 && (pm = fe_member(G, p)) >= 0) {
                int kk = 0;
                while (order[kk] != p)
                    kk++;
                reg[i] = reg_of[kk];
            } else if (fe_is_imm(g, v, &c)) {
                int found = -1;
                for (int j = 0; j < n_imm_regs; j++)
                    if (imm_val[j] == v)
                        found = imm_reg[j];
                if (found < 0) {
                    if (G->n_imm == EFUSED_MAX_IMM || n_imm_regs == EFUSED_MAX_INSTR)
                        return 0;
                    G->imm[G->n_imm] = c;
                    FE_EMIT(EFU_IMM, G->n_imm, 0);
                    G->n_imm++;
                    found = G->n_in + G->n_instr - 1;
                    imm_val[n_imm_regs] = v;
                    imm_reg[n_imm_regs++] = found;
                }
                reg[i] = found;
            } else {
                for (int j = 0; j < G->n_in; j++)
                    if (G->inputs[j] == v)
                        reg[i] = j;
            }
        }
        int b = 0;
        if (fi->square) {
            b = reg[0];
        } else if (fi->n_data == 2) {
            b = reg[1];
        } else if (fi->n_imm) {
            if (G->n_imm + fi->n_imm > EFUSED_MAX_IMM)
                return 0;
            b = G->n_imm;
            for (int j = 0; j < fi->n_imm; j++)
                G->imm[G->n_imm++] = fi->imm[j];
        }
        FE_EMIT(fi->opc, reg[0], b);
        reg_of[k] = G->n_in + G->n_instr - 1;
    }
#undef FE_EMIT
    return 1;
}

/* Grows a group from root; replaces it when it has two nodes or more. */
static cairn_status_t fe_fuse_from(rw_t *r, int root)
{
    const ir_graph_t *g = r->g;
    fe_group_t G;
    memset(&G, 0, sizeof G);
    if (!fe_classify(r, root, 1, &G.info[0]))
        return CAIRN_OK;
    G.nodes[0] = root;
    G.n = 1;
    const ir_shape_t *os = &g->values[g->nodes[root].outputs[0]].type.shape;
    /* breadth first over the members' inputs; members only append */
    for (int k = 0; k < G.n; k++) {
        const ir_node_t *n = &g->nodes[G.nodes[k]];
        for (int i = 0; i < G.info[k].n_data && G.n < FE_MAX_NODES; i++) {
            int v = n->inputs[i];
            int p = rw_producer(r, v, -1);
            if (p < 0 || fe_member(&G, p) >= 0 || r->uses[v] != 1 || r->is_out[v] ||
                !ir_shape_equal(&g->values[v].type.shape, os) ||
                !fe_classify(r, p, 0, &G.info[G.n]))
                continue;
            G.nodes[G.n++] = p;
            fe_group_t trial = G;
            if (!fe_build(g, &trial))
                G.n--; /* over a limit: p stays outside */
        }
    }
    if (G.n < 2 || !fe_build(g, &G) || !rw_group_closed(r, root, G.nodes, G.n))
        return CAIRN_OK;
    cairn_attr_t attrs[3];
    int na = 0;
    attrs[na++] = cairn_attr_ints("program", G.code, (size_t)(3 * G.n_instr));
    if (G.n_imm)
        attrs[na++] = cairn_attr_floats("imms", G.imm, (size_t)G.n_imm);
    if (G.info[0].opc == EFU_QUANT) /* the root is a QuantizeLinear: an 8-bit output */
        attrs[na++] = cairn_attr_int("out_type", g->values[g->nodes[root].outputs[0]].type.dtype);
    return rw_try_replace(r, root, IR_OP_FusedElementwise, G.inputs, G.n_in, attrs, na, G.nodes,
                          G.n);
}

cairn_status_t pass_fuse_eltwise(ir_graph_t *g, const pass_ctx_t *c)
{
    (void)c;
    rw_t r;
    BASE_TRY(rw_init(&r, g));
    cairn_status_t s = CAIRN_OK;
    for (int i = g->n_nodes - 1; i >= 0 && s == CAIRN_OK; i--)
        if (!r.dead[i])
            s = fe_fuse_from(&r, i);
    if (s != CAIRN_OK) {
        rw_free(&r);
        return s;
    }
    return rw_finish(&r);
}
