/*
 * The f32 GEMM driver: BLIS's five loops around a register-blocked
 * micro-kernel.
 *
 *   for jc in N by NC
 *     for pc in K by KC        pack op(B) block into NR-column panels (L2)
 *       for ic in M by MC      pack op(A) block into MR-row panels
 *         for ir in MC by MR   one A micro-panel, kept in L1 ...
 *           for jr in NC by NR ... against every B micro-panel of the block
 *
 * KC is chosen so a KC x NR B micro-panel takes ~70% of L1D, NC so the
 * packed B block takes half of L2, MC a quarter of L2 (cache sizes from
 * base_cpu()); on the Xeon here KC=256, NC=1024, MC=504, which measured
 * best among the neighbouring choices. The first
 * KC slice applies beta, later ones accumulate, and only the last applies
 * the fused epilogue, so C is touched once per KC slice.
 *
 * Threads: the M x N output is cut into a tm x tn grid of tile-aligned
 * rectangles (tm*tn = threads), picking the grid whose largest rectangle is
 * smallest, so skinny shapes split along their long side and both threads
 * stay busy. Each thread packs its own operands into a workspace slot that
 * is kept between calls (no page faults per call).
 *
 * Small problems and M <= 16 (decode-style GEMV) with op(B) = B skip
 * packing: the micro-kernel reads A through strides and B rows in place
 * ("direct" mode), streaming B once.
 */
#include "kernels/gemm/gemm_f32_internal.h"

#include "base/alloc.h"
#include "base/cpu.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

float gemm_act_apply_f32(gemm_act_t act, float x, float lo, float hi)
{
    switch (act) {
    case GEMM_ACT_NONE:
        return x;
    case GEMM_ACT_RELU:
        return x > 0.0f ? x : 0.0f;
    case GEMM_ACT_GELU_ERF:
        return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case GEMM_ACT_GELU_TANH:
        return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case GEMM_ACT_SILU:
        return x / (1.0f + expf(-x));
    case GEMM_ACT_SIGMOID:
        return 1.0f / (1.0f + expf(-x));
    case GEMM_ACT_CLIP:
        return fminf(fmaxf(x, lo), hi);
    }
    return x;
}

void gemm_f32_blocking(const gemm_f32_variant_t *v, gemm_blocking_t *b)
{
    if (v->b_in_l1)
        gemm_blocking_b_in_l1(v->mr, v->nr, (int)sizeof(float), b);
    else
        gemm_blocking_for(v->mr, v->nr, (int)sizeof(float), b);
}

/* MC and NC for the B-in-L1 order around a given KC */
static void blocking_b_in_l1_kc(int mr, int nr, int esz, int64_t kc, gemm_blocking_t *b)
{
    const base_cpu_t *cpu = base_cpu();
    size_t l2 = cpu->l2 ? cpu->l2 : 1024 * 1024;
    size_t l3 = cpu->l3 ? cpu->l3 : 8 * 1024 * 1024;
    int64_t mc = (int64_t)(l2 * 2 / 7 / ((size_t)kc * (size_t)esz));
    mc = mc / mr * mr;
    if (mc < mr)
        mc = mr;
    int64_t nc = (int64_t)(l3 / 4 / ((size_t)kc * (size_t)esz));
    nc = nc > 4096 ? 4096 : nc;
    nc = nc / nr * nr;
    if (nc < nr)
        nc = nr;
    b->kc = kc;
    b->mc = mc;
    b->nc = nc;
}

void gemm_blocking_b_in_l1(int mr, int nr, int esz, gemm_blocking_t *b)
{
    const base_cpu_t *cpu = base_cpu();
    size_t l1 = cpu->l1d ? cpu->l1d : 32 * 1024;
    int64_t kc = (int64_t)(l1 / 2 / ((size_t)nr * (size_t)esz));
    kc = kc / 16 * 16;
    kc = kc < 64 ? 64 : kc > 1024 ? 1024 : kc;
    /* Zen 4 (zmm_halves): a 14 x 32 f32 k step takes 28 cycles there, and
     * its two B lines come from L2 with room to spare, while every K block
     * ends in a reload and store of the C tile. The B micro-panel then need
     * not stay in L1: K blocks of 384 (a B panel of 1.5 times L1) measured
     * 3-4 % faster than L1's 128 (1 thread, alternating: MiniLM encoder s128
     * 27.7 -> 26.9 ms, s512 133.7 -> 127.8, GPT-2 stack 212 -> 205, ResNet-50
     * 68.2 -> 66.5, MobileNetV2 level; 2048^3 105 -> 110.5 GFLOP/s, 512^3
     * 104 -> 106.5). The one-tile loop of bench_gemm_loop, operands in
     * cache: KC 128 107 GFLOP/s, 256 110, 512 116 (peak 117). 416 rather
     * than 384 takes K = 512 in one block (balanced_block allows a quarter
     * more than the nominal) and 2048^3's doubled blocks at 1024 instead of
     * 683: with B packed in the tiles (uk_packb), alternating, 1 thread
     * 512^3 110.5 -> 112.3 GFLOP/s, 2048^3 110.3 -> 112.2; 2 threads 512^3
     * 211 -> 220, 2048^3 218 -> 223; the transformer shapes, MiniLM s128
     * and ResNet-50 level.
     * Zen 5 (family 1Ah, full-width zmm, 48 KiB L1) as well: its k step
     * takes 14 cycles, so each K block's C round trip weighs twice as much,
     * and L1's 192 measured slower (1 thread, alternating, medians of 3-4:
     * 2048^3 232 -> 244 GFLOP/s, 128 x 1536 x 384 253.5 -> 257, 512 x 768 x
     * 3072 241.5 -> 245.7, 256^3 level; 2 threads 2048^3 451 -> 477, the
     * others level). */
    int amd512 = cpu->avx512f && strcmp(cpu->vendor, "AuthenticAMD") == 0 &&
                 (cpu->family == 0x19 || cpu->family == 0x1A);
    if (amd512 && esz == 4 && nr >= 32 && kc < 416)
        kc = 416;
    blocking_b_in_l1_kc(mr, nr, esz, kc, b);
}

void gemm_blocking_for(int mr, int nr, int esz, gemm_blocking_t *b)
{
    const base_cpu_t *cpu = base_cpu();
    size_t l1 = cpu->l1d ? cpu->l1d : 32 * 1024;
    size_t l2 = cpu->l2 ? cpu->l2 : 1024 * 1024;
    int64_t kc = (int64_t)(l1 * 7 / 10 / ((size_t)nr * (size_t)esz));
    kc = kc / 16 * 16;
    if (kc < 64)
        kc = 64;
    if (kc > 1024)
        kc = 1024;
    /* the packed B block (KC x NC) stays in half of L2 while A micro-panels
     * (MR x KC, in L1) sweep across it; the A block (MC x KC) takes a quarter */
    int64_t nc = (int64_t)(l2 / 2 / ((size_t)kc * (size_t)esz));
    nc = nc / nr * nr;
    if (nc < nr)
        nc = nr;
    int64_t mc = (int64_t)(l2 / 4 / ((size_t)kc * (size_t)esz));
    mc = mc / mr * mr;
    if (mc < mr)
        mc = mr;
    b->kc = kc;
    b->mc = mc;
    b->nc = nc;
}

/* The int8 and bf16 panels (elements of 1 or 2 bytes, A's panel kept in
 * L1): a k step of their tiles does 2 or 4 of K's multiply-adds per lane,
 * so a K block of gemm_blocking_for's length (~70 % of L1 in B's panel)
 * is over in a quarter or half the time of an f32 one, while each block
 * still ends in a reload, add and store of the C tile. K blocks as long
 * as A's micro-panel allows in 7/8 of L1 (B's panel streams from L2 or
 * L3 beside it), A's block in 2/7 of L2 and B's in a quarter of L3 (the
 * B-in-L1 order's split). Zen 4, 2048^3, 1 thread: int8 (vpdpbusd) KC 704
 * -> 2048 423 -> 444 GOP/s, 2 threads 835 -> 876; bf16 (vdpbf16ps) KC 352
 * -> 1024 210 -> 221 GFLOP/s, 2 threads 418 -> 436; the 16-bit int8 pairs
 * 179 -> 186 (AVX-512, KC 1024) and 163 -> 169 (AVX2, 6 rows, KC 2368). */
void gemm_blocking_lowp(int mr, int nr, int esz, gemm_blocking_t *b)
{
    const base_cpu_t *cpu = base_cpu();
    size_t l1 = cpu->l1d ? cpu->l1d : 32 * 1024;
    int64_t kc = (int64_t)(l1 * 7 / 8 / ((size_t)mr * (size_t)esz));
    kc = kc / 64 * 64;
    kc = kc < 256 ? 256 : kc > 4096 ? 4096 : kc;
    blocking_b_in_l1_kc(mr, nr, esz, kc, b);
}

void gemm_kern_blocking(const gemm_kern_t *kn, gemm_blocking_t *b)
{
    if (kn->b_in_l1)
        gemm_blocking_b_in_l1(kn->mr, kn->nr, kn->esz, b);
    else if (kn->esz < 4)
        gemm_blocking_lowp(kn->mr, kn->nr, kn->esz, b);
    else
        gemm_blocking_for(kn->mr, kn->nr, kn->esz, b);
}

/* Splits n into the fewest blocks of at most about `nominal` (up to a quarter
 * more, so that K = 384 with a nominal 352 is one block rather than 352 + 32)
 * and returns the even block size rounded up to a multiple of `mult`. Ragged
 * last blocks cost twice: a short K block re-reads and re-writes all of C for
 * little work, and a short M or N block runs mostly edge tiles. */
static int64_t balanced_block(int64_t n, int64_t nominal, int64_t mult)
{
    if (n <= 0 || nominal <= 0)
        return nominal > 0 ? nominal : mult;
    int64_t blocks = (n + nominal + nominal / 4 - 1) / (nominal + nominal / 4);
    if (blocks < 1)
        blocks = 1;
    int64_t b = (n + blocks - 1) / blocks;
    return (b + mult - 1) / mult * mult;
}

int64_t gemm_kc_for(const gemm_blocking_t *b, int64_t K, int kg)
{
    return balanced_block(K, b->kc, kg > 8 ? kg : 8);
}

/* ---- one GEMM, split over threads ---- */

typedef struct gjob {
    gemm_kern_t kn;              /* the packed path */
    const gemm_f32_variant_t *v; /* f32 only (direct mode), else NULL */
    gemm_blocking_t bl;
    int ta, tb, direct;
    int64_t M, N, K;
    float alpha, beta;
    const void *A;
    int64_t lda;
    const void *B;
    int64_t ldb;
    void *C;
    int64_t ldc;
    const gemm_epilogue_t *epi;
    const char *packed; /* pre-packed B data, or NULL */
    const char *packed_a; /* pre-packed A data (all M rows, every K block), or NULL */
    int64_t mpad_a;       /* its padded height */
    int64_t npad;       /* its padded width */
    int tm, tn;
    int rows_first; /* a task's tiles along C's rows even with B in L1 (gemm_task) */
    gemm_block_fn then; /* gemm_f32_packed_then's hook, or NULL */
    void *then_ctx;
} gjob_t;

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The epilogue view for the tile at (i, j); NULL when there is none. */
static inline const gemm_tile_epi_t *tile_epi(const gemm_epilogue_t *epi, int64_t i, int64_t j,
                                              gemm_tile_epi_t *te)
{
    if (!epi)
        return NULL;
    te->bias_row = epi->bias && epi->bias_kind == GEMM_BIAS_ROW ? epi->bias + i : NULL;
    te->bias_col = epi->bias && epi->bias_kind == GEMM_BIAS_COL ? epi->bias + j : NULL;
    te->act = epi->act;
    te->lo = epi->clip_lo;
    te->hi = epi->clip_hi;
    te->scale = epi->scale;
    te->res = epi->residual ? epi->residual + i * epi->ldr + j : NULL;
    te->ldr = epi->ldr;
    te->post_act = epi->post_act;
    te->post_lo = epi->post_lo;
    te->post_hi = epi->post_hi;
    return te;
}

/* Prefetches the C tile at (i, j) (rows ldc apart, which no hardware
 * prefetcher follows; both lines of each row) and, when the epilogue adds
 * one, the residual's tile. Always inline: gcc 12 counts a function
 * whose only effects are prefetches as having none and, where it does not
 * inline it (into run_packed_range, a large function), deletes its calls.
 * It did so from the commit that added this (fc20048) until the nineteenth
 * session: the library had none of these prefetches. */
static inline __attribute__((always_inline)) void prefetch_tile(const gjob_t *j, int64_t i,
                                                                int64_t jj, int64_t rows_left,
                                                                int last)
{
    const int mr = j->kn.mr, nr = j->kn.nr;
    const size_t cs = (size_t)j->kn.csz;
    const int rows = (int)min64(mr, rows_left);
    const char *c = (const char *)j->C + (size_t)(i * j->ldc + jj) * cs;
    const float *r = last && j->epi && j->epi->residual ? j->epi->residual + i * j->epi->ldr + jj
                                                       : NULL;
    for (int t = 0; t < rows; t++) {
        __builtin_prefetch(c + (size_t)(t * j->ldc) * cs, 1, 3);
        __builtin_prefetch(c + (size_t)(t * j->ldc + nr - 1) * cs, 1, 3);
        if (r) {
            __builtin_prefetch(r + t * j->epi->ldr, 0, 3);
            __builtin_prefetch(r + t * j->epi->ldr + nr - 1, 0, 3);
        }
    }
}

/* Rows of A lda floats apart that all fall in one L1 set (lda a multiple
 * of 4 KiB / 4 floats: 64 sets of 64-byte lines): a tile reading A in
 * place (uk_packa) keeps one line of each of its rows in use for 16 k
 * steps, and fourteen lines of one 8-way set evict each other. 512 x 768 x
 * 3072 (lda 3072) ran 1.3 % slower packing A that way. */
static int tile_pack_a = -1; /* gemm_f32_set_tile_pack_a */

void gemm_f32_set_tile_pack_a(int mode)
{
    tile_pack_a = mode < 0 ? -1 : mode > 2 ? 2 : mode;
}

static int a_rows_alias(int64_t lda)
{
    return (lda * (int64_t)sizeof(float)) % 4096 == 0;
}

/* The first row (in its block) of A panel p of np: p * mr, but with split
 * the last panel starts h1 rows into the last pair (run_packed_range). */
static inline int64_t panel_row(int64_t p, int64_t np, int64_t mr, int64_t h1, int split)
{
    return split && p == np - 1 ? (np - 2) * mr + h1 : p * mr;
}

/* abuf holds one MC x KC block, or with a_all the whole of op(A)'s rows
 * [m0, m1) (block (ic, pc) at abuf + (pc*mpad + (ic-m0)*kcp)*esz), packed on
 * the first jc pass and reused by the others. */
static void run_packed_range(const gjob_t *j, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                             char *abuf, char *bbuf, int a_all)
{
    const gemm_kern_t *kn = &j->kn;
    const int mr = kn->mr, nr = kn->nr, kg = kn->kg;
    const int64_t mpad = (m1 - m0 + mr - 1) / mr * mr;
    const size_t es = (size_t)kn->esz, cs = (size_t)kn->csz;
    gemm_tile_epi_t te;
    /* B packed by the first A panel's tiles as they go (uk_packb) rather than
     * in a pass of its own: B as it is (op(B) = B), f32 tiles one at a time,
     * in either order of the tiles (along C's rows too, where A panel 0 meets
     * every B panel first). `perf` had packing at 11 % of 128 x 384 x 1536 on
     * Zen 4 (its B, 2.4 MB, read at ~14 GB/s); with the packing tiles it is
     * 15 % in them against the 10 % their FMAs take. Zen 4, alternating,
     * medians: 1 thread 128 x 384 x 1536 104.3 -> 108.6 GFLOP/s, 128 x 1536 x
     * 384 102-106 -> 110.5, 512^3 106 -> 108, 256^3 109.9 -> 111.2; 2 threads
     * 128 x 384 x 1536 211 -> 219, 128 x 1536 x 384 215 -> 222; 1024^3 and
     * 2048^3 level; ResNet-50's 1x1s whose B is the activations 0-4 %
     * (256 -> 64 0.985 -> 0.95-0.97 ms, 512 -> 128 0.965 -> 0.938), the
     * model level. */
    const int packb =
        !j->packed && !j->tb && j->v && j->v->uk_packb && kn->ctx == j->v && !j->v->ukrun;
    /* and A by the first B panel's tiles (uk_packa), op(A) = A: the same
     * trade for the other operand, whose pass packs M x K floats once per
     * block against M x N x K multiply-adds, so its share falls with N:
     * `perf` had pack_kmajor at 2.3 % of 128 x 384 x 1536, 2.6 % of 512^3
     * and 3.1 % of 256^3 (Zen 4, 1 thread). `cairn bench gemm`, Zen 4,
     * alternating, medians of 5-7: 1 thread 128 x 384 x 1536 110.3 -> 111.5
     * GFLOP/s, 512^3 112.0 -> 112.8, 256^3 112.9 -> 114.1, 128 x 1536 x 384
     * 112.8 -> 113.3; 2 threads 128 x 384 x 1536 210 -> 213, 512^3 208 ->
     * 215, 128 x 1536 x 384 221 -> 223; with B pre-packed 128 x 384 x 1536
     * 110.6 -> 112.3; MiniLM s128's GEMM steps 0-6 % faster (the 384 x 384
     * projection most). Zen 4 only (zmm_halves): on Zen 5 (full-width zmm)
     * the packing tiles ran at 0.70 of the others' rate in `perf` of 128 x
     * 384 x 1536 (their 14 A values a step broadcast from registers take a
     * shuffle pipe the FMAs share; broadcast from memory and stored from lane
     * 0, and without the row prefetch, they still lost), and the pass before
     * was faster: the two builds alternating, medians of 4, 256^3 247.5 ->
     * 254 GFLOP/s on 1 thread, 473.5 -> 486 on 2; 512^3, 128 x 384 x 1536
     * and 128 x 1536 x 384 level. There the whole panels are not packed at
     * all (inpl): every tile reads its 14 rows of A in place, as the
     * packing tile does but storing nothing (a stand-alone loop over packed
     * B measured A in place, rows 6 KB apart, level with A packed: 251-255
     * GFLOP/s both). The two builds alternating, medians of 4-7, 1 thread:
     * 128 x 384 x 1536 243.2 -> 245.2 GFLOP/s, 256^3 245.3 -> 247.0, 512^3
     * 246.9 -> 248.9; 2 threads 128 x 384 x 1536 470 -> 484, 256^3 487 ->
     * 493; 128 x 1536 x 384 level. lda a multiple of 1024 floats keeps the
     * pass (a_rows_alias), as every other mode does. */
    const int amode = tile_pack_a < 0 ? (base_cpu()->zmm_halves ? 1 : 2) : tile_pack_a;
    const int packa = !j->packed_a && !j->ta && j->v && j->v->uk_packa && kn->ctx == j->v &&
                      !j->v->ukrun && !a_rows_alias(j->lda) && amode > 0;
    const int inpl = packa && amode == 2;
    for (int64_t jc = n0; jc < n1; jc += j->bl.nc) {
        int64_t nc = min64(j->bl.nc, n1 - jc);
        int64_t pc = 0;
        do {
            int64_t kc = min64(j->bl.kc, j->K - pc);
            int64_t kcp = (kc + kg - 1) / kg * kg;
            const char *bp;
            if (j->packed) {
                bp = j->packed + (size_t)(pc * j->npad + jc * kcp) * es;
            } else {
                if (!packb)
                    kn->pack_b(kn, j->tb, j->B, j->ldb, pc, jc, kc, nc, bbuf);
                bp = bbuf;
            }
            float beta = pc == 0 ? j->beta : 1.0f;
            int last = pc + kc >= j->K;
            /* B packed here: the next K block's rows of op(B) = B go into
             * L2 while this block computes, a slice per tile through uk_pf,
             * so that packing them reads L2 rather than L3. The whole rows
             * (one contiguous run), when this task's columns are at least
             * half of them and they take at most a quarter of L2 (beside
             * this block's packed copy, A and C). Xeon, 128 x 384 x 1536:
             * 1 thread 179-188 -> 191-192 GFLOP/s, 2 threads (split by
             * columns, each prefetching all the rows) 342-345 -> 354-365;
             * 128 x 1536 x 384, a 1.2 MB block, ran 2 % slower with it. */
            const char *rnext = NULL;
            size_t rslice = 0, rbytes = 0, rtile = 0;
            /* or, with several column blocks (cut by the NC cap of
             * gemm_task), the rows of op(B) of the block packed next, one
             * row's run at a time: tile t fetches piece t % per of row t /
             * per, `per` pieces to a row, rows past the tile count going
             * without (ResNet-50's 256 -> 128 1x1 at 56x56; a kernel that
             * walked each tile's equal share across rows measured level on
             * the convolutions and cost 2048^3 1.5 %, its loop carrying
             * three more registers) */
            int64_t rrows = 0, rper = 0;
            size_t rrun = 0;
            if (!j->packed && kn->uk_pf && kn->b_in_l1 && !j->tb && !last && jc == n0 &&
                nc == n1 - n0 && 2 * nc >= j->ldb) {
                const int64_t kc2 = min64(j->bl.kc, j->K - pc - kc);
                const size_t l2 = base_cpu()->l2 ? base_cpu()->l2 : 1024 * 1024;
                rbytes = (size_t)(kc2 * j->ldb) * (size_t)kn->srcsz;
                if (rbytes <= l2 / 4) {
                    rnext = (const char *)j->B + (size_t)((pc + kc) * j->ldb) * (size_t)kn->srcsz;
                    const int64_t tiles = (m1 - m0 + mr - 1) / mr * ((nc + nr - 1) / nr);
                    rslice = (rbytes / (size_t)tiles + 64) / 64 * 64;
                }
            } else if (!j->packed && kn->uk_pf && kn->b_in_l1 && kc >= 128 && !j->tb &&
                       nc < n1 - n0 && (!last || jc + nc < n1)) {
                /* the block packed next: (jc, pc + kc), or (jc + nc, 0) */
                const int64_t p2 = last ? 0 : pc + kc, j2 = last ? jc + nc : jc;
                const int64_t kc2 = min64(j->bl.kc, j->K - p2), nc2 = min64(nc, n1 - j2);
                const int64_t tiles = (m1 - m0 + mr - 1) / mr * ((nc + nr - 1) / nr);
                if (2 * tiles >= kc2) { /* at least half the rows */
                    const char *r0 =
                        (const char *)j->B + (size_t)(p2 * j->ldb + j2) * (size_t)kn->srcsz;
                    /* a row's run from its first line past its last (a
                     * line more: the rows after the first start elsewhere
                     * in theirs) */
                    rnext = (const char *)((uintptr_t)r0 & ~(uintptr_t)63);
                    rrun = ((size_t)(r0 - rnext) + (size_t)(nc2 * kn->srcsz) + 127) / 64 * 64;
                    rrows = kc2;
                    rper = tiles >= kc2 ? tiles / kc2 : 1;
                    rslice = (rrun / (size_t)rper + 64) / 64 * 64;
                }
            }
            for (int64_t ic = m0; ic < m1; ic += j->bl.mc) {
                int64_t mc = min64(j->bl.mc, m1 - ic);
                /* with packb the first row block packs the B panels, each
                 * in its first tile (A panel 0): in the B-in-L1 order the
                 * next panel is not there yet to prefetch (uk_packb asks
                 * for its own rows of B) */
                const int packing = packb && ic == m0;
                const int64_t nir = (mc + mr - 1) / mr, njr = (nc + nr - 1) / nr;
                /* A last panel of a few rows (M = 128 is nine panels of 14
                 * and one of 2) streams a whole B micro-panel for them: its
                 * tiles took 2.5 % of 128 x 384 x 1536 for 1.6 % of the FMAs
                 * (pre-packed B: M = 126 114.2 GFLOP/s, M = 128 113.2). With
                 * A packed here, the last two panels instead share MR + the
                 * remainder evenly (8 + 8 rows), each of them a kernel of
                 * its rows; the panels keep their MR-row slots in the packed
                 * block (panel q at row q * MR of it), the last one starting
                 * h1 rows into the pair (panel_row). Zen 4, alternating,
                 * medians: B pre-packed 128 x 384 x 1536 113.7 -> 114.5
                 * GFLOP/s; `cairn bench gemm` 1 thread 128 x 384 x 1536
                 * 110.4 -> 112.7, 128 x 1536 x 384 112.7 -> 114.0, 2 threads
                 * 220 -> 222.5 and 226 -> 228; MiniLM s128 26.84 -> 26.68 ms.
                 * A remainder of 3 (14 + 3 = 9 + 8 rows) gains nothing: the
                 * 10-row kernel runs its 9 rows as 10. */
                const int run = j->v && j->v->ukrun && kn->ctx == j->v;
                const int64_t rem = mc % mr;
                const int split =
                    !j->packed_a && !run && mr >= 12 && nir >= 2 && rem > 0 && rem <= 2;
                const int64_t h1 = split ? (mr + rem + 1) / 2 : mr;
                const int64_t nfull = split ? nir - 2 : mc / mr; /* whole MR-row panels */
                /* this block's whole A panels packed by their tiles with
                 * jr = 0 (apacking); the other panels, and panel 0 where B
                 * is packed by that tile, by pack_a first */
                int apacking = 0;
                const char *ap;
                if (j->packed_a) {
                    ap = j->packed_a + (size_t)(pc * j->mpad_a + ic * kcp) * es;
                } else {
                    char *dst = a_all ? abuf + (size_t)(pc * mpad + (ic - m0) * kcp) * es : abuf;
                    if (!a_all || jc == n0) {
                        apacking = packa && nfull > 0;
                        const int64_t head = apacking ? (packing ? mr : 0)
                                             : split  ? nfull * mr
                                                      : mc;
                        if (head > 0)
                            kn->pack_a(kn, j->ta, j->A, j->lda, ic, pc, head, kc, dst);
                        const int64_t r0 = nfull * mr; /* the rows after the whole panels */
                        char *d0 = dst + (size_t)(r0 * kcp) * es;
                        if (split) {
                            kn->pack_a(kn, j->ta, j->A, j->lda, ic + r0, pc, h1, kc, d0);
                            kn->pack_a(kn, j->ta, j->A, j->lda, ic + r0 + h1, pc, mc - r0 - h1, kc,
                                       d0 + (size_t)(mr * kcp) * es);
                        } else if (apacking && r0 < mc) {
                            kn->pack_a(kn, j->ta, j->A, j->lda, ic + r0, pc, mc - r0, kc, d0);
                        }
                    } else {
                        /* A's block packed at the first column block: its
                         * in-place panels are read in place again */
                        apacking = inpl && nfull > 0;
                    }
                    ap = dst;
                }
                /* The inner loop sweeps the operand that is not kept in L1.
                 * A short K block (under 128 steps: a 1x1 convolution over
                 * few channels) is bound by storing C rather than by either
                 * operand: then the tiles go along C's rows, so that
                 * consecutive tiles store to the same few pages instead of
                 * one page per row of the block (ResNet-50's 64 -> 256 1x1s
                 * at 56x56 with a residual, the packed GEMM on AVX-512:
                 * 1.43-1.59 ms down C's columns, 0.78-0.88 along its rows,
                 * in the model on a Xeon) */
                const int b_in_l1 = kn->b_in_l1 && kc >= 128 && !j->rows_first;
                const int64_t outer = b_in_l1 ? njr : nir, inner = b_in_l1 ? nir : njr;
                /* A residual added in the epilogue: the next tile's C and
                 * residual lines are prefetched (rows ldc apart, which the
                 * hardware prefetchers do not follow). It was written for
                 * any K block up to 128 as well, but its calls were compiled
                 * away (prefetch_tile) until the nineteenth session, so the
                 * gain its commit reported (ResNet-50 layer2 2.7 -> 1.5 ms)
                 * was not its own. With the calls in, Zen 5, three builds
                 * alternating, medians of 6-8: ResNet-50 on 1 thread 36.9 ms
                 * without the prefetches, 36.0 with both cases, 36.4 with
                 * the residual only; on 2 threads 19.2 / 17.7 / 17.9;
                 * MobileNetV2 1 thread 3.647 / 3.691 / 3.633 ms; 3136 x 256
                 * x 64 (no residual) 2-3 % slower with the short-K case. So
                 * the residual only. */
                const int pfc = last && j->epi && j->epi->residual;
                /* B micro-panels kept in L1 come from memory when B was
                 * packed ahead of time (weights): the next one is
                 * prefetched a slice per tile while this one is in use */
                const size_t bpanel = (size_t)(kcp * nr) * es;
                const size_t bslice = inner > 0 ? (bpanel / (size_t)inner + 63) / 64 * 64 : 0;
                /* runs of tiles in one call (the variant's ukrun): a row of
                 * them along one A micro-panel, or with B in L1 a column of
                 * them down one B micro-panel */
                for (int64_t o = 0; run && o < outer; o++) {
                    const char *bnext = b_in_l1 && o + 1 < outer ? bp + (size_t)(o + 1) * bpanel
                                                                 : NULL;
                    const int64_t ir = b_in_l1 ? 0 : o * mr, jr = b_in_l1 ? o * nr : 0;
                    if (pfc && !b_in_l1 && o + 1 < outer)
                        prefetch_tile(j, ic + ir + mr, jc, mc - ir - mr, last);
                    j->v->ukrun(kc, b_in_l1, (const float *)(ap + (size_t)(ir * kcp) * es),
                                (const float *)(bp + (size_t)(jr * kcp) * es),
                                b_in_l1 ? kcp * mr : kcp * nr,
                                (float *)((char *)j->C + (size_t)((ic + ir) * j->ldc + jc + jr) * cs),
                                j->ldc, b_in_l1 ? mc : min64(mr, mc - ir),
                                b_in_l1 ? min64(nr, nc - jr) : nc, j->alpha, beta,
                                last ? tile_epi(j->epi, ic + ir, jc + jr, &te) : NULL, bnext,
                                bslice, bpanel);
                }
                /* One row block packing B in the B-in-L1 order uses each
                 * B panel only in its own column of tiles: the panels are
                 * then packed, one after the other, into the first
                 * panel's slot (ring), which stays in L1 and L2, rather
                 * than into a copy of the whole block, which streams
                 * through L2 into L3 when it is larger than L2. Then L2
                 * keeps the rows of op(B) that each packing tile asks for
                 * the next one, and the tiles need not ask for their own
                 * rows (uk_packb's near). So too where the packed block
                 * takes at most half of L2 (256^3; 128 x 1536 x 384,
                 * whose column blocks of 160 go along C's rows). Where
                 * the block is larger (1024^3: 1.7 MB going through L2)
                 * the tiles still ask. Alternating, 1 thread: the ring
                 * alone 0 to +1.7 % on 128 x 384 x 1536; with near, see
                 * x86_avx512.c (packb_steps). */
                const int ring = packing && b_in_l1 && mc == m1 - m0;
                const size_t l2 = base_cpu()->l2 ? base_cpu()->l2 : 1024 * 1024;
                const int bnear =
                    packing && kc >= 128 && (ring || (size_t)(kcp * nc) * es <= l2 / 2);
                for (int64_t o = 0; !run && o < outer; o++) {
                    const char *bnext =
                        b_in_l1 && o + 1 < outer && !packing ? bp + (size_t)(o + 1) * bpanel : NULL;
                    for (int64_t q = 0; q < inner; q++) {
                        /* A panel p: its slot in the packed block (as) and
                         * first row of the block (ir), its rows (m) */
                        const int64_t p = b_in_l1 ? q : o, as = p * mr;
                        const int64_t ir = panel_row(p, nir, mr, h1, split);
                        const int64_t m =
                            (p + 1 < nir ? panel_row(p + 1, nir, mr, h1, split) : mc) - ir;
                        const int64_t jr = (b_in_l1 ? o : q) * nr;
                        const char *bq = ring ? bbuf : bp + (size_t)(jr * kcp) * es;
                        /* this tile's slice of the next B micro-panel:
                         * spread over the tile's k loop where the kernel
                         * can (see gemm_f32_variant_t.uk_pf), else here */
                        size_t s0 = (size_t)q * bslice;
                        size_t s1 = s0 + bslice < bpanel ? s0 + bslice : bpanel;
                        const char *pfb = bnext;
                        if (rnext && rrows) { /* a piece of one row's run */
                            const int64_t t = (int64_t)rtile++, row = t / rper;
                            s0 = s1 = 0;
                            if (row < rrows) {
                                pfb = rnext + (size_t)(row * j->ldb) * (size_t)kn->srcsz;
                                s0 = (size_t)(t % rper) * rslice;
                                s1 = s0 + rslice < rrun ? s0 + rslice : rrun;
                            }
                        } else if (rnext) { /* instead the raw rows, B being packed here */
                            s0 = rtile++ * rslice;
                            s1 = s0 + rslice < rbytes ? s0 + rslice : rbytes;
                            pfb = rnext;
                        }
                        const int spread = pfb && kn->uk_pf && s0 < s1;
                        if (bnext && !rnext && !spread)
                            for (size_t off = s0; off < s1; off += 64)
                                __builtin_prefetch(bnext + off, 0, 3);
                        const gemm_tile_epi_t *e =
                            last ? tile_epi(j->epi, ic + ir, jc + jr, &te) : NULL;
                        if (pfc) {
                            const int64_t q2 = q + 1 < inner ? q + 1 : 0;
                            const int64_t o2 = q + 1 < inner ? o : o + 1;
                            const int64_t ir2 = panel_row(b_in_l1 ? q2 : o2, nir, mr, h1, split);
                            if (o2 < outer)
                                prefetch_tile(j, ic + ir2, jc + (b_in_l1 ? o2 : q2) * nr,
                                              mc - ir2, last);
                        }
                        if (packing && p == 0) {
                            /* the panel's first tile packs it as it goes,
                             * or (a last panel narrower than NR) pack_b
                             * first */
                            char *dst = (char *)bq;
                            if (nc - jr >= nr) {
                                j->v->uk_packb(
                                    kc, (const float *)ap,
                                    (const float *)j->B + pc * j->ldb + jc + jr, j->ldb,
                                    (float *)dst,
                                    (float *)((char *)j->C + (size_t)(ic * j->ldc + jc + jr) * cs),
                                    j->ldc, (int)m, j->alpha, beta, e, bnear);
                                continue;
                            }
                            kn->pack_b(kn, j->tb, j->B, j->ldb, pc, jc + jr, kc, nc - jr, dst);
                        }
                        if (apacking && (jr == 0 || inpl) && p < nfull && !(packing && p == 0)) {
                            float *apw = inpl ? NULL : (float *)(ap + (size_t)(as * kcp) * es);
                            j->v->uk_packa(kc, (const float *)j->A + (ic + ir) * j->lda + pc,
                                           j->lda, apw,
                                           (const float *)bq,
                                           (float *)((char *)j->C +
                                                     (size_t)((ic + ir) * j->ldc + jc + jr) * cs),
                                           j->ldc, (int)min64(nr, nc - jr), j->alpha, beta, e,
                                           spread ? pfb + s0 : NULL,
                                           spread ? (int64_t)((s1 - s0 + 63) / 64) : 0);
                            continue;
                        }
                        if (spread)
                            kn->uk_pf(kn, kc, ap + (size_t)(as * kcp) * es, bq,
                                      (char *)j->C + (size_t)((ic + ir) * j->ldc + jc + jr) * cs,
                                      j->ldc, (int)m, (int)min64(nr, nc - jr), j->alpha, beta, e,
                                      pfb + s0, (int64_t)((s1 - s0 + 63) / 64));
                        else
                            kn->uk(kn, kc, ap + (size_t)(as * kcp) * es, bq,
                                   (char *)j->C + (size_t)((ic + ir) * j->ldc + jc + jr) * cs,
                                   j->ldc, (int)m, (int)min64(nr, nc - jr), j->alpha, beta, e);
                    }
                }
            }
            pc += kc;
        } while (pc < j->K);
    }
}

/* Pre-packed A without a workspace (its allocation failed): B is packed
 * one NR-column panel at a time into a stack buffer, the K block cut into
 * sub-blocks that fit it (a K range of an A micro-panel is contiguous). */
static void run_packed_a_nomem(const gjob_t *j, int64_t m0, int64_t m1, int64_t n0, int64_t n1)
{
    const gemm_kern_t *kn = &j->kn;
    const int mr = kn->mr, nr = kn->nr, kg = kn->kg;
    const size_t es = (size_t)kn->esz, cs = (size_t)kn->csz;
    char stack_b[64 * 1024] __attribute__((aligned(64)));
    int64_t ksub = (int64_t)(sizeof stack_b / ((size_t)nr * es)) / kg * kg;
    gemm_tile_epi_t te;
    int64_t pc = 0;
    do {
        int64_t kc = min64(j->bl.kc, j->K - pc), kcp = (kc + kg - 1) / kg * kg;
        for (int64_t jr = n0; jr < n1; jr += nr) {
            int n = (int)min64(nr, n1 - jr);
            for (int64_t ks = 0; ks < kc; ks += ksub) {
                int64_t kl = min64(ksub, kc - ks);
                kn->pack_b(kn, j->tb, j->B, j->ldb, pc + ks, jr, kl, n, stack_b);
                float beta = pc == 0 && ks == 0 ? j->beta : 1.0f;
                int last = pc + kc >= j->K && ks + kl >= kc;
                for (int64_t ir = m0; ir < m1; ir += mr) {
                    const char *ap = j->packed_a + (size_t)(pc * j->mpad_a + ir * kcp + ks * mr) * es;
                    const gemm_tile_epi_t *e = last ? tile_epi(j->epi, ir, jr, &te) : NULL;
                    kn->uk(kn, kl, ap, stack_b, (char *)j->C + (size_t)(ir * j->ldc + jr) * cs,
                           j->ldc, (int)min64(mr, m1 - ir), n, j->alpha, beta, e);
                }
            }
        }
        pc += kc;
    } while (pc < j->K);
}

static void run_direct_range(const gjob_t *j, int64_t m0, int64_t m1, int64_t n0, int64_t n1)
{
    const gemm_f32_variant_t *v = j->v;
    const int nr = v->nr;
    int64_t rs_a = j->ta ? 1 : (j->lda > 0 ? j->lda : 1), cs_a = j->ta ? j->lda : 1;
    const float *A = j->A, *B = j->B;
    float *C = j->C;
    if (v->smallm && !j->epi && m1 - m0 <= 16) {
        /* C (m x NCH) stays in a quarter of L2 while B streams through */
        size_t l2 = base_cpu()->l2 ? base_cpu()->l2 : 1024 * 1024;
        int64_t nch = (int64_t)(l2 / 4 / ((size_t)(m1 - m0) * sizeof(float))) / 16 * 16;
        for (int64_t jc = n0; jc < n1; jc += nch)
            v->smallm((int)(m1 - m0), min64(nch, n1 - jc), j->K, j->alpha, A + m0 * rs_a, rs_a,
                      cs_a, B + jc, j->ldb, j->beta, C + m0 * j->ldc + jc, j->ldc);
        return;
    }
    /* even row blocks of at most MR rows: 16 rows run as 8 + 8, not 14 + 2 */
    int64_t rows = m1 - m0, nb = (rows + v->mr - 1) / v->mr;
    int64_t rb = nb ? (rows + nb - 1) / nb : 1;
    int64_t kcb = j->bl.kc * 2;
    gemm_tile_epi_t te;
    int64_t pc = 0;
    do {
        int64_t kc = min64(kcb, j->K - pc);
        float beta = pc == 0 ? j->beta : 1.0f;
        int last = pc + kc >= j->K;
        for (int64_t jr = n0; jr < n1; jr += nr) {
            int n = (int)min64(nr, n1 - jr);
            for (int64_t ir = m0; ir < m1; ir += rb) {
                const gemm_tile_epi_t *e = last ? tile_epi(j->epi, ir, jr, &te) : NULL;
                v->uk(kc, A + ir * rs_a + pc * cs_a, rs_a, cs_a, B + pc * j->ldb + jr, j->ldb,
                      C + ir * j->ldc + jr, j->ldc, (int)min64(rb, m1 - ir), n, j->alpha, beta,
                      e);
            }
        }
        pc += kc;
    } while (pc < j->K);
}

void gemm_f32_epilogue_tile_dims(int *mr, int *nr)
{
    const gemm_f32_variant_t *v = gemm_f32_select();
    *mr = v->mr;
    *nr = v->nr;
}

void gemm_f32_epilogue_tile(const float *T, int m, int n, float *C, int64_t ldc,
                            const gemm_epilogue_t *epi, int64_t i, int64_t j)
{
    gemm_tile_epi_t te;
    gemm_f32_select()->tile_store(T, m, n, C, ldc, tile_epi(epi, i, j, &te));
}

/* [b, e) of part p of `total` units split into `parts` near-equal pieces */
static void split(int64_t total, int parts, int p, int64_t *b, int64_t *e)
{
    int64_t q = total / parts, r = total % parts;
    *b = p * q + (p < r ? p : r);
    *e = *b + q + (p < r ? 1 : 0);
}

/* Scalar epilogue over a finished block (only the allocation-failure
 * fallback uses it). */
static void epi_block_scalar(const gemm_epilogue_t *epi, float *C, int64_t ldc, int64_t i0,
                             int64_t i1, int64_t j0, int64_t j1)
{
    for (int64_t i = i0; i < i1; i++)
        for (int64_t jj = j0; jj < j1; jj++) {
            float v = C[i * ldc + jj];
            if (epi->bias && epi->bias_kind == GEMM_BIAS_ROW)
                v += epi->bias[i];
            if (epi->bias && epi->bias_kind == GEMM_BIAS_COL)
                v += epi->bias[jj];
            v = gemm_act_apply_f32(epi->act, v, epi->clip_lo, epi->clip_hi) * epi->scale;
            if (epi->residual)
                v += epi->residual[i * epi->ldr + jj];
            C[i * ldc + jj] = gemm_act_apply_f32(epi->post_act, v, epi->post_lo, epi->post_hi);
        }
}

/* C's block rows [m0, m1) x columns [n0, n1), one task's. */
static void gemm_block(const gjob_t *j, int64_t m0, int64_t m1, int64_t n0, int64_t n1)
{
    const gemm_kern_t *kn = &j->kn;
    const int mr = kn->mr, nr = kn->nr;
    const size_t es = (size_t)kn->esz, cs = (size_t)kn->csz;
    if (j->direct) {
        run_direct_range(j, m0, m1, n0, n1);
        return;
    }
    int64_t kc = min64(j->bl.kc, j->K > 0 ? j->K : 1);
    kc = (kc + kn->kg - 1) / kn->kg * kn->kg;
    int64_t kall = (j->K + kn->kg - 1) / kn->kg * kn->kg;
    int64_t mpad = (m1 - m0 + mr - 1) / mr * mr;
    /* this range's blocks: even MC and NC (see balanced_block) */
    gjob_t jr = *j;
    jr.bl.mc = balanced_block(m1 - m0, j->bl.mc, mr);
    /* With one M block (a few rows of A: a convolution's output
     * channels), A's reuse does not need long column blocks, and B
     * packed per call goes through L2 in blocks of at most an eighth
     * of it: the pack's reads and the kernel's then stay in L2 and each
     * K block's C block is still there for the next. ResNet-50's 1x1s
     * over 56x56 planes, 1 thread, Xeon, medians of 5 alternating:
     * 256 -> 64 0.765 -> 0.661 ms, 256 -> 128 1.229 -> 1.103 (all 3136
     * columns in one block: the packed 1.6 MB block and the rows of X
     * it was read from overflowed L2); at 28x28 level; the GEMM 128 x
     * 1536 x 384 180 -> 193 GFLOP/s. Not when the task's whole K block
     * of rows fits in L2 (up to a quarter the next one is prefetched
     * whole, run_packed_range: 128 x 384 x 1536 ran 5 % slower cut, 512
     * x 768 x 3072 2 %) nor for short K blocks, outside the B-in-L1
     * order (64 -> 256 is bound by storing C; level to 8 % slower cut).
     * The bound was half of L2 until the ring (run_packed_range) packed
     * one row block's panels into one slot instead of a whole packed
     * block: on Zen 5, KC 512, 128 x 384 x 1536 (its rows 786 KB) had
     * been cut into column blocks of 64; whole, bench_ab_gemm, 1 thread,
     * +2.3 to +2.6 % in three runs (quartiles +1.0 to +4.4 %); 128 x 784
     * x 256 (a 1x1 convolution, 256 -> 128 channels over 28x28), 64 x 784
     * x 256 and 128 x 1024 x 256 level (0.997-1.001); 2 threads (their tasks'
     * rows within half of L2 either way) level. The ring is the B-in-L1
     * order's: where the task's C block is over half of L2 the tiles may
     * go along C's rows instead (rows_first, below) and pack the whole
     * block, so there the bound stays half of L2 (168 x 784 x 240 ran
     * 0.984 with the larger bound). */
    int64_t ncap = j->bl.nc;
    const int64_t kcb = min64(j->bl.kc, j->K > 0 ? j->K : 1);
    const size_t l2 = base_cpu()->l2;
    const size_t cut_bound = (size_t)((m1 - m0) * (n1 - n0)) * cs <= l2 / 2 ? l2 : l2 / 2;
    if (!j->packed && m1 - m0 <= j->bl.mc && kn->b_in_l1 && kcb >= 128 && l2 > 0 &&
        (size_t)(kcb * (n1 - n0)) * es > cut_bound) {
        const int64_t cap = (int64_t)(l2 / 8 / ((size_t)kcb * es)) / nr * nr;
        ncap = cap < nr ? nr : cap < ncap ? cap : ncap;
    }
    /* B pre-packed, a few rows (at most 256), several K blocks and a
     * C block over half of L2: column blocks whose C block takes an
     * eighth of L2, still there when the next K block adds to it
     * (otherwise all of C goes out to L3 between K blocks); A, packed
     * once for all of them (a_all), is small enough to sweep again
     * for each. GPT-2 stack (128 x 2304 x 768, 128 x 3072 x 768),
     * 1 thread, Xeon, alternating: qkv 26.2 -> 25.2 ms in all, fc1
     * 37.3 -> 36.1; at 512 rows (the MiniLM encoder at seq 512) the
     * projections ran 1-2 % slower cut, so those stay whole. */
    if (j->packed && j->K > j->bl.kc && l2 > 0 && m1 - m0 <= 256 &&
        (size_t)((m1 - m0) * (n1 - n0)) * cs > l2 / 2) {
        const int64_t cap = (int64_t)(l2 / 8 / ((size_t)(m1 - m0) * cs)) / nr * nr;
        ncap = cap < nr ? nr : cap < ncap ? cap : ncap;
    }
    /* The 8- and 16-bit kernels go along C's rows (not B-in-L1): each A
     * micro-panel sweeps the whole packed B block, which a task of few rows
     * packs for each call. Where that block is over a quarter of L2, column
     * blocks whose packed block takes an eighth of it (at least 4 panels
     * wide: else not cut) keep it in L2 for the sweeps. Zen 5, u8 x s8,
     * bench_ab_gemm --s8 against 5247d74, 1 thread: 128 x 1536 x 384 +15 %,
     * 128 x 3072 x 768 +19 %, 64 x 2304 x 768 +36 %, 160 x 2048 x 512
     * +13 %, 128 x 768 x 768 +10 %; 128 x 384 x 1536 (K blocks of 1536: not
     * cut) and 256 x 1024 x 1024 level; against oneDNN (`cairn bench gemm
     * --peers`) 128 x 1536 x 384 0.89 -> 1.01 on 1 thread, 0.91 -> 1.01 on
     * 2; 128 x 768 x 768 0.93 -> 0.98 and 0.96 -> 0.98; bf16 (`cairn bench
     * gemm --dtype bf16`, the two binaries alternating) 128 x 1536 x 384
     * +2-4 %, 128 x 768 x 768 level. Models whose int8 weights are packed
     * ahead (the encoder) untouched; ResNet-50 and MobileNetV2 in QDQ form
     * level. A row block of at most twice MC only (2048^3 ran 1.8 % slower
     * cut). */
    if (kn->esz < 4 && !j->packed && l2 > 0 && m1 - m0 <= 2 * j->bl.mc &&
        (size_t)(kcb * (n1 - n0)) * es > l2 / 4) {
        const int64_t cap = (int64_t)(l2 / 8 / ((size_t)kcb * es)) / nr * nr;
        if (cap >= 4 * nr && cap < ncap)
            ncap = cap;
    }
    jr.bl.nc = balanced_block(n1 - n0, ncap, nr);
    int64_t mc = min64(jr.bl.mc, mpad);
    int64_t nc = j->packed ? 0 : min64(jr.bl.nc, (n1 - n0 + nr - 1) / nr * nr);
    /* With B in L1 the tiles go down C's columns: each tile touches
     * MR new rows of C, in as many pages, a pattern the hardware
     * prefetchers do not follow. When the task's C block is over half
     * of L2 (its lines come from L3 either way) and the B block fits
     * in three quarters of it, tiles along C's rows instead (the A
     * micro-panel in L1, the B block swept from L2) measured faster:
     * 1 thread, Xeon, alternating, 512 x 768 x 3072 195 -> 204
     * GFLOP/s, 1024^3 197 -> 202, pre-packed 512 x 1152 x 384 191 ->
     * 208; 2048^3 (its B block 3 MB) and M = 128 (C within L2)
     * untouched; bf16, int8 and the AVX2 tile level. With B pre-packed
     * (weights, cold) the first row of tiles reads the B block from
     * L3, which needs many rows of A to pay: the MiniLM encoder at
     * batch 8 (1024 rows) 127.4 -> 122.9 ms, at seq 512 (512 rows) no
     * faster, so at least 64 micro-panels there. */
    {
        const int64_t ncb = min64(jr.bl.nc, (n1 - n0 + nr - 1) / nr * nr);
        jr.rows_first = kn->b_in_l1 && l2 > 0 && (!j->packed || m1 - m0 >= 64 * mr) &&
                        (size_t)((m1 - m0) * (n1 - n0)) * cs > l2 / 2 &&
                        (size_t)(kcb * ncb) * es <= l2 * 3 / 4;
    }
    /* several jc passes: pack A once for all of them if it is not huge */
    int a_all = n1 - n0 > jr.bl.nc && (double)mpad * (double)kall * (double)es <= 32e6;
    size_t abytes = j->packed_a ? 0 : (size_t)(a_all ? mpad * kall : mc * kc) * es;
    abytes = base_round_up(abytes, BASE_ALIGN);
    int slot = -1;
    const size_t need = abytes + (size_t)(kc * nc) * es;
    if (need == 0) {
        /* both operands pre-packed: nothing to pack, no workspace */
        run_packed_range(&jr, m0, m1, n0, n1, NULL, NULL, 0);
        return;
    }
    char *ws = base_scratch_get(need, &slot);
    if (!ws && j->packed_a) {
        run_packed_a_nomem(&jr, m0, m1, n0, n1);
        return;
    }
    if (!ws && j->packed) {
        /* no memory: pack A one micro-panel at a time on the stack */
        char stack_a[64 * 1024] __attribute__((aligned(64)));
        gjob_t small = *j;
        small.bl.mc = mr;
        if ((size_t)(mr * kc) * es <= sizeof stack_a)
            run_packed_range(&small, m0, m1, n0, n1, stack_a, NULL, 0);
        return;
    }
    if (!ws) {
        /* no memory for packing: the reference kernel needs none */
        const char *ap = (const char *)j->A + (size_t)(j->ta ? m0 : m0 * j->lda) * kn->srcsz;
        const char *bp = (const char *)j->B + (size_t)(j->tb ? n0 * j->ldb : n0) * kn->srcsz;
        kn->fallback(j->ta, j->tb, m1 - m0, n1 - n0, j->K, j->alpha, ap, j->lda, bp, j->ldb,
                     j->beta, (char *)j->C + (size_t)(m0 * j->ldc + n0) * cs, j->ldc);
        if (j->epi)
            epi_block_scalar(j->epi, j->C, j->ldc, m0, m1, n0, n1);
        return;
    }
    run_packed_range(&jr, m0, m1, n0, n1, ws, ws + abytes, a_all);
    base_scratch_put(ws, slot);
}

/* Tasks split M by rows rather than by MR-row panels: their last panels
 * are partial (a kernel of its rows, whose time goes with them), so M =
 * 128 on 2 tasks is 64 + 64 rows rather than 70 + 58. Not where A was
 * packed ahead, in whole panels. With task_grid counting the rows a task
 * really has (it counted 140 for M = 128 in one task, so split M at 70 +
 * 58 rows looked as cheap as split N), the transformers' N = 384
 * projections, B pre-packed, split M evenly: Zen 4, 2 threads, MiniLM
 * encoder s128, per-step medians of 7 profiles, alternating: the output
 * projection 0.188 -> 0.174 ms, the second FFN GEMM 0.720 -> 0.672, the
 * per-step sum 13.91 -> 13.27 ms. Split N evenly instead (which a lone
 * GEMM prefers: 128 x 384 x 1536 on its own 221 against 213 GFLOP/s) the
 * sum was 13.70: the layer norm after each such step then read half its
 * rows from the other core (7.8 -> 11.8 us), as did the next GEMM. Equal
 * costs therefore go to splitting M. */
static int rows_by_runs(const gjob_t *j) { return !j->packed_a && !j->direct; }
static int rows_split(const gjob_t *j) { return j->tm > 1 && rows_by_runs(j); }

static void gemm_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const gjob_t *j = ctx;
    const int mr = j->kn.mr, nr = j->kn.nr;
    int64_t mt = (j->M + mr - 1) / mr, nt = (j->N + nr - 1) / nr;
    for (size_t t = begin; t < end; t++) {
        int pi = (int)t / j->tn, pj = (int)t % j->tn;
        int64_t a, b, c, d;
        split(mt, j->tm, pi, &a, &b);
        split(nt, j->tn, pj, &c, &d);
        int64_t m0 = a * mr, m1 = min64(b * mr, j->M), n0 = c * nr, n1 = min64(d * nr, j->N);
        if (rows_split(j)) /* equal runs of rows, each task's last panel partial */
            split(j->M, j->tm, pi, &m0, &m1);
        if (m0 >= m1 || n0 >= n1)
            continue;
        gemm_block(j, m0, m1, n0, n1);
        if (j->then)
            j->then(j->then_ctx, m0, m1, n0, n1);
    }
}

/* The tm x tn grid of `tasks` tasks with the least per-task cost (ties go
 * to splitting M: see rows_split); 0 when no grid fits the tile counts. A
 * task's cost per k step: its area of C (multiply-
 * adds) plus, per row of A and per column of B it reads, GRID_PACK_COST for
 * an operand it packs on this call and GRID_STREAM_COST for one packed
 * ahead (weights) that it only streams: splitting M makes every task read
 * all of B, splitting N makes every task pack all of op(A). Both packed per
 * call: 16 each. On 2 threads, ResNet-50's 512 -> 128 1x1 at 28x28 (W
 * packed ahead as A, M = 128, N = 784) split by N ran 0.603 -> 0.573 ms;
 * its 1024 -> 256 at 14x14 with W as A (N = 196, 13 column tiles) split by
 * M 0.61 ms, by N 0.66. With pre-packed B the costs 24 / 8 (they were 16 /
 * 16: Xeon, 2 threads, medians of 5 alternating `cairn run`) split the
 * pixel-major 1024 -> 256 at 14x14 (196 x 256 x 1024, A = X transposed) by
 * M, 0.350 -> 0.302 ms, and the transformers' N = 384 projections (K = 384
 * and 1536): ResNet-50 23.94 -> 23.38 ms, MiniLM encoder seq 128 8.28 ->
 * 8.09, batch 8 63.18 -> 62.43, seq 512 37.72 -> 37.05; GPT-2 (N >= 768)
 * level. 32 / 8 and 20 / 12 measured the same as 24 / 8. */
#define GRID_OPERAND_COST 16.0
#define GRID_PACK_COST 24.0
#define GRID_STREAM_COST 8.0
static int task_grid(const gjob_t *j, int tasks, int64_t mt, int64_t nt, int *tm_out, int *tn_out)
{
    const int mr = j->kn.mr, nr = j->kn.nr;
    double best = -1;
    for (int tm = 1; tm <= tasks; tm++) {
        if (tasks % tm)
            continue;
        int tn = tasks / tm;
        if (tm > mt || tn > nt || (j->direct && tm > 1))
            continue;
        /* the largest task's rows and columns of C: split() gives the
         * first tasks the extra tiles and the last one the partial tile,
         * so a task with the most tiles has only whole ones unless it is
         * the only one (M = 128 in tiles of 14 is 70 + 58 rows on 2 tasks,
         * its 10 tiles 140 rows on one) */
        const double rows = rows_by_runs(j) ? (double)((j->M + tm - 1) / tm) /* rows_split */
                                            : (double)min64((mt + tm - 1) / tm * mr, j->M);
        const double cols = (double)min64((nt + tn - 1) / tn * nr, j->N);
        const double ga = j->packed     ? GRID_PACK_COST
                          : j->packed_a ? GRID_STREAM_COST
                                        : GRID_OPERAND_COST;
        const double gb = j->packed     ? GRID_STREAM_COST
                          : j->packed_a ? GRID_PACK_COST
                                        : GRID_OPERAND_COST;
        const double cost = rows * cols + ga * rows + gb * cols;
        if (best < 0 || cost <= best) { /* ties: the larger tm (rows_split) */
            best = cost;
            *tm_out = tm;
            *tn_out = tn;
        }
    }
    return best >= 0;
}

/* Few rows (M <= 16, no epilogue, op(B) = B) on several threads: each
 * thread streams a contiguous K range of B (rows k0..k1, whole rows) into
 * its own M x N partial sum (thread 0 into C with beta, the others into
 * scratch), then the partial sums are added into C. Splitting N instead
 * gives each thread half of every row of B: twice as many short streams
 * for the prefetchers (8 x 4096 x 4096 on 2 threads: 63 -> 68 GFLOP/s). */
typedef struct splitk_job {
    const gjob_t *j;
    float *scratch; /* (parts - 1) x M x N */
    int parts;
} splitk_job_t;

static void splitk_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const splitk_job_t *sk = ctx;
    const gjob_t *j = sk->j;
    const gemm_f32_variant_t *v = j->v;
    const int64_t rs_a = j->ta ? 1 : (j->lda > 0 ? j->lda : 1), cs_a = j->ta ? j->lda : 1;
    size_t l2 = base_cpu()->l2 ? base_cpu()->l2 : 1024 * 1024;
    int64_t nch = (int64_t)(l2 / 4 / ((size_t)j->M * sizeof(float))) / 16 * 16;
    nch = nch < 16 ? 16 : nch;
    for (size_t t = begin; t < end; t++) {
        int64_t k0, k1;
        split(j->K, sk->parts, (int)t, &k0, &k1);
        float *C = t == 0 ? (float *)j->C : sk->scratch + (size_t)(t - 1) * (size_t)(j->M * j->N);
        const int64_t ldc = t == 0 ? j->ldc : j->N;
        const float beta = t == 0 ? j->beta : 0.0f;
        const float *A = (const float *)j->A + k0 * cs_a, *B = (const float *)j->B + k0 * j->ldb;
        for (int64_t jc = 0; jc < j->N; jc += nch)
            v->smallm((int)j->M, min64(nch, j->N - jc), k1 - k0, j->alpha, A, rs_a, cs_a, B + jc,
                      j->ldb, beta, C + jc, ldc);
    }
}

static void splitk_sum(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const splitk_job_t *sk = ctx;
    const gjob_t *j = sk->j;
    float *C = j->C;
    for (size_t i = begin; i < end; i++)
        for (int t = 1; t < sk->parts; t++) {
            const float *p = sk->scratch + (size_t)(t - 1) * (size_t)(j->M * j->N) + i * j->N;
            for (int64_t c = 0; c < j->N; c++)
                C[(int64_t)i * j->ldc + c] += p[c];
        }
}

static int splitk_run(gjob_t *j, const kctx_t *k, int threads)
{
    if (!j->direct || !j->v || !j->v->smallm || j->epi || j->M > 16 || j->tb || !j->A ||
        j->K < 1024 * (int64_t)threads || j->N < 256)
        return 0;
    const size_t bytes = (size_t)(threads - 1) * (size_t)(j->M * j->N) * sizeof(float);
    int slot;
    float *scratch = base_scratch_get(bytes, &slot);
    if (!scratch)
        return 0;
    splitk_job_t sk = {j, scratch, threads};
    base_pool_parallel_for_1d(k->pool, (size_t)threads, 1, splitk_task, &sk);
    base_pool_parallel_for_1d(k->pool, (size_t)j->M, 1, splitk_sum, &sk);
    base_scratch_put(scratch, slot);
    return 1;
}

/* The residual may be C itself (gemm.h), but every path writes C before
 * its epilogue reads the residual (the first of several K blocks with
 * beta = 0, the GEMV's store): a residual whose bytes overlap C's is
 * copied aside first, into *copy (release with residual_apart_done), and
 * the returned epilogue reads the copy. NULL, with base_error set, when
 * the copy's memory cannot be had; e itself when nothing overlaps. */
static const gemm_epilogue_t *residual_apart(const gemm_epilogue_t *e, const void *C, int64_t M,
                                             int64_t N, int64_t ldc, size_t csz,
                                             gemm_epilogue_t *local, float **copy, int *slot)
{
    *copy = NULL;
    *slot = -1;
    if (!e || !e->residual || M <= 0 || N <= 0)
        return e;
    const char *r0 = (const char *)e->residual;
    const char *r1 = r0 + (size_t)((M - 1) * e->ldr + N) * sizeof(float);
    const char *c0 = (const char *)C, *c1 = c0 + (size_t)((M - 1) * ldc + N) * csz;
    if (r1 <= c0 || c1 <= r0)
        return e;
    const size_t bytes = (size_t)(M * N) * sizeof(float);
    float *t = base_scratch_get(bytes, slot);
    if (!t) {
        base_error(CAIRN_ERR_OUT_OF_MEMORY,
                   "gemm: no memory to copy a residual that overlaps C (%zu bytes)", bytes);
        return NULL;
    }
    for (int64_t i = 0; i < M; i++)
        memcpy(t + i * N, e->residual + i * e->ldr, (size_t)N * sizeof(float));
    *local = *e;
    local->residual = t;
    local->ldr = N;
    *copy = t;
    return local;
}

static void residual_apart_done(float *copy, int slot)
{
    if (copy)
        base_scratch_put(copy, slot);
}

/* Chooses the task grid (task_grid: one task per thread, the split that
 * packs and streams the least) and runs; few-row products may split K
 * instead (splitk_run). */
static void gemm_launch_run(gjob_t *j, const kctx_t *k)
{
    const int mr = j->kn.mr, nr = j->kn.nr;
    int64_t mt = (j->M + mr - 1) / mr, nt = (j->N + nr - 1) / nr;
    int threads = k && k->pool && k->threads > 1 ? k->threads : 1;
    double macs = (double)j->M * (double)j->N * (double)(j->K > 0 ? j->K : 1);
    if (macs < (double)(1 << 18))
        threads = 1; /* a few microseconds of work: a dispatch would cost as much */
    /* Each task packs the operands it uses. Packing op(A) once with all
     * threads and sharing it (every task then read the half the other
     * thread packed) measured 3-5 % faster while the two vCPUs shared an
     * L3 and 6-15 % slower while they did not (bench/bench_c2c: a block
     * another core just wrote arrives at 12 GB/s there, against ~100 from
     * one's own cache): 256^3 on 2 threads 0.209 -> 0.182 ms, 512^3 1.48
     * -> 1.39, 128 x 384 x 1536 0.91 -> 0.85 in the second state. */
    if (threads > 1 && splitk_run(j, k, threads))
        return;
    int tm = 1, tn = 1;
    if (threads > 1) {
        int tasks = (int)((double)mt * (double)nt < threads ? mt * nt : threads);
        if (j->direct && tasks > nt)
            tasks = (int)nt;
        for (; tasks > 1; tasks--)
            if (task_grid(j, tasks, mt, nt, &tm, &tn))
                break;
        if (tasks <= 1)
            tm = tn = 1;
    }
    j->tm = tm;
    j->tn = tn;
    int tasks = tm * tn;
    base_pool_parallel_for_1d(tasks > 1 ? k->pool : NULL, (size_t)tasks, 1, gemm_task, j);
}

/* Runs the job; 0, or -1 (base_error set) when an overlapping residual
 * could not be copied aside (nothing is computed then). */
static int gemm_launch(gjob_t *j, const kctx_t *k)
{
    gemm_epilogue_t local;
    float *copy;
    int slot;
    const gemm_epilogue_t *e =
        residual_apart(j->epi, j->C, j->M, j->N, j->ldc, (size_t)j->kn.csz, &local, &copy, &slot);
    if (j->epi && !e)
        return -1;
    j->epi = e;
    gemm_launch_run(j, k);
    residual_apart_done(copy, slot);
    return 0;
}

static void job_init(gjob_t *j, const gemm_kern_t *kn, int transA, int transB, int64_t M,
                     int64_t N, int64_t K, float alpha, const void *A, int64_t lda, const void *B,
                     int64_t ldb, float beta, void *C, int64_t ldc, const gemm_epilogue_t *epi)
{
    memset(j, 0, sizeof *j);
    j->kn = *kn;
    gemm_kern_blocking(kn, &j->bl);
    j->bl.kc = gemm_kc_for(&j->bl, K, kn->kg);
    j->ta = transA != 0;
    j->tb = transB != 0;
    j->M = M;
    j->N = N;
    j->K = K > 0 ? K : 0;
    j->alpha = alpha;
    j->beta = beta;
    j->A = A;
    j->lda = lda;
    j->B = B;
    j->ldb = ldb;
    j->C = C;
    j->ldc = ldc;
    j->epi = epi;
}

/* ---- f32 variants as packed-path kernels ---- */

static void f32_pack_a(const gemm_kern_t *kn, int transA, const void *A, int64_t lda, int64_t i0,
                       int64_t p0, int64_t mc, int64_t kc, void *dst)
{
    const gemm_f32_variant_t *v = kn->ctx;
    (v->pack_a ? v->pack_a : gemm_f32_pack_a)(transA, A, lda, i0, p0, mc, kc, v->mr, dst);
}

static void f32_pack_b(const gemm_kern_t *kn, int transB, const void *B, int64_t ldb, int64_t p0,
                       int64_t j0, int64_t kc, int64_t nc, void *dst)
{
    const gemm_f32_variant_t *v = kn->ctx;
    (v->pack_b ? v->pack_b : gemm_f32_pack_b_block)(transB, B, ldb, p0, j0, kc, nc, v->nr, dst);
}

static void f32_uk(const gemm_kern_t *kn, int64_t kc, const void *A, const void *B, void *C,
                   int64_t ldc, int m, int n, float alpha, float beta, const gemm_tile_epi_t *e)
{
    const gemm_f32_variant_t *v = kn->ctx;
    v->uk(kc, A, 0, v->mr, B, v->nr, C, ldc, m, n, alpha, beta, e);
}

static void f32_uk_pf(const gemm_kern_t *kn, int64_t kc, const void *A, const void *B, void *C,
                      int64_t ldc, int m, int n, float alpha, float beta,
                      const gemm_tile_epi_t *e, const char *pf, int64_t npf)
{
    const gemm_f32_variant_t *v = kn->ctx;
    v->uk_pf(kc, A, B, C, ldc, m, n, alpha, beta, e, pf, npf);
}

static void f32_fallback(int transA, int transB, int64_t m, int64_t n, int64_t K, float alpha,
                         const void *A, int64_t lda, const void *B, int64_t ldb, float beta,
                         void *C, int64_t ldc)
{
    gemm_ref_f32(transA, transB, m, n, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm_kern_from_f32(const gemm_f32_variant_t *v, gemm_kern_t *kn)
{
    *kn = (gemm_kern_t){v->name, v->isa, v->mr, v->nr, 1, 4, 4, 4, v,
                        f32_pack_a, f32_pack_b, f32_uk, f32_fallback, v->b_in_l1,
                        v->uk_pf ? f32_uk_pf : NULL};
}

void gemm_kern_run(const gemm_kern_t *kn, const kctx_t *k, int transA, int transB, int64_t M,
                   int64_t N, int64_t K, float alpha, const void *A, int64_t lda, const void *B,
                   int64_t ldb, float beta, void *C, int64_t ldc, const gemm_epilogue_t *epi)
{
    if (M <= 0 || N <= 0)
        return;
    gjob_t j;
    job_init(&j, kn, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, epi);
    (void)gemm_launch(&j, k); /* an error is left in base_error */
}

int64_t gemm_kern_packed_rows(const gemm_kern_t *kn, int64_t K, int64_t *kc)
{
    gemm_blocking_t bl;
    gemm_kern_blocking(kn, &bl);
    *kc = gemm_kc_for(&bl, K, kn->kg);
    return (K + kn->kg - 1) / kn->kg * kn->kg;
}

void gemm_kern_pack_b_all(const gemm_kern_t *kn, int64_t K, int64_t N, const void *B, int64_t ldb,
                          int64_t kc, int64_t npad, void *dst)
{
    for (int64_t pc = 0; pc < K; pc += kc)
        kn->pack_b(kn, 0, B, ldb, pc, 0, min64(kc, K - pc), N,
                   (char *)dst + (size_t)(pc * npad) * (size_t)kn->esz);
}

void gemm_kern_pack_a_all(const gemm_kern_t *kn, int64_t M, int64_t K, const void *A, int64_t lda,
                          int64_t kc, int64_t mpad, void *dst)
{
    for (int64_t pc = 0; pc < K; pc += kc)
        kn->pack_a(kn, 0, A, lda, 0, pc, M, min64(kc, K - pc),
                   (char *)dst + (size_t)(pc * mpad) * (size_t)kn->esz);
}

void gemm_kern_run_packed_a(const gemm_kern_t *kn, const kctx_t *k, int64_t M, int64_t N,
                            int64_t K, const void *packed_a, int64_t kc, int64_t mpad,
                            const void *B, int64_t ldb, void *C, int64_t ldc)
{
    if (M <= 0 || N <= 0)
        return;
    gjob_t j;
    job_init(&j, kn, 0, 0, M, N, K, 1.0f, NULL, 0, B, ldb, 0.0f, C, ldc, NULL);
    j.bl.kc = kc;
    j.packed_a = packed_a;
    j.mpad_a = mpad;
    (void)gemm_launch(&j, k);
}

void gemm_kern_run_packed(const gemm_kern_t *kn, const kctx_t *k, int64_t M, int64_t N, int64_t K,
                          const void *A, int64_t lda, const void *packed, int64_t kc, int64_t npad,
                          void *C, int64_t ldc)
{
    if (M <= 0 || N <= 0)
        return;
    gjob_t j;
    job_init(&j, kn, 0, 0, M, N, K, 1.0f, A, lda, NULL, 0, 0.0f, C, ldc, NULL);
    j.bl.kc = kc;
    j.packed = packed;
    j.npad = npad;
    (void)gemm_launch(&j, k);
}

void gemm_f32_run(const gemm_f32_variant_t *v, const kctx_t *k, int transA, int transB,
                  int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                  const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                  const gemm_epilogue_t *epi)
{
    if (M <= 0 || N <= 0)
        return;
    gjob_t j;
    gemm_kern_t kn;
    gemm_kern_from_f32(v, &kn);
    job_init(&j, &kn, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, epi);
    j.v = v;
    /* Both operands packed here and a C larger than L2: every K block reads
     * and writes all of C from L3 or memory, so K blocks twice as long (the
     * B micro-panel then streams from L2 rather than staying in L1, which
     * the A panels' reuse of it covers). Xeon, KC 192 -> 384 alternating:
     * 2048^3 1 thread 183-189 -> 186-199 GFLOP/s, 2 threads 358-372 ->
     * 390-398; 1024^3 183-191 -> 196-197 and 357-374 -> 349-387; with C
     * within L2 (128 x 1536 x 384, 512 x 768 x 3072) the longer blocks ran
     * level or up to 10 % slower, so those keep KC. Only for the
     * 32-wide AVX-512 tile: the AVX2 6x16 one (whose KC is 384 already on
     * that Xeon's 48 KB L1) ran level to 2 % slower with it. Pre-packed
     * operands keep the KC they were packed with. */
    if (kn.b_in_l1 && kn.nr >= 32 && base_cpu()->l2 > 0 &&
        (double)M * (double)N * sizeof(float) > (double)base_cpu()->l2) {
        gemm_blocking_t nominal;
        gemm_blocking_b_in_l1(kn.mr, kn.nr, (int)sizeof(float), &nominal);
        blocking_b_in_l1_kc(kn.mr, kn.nr, (int)sizeof(float), 2 * nominal.kc, &j.bl);
        j.bl.kc = gemm_kc_for(&j.bl, K, kn.kg);
    }
    /* no packing when it cannot pay: few rows of A (each B element is used
     * by at most 16 FMAs anyway) or a product that fits in L1/L2 */
    j.direct = !j.tb && (M <= 16 || (double)M * (double)N * (double)j.K <= 48.0 * 48.0 * 48.0);
    (void)gemm_launch(&j, k); /* an error is left in base_error */
}

void gemm_f32_ex(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                 float alpha, const float *A, int64_t lda, const float *B, int64_t ldb,
                 float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi)
{
    gemm_f32_run(gemm_f32_select(), k, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C,
                 ldc, epi);
}

void gemm_f32(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
              float alpha, const float *A, int64_t lda, const float *B, int64_t ldb, float beta,
              float *C, int64_t ldc)
{
    gemm_f32_run(gemm_f32_select(), k, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C,
                 ldc, NULL);
}

/* ---- pre-packed B ---- */

#define PACKED_MAGIC 0x42504347u /* "GCPB" */
#define PACKED_A_MAGIC 0x41504347u /* "GCPA": packed A */
#define PACKED_HEADER GEMM_PACKED_HEADER

typedef gemm_packed_header_t packed_header_t; /* variant: into gemm_f32_variants */

size_t gemm_f32_packed_b_size(int64_t K, int64_t N)
{
    const gemm_f32_variant_t *v = gemm_f32_select();
    if (K < 0 || N < 0)
        return 0;
    int64_t npad = (N + v->nr - 1) / v->nr * v->nr;
    return PACKED_HEADER + (size_t)K * (size_t)npad * sizeof(float);
}

/* Checks a pre-packing call (what = its name; rows x K to pack, rows being
 * N for B and M for A, padded to a multiple of pad) and writes the buffer's
 * header; h and kc out. */
static cairn_status_t packed_begin(const char *what, uint32_t magic, const gemm_f32_variant_t *v,
                                   int64_t K, int64_t rows, int pad, const void *src,
                                   void *packed, size_t size, packed_header_t *h)
{
    if (K < 0 || rows < 0)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s: negative size K=%lld x %lld", what,
                          (long long)K, (long long)rows);
    int64_t npad = (rows + pad - 1) / pad * pad;
    size_t need = PACKED_HEADER + (size_t)K * (size_t)npad * sizeof(float);
    if (!packed || (K * rows > 0 && !src))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s: null buffer or matrix", what);
    if (size < need)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: buffer of %zu bytes, K=%lld x %lld needs %zu", what, size,
                          (long long)K, (long long)rows, need);
    if ((uintptr_t)packed % BASE_ALIGN)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s: buffer must be %d-byte aligned",
                          what, BASE_ALIGN);
    gemm_blocking_t bl;
    gemm_f32_blocking(v, &bl);
    *h = (packed_header_t){magic, (int32_t)(v - gemm_f32_variants), K, rows,
                           gemm_kc_for(&bl, K, 1), npad};
    memcpy(packed, h, sizeof *h);
    return CAIRN_OK;
}

/* Checks a packed buffer's header before it is used (what = the caller,
 * magic = A's or B's): made by this build's packer for this CPU, with the
 * blocking this process would use for K and the padding the variant's tile
 * gives `rows` (N for B, M for A), so every read stays inside the buffer
 * whose size the caller checked against gemm_f32_packed_*_size. */
static cairn_status_t packed_check(const char *what, uint32_t magic, const packed_header_t *h,
                                   int64_t K, int64_t rows, int a_side)
{
    if (h->magic != magic || h->variant < 0 || h->variant >= gemm_f32_n_variants)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s: the buffer was not made by %s", what,
                          a_side ? "gemm_f32_prepack_a" : "gemm_f32_pack_b");
    if (h->K != K || h->N != rows)
        return base_error(CAIRN_ERR_SHAPE,
                          "%s: the operand was packed as %lld x %lld, called with %lld x %lld "
                          "(K x %s)",
                          what, (long long)h->K, (long long)h->N, (long long)K, (long long)rows,
                          a_side ? "M" : "N");
    const gemm_f32_variant_t *v = &gemm_f32_variants[h->variant];
    if (v->isa > base_cpu()->best_isa) /* not the CAIRN_ISA cap: no getenv per call */
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: the buffer was packed for the %s kernel, which this CPU cannot run",
                          what, v->name);
    gemm_blocking_t bl;
    gemm_f32_blocking(v, &bl);
    const int pad = a_side ? v->mr : v->nr;
    if (h->kc != gemm_kc_for(&bl, K, 1) || h->npad != (rows + pad - 1) / pad * pad)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "%s: the buffer's layout (kc %lld, padded %lld) is not this build's",
                          what, (long long)h->kc, (long long)h->npad);
    return CAIRN_OK;
}

cairn_status_t gemm_f32_pack_b(int transB, int64_t K, int64_t N, const float *B, int64_t ldb,
                               void *packed, size_t size)
{
    const gemm_f32_variant_t *v = gemm_f32_select();
    packed_header_t h;
    BASE_TRY(packed_begin("gemm_f32_pack_b", PACKED_MAGIC, v, K, N, v->nr, B, packed, size, &h));
    float *d = (float *)((char *)packed + PACKED_HEADER);
    for (int64_t pc = 0; pc < K; pc += h.kc) {
        int64_t kc = min64(h.kc, K - pc);
        (v->pack_b ? v->pack_b : gemm_f32_pack_b_block)(transB, B, ldb, pc, 0, kc, N, v->nr,
                                                        d + pc * h.npad);
    }
    return CAIRN_OK;
}

typedef struct gvjob {
    const gemm_f32_variant_t *v;
    const packed_header_t *h;
    const float *bp;
    int64_t M, N, K;
    float alpha;
    const float *A;
    int64_t rs_a, cs_a;
    float *C;
    int64_t ldc;
    const gemm_epilogue_t *epi;
    int tasks;
} gvjob_t;

static void gemv_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const gvjob_t *g = ctx;
    const int nr = g->v->nr;
    const int64_t panels = (g->N + nr - 1) / nr;
    for (size_t t = begin; t < end; t++) {
        int64_t p0, p1;
        split(panels, g->tasks, (int)t, &p0, &p1);
        const int64_t n0 = p0 * nr, n1 = min64(p1 * nr, g->N);
        if (n0 >= n1)
            continue;
        g->v->gemv_packed((int)g->M, g->K, g->h->kc, g->h->npad, g->alpha, g->A, g->rs_a,
                          g->cs_a, g->bp, n0, n1, g->C, g->ldc);
        if (g->epi)
            epi_block_scalar(g->epi, g->C, g->ldc, 0, g->M, n0, n1);
    }
}

static cairn_status_t packed_run(const kctx_t *k, int transA, int64_t M, int64_t N, int64_t K,
                                 float alpha, const float *A, int64_t lda, const void *packed,
                                 float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi,
                                 gemm_block_fn then, void *then_ctx)
{
    packed_header_t h;
    if (!packed)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "gemm_f32_packed: null packed B");
    memcpy(&h, packed, sizeof h);
    BASE_TRY(packed_check("gemm_f32_packed", PACKED_MAGIC, &h, K, N, 0));
    if (M <= 0 || N <= 0)
        return CAIRN_OK;
    const gemm_f32_variant_t *v = &gemm_f32_variants[h.variant];
    if (M <= 4 && beta == 0.0f && K > 0 && v->gemv_packed && !then) {
        /* a GEMV-like product (a classifier, a decoding step): reading B
         * is the work; A is used in place and no tile computes padding rows */
        gemm_epilogue_t local;
        float *copy;
        int slot;
        const gemm_epilogue_t *e =
            residual_apart(epi, C, M, N, ldc, sizeof(float), &local, &copy, &slot);
        if (epi && !e)
            return CAIRN_ERR_OUT_OF_MEMORY;
        gvjob_t g = {v, &h, (const float *)((const char *)packed + PACKED_HEADER), M, N, K, alpha,
                     A, transA ? 1 : lda, transA ? lda : 1, C, ldc, e, 1};
        int threads = k && k->pool && k->threads > 1 ? k->threads : 1;
        const int64_t panels = (N + v->nr - 1) / v->nr;
        if ((double)N * (double)K < (double)(1 << 17))
            threads = 1;
        g.tasks = (int)min64(threads, panels);
        base_pool_parallel_for_1d(g.tasks > 1 ? k->pool : NULL, (size_t)g.tasks, 1, gemv_task, &g);
        residual_apart_done(copy, slot);
        return CAIRN_OK;
    }
    gjob_t j;
    gemm_kern_t kn;
    gemm_kern_from_f32(v, &kn);
    job_init(&j, &kn, transA, 0, M, N, K, alpha, A, lda, NULL, 0, beta, C, ldc, epi);
    j.v = v;
    j.bl.kc = h.kc;
    j.packed = (const char *)packed + PACKED_HEADER;
    j.npad = h.npad;
    j.then = then;
    j.then_ctx = then_ctx;
    return gemm_launch(&j, k) ? CAIRN_ERR_OUT_OF_MEMORY : CAIRN_OK;
}

cairn_status_t gemm_f32_packed(const kctx_t *k, int transA, int64_t M, int64_t N, int64_t K,
                               float alpha, const float *A, int64_t lda, const void *packed,
                               float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi)
{
    return packed_run(k, transA, M, N, K, alpha, A, lda, packed, beta, C, ldc, epi, NULL, NULL);
}

cairn_status_t gemm_f32_packed_then(const kctx_t *k, int transA, int64_t M, int64_t N, int64_t K,
                                    const float *A, int64_t lda, const void *packed, float *C,
                                    int64_t ldc, gemm_block_fn then, void *ctx)
{
    if (!then)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "gemm_f32_packed_then: null hook");
    return packed_run(k, transA, M, N, K, 1.0f, A, lda, packed, 0.0f, C, ldc, NULL, then, ctx);
}

/* ---- pre-packed A ---- */


size_t gemm_f32_packed_a_size(int64_t M, int64_t K)
{
    const gemm_f32_variant_t *v = gemm_f32_select();
    if (K < 0 || M < 0)
        return 0;
    int64_t mpad = (M + v->mr - 1) / v->mr * v->mr;
    return PACKED_HEADER + (size_t)K * (size_t)mpad * sizeof(float);
}

cairn_status_t gemm_f32_prepack_a(int transA, int64_t M, int64_t K, const float *A, int64_t lda,
                                  void *packed, size_t size)
{
    const gemm_f32_variant_t *v = gemm_f32_select();
    /* the header's N field holds M; npad the padded M */
    packed_header_t h;
    BASE_TRY(packed_begin("gemm_f32_prepack_a", PACKED_A_MAGIC, v, K, M, v->mr, A, packed, size,
                          &h));
    float *d = (float *)((char *)packed + PACKED_HEADER);
    for (int64_t pc = 0; pc < K; pc += h.kc) {
        int64_t kc = min64(h.kc, K - pc);
        (v->pack_a ? v->pack_a : gemm_f32_pack_a)(transA, A, lda, 0, pc, M, kc, v->mr,
                                                  d + pc * h.npad);
    }
    return CAIRN_OK;
}

cairn_status_t gemm_f32_packed_a(const kctx_t *k, int transB, int64_t M, int64_t N, int64_t K,
                                 float alpha, const void *packed_a, const float *B, int64_t ldb,
                                 float beta, float *C, int64_t ldc, const gemm_epilogue_t *epi)
{
    packed_header_t h;
    if (!packed_a)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "gemm_f32_packed_a: null packed A");
    memcpy(&h, packed_a, sizeof h);
    BASE_TRY(packed_check("gemm_f32_packed_a", PACKED_A_MAGIC, &h, K, M, 1));
    if (M <= 0 || N <= 0)
        return CAIRN_OK;
    if (K > 0 && !B)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "gemm_f32_packed_a: null B");
    gjob_t j;
    gemm_kern_t kn;
    gemm_kern_from_f32(&gemm_f32_variants[h.variant], &kn);
    job_init(&j, &kn, 0, transB, M, N, K, alpha, NULL, 0, B, ldb, beta, C, ldc, epi);
    j.v = &gemm_f32_variants[h.variant];
    j.bl.kc = h.kc;
    j.packed_a = (const char *)packed_a + PACKED_HEADER;
    j.mpad_a = h.npad;
    return gemm_launch(&j, k) ? CAIRN_ERR_OUT_OF_MEMORY : CAIRN_OK;
}

/* ---- indirect B (convolution without im2col) ---- */

int gemm_f32_indb_min_n(void)
{
    const gemm_f32_variant_t *v = gemm_f32_select();
    return v->indb ? v->nr : 0;
}

typedef struct ijob {
    const gemm_f32_variant_t *v;
    const float *pa; /* packed A data */
    int64_t mpad, kc, M, K;
    const gemm_indb_t *b;
    float *C;
    int64_t ldc;
    const gemm_epilogue_t *epi;
    int64_t nt, np, mcb; /* tiles, A panels, panels per block of A kept in L2 */
    int64_t tpr;              /* tiles per output row when they are laid out by
                               * rows (the last one of a row partial when
                               * b->out_w is not a multiple of NR), else 0 */
    int64_t tasks_t, tasks_p; /* task grid: tile ranges x panel ranges */
    int fast_epi;             /* the epilogue is one gemm_indb_epi_t can express */
    gemm_indb_epi_t iepi;     /* its constant fields */
} ijob_t;

/* The clamp coding of gemm_indb_epi_t for act; -1 when it has none. */
static int indb_clamp_of(gemm_act_t act, float lo, float hi, float *l, float *h)
{
    switch (act) {
    case GEMM_ACT_NONE:
        *l = *h = 0.0f;
        return 0;
    case GEMM_ACT_RELU:
        *l = 0.0f, *h = 0.0f;
        return 1;
    case GEMM_ACT_CLIP:
        *l = lo, *h = hi;
        return 2;
    default:
        return -1;
    }
}

#define INDB_MAX_PANELS 32 /* A panels whose tiles are kept at once (12 KB of AVX2 tiles) */
/* k steps per pass: the tile's B rows (16 KB when aligned, up to 32 when
 * not) stay in L1 or close to it across the panels. 256 rather than 128
 * (fewer passes through the tile buffer): ResNet-50's 256 -> 64 1x1 1.245
 * -> 1.22 ms, its 7x7 stem (K = 147, one pass) 2.69 -> 2.60 ms; 192 was
 * no better than 128. */
#define INDB_KB 256

/* One output tile: columns [s0, s1) of the product, computed from j0 =
 * min(s0, N - NR) (the last tile is shifted back so that no column past N
 * is read), for the A panels [p0, p1) (at most INDB_MAX_PANELS). K is
 * walked in INDB_KB-step passes over all the panels, so the B rows of a
 * pass are read from L1 by every panel after the first. */
static void indb_tile(const ijob_t *j, int64_t s0, int64_t s1, int64_t p0, int64_t p1, float *T)
{
    const gemm_f32_variant_t *v = j->v;
    const int mr = v->mr, nr = v->nr;
    const gemm_indb_t *b = j->b;
    const int64_t j0 = s0 + nr <= b->N ? s0 : b->N - nr;
    const size_t tsz = (size_t)(mr * nr);
    /* the runs of columns that land next to each other in C: tile column,
     * length, C column */
    int64_t run_c[32], run_n[32], run_d[32];
    int nrun = 0;
    for (int64_t c = s0; c < s1 && nrun < 32;) {
        if (b->in_w > 0) {
            const int64_t row = c / b->in_w, col = c % b->in_w;
            if (col >= b->out_w) {
                c += b->in_w - col;
                continue;
            }
            run_n[nrun] = min64(b->out_w - col, s1 - c);
            run_d[nrun] = row * b->out_w + col;
        } else {
            run_n[nrun] = s1 - c;
            run_d[nrun] = c;
        }
        run_c[nrun] = c - j0;
        c += run_n[nrun++];
    }
    const float *epi_bias =
        j->epi && j->epi->bias && j->epi->bias_kind == GEMM_BIAS_ROW ? j->epi->bias : NULL;
    if (v->indb_half && j->fast_epi && nrun == 1 && run_n[0] == nr / 2 && s1 - s0 == nr / 2 &&
        j->K <= j->kc) {
        /* an output row's last half tile (tiles by rows): its own kernel,
         * no padding columns, the whole K in one call */
        gemm_indb_epi_t eh = j->iepi;
        for (int64_t p = p0; p < p1; p++) {
            const int64_t i = p * mr;
            eh.bias = epi_bias ? epi_bias + i : NULL;
            eh.res = j->epi && j->epi->residual ? j->epi->residual + i * j->epi->ldr + run_d[0]
                                                : NULL;
            eh.C = j->C + i * j->ldc + run_d[0];
            v->indb_half((int)min64(mr, j->M - i), j->K, j->pa + p * mr * j->K, b->base + s0,
                         b->off, &eh);
        }
        return;
    }
    gemm_tile_epi_t te;
    /* the kernel's own epilogue: one run of NR columns at the tile's start */
    gemm_indb_epi_t ep;
    const int fast = j->fast_epi && nrun == 1 && run_c[0] == 0 && run_n[0] == nr;
    if (fast) {
        ep = j->iepi;
    }
    for (int64_t ks = 0; ks < j->K;) {
        /* the pass [ks, ke) stays inside one packed K block of A */
        const int64_t pc = ks / j->kc * j->kc, kcb = min64(j->kc, j->K - pc);
        const int64_t ke = min64(ks + INDB_KB, pc + kcb);
        const int last = ke == j->K;
        for (int64_t p = p0; p < p1; p++) {
            float *t = T + (size_t)(p - p0) * tsz;
            if (last && p + 2 < p1 && nrun) {
                /* C (and residual) rows of the panel stored two kernels
                 * from now: rows ldc apart, which no prefetcher follows */
                const int64_t i2 = (p + 2) * mr, rows = min64(mr, j->M - i2);
                const int64_t d0 = run_d[0], d1 = run_d[nrun - 1] + run_n[nrun - 1] - 1;
                const float *res = j->epi ? j->epi->residual : NULL;
                for (int64_t r = 0; r < rows; r++) {
                    __builtin_prefetch(j->C + (i2 + r) * j->ldc + d0, 1, 3);
                    __builtin_prefetch(j->C + (i2 + r) * j->ldc + d1, 1, 3);
                    if (res) {
                        __builtin_prefetch(res + (i2 + r) * j->epi->ldr + d0, 0, 3);
                        __builtin_prefetch(res + (i2 + r) * j->epi->ldr + d1, 0, 3);
                    }
                }
            }
            const int64_t i = p * mr;
            const float *ap = j->pa + pc * j->mpad + p * mr * kcb + (ks - pc) * mr;
            if (last && fast && i + mr > j->M && ks == 0 && v->indb_part) {
                /* the partial last panel, the whole K in this pass: its
                 * rows alone, stored from the registers */
                ep.bias = epi_bias ? epi_bias + i : NULL;
                ep.res = j->epi && j->epi->residual
                             ? j->epi->residual + i * j->epi->ldr + run_d[0]
                             : NULL;
                ep.C = j->C + i * j->ldc + run_d[0];
                v->indb_part((int)(j->M - i), ke - ks, ap, b->base + j0, b->off + ks, &ep);
                continue;
            }
            if (last && fast && i + mr <= j->M) {
                /* a full tile with a simple epilogue: the kernel applies it
                 * and stores to C from its registers */
                ep.bias = epi_bias ? epi_bias + i : NULL;
                ep.res = j->epi && j->epi->residual
                             ? j->epi->residual + i * j->epi->ldr + run_d[0]
                             : NULL;
                ep.C = j->C + i * j->ldc + run_d[0];
                v->indb(ke - ks, ap, b->base + j0, b->off + ks, t, ks > 0, &ep);
                continue;
            }
            v->indb(ke - ks, ap, b->base + j0, b->off + ks, t, ks > 0, NULL);
            if (!last)
                continue;
            for (int r = 0; r < nrun; r++) {
                const gemm_tile_epi_t *e = tile_epi(j->epi, i, run_d[r], &te);
                v->tile_store(t + run_c[r], (int)min64(mr, j->M - i), (int)run_n[r],
                              j->C + i * j->ldc + run_d[r], j->ldc, e);
            }
        }
        ks = ke;
    }
}

static void indb_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const ijob_t *j = ctx;
    const int nr = j->v->nr;
    float T[INDB_MAX_PANELS * 16 * 32] __attribute__((aligned(64)));
    for (size_t t = begin; t < end; t++) {
        int64_t t0, t1, p0, p1;
        split(j->nt, (int)j->tasks_t, (int)((int64_t)t % j->tasks_t), &t0, &t1);
        split(j->np, (int)j->tasks_p, (int)((int64_t)t / j->tasks_t), &p0, &p1);
        /* a block of A panels stays in L2 while this task's tiles go by */
        for (int64_t q0 = p0; q0 < p1; q0 += j->mcb) {
            const int64_t q1 = min64(q0 + j->mcb, p1);
            for (int64_t tt = t0; tt < t1; tt++) {
                /* by rows: every tile is NR columns of one output row (or
                 * the row's last, fewer), so the kernel stores the full ones
                 * from its registers */
                const int64_t row0 = j->tpr ? tt / j->tpr * j->b->in_w : 0;
                const int64_t s0 = j->tpr ? row0 + tt % j->tpr * nr : tt * nr;
                const int64_t s1 = j->tpr ? min64(s0 + nr, row0 + j->b->out_w) : s0 + nr;
                indb_tile(j, s0, min64(s1, j->b->N), q0, q1, T);
            }
        }
    }
}

cairn_status_t gemm_f32_packed_a_indb(const kctx_t *k, int64_t M, int64_t K,
                                      const void *packed_a, const gemm_indb_t *b, float *C,
                                      int64_t ldc, const gemm_epilogue_t *epi)
{
    packed_header_t h;
    if (!packed_a || !b || !C || (K > 0 && (!b->base || !b->off)))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "gemm_f32_packed_a_indb: null packed A, B description or C");
    memcpy(&h, packed_a, sizeof h);
    BASE_TRY(packed_check("gemm_f32_packed_a_indb", PACKED_A_MAGIC, &h, K, M, 1));
    const gemm_f32_variant_t *v = &gemm_f32_variants[h.variant];
    if (!v->indb || !v->tile_store || v->nr > 32 || v->mr > 16)
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "gemm_f32_packed_a_indb: the %s kernel has no indirect-B form",
                          v->name);
    if (b->N < v->nr || K < 1 || (b->in_w > 0 && (b->out_w < 1 || b->out_w > b->in_w)) ||
        (b->in_w > 0 && b->in_w < 2 && v->nr > 64))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                          "gemm_f32_packed_a_indb: N=%lld (at least %d), K=%lld (at least 1), "
                          "column map %lld -> %lld",
                          (long long)b->N, v->nr, (long long)K, (long long)b->in_w,
                          (long long)b->out_w);
    if (epi && epi->bias && epi->bias_kind == GEMM_BIAS_COL)
        return base_error(CAIRN_ERR_UNSUPPORTED,
                          "gemm_f32_packed_a_indb: a column bias is not supported");
    if (M <= 0)
        return CAIRN_OK;
    ijob_t j = {v, (const float *)((const char *)packed_a + PACKED_HEADER), h.npad, h.kc, M, K,
                b, C, ldc, epi, (b->N + v->nr - 1) / v->nr, h.npad / v->mr, 1, 0, 1, 1, 0, {0}};
    /* output rows a multiple of NR wide (MobileNet's and ResNet's 112-wide
     * stems with the AVX2 tiles): tiles by rows instead of NR-column strides
     * of B's columns, which would straddle the in_w - out_w dropped columns
     * of each row and go through the tile buffer. Rows of at least 3 NR with
     * a short K take the same layout with a partial last tile per row (which
     * alone goes through the buffer): MobileNetV2's stem with the 32-wide
     * AVX-512 tiles (112 = 3 x 32 + 16, K = 27) 0.30-0.31 -> 0.28-0.29 ms;
     * ResNet-50's (K = 147) was 4 % slower that way (its 12 % of extra
     * columns outweighed the buffer). With a half-tile kernel (indb_half)
     * a row's last 16 columns cost no extra columns, and rows an odd
     * multiple of NR / 2 wide go by rows whatever K (one K block): the
     * stems 1.259 -> 1.136 ms (ResNet-50) and 0.200 -> 0.165 (MobileNetV2),
     * Xeon, 1 thread. */
    if (b->in_w > 0 && (b->N - b->out_w) % b->in_w == 0 &&
        (b->out_w % v->nr == 0 || (b->out_w >= 3 * v->nr && K <= 64) ||
         (v->indb_half && b->out_w % v->nr == v->nr / 2 && K <= (int64_t)h.kc))) {
        j.tpr = (b->out_w + v->nr - 1) / v->nr;
        j.nt = ((b->N - b->out_w) / b->in_w + 1) * j.tpr;
    }
    /* A panels per block: the block (rows x K) in half the L2 */
    size_t l2 = base_cpu()->l2 ? base_cpu()->l2 : 1024 * 1024;
    j.mcb = (int64_t)(l2 / 2 / ((size_t)K * sizeof(float) * (size_t)v->mr));
    j.mcb = j.mcb < 1 ? 1 : j.mcb > INDB_MAX_PANELS ? INDB_MAX_PANELS : j.mcb;
    int threads = k && k->pool && k->threads > 1 ? k->threads : 1;
    if ((double)M * (double)b->N * (double)K < (double)(1 << 18))
        threads = 1;
    if (threads > 1) {
        if (j.nt >= 2 * (int64_t)threads) {
            /* split the tiles, one contiguous run of pixel tiles per
             * thread: the same pixels as the steps before and after that
             * split pixels (depthwise row bands, Winograd tile-row bands,
             * fused blocks), so what one thread wrote the same thread
             * reads. Up to 4 tasks per thread claimed dynamically measured
             * the same on ResNet-50 while the vCPUs shared an L3 and
             * slower on MobileNetV2 while they did not (the 32 -> 16 1x1
             * after the first depthwise 0.26 against 0.15 ms) */
            j.tasks_t = threads;
        } else {
            j.tasks_p = min64(threads, j.np);
        }
    }
    memset(&j.iepi, 0, sizeof j.iepi);
    j.iepi.ldc_bytes = ldc * (int64_t)sizeof(float);
    if (!epi) {
        j.fast_epi = 1;
    } else if (epi->scale == 1.0f) {
        int a = indb_clamp_of(epi->act, epi->clip_lo, epi->clip_hi, &j.iepi.lo, &j.iepi.hi);
        int pa = indb_clamp_of(epi->post_act, epi->post_lo, epi->post_hi, &j.iepi.plo,
                               &j.iepi.phi);
        j.fast_epi = a >= 0 && pa >= 0;
        j.iepi.act = a;
        j.iepi.post = pa;
        j.iepi.ldr_bytes = epi->ldr * (int64_t)sizeof(float);
    }
    const int64_t tasks = j.tasks_t * j.tasks_p;
    base_pool_parallel_for_1d(tasks > 1 ? k->pool : NULL, (size_t)tasks, 1, indb_task, &j);
    return CAIRN_OK;
}

/* ---- indirect A (convolution over small planes) ---- */

int gemm_f32_inda_available(void) { return gemm_f32_select()->inda != NULL; }

int gemm_f32_packed_kind(const void *packed)
{
    uint32_t magic;
    if (!packed)
        return 0;
    memcpy(&magic, packed, sizeof magic);
    return magic == PACKED_A_MAGIC ? 'A' : magic == PACKED_MAGIC ? 'B' : 0;
}

typedef struct ajob {
    const gemm_f32_variant_t *v;
    const packed_header_t *h;
    const float *bp;
    int64_t M, K;
    const gemm_inda_t *a;
    float *C;
    int64_t ldc;
    const gemm_epilogue_t *epi;
    int64_t nch, npx;       /* channel panels, pixel tiles */
    int64_t tasks_c, tasks_p; /* task grid: channel ranges x pixel ranges */
    int px_major;           /* C[p * ldc + m] (gemm_f32_packed_inda_px), else C[m * ldc + p] */
} ajob_t;

/* pixel tiles whose accumulators one pass over a K block keeps */
#define INDA_GROUP 32

static void inda_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const ajob_t *j = ctx;
    const gemm_f32_variant_t *v = j->v;
    const int mr = v->mr, nr = v->nr;
    /* one mr x nr accumulator tile per pixel tile of the group */
    float T[INDA_GROUP * 16 * 32] __attribute__((aligned(64)));
    const float *px[INDA_GROUP][16];
    gemm_tile_epi_t te;
    for (size_t t = begin; t < end; t++) {
        int64_t c0, c1, q0, q1;
        split(j->nch, (int)j->tasks_c, (int)((int64_t)t % j->tasks_c), &c0, &c1);
        split(j->npx, (int)j->tasks_p, (int)((int64_t)t / j->tasks_c), &q0, &q1);
        /* Each channel panel of B is read once: a K block of it (kc x NR,
         * 16 KB) stays in L1 while every pixel tile of the group takes its
         * share, the tiles' accumulators waiting in T between blocks. With
         * the whole K per tile instead, a long K (ResNet-50's 512-channel
         * 3x3 layers: a 295 KB panel) came from L2 or L3 once per tile.
         * The (small) input planes stay in L2 while the panels go by. */
        for (int64_t g0 = q0; g0 < q1; g0 += INDA_GROUP) {
            const int64_t g1 = min64(g0 + INDA_GROUP, q1);
            for (int64_t q = g0; q < g1; q++) {
                const int64_t p0 = q * mr, npx = min64(mr, j->a->P - p0);
                for (int r = 0; r < mr; r++) /* past P: repeat the last pixel */
                    px[q - g0][r] = j->a->base + j->a->pix[p0 + (r < npx ? r : npx - 1)];
            }
            const int64_t px0 = g0 * mr, px1 = min64(g1 * mr, j->a->P);
            const float *res = j->epi ? j->epi->residual : NULL;
            for (int64_t c = c0; c < c1; c++) {
                const int64_t jr = c * nr, nch = min64(nr, j->M - jr);
                /* The panel's rows of C (and of the residual) are stored a
                 * few pixels at a time from the tiles at its end, each
                 * line first touched there: channel rows are short (49
                 * pixels on ResNet-50's 7x7 stage), so the misses come one
                 * after the other, 3 lines per row. Asked for now, they
                 * arrive while the panel computes (ResNet-50's 512 -> 2048
                 * 1x1s in the model: 1.6-1.7 -> 1.4-1.55 ms). */
                for (int64_t ch = 0; ch < nch && !j->px_major; ch++) {
                    const float *cr = j->C + (jr + ch) * j->ldc;
                    for (int64_t q = px0; q < px1; q += 16)
                        __builtin_prefetch(cr + q, 1, 3);
                    __builtin_prefetch(cr + px1 - 1, 1, 3);
                    if (res) {
                        const float *rr = res + (jr + ch) * j->epi->ldr;
                        for (int64_t q = px0; q < px1; q += 16)
                            __builtin_prefetch(rr + q, 0, 3);
                        __builtin_prefetch(rr + px1 - 1, 0, 3);
                    }
                }
                int64_t pc = 0;
                do {
                    const int64_t kcb = min64(j->h->kc, j->K - pc);
                    const float *bp = j->bp + pc * j->h->npad + jr * kcb;
                    /* the panel's next K block, or after its last the
                     * next panel's first (weights: from L3 or memory in a
                     * model), into L2 a slice per tile while this one
                     * runs; spread over the tile's k loop where the kernel
                     * can (as gemm_f32_variant_t.uk_pf: in one burst per
                     * tile, ResNet-50's 7x7 3x3s took 2.1 ms in the model
                     * against 1.4 with warm weights) */
                    const int64_t pc2 = pc + kcb < j->K ? pc + kcb : 0;
                    const int64_t kcb2 = min64(j->h->kc, j->K - pc2);
                    const int64_t jr2 = pc2 > 0 ? jr : jr + nr;
                    const char *bn = pc2 > 0 || c + 1 < c1
                                         ? (const char *)(j->bp + pc2 * j->h->npad + jr2 * kcb2)
                                         : NULL;
                    const size_t bnb = bn ? (size_t)(kcb2 * nr) * sizeof(float) : 0;
                    const size_t bsl = (bnb / (size_t)(g1 - g0) + 64) / 64 * 64;
                    for (int64_t q = g0; q < g1; q++) {
                        const size_t o0 = (size_t)(q - g0) * bsl;
                        const size_t o1 = o0 + bsl < bnb ? o0 + bsl : bnb;
                        const int64_t npx = min64(mr, j->a->P - q * mr);
                        const int part = npx < mr && v->inda_part; /* the last tile: its pixels */
                        /* a last channel panel of fewer than NR channels */
                        const int narrow = !part && nch < nr && v->inda_narrow;
                        const int spread = !part && (narrow || v->inda_pf) && o0 < o1;
                        if (!spread)
                            for (size_t o = o0; o < o1; o += 64)
                                __builtin_prefetch(bn + o, 0, 2);
                        if (part)
                            v->inda_part((int)npx, kcb, px[q - g0], j->a->off + pc, bp,
                                         T + (q - g0) * mr * nr, pc > 0);
                        else if (narrow)
                            v->inda_narrow((int)nch, kcb, px[q - g0], j->a->off + pc, bp,
                                           T + (q - g0) * mr * nr, pc > 0,
                                           spread ? bn + o0 : NULL,
                                           spread ? (int64_t)((o1 - o0 + 63) / 64) : 0);
                        else if (spread)
                            v->inda_pf(kcb, px[q - g0], j->a->off + pc, bp,
                                       T + (q - g0) * mr * nr, pc > 0, bn + o0,
                                       (int64_t)((o1 - o0 + 63) / 64));
                        else
                            v->inda(kcb, px[q - g0], j->a->off + pc, bp, T + (q - g0) * mr * nr,
                                    pc > 0);
                    }
                    pc += kcb;
                } while (pc < j->K);
                for (int64_t q = g0; q < g1; q++) {
                    const int64_t p0 = q * mr, npx = min64(mr, j->a->P - p0);
                    if (j->px_major) { /* pixel p0's row of C, channel jr */
                        v->tile_store(T + (q - g0) * mr * nr, (int)npx, (int)nch,
                                      j->C + p0 * j->ldc + jr, j->ldc,
                                      tile_epi(j->epi, p0, jr, &te));
                        continue;
                    }
                    /* C's row jr + i is channel jr + i: the epilogue view at
                     * (channel jr, pixel p0) */
                    const gemm_tile_epi_t *e = tile_epi(j->epi, jr, p0, &te);
                    v->tile_store_t(T + (q - g0) * mr * nr, (int)npx, (int)nch,
                                    j->C + jr * j->ldc + p0, j->ldc, e);
                }
            }
        }
    }
}

static cairn_status_t packed_inda(const char *fn, int px_major, const kctx_t *k, int64_t M,
                                  int64_t K, const void *packed_b, const gemm_inda_t *a, float *C,
                                  int64_t ldc, const gemm_epilogue_t *epi)
{
    packed_header_t h;
    if (!packed_b || !a || !C || (K > 0 && (!a->base || !a->pix || !a->off)))
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s: null packed B, A description or C",
                          fn);
    memcpy(&h, packed_b, sizeof h);
    BASE_TRY(packed_check(fn, PACKED_MAGIC, &h, K, M, 0));
    const gemm_f32_variant_t *v = &gemm_f32_variants[h.variant];
    if (!v->inda || !v->tile_store_t || !v->tile_store || v->mr > 16 || v->nr > 32)
        return base_error(CAIRN_ERR_UNSUPPORTED, "%s: the %s kernel has no indirect-A form", fn,
                          v->name);
    if (K < 1 || a->P < 1)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "%s: K=%lld and P=%lld must be at least 1",
                          fn, (long long)K, (long long)a->P);
    if (epi && epi->bias && epi->bias_kind == (px_major ? GEMM_BIAS_ROW : GEMM_BIAS_COL))
        return base_error(CAIRN_ERR_UNSUPPORTED, "%s: a bias per pixel is not supported", fn);
    if (M <= 0)
        return CAIRN_OK;
    ajob_t j = {v, &h, (const float *)((const char *)packed_b + PACKED_HEADER), M, K, a, C, ldc,
                epi, (M + v->nr - 1) / v->nr, (a->P + v->mr - 1) / v->mr, 1, 1, px_major};
    int threads = k && k->pool && k->threads > 1 ? k->threads : 1;
    if ((double)M * (double)a->P * (double)K < (double)(1 << 18))
        threads = 1;
    /* Weights up to 1.5 L2: split the pixels instead, one contiguous run
     * per thread, each thread streaming all the weights: it then reads
     * only its rows of the input (copied or produced by the same thread
     * when the steps around split pixels too) and writes only its pixels
     * of the output, which the next step reads by pixels. ResNet-50 on 2
     * threads, per-step medians of 7 profiles: layer2.0's 3x3/2 (590 KB of
     * weights) 0.771 -> 0.688 ms, layer3.0's (2.4 MB) 0.695 -> 0.673;
     * layer4's (9.4 MB) 3-4 % slower that way, so they keep the channels. */
    const size_t l2 = base_cpu()->l2 ? base_cpu()->l2 : 512 * 1024;
    const int wsplit_px = (double)K * (double)M * sizeof(float) <= 1.5 * (double)l2;
    if (threads > 1) {
        if (wsplit_px && j.npx >= 2 * (int64_t)threads) {
            j.tasks_p = threads;
        } else if (j.nch >= 2 * (int64_t)threads) {
            /* split the channels (each thread reads only its weights); up to
             * 4 tasks per thread, claimed dynamically */
            int per = 4;
            while (per > 1 && j.nch < 2 * (int64_t)threads * per)
                per /= 2;
            j.tasks_c = threads * per;
        } else {
            j.tasks_p = min64(threads, j.npx);
        }
    }
    const int64_t tasks = j.tasks_c * j.tasks_p;
    base_pool_parallel_for_1d(tasks > 1 ? k->pool : NULL, (size_t)tasks, 1, inda_task, &j);
    return CAIRN_OK;
}

cairn_status_t gemm_f32_packed_inda(const kctx_t *k, int64_t M, int64_t K, const void *packed_b,
                                    const gemm_inda_t *a, float *C, int64_t ldc,
                                    const gemm_epilogue_t *epi)
{
    return packed_inda("gemm_f32_packed_inda", 0, k, M, K, packed_b, a, C, ldc, epi);
}

cairn_status_t gemm_f32_packed_inda_px(const kctx_t *k, int64_t M, int64_t K,
                                       const void *packed_b, const gemm_inda_t *a, float *C,
                                       int64_t ldc, const gemm_epilogue_t *epi)
{
    return packed_inda("gemm_f32_packed_inda_px", 1, k, M, K, packed_b, a, C, ldc, epi);
}

/* ---- strided batch ---- */

typedef struct bjob {
    const gemm_f32_variant_t *v;
    int ta, tb;
    int64_t M, N, K;
    float alpha, beta;
    const float *A, *B;
    float *C;
    int64_t lda, ldb, ldc, sa, sb, sc, sr;
    const gemm_epilogue_t *epi;
} bjob_t;

static void batch_item(const bjob_t *j, int64_t b, const kctx_t *k)
{
    gemm_epilogue_t e;
    const gemm_epilogue_t *ep = j->epi;
    if (ep && ep->residual && j->sr) {
        e = *ep;
        e.residual += b * j->sr;
        ep = &e;
    }
    gemm_f32_run(j->v, k, j->ta, j->tb, j->M, j->N, j->K, j->alpha, j->A + b * j->sa, j->lda,
                 j->B + b * j->sb, j->ldb, j->beta, j->C + b * j->sc, j->ldc, ep);
}

static void batch_task(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    for (size_t b = begin; b < end; b++)
        batch_item(ctx, (int64_t)b, NULL);
}

void gemm_f32_batched(const kctx_t *k, int transA, int transB, int64_t M, int64_t N, int64_t K,
                      float alpha, const float *A, int64_t lda, int64_t stride_a, const float *B,
                      int64_t ldb, int64_t stride_b, float beta, float *C, int64_t ldc,
                      int64_t stride_c, int64_t batch, const gemm_epilogue_t *epi,
                      int64_t stride_r)
{
    if (batch <= 0 || M <= 0 || N <= 0)
        return;
    bjob_t j = {gemm_f32_select(), transA, transB, M, N, K, alpha, beta, A, B, C,
                lda, ldb, ldc, stride_a, stride_b, stride_c, stride_r, epi};
    int threads = k && k->pool && k->threads > 1 ? k->threads : 1;
    /* enough items for every thread: one item per task, each single-threaded;
     * otherwise each item uses all threads */
    if (threads > 1 && batch >= threads) {
        base_pool_parallel_for_1d(k->pool, (size_t)batch, 1, batch_task, &j);
        return;
    }
    for (int64_t b = 0; b < batch; b++)
        batch_item(&j, b, k);
}
