/*
 * cairn — ML kernel library and graph compiler.
 *
 * This is the whole public API for graphs and sessions. The life of a model:
 *
 *   1. Build a graph: cairn_graph_create(), then add inputs, constants and
 *      nodes (ONNX operator names and attribute names), then mark outputs.
 *      Every call returns a cairn_status_t; on failure cairn_last_error()
 *      returns a message that names what is wrong (node, op, shapes) and,
 *      where it can, what would fix it.
 *   2. Create a session from the graph (the session keeps its own copy, so
 *      the graph may be destroyed afterwards) with options: threads, ISA cap.
 *   3. Run it as often as you like. Inputs are read from your buffers.
 *      Outputs go to your buffers when you pass them, or to buffers the
 *      session owns (valid until the next run or cairn_session_destroy).
 *      The first run with a given set of input shapes compiles a plan;
 *      later runs with the same shapes allocate nothing. Runs with other
 *      shapes (for symbolic dims) compile a new plan.
 *   4. Destroy the session and the graph.
 *
 * Thread safety: distinct sessions may run concurrently from different
 * threads. One session must not be run from two threads at once. Error
 * messages are kept per thread.
 *
 * Value ids: inputs, constants and node outputs are values, named by small
 * non-negative integers (cairn_value_id) returned by the building calls.
 */
#ifndef CAIRN_H
#define CAIRN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CAIRN_VERSION_MAJOR 0
#define CAIRN_VERSION_MINOR 1
#define CAIRN_VERSION_PATCH 0

/* Tensors have at most this many dimensions. */
#define CAIRN_MAX_RANK 8

/* ---- Status and errors ------------------------------------------------ */

typedef enum cairn_status {
    CAIRN_OK = 0,
    CAIRN_ERR_INVALID_ARGUMENT, /* a null pointer, a bad option, a bad id */
    CAIRN_ERR_SHAPE,            /* shapes that do not fit together */
    CAIRN_ERR_DTYPE,            /* element types the op does not allow */
    CAIRN_ERR_UNSUPPORTED,      /* valid, but cairn cannot do it (yet) */
    CAIRN_ERR_GRAPH,            /* malformed graph: cycle, dangling value */
    CAIRN_ERR_UNBOUND_DIM,      /* a symbolic dimension has no value */
    CAIRN_ERR_OUT_OF_MEMORY,
    CAIRN_ERR_IO,               /* a file could not be read or written */
    CAIRN_ERR_PARSE,            /* a file's contents are malformed */
    CAIRN_ERR_RUNTIME,          /* a kernel failed on its data (e.g. index out of range) */
    CAIRN_ERR_INTERNAL          /* a bug in cairn: please report it */
} cairn_status_t;

/* A short, static name for a status ("shape error", ...). */
const char *cairn_status_string(cairn_status_t status);

/* The message of the last failed call on this thread ("" if none). The
 * pointer stays valid until the next cairn call on this thread. */
const char *cairn_last_error(void);

/* ---- Element types ---------------------------------------------------- */

/* Numbering follows ONNX's TensorProto.DataType, so files map directly. */
typedef enum cairn_dtype {
    CAIRN_DTYPE_UNDEFINED = 0,
    CAIRN_F32 = 1,
    CAIRN_U8 = 2,
    CAIRN_I8 = 3,
    CAIRN_I16 = 5,
    CAIRN_I32 = 6,
    CAIRN_I64 = 7,
    CAIRN_BOOL = 9,
    CAIRN_F16 = 10,
    CAIRN_F64 = 11,
    CAIRN_BF16 = 16
} cairn_dtype_t;

/* Bytes per element (0 for CAIRN_DTYPE_UNDEFINED or an unknown value). */
size_t cairn_dtype_size(cairn_dtype_t dtype);
/* "f32", "i64", ... ("?" for unknown). */
const char *cairn_dtype_name(cairn_dtype_t dtype);

/* ---- Tensors ---------------------------------------------------------- */

/* A view of a dense, row-major tensor. It does not own its data. */
typedef struct cairn_tensor {
    cairn_dtype_t dtype;
    int rank;
    int64_t shape[CAIRN_MAX_RANK];
    void *data;
} cairn_tensor_t;

/* Number of elements (1 for rank 0) and bytes of a tensor view. */
int64_t cairn_tensor_numel(const cairn_tensor_t *t);
size_t cairn_tensor_bytes(const cairn_tensor_t *t);

/* ---- Graphs ----------------------------------------------------------- */

typedef struct cairn_graph cairn_graph_t;
typedef int cairn_value_id;

typedef enum cairn_attr_type {
    CAIRN_ATTR_INT = 1,
    CAIRN_ATTR_FLOAT,
    CAIRN_ATTR_STRING,
    CAIRN_ATTR_INTS,
    CAIRN_ATTR_FLOATS,
    CAIRN_ATTR_TENSOR
} cairn_attr_type_t;

/* A node attribute, as in ONNX. Only the fields of its type are read;
 * arrays and strings are copied by cairn_graph_add_node. */
typedef struct cairn_attr {
    const char *name;
    cairn_attr_type_t type;
    int64_t i;                  /* CAIRN_ATTR_INT */
    float f;                    /* CAIRN_ATTR_FLOAT */
    const char *s;              /* CAIRN_ATTR_STRING */
    const int64_t *ints;        /* CAIRN_ATTR_INTS, n entries */
    const float *floats;        /* CAIRN_ATTR_FLOATS, n entries */
    size_t n;
    const cairn_tensor_t *t;    /* CAIRN_ATTR_TENSOR */
} cairn_attr_t;

/* Convenience constructors for attributes. */
cairn_attr_t cairn_attr_int(const char *name, int64_t v);
cairn_attr_t cairn_attr_float(const char *name, float v);
cairn_attr_t cairn_attr_string(const char *name, const char *v);
cairn_attr_t cairn_attr_ints(const char *name, const int64_t *v, size_t n);
cairn_attr_t cairn_attr_floats(const char *name, const float *v, size_t n);
cairn_attr_t cairn_attr_tensor(const char *name, const cairn_tensor_t *t);

cairn_status_t cairn_graph_create(cairn_graph_t **out);
void cairn_graph_destroy(cairn_graph_t *g);

/* Declares a graph input. dims[i] is the size of dimension i; where
 * dim_names is non-NULL and dim_names[i] is non-NULL, dimension i is
 * symbolic, named dim_names[i], and dims[i] is ignored. Dimensions with the
 * same name must have the same size at run time. */
cairn_status_t cairn_graph_add_input(cairn_graph_t *g, const char *name,
                                     cairn_dtype_t dtype, int rank,
                                     const int64_t *dims,
                                     const char *const *dim_names,
                                     cairn_value_id *out);

/* Adds a constant (a weight). The data are copied. */
cairn_status_t cairn_graph_add_constant(cairn_graph_t *g, const char *name,
                                        const cairn_tensor_t *value,
                                        cairn_value_id *out);

/* Adds a node running ONNX operator op_type (default domain, current
 * opset semantics). inputs[i] may be -1 for an omitted optional input.
 * The node's n_outputs outputs are created and their ids written to
 * outputs; they are named "<name>:<i>" unless output_names is given.
 * Types and shapes are inferred at once; an error names the node. */
cairn_status_t cairn_graph_add_node(cairn_graph_t *g, const char *op_type,
                                    const char *name,
                                    const cairn_value_id *inputs, int n_inputs,
                                    const cairn_attr_t *attrs, int n_attrs,
                                    cairn_value_id *outputs, int n_outputs,
                                    const char *const *output_names);

/* Marks a value as a graph output (outputs are numbered in call order). */
cairn_status_t cairn_graph_mark_output(cairn_graph_t *g, cairn_value_id v);

/* Checks the whole graph: types, shapes, cycles, dangling values. */
cairn_status_t cairn_graph_verify(const cairn_graph_t *g);

/* Writes a readable listing of the graph to a malloc'd string (free()). */
cairn_status_t cairn_graph_print(const cairn_graph_t *g, char **out_text);

/* Loads an ONNX model file (a ModelProto) into a new graph: initializers
 * become constants, the other graph inputs become inputs (dim_param names
 * become symbolic dims), nodes become cairn ops (older opset forms are
 * rewritten onto the current ones). External tensor data must lie inside
 * the model's folder. Every problem is an error, never a crash:
 * CAIRN_ERR_PARSE for malformed bytes, CAIRN_ERR_GRAPH for a malformed
 * graph (cycles, undefined or duplicated value names), and
 * CAIRN_ERR_UNSUPPORTED, listing every missing (op, opset) with its nodes
 * at once, for what cairn cannot run. On success *out is the caller's to
 * cairn_graph_destroy(). */
cairn_status_t cairn_graph_load_onnx(const char *path, cairn_graph_t **out);

/* ---- Sessions --------------------------------------------------------- */

typedef struct cairn_session cairn_session_t;

/* ISA levels, in increasing order. A cap keeps cairn at or below a level. */
typedef enum cairn_isa {
    CAIRN_ISA_AUTO = 0,  /* the best the CPU and OS support */
    CAIRN_ISA_REF,       /* plain C reference kernels only */
    CAIRN_ISA_AVX2,      /* AVX2 + FMA + F16C */
    CAIRN_ISA_AVX512,    /* AVX-512 F/BW/VL/DQ */
    CAIRN_ISA_AVX512_BF16_VNNI, /* + AVX512_BF16, AVX512_VNNI */
    CAIRN_ISA_AMX        /* + AMX tiles */
} cairn_isa_t;

const char *cairn_isa_name(cairn_isa_t isa);
/* Parses "ref", "avx2", "avx512", "avx512_bf16", "amx", "auto". */
cairn_status_t cairn_isa_parse(const char *text, cairn_isa_t *out);

typedef struct cairn_session_options {
    int threads;         /* 0: one per online CPU */
    cairn_isa_t isa_cap; /* CAIRN_ISA_AUTO: none; the CAIRN_ISA env var also caps */
} cairn_session_options_t;

cairn_session_options_t cairn_session_options_default(void);

cairn_status_t cairn_session_create(const cairn_graph_t *g,
                                    const cairn_session_options_t *opts,
                                    cairn_session_t **out);
/* Like cairn_session_create, but takes the graph: it is destroyed (on
 * failure too) as soon as the session shares its weights, so weights the
 * compiler replaces (pre-packed GEMM operands) are never held twice. Use it
 * when the graph is not needed after the session exists. */
cairn_status_t cairn_session_create_from(cairn_graph_t *g, const cairn_session_options_t *opts,
                                         cairn_session_t **out);
void cairn_session_destroy(cairn_session_t *s);

/* Describes the session's inputs and outputs. shape entries are -1 for
 * symbolic dims, whose names go to dim_names[i] (NULL where static; the
 * strings live as long as the session). Output shapes are those of the
 * last run, or as far as known before it. Any out pointer may be NULL. */
int cairn_session_input_count(const cairn_session_t *s);
int cairn_session_output_count(const cairn_session_t *s);
cairn_status_t cairn_session_input_info(const cairn_session_t *s, int i,
                                        const char **name, cairn_dtype_t *dtype,
                                        int *rank, int64_t *shape,
                                        const char **dim_names);
cairn_status_t cairn_session_output_info(const cairn_session_t *s, int i,
                                         const char **name, cairn_dtype_t *dtype,
                                         int *rank, int64_t *shape,
                                         const char **dim_names);

/* Runs the graph. inputs[i] is graph input i. For each output i: if
 * outputs[i].data is non-NULL it must have the output's dtype and shape and
 * is written; otherwise outputs[i] is filled in with a view of a buffer the
 * session owns. */
cairn_status_t cairn_session_run(cairn_session_t *s,
                                 const cairn_tensor_t *inputs, int n_inputs,
                                 cairn_tensor_t *outputs, int n_outputs);

/* Facts about the current plan (after a run): arena bytes, steps, ISA. */
typedef struct cairn_plan_info {
    size_t arena_bytes;    /* intermediate tensors, planned by liveness */
    size_t constant_bytes; /* weights and folded constants */
    int steps;             /* kernel invocations per run */
    cairn_isa_t isa;       /* ISA level in use */
    int threads;
} cairn_plan_info_t;
cairn_status_t cairn_session_plan_info(const cairn_session_t *s,
                                       cairn_plan_info_t *out);

#ifdef __cplusplus
}
#endif
#endif /* CAIRN_H */
