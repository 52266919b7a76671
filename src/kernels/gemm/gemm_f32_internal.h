/*
 * Internals of the optimised f32 GEMM shared by the driver (gemm.c), the
 * packers (pack.c), the variant table (variants.c) and the per-ISA
 * micro-kernels (x86_avx512.c, x86_avx2.c, ukernel_ref.c). Not for use
 * outside src/kernels/gemm and its tests.
 *
 * A micro-kernel computes one MR x NR tile of C from a K-slice of A and B:
 *   C[r][c] = alpha * sum_k a(r,k) * b(k,c) + beta * C[r][c]   (r < m, c < n)
 * with a(r,k) = A[r*rs_a + k*cs_a] and b(k,c) = B[k*ldb + c]. rs_a == 0
 * marks packed operands: then a(r,k) = A[k*MR + r], ldb == NR, and both are
 * zero-padded to the full tile, so the kernel may read all of it. Otherwise
 * ("direct" mode, unpacked operands, rs_a >= 1) rows >= m and columns >= n
 * are never read.
 * beta == 0 never reads C. e, when not NULL, is the fused epilogue with its
 * pointers already offset to the tile's first row/column.
 */
#ifndef CAIRN_KERNELS_GEMM_F32_INTERNAL_H
#define CAIRN_KERNELS_GEMM_F32_INTERNAL_H

#include "kernels/gemm/gemm.h"

#include <stddef.h>
#include <stdint.h>

typedef struct gemm_tile_epi {
    const float *bias_row; /* bias of the tile's row 0, or NULL */
    const float *bias_col; /* bias of the tile's column 0, or NULL */
    gemm_act_t act;
    float lo, hi, scale;
    const float *res; /* residual at the tile's (0, 0), or NULL */
    int64_t ldr;
    gemm_act_t post_act; /* after the residual add (gemm_epilogue_t.post_act) */
    float post_lo, post_hi;
} gemm_tile_epi_t;

/* The epilogue an indirect-B kernel applies itself to a full tile whose
 * NR columns are contiguous in C: v += C (acc_c), bias[r] + bcol[c]; v = clamp(v) (act 0:
 * none, 1: max(v, lo), 2: min(max(v, lo), hi)); v += res row r; v =
 * clamp with post, plo, phi; C row r = v. Rows are ldr_bytes / ldc_bytes
 * apart. The AVX2 kernel reads the fields at these fixed offsets. */
typedef struct gemm_indb_epi {
    const float *bias; /* 0: the tile row 0's bias, or NULL */
    const float *res;  /* 8: the residual at the tile's (0, 0), or NULL */
    int64_t ldr_bytes; /* 16 */
    float *C;          /* 24 */
    int64_t ldc_bytes; /* 32 */
    int32_t act, post; /* 40, 44 */
    float lo, hi;      /* 48, 52 */
    float plo, phi;    /* 56, 60 */
    const float *bcol; /* 64: the tile column 0's bias (a bias per column), or NULL */
    int32_t acc_c;     /* 72: 1: C's current value is added first (a later K block) */
} gemm_indb_epi_t;
_Static_assert(offsetof(gemm_indb_epi_t, res) == 8 && offsetof(gemm_indb_epi_t, ldr_bytes) == 16 &&
                   offsetof(gemm_indb_epi_t, C) == 24 &&
                   offsetof(gemm_indb_epi_t, ldc_bytes) == 32 &&
                   offsetof(gemm_indb_epi_t, act) == 40 && offsetof(gemm_indb_epi_t, post) == 44 &&
                   offsetof(gemm_indb_epi_t, lo) == 48 && offsetof(gemm_indb_epi_t, hi) == 52 &&
                   offsetof(gemm_indb_epi_t, plo) == 56 && offsetof(gemm_indb_epi_t, phi) == 60 &&
                   offsetof(gemm_indb_epi_t, bcol) == 64 &&
                   offsetof(gemm_indb_epi_t, acc_c) == 72,
               "gemm_indb_epi_t layout (x86_avx2.c reads it at fixed offsets)");

typedef void (*gemm_f32_ukernel_fn)(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                    const float *B, int64_t ldb, float *C, int64_t ldc, int m,
                                    int n, float alpha, float beta, const gemm_tile_epi_t *e);

/* Few-row GEMM without an epilogue (m <= 16, op(B) = B, columns [0, n)):
 * C = alpha * A B + beta * C, streaming B row by row while the m x n block
 * of C stays in cache, so B (the big operand of decode-style products) is
 * read once, sequentially. A is read as a(r,k) = A[r*rs_a + k*cs_a]. */
typedef void (*gemm_f32_smallm_fn)(int m, int64_t n, int64_t K, float alpha, const float *A,
                                   int64_t rs_a, int64_t cs_a, const float *B, int64_t ldb,
                                   float beta, float *C, int64_t ldc);

typedef struct gemm_f32_variant {
    const char *name;
    cairn_isa_t isa; /* the ISA level it needs */
    int mr, nr;
    gemm_f32_ukernel_fn uk;
    gemm_f32_smallm_fn smallm; /* NULL: the micro-kernel in direct mode */
    /* packs op(A) like gemm_f32_pack_a (NULL: that portable one) */
    void (*pack_a)(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0, int64_t mc,
                   int64_t kc, int mr, float *dst);
    /* packs op(B) like gemm_f32_pack_b_block (NULL: that portable one) */
    void (*pack_b)(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0, int64_t kc,
                   int64_t nc, int nr, float *dst);
    /* loop order and blocking (see gemm_blocking_b_in_l1): 1 keeps a B
     * micro-panel in L1 while the A micro-panels stream from L2 (BLIS's
     * order), 0 keeps an A micro-panel in L1 while B streams from L2 */
    int b_in_l1;
    /* Indirect-B tile (NULL: the variant has none; gemm_f32_packed_a_indb
     * is then unavailable): T (MR x NR, row stride NR) = (acc ? T : 0) +
     * A's packed micro-panel (kc steps, as pack_a lays it out) times the kc
     * rows of NR floats at B + off[k]; with ep, the result goes through
     * ep's epilogue into ep->C instead of T (a full MR x NR tile). */
    void (*indb)(int64_t kc, const float *A, const float *B, const int64_t *off, float *T,
                 int acc, const struct gemm_indb_epi *ep);
    /* columns [0, n) of rows [0, m) of such a T through the epilogue e
     * (NULL: none) into C (row stride ldc) */
    void (*tile_store)(const float *T, int m, int n, float *C, int64_t ldc,
                       const gemm_tile_epi_t *e);
    /* m rows (any m; best <= 4) of op(A) (element (r, k) at A[r * rs_a + k *
     * cs_a]) times a B packed by gemm_f32_pack_b (K blocks of kc, padded
     * width npad): C columns [n0, n1) (n0 a multiple of NR) = alpha * A * B,
     * without packing A (NULL: the packed path runs instead) */
    void (*gemv_packed)(int m, int64_t K, int64_t kc, int64_t npad, float alpha, const float *A,
                        int64_t rs_a, int64_t cs_a, const float *Bp, int64_t n0, int64_t n1,
                        float *C, int64_t ldc);
    /* Indirect-A tile (NULL: none; gemm_f32_packed_inda is then
     * unavailable): T (MR x NR, row stride NR) = (acc ? T : 0) + the MR x kc
     * block A(r, k) = px[r][off[k]] times a kc x NR micro-panel of a B
     * packed by gemm_f32_pack_b */
    void (*inda)(int64_t kc, const float *const *px, const int64_t *off, const float *Bp,
                 float *T, int acc);
    /* such a T stored transposed: C[c * ldc + r] for r < npx, c < nch, through
     * e (bias_row per column of T, residual indexed like C) */
    void (*tile_store_t)(const float *T, int npx, int nch, float *C, int64_t ldc,
                         const gemm_tile_epi_t *e);
    /* A run of tiles in one call (NULL: none; the driver then calls uk per
     * tile), as uk would compute them one by one (alpha, beta, the
     * epilogue e given as its view at the run's first tile, NULL: none):
     *  - along C's rows (down = 0): C columns [0, n) of rows [0, m <= MR),
     *    the packed A micro-panel A times the packed B micro-panels
     *    B + t * step, one tile per NR columns;
     *  - down C's columns (down = 1): C rows [0, m) of columns [0, n <=
     *    NR), the A micro-panels A + t * step times B, one tile per MR
     *    rows; while tile t computes, slice t of the next B micro-panel
     *    (bnext, slices of `slice` bytes up to `bytes`) is prefetched.
     * With a short K (a 1x1 convolution over 16-64 channels) the per-tile
     * calls, epilogue views and prefetch set-up cost as much as the
     * tile's FMAs. */
    void (*ukrun)(int64_t kc, int down, const float *A, const float *B, int64_t step, float *C,
                  int64_t ldc, int64_t m, int64_t n, float alpha, float beta,
                  const gemm_tile_epi_t *e, const char *bnext, size_t slice, size_t bytes);
    /* The last, partial A panel of an indirect-B product (NULL: none; the
     * driver then goes through indb into T and tile_store): rows (1 to MR -
     * 1) rows and all NR columns of A's packed panel times the kc rows at B
     * + off[k] (the whole K in one call), through ep's epilogue (acc_c 0, no
     * column bias) into ep->C. Only those rows are computed and stored:
     * MobileNetV2's stem (32 = 5 x 6 + 2 channels) spent 1.3x a full panel's
     * time on its last one through T. */
    void (*indb_part)(int rows, int64_t kc, const float *A, const float *B, const int64_t *off,
                      const struct gemm_indb_epi *ep);
    /* The last, partial pixel tile of an indirect-A product (NULL: none;
     * inda runs it as a whole tile): rows [0, npx) of T (npx 1 to MR - 1)
     * as inda computes them, the other rows untouched. A 7x7 plane is 8
     * tiles of 6 pixels and one of 1, which the 6-row kernel took as long as
     * a full one. */
    void (*inda_part)(int npx, int64_t kc, const float *const *px, const int64_t *off,
                      const float *Bp, float *T, int acc);
    /* uk on packed panels (rs_a 0) that also moves the npf cache lines at pf
     * into L2, spread evenly over its k loop (NULL: none; the driver then
     * issues them itself before the call). The driver hands each tile a
     * slice of the next B micro-panel: weights packed ahead of time come
     * from L3 or memory, and a slice prefetched in one burst (up to a
     * hundred lines with few A panels) fills the line-fill buffers, so the
     * tile's own loads wait behind it and the transfer never overlaps the
     * FMAs (GPT-2 stack 156-159 -> 132 ms, ResNet-50 54-55 -> 51 ms on one
     * thread of a Xeon). */
    void (*uk_pf)(int64_t kc, const float *A, const float *B, float *C, int64_t ldc, int m, int n,
                  float alpha, float beta, const gemm_tile_epi_t *e, const char *pf, int64_t npf);
    /* inda with the same spread prefetch of npf lines at pf (NULL: none) */
    void (*inda_pf)(int64_t kc, const float *const *px, const int64_t *off, const float *Bp,
                    float *T, int acc, const char *pf, int64_t npf);
    /* Indirect-B half tile (NULL: none): rows [0, rows) of the packed A
     * panel times NR / 2 columns of the kc rows at B + off[k] (the whole K
     * in one call), through ep's epilogue (acc_c 0, no column bias) into
     * ep->C. An output row's last tile when its width is an odd multiple of
     * NR / 2 (the stems' 112 = 3 x 32 + 16 columns with the AVX-512 tile),
     * so that its tiles go by rows with no padding columns computed. */
    void (*indb_half)(int rows, int64_t kc, const float *A, const float *B, const int64_t *off,
                      const struct gemm_indb_epi *ep);
    /* uk on a packed A panel and a B micro-panel read from op(B) = B in
     * place (kc rows of NR floats, ldb apart, all NR columns inside B) that
     * also writes the panel, packed as pack_b lays it out, to Bp (NULL:
     * none; the driver then packs a block of B before its tiles). The first
     * A panel of a block packs each B micro-panel as it goes, so B is
     * packed by loads the tile makes anyway and stores that fit beside its
     * FMAs, instead of in a pass of its own. near: the panel's rows are in
     * L2 already (asked for by the packing tile before; see x86_avx512.c,
     * packb_steps), so the tile need not ask for them itself. */
    void (*uk_packb)(int64_t kc, const float *A, const float *B, int64_t ldb, float *Bp, float *C,
                     int64_t ldc, int m, float alpha, float beta, const gemm_tile_epi_t *e,
                     int near);
    /* The mirror for A (NULL: none; the driver then packs a block of A
     * before its tiles): a whole MR-row A micro-panel read from op(A) = A in
     * place (rows lda apart) times a packed B micro-panel, C columns [0, n)
     * stored, the panel written, packed as pack_a lays it out, to Ap; with
     * npf > 0 also uk_pf's spread prefetch of the npf lines at pf. The first
     * B panel of a block packs each full A micro-panel as it goes. Ap NULL:
     * nothing is stored, the tile only reads A in place (the driver's
     * in-place mode, where every tile of a whole panel comes here). */
    void (*uk_packa)(int64_t kc, const float *A, int64_t lda, float *Ap, const float *B, float *C,
                     int64_t ldc, int n, float alpha, float beta, const gemm_tile_epi_t *e,
                     const char *pf, int64_t npf);
    /* inda_pf on a channel panel narrower than NR (NULL: none; the driver
     * then runs inda's whole tile): a whole MR-pixel tile, columns [0, nch)
     * of T (nch 1 to NR - 1) as inda computes them, the others untouched
     * or computed, only costing less where the kernel has a narrower form.
     * An inverted-residual block's projection to 24 channels fills 24 of the
     * AVX-512 tile's 32 columns: a zmm and a ymm accumulator per row there
     * issue 3 of 4 halves on cores that split zmm operations in two. */
    void (*inda_narrow)(int nch, int64_t kc, const float *const *px, const int64_t *off,
                        const float *Bp, float *T, int acc, const char *pf, int64_t npf);
} gemm_f32_variant_t;

/* Best first. */
extern const gemm_f32_variant_t gemm_f32_variants[];
extern const int gemm_f32_n_variants;

/* The variant chosen once for this process (CAIRN_ISA caps it). */
const gemm_f32_variant_t *gemm_f32_select(void);
/* The best variant at or below `cap` that the CPU can run, ignoring the
 * environment (tests use it to exercise every variant in one process). */
const gemm_f32_variant_t *gemm_f32_variant_for(cairn_isa_t cap);

/* gemm_f32_ex on a given variant. */
void gemm_f32_run(const gemm_f32_variant_t *v, const kctx_t *k, int transA, int transB,
                  int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                  const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                  const gemm_epilogue_t *epi);
/* The same with a packed B made for variant v (see gemm_f32_pack_b_for). */
void gemm_f32_run_packed(const gemm_f32_variant_t *v, const kctx_t *k, int transA, int64_t M,
                         int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                         const float *packed_data, float beta, float *C, int64_t ldc,
                         const gemm_epilogue_t *epi);

/* Blocking for a variant: KC, MC, NC (MC a multiple of MR, NC of NR). */
typedef struct gemm_blocking {
    int64_t kc, mc, nc;
} gemm_blocking_t;
void gemm_f32_blocking(const gemm_f32_variant_t *v, gemm_blocking_t *b);
/* The same for any packed element size esz (bytes): KC stays a multiple of 16. */
void gemm_blocking_for(int mr, int nr, int esz, gemm_blocking_t *b);
/* Blocking for the B-in-L1 loop order: KC so that a KC x NR micro-panel of
 * B takes half of L1, MC so that the MC x KC block of A takes under a third
 * of L2, NC so that the KC x NC block of B takes a quarter of L3 (at most
 * 4096 columns). */
void gemm_blocking_b_in_l1(int mr, int nr, int esz, gemm_blocking_t *b);
/* The int8 / bf16 panels' blocking (A's micro-panel in L1, long K blocks). */
void gemm_blocking_lowp(int mr, int nr, int esz, gemm_blocking_t *b);
struct gemm_kern;
/* The nominal blocking a packed-path kernel runs with (one of the three
 * above, by its loop order and element size), before gemm_kc_for. */
void gemm_kern_blocking(const struct gemm_kern *kn, gemm_blocking_t *b);
/* The KC that a product of depth K runs with: b->kc evened out over K's blocks
 * (a multiple of 8 and of the K group kg). Packed B made ahead of time records it. */
int64_t gemm_kc_for(const gemm_blocking_t *b, int64_t K, int kg);

/* ---- the packed path for every element type ----
 *
 * The driver's loops (gemm.c) see a kernel only through this description:
 * packers that write op(A) / op(B) blocks into panels, and a micro-kernel
 * over packed panels. f32 variants are wrapped into one (gemm_kern_from_f32);
 * bf16 and int8 (lowp.c) fill their own. Panels hold K in groups of kg
 * consecutive values (1 for f32, 2 for bf16 dot / s16 pairs, 4 for VNNI): an
 * A panel stores element (r, k) at [(k/kg)*mr*kg + r*kg + k%kg], a B panel
 * (k, c) at [(k/kg)*nr*kg + c*kg + k%kg], each element esz bytes, the depth
 * padded with zeros to a whole group (kcp = kc rounded up to kg) and rows /
 * columns past the block zero. A panel takes kcp*mr*esz bytes.
 * The micro-kernel gets the true kc and the usual tile contract (alpha,
 * beta == 0 never reads C, epilogue e on the last K slice); C elements are
 * csz bytes. */
typedef struct gemm_kern gemm_kern_t;
struct gemm_kern {
    const char *name;
    cairn_isa_t isa;
    int mr, nr, kg, esz, csz;
    int srcsz; /* bytes of one element of A and of B as the caller passes them */
    const void *ctx; /* for the functions: the f32 variant the wrapped rows use */
    void (*pack_a)(const gemm_kern_t *kn, int transA, const void *A, int64_t lda, int64_t i0,
                   int64_t p0, int64_t mc, int64_t kc, void *dst);
    void (*pack_b)(const gemm_kern_t *kn, int transB, const void *B, int64_t ldb, int64_t p0,
                   int64_t j0, int64_t kc, int64_t nc, void *dst);
    void (*uk)(const gemm_kern_t *kn, int64_t kc, const void *A, const void *B, void *C,
               int64_t ldc, int m, int n, float alpha, float beta, const gemm_tile_epi_t *e);
    /* unpacked, allocation-free computation of an m x n block (used only
     * when the packing workspace cannot be allocated); no epilogue */
    void (*fallback)(int transA, int transB, int64_t m, int64_t n, int64_t K, float alpha,
                     const void *A, int64_t lda, const void *B, int64_t ldb, float beta, void *C,
                     int64_t ldc);
    int b_in_l1; /* loop order and blocking, as gemm_f32_variant_t.b_in_l1 */
    /* uk that also prefetches npf lines at pf into L2 spread over its k
     * loop, as gemm_f32_variant_t.uk_pf (NULL: none) */
    void (*uk_pf)(const gemm_kern_t *kn, int64_t kc, const void *A, const void *B, void *C,
                  int64_t ldc, int m, int n, float alpha, float beta, const gemm_tile_epi_t *e,
                  const char *pf, int64_t npf);
};

/* The header (GEMM_PACKED_HEADER bytes, the data after it) of a buffer
 * packed ahead: which packer made it (magic, and the index of its variant
 * in that packer's table), the operand's K x N (or M), the K block and
 * the padded width the data is laid out with. */
#define GEMM_PACKED_HEADER 64
typedef struct gemm_packed_header {
    uint32_t magic;
    int32_t variant;
    int64_t K, N, kc, npad;
} gemm_packed_header_t;

/* B (K x N, op(B) = B) packed ahead for kn: K blocks of kc (gemm_kern_packed_rows
 * gives kc and the padded K, the buffer's rows: npad columns, N rounded up
 * to NR, of esz bytes each), laid out as the driver reads a pre-packed B. */
int64_t gemm_kern_packed_rows(const gemm_kern_t *kn, int64_t K, int64_t *kc);
void gemm_kern_pack_b_all(const gemm_kern_t *kn, int64_t K, int64_t N, const void *B, int64_t ldb,
                          int64_t kc, int64_t npad, void *dst);
/* C = A B (beta 0, no epilogue) with B from gemm_kern_pack_b_all. */
void gemm_kern_run_packed(const gemm_kern_t *kn, const kctx_t *k, int64_t M, int64_t N, int64_t K,
                          const void *A, int64_t lda, const void *packed, int64_t kc, int64_t npad,
                          void *C, int64_t ldc);
/* A (M x K, op(A) = A) packed ahead for kn the same way: K blocks of kc,
 * each mpad rows (M rounded up to MR) of MR-row panels, as the driver reads
 * a pre-packed A; and C = A B (beta 0, no epilogue) with it. */
void gemm_kern_pack_a_all(const gemm_kern_t *kn, int64_t M, int64_t K, const void *A, int64_t lda,
                          int64_t kc, int64_t mpad, void *dst);
void gemm_kern_run_packed_a(const gemm_kern_t *kn, const kctx_t *k, int64_t M, int64_t N,
                            int64_t K, const void *packed_a, int64_t kc, int64_t mpad,
                            const void *B, int64_t ldb, void *C, int64_t ldc);
/* The f32 variant v as a packed-path kernel (its packers and micro-kernel). */
void gemm_kern_from_f32(const gemm_f32_variant_t *v, gemm_kern_t *kn);
/* C = alpha op(A) op(B) + beta C through the packed path of kn, with the f32
 * driver's blocking, threading and epilogue (epi only for f32 C). */
void gemm_kern_run(const gemm_kern_t *kn, const kctx_t *k, int transA, int transB, int64_t M,
                   int64_t N, int64_t K, float alpha, const void *A, int64_t lda, const void *B,
                   int64_t ldb, float beta, void *C, int64_t ldc, const gemm_epilogue_t *epi);

/* Table rows (name, ISA) of any kind: the index of the first row usable at
 * the CPU's level capped by cap; with report (CAIRN_VERBOSE) prints the
 * choice for `what` and why better rows were passed over. */
int gemm_table_pick(const char *what, int n, const char *const *names, const cairn_isa_t *isas,
                    cairn_isa_t cap, int report);
int gemm_verbose(void);

/* Packers. pack_a: mc x kc block of op(A) starting at (i0, p0) into MR-row
 * panels (panel q at dst + q*kc*MR, element (r,k) at [k*MR + r]), rows
 * past mc zero. pack_b: kc x nc block of op(B) at (p0, j0) into NR-column
 * panels (panel q at dst + q*kc*NR, element (k,c) at [k*NR + c]). */
void gemm_f32_pack_a(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0, int64_t mc,
                     int64_t kc, int mr, float *dst);
void gemm_f32_pack_b_block(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                           int64_t kc, int64_t nc, int nr, float *dst);

/* Micro-kernels. */
void gemm_f32_indb_ref_4x8(int64_t kc, const float *A, const float *B, const int64_t *off,
                           float *T, int acc, const gemm_indb_epi_t *ep);
void gemm_f32_tile_store_ref_4x8(const float *T, int m, int n, float *C, int64_t ldc,
                                 const gemm_tile_epi_t *e);
void gemm_f32_indb_6x16_avx2(int64_t kc, const float *A, const float *B, const int64_t *off,
                             float *T, int acc, const gemm_indb_epi_t *ep);
void gemm_f32_indb_part_avx2(int rows, int64_t kc, const float *A, const float *B,
                             const int64_t *off, const gemm_indb_epi_t *ep);
void gemm_f32_inda_part_avx2(int npx, int64_t kc, const float *const *px, const int64_t *off,
                             const float *Bp, float *T, int acc);
void gemm_f32_tile_store_avx2(const float *T, int m, int n, float *C, int64_t ldc,
                              const gemm_tile_epi_t *e);
void gemm_f32_inda_ref_4x8(int64_t kc, const float *const *px, const int64_t *off,
                           const float *Bp, float *T, int acc);
void gemm_f32_tile_store_t_ref_4x8(const float *T, int npx, int nch, float *C, int64_t ldc,
                                   const gemm_tile_epi_t *e);
void gemm_f32_inda_6x16_avx2(int64_t kc, const float *const *px, const int64_t *off,
                             const float *Bp, float *T, int acc);
void gemm_f32_tile_store_t_avx2(const float *T, int npx, int nch, float *C, int64_t ldc,
                                const gemm_tile_epi_t *e);
void gemm_f32_gemv_packed_avx2(int m, int64_t K, int64_t kc, int64_t npad, float alpha,
                               const float *A, int64_t rs_a, int64_t cs_a, const float *Bp,
                               int64_t n0, int64_t n1, float *C, int64_t ldc);
void gemm_f32_ukernel_ref_4x8(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                              const float *B, int64_t ldb, float *C, int64_t ldc, int m, int n,
                              float alpha, float beta, const gemm_tile_epi_t *e);
void gemm_f32_ukernel_6x16_avx2(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                const float *B, int64_t ldb, float *C, int64_t ldc, int m, int n,
                                float alpha, float beta, const gemm_tile_epi_t *e);
void gemm_f32_ukrun_6x16_avx2(int64_t kc, int down, const float *A, const float *B, int64_t step,
                              float *C, int64_t ldc, int64_t m, int64_t n, float alpha,
                              float beta, const gemm_tile_epi_t *e, const char *bnext,
                              size_t slice, size_t bytes);
void gemm_f32_pack_a_avx2(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0,
                          int64_t mc, int64_t kc, int mr, float *dst);
void gemm_f32_pack_b_avx2(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                          int64_t kc, int64_t nc, int nr, float *dst);
void gemm_f32_pack_a_avx512(int transA, const float *A, int64_t lda, int64_t i0, int64_t p0,
                             int64_t mc, int64_t kc, int mr, float *dst);
void gemm_f32_pack_b_avx512(int transB, const float *B, int64_t ldb, int64_t p0, int64_t j0,
                            int64_t kc, int64_t nc, int nr, float *dst);
void gemm_f32_smallm_ref(int m, int64_t n, int64_t K, float alpha, const float *A, int64_t rs_a,
                         int64_t cs_a, const float *B, int64_t ldb, float beta, float *C,
                         int64_t ldc);
void gemm_f32_smallm_avx2(int m, int64_t n, int64_t K, float alpha, const float *A, int64_t rs_a,
                          int64_t cs_a, const float *B, int64_t ldb, float beta, float *C,
                          int64_t ldc);
void gemm_f32_smallm_avx512(int m, int64_t n, int64_t K, float alpha, const float *A,
                             int64_t rs_a, int64_t cs_a, const float *B, int64_t ldb, float beta,
                             float *C, int64_t ldc);
void gemm_f32_ukernel_14x32_avx512(int64_t kc, const float *A, int64_t rs_a, int64_t cs_a,
                                   const float *B, int64_t ldb, float *C, int64_t ldc, int m,
                                   int n, float alpha, float beta, const gemm_tile_epi_t *e);
void gemm_f32_ukernel_pf_14x32_avx512(int64_t kc, const float *A, const float *B, float *C,
                                      int64_t ldc, int m, int n, float alpha, float beta,
                                      const gemm_tile_epi_t *e, const char *pf, int64_t npf);

void gemm_f32_ukernel_packb_14x32_avx512(int64_t kc, const float *A, const float *B, int64_t ldb,
                                         float *Bp, float *C, int64_t ldc, int m, float alpha,
                                         float beta, const gemm_tile_epi_t *e, int near);
void gemm_f32_ukernel_packa_14x32_avx512(int64_t kc, const float *A, int64_t lda, float *Ap,
                                         const float *B, float *C, int64_t ldc, int n,
                                         float alpha, float beta, const gemm_tile_epi_t *e,
                                         const char *pf, int64_t npf);

void gemm_f32_gemv_packed_avx512(int m, int64_t K, int64_t kc, int64_t npad, float alpha,
                                 const float *A, int64_t rs_a, int64_t cs_a, const float *Bp,
                                 int64_t n0, int64_t n1, float *C, int64_t ldc);
void gemm_f32_indb_14x32_avx512(int64_t kc, const float *A, const float *B, const int64_t *off,
                                float *T, int acc, const gemm_indb_epi_t *ep);
void gemm_f32_indb_half_avx512(int rows, int64_t kc, const float *A, const float *B,
                               const int64_t *off, const struct gemm_indb_epi *ep);
void gemm_f32_indb_part_avx512(int rows, int64_t kc, const float *A, const float *B,
                               const int64_t *off, const gemm_indb_epi_t *ep);
void gemm_f32_tile_store_avx512(const float *T, int m, int n, float *C, int64_t ldc,
                                const gemm_tile_epi_t *e);
void gemm_f32_inda_14x32_avx512(int64_t kc, const float *const *px, const int64_t *off,
                                const float *Bp, float *T, int acc);
void gemm_f32_inda_pf_14x32_avx512(int64_t kc, const float *const *px, const int64_t *off,
                                   const float *Bp, float *T, int acc, const char *pf,
                                   int64_t npf);
void gemm_f32_inda_narrow_avx512(int nch, int64_t kc, const float *const *px, const int64_t *off,
                                 const float *Bp, float *T, int acc, const char *pf, int64_t npf);
void gemm_f32_inda_part_avx512(int npx, int64_t kc, const float *const *px, const int64_t *off,
                               const float *Bp, float *T, int acc);
void gemm_f32_tile_store_t_avx512(const float *T, int npx, int nch, float *C, int64_t ldc,
                                  const gemm_tile_epi_t *e);

/* How the packed driver treats op(A) = A's whole panels where uk_packa
 * exists: 0 a pass of pack_a before the tiles; 1 packed by the first B
 * panel's tiles (uk_packa); 2 not packed, every tile reading them in place
 * (uk_packa with Ap NULL); -1 (the default) 1 where zmm runs as halves
 * (Zen 4), else 2 (Zen 5). For the tests, which run every mode on every machine;
 * not thread-safe against GEMMs running meanwhile. */
void gemm_f32_set_tile_pack_a(int mode);

/* How the AVX-512 B-packing tile (uk_packb) stores the packed rows: 0 as
 * zmm, 1 as ymm halves, -1 (the default) zmm where zmm runs as halves
 * (Zen 4), else ymm. For the tests, as gemm_f32_set_tile_pack_a. */
void gemm_f32_set_packb_ymm(int mode);

/* ---- bf16 and int8 (lowp.c) ---- */

/* The bf16 / int8 kernel the dispatch picks at or below cap (the CPU's best
 * when CAIRN_ISA_AUTO), ignoring the environment, as the tests want; and the
 * one chosen once for this process (CAIRN_ISA caps it). */
void gemm_bf16_kern_for(cairn_isa_t cap, gemm_kern_t *kn);
void gemm_s8_kern_for(cairn_isa_t cap, gemm_kern_t *kn);
const gemm_kern_t *gemm_bf16_select(void);
const gemm_kern_t *gemm_s8_select(void);
/* The conversions with the path for ISA level `cap` (tests run each). */
void gemm_cvt_f32_to_bf16_isa(cairn_isa_t cap, const float *src, uint16_t *dst, size_t n);
void gemm_cvt_bf16_to_f32_isa(cairn_isa_t cap, const uint16_t *src, float *dst, size_t n);

/* Micro-kernels over the lowp panels (gemm_kern_t.uk). bf16: kg 2, bf16
 * pairs, f32 C. s8 vnni: kg 4, u8 / s8 quads; s16: kg 2, 16-bit pairs of
 * the widened u8 / s8; both s32 C, beta != 0 meaning accumulate. */
#define GEMM_LOWP_UK(name)                                                                        \
    void name(const gemm_kern_t *kn, int64_t kc, const void *A, const void *B, void *C,          \
              int64_t ldc, int m, int n, float alpha, float beta, const gemm_tile_epi_t *e)
GEMM_LOWP_UK(gemm_bf16_ukernel_14x32_avx512bf16);
GEMM_LOWP_UK(gemm_s8_ukernel_14x32_avx512vnni);
GEMM_LOWP_UK(gemm_s8_ukernel_14x32_avx512_s16);
GEMM_LOWP_UK(gemm_s8_ukernel_6x16_avx2_s16);
/* The VNNI kernel's byte-quad panels (32 lanes, kc rounded up to 4) of nl
 * contiguous lanes, k rows ks bytes apart, each byte XOR flip (lowp.c's
 * pack_groups32 for es = 1, w = 32, 64 lanes a step) */
void gemm_s8_pack_groups_avx512(const char *src, int64_t ks, int64_t nl, int64_t kc, char *dst,
                                uint8_t flip);
void gemm_cvt_f32_to_bf16_avx512(const float *src, uint16_t *dst, size_t n, int native);
void gemm_cvt_bf16_to_f32_avx512(const uint16_t *src, float *dst, size_t n);

#endif
