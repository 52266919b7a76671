/* The op table, generated from the rows in ops/<family>.def (see op_table.h). */
#include "ir/op_table.h"

#include <string.h>

typedef cairn_status_t ir_infer_f(ir_infer_ctx_t *c);
typedef cairn_status_t ir_exec_f(const ir_node_t *n, const ktensor_t *in, int n_in,
                                 ktensor_t *out, int n_out, void *ws, const kctx_t *k);
typedef void ir_cost_f(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                       int n_out, ir_cost_t *cost);
typedef size_t ir_workspace_f(const ir_node_t *n, const ktensor_t *in, int n_in,
                              const ktensor_t *out, int n_out);

/* Declare every function and schema a row names (repeats are harmless). */
#define IR_OP(NAME, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, ATTRS, INFER, EXEC, COST, WS, FUSION) \
    extern const ir_attr_def_t ATTRS[];                                                    \
    ir_infer_f INFER;                                                                      \
    ir_exec_f EXEC;                                                                        \
    ir_cost_f COST;                                                                        \
    ir_workspace_f WS;
#include "ir/ops/all.def"
#undef IR_OP

const ir_op_def_t ir_op_table[IR_OP_COUNT] = {
#define IR_OP(NAME, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, ATTRS, INFER, EXEC, COST, WS, FUSION) \
    [IR_OP_##NAME] = {#NAME, MIN_IN, MAX_IN, MIN_OUT, MAX_OUT, ATTRS, INFER, EXEC, COST, WS, FUSION},
#include "ir/ops/all.def"
#undef IR_OP
};

/* Every row must have been filled: the designated initialisers above leave
 * no hole unless a row is missing, which the count check catches. */
#define IR_OP(NAME, ...) +1
_Static_assert(0
#include "ir/ops/all.def"
                   == IR_OP_COUNT,
               "op table rows and op ids disagree");
#undef IR_OP

const ir_attr_def_t ir_no_attrs[] = {IR_ATTR_END};

int ir_op_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < IR_OP_COUNT; i++)
        if (strcmp(ir_op_table[i].name, name) == 0)
            return i;
    return -1;
}

int ir_op_attr_count(const ir_op_def_t *d)
{
    int n = 0;
    while (d->attrs[n].name)
        n++;
    return n;
}

const char *ir_fusion_name(ir_fusion_t f)
{
    switch (f) {
    case IR_FUSE_OPAQUE: return "opaque";
    case IR_FUSE_ELEMENTWISE: return "elementwise";
    case IR_FUSE_BROADCAST: return "broadcast";
    case IR_FUSE_INJECTIVE: return "injective";
    case IR_FUSE_REDUCTION: return "reduction";
    case IR_FUSE_OUT_ELEMENTWISE: return "out-elementwise";
    }
    return "?";
}

size_t ir_no_workspace(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                       int n_out)
{
    (void)n, (void)in, (void)n_in, (void)out, (void)n_out;
    return 0;
}

static double bytes_of(const ktensor_t *t, int n)
{
    double b = 0;
    for (int i = 0; i < n; i++)
        if (t[i].dtype != CAIRN_DTYPE_UNDEFINED)
            b += (double)kt_numel(&t[i]) * (double)cairn_dtype_size(t[i].dtype);
    return b;
}

void ir_cost_move(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                  int n_out, ir_cost_t *cost)
{
    (void)n;
    cost->flops = 0;
    cost->bytes = bytes_of(in, n_in) + bytes_of(out, n_out);
}

void ir_cost_eltwise(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                     int n_out, ir_cost_t *cost)
{
    (void)n;
    cost->flops = n_out > 0 ? (double)kt_numel(&out[0]) : 0;
    cost->bytes = bytes_of(in, n_in) + bytes_of(out, n_out);
}
