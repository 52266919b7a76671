/*
 * The op table: one row per op, and the row is the truth.
 *
 * Each row names, for one op: its input/output counts, its attribute
 * schema, its type/shape inference, its reference kernel (an adapter from
 * node + tensors to a function in src/kernels/), its cost (FLOPs and bytes
 * moved), the scratch it needs, and its fusion class. Rows live in
 * src/ir/ops/<family>.def as
 *
 *   IR_OP(Name, min_in, max_in, min_out, max_out, ATTRS, INFER, EXEC, COST,
 *         WORKSPACE, FUSION)
 *
 * The macro takes every column positionally, so a row that forgets one does
 * not compile, and each function it names must exist, so a row whose code is
 * missing does not link. The enum of op ids, the table, and the name lookup
 * are all generated from the rows (op_table.c). See docs/adding-an-op.md.
 *
 * Attributes are resolved to slots when a node is created: the schema is an
 * array of ir_attr_def_t terminated by a {NULL} entry, and an op's code names
 * slots by an enum in schema order, so reading an attribute at run time is
 * an index, not a string compare.
 *
 * Ops follow the ONNX definitions at opset 17 (the frontend maps older
 * opsets onto these), in the default domain.
 */
#ifndef CAIRN_IR_OP_TABLE_H
#define CAIRN_IR_OP_TABLE_H

#include "ir/ir.h"
#include "kernels/ktensor.h"

/* Fusion classes (as TVM names them). */
typedef enum ir_fusion {
    IR_FUSE_OPAQUE = 0,        /* cannot be fused */
    IR_FUSE_ELEMENTWISE,       /* out[i] = f(in[i]) with identical shapes */
    IR_FUSE_BROADCAST,         /* elementwise with numpy broadcasting */
    IR_FUSE_INJECTIVE,         /* each output element from one input element (moves) */
    IR_FUSE_REDUCTION,         /* reduces along axes */
    IR_FUSE_OUT_ELEMENTWISE    /* heavy op whose output an elementwise chain can follow (GEMM, Conv) */
} ir_fusion_t;

const char *ir_fusion_name(ir_fusion_t f);

typedef struct ir_attr_def {
    const char *name;        /* NULL terminates a schema */
    cairn_attr_type_t type;
    int required;
    int64_t def_i;           /* default for INT */
    float def_f;             /* default for FLOAT */
    const char *def_s;       /* default for STRING */
} ir_attr_def_t;

/* Schema entry shorthands. */
#define IR_ATTR_INT(name, def) {name, CAIRN_ATTR_INT, 0, def, 0.0f, NULL}
#define IR_ATTR_FLOAT(name, def) {name, CAIRN_ATTR_FLOAT, 0, 0, def, NULL}
#define IR_ATTR_STRING(name, def) {name, CAIRN_ATTR_STRING, 0, 0, 0.0f, def}
#define IR_ATTR_INTS(name) {name, CAIRN_ATTR_INTS, 0, 0, 0.0f, NULL}
#define IR_ATTR_FLOATS(name) {name, CAIRN_ATTR_FLOATS, 0, 0, 0.0f, NULL}
#define IR_ATTR_TENSOR(name) {name, CAIRN_ATTR_TENSOR, 0, 0, 0.0f, NULL}
#define IR_ATTR_REQUIRED_INT(name) {name, CAIRN_ATTR_INT, 1, 0, 0.0f, NULL}
#define IR_ATTR_REQUIRED_INTS(name) {name, CAIRN_ATTR_INTS, 1, 0, 0.0f, NULL}
#define IR_ATTR_END {NULL, 0, 0, 0, 0.0f, NULL}

/* The empty schema, for ops without attributes. */
extern const ir_attr_def_t ir_no_attrs[];

/* What inference sees: the node, its input types (dtype UNDEFINED for an
 * omitted optional input) and constant payloads where known, and the output
 * types to fill in.
 *
 * partial != 0 while the graph is being built: dims may be symbolic or
 * unknown and values that are not constants are unknown; inference then
 * fills in what it can (IR_DIM_UNKNOWN, or rank -1) and checks only what is
 * known. partial == 0 at plan time: every input shape is concrete, and a
 * needed value that is still not known is an error (ir_infer_need_value). */
typedef struct ir_infer_ctx {
    const ir_graph_t *graph; /* for symbol names in messages; may be NULL */
    const ir_node_t *node;
    int partial;
    int n_in;
    const ir_type_t *in;
    const void *const *in_data; /* constant payload of input i, or NULL */
    int n_out;
    ir_type_t *out;
    /* Where ir_infer_value records which input's value was missing at plan
     * time (so the runtime can specialise the plan on it); may be NULL. */
    int *missing_input;
} ir_infer_ctx_t;

/* Cost of one execution with concrete shapes: FLOPs (a multiply-add is 2)
 * and the fewest bytes it must move (inputs read once + outputs written). */
typedef struct ir_cost {
    double flops;
    double bytes;
} ir_cost_t;

typedef cairn_status_t (*ir_infer_fn)(ir_infer_ctx_t *c);
/* Runs the reference kernel. Output tensors are allocated with the shapes
 * inference gave; ws is the scratch the WORKSPACE column asked for. */
typedef cairn_status_t (*ir_exec_fn)(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k);
typedef void (*ir_cost_fn)(const ir_node_t *n, const ktensor_t *in, int n_in,
                           const ktensor_t *out, int n_out, ir_cost_t *cost);
/* Bytes of scratch exec needs for these concrete shapes. */
typedef size_t (*ir_workspace_fn)(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  const ktensor_t *out, int n_out);

typedef struct ir_op_def {
    const char *name;
    int min_in, max_in, min_out, max_out;
    const ir_attr_def_t *attrs;
    ir_infer_fn infer;
    ir_exec_fn exec;
    ir_cost_fn cost;
    ir_workspace_fn workspace;
    ir_fusion_t fusion;
} ir_op_def_t;

/* Op ids, generated from the rows. */
enum ir_op_id {
#define IR_OP(NAME, ...) IR_OP_##NAME,
#include "ir/ops/all.def"
#undef IR_OP
    IR_OP_COUNT
};

extern const ir_op_def_t ir_op_table[IR_OP_COUNT];

/* Op id by ONNX name, -1 if cairn has no such op. */
int ir_op_find(const char *name);
static inline const ir_op_def_t *ir_op_def(int op) { return &ir_op_table[op]; }
int ir_op_attr_count(const ir_op_def_t *d);

/* Runs node n's inference against the value types in g (partial: see
 * ir_infer_ctx_t), writing n->n_outputs types into out_types. */
cairn_status_t ir_infer_node(const ir_graph_t *g, const ir_node_t *n, int partial,
                             ir_type_t *out_types);

/* ---- attribute access by slot (the op's schema index) ---- */
const ir_attr_t *ir_attr_at(const ir_node_t *n, int slot); /* NULL if not set */
int64_t ir_attr_i(const ir_node_t *n, int slot);  /* value or schema default */
float ir_attr_f(const ir_node_t *n, int slot);
const char *ir_attr_s(const ir_node_t *n, int slot);
/* List attributes: pointer and count (NULL/0 when not set). */
const int64_t *ir_attr_ints(const ir_node_t *n, int slot, size_t *count);
const float *ir_attr_floats(const ir_node_t *n, int slot, size_t *count);

/* ---- helpers for inference code ---- */

/* Error about node c->node with its op name in front:
 *   node 'name' (Op): <message> */
cairn_status_t ir_infer_error(const ir_infer_ctx_t *c, cairn_status_t s, const char *fmt, ...)
    BASE_PRINTF(3, 4);

/* The constant value of input i, or NULL. When not known and !partial this
 * records an error (so: if (!p && !c->partial) return that status). */
const void *ir_infer_value(const ir_infer_ctx_t *c, int i);

/* Reads element k of input i's constant payload as int64 (input must be an
 * integer type); caller has checked ir_infer_value(c, i) != NULL. */
int64_t ir_infer_value_i64(const ir_infer_ctx_t *c, int i, int64_t k);

/* Checks input i has one of the given dtypes (terminated by UNDEFINED). */
cairn_status_t ir_infer_check_dtype(const ir_infer_ctx_t *c, int i, const cairn_dtype_t *allowed);
/* Checks inputs i and j have the same dtype. */
cairn_status_t ir_infer_same_dtype(const ir_infer_ctx_t *c, int i, int j);
/* Sets output o to an unknown shape of the given dtype (partial mode). */
void ir_infer_unknown(ir_infer_ctx_t *c, int o, cairn_dtype_t dtype, int rank);

/* Dtype lists for ir_infer_check_dtype. */
extern const cairn_dtype_t ir_dtypes_float[];   /* f16 bf16 f32 f64 */
extern const cairn_dtype_t ir_dtypes_numeric[]; /* floats and ints (not bool) */
extern const cairn_dtype_t ir_dtypes_all[];     /* every cairn dtype */
extern const cairn_dtype_t ir_dtypes_int[];     /* i8 i16 i32 i64 u8 */
extern const cairn_dtype_t ir_dtypes_index[];   /* i32 i64 */

/* Generic columns shared by many rows. */
size_t ir_no_workspace(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                       int n_out);
/* Cost of a pure data movement / elementwise op: 0 or numel FLOPs, bytes of
 * all inputs and outputs. */
void ir_cost_move(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                  int n_out, ir_cost_t *cost);
void ir_cost_eltwise(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                     int n_out, ir_cost_t *cost);

#endif
