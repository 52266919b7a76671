/*
 * Fast f32 2-D pooling (NCHW, no indices output, dilation 1): MaxPool and
 * AveragePool with any window, stride and padding (ceil-mode windows
 * included), and GlobalAveragePool over any number of spatial dims. Per-ISA
 * variants (x86_avx2.c, x86_avx512.c: fast_impl.h over each ISA's vector
 * macros) in a table dispatched like norm's (fast.c). The *_fast entry
 * points return 0 without touching anything when a call is not covered;
 * kpool_max / kpool_avg (ref.c) then run the reference.
 *
 * Results: MaxPool is bit-identical to the reference (the first NaN of a
 * window in row-major order wins, else the first maximum, so -0 / +0 ties
 * keep the first; a window of padding only gives -inf). AveragePool sums
 * each window in double in the reference's order and divides by the same
 * count, so it matches the reference too (a zero count gives NaN).
 * GlobalAveragePool sums in double lanes (another order than the
 * reference): relative error <= n * 2^-53 before the final rounding to f32.
 *
 * Floor: memory (each input element read once, each output written once,
 * k*k compares or adds per output, far below the compute roof).
 */
#ifndef CAIRN_KERNELS_POOL_FAST_H
#define CAIRN_KERNELS_POOL_FAST_H

#include "kernels/pool/pool.h"

/* The geometry of one 2-D plane pooling, resolved once per call. */
typedef struct kpool_geom {
    int64_t H, W, OH, OW;
    int64_t kh, kw, sh, sw;
    int64_t pbh, pbw, peh, pew; /* padding begin / end */
    int64_t PW;                 /* floats per padded row copy */
    int count_include_pad;
    int64_t oh0, oh1; /* the output rows computed in each plane (0, OH: all) */
} kpool_geom_t;

/* planes consecutive (n, c) planes of x (H*W each) into y (OH*OW each). */
typedef void (*kpool_plane2d_fn)(const float *x, float *y, int64_t planes,
                                 const kpool_geom_t *g);
/* y[i] = mean of x[i*n .. (i+1)*n) for i < planes. */
typedef void (*kpool_gavg_fn)(const float *x, float *y, int64_t planes, int64_t n);

typedef struct kpool_f32_variant {
    const char *name;
    cairn_isa_t isa;
    kpool_plane2d_fn max2d; /* NULL: reference only */
    kpool_plane2d_fn avg2d;
    kpool_gavg_fn gavg;
} kpool_f32_variant_t;

extern const kpool_f32_variant_t kpool_f32_variants[];
extern const int kpool_f32_n_variants;

const kpool_f32_variant_t *kpool_f32_variant_for(cairn_isa_t cap);
const kpool_f32_variant_t *kpool_f32_select(void);
/* Name of the variant in use ("avx512", "avx2" or "ref"). */
const char *kpool_f32_variant_name(void);

/* Padded row copies are kept on the stack: a plane whose kh rows of PW
 * floats exceed this goes to the reference. */
#define KPOOL_RING_FLOATS 8192
/* Widest output row the average kernel's per-column counts cover. */
#define KPOOL_MAX_OW 2048

void kpool_max2d_f32_avx2(const float *x, float *y, int64_t planes, const kpool_geom_t *g);
void kpool_avg2d_f32_avx2(const float *x, float *y, int64_t planes, const kpool_geom_t *g);
void kpool_gavg_f32_avx2(const float *x, float *y, int64_t planes, int64_t n);
void kpool_max2d_f32_avx512(const float *x, float *y, int64_t planes, const kpool_geom_t *g);
void kpool_avg2d_f32_avx512(const float *x, float *y, int64_t planes, const kpool_geom_t *g);
void kpool_gavg_f32_avx512(const float *x, float *y, int64_t planes, int64_t n);

/* 8-bit 2-D max pooling (u8; i8 through flip = 0x80, which maps it to u8
 * in the same order): per output row the window rows' max into a padded
 * row (zeros, the type's minimum after the flip, where the windows reach
 * past the input), then each window's kw columns by vectors, from the row
 * (stride 1) or its even and odd bytes (stride 2). Every window must hold
 * an element of the input (kpool_max's kp_max2d_fits); g->PW unused.
 * Bytes of the padded row buffer, and the most a geometry needs of it: */
#define KPOOL_8BIT_ROW 8192
static inline int64_t kpool_8bit_reach(const kpool_geom_t *g)
{
    const int64_t owv = (g->OW + 31) / 32 * 32;
    const int64_t win = g->sw * (owv + g->kw + 32) + 64;
    return win > g->pbw + g->W + 32 ? win : g->pbw + g->W + 32;
}
void kpool_max2d_8bit_avx2(const uint8_t *x, uint8_t *y, int64_t planes, const kpool_geom_t *g,
                           uint8_t flip);
/* u8 / i8 x, 4-D, stride 1 or 2, dilation 1, no indices, the padded row
 * within KPOOL_8BIT_ROW, on a CPU with AVX2 (within CAIRN_ISA): 1 when it
 * computed y. The caller has checked that every window holds an input
 * element. */
int kpool_max_8bit_fast(const ktensor_t *x, ktensor_t *y, const kpool_params_t *p,
                        const kctx_t *k);

/* v NULL: the selected variant. Return 1 when they computed y. */
int kpool_max_f32_fast(const kpool_f32_variant_t *v, const ktensor_t *x, ktensor_t *y,
                       const ktensor_t *indices, const kpool_params_t *p, const kctx_t *k);
int kpool_avg_f32_fast(const kpool_f32_variant_t *v, const ktensor_t *x, ktensor_t *y,
                       const kpool_params_t *p, const kctx_t *k);

#endif
