/*
 * FusedElementwise(x0, ..., x7): a chain or tree of f32 elementwise ops
 * made into one op by the fuse_eltwise pass (src/compiler/fuse_eltwise.c),
 * run in one pass over memory by src/kernels/eltwise/fused*.
 *
 * Attributes: "program", three ints per instruction (opcode, a, b) of an
 * SSA program over registers (r0..r{n_in-1} the inputs, instruction j
 * writes r{n_in+j}, the last one is the output; see kernels/eltwise/
 * fused.h for the opcodes), and "imms", the immediates the program reads
 * (scalar constants, Clip bounds, LeakyRelu's alpha).
 *
 * Every input is f32, or u8 / i8 read only by dequant instructions (a
 * DequantizeLinear fused in); "out_type" is f32, or u8 / i8 when the last
 * instruction is quant (a QuantizeLinear fused in). Against the output
 * (the numpy broadcast of all inputs) every input is full, a scalar (one
 * element), or a row: after dropping its
 * leading 1s, its dims equal the output's trailing dims (a bias [C] against
 * [N, C]). Other broadcasts are an error here; the pass never makes them.
 * Cost: the program's nominal FLOPs per element times the output's
 * elements; bytes: every input read once and the output written once.
 */
#include "base/dtype.h"
#include "ir/op_table.h"
#include "ir/ops/fused.h"
#include "kernels/eltwise/fused.h"

#include <stdio.h>
#include <string.h>

cairn_status_t op_fused_eltwise_infer(ir_infer_ctx_t *c);
cairn_status_t op_fused_eltwise_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_fused_eltwise_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                           const ktensor_t *out, int n_out, ir_cost_t *cost);

const ir_attr_def_t op_fused_eltwise_attrs[] = {IR_ATTR_REQUIRED_INTS("program"),
                                                IR_ATTR_FLOATS("imms"),
                                                IR_ATTR_INT("out_type", CAIRN_F32), IR_ATTR_END};

/* The node's program as the kernel takes it; code must hold
 * 3 * EFUSED_MAX_INSTR int32s. Checked (efused_check) unless the count or
 * values are already out of range. */
static cairn_status_t fe_program(const ir_node_t *n, int n_in, int32_t *code, efused_prog_t *p)
{
    size_t nc = 0, ni = 0;
    const int64_t *prog = ir_attr_ints(n, FUSED_ELT_PROGRAM, &nc);
    const float *imm = ir_attr_floats(n, FUSED_ELT_IMMS, &ni);
    if (nc == 0 || nc % 3 != 0 || nc > 3 * EFUSED_MAX_INSTR)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "program must hold 3 ints per instruction, 1 to %d instructions; got "
                          "%zu ints",
                          EFUSED_MAX_INSTR, nc);
    for (size_t i = 0; i < nc; i++) {
        if (prog[i] < -1 || prog[i] > 1000)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "program int %zu is %lld, out of range", i, (long long)prog[i]);
        code[i] = (int32_t)prog[i];
    }
    p->n_in = n_in;
    p->n_instr = (int)(nc / 3);
    p->code = code;
    p->n_imm = (int)(ni > EFUSED_MAX_IMM + 1 ? EFUSED_MAX_IMM + 1 : ni);
    p->imm = imm;
    return efused_check(p);
}

void op_fused_eltwise_describe(const ir_node_t *n, char *buf, size_t cap)
{
    int32_t code[3 * EFUSED_MAX_INSTR];
    efused_prog_t p;
    if (cap)
        buf[0] = 0;
    if (fe_program(n, n->n_inputs, code, &p) != CAIRN_OK) {
        base_error_clear();
        snprintf(buf, cap, "invalid program");
        return;
    }
    efused_format(&p, buf, cap);
}

/* t is a row of out: its dims after its leading 1s equal out's trailing
 * dims. -1: not known yet (unknown dims), 0: no, 1: yes. */
static int fe_is_row(const ir_shape_t *t, const ir_shape_t *out)
{
    int f = 0;
    while (f < t->rank && t->d[f] == 1)
        f++;
    int len = t->rank - f;
    if (len > out->rank)
        return 0;
    int unknown = 0;
    for (int i = 0; i < len; i++) {
        int64_t a = t->d[f + i], b = out->d[out->rank - len + i];
        if (a == IR_DIM_UNKNOWN || b == IR_DIM_UNKNOWN)
            unknown = 1;
        else if (a != b)
            return 0;
    }
    return unknown ? -1 : 1;
}

cairn_status_t op_fused_eltwise_infer(ir_infer_ctx_t *c)
{
    int32_t code[3 * EFUSED_MAX_INSTR];
    efused_prog_t p;
    BASE_TRY(fe_program(c->node, c->n_in, code, &p));
    const cairn_dtype_t ot = (cairn_dtype_t)ir_attr_i(c->node, FUSED_ELT_OUT_TYPE);
    cairn_dtype_t in_dt[EFUSED_MAX_IN];
    for (int i = 0; i < c->n_in; i++)
        in_dt[i] = c->in[i].dtype;
    BASE_TRY(efused_check_types(&p, in_dt, ot));
    ir_shape_t s = c->in[0].shape;
    for (int i = 1; i < c->n_in; i++) {
        ir_shape_t t;
        BASE_TRY(ir_shape_broadcast(&s, &c->in[i].shape, &t));
        s = t;
    }
    if (s.rank < 0) {
        ir_infer_unknown(c, 0, ot, -1);
        return CAIRN_OK;
    }
    for (int i = 0; i < c->n_in; i++) {
        const ir_shape_t *t = &c->in[i].shape;
        if (t->rank < 0 || ir_shape_numel(t) == 1)
            continue;
        int row = fe_is_row(t, &s);
        if (row == 0 || (row < 0 && !c->partial)) {
            char st[128], so[128];
            return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED,
                                  "input %d %s is neither the output's shape %s, a scalar, nor a "
                                  "row of its trailing dims",
                                  i, ir_shape_str(c->graph, t, st, sizeof st),
                                  ir_shape_str(c->graph, &s, so, sizeof so));
        }
    }
    c->out[0].dtype = ot;
    c->out[0].shape = s;
    return CAIRN_OK;
}

cairn_status_t op_fused_eltwise_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws;
    int32_t code[3 * EFUSED_MAX_INSTR];
    efused_prog_t p;
    efused_input_t fin[EFUSED_MAX_IN];
    if (n_in > EFUSED_MAX_IN)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%d inputs, at most %d", n_in,
                          EFUSED_MAX_IN);
    BASE_TRY(fe_program(n, n_in, code, &p));
    for (int i = 0; i < n_in; i++)
        fin[i] = (efused_input_t){in[i].data, kt_numel(&in[i]), in[i].dtype};
    return efused_run(NULL, &p, fin, out[0].data, out[0].dtype, kt_numel(&out[0]), k);
}

void op_fused_eltwise_cost(const ir_node_t *n, const ktensor_t *in, int n_in,
                           const ktensor_t *out, int n_out, ir_cost_t *cost)
{
    int32_t code[3 * EFUSED_MAX_INSTR];
    efused_prog_t p;
    ir_cost_move(n, in, n_in, out, n_out, cost);
    if (fe_program(n, n_in, code, &p) != CAIRN_OK) {
        base_error_clear();
        return;
    }
    cost->flops = efused_flops_per_element(&p) * (double)kt_numel(&out[0]);
}

const float *op_fused_eltwise_qdq(const ir_node_t *n)
{
    if (n->op != IR_OP_FusedElementwise || n->n_inputs != 1)
        return NULL;
    size_t nc = 0, nf = 0;
    const int64_t *code = ir_attr_ints(n, FUSED_ELT_PROGRAM, &nc);
    const float *imm = ir_attr_floats(n, FUSED_ELT_IMMS, &nf);
    return nc == 3 && code[0] == EFU_QDQ && code[1] == 0 && code[2] == 0 && nf == 4 ? imm : NULL;
}
