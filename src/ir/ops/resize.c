/*
 * Resize-family op adapters at opset 17: Resize (opset 13 semantics: X,
 * roi, scales, sizes; scales or sizes gives the output shape, so their
 * values are needed at plan time), DepthToSpace, SpaceToDepth, GridSample
 * (opset 16, 4-D), MaxUnpool, RoiAlign (opset 16) and ReverseSequence.
 * rz_geometry() is the one place that turns Resize's attributes and input
 * values into output sizes and kernel parameters; inference and exec both
 * call it, so they cannot disagree.
 */
#include "ir/op_table.h"
#include "kernels/resize/resize.h"

#include "base/dtype.h"

#include <math.h>
#include <string.h>

cairn_status_t op_resize_infer(ir_infer_ctx_t *c);
cairn_status_t op_resize_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                              int n_out, void *ws, const kctx_t *k);
void op_resize_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                    int n_out, ir_cost_t *cost);
cairn_status_t op_resize_d2s_infer(ir_infer_ctx_t *c);
cairn_status_t op_resize_d2s_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k);
cairn_status_t op_resize_grid_infer(ir_infer_ctx_t *c);
cairn_status_t op_resize_grid_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_resize_grid_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost);
cairn_status_t op_resize_unpool_infer(ir_infer_ctx_t *c);
cairn_status_t op_resize_unpool_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k);
cairn_status_t op_resize_roi_infer(ir_infer_ctx_t *c);
cairn_status_t op_resize_roi_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k);
void op_resize_roi_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost);
cairn_status_t op_resize_revseq_infer(ir_infer_ctx_t *c);
cairn_status_t op_resize_revseq_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k);

static int rz_present(const ir_infer_ctx_t *c, int i)
{
    return i < c->n_in && c->in[i].dtype != CAIRN_DTYPE_UNDEFINED;
}

/* numel of input i, -1 if not known yet */
static int64_t rz_numel(const ir_infer_ctx_t *c, int i)
{
    if (c->in[i].shape.rank < 0)
        return -1;
    int64_t m = 1;
    for (int d = 0; d < c->in[i].shape.rank; d++) {
        if (!ir_dim_known(c->in[i].shape.d[d]))
            return -1;
        m *= c->in[i].shape.d[d];
    }
    return m;
}

/* ======================================================================
 * Resize
 * ====================================================================== */

enum { RZ_COORD, RZ_CUBIC_A, RZ_EXCLUDE, RZ_EXTRAP, RZ_MODE, RZ_NEAREST };

const ir_attr_def_t op_resize_attrs[] = {
    IR_ATTR_STRING("coordinate_transformation_mode", "half_pixel"),
    IR_ATTR_FLOAT("cubic_coeff_a", -0.75f),
    IR_ATTR_INT("exclude_outside", 0),
    IR_ATTR_FLOAT("extrapolation_value", 0.0f),
    IR_ATTR_STRING("mode", "nearest"),
    IR_ATTR_STRING("nearest_mode", "round_prefer_floor"),
    IR_ATTR_END};

static cairn_status_t rz_attrs(const ir_node_t *n, kresize_params_t *p)
{
    memset(p, 0, sizeof *p);
    const char *m = ir_attr_s(n, RZ_MODE);
    if (!strcmp(m, "nearest"))
        p->mode = KRESIZE_NEAREST;
    else if (!strcmp(m, "linear"))
        p->mode = KRESIZE_LINEAR;
    else if (!strcmp(m, "cubic"))
        p->mode = KRESIZE_CUBIC;
    else
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "mode is '%s'; it must be nearest, linear or cubic", m);
    const char *ct = ir_attr_s(n, RZ_COORD);
    static const char *const coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                         "asymmetric", "tf_crop_and_resize",
                                         "tf_half_pixel_for_nn"};
    int found = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(ct, coords[i]))
            found = i;
    if (found < 0)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "coordinate_transformation_mode is '%s'; it must be half_pixel, "
                          "pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize or "
                          "tf_half_pixel_for_nn",
                          ct);
    p->coord = (kresize_coord_t)found;
    const char *nm = ir_attr_s(n, RZ_NEAREST);
    static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    found = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(nm, nms[i]))
            found = i;
    if (found < 0)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "nearest_mode is '%s'; it must be round_prefer_floor, "
                          "round_prefer_ceil, floor or ceil",
                          nm);
    p->nearest = (kresize_nearest_t)found;
    p->cubic_a = ir_attr_f(n, RZ_CUBIC_A);
    int64_t ex = ir_attr_i(n, RZ_EXCLUDE);
    if (ex != 0 && ex != 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "exclude_outside is %lld; it must be 0 or 1", (long long)ex);
    p->exclude_outside = (int)ex;
    p->extrapolation = ir_attr_f(n, RZ_EXTRAP);
    return CAIRN_OK;
}

/* Values of roi / scales / sizes: data NULL when absent (or empty). */
typedef struct rz_vals {
    const void *roi, *scales, *sizes;
    cairn_dtype_t roi_t, scales_t, sizes_t;
    int64_t n_roi, n_scales, n_sizes;
} rz_vals_t;

/* Output sizes (IR_DIM_UNKNOWN where an input size is not known) and the
 * per-axis kernel parameters, from X's sizes and the values. */
static cairn_status_t rz_geometry(const kresize_params_t *attrs, int rank, const int64_t *xd,
                                  const rz_vals_t *v, int64_t *yd, kresize_params_t *p)
{
    *p = *attrs;
    int crop = p->coord == KRESIZE_TF_CROP_AND_RESIZE;
    if (v->scales && v->sizes)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "both scales (%lld values) and sizes (%lld values) are given; "
                          "give exactly one (the other omitted or empty)",
                          (long long)v->n_scales, (long long)v->n_sizes);
    if (!v->scales && !v->sizes)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "neither scales nor sizes is given (or both are empty); one of them "
                          "must be");
    int64_t nv = v->scales ? v->n_scales : v->n_sizes;
    if (nv != rank)
        return base_error(CAIRN_ERR_SHAPE,
                          "%s has %lld values but X has rank %d; it needs one per axis "
                          "(the axes attribute of opset 18 is not supported)",
                          v->scales ? "scales" : "sizes", (long long)nv, rank);
    if (crop) {
        if (!v->roi || v->n_roi != 2 * rank)
            return base_error(CAIRN_ERR_SHAPE,
                              "tf_crop_and_resize needs roi with 2 * rank = %d values "
                              "(starts then ends), got %lld",
                              2 * rank, (long long)(v->roi ? v->n_roi : 0));
    }
    for (int d = 0; d < rank; d++) {
        double a = 0, b = 1;
        if (crop) {
            a = base_load_as_double(v->roi, v->roi_t, d);
            b = base_load_as_double(v->roi, v->roi_t, d + rank);
            if (!isfinite(a) || !isfinite(b))
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "roi for axis %d is [%g, %g]; it must be finite", d, a, b);
        }
        p->roi_start[d] = a, p->roi_end[d] = b;
        double in = (double)xd[d];
        if (v->sizes) {
            double s = base_load_as_double(v->sizes, v->sizes_t, d);
            if (!(s >= 0) || s > 1e15)
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "sizes[%d] is %lld; sizes must be >= 0", d, (long long)s);
            yd[d] = (int64_t)s;
            p->scale[d] = xd[d] > 0 ? s / in : 1.0;
            p->len_resized[d] = s;
        } else {
            double s = base_load_as_double(v->scales, v->scales_t, d);
            if (!(s > 0) || !isfinite(s))
                return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                                  "scales[%d] is %g; scales must be positive and finite", d, s);
            p->scale[d] = s;
            p->len_resized[d] = in * (crop ? b - a : 1.0) * s;
            double o = floor(p->len_resized[d]);
            if (xd[d] >= 0 && o > 1e15)
                return base_error(CAIRN_ERR_SHAPE,
                                  "axis %d would have %g elements (input %lld, scale %g)", d, o,
                                  (long long)xd[d], s);
            yd[d] = o < 0 ? 0 : (int64_t)o;
        }
        if (xd[d] < 0) /* not known yet */
            yd[d] = (!crop && p->scale[d] == 1.0 && v->scales) ? xd[d] : IR_DIM_UNKNOWN;
        else if (xd[d] == 0 && yd[d] > 0)
            return base_error(CAIRN_ERR_SHAPE,
                              "axis %d of X is empty but the output would have %lld elements "
                              "there; there is nothing to interpolate from",
                              d, (long long)yd[d]);
    }
    return CAIRN_OK;
}

cairn_status_t op_resize_infer(ir_infer_ctx_t *c)
{
    kresize_params_t attrs, p;
    BASE_TRY(rz_attrs(c->node, &attrs));
    BASE_TRY(ir_infer_check_dtype(c, 0, attrs.mode == KRESIZE_NEAREST ? ir_dtypes_all
                                                                          : ir_dtypes_float));
    if (rz_present(c, 1))
        BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_float));
    if (rz_present(c, 2))
        BASE_TRY(ir_infer_check_dtype(c, 2, ir_dtypes_float));
    if (rz_present(c, 3)) {
        static const cairn_dtype_t i64[] = {CAIRN_I64, CAIRN_DTYPE_UNDEFINED};
        BASE_TRY(ir_infer_check_dtype(c, 3, i64));
    }
    const ir_type_t *x = &c->in[0];
    int rank = x->shape.rank;
    ir_infer_unknown(c, 0, x->dtype, rank);
    int64_t ns = rz_present(c, 2) ? rz_numel(c, 2) : 0;
    int64_t nz = rz_present(c, 3) ? rz_numel(c, 3) : 0;
    int64_t nr = rz_present(c, 1) ? rz_numel(c, 1) : 0;
    if (c->partial && (ns < 0 || nz < 0 || rank < 0 || nr < 0))
        return CAIRN_OK;
    rz_vals_t v;
    memset(&v, 0, sizeof v);
    int need_roi = attrs.coord == KRESIZE_TF_CROP_AND_RESIZE && nr > 0;
    if (ns > 0 && !(v.scales = ir_infer_value(c, 2)) && !c->partial)
        return CAIRN_ERR_UNSUPPORTED;
    if (nz > 0 && !(v.sizes = ir_infer_value(c, 3)) && !c->partial)
        return CAIRN_ERR_UNSUPPORTED;
    if (need_roi && !(v.roi = ir_infer_value(c, 1)) && !c->partial)
        return CAIRN_ERR_UNSUPPORTED;
    if ((ns > 0 && !v.scales) || (nz > 0 && !v.sizes) || (need_roi && !v.roi))
        return CAIRN_OK; /* partial: values not known yet */
    v.n_scales = ns, v.n_sizes = nz, v.n_roi = nr;
    v.scales_t = c->in[2 < c->n_in ? 2 : 0].dtype;
    v.sizes_t = c->in[3 < c->n_in ? 3 : 0].dtype;
    v.roi_t = c->in[1 < c->n_in ? 1 : 0].dtype;
    int64_t yd[CAIRN_MAX_RANK];
    BASE_TRY(rz_geometry(&attrs, rank, x->shape.d, &v, yd, &p));
    for (int d = 0; d < rank; d++)
        c->out[0].shape.d[d] = yd[d];
    return CAIRN_OK;
}

static void rz_vals_from(const ktensor_t *in, int n_in, rz_vals_t *v)
{
    memset(v, 0, sizeof *v);
    if (n_in > 1 && in[1].dtype != CAIRN_DTYPE_UNDEFINED && kt_numel(&in[1]) > 0)
        v->roi = in[1].data, v->roi_t = in[1].dtype, v->n_roi = kt_numel(&in[1]);
    if (n_in > 2 && in[2].dtype != CAIRN_DTYPE_UNDEFINED && kt_numel(&in[2]) > 0)
        v->scales = in[2].data, v->scales_t = in[2].dtype, v->n_scales = kt_numel(&in[2]);
    if (n_in > 3 && in[3].dtype != CAIRN_DTYPE_UNDEFINED && kt_numel(&in[3]) > 0)
        v->sizes = in[3].data, v->sizes_t = in[3].dtype, v->n_sizes = kt_numel(&in[3]);
}

cairn_status_t op_resize_exec(const ir_node_t *n, const ktensor_t *in, int n_in, ktensor_t *out,
                              int n_out, void *ws, const kctx_t *k)
{
    (void)n_out, (void)ws, (void)k;
    kresize_params_t attrs, p;
    BASE_TRY(rz_attrs(n, &attrs));
    rz_vals_t v;
    rz_vals_from(in, n_in, &v);
    int64_t yd[CAIRN_MAX_RANK];
    BASE_TRY(rz_geometry(&attrs, in[0].rank, in[0].shape, &v, yd, &p));
    for (int d = 0; d < in[0].rank; d++)
        if (yd[d] != out[0].shape[d])
            return base_error(CAIRN_ERR_SHAPE,
                              "axis %d: the output has %lld elements but the values of "
                              "scales/sizes/roi now give %lld (they changed after planning)",
                              d, (long long)out[0].shape[d], (long long)yd[d]);
    return kresize_ref(&in[0], &out[0], &p);
}

void op_resize_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                    int n_out, ir_cost_t *cost)
{
    (void)n_in, (void)n_out;
    kresize_params_t p;
    int taps = 0;
    if (rz_attrs(n, &p) == CAIRN_OK && p.mode != KRESIZE_NEAREST) {
        int per = p.mode == KRESIZE_CUBIC ? 4 : 2;
        taps = 1;
        for (int d = 0; d < in[0].rank; d++)
            if (in[0].shape[d] != out[0].shape[d])
                taps *= per;
    }
    double no = (double)kt_numel(&out[0]);
    cost->flops = 2.0 * taps * no;
    cost->bytes = (double)kt_numel(&in[0]) * (double)cairn_dtype_size(in[0].dtype) +
                  no * (double)cairn_dtype_size(out[0].dtype);
}

/* ======================================================================
 * DepthToSpace / SpaceToDepth
 * ====================================================================== */

enum { D2S_BLOCK, D2S_MODE };
const ir_attr_def_t op_resize_d2s_attrs[] = {IR_ATTR_REQUIRED_INT("blocksize"),
                                             IR_ATTR_STRING("mode", "DCR"), IR_ATTR_END};
const ir_attr_def_t op_resize_s2d_attrs[] = {IR_ATTR_REQUIRED_INT("blocksize"), IR_ATTR_END};

static cairn_status_t d2s_mode(const ir_node_t *n, int *crd)
{
    *crd = 0;
    if (n->op != IR_OP_DepthToSpace)
        return CAIRN_OK;
    const char *m = ir_attr_s(n, D2S_MODE);
    if (!strcmp(m, "CRD"))
        *crd = 1;
    else if (strcmp(m, "DCR"))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "mode is '%s'; it must be DCR or CRD", m);
    return CAIRN_OK;
}

cairn_status_t op_resize_d2s_infer(ir_infer_ctx_t *c)
{
    const char *op = ir_op_def(c->node->op)->name;
    int d2s = c->node->op == IR_OP_DepthToSpace, crd;
    int64_t b = ir_attr_i(c->node, D2S_BLOCK);
    if (b < 1)
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "blocksize is %lld; it must be >= 1", (long long)b);
    BASE_TRY(d2s_mode(c->node, &crd));
    const ir_type_t *x = &c->in[0];
    ir_infer_unknown(c, 0, x->dtype, 4);
    if (x->shape.rank < 0)
        return CAIRN_OK;
    if (x->shape.rank != 4)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "%s needs a 4-D input (N,C,H,W), got rank %d",
                              op, x->shape.rank);
    const int64_t *d = x->shape.d;
    int64_t *o = c->out[0].shape.d;
    o[0] = d[0];
    if (d2s) {
        if (ir_dim_known(d[1]) && d[1] % (b * b))
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "channels (%lld) must be a multiple of blocksize^2 = %lld",
                                  (long long)d[1], (long long)(b * b));
        o[1] = ir_dim_known(d[1]) ? d[1] / (b * b) : (b == 1 ? d[1] : IR_DIM_UNKNOWN);
        o[2] = ir_dim_known(d[2]) ? d[2] * b : (b == 1 ? d[2] : IR_DIM_UNKNOWN);
        o[3] = ir_dim_known(d[3]) ? d[3] * b : (b == 1 ? d[3] : IR_DIM_UNKNOWN);
    } else {
        for (int a = 2; a < 4; a++)
            if (ir_dim_known(d[a]) && d[a] % b)
                return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                      "%s (%lld) must be a multiple of blocksize %lld",
                                      a == 2 ? "height" : "width", (long long)d[a], (long long)b);
        o[1] = ir_dim_known(d[1]) ? d[1] * b * b : (b == 1 ? d[1] : IR_DIM_UNKNOWN);
        o[2] = ir_dim_known(d[2]) ? d[2] / b : (b == 1 ? d[2] : IR_DIM_UNKNOWN);
        o[3] = ir_dim_known(d[3]) ? d[3] / b : (b == 1 ? d[3] : IR_DIM_UNKNOWN);
    }
    return CAIRN_OK;
}

cairn_status_t op_resize_d2s_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int crd;
    BASE_TRY(d2s_mode(n, &crd));
    int64_t b = ir_attr_i(n, D2S_BLOCK);
    if (n->op == IR_OP_DepthToSpace)
        kdepth_to_space_ref(&in[0], &out[0], b, crd);
    else
        kspace_to_depth_ref(&in[0], &out[0], b);
    return CAIRN_OK;
}

/* ======================================================================
 * GridSample
 * ====================================================================== */

enum { GS_ALIGN, GS_MODE, GS_PAD };
const ir_attr_def_t op_resize_grid_attrs[] = {IR_ATTR_INT("align_corners", 0),
                                              IR_ATTR_STRING("mode", "bilinear"),
                                              IR_ATTR_STRING("padding_mode", "zeros"),
                                              IR_ATTR_END};

static cairn_status_t gs_attrs(const ir_node_t *n, kgrid_mode_t *mode, kgrid_pad_t *pad,
                               int *align)
{
    const char *m = ir_attr_s(n, GS_MODE), *p = ir_attr_s(n, GS_PAD);
    int64_t a = ir_attr_i(n, GS_ALIGN);
    if (!strcmp(m, "bilinear"))
        *mode = KGRID_BILINEAR;
    else if (!strcmp(m, "nearest"))
        *mode = KGRID_NEAREST;
    else if (!strcmp(m, "bicubic"))
        *mode = KGRID_BICUBIC;
    else
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "mode is '%s'; it must be bilinear, nearest or bicubic", m);
    if (!strcmp(p, "zeros"))
        *pad = KGRID_ZEROS;
    else if (!strcmp(p, "border"))
        *pad = KGRID_BORDER;
    else if (!strcmp(p, "reflection"))
        *pad = KGRID_REFLECTION;
    else
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "padding_mode is '%s'; it must be zeros, border or reflection", p);
    if (a != 0 && a != 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "align_corners is %lld; it must be 0 or 1",
                          (long long)a);
    *align = (int)a;
    return CAIRN_OK;
}

cairn_status_t op_resize_grid_infer(ir_infer_ctx_t *c)
{
    kgrid_mode_t m;
    kgrid_pad_t p;
    int a;
    BASE_TRY(gs_attrs(c->node, &m, &p, &a));
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_float));
    const ir_shape_t *x = &c->in[0].shape, *g = &c->in[1].shape;
    ir_infer_unknown(c, 0, c->in[0].dtype, 4);
    if (x->rank >= 0 && x->rank != 4)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "X must be 4-D (N,C,H,W), got rank %d (volumetric GridSample is "
                              "not supported)",
                              x->rank);
    if (g->rank >= 0 && g->rank != 4)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "grid must be 4-D (N,H_out,W_out,2), got rank %d",
                              g->rank);
    if (g->rank == 4 && ir_dim_known(g->d[3]) && g->d[3] != 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "grid's last dim must be 2 (x, y), got %lld", (long long)g->d[3]);
    if (x->rank == 4 && g->rank == 4 && ir_dim_known(x->d[0]) && ir_dim_known(g->d[0]) &&
        x->d[0] != g->d[0])
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "X has batch %lld but grid has batch %lld",
                              (long long)x->d[0], (long long)g->d[0]);
    int64_t *o = c->out[0].shape.d;
    if (x->rank == 4)
        o[0] = x->d[0], o[1] = x->d[1];
    else if (g->rank == 4)
        o[0] = g->d[0];
    if (g->rank == 4)
        o[2] = g->d[1], o[3] = g->d[2];
    if (!c->partial && x->rank == 4 && (x->d[2] == 0 || x->d[3] == 0) &&
        (g->d[1] * g->d[2] > 0) && x->d[0] * x->d[1] > 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "X has an empty spatial dim (%lld x %lld); there is nothing to sample",
                              (long long)x->d[2], (long long)x->d[3]);
    return CAIRN_OK;
}

cairn_status_t op_resize_grid_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                   ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    kgrid_mode_t m;
    kgrid_pad_t p;
    int a;
    BASE_TRY(gs_attrs(n, &m, &p, &a));
    kgrid_sample_ref(&in[0], &in[1], &out[0], m, p, a);
    return CAIRN_OK;
}

void op_resize_grid_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                         int n_out, ir_cost_t *cost)
{
    kgrid_mode_t m = KGRID_BILINEAR;
    kgrid_pad_t p;
    int a;
    if (gs_attrs(n, &m, &p, &a) != CAIRN_OK)
        m = KGRID_BILINEAR;
    ir_cost_move(n, in, n_in, out, n_out, cost);
    double taps = m == KGRID_NEAREST ? 0 : m == KGRID_BILINEAR ? 4 : 16;
    cost->flops = 2.0 * taps * (double)kt_numel(&out[0]);
}

/* ======================================================================
 * MaxUnpool
 * ====================================================================== */

enum { MU_KERNEL, MU_PADS, MU_STRIDES };
const ir_attr_def_t op_resize_unpool_attrs[] = {IR_ATTR_REQUIRED_INTS("kernel_shape"),
                                                IR_ATTR_INTS("pads"), IR_ATTR_INTS("strides"),
                                                IR_ATTR_END};

/* Default output size of spatial dim i (no output_shape input), which is
 * also the shape MaxPool's indices count in. */
static int64_t mu_default_dim(const ir_node_t *n, size_t i, int64_t in)
{
    size_t nk, np, ns;
    const int64_t *ks = ir_attr_ints(n, MU_KERNEL, &nk);
    const int64_t *pads = ir_attr_ints(n, MU_PADS, &np);
    const int64_t *st = ir_attr_ints(n, MU_STRIDES, &ns);
    if (in == 0)
        return 0;
    return (in - 1) * (ns ? st[i] : 1) + ks[i] - (np ? pads[i] + pads[i + nk] : 0);
}

cairn_status_t op_resize_unpool_infer(ir_infer_ctx_t *c)
{
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    static const cairn_dtype_t i64[] = {CAIRN_I64, CAIRN_DTYPE_UNDEFINED};
    BASE_TRY(ir_infer_check_dtype(c, 1, i64));
    const ir_shape_t *x = &c->in[0].shape, *ix = &c->in[1].shape;
    size_t nk, np, ns;
    const int64_t *ks = ir_attr_ints(c->node, MU_KERNEL, &nk);
    const int64_t *pads = ir_attr_ints(c->node, MU_PADS, &np);
    const int64_t *st = ir_attr_ints(c->node, MU_STRIDES, &ns);
    int rank = x->rank >= 0 ? x->rank : (int)nk + 2;
    ir_infer_unknown(c, 0, c->in[0].dtype, rank);
    if (rank != (int)nk + 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "X has rank %d but kernel_shape has %zu values; X must be "
                              "(N, C, spatial...) with one kernel size per spatial dim",
                              rank, nk);
    if ((np && np != 2 * nk) || (ns && ns != nk))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "pads has %zu values and strides %zu; with %zu spatial dims they "
                              "need %zu and %zu",
                              np, ns, nk, 2 * nk, nk);
    for (size_t i = 0; i < nk; i++) {
        if (ks[i] < 1 || (ns && st[i] < 1) || (np && (pads[i] < 0 || pads[i + nk] < 0)))
            return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                  "spatial dim %zu: kernel %lld, stride %lld, pads %lld/%lld; "
                                  "kernel and stride must be >= 1 and pads >= 0",
                                  i, (long long)ks[i], (long long)(ns ? st[i] : 1),
                                  (long long)(np ? pads[i] : 0), (long long)(np ? pads[i + nk] : 0));
    }
    if (x->rank >= 0 && ix->rank >= 0) {
        int same = x->rank == ix->rank;
        for (int d = 0; same && d < x->rank; d++)
            if (ir_dim_known(x->d[d]) && ir_dim_known(ix->d[d]) && x->d[d] != ix->d[d])
                same = 0;
        if (!same)
            return ir_infer_error(c, CAIRN_ERR_SHAPE, "I must have X's shape");
    }
    for (size_t i = 0; x->rank >= 0 && i < nk; i++)
        if (ir_dim_known(x->d[i + 2]) && mu_default_dim(c->node, i, x->d[i + 2]) < 0)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "spatial dim %zu: the unpooled size would be %lld (pads too "
                                  "large for input %lld)",
                                  i, (long long)mu_default_dim(c->node, i, x->d[i + 2]),
                                  (long long)x->d[i + 2]);
    if (rz_present(c, 2)) {
        BASE_TRY(ir_infer_check_dtype(c, 2, i64));
        int64_t m = rz_numel(c, 2);
        if (m >= 0 && m != rank)
            return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                  "output_shape has %lld values but X has rank %d", (long long)m,
                                  rank);
        const void *v = ir_infer_value(c, 2);
        if (!v)
            return c->partial ? CAIRN_OK : CAIRN_ERR_UNSUPPORTED;
        for (int d = 0; d < rank; d++) {
            int64_t o = ir_infer_value_i64(c, 2, d);
            if (o < 0)
                return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                                      "output_shape[%d] is %lld; it must be >= 0", d,
                                      (long long)o);
            if (d < 2 && x->rank >= 0 && ir_dim_known(x->d[d]) && o != x->d[d])
                return ir_infer_error(c, CAIRN_ERR_SHAPE,
                                      "output_shape[%d] is %lld but X has %lld there (N and C "
                                      "do not change)",
                                      d, (long long)o, (long long)x->d[d]);
            c->out[0].shape.d[d] = o;
        }
        return CAIRN_OK;
    }
    if (x->rank < 0)
        return CAIRN_OK;
    c->out[0].shape.d[0] = x->d[0];
    c->out[0].shape.d[1] = x->d[1];
    for (size_t i = 0; i < nk; i++)
        if (ir_dim_known(x->d[i + 2]))
            c->out[0].shape.d[i + 2] = mu_default_dim(c->node, i, x->d[i + 2]);
    return CAIRN_OK;
}

cairn_status_t op_resize_unpool_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    int64_t dd[CAIRN_MAX_RANK];
    dd[0] = in[0].shape[0], dd[1] = in[0].shape[1];
    for (int d = 2; d < in[0].rank; d++)
        dd[d] = mu_default_dim(n, (size_t)(d - 2), in[0].shape[d]);
    return kmax_unpool_ref(&in[0], &in[1], &out[0], dd);
}

/* ======================================================================
 * RoiAlign
 * ====================================================================== */

enum { RA_COORD, RA_MODE, RA_OH, RA_OW, RA_SAMPLING, RA_SCALE };
const ir_attr_def_t op_resize_roi_attrs[] = {
    IR_ATTR_STRING("coordinate_transformation_mode", "half_pixel"),
    IR_ATTR_STRING("mode", "avg"),
    IR_ATTR_INT("output_height", 1),
    IR_ATTR_INT("output_width", 1),
    IR_ATTR_INT("sampling_ratio", 0),
    IR_ATTR_FLOAT("spatial_scale", 1.0f),
    IR_ATTR_END};

static cairn_status_t ra_attrs(const ir_node_t *n, kroi_align_params_t *p)
{
    const char *ct = ir_attr_s(n, RA_COORD), *m = ir_attr_s(n, RA_MODE);
    if (!strcmp(ct, "half_pixel"))
        p->half_pixel = 1;
    else if (!strcmp(ct, "output_half_pixel"))
        p->half_pixel = 0;
    else
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "coordinate_transformation_mode is '%s'; it must be half_pixel or "
                          "output_half_pixel",
                          ct);
    if (!strcmp(m, "avg"))
        p->mode_max = 0;
    else if (!strcmp(m, "max"))
        p->mode_max = 1;
    else
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "mode is '%s'; it must be avg or max", m);
    p->sampling_ratio = ir_attr_i(n, RA_SAMPLING);
    p->spatial_scale = ir_attr_f(n, RA_SCALE);
    int64_t oh = ir_attr_i(n, RA_OH), ow = ir_attr_i(n, RA_OW);
    if (oh < 1 || ow < 1 || p->sampling_ratio < 0)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "output_height %lld, output_width %lld, sampling_ratio %lld; the "
                          "output sizes must be >= 1 and sampling_ratio >= 0",
                          (long long)oh, (long long)ow, (long long)p->sampling_ratio);
    return CAIRN_OK;
}

cairn_status_t op_resize_roi_infer(ir_infer_ctx_t *c)
{
    kroi_align_params_t p;
    BASE_TRY(ra_attrs(c->node, &p));
    BASE_TRY(ir_infer_check_dtype(c, 0, ir_dtypes_float));
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_float));
    BASE_TRY(ir_infer_check_dtype(c, 2, ir_dtypes_index));
    const ir_shape_t *x = &c->in[0].shape, *r = &c->in[1].shape, *b = &c->in[2].shape;
    ir_infer_unknown(c, 0, c->in[0].dtype, 4);
    if (x->rank >= 0 && x->rank != 4)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "X must be 4-D (N,C,H,W), got rank %d", x->rank);
    if (r->rank >= 0 && (r->rank != 2 || (ir_dim_known(r->d[1]) && r->d[1] != 4)))
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "rois must be (num_rois, 4) [x1, y1, x2, y2], got rank %d with %lld "
                              "columns",
                              r->rank, (long long)(r->rank == 2 ? r->d[1] : -1));
    if (b->rank >= 0 && b->rank != 1)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "batch_indices must be 1-D, got rank %d",
                              b->rank);
    if (r->rank == 2 && b->rank == 1 && ir_dim_known(r->d[0]) && ir_dim_known(b->d[0]) &&
        r->d[0] != b->d[0])
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "rois has %lld rows but batch_indices has %lld values",
                              (long long)r->d[0], (long long)b->d[0]);
    int64_t *o = c->out[0].shape.d;
    o[0] = r->rank == 2 ? r->d[0] : b->rank == 1 ? b->d[0] : IR_DIM_UNKNOWN;
    o[1] = x->rank == 4 ? x->d[1] : IR_DIM_UNKNOWN;
    o[2] = ir_attr_i(c->node, RA_OH);
    o[3] = ir_attr_i(c->node, RA_OW);
    if (!c->partial && x->rank == 4 && (x->d[2] == 0 || x->d[3] == 0) && o[0] > 0)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "X has an empty spatial dim (%lld x %lld)",
                              (long long)x->d[2], (long long)x->d[3]);
    return CAIRN_OK;
}

cairn_status_t op_resize_roi_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                  ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    kroi_align_params_t p;
    BASE_TRY(ra_attrs(n, &p));
    return kroi_align_ref(&in[0], &in[1], &in[2], &out[0], &p);
}

void op_resize_roi_cost(const ir_node_t *n, const ktensor_t *in, int n_in, const ktensor_t *out,
                        int n_out, ir_cost_t *cost)
{
    ir_cost_move(n, in, n_in, out, n_out, cost);
    /* about 8 FLOPs per bilinear sample; the sample count depends on the
     * rois, so assume the sampling_ratio or 2 x 2 per bin */
    int64_t sr = ir_attr_i(n, RA_SAMPLING);
    double samples = sr > 0 ? (double)(sr * sr) : 4.0;
    cost->flops = 8.0 * samples * (double)kt_numel(&out[0]);
}

/* ======================================================================
 * ReverseSequence
 * ====================================================================== */

enum { RS_BATCH, RS_TIME };
const ir_attr_def_t op_resize_revseq_attrs[] = {IR_ATTR_INT("batch_axis", 1),
                                                IR_ATTR_INT("time_axis", 0), IR_ATTR_END};

cairn_status_t op_resize_revseq_infer(ir_infer_ctx_t *c)
{
    int64_t ba = ir_attr_i(c->node, RS_BATCH), ta = ir_attr_i(c->node, RS_TIME);
    if (!((ba == 0 && ta == 1) || (ba == 1 && ta == 0)))
        return ir_infer_error(c, CAIRN_ERR_INVALID_ARGUMENT,
                              "batch_axis is %lld and time_axis %lld; they must be 0 and 1 in "
                              "some order",
                              (long long)ba, (long long)ta);
    BASE_TRY(ir_infer_check_dtype(c, 1, ir_dtypes_index));
    const ir_shape_t *x = &c->in[0].shape, *l = &c->in[1].shape;
    c->out[0] = c->in[0];
    if (x->rank >= 0 && x->rank < 2)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "input must have rank >= 2, got %d", x->rank);
    if (l->rank >= 0 && l->rank != 1)
        return ir_infer_error(c, CAIRN_ERR_SHAPE, "sequence_lens must be 1-D, got rank %d",
                              l->rank);
    if (x->rank >= 2 && l->rank == 1 && ir_dim_known(x->d[ba]) && ir_dim_known(l->d[0]) &&
        x->d[ba] != l->d[0])
        return ir_infer_error(c, CAIRN_ERR_SHAPE,
                              "sequence_lens has %lld values but the batch axis (%lld) has %lld",
                              (long long)l->d[0], (long long)ba, (long long)x->d[ba]);
    return CAIRN_OK;
}

cairn_status_t op_resize_revseq_exec(const ir_node_t *n, const ktensor_t *in, int n_in,
                                     ktensor_t *out, int n_out, void *ws, const kctx_t *k)
{
    (void)n_in, (void)n_out, (void)ws, (void)k;
    return kreverse_sequence_ref(&in[0], &in[1], &out[0], (int)ir_attr_i(n, RS_BATCH),
                                 (int)ir_attr_i(n, RS_TIME));
}
