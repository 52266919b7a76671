/* Shapes, attribute slots, and the helpers inference code shares. */
#include "base/dtype.h"
#include "ir/op_table.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int64_t ir_shape_numel(const ir_shape_t *s)
{
    if (s->rank < 0)
        return -1;
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) {
        if (s->d[i] < 0)
            return -1;
        if (s->d[i] != 0 && n > INT64_MAX / s->d[i])
            return -1;
        n *= s->d[i];
    }
    return n;
}

int ir_shape_is_concrete(const ir_shape_t *s)
{
    if (s->rank < 0)
        return 0;
    for (int i = 0; i < s->rank; i++)
        if (s->d[i] < 0)
            return 0;
    return 1;
}

int ir_shape_equal(const ir_shape_t *a, const ir_shape_t *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->d[i] != b->d[i])
            return 0;
    return 1;
}

const char *ir_shape_str(const ir_graph_t *g, const ir_shape_t *s, char *buf, size_t cap)
{
    size_t u = 0;
    if (!cap)
        return buf;
    buf[0] = 0;
    if (s->rank < 0) {
        snprintf(buf, cap, "[?rank]");
        return buf;
    }
    u += (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < s->rank && u < cap; i++) {
        const char *sep = i ? "," : "";
        int64_t d = s->d[i];
        if (d >= 0)
            u += (size_t)snprintf(buf + u, cap - u, "%s%lld", sep, (long long)d);
        else if (ir_dim_is_sym(d) && g && ir_dim_sym_id(d) < g->n_symbols)
            u += (size_t)snprintf(buf + u, cap - u, "%s%s", sep, g->symbols[ir_dim_sym_id(d)]);
        else if (ir_dim_is_sym(d))
            u += (size_t)snprintf(buf + u, cap - u, "%s$%d", sep, ir_dim_sym_id(d));
        else
            u += (size_t)snprintf(buf + u, cap - u, "%s?", sep);
    }
    if (u < cap)
        snprintf(buf + u, cap - u, "]");
    return buf;
}

cairn_status_t ir_shape_broadcast(const ir_shape_t *a, const ir_shape_t *b, ir_shape_t *out)
{
    if (a->rank < 0 || b->rank < 0) {
        out->rank = -1;
        return CAIRN_OK;
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    ir_shape_t o;
    o.rank = r;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
        int64_t d;
        if (da == db)
            d = da;
        else if (da == 1)
            d = db;
        else if (db == 1)
            d = da;
        else if (da >= 0 && db >= 0) {
            char sa[128], sb[128];
            return base_error(CAIRN_ERR_SHAPE, "shapes %s and %s do not broadcast (dim %d: %lld vs %lld)",
                              ir_shape_str(NULL, a, sa, sizeof sa), ir_shape_str(NULL, b, sb, sizeof sb),
                              i, (long long)da, (long long)db);
        } else if (da >= 0)
            d = da; /* a symbol must equal the known size (or be 1) */
        else if (db >= 0)
            d = db;
        else
            d = IR_DIM_UNKNOWN;
        o.d[i] = d;
    }
    *out = o;
    return CAIRN_OK;
}

cairn_status_t ir_norm_axis(int64_t axis, int rank, int *out)
{
    if (axis < -rank || axis >= rank || rank < 0)
        return base_error(CAIRN_ERR_SHAPE, "axis %lld is out of range for rank %d",
                          (long long)axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return CAIRN_OK;
}

/* ---- attribute slots ---- */

const ir_attr_t *ir_attr_at(const ir_node_t *n, int slot)
{
    int a = n->attr_slot[slot];
    return a >= 0 ? &n->attrs[a] : NULL;
}

int64_t ir_attr_i(const ir_node_t *n, int slot)
{
    const ir_attr_t *a = ir_attr_at(n, slot);
    return a ? a->i : ir_op_def(n->op)->attrs[slot].def_i;
}

float ir_attr_f(const ir_node_t *n, int slot)
{
    const ir_attr_t *a = ir_attr_at(n, slot);
    return a ? a->f : ir_op_def(n->op)->attrs[slot].def_f;
}

const char *ir_attr_s(const ir_node_t *n, int slot)
{
    const ir_attr_t *a = ir_attr_at(n, slot);
    return a ? a->s : ir_op_def(n->op)->attrs[slot].def_s;
}

const int64_t *ir_attr_ints(const ir_node_t *n, int slot, size_t *count)
{
    const ir_attr_t *a = ir_attr_at(n, slot);
    *count = a ? a->n : 0;
    return a ? a->ints : NULL;
}

const float *ir_attr_floats(const ir_node_t *n, int slot, size_t *count)
{
    const ir_attr_t *a = ir_attr_at(n, slot);
    *count = a ? a->n : 0;
    return a ? a->floats : NULL;
}

/* ---- inference helpers ---- */

const cairn_dtype_t ir_dtypes_float[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                         CAIRN_DTYPE_UNDEFINED};
const cairn_dtype_t ir_dtypes_numeric[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                           CAIRN_I8,  CAIRN_I16,  CAIRN_I32, CAIRN_I64,
                                           CAIRN_U8,  CAIRN_DTYPE_UNDEFINED};
const cairn_dtype_t ir_dtypes_all[] = {CAIRN_F16, CAIRN_BF16, CAIRN_F32, CAIRN_F64,
                                       CAIRN_I8,  CAIRN_I16,  CAIRN_I32, CAIRN_I64,
                                       CAIRN_U8,  CAIRN_BOOL, CAIRN_DTYPE_UNDEFINED};
const cairn_dtype_t ir_dtypes_int[] = {CAIRN_I8,  CAIRN_I16, CAIRN_I32,
                                       CAIRN_I64, CAIRN_U8,  CAIRN_DTYPE_UNDEFINED};
const cairn_dtype_t ir_dtypes_index[] = {CAIRN_I32, CAIRN_I64, CAIRN_DTYPE_UNDEFINED};

cairn_status_t ir_infer_error(const ir_infer_ctx_t *c, cairn_status_t s, const char *fmt, ...)
{
    /* the caller (graph building, planning) puts "node 'x' (Op): " in front */
    (void)c;
    va_list ap;
    va_start(ap, fmt);
    base_verror(s, fmt, ap);
    va_end(ap);
    return s;
}

const void *ir_infer_value(const ir_infer_ctx_t *c, int i)
{
    const void *p = (i < c->n_in) ? c->in_data[i] : NULL;
    if (!p && !c->partial && c->missing_input)
        *c->missing_input = i;
    if (!p && !c->partial)
        base_error(CAIRN_ERR_UNSUPPORTED,
                   "input %d must be a constant or computable from shapes: cairn needs its "
                   "value to know the output shape",
                   i);
    return p;
}

int64_t ir_infer_value_i64(const ir_infer_ctx_t *c, int i, int64_t k)
{
    const void *p = c->in_data[i];
    switch (c->in[i].dtype) {
    case CAIRN_I64: return ((const int64_t *)p)[k];
    case CAIRN_I32: return ((const int32_t *)p)[k];
    case CAIRN_I16: return ((const int16_t *)p)[k];
    case CAIRN_I8: return ((const int8_t *)p)[k];
    case CAIRN_U8: return ((const uint8_t *)p)[k];
    case CAIRN_BOOL: return ((const uint8_t *)p)[k];
    default: return (int64_t)base_load_as_double(p, c->in[i].dtype, k);
    }
}

cairn_status_t ir_infer_check_dtype(const ir_infer_ctx_t *c, int i, const cairn_dtype_t *allowed)
{
    cairn_dtype_t t = c->in[i].dtype;
    for (int k = 0; allowed[k] != CAIRN_DTYPE_UNDEFINED; k++)
        if (allowed[k] == t)
            return CAIRN_OK;
    char list[256];
    size_t u = 0;
    list[0] = 0;
    for (int k = 0; allowed[k] != CAIRN_DTYPE_UNDEFINED && u < sizeof list; k++)
        u += (size_t)snprintf(list + u, sizeof list - u, "%s%s", k ? ", " : "",
                              cairn_dtype_name(allowed[k]));
    return base_error(CAIRN_ERR_DTYPE, "input %d has type %s; %s allows %s", i,
                      cairn_dtype_name(t), ir_op_def(c->node->op)->name, list);
}

cairn_status_t ir_infer_same_dtype(const ir_infer_ctx_t *c, int i, int j)
{
    if (c->in[i].dtype != c->in[j].dtype)
        return base_error(CAIRN_ERR_DTYPE, "inputs %d and %d must have the same type, got %s and %s",
                          i, j, cairn_dtype_name(c->in[i].dtype), cairn_dtype_name(c->in[j].dtype));
    return CAIRN_OK;
}

void ir_infer_unknown(ir_infer_ctx_t *c, int o, cairn_dtype_t dtype, int rank)
{
    c->out[o].dtype = dtype;
    c->out[o].shape.rank = rank;
    for (int i = 0; i < rank && i < CAIRN_MAX_RANK; i++)
        c->out[o].shape.d[i] = IR_DIM_UNKNOWN;
}
