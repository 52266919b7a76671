/*
 * The graph IR: values, nodes, attributes, graphs.
 *
 * A graph is two arrays: values (tensors: graph inputs, constants, and node
 * outputs) and nodes (an op from the op table, its attributes, the ids of
 * its input and output values, and the names of the source-model nodes it
 * stands for, so a fused step can name every ONNX node it covers). Values
 * and nodes are referred to by index; an absent optional input is -1.
 *
 * Shapes may be symbolic while the graph is built: a dim is either a size
 * (>= 0), a named symbol (IR_DIM_SYM(id), bound at run time), or unknown
 * (IR_DIM_UNKNOWN, e.g. the output of a Reshape whose shape is computed).
 * A rank of -1 means even the rank is unknown. The runtime binds every
 * symbol from the input shapes and infers concrete shapes before it plans.
 *
 * Nodes are kept in topological order: an input must exist before a node
 * that reads it is added. ir_verify() checks that and everything else.
 */
#ifndef CAIRN_IR_IR_H
#define CAIRN_IR_IR_H

#include "base/status.h"
#include "cairn.h"

#include <stddef.h>
#include <stdint.h>

#define IR_DIM_UNKNOWN INT64_MIN
#define IR_DIM_SYM(id) (-(int64_t)(id)-1)
static inline int ir_dim_is_sym(int64_t d) { return d < 0 && d != IR_DIM_UNKNOWN; }
static inline int ir_dim_sym_id(int64_t d) { return (int)(-(d + 1)); }
static inline int ir_dim_known(int64_t d) { return d >= 0; }

typedef struct ir_shape {
    int rank; /* -1: unknown rank */
    int64_t d[CAIRN_MAX_RANK];
} ir_shape_t;

/* A value's type: element type and shape. */
typedef struct ir_type {
    cairn_dtype_t dtype;
    ir_shape_t shape;
} ir_type_t;

typedef enum ir_value_kind {
    IR_VALUE_INTERMEDIATE = 0, /* produced by a node */
    IR_VALUE_INPUT,            /* a graph input */
    IR_VALUE_CONSTANT          /* a weight or folded constant: data is set */
} ir_value_kind_t;

/* A constant's payload, shared by reference count: ir_graph_clone and the
 * compiler's passes hand the same blob to every graph that holds the
 * constant instead of copying it. Constants are immutable once their blob
 * is attached to a value, so sharing needs no copy-on-write; the last
 * ir_blob_unref frees the bytes. The count is atomic so sessions made
 * from one graph on different threads may share it. */
typedef struct ir_blob {
    _Atomic long refs;
    size_t size;
    void *data;        /* BASE_ALIGN-aligned, never NULL (even for 0 bytes) */
    int mapped;        /* data is its own anonymous mapping (large blobs) */
    size_t map_len;    /* the mapping's length from data, when mapped */
    struct ir_blob *parent; /* a view: data lies in parent's bytes, kept alive
                               by a reference (ir_blob_view) */
} ir_blob_t;

/* A new blob of `bytes` uninitialised bytes with one reference; NULL when
 * out of memory. Large ones (>= 64 KiB) are mapped on their own, so freeing
 * one returns its memory to the system at once: weights freed while
 * others are allocated (pre-packing, the place pass's copies) leave no
 * holes in the heap (with the threshold at 1 MiB, placing MobileNetV2's
 * weights, mostly 100-600 KB each, raised its peak RSS 25 -> 33 MB). */
ir_blob_t *ir_blob_alloc(size_t bytes);
/* Wraps data (from base_aligned_alloc, `bytes` long) in a blob with one
 * reference. The blob owns data from now on: on failure (NULL) data has
 * already been freed. */
ir_blob_t *ir_blob_adopt(void *data, size_t bytes);
/* A blob of `bytes` uninitialised bytes in an anonymous mapping of its own
 * that starts on a 2 MiB boundary and is asked to be backed by transparent
 * huge pages (where base_huge_pages() allows; the kernel may still refuse,
 * and the bytes past the last whole 2 MiB are ordinary pages). For the
 * plan's constants placed together (compiler pass place): weights read
 * once per run from memory cost a TLB miss and a restart of the hardware
 * prefetcher per 4 KiB page otherwise. NULL when out of memory. */
ir_blob_t *ir_blob_alloc_huge(size_t bytes);
/* A blob that is bytes [offset, offset + bytes) of parent's (offset a
 * multiple of BASE_ALIGN, the range inside parent), with one reference;
 * it holds a reference to parent until its own last one goes. NULL when
 * out of memory or the range is outside parent. */
ir_blob_t *ir_blob_view(ir_blob_t *parent, size_t offset, size_t bytes);
ir_blob_t *ir_blob_ref(ir_blob_t *b); /* returns b; b may be NULL */
void ir_blob_unref(ir_blob_t *b);     /* b may be NULL */

typedef struct ir_value {
    char *name;
    ir_type_t type;
    ir_value_kind_t kind;
    /* A constant's payload: blob holds the reference, data and data_bytes
     * mirror blob->data and blob->size for readers. Set them only with
     * ir_value_set_blob. NULL/0 for non-constants. */
    ir_blob_t *blob;
    void *data;
    size_t data_bytes;
    int producer;      /* node index, or -1 */
} ir_value_t;

/* Makes b (may be NULL) the value's payload, taking a new reference to it
 * and dropping the one to the previous payload. */
void ir_value_set_blob(ir_value_t *v, ir_blob_t *b);

typedef struct ir_attr {
    char *name;
    cairn_attr_type_t type;
    int64_t i;
    float f;
    char *s;
    int64_t *ints;
    float *floats;
    size_t n;
    ir_type_t t_type;  /* CAIRN_ATTR_TENSOR: type (concrete) and data */
    void *t_data;
} ir_attr_t;

typedef struct ir_node {
    int op;             /* index into the op table */
    char *name;
    int n_inputs, n_outputs;
    int *inputs;        /* value ids; -1 for an omitted optional input */
    int *outputs;
    int n_attrs;
    ir_attr_t *attrs;
    int *attr_slot;     /* per schema entry of the op: index into attrs or -1 */
    int n_sources;
    char **sources;     /* names of the source-model nodes this node covers */
} ir_node_t;

typedef struct ir_graph {
    int n_values, cap_values;
    ir_value_t *values;
    int n_nodes, cap_nodes;
    ir_node_t *nodes;
    int n_inputs, cap_inputs;
    int *inputs;        /* value ids of graph inputs, in order */
    int n_outputs, cap_outputs;
    int *outputs;       /* value ids of graph outputs, in order */
    int n_symbols, cap_symbols;
    char **symbols;     /* names of symbolic dims */
} ir_graph_t;

/* ---- graphs ---- */
cairn_status_t ir_graph_create(ir_graph_t **out);
void ir_graph_destroy(ir_graph_t *g);
cairn_status_t ir_graph_clone(const ir_graph_t *g, ir_graph_t **out);

/* Returns the id of symbol `name`, adding it if new; -1 on out of memory. */
int ir_graph_symbol(ir_graph_t *g, const char *name);

/* Adds a value; the name is copied. Returns its id in *out. */
cairn_status_t ir_graph_add_value(ir_graph_t *g, const char *name, const ir_type_t *type,
                                  ir_value_kind_t kind, int *out);
/* Adds a graph input / a constant (data copied, concrete shape required). */
cairn_status_t ir_graph_add_input(ir_graph_t *g, const char *name, const ir_type_t *type,
                                  int *out);
cairn_status_t ir_graph_add_constant(ir_graph_t *g, const char *name, const ir_type_t *type,
                                     const void *data, int *out);
/* Adds a constant whose payload is blob b (the graph takes its own
 * reference; b->size must be the type's byte size). */
cairn_status_t ir_graph_add_constant_blob(ir_graph_t *g, const char *name, const ir_type_t *type,
                                          ir_blob_t *b, int *out);

/* Adds a node of op `op` (an ir_op_find() id). Attributes are checked
 * against the op's schema and copied; output values are created (named
 * out_names[i] or "<name>:<i>") and their types inferred at once. On error
 * the graph is unchanged and the message names the node. */
cairn_status_t ir_graph_add_node(ir_graph_t *g, int op, const char *name, const int *inputs,
                                 int n_inputs, const cairn_attr_t *attrs, int n_attrs,
                                 int n_outputs, const char *const *out_names, int *outputs);

/* Appends a source-model node name to node n's list. */
cairn_status_t ir_node_add_source(ir_node_t *n, const char *source);

cairn_status_t ir_graph_mark_output(ir_graph_t *g, int value);

/* Finds a value by name; -1 if none. Linear: for tools, not hot paths. */
int ir_graph_find_value(const ir_graph_t *g, const char *name);

/* Checks types, shapes (by re-running inference), topological order and
 * cycles, dangling and undefined values, duplicate names, outputs. */
cairn_status_t ir_verify(const ir_graph_t *g);

/* A readable listing: inputs, constants (shape only), nodes, outputs. */
cairn_status_t ir_print(const ir_graph_t *g, char **out_text);

/* ---- shapes ---- */
int64_t ir_shape_numel(const ir_shape_t *s); /* -1 if not fully known */
int ir_shape_is_concrete(const ir_shape_t *s);
int ir_shape_equal(const ir_shape_t *a, const ir_shape_t *b);
/* Formats "[1,seq,384]" (symbols by name when g is given). */
const char *ir_shape_str(const ir_graph_t *g, const ir_shape_t *s, char *buf, size_t cap);
/* numpy broadcasting of a and b into out; error if incompatible. */
cairn_status_t ir_shape_broadcast(const ir_shape_t *a, const ir_shape_t *b, ir_shape_t *out);
/* Normalises axis (may be negative) for rank; error if out of range. */
cairn_status_t ir_norm_axis(int64_t axis, int rank, int *out);

/* ---- attributes (see op_table.h for typed slot access) ---- */
const ir_attr_t *ir_node_attr(const ir_node_t *n, const char *name);

#endif
