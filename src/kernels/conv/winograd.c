/*
 * Winograd F(4x4, 3x3) and F(2x2, 3x3) for 3x3 stride-1 convolutions
 * (group 1, 2-D). Described below for F(4x4); F(2x2) is the same with 2x2
 * output tiles, 4x4 input tiles and 16 products (wino_tile_for picks it for
 * planes under 8x8):
 *   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
 *   G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
 *   A^T = [1 1 1 0; 0 1 -1 -1]
 *
 * Each 4x4 block of outputs of one output channel is, per input channel, a
 * 2-D correlation of a 6x6 input tile d with the 3x3 filter g. Winograd's
 * minimal filtering computes it as Y = A^T [(G g G^T) .* (B^T d B)] A: 36
 * multiplies instead of 144, so with the element-wise products summed over
 * the input channels the convolution becomes 36 independent GEMMs,
 *     P[xi] (T x M) = V[xi] (T x C) * U[xi] (C x M),   xi = 0..35,
 * T the number of tiles, U[xi] = (G g G^T)[xi] for every (c, m) (packed
 * once, as each GEMM's B), V[xi] = (B^T d B)[xi] for every (tile, c). The
 * matrices (Lavin and Gray, "Fast Algorithms for Convolutional Neural
 * Networks", 2016; interpolation points 0, 1, -1, 2, -2 and infinity):
 *   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0;
 *          0 2 -1 -2 1 0; 0 4 0 -5 0 1]
 *   G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6;
 *          1/24 -1/12 1/6; 0 0 1]
 *   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
 *
 * Work: 36 x T x C x M multiply-adds against 9 x OH x OW x C x M for the
 * direct convolution, 4x fewer when the tiles cover the plane exactly
 * (ResNet-50's 56x56 and 28x28 planes; 14x14 in 16 tiles keeps 3.1x). The
 * transforms add ~12 vector operations per tile and channel on each side
 * (winograd_avx2.c). Memory: U is 4x the weights (36 / 9 floats per
 * filter), so the layer's weight stream grows 4x; V and P are 2.25x the
 * input and output planes (36 floats per 16 pixels), in the workspace.
 *
 * Accuracy: the transforms' constants (up to 8 in A^T, 5 in B^T, 1/24 in
 * G) make rounding errors larger than the direct sum's: on a 128-channel
 * layer test_conv_fast measures max |Winograd - exact| / sum |x||w| =
 * 1.7e-6 (asserted <= 3e-6) against 1.7e-7 for the direct GEMM; still well
 * inside f32 model tolerances (ResNet-50 agrees with onnxruntime to ~1e-5).
 * CAIRN_CONV_WINOGRAD=0 turns the path off for weights packed afterwards
 * (conv_f32_set_winograd likewise).
 *
 * Driver, per image: (1) each row of tiles is padded and transformed into
 * V, all channels (items: tile rows, cut into channel ranges of 16 when
 * there are fewer rows than 4 per thread; whole 64-byte lines of V per
 * item, no false sharing); (2) the 36 GEMMs, each on one thread (items:
 * xi), B pre-packed, A = V[xi] packed by the GEMM itself; (3) each row of
 * tiles is transformed back with the epilogue into Y (items: tile rows,
 * cut into output channel ranges likewise). Workspace: V and P (the padded
 * input rows live on the stack, a window at a time).
 */
#include "kernels/conv/winograd.h"

#include "base/alloc.h"
#include "base/cpu.h"
#include "base/status.h"
#include "base/threadpool.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define WINO_MAGIC 0x4f4e4957u /* "WINO" */
#define WINO_HEADER 64

typedef struct wino_hdr {
    uint32_t magic, version;
    int64_t M, C, C8, M8;
    uint64_t mat_bytes; /* one packed U[xi], rounded up to 64 */
    int32_t tile;       /* outputs per tile side: 4, F(4x4, 3x3), or 2, F(2x2, 3x3) */
} wino_hdr_t;
_Static_assert(sizeof(wino_hdr_t) <= WINO_HEADER, "the Winograd header fits its 64 bytes");

static int64_t up8(int64_t n)
{
    return (n + 7) / 8 * 8;
}

/* -1: not read yet; 0: off; 1: on */
static atomic_int g_wino_on = -1;

static int wino_enabled(void)
{
    int on = atomic_load_explicit(&g_wino_on, memory_order_relaxed);
    if (on < 0) {
        const char *e = getenv("CAIRN_CONV_WINOGRAD");
        on = !(e && e[0] == '0');
        int expected = -1;
        atomic_compare_exchange_strong(&g_wino_on, &expected, on);
        on = atomic_load(&g_wino_on);
    }
    return on;
}

void conv_f32_set_winograd(int enable)
{
    atomic_store(&g_wino_on, enable ? 1 : 0);
}

int conv_wino_possible(const conv_params_t *p)
{
    if (!conv_wino_avx2_compiled() || base_isa_select(CAIRN_ISA_AUTO) < CAIRN_ISA_AVX2)
        return 0;
    if (p->group != 1 || p->C < 1 || p->M < 1 || p->in[0] != 1 || p->out[0] != 1 ||
        p->kernel[0] != 1)
        return 0;
    for (int d = 1; d < CONV_SP; d++)
        if (p->kernel[d] != 3 || p->stride[d] != 1 || p->dilation[d] != 1 || p->pad[d] < 0 ||
            p->pad[d] > 2 || p->out[d] < 1 || p->out[d] + 2 - p->pad[d] > p->in[d] + 2)
            return 0;
    return 1;
}

/* The tile conv_wino_chosen takes when the path is on (0: none).
 * F(4x4, 3x3) on planes of at least 8x8 with at least 8 input and 16
 * output channels (the transforms are paid per channel, the savings per
 * channel pair) and U up to ~9.4 MB (256 x 256 channels). F(2x2, 3x3) on
 * smaller planes (ResNet-50's 7x7 stage: 4x4 tiles cover 8x8, where 2x2
 * tiles of F(4x4) would compute 64 outputs for 49) with 64 to 512 channels:
 * 16 multiplies per 4 outputs instead of 36, U 16/9 of the weights; only
 * where the GEMM runs at AVX2 width. */
static int wino_tile_for(const conv_params_t *p)
{
    if (!conv_wino_possible(p))
        return 0;
    const int64_t c8m8 = up8(p->C) * up8(p->M);
    if (p->out[1] >= 8 && p->out[2] >= 8)
        return p->C >= 8 && p->M >= 16 && c8m8 <= 256 * 256 ? 4 : 0;
    /* F(2x2) saves 2.25x the multiplies but streams 16/9 of the weights
     * (ResNet-50's 512-channel U: 16.8 MB, from memory in a model) and pays
     * the AVX2 transforms: with the AVX-512 GEMM the direct path is faster
     * (ResNet-50's layer4.1 / 4.2 3x3s in the model, 1 thread, Xeon:
     * 2.80 / 3.05 ms with F(2x2), 2.51 / 2.46 through indirect A) */
    if (base_isa_select(CAIRN_ISA_AUTO) >= CAIRN_ISA_AVX512)
        return 0;
    return p->out[1] >= 4 && p->out[2] >= 4 && p->C >= 64 && p->M >= 64 && c8m8 <= 512 * 512 ? 2
                                                                                             : 0;
}

int conv_wino_chosen(const conv_params_t *p)
{
    return wino_enabled() ? wino_tile_for(p) : 0;
}

static size_t mat_bytes(int64_t C8, int64_t M8)
{
    return base_round_up(gemm_f32_packed_b_size(C8, M8), BASE_ALIGN);
}

static int nxi_of(int tile)
{
    return (tile + 2) * (tile + 2);
}

size_t conv_wino_packed_size(int64_t M, int64_t C, int tile)
{
    if (M < 1 || C < 1 || (tile != 2 && tile != 4))
        return 0;
    return WINO_HEADER + (size_t)nxi_of(tile) * mat_bytes(up8(C), up8(M));
}

int conv_wino_packed_tile(const void *packed)
{
    wino_hdr_t h;
    if (!conv_wino_is_packed(packed))
        return 0;
    memcpy(&h, packed, sizeof h);
    return h.tile == 2 || h.tile == 4 ? h.tile : 0;
}

int conv_wino_is_packed(const void *packed)
{
    uint32_t magic;
    if (!packed)
        return 0;
    memcpy(&magic, packed, sizeof magic);
    return magic == WINO_MAGIC;
}

cairn_status_t conv_wino_pack(const conv_params_t *p, const float *W, void *packed, size_t size)
{
    if (!W || !packed)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "conv_wino_pack: null weights or buffer");
    const int tile = wino_tile_for(p);
    if (!tile)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_wino_pack: not a 3x3 stride-1 group-1 2-D convolution that "
                          "Winograd takes, on a CPU with its kernels");
    const int64_t M = p->M, C = p->C, C8 = up8(C), M8 = up8(M);
    const int a = tile + 2, nxi = a * a;
    const size_t need = conv_wino_packed_size(M, C, tile), mb = mat_bytes(C8, M8);
    if (size < need)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_wino_pack: buffer of %zu bytes, %zu needed", size, need);
    float *u = calloc((size_t)(nxi * C8 * M8), sizeof(float));
    if (!u)
        return base_error(CAIRN_ERR_OUT_OF_MEMORY,
                          "conv_wino_pack: %lld x %lld transformed "
                          "weights",
                          (long long)M, (long long)C);
    static const double G4[6][3] = {{1.0 / 4, 0, 0},
                                    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                    {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                    {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                    {0, 0, 1}};
    static const double G2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    const double(*G)[3] = tile == 4 ? G4 : G2;
    /* u[xi][c][m] = (G g G^T)[xi] in double, rounded once */
    for (int64_t m = 0; m < M; m++)
        for (int64_t c = 0; c < C; c++) {
            const float *g = W + (m * C + c) * 9;
            double t[6][3]; /* G g */
            for (int r = 0; r < a; r++)
                for (int j = 0; j < 3; j++)
                    t[r][j] = G[r][0] * g[j] + G[r][1] * g[3 + j] + G[r][2] * g[6 + j];
            for (int r = 0; r < a; r++)
                for (int q = 0; q < a; q++)
                    u[((r * a + q) * C8 + c) * M8 + m] =
                        (float)(t[r][0] * G[q][0] + t[r][1] * G[q][1] + t[r][2] * G[q][2]);
        }
    wino_hdr_t h;
    memset(&h, 0, sizeof h);
    h.magic = WINO_MAGIC;
    h.version = 2;
    h.M = M, h.C = C, h.C8 = C8, h.M8 = M8;
    h.mat_bytes = mb;
    h.tile = tile;
    memset(packed, 0, WINO_HEADER);
    memcpy(packed, &h, sizeof h);
    cairn_status_t st = CAIRN_OK;
    for (int xi = 0; xi < nxi && st == CAIRN_OK; xi++)
        st = gemm_f32_pack_b(0, C8, M8, u + (size_t)xi * C8 * M8, M8,
                             (char *)packed + WINO_HEADER + xi * mb, mb);
    free(u);
    return st;
}

static void wino_geom(const conv_params_t *p, int tile, wino_geom_t *g)
{
    g->m = tile, g->nxi = nxi_of(tile);
    g->H = p->in[1], g->W = p->in[2], g->plane = g->H * g->W;
    g->pt = p->pad[1], g->pl = p->pad[2];
    g->oh = p->out[1], g->ow = p->out[2];
    g->th = (g->oh + tile - 1) / tile, g->tw = (g->ow + tile - 1) / tile;
    g->C8 = up8(p->C), g->M8 = up8(p->M);
    const int64_t T = g->th * g->tw;
    g->ldv = g->C8, g->xs_v = T * g->C8;
    g->ldm = g->M8, g->xs_m = T * g->M8;
}

/* workspace bytes: V, products */
static void ws_parts(const wino_geom_t *g, size_t *v, size_t *m)
{
    *v = base_round_up((size_t)(g->nxi * g->xs_v) * sizeof(float), BASE_ALIGN);
    *m = base_round_up((size_t)(g->nxi * g->xs_m) * sizeof(float), BASE_ALIGN);
}

size_t conv_wino_workspace(const conv_params_t *p)
{
    /* weights packed while the path was on keep it when it is turned off */
    const int tile = wino_tile_for(p);
    if (!tile)
        return 0;
    wino_geom_t g;
    wino_geom(p, tile, &g);
    size_t a, b;
    ws_parts(&g, &a, &b);
    return a + b;
}

typedef struct wjob {
    const conv_params_t *p;
    const wino_geom_t *g;
    const float *x; /* the image */
    const char *u;  /* packed U[0] */
    size_t mb;
    const float *bias;
    const conv_post_t *post;
    const float *res;
    float *y, *v, *m;
    int avx512;             /* the AVX-512 transforms (F(4x4) on an AVX-512 CPU) */
    int64_t cparts, mparts; /* input and output channel ranges per tile row */
    int64_t bands;          /* band_task: tile-row bands, one per thread */
    atomic_int err;
} wjob_t;

/* The input transform of tile row th, 8-channel blocks [b0, b1) (b0
 * even: the AVX-512 form takes two at a time). */
static void in_row(const wjob_t *j, int64_t th, int64_t b0, int64_t b1)
{
    const wino_geom_t *g = j->g;
    if (b1 > g->C8 / 8)
        b1 = g->C8 / 8;
    for (int64_t cb = b0; j->avx512 && cb < b1; cb += 2) {
        const int64_t c0 = cb * 8;
        const int nw = cb + 1 < b1 ? 16 : 8;
        const int nc = j->p->C - c0 < nw ? (int)(j->p->C - c0) : nw;
        conv_wino_in_f32_avx512(g, j->x + c0 * g->plane, nc, nw, th, j->v + c0);
    }
    for (int64_t cb = b0; !j->avx512 && cb < b1; cb++) {
        const int64_t c0 = cb * 8;
        const int nc = j->p->C - c0 < 8 ? (int)(j->p->C - c0) : 8;
        conv_wino_in_f32_avx2(g, j->x + c0 * g->plane, nc, th, j->v + c0);
    }
}

/* Product xi over the tiles of tile rows [r0, r1): P[xi] = V[xi] U[xi]. */
static void product(wjob_t *j, int64_t xi, int64_t r0, int64_t r1)
{
    const wino_geom_t *g = j->g;
    cairn_status_t st = gemm_f32_packed(
        NULL, 0, (r1 - r0) * g->tw, g->M8, g->C8, 1.0f, j->v + xi * g->xs_v + r0 * g->tw * g->ldv,
        g->ldv, j->u + xi * j->mb, 0.0f, j->m + xi * g->xs_m + r0 * g->tw * g->ldm, g->ldm, NULL);
    if (st != CAIRN_OK)
        atomic_store(&j->err, (int)st);
}

/* items: tile row x channel range (pairs of 8-channel blocks, so no two
 * threads write one cache line of V) */
static void in_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const wjob_t *j = ctx;
    const int64_t pairs = (j->g->C8 / 8 + 1) / 2;
    for (size_t it = begin; it < end; it++) {
        const int64_t th = (int64_t)it / j->cparts, part = (int64_t)it % j->cparts;
        in_row(j, th, pairs * part / j->cparts * 2, pairs * (part + 1) / j->cparts * 2);
    }
}

static void gemm_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    wjob_t *j = ctx;
    for (size_t xi = begin; xi < end; xi++)
        product(j, (int64_t)xi, 0, j->g->th);
}

static void out_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const wjob_t *j = ctx;
    const wino_geom_t *g = j->g;
    for (size_t it = begin; it < end; it++) {
        const int64_t th = (int64_t)it / j->mparts, part = (int64_t)it % j->mparts;
        const int64_t nb = g->M8 / 8;
        (j->avx512 ? conv_wino_out_f32_avx512 : conv_wino_out_f32_avx2)(
            g, j->m, nb * part / j->mparts * 8, nb * (part + 1) / j->mparts * 8, j->p->M, th,
            j->bias, j->post, j->res, j->y);
    }
}

/* items: a thread's band of tile rows through the whole pipeline (input
 * transform, the nxi products over its tiles alone, output transform), so
 * that nothing one thread writes is read by another */
static void band_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    wjob_t *j = ctx;
    const wino_geom_t *g = j->g;
    for (size_t it = begin; it < end; it++) {
        const int64_t r0 = g->th * (int64_t)it / j->bands;
        const int64_t r1 = g->th * ((int64_t)it + 1) / j->bands;
        if (r0 >= r1)
            continue;
        for (int64_t t = r0; t < r1; t++)
            in_row(j, t, 0, g->C8 / 8);
        for (int64_t xi = 0; xi < g->nxi; xi++)
            product(j, xi, r0, r1);
        for (int64_t t = r0; t < r1; t++)
            (j->avx512 ? conv_wino_out_f32_avx512 : conv_wino_out_f32_avx2)(
                g, j->m, 0, g->M8, j->p->M, t, j->bias, j->post, j->res, j->y);
    }
}

cairn_status_t conv_wino_run(const kctx_t *k, const conv_params_t *p, const float *X,
                             const void *Wp, const float *B, const conv_post_t *post, float *Y,
                             void *ws, size_t ws_bytes)
{
    if (!conv_wino_possible(p))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_f32: Winograd-packed weights need a 3x3 stride-1 group-1 2-D "
                          "convolution on a CPU with AVX2");
    wino_hdr_t h;
    memcpy(&h, Wp, sizeof h);
    if (h.magic != WINO_MAGIC || h.version != 2 || h.M != p->M || h.C != p->C ||
        h.C8 != up8(p->C) || h.M8 != up8(p->M) || h.mat_bytes != mat_bytes(h.C8, h.M8) ||
        (h.tile != 2 && h.tile != 4))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "conv_f32: Winograd-packed weights are for %lld -> %lld channels, "
                          "the convolution has %lld -> %lld (or the buffer is corrupt)",
                          (long long)h.C, (long long)h.M, (long long)p->C, (long long)p->M);
    wino_geom_t g;
    wino_geom(p, h.tile, &g);
    size_t sv, sm;
    ws_parts(&g, &sv, &sm);
    if (!ws || ws_bytes < sv + sm)
        return base_error(CAIRN_ERR_INTERNAL,
                          "conv_f32: Winograd workspace of %zu bytes given, "
                          "%zu needed",
                          ws_bytes, sv + sm);
    base_pool_t *pool = k ? k->pool : NULL;
    const int64_t in_sz = g.plane, out_sz = g.oh * g.ow;
    wjob_t j = {.p = p,
                .g = &g,
                .u = (const char *)Wp + WINO_HEADER,
                .mb = h.mat_bytes,
                .bias = B,
                .post = post,
                .v = ws,
                .m = (float *)((char *)ws + sv),
                .avx512 = g.m == 4 && conv_wino_avx512_compiled() &&
                          base_isa_select(CAIRN_ISA_AUTO) >= CAIRN_ISA_AVX512};
    atomic_init(&j.err, CAIRN_OK);
    /* the back transform by tile rows, all channels of a tile at once (the
     * 36 products of a tile are 36 rows of M8 contiguous floats); rows cut
     * into channel ranges only when there are too few for the threads */
    const int64_t want = pool ? 4 * (int64_t)base_pool_threads(pool) : 1;
    j.mparts = g.th >= want ? 1 : (want + g.th - 1) / g.th;
    if (j.mparts > g.M8 / 8)
        j.mparts = g.M8 / 8;
    j.cparts = g.th >= want ? 1 : (want + g.th - 1) / g.th;
    if (j.cparts > (g.C8 / 8 + 1) / 2)
        j.cparts = (g.C8 / 8 + 1) / 2;
    /* Several threads and the transformed weights (read whole by every
     * band) smaller than the transformed input and the products (which the
     * phase split passes between threads: each product phase reads every
     * tile row): each thread runs its own band of tile rows through the
     * three phases. In ResNet-50 that is the 56x56 stage's 64-channel
     * 3x3s (the 28x28 and 14x14 stages' weights outweigh their tiles); on
     * 2 threads while the vCPUs did not share an L3 (bench/bench_c2c) the
     * model ran 53.7 -> 52.3 and 55.2 -> 54.3 ms in two runs. */
    const int threads = pool ? base_pool_threads(pool) : 1;
    const double ubytes = (double)g.nxi * (double)g.C8 * (double)g.M8;
    const double vmbytes = (double)g.nxi * (double)(g.th * g.tw) * (double)(g.C8 + g.M8);
    j.bands = threads > 1 && g.th >= 2 * threads && ubytes < vmbytes ? threads : 0;
    for (int64_t n = 0; n < p->N; n++) {
        j.x = X + n * p->C * in_sz;
        j.y = Y + n * p->M * out_sz;
        j.res = post && post->residual ? post->residual + n * p->M * out_sz : NULL;
        if (j.bands) {
            base_pool_parallel_for_1d(pool, (size_t)j.bands, 1, band_task, &j);
            int err = atomic_load(&j.err);
            if (err != CAIRN_OK)
                return base_error_prefix((cairn_status_t)err, "conv_f32 (Winograd): ");
            continue;
        }
        base_pool_parallel_for_1d(pool, (size_t)(g.th * j.cparts), 1, in_task, &j);
        base_pool_parallel_for_1d(pool, (size_t)g.nxi, 1, gemm_task, &j);
        int err = atomic_load(&j.err);
        if (err != CAIRN_OK)
            return base_error_prefix((cairn_status_t)err, "conv_f32 (Winograd): ");
        base_pool_parallel_for_1d(pool, (size_t)(g.th * j.mparts), 1, out_task, &j);
    }
    return CAIRN_OK;
}
