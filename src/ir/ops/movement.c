/*
 * Movement ops: Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Concat,
 * Split, Slice, Gather, GatherElements, Expand, Tile, Pad, Shape, Size,
 * ConstantOfShape, Range (ONNX opset 17). Everything here is dtype-agnostic:
 * kernels copy elements by size, so every cairn dtype is accepted.
 *
 * Several output shapes depend on an input's VALUE (Reshape's shape, Slice's
 * starts, ...). While a graph is built (partial inference) those values are
 * known only when they are constants; the code then still propagates what it
 * can through symbolic dims (a Reshape to [0,-1,64] keeps the copied symbol)
 * and marks the rest IR_DIM_UNKNOWN. At plan time the runtime has folded
 * Shape/Size and everything constant, so the values are there.
 *
 * Exec functions recompute their parameters from the (constant) value
 * tensors and the concrete shapes rather than trusting anything cached, so
 * they stay correct when the same node runs at other input sizes.
 */
#include "base/dtype.h"
#include "ir/op_table.h"
#include "kernels/movement/movement.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The longest shape-like value input read at inference (Split sizes are per output). */
#define MV_MAXV 64

/* ---- prototypes (the op table names these) ---- */
#define MV_EXEC_ARGS                                                                      \
    const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out, int n_out, void *ws, \
        const kctx_t *k
cairn_status_t op_movement_transpose_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_transpose_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_reshape_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_flatten_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_squeeze_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_unsqueeze_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_copy_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_concat_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_concat_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_split_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_split_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_slice_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_slice_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_gather_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_gather_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_gather_elements_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_gather_elements_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_expand_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_expand_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_tile_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_tile_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_pad_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_pad_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_shape_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_shape_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_size_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_size_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_cos_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_cos_exec(MV_EXEC_ARGS);
cairn_status_t op_movement_range_infer(ir_infer_ctx_t *c);
cairn_status_t op_movement_range_exec(MV_EXEC_ARGS);
void op_movement_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                      int n_out, ir_cost_t *cost);

/* ---- attribute schemas (slots in schema order) ---- */
enum { TR_PERM };
const ir_attr_def_t op_movement_transpose_attrs[] = {IR_ATTR_INTS("perm"), IR_ATTR_END};
enum { RS_ALLOWZERO };
const ir_attr_def_t op_movement_reshape_attrs[] = {IR_ATTR_INT("allowzero", 0), IR_ATTR_END};
enum { FL_AXIS };
const ir_attr_def_t op_movement_flatten_attrs[] = {IR_ATTR_INT("axis", 1), IR_ATTR_END};
enum { CC_AXIS };
const ir_attr_def_t op_movement_concat_attrs[] = {IR_ATTR_REQUIRED_INT("axis"), IR_ATTR_END};
enum { AX_AXIS };
const ir_attr_def_t op_movement_axis0_attrs[] = {IR_ATTR_INT("axis", 0), IR_ATTR_END};
enum { PD_MODE };
const ir_attr_def_t op_movement_pad_attrs[] = {IR_ATTR_STRING("mode", "constant"), IR_ATTR_END};
enum { SH_START, SH_END };
const ir_attr_def_t op_movement_shape_attrs[] = {IR_ATTR_INT("start", 0),
                                                 IR_ATTR_INT("end", INT64_MAX), IR_ATTR_END};
enum { CS_VALUE };
const ir_attr_def_t op_movement_cos_attrs[] = {IR_ATTR_TENSOR("value"), IR_ATTR_END};

static const cairn_dtype_t mv_i64_only[] = {CAIRN_I64, CAIRN_DTYPE_UNDEFINED};

/* ---- symbolic dim arithmetic ---- */

static int64_t dim_mul(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    if (a == 1)
        return b;
    if (b == 1)
        return a;
    if (a > 0 && b > 0)
        return a > INT64_MAX / b ? IR_DIM_UNKNOWN : a * b;
    return IR_DIM_UNKNOWN;
}

static int64_t dim_add(int64_t a, int64_t b)
{
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    if (a > 0 && b > 0 && a <= INT64_MAX - b)
        return a + b;
    return IR_DIM_UNKNOWN;
}

/* Product of dims [lo, hi) keeping a lone symbol (its co-factors all 1). */
static int64_t dim_prod(const int64_t *d, int lo, int hi)
{
    int64_t p = 1;
    for (int i = lo; i < hi; i++)
        p = dim_mul(p, d[i]);
    return p;
}

static const char *shp(const ir_infer_ctx_t *c, const ir_shape_t *s, char *buf, size_t cap)
{
    return ir_shape_str(c->graph, s, buf, cap);
}

/* Formats requested values as given ("[4,-1]"), unlike ir_shape_str. */
static const char *fmt_vals(const int64_t *v, int n, char *buf, size_t cap)
{
    size_t u = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && u < cap; i++)
        u += (size_t)snprintf(buf + u, cap - u, "%s%lld", i ? "," : "", (long long)v[i]);
    if (u < cap)
        snprintf(buf + u, cap - u, "]");
    return buf;
}

static int present(const ir_infer_ctx_t *c, int i)
{
    return i < c->n_in && c->in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}

static int kpresent(const ktensor_t *in, int n_in, int i)
{
    return i < n_in && in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}

/* Reads the 1-D integer input i (`what` names it in messages) into v.
 * *n: its length (-1 if absent or unknown); *have: 1 when the values are
 * known (or the input is absent). At plan time an unknown value is an error. */
static cairn_status_t get_ints(ir_infer_ctx_t *c, int i, const char *what,
                               const cairn_dtype_t *types, int64_t *v, int *n, int *have)
{
    *n = -1;
    *have = 1;
    if (!present(c, i))
        return CAIRN_OK;
    BASE_TRY(ir_infer_check_dtype(c, i, types));
    const ir_shape_t *s = &c->in[i].shape;
    if (s->rank >= 0 && s->rank != 1)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "input %d (%s) must be 1-D, got rank %d", i,
                              what, s->rank);
    int len = -1;
    if (s->rank == 1 && ir_dim_known(s->d[0])) {
        if (s->d[0] > MV_MAXV)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "input %d (%s) has %lld entries; at most %d "
                                  "are supported", i, what, (long long)s->d[0], MV_MAXV);
        len = (int)s->d[0];
    }
    *n = len;
    if (len == 0)
        return CAIRN_OK; /* nothing to read, even if the payload is not there */
    if (!ir_infer_value(c, i)) {
        if (!c->partial)
            return CAIRN_ERR_UNSUPPORTED;
        *have = 0;
        return CAIRN_OK;
    }
    for (int j = 0; j < len; j++)
        v[j] = ir_infer_value_i64(c, i, j);
    return CAIRN_OK;
}

/* The exec side of get_ints: input i's values (i32 or i64) and count. */
static int kt_ints(const ktensor_t *in, int n_in, int i, int64_t *v, int max)
{
    if (!kpresent(in, n_in, i))
        return -1;
    int64_t len = kt_numel(&in[i]);
    if (len > max)
        len = max;
    for (int64_t j = 0; j < len; j++)
        v[j] = in[i].dtype == CAIRN_I32 ? ((const int32_t *)in[i].data)[j]
                                        : ((const int64_t *)in[i].data)[j];
    return (int)len;
}

static void set_out(ir_infer_ctx_t *c, int o, cairn_dtype_t t, int rank, const int64_t *d)
{
    c->out[o].dtype = t;
    c->out[o].shape.rank = rank;
    for (int i = 0; i < rank; i++)
        c->out[o].shape.d[i] = d[i];
}

/* ---- Transpose ---- */

static cairn_status_t transpose_perm(const ir_node_t *n, int r, int *perm)
{
    size_t np;
    const int64_t *p = ir_attr_ints(n, TR_PERM, &np);
    if (!p) {
        for (int i = 0; i < r; i++)
            perm[i] = r - 1 - i;
        return CAIRN_OK;
    }
    if ((int)np != r)
        return base_error(CAIRN_ERR_SHAPE, "perm has %d entries but the input has rank %d",
                          (int)np, r);
    int seen[CAIRN_MAX_RANK] = {0};
    for (int i = 0; i < r; i++) {
        if (p[i] < 0 || p[i] >= r || seen[p[i]])
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "perm is not a permutation of 0..%d "
                              "(entry %d is %lld)", r - 1, i, (long long)p[i]);
        seen[p[i]] = 1;
        perm[i] = (int)p[i];
    }
    return CAIRN_OK;
}

cairn_status_t op_movement_transpose_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    const ir_shape_t *s = &c->in[0].shape;
    if (s->rank < 0) {
        size_t np;
        ir_attr_ints(c->node, TR_PERM, &np);
        ir_infer_unknown(c, 0, c->in[0].dtype, ir_attr_at(c->node, TR_PERM) ? (int)np : -1);
        return CAIRN_OK;
    }
    int perm[CAIRN_MAX_RANK];
    BASE_TRY(transpose_perm(c->node, s->rank, perm));
    int64_t d[CAIRN_MAX_RANK];
    for (int i = 0; i < s->rank; i++)
        d[i] = s->d[perm[i]];
    set_out(c, 0, c->in[0].dtype, s->rank, d);
    return CAIRN_OK;
}

cairn_status_t op_movement_transpose_exec(MV_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int perm[CAIRN_MAX_RANK];
    BASE_TRY(transpose_perm(n, in[0].rank, perm));
    mv_transpose(&in[0], perm, &out[0]);
    return CAIRN_OK;
}

/* ---- pure relabelings: Reshape, Flatten, Squeeze, Unsqueeze ---- */

cairn_status_t op_movement_copy_exec(MV_EXEC_ARGS)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    size_t bytes = (size_t)kt_numel(&in[0]) * cairn_dtype_size(in[0].dtype);
    if (bytes && out[0].data != in[0].data)
        memcpy(out[0].data, in[0].data, bytes);
    return CAIRN_OK;
}

/* Solves the -1 of a Reshape when sizes are symbolic: cancel the symbols
 * the output shares with the input; what remains must be plain numbers, or
 * a single input symbol that the -1 then stands for. Returns the dim, or
 * IR_DIM_UNKNOWN; *bad set when the known parts certainly disagree. */
static int64_t reshape_solve(const ir_shape_t *in, const int64_t *od, int r, int neg, int *bad)
{
    int64_t syms[CAIRN_MAX_RANK];
    int ns = 0;
    int64_t pin = 1, pout = 1;
    *bad = 0;
    for (int i = 0; i < in->rank; i++) {
        if (in->d[i] == IR_DIM_UNKNOWN)
            return IR_DIM_UNKNOWN;
        if (in->d[i] >= 0) {
            if (in->d[i] == 0)
                return IR_DIM_UNKNOWN; /* the zero case is resolved by the caller */
            if (pin > INT64_MAX / in->d[i])
                return IR_DIM_UNKNOWN;
            pin *= in->d[i];
        } else {
            syms[ns++] = in->d[i];
        }
    }
    for (int i = 0; i < r; i++) {
        if (i == neg)
            continue;
        if (od[i] >= 0) {
            if (od[i] == 0 || pout > INT64_MAX / od[i])
                return IR_DIM_UNKNOWN;
            pout *= od[i];
            continue;
        }
        if (od[i] == IR_DIM_UNKNOWN)
            return IR_DIM_UNKNOWN;
        int j = 0;
        while (j < ns && syms[j] != od[i])
            j++;
        if (j == ns)
            return IR_DIM_UNKNOWN;
        syms[j] = syms[--ns];
    }
    if (neg < 0) {
        if (ns == 0 && pin != pout)
            *bad = 1;
        return IR_DIM_UNKNOWN;
    }
    if (ns == 0) {
        if (pin % pout)
            *bad = 1;
        return pin / pout;
    }
    if (ns == 1 && pin == pout)
        return syms[0];
    return IR_DIM_UNKNOWN;
}

cairn_status_t op_movement_reshape_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    const int allowzero = ir_attr_i(c->node, RS_ALLOWZERO) != 0;
    int64_t v[MV_MAXV];
    int nv, have;
    BASE_TRY(get_ints(c, 1, "shape", mv_i64_only, v, &nv, &have));
    if (nv > CAIRN_MAX_RANK)
        return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED, "shape has %d entries; cairn supports "
                              "rank up to %d", nv, CAIRN_MAX_RANK);
    if (!have) {
        ir_infer_unknown(c, 0, c->in[0].dtype, nv);
        return CAIRN_OK;
    }
    const ir_shape_t *s = &c->in[0].shape;
    char sa[160], sb[160];
    int64_t od[CAIRN_MAX_RANK];
    int neg = -1, has_zero = 0;
    for (int i = 0; i < nv; i++) {
        if (v[i] < -1)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "shape entry %d is %lld; entries must be "
                                  ">= -1", i, (long long)v[i]);
        if (v[i] == -1) {
            if (neg >= 0)
                return ir_infer_error(c, CAIRN_ERR_SHAPE, "shape has more than one -1 "
                                      "(entries %d and %d)", neg, i);
            neg = i;
            od[i] = IR_DIM_UNKNOWN;
        } else if (v[i] == 0 && !allowzero) {
            if (s->rank >= 0 && i >= s->rank)
                return ir_infer_error(c, CAIRN_ERR_SHAPE, "shape entry %d is 0 (copy the input "
                                      "dim) but the input %s has only %d dims", i,
                                      shp(c, s, sa, sizeof sa), s->rank);
            od[i] = s->rank >= 0 ? s->d[i] : IR_DIM_UNKNOWN;
        } else {
            od[i] = v[i];
            has_zero |= v[i] == 0;
        }
    }
    if (allowzero && has_zero && neg >= 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "with allowzero=1 the shape cannot hold both "
                              "0 and -1");
    if (s->rank < 0) {
        set_out(c, 0, c->in[0].dtype, nv, od);
        return CAIRN_OK;
    }
    int64_t total = ir_shape_numel(s);
    int64_t rest = 1;
    int rest_known = 1;
    for (int i = 0; i < nv; i++) {
        if (i == neg)
            continue;
        if (od[i] < 0)
            rest_known = 0;
        else
            rest = dim_mul(rest, od[i]);
    }
    if (rest < 0)
        rest_known = 0;
    if (total >= 0 && rest_known) {
        if (neg >= 0) {
            if (rest == 0 || total % rest)
                return ir_infer_error(c, CAIRN_ERR_SHAPE, "cannot reshape %s (%lld elements) "
                                      "to %s: the other dims multiply to %lld, which does not "
                                      "divide %lld", shp(c, s, sa, sizeof sa), (long long)total,
                                      fmt_vals(v, nv, sb, sizeof sb), (long long)rest,
                                      (long long)total);
            od[neg] = total / rest;
        } else if (rest != total) {
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "cannot reshape %s (%lld elements) to %s "
                                  "(%lld elements)", shp(c, s, sa, sizeof sa), (long long)total,
                                  fmt_vals(v, nv, sb, sizeof sb), (long long)rest);
        }
    } else if (total == 0 && neg >= 0) {
        od[neg] = IR_DIM_UNKNOWN; /* 0 elements: the -1 is ambiguous until the rest is known */
    } else {
        int bad;
        int64_t solved = reshape_solve(s, od, nv, neg, &bad);
        if (bad)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "cannot reshape %s to %s: the sizes "
                                  "disagree", shp(c, s, sa, sizeof sa),
                                  fmt_vals(v, nv, sb, sizeof sb));
        if (neg >= 0)
            od[neg] = solved;
    }
    set_out(c, 0, c->in[0].dtype, nv, od);
    return CAIRN_OK;
}

cairn_status_t op_movement_flatten_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    const ir_shape_t *s = &c->in[0].shape;
    int64_t axis = ir_attr_i(c->node, FL_AXIS);
    if (s->rank < 0) {
        ir_infer_unknown(c, 0, c->in[0].dtype, 2);
        return CAIRN_OK;
    }
    if (axis < -s->rank || axis > s->rank)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "axis %lld is out of range for rank %d "
                              "(Flatten allows %d..%d)", (long long)axis, s->rank, -s->rank,
                              s->rank);
    int a = (int)(axis < 0 ? axis + s->rank : axis);
    int64_t d[2] = {dim_prod(s->d, 0, a), dim_prod(s->d, a, s->rank)};
    set_out(c, 0, c->in[0].dtype, 2, d);
    return CAIRN_OK;
}

cairn_status_t op_movement_squeeze_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    const ir_shape_t *s = &c->in[0].shape;
    int64_t v[MV_MAXV];
    int nv, have;
    BASE_TRY(get_ints(c, 1, "axes", mv_i64_only, v, &nv, &have));
    int64_t d[CAIRN_MAX_RANK];
    int r = 0;
    if (!present(c, 1)) {
        if (s->rank < 0) {
            ir_infer_unknown(c, 0, c->in[0].dtype, -1);
            return CAIRN_OK;
        }
        for (int i = 0; i < s->rank; i++) {
            if (!ir_dim_known(s->d[i])) { /* might be 1: rank unknown */
                ir_infer_unknown(c, 0, c->in[0].dtype, -1);
                return CAIRN_OK;
            }
            if (s->d[i] != 1)
                d[r++] = s->d[i];
        }
        set_out(c, 0, c->in[0].dtype, r, d);
        return CAIRN_OK;
    }
    if (!have || s->rank < 0) {
        ir_infer_unknown(c, 0, c->in[0].dtype, (s->rank >= 0 && nv >= 0) ? s->rank - nv : -1);
        return CAIRN_OK;
    }
    int drop[CAIRN_MAX_RANK] = {0};
    for (int j = 0; j < nv; j++) {
        int a;
        if (ir_norm_axis(v[j], s->rank, &a) != CAIRN_OK)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "axes entry %lld is out of range for "
                                  "rank %d", (long long)v[j], s->rank);
        if (drop[a])
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "axes names axis %d twice", a);
        if (ir_dim_known(s->d[a]) && s->d[a] != 1) {
            char sa[160];
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "axis %d of %s has size %lld; Squeeze "
                                  "removes only dims of size 1", a, shp(c, s, sa, sizeof sa),
                                  (long long)s->d[a]);
        }
        drop[a] = 1;
    }
    for (int i = 0; i < s->rank; i++)
        if (!drop[i])
            d[r++] = s->d[i];
    set_out(c, 0, c->in[0].dtype, r, d);
    return CAIRN_OK;
}

cairn_status_t op_movement_unsqueeze_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    const ir_shape_t *s = &c->in[0].shape;
    int64_t v[MV_MAXV];
    int nv, have;
    BASE_TRY(get_ints(c, 1, "axes", mv_i64_only, v, &nv, &have));
    int R = (s->rank >= 0 && nv >= 0) ? s->rank + nv : -1;
    if (R > CAIRN_MAX_RANK)
        return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED, "the output would have rank %d; cairn "
                              "supports up to %d", R, CAIRN_MAX_RANK);
    if (!have || R < 0) {
        ir_infer_unknown(c, 0, c->in[0].dtype, R);
        return CAIRN_OK;
    }
    int ins[CAIRN_MAX_RANK] = {0};
    for (int j = 0; j < nv; j++) {
        int a;
        if (ir_norm_axis(v[j], R, &a) != CAIRN_OK)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "axes entry %lld is out of range for the "
                                  "output rank %d", (long long)v[j], R);
        if (ins[a])
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "axes names output axis %d twice", a);
        ins[a] = 1;
    }
    int64_t d[CAIRN_MAX_RANK];
    for (int i = 0, j = 0; i < R; i++)
        d[i] = ins[i] ? 1 : s->d[j++];
    set_out(c, 0, c->in[0].dtype, R, d);
    return CAIRN_OK;
}

/* ---- Concat, Split ---- */

cairn_status_t op_movement_concat_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    int r = -1;
    for (int i = 0; i < c->n_in; i++) {
        if (!present(c, i))
            return ir_infer_error(c, CAIRN_ERR_GRAPH, "input %d is missing; Concat has no "
                                  "optional inputs", i);
        BASE_TRY(ir_infer_same_dtype(c, 0, i));
        int ri = c->in[i].shape.rank;
        if (ri >= 0 && r >= 0 && ri != r)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "inputs have different ranks (%d and %d)",
                                  r, ri);
        if (ri >= 0)
            r = ri;
    }
    if (r < 0) {
        ir_infer_unknown(c, 0, c->in[0].dtype, -1);
        return CAIRN_OK;
    }
    if (r == 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "cannot concatenate scalars (rank 0)");
    int axis;
    if (ir_norm_axis(ir_attr_i(c->node, CC_AXIS), r, &axis) != CAIRN_OK)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "axis %lld is out of range for rank %d",
                              (long long)ir_attr_i(c->node, CC_AXIS), r);
    int64_t d[CAIRN_MAX_RANK];
    int first = 1;
    for (int i = 0; i < c->n_in; i++) {
        const ir_shape_t *s = &c->in[i].shape;
        if (s->rank < 0) {
            d[axis] = IR_DIM_UNKNOWN;
            continue;
        }
        for (int j = 0; j < r; j++) {
            if (j == axis) {
                d[j] = first ? s->d[j] : dim_add(d[j], s->d[j]);
                continue;
            }
            if (first || d[j] == s->d[j])
                d[j] = first ? s->d[j] : d[j];
            else if (ir_dim_known(d[j]) && ir_dim_known(s->d[j])) {
                char sa[160], sb[160];
                return ir_infer_error(c, CAIRN_ERR_SHAPE, "input %d has shape %s, which does "
                                      "not match %s outside axis %d (dim %d: %lld vs %lld)", i,
                                      shp(c, s, sa, sizeof sa),
                                      shp(c, &c->in[0].shape, sb, sizeof sb), axis, j,
                                      (long long)s->d[j], (long long)d[j]);
            } else if (!ir_dim_known(d[j]) && ir_dim_known(s->d[j]))
                d[j] = s->d[j];
        }
        first = 0;
    }
    if (first)
        d[axis] = IR_DIM_UNKNOWN;
    set_out(c, 0, c->in[0].dtype, r, d);
    return CAIRN_OK;
}

cairn_status_t op_movement_concat_exec(MV_EXEC_ARGS)
{
    (void)n_out, (void)ws, (void)k;
    int axis = (int)ir_attr_i(n, CC_AXIS);
    if (axis < 0)
        axis += out[0].rank;
    mv_concat(in, n_in, axis, &out[0]);
    return CAIRN_OK;
}

cairn_status_t op_movement_split_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    const ir_shape_t *s = &c->in[0].shape;
    int64_t v[MV_MAXV];
    int nv, have;
    BASE_TRY(get_ints(c, 1, "split", mv_i64_only, v, &nv, &have));
    if (c->n_out < 1)
        return ir_infer_error(c, CAIRN_ERR_INTERNAL, "Split inference was given no outputs");
    if (present(c, 1) && nv >= 0 && nv != c->n_out)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "split has %d sizes but the node has %d "
                              "outputs", nv, c->n_out);
    if (s->rank < 0) {
        for (int o = 0; o < c->n_out; o++)
            ir_infer_unknown(c, o, c->in[0].dtype, -1);
        return CAIRN_OK;
    }
    int64_t ax = ir_attr_i(c->node, AX_AXIS);
    int axis;
    if (ir_norm_axis(ax, s->rank, &axis) != CAIRN_OK)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "axis %lld is out of range for rank %d",
                              (long long)ax, s->rank);
    const int64_t dim = s->d[axis];
    int64_t size[64];
    if (present(c, 1) && have) {
        int64_t sum = 0;
        for (int o = 0; o < c->n_out; o++) {
            if (v[o] < 0)
                return ir_infer_error(c, CAIRN_ERR_SHAPE, "split size %d is negative (%lld)", o,
                                      (long long)v[o]);
            sum += v[o];
            size[o] = v[o];
        }
        if (ir_dim_known(dim) && sum != dim)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "split sizes add up to %lld but axis %d "
                                  "has size %lld", (long long)sum, axis, (long long)dim);
    } else if (present(c, 1)) {
        for (int o = 0; o < c->n_out; o++)
            size[o] = IR_DIM_UNKNOWN;
    } else if (ir_dim_known(dim)) {
        if (dim % c->n_out)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "cannot split axis %d of size %lld into %d "
                                  "equal parts; give the sizes in the 'split' input", axis,
                                  (long long)dim, c->n_out);
        for (int o = 0; o < c->n_out; o++)
            size[o] = dim / c->n_out;
    } else {
        for (int o = 0; o < c->n_out; o++)
            size[o] = c->n_out == 1 ? dim : IR_DIM_UNKNOWN;
    }
    for (int o = 0; o < c->n_out; o++) {
        set_out(c, o, c->in[0].dtype, s->rank, s->d);
        c->out[o].shape.d[axis] = size[o];
    }
    return CAIRN_OK;
}

cairn_status_t op_movement_split_exec(MV_EXEC_ARGS)
{
    (void)n_in, (void)ws, (void)k;
    int axis = (int)ir_attr_i(n, AX_AXIS);
    if (axis < 0)
        axis += in[0].rank;
    mv_split(&in[0], axis, out, n_out);
    return CAIRN_OK;
}

/* ---- Slice ---- */

typedef struct slice_plan {
    int64_t start[CAIRN_MAX_RANK], step[CAIRN_MAX_RANK], len[CAIRN_MAX_RANK];
} slice_plan_t;

static int64_t clamp64(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Resolves starts/ends/axes/steps (ONNX clamping rules) against dims; a dim
 * that is not known yields an unknown length unless the slice is the whole
 * axis (0:INT64_MAX:1 or the full reversal). */
static cairn_status_t slice_resolve(int rank, const int64_t *dims, int k, const int64_t *starts,
                                    const int64_t *ends, const int64_t *axes,
                                    const int64_t *steps, slice_plan_t *p)
{
    int seen[CAIRN_MAX_RANK] = {0};
    for (int d = 0; d < rank; d++) {
        p->start[d] = 0;
        p->step[d] = 1;
        p->len[d] = dims[d];
    }
    for (int j = 0; j < k; j++) {
        int64_t ax = axes ? axes[j] : j;
        if (ax < -rank || ax >= rank)
            return base_error(CAIRN_ERR_SHAPE, "axes entry %d (%lld) is out of range for rank %d",
                              j, (long long)ax, rank);
        int a = (int)(ax < 0 ? ax + rank : ax);
        if (seen[a])
            return base_error(CAIRN_ERR_SHAPE, "axes names axis %d twice", a);
        seen[a] = 1;
        int64_t st = steps ? steps[j] : 1, s = starts[j], e = ends[j], dim = dims[a];
        if (st == 0)
            return base_error(CAIRN_ERR_SHAPE, "steps entry %d is 0; steps must be non-zero", j);
        p->step[a] = st;
        if (!ir_dim_known(dim)) {
            int whole = (st == 1 && s == 0 && e == INT64_MAX) ||
                        (st == -1 && (s == -1 || s == INT64_MAX) && e == INT64_MIN);
            p->len[a] = whole ? dim : IR_DIM_UNKNOWN;
            continue;
        }
        if (s < 0)
            s += dim;
        if (e < 0)
            e += dim;
        uint64_t len;
        if (dim == 0) {
            len = 0; /* the clamping ranges below are empty */
        } else if (st > 0) {
            s = clamp64(s, 0, dim);
            e = clamp64(e, 0, dim);
            len = e > s ? 1 + (uint64_t)(e - s - 1) / (uint64_t)st : 0;
        } else {
            s = clamp64(s, 0, dim - 1);
            e = clamp64(e, -1, dim - 1);
            /* -st overflows for INT64_MIN: negate in unsigned arithmetic */
            len = s > e ? 1 + (uint64_t)(s - e - 1) / (0 - (uint64_t)st) : 0;
        }
        p->start[a] = len ? s : 0;
        p->len[a] = (int64_t)len;
    }
    return CAIRN_OK;
}

cairn_status_t op_movement_slice_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    const ir_shape_t *s = &c->in[0].shape;
    int64_t st[MV_MAXV], en[MV_MAXV], ax[MV_MAXV], sp[MV_MAXV];
    int ns, ne, na, np, hs, he, ha, hp;
    BASE_TRY(get_ints(c, 1, "starts", ir_dtypes_index, st, &ns, &hs));
    BASE_TRY(get_ints(c, 2, "ends", ir_dtypes_index, en, &ne, &he));
    BASE_TRY(get_ints(c, 3, "axes", ir_dtypes_index, ax, &na, &ha));
    BASE_TRY(get_ints(c, 4, "steps", ir_dtypes_index, sp, &np, &hp));
    const int lens[4] = {ns, ne, present(c, 3) ? na : ns, present(c, 4) ? np : ns};
    for (int i = 1; i < 4; i++)
        if (lens[0] >= 0 && lens[i] >= 0 && lens[i] != lens[0])
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "starts, ends, axes and steps must have "
                                  "the same length, got %d, %d, %d, %d", lens[0], lens[1],
                                  lens[2], lens[3]);
    if (s->rank < 0) {
        ir_infer_unknown(c, 0, c->in[0].dtype, -1);
        return CAIRN_OK;
    }
    if (ns > s->rank && !present(c, 3))
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "starts has %d entries but the input has rank "
                              "%d", ns, s->rank);
    if (!hs || !he || !ha || !hp || ns < 0) {
        set_out(c, 0, c->in[0].dtype, s->rank, s->d);
        for (int d = 0; d < s->rank; d++) {
            int touched = !present(c, 3) || !ha;
            for (int j = 0; ha && present(c, 3) && j < na; j++)
                touched |= ax[j] == d || ax[j] + s->rank == d;
            if (touched)
                c->out[0].shape.d[d] = IR_DIM_UNKNOWN;
        }
        return CAIRN_OK;
    }
    slice_plan_t p;
    BASE_TRY(slice_resolve(s->rank, s->d, ns, st, en, present(c, 3) ? ax : NULL,
                           present(c, 4) ? sp : NULL, &p));
    set_out(c, 0, c->in[0].dtype, s->rank, p.len);
    return CAIRN_OK;
}

cairn_status_t op_movement_slice_exec(MV_EXEC_ARGS)
{
    (void)n, (void)n_out, (void)ws, (void)k;
    int64_t st[MV_MAXV], en[MV_MAXV], ax[MV_MAXV], sp[MV_MAXV];
    int ns = kt_ints(in, n_in, 1, st, MV_MAXV);
    kt_ints(in, n_in, 2, en, MV_MAXV);
    int na = kt_ints(in, n_in, 3, ax, MV_MAXV);
    int np = kt_ints(in, n_in, 4, sp, MV_MAXV);
    slice_plan_t p;
    BASE_TRY(slice_resolve(in[0].rank, in[0].shape, ns, st, en, na >= 0 ? ax : NULL,
                           np >= 0 ? sp : NULL, &p));
    for (int d = 0; d < in[0].rank; d++)
        BASE_CHECK(p.len[d] == out[0].shape[d]);
    mv_slice(&in[0], p.start, p.step, &out[0]);
    return CAIRN_OK;
}

/* ---- Gather, GatherElements ---- */

cairn_status_t op_movement_gather_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_index));
    const ir_shape_t *s = &c->in[0].shape, *is = &c->in[1].shape;
    if (s->rank == 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "data is a scalar; Gather needs rank >= 1");
    if (s->rank < 0 || is->rank < 0) {
        ir_infer_unknown(c, 0, c->in[0].dtype, -1);
        return CAIRN_OK;
    }
    int64_t ax = ir_attr_i(c->node, AX_AXIS);
    int axis;
    if (ir_norm_axis(ax, s->rank, &axis) != CAIRN_OK)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "axis %lld is out of range for rank %d",
                              (long long)ax, s->rank);
    int R = s->rank - 1 + is->rank;
    if (R > CAIRN_MAX_RANK)
        return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED, "the output would have rank %d; cairn "
                              "supports up to %d", R, CAIRN_MAX_RANK);
    int64_t d[CAIRN_MAX_RANK];
    int r = 0;
    for (int i = 0; i < axis; i++)
        d[r++] = s->d[i];
    for (int i = 0; i < is->rank; i++)
        d[r++] = is->d[i];
    for (int i = axis + 1; i < s->rank; i++)
        d[r++] = s->d[i];
    set_out(c, 0, c->in[0].dtype, R, d);
    return CAIRN_OK;
}

cairn_status_t op_movement_gather_exec(MV_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int axis = (int)ir_attr_i(n, AX_AXIS);
    if (axis < 0)
        axis += in[0].rank;
    return mv_gather(&in[0], &in[1], axis, &out[0]);
}

cairn_status_t op_movement_gather_elements_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_index));
    const ir_shape_t *s = &c->in[0].shape, *is = &c->in[1].shape;
    if (s->rank == 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "data is a scalar; GatherElements needs "
                              "rank >= 1");
    if (s->rank >= 0 && is->rank >= 0) {
        if (s->rank != is->rank)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "indices have rank %d but data has rank "
                                  "%d; they must be equal", is->rank, s->rank);
        int64_t ax = ir_attr_i(c->node, AX_AXIS);
        int axis;
        if (ir_norm_axis(ax, s->rank, &axis) != CAIRN_OK)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "axis %lld is out of range for rank %d",
                                  (long long)ax, s->rank);
        for (int i = 0; i < s->rank; i++)
            if (i != axis && ir_dim_known(s->d[i]) && ir_dim_known(is->d[i]) &&
                is->d[i] > s->d[i]) {
                char sa[160], sb[160];
                return ir_infer_error(c, CAIRN_ERR_SHAPE, "indices %s exceed data %s in dim %d "
                                      "(%lld > %lld); outside the axis they must fit",
                                      shp(c, is, sa, sizeof sa), shp(c, s, sb, sizeof sb), i,
                                      (long long)is->d[i], (long long)s->d[i]);
            }
    }
    set_out(c, 0, c->in[0].dtype, is->rank, is->d);
    return CAIRN_OK;
}

cairn_status_t op_movement_gather_elements_exec(MV_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int axis = (int)ir_attr_i(n, AX_AXIS);
    if (axis < 0)
        axis += in[0].rank;
    return mv_gather_elements(&in[0], &in[1], axis, &out[0]);
}

/* ---- Expand, Tile ---- */

cairn_status_t op_movement_expand_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    int64_t v[MV_MAXV];
    int nv, have;
    BASE_TRY(get_ints(c, 1, "shape", mv_i64_only, v, &nv, &have));
    if (nv > CAIRN_MAX_RANK)
        return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED, "shape has %d entries; cairn supports "
                              "rank up to %d", nv, CAIRN_MAX_RANK);
    const ir_shape_t *s = &c->in[0].shape;
    if (!have || s->rank < 0) {
        int r = (nv >= 0 && s->rank >= 0) ? (nv > s->rank ? nv : s->rank) : -1;
        ir_infer_unknown(c, 0, c->in[0].dtype, r);
        return CAIRN_OK;
    }
    ir_shape_t want = {nv, {0}}, o;
    for (int i = 0; i < nv; i++) {
        if (v[i] < 0)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "shape entry %d is negative (%lld)", i,
                                  (long long)v[i]);
        want.d[i] = v[i];
    }
    cairn_status_t st = ir_shape_broadcast(s, &want, &o);
    if (st != CAIRN_OK)
        return base_error_prefix(st, "cannot expand: ");
    c->out[0].dtype = c->in[0].dtype;
    c->out[0].shape = o;
    return CAIRN_OK;
}

cairn_status_t op_movement_expand_exec(MV_EXEC_ARGS)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    mv_expand(&in[0], &out[0]);
    return CAIRN_OK;
}

cairn_status_t op_movement_tile_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    const ir_shape_t *s = &c->in[0].shape;
    int64_t v[MV_MAXV];
    int nv, have;
    BASE_TRY(get_ints(c, 1, "repeats", mv_i64_only, v, &nv, &have));
    if (s->rank >= 0 && nv >= 0 && nv != s->rank)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "repeats has %d entries but the input has "
                              "rank %d", nv, s->rank);
    if (!have || s->rank < 0) {
        ir_infer_unknown(c, 0, c->in[0].dtype, s->rank >= 0 ? s->rank : nv);
        return CAIRN_OK;
    }
    int64_t d[CAIRN_MAX_RANK];
    for (int i = 0; i < s->rank; i++) {
        if (v[i] < 0)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "repeats entry %d is negative (%lld)", i,
                                  (long long)v[i]);
        d[i] = dim_mul(s->d[i], v[i]);
        if (ir_dim_known(s->d[i]) && d[i] < 0)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "tiling dim %d (%lld x %lld) overflows", i,
                                  (long long)s->d[i], (long long)v[i]);
    }
    set_out(c, 0, c->in[0].dtype, s->rank, d);
    return CAIRN_OK;
}

cairn_status_t op_movement_tile_exec(MV_EXEC_ARGS)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    mv_tile(&in[0], &out[0]);
    return CAIRN_OK;
}

/* ---- Pad ---- */

static cairn_status_t pad_mode(const ir_node_t *n, mv_pad_mode_t *m)
{
    const char *s = ir_attr_s(n, PD_MODE);
    if (!strcmp(s, "constant"))
        *m = MV_PAD_CONSTANT;
    else if (!strcmp(s, "reflect"))
        *m = MV_PAD_REFLECT;
    else if (!strcmp(s, "edge"))
        *m = MV_PAD_EDGE;
    else
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "mode '%s' is not one of constant, "
                          "reflect, edge", s);
    return CAIRN_OK;
}

/* Spreads pads ([begins..., ends...] over `axes`, or every dim) per dim. */
static cairn_status_t pad_resolve(int rank, const int64_t *pads, int npads, const int64_t *axes,
                                  int naxes, int64_t *begin, int64_t *end)
{
    int na = axes ? naxes : rank, seen[CAIRN_MAX_RANK] = {0};
    if (npads != 2 * na)
        return base_error(CAIRN_ERR_SHAPE, "pads has %d entries; it needs 2 x %d (a begin and "
                          "an end per %s)", npads, na, axes ? "listed axis" : "input dim");
    for (int d = 0; d < rank; d++)
        begin[d] = end[d] = 0;
    for (int j = 0; j < na; j++) {
        int a = j;
        if (axes) {
            if (axes[j] < -rank || axes[j] >= rank)
                return base_error(CAIRN_ERR_SHAPE, "axes entry %lld is out of range for rank "
                                  "%d", (long long)axes[j], rank);
            a = (int)(axes[j] < 0 ? axes[j] + rank : axes[j]);
            if (seen[a])
                return base_error(CAIRN_ERR_SHAPE, "axes names axis %d twice", a);
            seen[a] = 1;
        }
        begin[a] = pads[j];
        end[a] = pads[na + j];
    }
    return CAIRN_OK;
}

cairn_status_t op_movement_pad_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    mv_pad_mode_t mode = MV_PAD_CONSTANT;
    BASE_TRY(pad_mode(c->node, &mode));
    const ir_shape_t *s = &c->in[0].shape;
    if (present(c, 2)) {
        BASE_TRY(ir_infer_same_dtype(c, 0, 2));
        int64_t nc = ir_shape_numel(&c->in[2].shape);
        if (c->in[2].shape.rank > 1 || nc > 1)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "constant_value must be a scalar");
    }
    int64_t pads[MV_MAXV], axes[MV_MAXV];
    int np, na, hp, ha;
    BASE_TRY(get_ints(c, 1, "pads", mv_i64_only, pads, &np, &hp));
    BASE_TRY(get_ints(c, 3, "axes", ir_dtypes_index, axes, &na, &ha));
    if (s->rank < 0 || !hp || !ha || np < 0) {
        ir_infer_unknown(c, 0, c->in[0].dtype, s->rank);
        return CAIRN_OK;
    }
    int64_t b[CAIRN_MAX_RANK], e[CAIRN_MAX_RANK], d[CAIRN_MAX_RANK];
    BASE_TRY(pad_resolve(s->rank, pads, np, present(c, 3) ? axes : NULL, na, b, e));
    for (int i = 0; i < s->rank; i++) {
        if (!ir_dim_known(s->d[i])) {
            d[i] = (b[i] == 0 && e[i] == 0) ? s->d[i] : IR_DIM_UNKNOWN;
            continue;
        }
        d[i] = s->d[i] + b[i] + e[i];
        if (d[i] < 0)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "pads %lld and %lld on axis %d of size "
                                  "%lld leave a negative size (%lld)", (long long)b[i],
                                  (long long)e[i], i, (long long)s->d[i], (long long)d[i]);
        if (mode != MV_PAD_CONSTANT && s->d[i] == 0 && d[i] > 0)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "axis %d is empty: %s padding has "
                                  "nothing to copy from", i, ir_attr_s(c->node, PD_MODE));
    }
    set_out(c, 0, c->in[0].dtype, s->rank, d);
    return CAIRN_OK;
}

cairn_status_t op_movement_pad_exec(MV_EXEC_ARGS)
{
    (void)n_out, (void)ws, (void)k;
    mv_pad_mode_t mode = MV_PAD_CONSTANT;
    BASE_TRY(pad_mode(n, &mode));
    int64_t pads[MV_MAXV], axes[MV_MAXV], b[CAIRN_MAX_RANK], e[CAIRN_MAX_RANK];
    int np = kt_ints(in, n_in, 1, pads, MV_MAXV);
    int na = kt_ints(in, n_in, 3, axes, MV_MAXV);
    BASE_TRY(pad_resolve(in[0].rank, pads, np, na >= 0 ? axes : NULL, na, b, e));
    const unsigned char zero[16] = {0};
    const void *value = zero;
    if (kpresent(in, n_in, 2) && kt_numel(&in[2]) == 1)
        value = in[2].data;
    mv_pad(&in[0], b, mode, value, &out[0]);
    return CAIRN_OK;
}

/* ---- Shape, Size (folded at plan time: their exec never reads in[0].data) ---- */

static void shape_range(const ir_node_t *n, int r, int64_t *lo, int64_t *hi)
{
    int64_t s = ir_attr_i(n, SH_START), e = ir_attr_i(n, SH_END);
    if (s < 0)
        s += r;
    if (e < 0)
        e += r;
    *lo = clamp64(s, 0, r);
    *hi = clamp64(e, 0, r);
    if (*hi < *lo)
        *hi = *lo;
}

cairn_status_t op_movement_shape_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    int64_t d = IR_DIM_UNKNOWN;
    if (c->in[0].shape.rank >= 0) {
        int64_t lo, hi;
        shape_range(c->node, c->in[0].shape.rank, &lo, &hi);
        d = hi - lo;
    }
    set_out(c, 0, CAIRN_I64, 1, &d);
    return CAIRN_OK;
}

cairn_status_t op_movement_shape_exec(MV_EXEC_ARGS)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int64_t lo, hi;
    shape_range(n, in[0].rank, &lo, &hi);
    for (int64_t i = lo; i < hi; i++)
        ((int64_t *)out[0].data)[i - lo] = in[0].shape[i];
    return CAIRN_OK;
}

cairn_status_t op_movement_size_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_all));
    set_out(c, 0, CAIRN_I64, 0, NULL);
    return CAIRN_OK;
}

cairn_status_t op_movement_size_exec(MV_EXEC_ARGS)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    *(int64_t *)out[0].data = kt_numel(&in[0]);
    return CAIRN_OK;
}

/* ---- ConstantOfShape ---- */

cairn_status_t op_movement_cos_infer(ir_infer_ctx_t *c)
{
    const ir_attr_t *a = ir_attr_at(c->node, CS_VALUE);
    cairn_dtype_t t = CAIRN_F32;
    if (a) {
        if (ir_shape_numel(&a->t_type.shape) != 1)
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT, "value must hold exactly one "
                                  "element, got %lld", (long long)ir_shape_numel(&a->t_type.shape));
        t = a->t_type.dtype;
    }
    int64_t v[MV_MAXV];
    int nv, have;
    BASE_TRY(get_ints(c, 0, "shape", mv_i64_only, v, &nv, &have));
    if (nv > CAIRN_MAX_RANK)
        return ir_infer_error(c, CAIRN_ERR_UNSUPPORTED, "shape has %d entries; cairn supports "
                              "rank up to %d", nv, CAIRN_MAX_RANK);
    if (!have) {
        ir_infer_unknown(c, 0, t, nv);
        return CAIRN_OK;
    }
    for (int i = 0; i < nv; i++)
        if (v[i] < 0)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "shape entry %d is negative (%lld)", i,
                                  (long long)v[i]);
    set_out(c, 0, t, nv, v);
    return CAIRN_OK;
}

cairn_status_t op_movement_cos_exec(MV_EXEC_ARGS)
{
    (void)in, (void)n_in, (void)n_out, (void)ws, (void)k;
    const ir_attr_t *a = ir_attr_at(n, CS_VALUE);
    const unsigned char zero[16] = {0};
    mv_fill(out[0].data, kt_numel(&out[0]), a ? a->t_data : zero,
            cairn_dtype_size(out[0].dtype));
    return CAIRN_OK;
}

/* ---- Range ---- */

/* The element count max(ceil((limit - start) / delta), 0), exact for ints. */
static cairn_status_t range_count(cairn_dtype_t t, const void *ps, const void *pl,
                                  const void *pd, int64_t *out)
{
    const int64_t cap = (int64_t)1 << 40;
    if (base_dtype_is_float(t)) {
        double s = base_load_as_double(ps, t, 0), l = base_load_as_double(pl, t, 0),
               d = base_load_as_double(pd, t, 0);
        if (d == 0 || !isfinite(s) || !isfinite(l) || !isfinite(d))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT, "Range needs finite start/limit and a "
                              "non-zero delta (got %g, %g, %g)", s, l, d);
        double nd = ceil((l - s) / d);
        if (nd > (double)cap)
            return base_error(CAIRN_ERR_SHAPE, "Range would have %.0f elements", nd);
        *out = nd > 0 ? (int64_t)nd : 0;
        return CAIRN_OK;
    }
    int64_t s, l, d;
    /* integers read exactly (base_load_as_double would round large i64) */
    switch (t) {
    case CAIRN_I64: s = *(const int64_t *)ps, l = *(const int64_t *)pl, d = *(const int64_t *)pd; break;
    case CAIRN_I32: s = *(const int32_t *)ps, l = *(const int32_t *)pl, d = *(const int32_t *)pd; break;
    case CAIRN_I16: s = *(const int16_t *)ps, l = *(const int16_t *)pl, d = *(const int16_t *)pd; break;
    case CAIRN_I8: s = *(const int8_t *)ps, l = *(const int8_t *)pl, d = *(const int8_t *)pd; break;
    default: s = *(const uint8_t *)ps, l = *(const uint8_t *)pl, d = *(const uint8_t *)pd; break;
    }
    if (d == 0)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "Range delta is 0");
    uint64_t diff, ad;
    if (d > 0 && l > s)
        diff = (uint64_t)l - (uint64_t)s, ad = (uint64_t)d;
    else if (d < 0 && l < s)
        diff = (uint64_t)s - (uint64_t)l, ad = 0 - (uint64_t)d;
    else {
        *out = 0;
        return CAIRN_OK;
    }
    uint64_t cnt = diff / ad + (diff % ad != 0);
    if (cnt > (uint64_t)cap)
        return base_error(CAIRN_ERR_SHAPE, "Range would have %llu elements",
                          (unsigned long long)cnt);
    *out = (int64_t)cnt;
    return CAIRN_OK;
}

cairn_status_t op_movement_range_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_numeric));
    static const char *const names[3] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; i++) {
        BASE_TRY(ir_infer_same_dtype(c, 0, i));
        const ir_shape_t *s = &c->in[i].shape;
        if (s->rank > 1 || (s->rank == 1 && ir_dim_known(s->d[0]) && s->d[0] != 1))
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "%s must be a scalar", names[i]);
    }
    const void *p[3];
    for (int i = 0; i < 3; i++) {
        p[i] = ir_infer_value(c, i);
        if (!p[i]) {
            if (!c->partial)
                return CAIRN_ERR_UNSUPPORTED;
            ir_infer_unknown(c, 0, c->in[0].dtype, 1);
            return CAIRN_OK;
        }
    }
    int64_t cnt = 0;
    BASE_TRY(range_count(c->in[0].dtype, p[0], p[1], p[2], &cnt));
    set_out(c, 0, c->in[0].dtype, 1, &cnt);
    return CAIRN_OK;
}

cairn_status_t op_movement_range_exec(MV_EXEC_ARGS)
{
    (void)n, (void)n_in, (void)n_out, (void)ws, (void)k;
    cairn_dtype_t t = in[0].dtype;
    int64_t cnt = out[0].shape[0];
    if (base_dtype_is_float(t)) {
        mv_range_float(t, base_load_as_double(in[0].data, t, 0),
                       base_load_as_double(in[2].data, t, 0), out[0].data, cnt);
    } else {
        int64_t s, d;
        switch (t) {
        case CAIRN_I64: s = *(const int64_t *)in[0].data, d = *(const int64_t *)in[2].data; break;
        case CAIRN_I32: s = *(const int32_t *)in[0].data, d = *(const int32_t *)in[2].data; break;
        case CAIRN_I16: s = *(const int16_t *)in[0].data, d = *(const int16_t *)in[2].data; break;
        case CAIRN_I8: s = *(const int8_t *)in[0].data, d = *(const int8_t *)in[2].data; break;
        default: s = *(const uint8_t *)in[0].data, d = *(const uint8_t *)in[2].data; break;
        }
        mv_range_int(t, s, d, out[0].data, cnt);
    }
    return CAIRN_OK;
}

/* ---- cost ---- */

static double kbytes(const ktensor_t *t)
{
    if (t->dtype == CAIRN_DTYPE_UNDEFINED)
        return 0;
    return (double)kt_numel(t) * (double)cairn_dtype_size(t->dtype);
}

void op_movement_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                      int n_out, ir_cost_t *cost)
{
    double ob = 0;
    for (int o = 0; o < n_out; o++)
        ob += kbytes(&out[o]);
    cost->flops = 0;
    switch (n->op) {
    case IR_OP_Slice: /* reads only what it keeps */
        cost->bytes = 2 * ob;
        break;
    case IR_OP_Gather:
    case IR_OP_GatherElements:
        cost->bytes = 2 * ob + kbytes(&in[1]);
        break;
    case IR_OP_Pad: {
        double ib = kbytes(&in[0]);
        cost->bytes = (ib < ob ? ib : ob) + ob;
        break;
    }
    case IR_OP_Shape:
    case IR_OP_Size:
    case IR_OP_ConstantOfShape:
        cost->bytes = ob;
        break;
    case IR_OP_Range:
        cost->flops = 2 * (n_out ? (double)kt_numel(&out[0]) : 0);
        cost->bytes = ob;
        break;
    default: /* Reshape & co., Split, Expand, Tile: input once, output once */
        cost->bytes = kbytes(&in[0]) + ob;
        break;
    }
    (void)n_in;
}
