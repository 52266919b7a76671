/*
 * Graph rewriting helpers shared by the passes: use counts, pattern
 * matching primitives, replacing a group of nodes by one new node, and
 * compaction (dropping dead nodes and unreferenced values).
 *
 * A rewrite keeps the graph in topological order by putting the new node
 * in the slot of the group's last node (which reads everything the group
 * reads from outside) and giving it that node's output value ids, so
 * consumers and graph outputs need no rewiring.
 */
#ifndef CAIRN_COMPILER_REWRITE_H
#define CAIRN_COMPILER_REWRITE_H

#include "compiler/pass.h"
#include "ir/op_table.h"
#include "kernels/gemm/gemm.h"

typedef struct rw {
    ir_graph_t *g;
    unsigned char *dead;   /* per node */
    int *uses;             /* per value: uses by live nodes' inputs */
    unsigned char *is_out; /* per value: a graph output */
    int cap_nodes, cap_values;
    int counter;           /* for unique names */
} rw_t;

cairn_status_t rw_init(rw_t *r, ir_graph_t *g);
/* Recomputes use counts (after a rewrite). */
cairn_status_t rw_refresh(rw_t *r);
/* Compacts the graph (dead nodes and unreferenced values removed) and
 * frees r. */
cairn_status_t rw_finish(rw_t *r);
/* Frees r without compacting (on error paths). */
void rw_free(rw_t *r);

/* The node consuming v if it is v's only use and v is not a graph output;
 * else -1. */
int rw_sole_consumer(const rw_t *r, int v);
/* v's producer if it is live and of op `op` (any op when op < 0); else -1. */
int rw_producer(const rw_t *r, int v, int op);
/* v is a constant of a float type with exactly one element: its value. */
int rw_const_scalar(const ir_graph_t *g, int v, double *out);
/* For a two-input node that reads v: its other input; else -2. */
int rw_other_input(const ir_node_t *n, int v);
/* The dequantising chain of an integer product's output v, as
 * quantize_dynamic writes it: v's sole reader a Cast to f32 (*cast), its
 * output's sole reader a Mul (*mul) by *scale (the Mul's other input, not
 * the Cast's output itself). 0 when v is not read so. */
int rw_cast_mul(const rw_t *r, int v, int *cast, int *mul, int *scale);
/* The GEMM-epilogue activation that node a applies to its input v: Relu,
 * Sigmoid, Clip with constant f32 bounds (*lo, *hi), and Gelu (erf or tanh)
 * and Swish with alpha 1 (SiLU) when allow_gelu. 0 when a is none of these
 * or does not read v first. */
int rw_epilogue_activation(const ir_graph_t *g, int a, int v, int allow_gelu, gemm_act_t *act,
                           float *lo, float *hi);
/* |a - b| <= tol * |b| */
int rw_near(double a, double b, double tol);

/* Replaces the nodes in covered (which must include `at`, the last of them
 * in graph order) by one new node of op `op` in at's slot, producing at's
 * outputs. Every value the group computes other than at's outputs must have
 * no users outside the group (the caller checks: rw_group_closed). Sources
 * of the new node: every covered node's sources (or name), in graph order. */
cairn_status_t rw_replace(rw_t *r, int at, int op, const int *inputs, int n_in,
                          const cairn_attr_t *attrs, int n_attrs, const int *covered,
                          int n_cov);
/* rw_replace for a rewrite that may be refused (the new node's inference
 * disagrees with the pattern): out of memory and internal errors return,
 * a refusal leaves the nodes as they were, clears the error and returns
 * CAIRN_OK. */
cairn_status_t rw_try_replace(rw_t *r, int at, int op, const int *inputs, int n_in,
                              const cairn_attr_t *attrs, int n_attrs, const int *covered,
                              int n_cov);
/* 1 if no value produced by covered nodes other than at's outputs is used
 * outside the group or is a graph output. */
int rw_group_closed(const rw_t *r, int at, const int *covered, int n_cov);
/* Adds a constant named after hint (made unique); data copied. */
cairn_status_t rw_add_const(rw_t *r, const char *hint, cairn_dtype_t dtype, int rank,
                            const int64_t *dims, const void *data, int *out);
/* Adds a constant taking ownership of data (aligned, base_aligned_alloc). */
cairn_status_t rw_add_const_owned(rw_t *r, const char *hint, cairn_dtype_t dtype, int rank,
                                  const int64_t *dims, void *data, size_t bytes, int *out);

/* Adds a constant sharing blob b (a new reference is taken). */
cairn_status_t rw_add_const_blob(rw_t *r, const char *hint, cairn_dtype_t dtype, int rank,
                                 const int64_t *dims, ir_blob_t *b, int *out);

/* Frees one node's members (the graph's own helper is private to graph.c). */
void rw_free_node(ir_node_t *n);

#endif
