/*
 * Fast f32 Conv: im2col + the f32 GEMM (with bias, activation and residual
 * in its epilogue), the 1x1 shortcut that needs no im2col, and the direct
 * depthwise kernel (portable C here, AVX2 + FMA in x86_avx2.c, which AVX-512
 * CPUs run too) with its dispatch (best first: avx2, ref). See conv.h for the
 * contract. Accumulation is f32 (the GEMM's,
 * and the depthwise kernel's), not double as in the reference.
 */
#include "kernels/conv/conv.h"
#include "kernels/conv/winograd.h"

#include "base/alloc.h"
#include "base/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t sp_size(const int64_t *d) { return d[0] * d[1] * d[2]; }

static int64_t conv_chunk_cols(int64_t K, int64_t out_sz);

int conv_f32_is_depthwise(const conv_params_t *p)
{
    return p->group > 1 && p->group == p->C && p->group == p->M && p->in[0] == 1 &&
           p->out[0] == 1 && p->kernel[0] == 1;
}

int conv_f32_is_pointwise(const conv_params_t *p)
{
    for (int d = 0; d < CONV_SP; d++)
        if (p->kernel[d] != 1 || p->stride[d] != 1 || p->pad[d] != 0 || p->in[d] != p->out[d])
            return 0;
    return 1;
}

/* ---- the direct path: no im2col, the GEMM reads B rows in place ----
 *
 * With group 1, the im2col matrix's row (c, kh, kw) is a shifted (and, for
 * stride s, subsampled) view of input plane c, so the GEMM reads it where
 * it lies (gemm_f32_packed_a_indb). A 1x1 stride-1 convolution reads X
 * itself. Any other reads a zero-padded copy of X split into its s x s
 * stride phases: phase (a, b) of channel c is the Hq x Wq plane of padded
 * input points (s*i + a, s*j + b), flattened row by row, so output (oh, ow)
 * is column oh * Wq + ow, and tap (kh, kw) reads phase ((kh*dh) % s,
 * (kw*dw) % s) at offset ((kh*dh) / s) * Wq + (kw*dw) / s. The Wq - OW
 * columns between output rows are computed and dropped (OW / Wq of the
 * work is kept: 56/58 on ResNet's 3x3 layers, 112/115 on its 7x7 stride-2
 * stem). The copy costs one pass over X instead of im2col's one per tap,
 * and the GEMM packs nothing on the B side. */

typedef struct dgeom {
    int64_t sh, sw, hq, wq; /* strides; phase plane dims */
} dgeom_t;

static void direct_geom(const conv_params_t *p, dgeom_t *g)
{
    g->sh = p->stride[1];
    g->sw = p->stride[2];
    const int64_t hp = (p->out[1] - 1) * g->sh + (p->kernel[1] - 1) * p->dilation[1] + 1;
    const int64_t wp = (p->out[2] - 1) * g->sw + (p->kernel[2] - 1) * p->dilation[2] + 1;
    g->hq = (hp + g->sh - 1) / g->sh;
    g->wq = (wp + g->sw - 1) / g->sw;
}

static atomic_int g_direct_off;
static atomic_int g_pixels_off; /* conv_f32_set_pixels */

void conv_f32_set_pixels(int enable) { atomic_store(&g_pixels_off, !enable); }

void conv_f32_set_direct(int enable) { atomic_store(&g_direct_off, !enable); }

/* 0: not direct; 1: pointwise (X in place); 2: phase planes */
static int direct_kind(const conv_params_t *p)
{
    const int64_t nmin = gemm_f32_indb_min_n();
    if (!nmin || atomic_load_explicit(&g_direct_off, memory_order_relaxed) || p->group != 1 ||
        conv_f32_is_depthwise(p))
        return 0;
    const int64_t K = p->C * sp_size(p->kernel);
    if (conv_f32_is_pointwise(p))
        /* a long K or a tall W amortises packing B: the packed GEMM keeps
         * its B panel in L1 and wins there (ResNet's 512 -> 128, 256 -> 128
         * and 2048 -> 512; bench/bench_conv_f32). With the 32-wide AVX-512
         * tiles packing wins from 64 output channels on (ResNet-50's 56x56
         * 1x1s in the model, 1 thread, Xeon: 0.78-1.25 -> 0.74-0.91 ms;
         * MobileNetV2's 16-32 channel ones stay direct, 0.12 against 0.18),
         * except 64 channels from at most 128 (ResNet-50's 64 -> 64 at 56x56:
         * 0.181 -> 0.148 ms alone, 0.222 -> 0.193 in the model; 256 -> 64
         * measured 0.69 packed against 0.71 direct) */
        return sp_size(p->in) >= nmin && K <= 384 && p->M <= 400 && (K < 256 || p->M < 128) &&
                       (nmin < 32 || p->M < 64 || (p->M == 64 && K <= 128))
                   ? 1
                   : 0;
    if (p->in[0] != 1 || p->out[0] != 1 || p->kernel[0] != 1 || p->stride[1] > 4 ||
        p->stride[2] > 4)
        return 0;
    /* strided: the taps read several phase planes, and with many output
     * channels or a long K the im2col copy is amortised well enough that
     * the packed GEMM wins (ResNet-50's strided 1x1 downsamples and its
     * 3x3 stride-2 convolutions past layer 2; bench/bench_conv_f32) */
    if ((p->stride[1] > 1 || p->stride[2] > 1) &&
        (p->M > 400 || K > (sp_size(p->kernel) == 1 ? 384 : 1152)))
        return 0;
    dgeom_t g;
    direct_geom(p, &g);
    /* at least half the computed columns kept, and one tile's worth */
    if (2 * p->out[2] < g.wq || (p->out[1] - 1) * g.wq + p->out[2] < nmin)
        return 0;
    return 2;
}

/* ---- indirect A: small planes, many channels ----
 *
 * On small output planes (ResNet-50's 14x14 and 7x7 stages) the direct
 * path's padded columns (Wq - OW of Wq) and its 16-pixel tiles waste a
 * quarter of the work. There the roles swap: the weights are packed as the
 * GEMM's B (16 output channels per vector), each 6-pixel tile broadcasts
 * input values through 6 pixel pointers (into a zero-padded copy of X, or
 * X itself for a 1x1 stride-1 convolution), and the tile is stored
 * transposed into Y's channel-major planes. Nothing is wasted but the
 * last partial tile; any stride or dilation. */

typedef struct ageom {
    int64_t hp, wp; /* the padded plane; 0 when X is read in place */
    int sub;        /* a strided 1x1: the copy holds just the pixels read (hp x wp = out) */
} ageom_t;

/* The geometry the indirect-A path can run (2-D, group 1); g set. */
static int inda_possible(const conv_params_t *p, ageom_t *g)
{
    if (!gemm_f32_inda_available() || p->group != 1 || conv_f32_is_depthwise(p) ||
        p->in[0] != 1 || p->out[0] != 1 || p->kernel[0] != 1 || p->out[1] < 1 || p->out[2] < 1)
        return 0;
    g->sub = 0;
    if (conv_f32_is_pointwise(p)) {
        g->hp = g->wp = 0;
        return 1;
    }
    if (sp_size(p->kernel) == 1) { /* strided 1x1: the compact copy */
        g->hp = p->out[1], g->wp = p->out[2];
        g->sub = 1;
        return 1;
    }
    g->hp = (p->out[1] - 1) * p->stride[1] + (p->kernel[1] - 1) * p->dilation[1] + 1;
    g->wp = (p->out[2] - 1) * p->stride[2] + (p->kernel[2] - 1) * p->dilation[2] + 1;
    return 1;
}

/* Whether conv_f32_pack_w packs W for the indirect-A path (as B): needs the
 * full geometry, so weights packed without it (the output size unknown at
 * compile time) take the other paths. */
static int inda_kind(const conv_params_t *p, ageom_t *g)
{
    if (!inda_possible(p, g) || atomic_load_explicit(&g_direct_off, memory_order_relaxed))
        return 0;
    const int64_t K = p->C * sp_size(p->kernel);
    /* strided layers up to 64 outputs wide: the direct path reads several
     * phase planes and drops their padded columns (ResNet-50's layer2.0 3x3
     * stride 2, 28x28 out: 3.12 -> 2.77 ms; bench/bench_conv_f32) */
    const int strided = p->stride[1] > 1 || p->stride[2] > 1;
    /* 1x1 (and strided 1x1, from a compact copy of the pixels it reads:
     * read strided in place they measured 1.7x slower) only on the
     * smallest planes, where they run pixel-major (conv_1x1_pixels): on
     * ResNet-50's 14x14 stage the packed GEMM with W as A is as fast; on
     * its 7x7 stage (49 pixels: 16-pixel tiles keep 77 % of their work,
     * 6-pixel ones 91 %) 2048 -> 512 runs 1.41 -> 1.13 ms (W as A ->
     * pixel-major), and 160 -> 960 / 96 -> 576 at 7x7 0.206 -> 0.177 /
     * 0.079 -> 0.068 ms (bench/bench_conv_f32, a GEMM + store harness) */
    /* With the AVX-512 tiles (32 channels wide) the 14x14 stage gains too:
     * ResNet-50's layer3 1x1s in the model 0.77-0.88 -> 0.64-0.77 ms, its
     * 1024 -> 512 into layer4 1.57 -> 1.25-1.31, the model 59-62 -> 56-59
     * ms on 1 thread and 33-34 -> 31-32.4 on 2 (Xeon); 28x28 planes were
     * no better */
    if (sp_size(p->kernel) == 1)
        return p->M >= 64 && K >= 64 && K <= 2048 &&
               p->out[2] < (gemm_f32_indb_min_n() >= 32 ? 16 : 8) && p->out[1] * p->out[2] >= 8;
    if (p->M < 64 || K < 256 || p->out[2] >= (strided ? 64 : 16) || p->out[1] * p->out[2] < 8)
        return 0;
    return 1;
}

/* The plane stride of the indirect-A path's copy of X (0: X is read in
 * place): the planes 64-byte aligned. A 7x7 plane read in place (49 floats
 * apart) ran 512 -> 2048 at 73 GFLOP/s, copied 64 floats apart at 82: each
 * k step's 6 pixels then sit at the same offset in their line, and the
 * lines of consecutive channels are evenly spaced. */
static int64_t inda_pstride(const conv_params_t *p, const ageom_t *g)
{
    const int64_t plane = g->hp ? g->hp * g->wp : sp_size(p->in);
    if (!g->hp && plane % 16 == 0)
        return 0;
    return (plane + 15) / 16 * 16;
}

static size_t inda_ws(const conv_params_t *p, const ageom_t *g)
{
    const int64_t K = p->C * sp_size(p->kernel), P = sp_size(p->out);
    size_t b = base_round_up((size_t)(K + P) * sizeof(int64_t), BASE_ALIGN);
    size_t x = (size_t)(p->C * inda_pstride(p, g)) * sizeof(float);
    if (sp_size(p->kernel) == 1) /* the pixel-major 1x1: the product, pixel by pixel */
        return b + base_round_up(x, BASE_ALIGN) + (size_t)(P * p->M) * sizeof(float);
    return b + x;
}

const char *conv_f32_packed_path(const conv_params_t *p)
{
    ageom_t g;
    const int tile = conv_wino_chosen(p);
    if (tile)
        return tile == 4 ? "winograd" : "winograd 2x2";
    if (!inda_kind(p, &g))
        return conv_f32_packed_a_path(p);
    return sp_size(p->kernel) == 1 && !atomic_load_explicit(&g_pixels_off, memory_order_relaxed)
               ? "1x1 pixel-major"
               : "indirect-A";
}

int conv_f32_packed_kind(const void *packed)
{
    return conv_wino_is_packed(packed) ? 'W' : gemm_f32_packed_kind(packed);
}

const char *conv_f32_packed_a_path(const conv_params_t *p)
{
    switch (direct_kind(p)) {
    case 1:
        return "direct 1x1";
    case 2:
        return "direct";
    default:
        return conv_f32_is_pointwise(p) ? "1x1" : "im2col";
    }
}

/* bytes of the direct path's workspace: offsets, then the phase planes */
static size_t direct_ws(const conv_params_t *p, int kind)
{
    const int64_t K = p->C * sp_size(p->kernel);
    size_t b = base_round_up((size_t)K * sizeof(int64_t), BASE_ALIGN);
    if (kind == 2) {
        dgeom_t g;
        direct_geom(p, &g);
        b += (size_t)(p->C * g.sh * g.sw * g.hq * g.wq) * sizeof(float);
    }
    return b;
}

size_t conv_f32_workspace(const conv_params_t *p)
{
    if (conv_f32_is_depthwise(p))
        return 0;
    const int kind = direct_kind(p);
    size_t direct = kind ? direct_ws(p, kind) : 0;
    ageom_t ag;
    if (inda_possible(p, &ag)) {
        /* the packed buffer's format decides the path at run time */
        size_t a = inda_ws(p, &ag);
        direct = a > direct ? a : direct;
    }
    size_t w = conv_wino_workspace(p); /* 0 unless Winograd-packed weights can run p */
    direct = w > direct ? w : direct;
    if (conv_f32_is_pointwise(p))
        return direct;
    int64_t rows = p->C / (p->group > 0 ? p->group : 1) * sp_size(p->kernel);
    size_t i2c = (size_t)(rows * conv_chunk_cols(rows, sp_size(p->out))) * sizeof(float);
    return i2c > direct ? i2c : direct;
}

/* The range [lo, hi) of outputs o in [0, n_out) whose input index
 * o*s + off lies in [0, n_in). */
static void valid_range(int64_t n_out, int64_t n_in, int64_t s, int64_t off, int64_t *lo,
                        int64_t *hi)
{
    int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
    int64_t h = n_in - 1 - off < 0 ? 0 : (n_in - 1 - off) / s + 1;
    if (h > n_out)
        h = n_out;
    if (l > h)
        l = h;
    *lo = l, *hi = h;
}

void conv_im2col_f32(const conv_params_t *p, const float *x, float *col, int64_t r0, int64_t r1,
                     int64_t j0, int64_t j1)
{
    const int64_t taps = sp_size(p->kernel), in_sz = sp_size(p->in);
    const int64_t O1 = p->out[1], O2 = p->out[2], ld = j1 - j0;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t c = r / taps, t = r % taps;
        const int64_t k2 = t % p->kernel[2], k1 = (t / p->kernel[2]) % p->kernel[1],
                      k0 = t / (p->kernel[2] * p->kernel[1]);
        const float *xc = x + c * in_sz;
        float *dst = col + r * ld - j0; /* dst[j] for output j */
        const int64_t off2 = k2 * p->dilation[2] - p->pad[2];
        int64_t lo2, hi2;
        valid_range(O2, p->in[2], p->stride[2], off2, &lo2, &hi2);
        /* walk [j0, j1) one output row (fixed o0, o1) segment at a time */
        for (int64_t j = j0; j < j1;) {
            const int64_t row = j / O2, a = j % O2;
            const int64_t b = j1 - row * O2 < O2 ? j1 - row * O2 : O2; /* segment [a, b) */
            const int64_t o0 = row / O1, o1 = row % O1;
            float *d = dst + row * O2;
            const int64_t i0 = o0 * p->stride[0] - p->pad[0] + k0 * p->dilation[0];
            const int64_t i1 = o1 * p->stride[1] - p->pad[1] + k1 * p->dilation[1];
            j = row * O2 + b;
            if (i0 < 0 || i0 >= p->in[0] || i1 < 0 || i1 >= p->in[1]) {
                memset(d + a, 0, (size_t)(b - a) * sizeof(float));
                continue;
            }
            const float *xr = xc + (i0 * p->in[1] + i1) * p->in[2] + off2;
            const int64_t lo = lo2 > a ? lo2 : a, hi = hi2 < b ? hi2 : b;
            if (lo >= hi) {
                memset(d + a, 0, (size_t)(b - a) * sizeof(float));
                continue;
            }
            if (lo > a)
                memset(d + a, 0, (size_t)(lo - a) * sizeof(float));
            if (p->stride[2] == 1) {
                memcpy(d + lo, xr + lo, (size_t)(hi - lo) * sizeof(float));
            } else {
                const int64_t st = p->stride[2];
                for (int64_t o2 = lo; o2 < hi; o2++)
                    d[o2] = xr[o2 * st];
            }
            if (hi < b)
                memset(d + hi, 0, (size_t)(b - hi) * sizeof(float));
        }
    }
}

/* Output columns per im2col chunk: the chunk's K x nc block of col stays
 * in (half) the L2 between im2col writing it and the GEMM packing it, so
 * the expanded matrix never goes to memory. At least 256 columns, so the
 * GEMM's packing of W is not repeated too often. */
static int64_t conv_chunk_cols(int64_t K, int64_t out_sz)
{
    size_t l2 = base_cpu()->l2;
    size_t budget = l2 ? l2 / 2 : (size_t)512 * 1024;
    int64_t nc = (int64_t)(budget / ((size_t)(K > 0 ? K : 1) * sizeof(float)));
    nc = nc / 32 * 32;
    if (nc < 256)
        nc = 256;
    return nc < out_sz ? nc : out_sz;
}

/* ------------------------------ depthwise ------------------------------ */

void conv_dw_plane_f32_ref(const conv_params_t *p, const float *x, const float *w, float bias,
                           const conv_post_t *post, const float *res, float *y)
{
    const int64_t IH = p->in[1], IW = p->in[2], OH = p->out[1], OW = p->out[2];
    const int64_t KH = p->kernel[1], KW = p->kernel[2];
    const int64_t sh = p->stride[1], sw = p->stride[2], dh = p->dilation[1], dw = p->dilation[2];
    for (int64_t oh = 0; oh < OH; oh++) {
        float *yr = y + oh * OW;
        for (int64_t ow = 0; ow < OW; ow++)
            yr[ow] = bias;
        for (int64_t kh = 0; kh < KH; kh++) {
            const int64_t ih = oh * sh - p->pad[1] + kh * dh;
            if (ih < 0 || ih >= IH)
                continue;
            const float *xr = x + ih * IW;
            for (int64_t kw = 0; kw < KW; kw++) {
                const float wv = w[kh * KW + kw];
                const int64_t off = kw * dw - p->pad[2];
                int64_t lo, hi;
                valid_range(OW, IW, sw, off, &lo, &hi);
                if (sw == 1)
                    for (int64_t ow = lo; ow < hi; ow++)
                        yr[ow] += wv * xr[ow + off];
                else
                    for (int64_t ow = lo; ow < hi; ow++)
                        yr[ow] += wv * xr[ow * sw + off];
            }
        }
        if (post) {
            if (post->act != GEMM_ACT_NONE)
                for (int64_t ow = 0; ow < OW; ow++)
                    yr[ow] = gemm_act_apply_f32(post->act, yr[ow], post->clip_lo, post->clip_hi);
            if (res)
                for (int64_t ow = 0; ow < OW; ow++)
                    yr[ow] += res[oh * OW + ow];
            if (post->post_act != GEMM_ACT_NONE)
                for (int64_t ow = 0; ow < OW; ow++)
                    yr[ow] = gemm_act_apply_f32(post->post_act, yr[ow], post->post_lo,
                                                post->post_hi);
        }
    }
}

typedef struct dw_variant {
    const char *name;
    cairn_isa_t isa;
    conv_dw_plane_fn fn;
    conv_dw_planes_fn fn8; /* 8 planes at once, or NULL */
    int (*fits8)(const conv_params_t *p);
} dw_variant_t;

/* No AVX-512 row: the AVX-512 plane kernel this table had measured 2-10x
 * slower than the AVX2 one below on a Xeon with AVX-512 (bench_dw_f32,
 * MobileNetV2's ten depthwise shapes: 32ch 112x112 347 -> 163 us, 960ch 7x7
 * 334 -> 36 us) and was removed; a 16-lane port of the AVX2 kernel (row
 * ring, 8 planes at once) is what would beat it. */
static const dw_variant_t dw_variants[] = {
#if defined(__x86_64__)
    {"avx2", CAIRN_ISA_AVX2, conv_dw_plane_f32_avx2, conv_dw_planes8_f32_avx2,
     conv_dw_planes8_f32_avx2_fits},
#endif
    {"ref", CAIRN_ISA_REF, conv_dw_plane_f32_ref, NULL, NULL},
};

static _Atomic(const dw_variant_t *) g_dw;

static const dw_variant_t *dw_select(void)
{
    const dw_variant_t *v = atomic_load_explicit(&g_dw, memory_order_acquire);
    if (v)
        return v;
    cairn_isa_t level = base_isa_select(CAIRN_ISA_AUTO);
    const int nv = (int)(sizeof dw_variants / sizeof dw_variants[0]);
    v = &dw_variants[nv - 1];
    for (int i = 0; i < nv; i++)
        if (dw_variants[i].isa <= level) {
            v = &dw_variants[i];
            break;
        }
    const dw_variant_t *expected = NULL;
    if (atomic_compare_exchange_strong(&g_dw, &expected, v)) {
        const char *verbose = getenv("CAIRN_VERBOSE");
        if (verbose && verbose[0] && verbose[0] != '0')
            fprintf(stderr, "cairn: depthwise conv f32: using %s\n", v->name);
        return v;
    }
    return expected;
}

const char *conv_dw_variant_name(void) { return dw_select()->name; }

typedef struct dw_job {
    const conv_params_t *p;
    const float *X, *W, *B;
    const conv_post_t *post;
    float *Y;
    conv_dw_plane_fn fn;
    conv_dw_planes_fn fn8; /* NULL: plane by plane */
    int64_t groups, bands; /* fn8's items: (n, group of 8 channels, band of output rows) */
    int all_groups;        /* fn8's items: (n, band), every group of the band in one */
} dw_job_t;

/* Items of 8 channels (the last group may hold fewer) and a band of output
 * rows when fn8 is set (with all_groups, a band of rows over every group),
 * else single planes. */
static void dw_planes(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const dw_job_t *j = ctx;
    const conv_params_t *p = j->p;
    const int64_t in_sz = sp_size(p->in), out_sz = sp_size(p->out), taps = sp_size(p->kernel);
    for (size_t it = begin; j->fn8 && it < end; it++) {
        const int64_t band = (int64_t)it % j->bands, rest = (int64_t)it / j->bands;
        const int64_t n = j->all_groups ? rest : rest / j->groups;
        const int64_t g0 = j->all_groups ? 0 : rest % j->groups;
        const int64_t g1 = j->all_groups ? j->groups : g0 + 1;
        const int64_t OH = p->out[1], nb = j->bands;
        for (int64_t gi = g0; gi < g1; gi++) {
            const int64_t c0 = gi * 8, pl = n * p->C + c0;
            const int nc = p->C - c0 < 8 ? (int)(p->C - c0) : 8;
            const float *res =
                j->post && j->post->residual ? j->post->residual + pl * out_sz : NULL;
            j->fn8(p, j->X + pl * in_sz, j->W + c0 * taps, j->B ? j->B + c0 : NULL, j->post, res,
                   j->Y + pl * out_sz, nc, OH * band / nb, OH * (band + 1) / nb);
        }
    }
    for (size_t pl = begin; !j->fn8 && pl < end; pl++) {
        const int64_t c = (int64_t)pl % p->C;
        const float *res = j->post && j->post->residual ? j->post->residual + pl * out_sz : NULL;
        j->fn(p, j->X + pl * in_sz, j->W + c * taps, j->B ? j->B[c] : 0.0f, j->post, res,
              j->Y + pl * out_sz);
    }
}

/* ------------------------------ GEMM path ------------------------------ */

typedef struct i2c_job {
    const conv_params_t *p;
    const float *x;
    float *col;
    int64_t j0, j1;
} i2c_job_t;

static void i2c_rows(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const i2c_job_t *j = ctx;
    conv_im2col_f32(j->p, j->x, j->col, (int64_t)begin, (int64_t)end, j->j0, j->j1);
}

static cairn_status_t conv_f32_any(const kctx_t *k, const conv_params_t *p, const float *X,
                                   const float *W, const void *Wp, const float *B,
                                   const conv_post_t *post, float *Y, void *ws, size_t ws_bytes);

cairn_status_t conv_f32(const kctx_t *k, const conv_params_t *p, const float *X, const float *W,
                        const float *B, const conv_post_t *post, float *Y, void *ws,
                        size_t ws_bytes)
{
    if (!W)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "conv_f32: null weights");
    return conv_f32_any(k, p, X, W, NULL, B, post, Y, ws, ws_bytes);
}

size_t conv_f32_packed_w_size(const conv_params_t *p)
{
    ageom_t g;
    if (conv_wino_chosen(p))
        return conv_wino_packed_size(p->M, p->C, conv_wino_chosen(p));
    if (inda_kind(p, &g))
        return gemm_f32_packed_b_size(p->C * sp_size(p->kernel), p->M);
    return gemm_f32_packed_a_size(p->M, p->C * sp_size(p->kernel));
}

cairn_status_t conv_f32_pack_w(const conv_params_t *p, const float *W, void *packed, size_t size)
{
    if (p->group != 1 || conv_f32_is_depthwise(p))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_f32_pack_w: only group 1 convolutions take packed weights, "
                          "got group %lld",
                          (long long)p->group);
    const int64_t K = p->C * sp_size(p->kernel);
    ageom_t g;
    if (conv_wino_chosen(p))
        return conv_wino_pack(p, W, packed, size);
    if (inda_kind(p, &g)) /* the weights as B: W^T, K x M */
        return gemm_f32_pack_b(1, K, p->M, W, K, packed, size);
    return gemm_f32_prepack_a(0, p->M, K, W, K, packed, size);
}

cairn_status_t conv_f32_packed_w(const kctx_t *k, const conv_params_t *p, const float *X,
                                 const void *Wp, const float *B, const conv_post_t *post,
                                 float *Y, void *ws, size_t ws_bytes)
{
    if (!Wp || p->group != 1 || conv_f32_is_depthwise(p))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_f32_packed_w: needs packed weights of a group 1 convolution");
    return conv_f32_any(k, p, X, NULL, Wp, B, post, Y, ws, ws_bytes);
}

typedef struct pad_job {
    const conv_params_t *p;
    const float *x;
    float *xp;
    dgeom_t g;
    const unsigned char *used; /* sh x sw: phases some tap reads */
    int64_t pstride;           /* floats from one plane to the next (0: hq * wq) */
    int64_t bands;             /* pad_bands: how many */
    void (*copy_s2)(float *, const float *, int64_t); /* pad_run's choice */
} pad_job_t;

/* Rows [i0, i1) of plane t (channel t / (sh sw), phase (a, b) = (t % (sh
 * sw)) / sw, t % sw): row i column j holds input (sh*i + a - pad[1], sw*j
 * + b - pad[2]), 0 outside X; planes no tap reads are left as they are. */
static void pad_plane_rows(const pad_job_t *j, int64_t t, int64_t i0, int64_t i1)
{
    const conv_params_t *p = j->p;
    const dgeom_t *g = &j->g;
    const int64_t H = p->in[1], W = p->in[2], pt = p->pad[1], pl = p->pad[2];
    const int64_t plane = j->pstride ? j->pstride : g->hq * g->wq;
    const int64_t c = t / (g->sh * g->sw), ph = t % (g->sh * g->sw);
    const int64_t a = ph / g->sw, b = ph % g->sw;
    const float *x = j->x + c * H * W;
    if (!j->used[a * g->sw + b])
        return;
    float *d = j->xp + t * plane + i0 * g->wq;
    /* columns j in [lo, hi) read input column sw*j + b - pl */
    int64_t lo, hi;
    valid_range(g->wq, W, g->sw, b - pl, &lo, &hi);
    for (int64_t i = i0; i < i1; i++, d += g->wq) {
        const int64_t ir = g->sh * i + a - pt;
        if (ir < 0 || ir >= H || lo >= hi) {
            memset(d, 0, (size_t)g->wq * sizeof(float));
            continue;
        }
        const float *xr = x + ir * W + (lo * g->sw + b - pl); /* column lo */
        memset(d, 0, (size_t)lo * sizeof(float));
        if (g->sw == 1)
            memcpy(d + lo, xr, (size_t)(hi - lo) * sizeof(float));
        else if (g->sw == 2) /* the stems' 7x7 / 3x3 stride 2 */
            j->copy_s2(d + lo, xr, hi - lo);
        else
            for (int64_t q = lo; q < hi; q++)
                d[q] = xr[(q - lo) * g->sw];
        memset(d + hi, 0, (size_t)(g->wq - hi) * sizeof(float));
    }
}

/* Planes [begin, end), whole. One task per plane, not per channel: a
 * 3-channel stem's 12 stride-2 planes spread over the threads. */
static void pad_planes(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const pad_job_t *j = ctx;
    for (size_t t = begin; t < end; t++)
        pad_plane_rows(j, (int64_t)t, 0, j->g.hq);
}

/* Band [begin, end) of j->bands bands of rows, every plane: the rows the
 * convolution's pixel tiles of the same thread read (they are split by
 * output rows, one contiguous run per thread), so that each thread reads
 * its own copy but for the halo rows. */
static void pad_bands(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const pad_job_t *j = ctx;
    const int64_t planes = j->p->C * j->g.sh * j->g.sw;
    for (size_t bd = begin; bd < end; bd++) {
        const int64_t i0 = j->g.hq * (int64_t)bd / j->bands,
                      i1 = j->g.hq * ((int64_t)bd + 1) / j->bands;
        for (int64_t t = 0; t < planes; t++)
            pad_plane_rows(j, t, i0, i1);
    }
}

/* The padded / phase copy of one image on the pool; small copies on the
 * caller alone. With `bands`, in row bands, one per thread: the direct
 * path's pixel tiles are split by output rows, so each thread then reads
 * its own copy but for the halo rows (ResNet-50's 7x7 stem, 12 phase planes,
 * in the model on 2 threads, per-step medians of 7 profiles: 0.732 ->
 * 0.654 ms, half of what each thread's tiles read had come from the other
 * core). The indirect-A path's stride-2 3x3s measured slower that way,
 * its tasks split by channels (layer3.0's 0.691 -> 0.739 ms) and by pixels
 * (layer2.0's 0.690 -> 0.704, layer3.0's 0.669 -> 0.688), so it copies by
 * planes. */
static void pad_run(base_pool_t *pool, pad_job_t *pj, int bands)
{
    const int64_t planes = pj->p->C * pj->g.sh * pj->g.sw;
    const int th = pool ? base_pool_threads(pool) : 1;
    pj->copy_s2 = base_isa_select(CAIRN_ISA_AUTO) >= CAIRN_ISA_AVX512 ? conv_copy_s2_f32_avx512
                                                                      : conv_copy_s2_f32_ref;
    if (planes * pj->g.hq * pj->g.wq < 65536 || th < 2) {
        pad_planes(pj, 0, (size_t)planes, 0);
        return;
    }
    if (bands && pj->g.hq >= 8 * th) {
        pj->bands = th;
        base_pool_parallel_for_1d(pool, (size_t)th, 1, pad_bands, pj);
        return;
    }
    base_pool_parallel_for_1d(pool, (size_t)planes, planes < 64 ? 1 : 4, pad_planes, pj);
}

static cairn_status_t conv_direct(const kctx_t *k, const conv_params_t *p, int kind,
                                  const float *X, const void *Wp, gemm_epilogue_t *epi,
                                  const conv_post_t *post, float *Y, void *ws)
{
    const int64_t in_sz = sp_size(p->in), out_sz = sp_size(p->out);
    const int64_t taps = sp_size(p->kernel), K = p->C * taps;
    int64_t *off = ws;
    float *xp = (float *)((char *)ws + base_round_up((size_t)K * sizeof(int64_t), BASE_ALIGN));
    gemm_indb_t b = {NULL, off, in_sz, 0, 0};
    dgeom_t g = {1, 1, 0, 0};
    unsigned char used[16];
    if (kind == 2) {
        direct_geom(p, &g);
        memset(used, 0, sizeof used);
        const int64_t KH = p->kernel[1], KW = p->kernel[2], plane = g.hq * g.wq;
        for (int64_t c = 0; c < p->C; c++)
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++) {
                    const int64_t h = kh * p->dilation[1], w = kw * p->dilation[2];
                    const int64_t ph = (c * g.sh + h % g.sh) * g.sw + w % g.sw;
                    used[(h % g.sh) * g.sw + w % g.sw] = 1;
                    off[(c * KH + kh) * KW + kw] = ph * plane + h / g.sh * g.wq + w / g.sw;
                }
        b.base = xp;
        b.N = (p->out[1] - 1) * g.wq + p->out[2];
        b.in_w = g.wq;
        b.out_w = p->out[2];
    } else {
        for (int64_t c = 0; c < K; c++)
            off[c] = c * in_sz;
    }
    base_pool_t *pool = k ? k->pool : NULL;
    for (int64_t n = 0; n < p->N; n++) {
        const float *x = X + n * p->C * in_sz;
        if (kind == 2) {
            pad_job_t pj = {p, x, xp, g, used, 0, 0, NULL};
            pad_run(pool, &pj, 1);
        } else {
            b.base = x;
        }
        if (post && post->residual) {
            epi->residual = post->residual + n * p->M * out_sz;
            epi->ldr = out_sz;
        }
        cairn_status_t st =
            gemm_f32_packed_a_indb(k, p->M, K, Wp, &b, Y + n * p->M * out_sz, out_sz, epi);
        if (st != CAIRN_OK)
            return base_error_prefix(st, "conv_f32: ");
    }
    return CAIRN_OK;
}

void conv_store_t_f32_ref(const float *ct, int64_t P, int64_t M, int64_t c0, int64_t c1,
                          const gemm_epilogue_t *e, float *y, int64_t ldy)
{
    for (int64_t c = c0; c < c1; c++)
        for (int64_t q = 0; q < P; q++) {
            float v = ct[q * M + c] + (e->bias ? e->bias[c] : 0.0f);
            v = gemm_act_apply_f32(e->act, v, e->clip_lo, e->clip_hi) * e->scale;
            if (e->residual)
                v += e->residual[c * e->ldr + q];
            y[c * ldy + q] = gemm_act_apply_f32(e->post_act, v, e->post_lo, e->post_hi);
        }
}

void conv_copy_s2_f32_ref(float *d, const float *s, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        d[i] = s[2 * i];
}

/* the pixels a strided 1x1 reads, compact in planes ps apart (0 where
 * the pads are) */
static void compact_copy(const conv_params_t *p, const ageom_t *g, const float *x, float *xp,
                         int64_t ps)
{
    const int64_t H = p->in[1], W = p->in[2], in_sz = sp_size(p->in);
    for (int64_t c = 0; c < p->C; c++)
        for (int64_t i = 0; i < g->hp; i++) {
            const int64_t ih = i * p->stride[1] - p->pad[1];
            float *d = xp + c * ps + i * g->wp;
            for (int64_t j = 0; j < g->wp; j++) {
                const int64_t iw = j * p->stride[2] - p->pad[2];
                d[j] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[c * in_sz + ih * W + iw] : 0.0f;
            }
        }
}

typedef struct store_t_job {
    const float *ct;
    int64_t P, M;
    const gemm_epilogue_t *e;
    float *y;
    void (*fn)(const float *, int64_t, int64_t, int64_t, int64_t, const gemm_epilogue_t *,
               float *, int64_t);
} store_t_job_t;

/* gemm_f32_packed_then's hook: pixels [p0, p1) x channels [c0, c1) of the
 * product, just computed on this thread, stored into Y's planes */
static void store_t_block(void *ctx, int64_t p0, int64_t p1, int64_t c0, int64_t c1)
{
    const store_t_job_t *j = ctx;
    gemm_epilogue_t e = *j->e;
    if (e.residual)
        e.residual += p0;
    j->fn(j->ct + p0 * j->M, p1 - p0, j->M, c0, c1, &e, j->y + p0, j->P);
}

/* ---- 1x1 on small planes, pixel-major ----
 *
 * The 1x1s the indirect-A path was chosen for (planes under 8 wide:
 * ResNet-50's 7x7 stage and the strided downsample into it, MobileNetV2's
 * last 1x1s) run as the plain packed GEMM with a row per pixel: Ct (P x M)
 * = X^T W^T, X read in place as op(A) with transA (its channel planes are
 * A's stored rows; a strided 1x1 reads the compact copy of its pixels), W
 * already packed as B for the indirect-A path; then one pass transposes Ct
 * into Y with the epilogue (conv_store_t_f32_*). The GEMM packs each
 * 6-pixel micro-panel contiguously along K, where the indirect-A kernel
 * read its 6 pixels through pointers into planes 64 floats apart, a new
 * line every k step (Zen 2, 1 thread, both in one process: 2048 -> 512 at
 * 7x7 with bias + ReLU 1.305 -> 1.122 ms, the ~10 us store included, 512
 * -> 2048 with the residual 1.211 -> 1.158, the 1024 -> 2048 downsample
 * 2.60 -> 2.41, MobileNetV2's 960 -> 160 and 320 -> 1280 0.175 -> 0.173
 * and 0.476 -> 0.455). On 2 threads, alone, 0.90-1.07 of indirect A's
 * times (three parallel regions instead of one; 320 -> 1280 the 1.07),
 * in ResNet-50 its six layer4 1x1s 6.3 -> 5.8 ms. On 14x14 planes the
 * packed GEMM with W as A ("1x1") is as fast, so those keep it.
 * The store runs inside the GEMM's tasks (gemm_f32_packed_then): each
 * thread transposes the block of Ct it has just computed, still in its
 * L2, where a parallel region of its own split the channels and read half
 * of every block from the other core. Xeon, 2 threads, ResNet-50, medians
 * of 5: the layer3 256 -> 1024 + residual steps 0.335 -> 0.316 ms. */
static cairn_status_t conv_1x1_pixels(const kctx_t *k, const conv_params_t *p, const ageom_t *g,
                                      const float *X, const void *Wp, gemm_epilogue_t *epi,
                                      const conv_post_t *post, float *Y, void *ws)
{
    const int64_t in_sz = sp_size(p->in), P = sp_size(p->out), K = p->C;
    const int64_t ps = inda_pstride(p, g);
    float *xp = (float *)((char *)ws + base_round_up((size_t)(K + P) * sizeof(int64_t),
                                                     BASE_ALIGN));
    float *ct = (float *)((char *)xp +
                          base_round_up((size_t)(p->C * ps) * sizeof(float), BASE_ALIGN));
    const cairn_isa_t isa = base_isa_select(CAIRN_ISA_AUTO);
    void (*store)(const float *, int64_t, int64_t, int64_t, int64_t, const gemm_epilogue_t *,
                  float *, int64_t) = isa >= CAIRN_ISA_AVX512 ? conv_store_t_f32_avx512
                             : isa >= CAIRN_ISA_AVX2 ? conv_store_t_f32_avx2
                                                     : conv_store_t_f32_ref;
    for (int64_t n = 0; n < p->N; n++) {
        const float *x = X + n * p->C * in_sz;
        const float *a = x;
        int64_t lda = in_sz;
        if (g->sub) {
            compact_copy(p, g, x, xp, ps);
            a = xp, lda = ps;
        }
        if (post && post->residual) {
            epi->residual = post->residual + n * p->M * P;
            epi->ldr = P;
        }
        store_t_job_t j = {ct, P, p->M, epi, Y + n * p->M * P, store};
        cairn_status_t st =
            gemm_f32_packed_then(k, 1, P, p->M, K, a, lda, Wp, ct, p->M, store_t_block, &j);
        if (st != CAIRN_OK)
            return base_error_prefix(st, "conv_f32: ");
    }
    return CAIRN_OK;
}

static cairn_status_t conv_inda(const kctx_t *k, const conv_params_t *p, const ageom_t *g,
                                const float *X, const void *Wp, gemm_epilogue_t *epi,
                                const conv_post_t *post, float *Y, void *ws)
{
    if (sp_size(p->kernel) == 1 && !atomic_load_explicit(&g_pixels_off, memory_order_relaxed))
        return conv_1x1_pixels(k, p, g, X, Wp, epi, post, Y, ws);
    const int64_t in_sz = sp_size(p->in), out_sz = sp_size(p->out);
    const int64_t KH = p->kernel[1], KW = p->kernel[2], K = p->C * KH * KW;
    int64_t *off = ws, *pix = off + K;
    float *xp = (float *)((char *)ws + base_round_up((size_t)(K + out_sz) * sizeof(int64_t),
                                                     BASE_ALIGN));
    const int64_t ps = inda_pstride(p, g);
    const int64_t plane = ps ? ps : in_sz, row = g->hp ? g->wp : p->in[2];
    for (int64_t c = 0; c < p->C; c++)
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++)
                off[(c * KH + kh) * KW + kw] =
                    c * plane + kh * p->dilation[1] * row + kw * p->dilation[2];
    const int64_t s1 = g->sub ? 1 : p->stride[1], s2 = g->sub ? 1 : p->stride[2];
    for (int64_t oh = 0; oh < p->out[1]; oh++)
        for (int64_t ow = 0; ow < p->out[2]; ow++)
            pix[oh * p->out[2] + ow] = oh * s1 * row + ow * s2;
    gemm_inda_t a = {ps ? xp : NULL, pix, out_sz, off};
    base_pool_t *pool = k ? k->pool : NULL;
    for (int64_t n = 0; n < p->N; n++) {
        const float *x = X + n * p->C * in_sz;
        if (g->sub) {
            compact_copy(p, g, x, xp, ps);
        } else if (g->hp) {
            /* the zero-padded copy: pad_planes with one phase of stride 1 */
            static const unsigned char one[1] = {1};
            conv_params_t q = *p;
            q.stride[1] = q.stride[2] = 1;
            pad_job_t pj = {&q, x, xp, {1, 1, g->hp, g->wp}, one, ps, 0, NULL};
            pad_run(pool, &pj, 0);
        } else if (ps) {
            /* a 1x1 whose planes are not 64-byte multiples: copied apart */
            for (int64_t c = 0; c < p->C; c++)
                memcpy(xp + c * ps, x + c * in_sz, (size_t)in_sz * sizeof(float));
        } else {
            a.base = x;
        }
        if (post && post->residual) {
            epi->residual = post->residual + n * p->M * out_sz;
            epi->ldr = out_sz;
        }
        cairn_status_t st =
            gemm_f32_packed_inda(k, p->M, K, Wp, &a, Y + n * p->M * out_sz, out_sz, epi);
        if (st != CAIRN_OK)
            return base_error_prefix(st, "conv_f32: ");
    }
    return CAIRN_OK;
}

/* W plain (any group) or Wp packed by conv_f32_pack_w (group 1). */
static cairn_status_t conv_f32_any(const kctx_t *k, const conv_params_t *p, const float *X,
                                   const float *W, const void *Wp, const float *B,
                                   const conv_post_t *post, float *Y, void *ws, size_t ws_bytes)
{
    if (p->group < 1 || p->C % p->group || p->M % p->group)
        return base_error(CAIRN_ERR_SHAPE, "conv_f32: channels %lld -> %lld not divisible by group %lld",
                          (long long)p->C, (long long)p->M, (long long)p->group);
    for (int d = 0; d < CONV_SP; d++)
        if (p->stride[d] < 1 || p->dilation[d] < 1)
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "conv_f32: stride and dilation must be >= 1");
    const int64_t in_sz = sp_size(p->in), out_sz = sp_size(p->out);
    if (p->N * p->M * out_sz == 0)
        return CAIRN_OK;
    base_pool_t *pool = k ? k->pool : NULL;
    if (conv_f32_is_depthwise(p)) {
        const dw_variant_t *v = dw_select();
        dw_job_t j = {p, X, W, B, post, Y, v->fn, NULL, 1, 1, 0};
        size_t items = (size_t)(p->N * p->C);
        int64_t work = p->N * p->C * out_sz * sp_size(p->kernel);
        if (work < 32768)
            pool = NULL;
        if (v->fn8 && v->fits8(p)) {
            /* groups of 8 channels; bands of rows when there are too few
             * groups to give every thread about 4 items */
            j.fn8 = v->fn8;
            j.groups = (p->C + 7) / 8;
            const int64_t want = pool ? 4 * (int64_t)base_pool_threads(pool) : 1;
            const int64_t ng = p->N * j.groups;
            j.bands = ng >= want ? 1 : (want + ng - 1) / ng;
            if (j.bands > p->out[1])
                j.bands = p->out[1];
            items = (size_t)(ng * j.bands);
            /* with rows enough, one band of rows per thread over every
             * group instead: the thread that will read those pixels (a
             * convolution after this one splits them the same way) has
             * written them. MobileNetV2's first block's 32 -> 16 1x1
             * after its depthwise step on 2 threads while the vCPUs did
             * not share an L3 (bench/bench_c2c): 0.26 -> 0.15 ms; level
             * while they did. */
            const int64_t th = pool ? base_pool_threads(pool) : 1;
            if (th > 1 && p->out[1] >= 8 * th) {
                j.all_groups = 1;
                j.bands = th;
                items = (size_t)(p->N * th);
            }
        }
        base_pool_parallel_for_1d(pool, items, 1, dw_planes, &j);
        return CAIRN_OK;
    }
    const int64_t cg = p->C / p->group, mg = p->M / p->group;
    const int64_t K = cg * sp_size(p->kernel);
    const int pointwise = conv_f32_is_pointwise(p);
    size_t need = conv_f32_workspace(p);
    if (need > ws_bytes || (need && !ws))
        return base_error(CAIRN_ERR_INTERNAL,
                          "conv_f32: workspace of %zu bytes given, %zu needed", ws_bytes, need);
    float *col = ws;
    gemm_epilogue_t epi;
    memset(&epi, 0, sizeof epi);
    epi.scale = 1.0f;
    if (post) {
        epi.act = post->act;
        epi.clip_lo = post->clip_lo;
        epi.clip_hi = post->clip_hi;
        epi.post_act = post->post_act;
        epi.post_lo = post->post_lo;
        epi.post_hi = post->post_hi;
    }
    if (Wp && conv_wino_is_packed(Wp))
        return conv_wino_run(k, p, X, Wp, B, post, Y, ws, ws_bytes);
    ageom_t ag;
    if (Wp && gemm_f32_packed_kind(Wp) == 'B') {
        /* weights packed for the indirect-A path (conv_f32_pack_w chose it
         * from the geometry it was given) */
        if (!inda_possible(p, &ag))
            return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                              "conv_f32_packed_w: weights packed for a 2-D group-1 convolution "
                              "on a CPU with the indirect-A kernel");
        if (B) {
            epi.bias_kind = GEMM_BIAS_ROW;
            epi.bias = B;
        }
        return conv_inda(k, p, &ag, X, Wp, &epi, post, Y, ws);
    }
    if (Wp) {
        const int kind = direct_kind(p);
        if (kind) {
            if (B) {
                epi.bias_kind = GEMM_BIAS_ROW;
                epi.bias = B;
            }
            return conv_direct(k, p, kind, X, Wp, &epi, post, Y, ws);
        }
    }
    const int64_t nc = pointwise ? out_sz : conv_chunk_cols(K, out_sz);
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t g = 0; g < p->group; g++) {
            const float *x = X + (n * p->C + g * cg) * in_sz;
            const int64_t yoff = (n * p->M + g * mg) * out_sz;
            if (B) {
                epi.bias_kind = GEMM_BIAS_ROW;
                epi.bias = B + g * mg;
            }
            for (int64_t j0 = 0; j0 < out_sz; j0 += nc) {
                const int64_t j1 = j0 + nc < out_sz ? j0 + nc : out_sz;
                const float *Bm = x + j0;
                int64_t ldb = out_sz;
                if (!pointwise) {
                    i2c_job_t j = {p, x, col, j0, j1};
                    base_pool_parallel_for_1d(K * (j1 - j0) < 65536 ? NULL : pool, (size_t)K, 4,
                                              i2c_rows, &j);
                    Bm = col;
                    ldb = j1 - j0;
                }
                if (post && post->residual) {
                    epi.residual = post->residual + yoff + j0;
                    epi.ldr = out_sz;
                }
                if (Wp) {
                    cairn_status_t st = gemm_f32_packed_a(k, 0, mg, j1 - j0, K, 1.0f, Wp, Bm, ldb,
                                                          0.0f, Y + yoff + j0, out_sz, &epi);
                    if (st != CAIRN_OK)
                        return base_error_prefix(st, "conv_f32: ");
                } else {
                    gemm_f32_ex(k, 0, 0, mg, j1 - j0, K, 1.0f, W + g * mg * K, K, Bm, ldb, 0.0f,
                                Y + yoff + j0, out_sz, &epi);
                }
            }
        }
    return CAIRN_OK;
}
