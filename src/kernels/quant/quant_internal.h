/*
 * Element access shared by the quant family's kernels (ref.c, mm.c): one
 * u8 / i8 / i32 element as int32, and the store that rounds half to even
 * and saturates to the quantised type (the ONNX reference's arithmetic).
 */
#ifndef CAIRN_KERNELS_QUANT_INTERNAL_H
#define CAIRN_KERNELS_QUANT_INTERNAL_H

#include "cairn.h"

#include <math.h>
#include <stdint.h>

static inline int32_t q_load(const void *p, cairn_dtype_t t, int64_t i)
{
    switch (t) {
    case CAIRN_U8: return ((const uint8_t *)p)[i];
    case CAIRN_I8: return ((const int8_t *)p)[i];
    case CAIRN_I32: return ((const int32_t *)p)[i];
    default: return 0;
    }
}

/* rounds half to even, then saturates to yt and stores */
static inline void q_store(void *y, cairn_dtype_t yt, int64_t i, double v)
{
    double r = isnan(v) ? 0 : nearbyint(v); /* e.g. 0 * an infinite multiplier */
    if (yt == CAIRN_U8) {
        r = r < 0 ? 0 : r > 255 ? 255 : r;
        ((uint8_t *)y)[i] = (uint8_t)r;
    } else if (yt == CAIRN_I8) {
        r = r < -128 ? -128 : r > 127 ? 127 : r;
        ((int8_t *)y)[i] = (int8_t)r;
    } else {
        r = r < -2147483648.0 ? -2147483648.0 : r > 2147483647.0 ? 2147483647.0 : r;
        ((int32_t *)y)[i] = (int32_t)r;
    }
}

/* Whether the quant kernels take their AVX-512 passes (x86_avx512.c):
 * the CPU has them and the CAIRN_ISA cap allows (chosen once; dyn.c). */
int quant_use_avx512(void);
/* The requantising int8 GEMM of a convolution (mm.c's fused form): A's
 * panels as the VNNI kernel packed them (gemm_u8_packed_a_panels: 14 rows
 * of kcp bytes each, one K block; row M the ones row when Mg > M), one
 * 32-column panel of B (gemm_s8_pack_b_panels), and QLinearConv's
 * requantisation straight from the tile's registers: y[i][c] =
 * saturate(round((sum + bias[i]) mult[i]) + z), sum = acc + z1 rs[i] + (kzb
 * - S_c) za (the zero-point terms, wrapping 32-bit; S_c the ones row's
 * column sum), as quant_requant_row computes it (the single-precision form
 * with its check, the double one for doubtful vectors). The caller checks
 * that every |mult| < 0.5 and K 255^2 + |bias| < 2^31. */
typedef struct quant_rq_gemm {
    const uint8_t *ap;
    int64_t kcp, M, Mg;
    const float *mult;
    int mult_vec;
    const int32_t *bias; /* per row, or NULL */
    const int32_t *rs;   /* the row term's sums (NULL: no row term) */
    uint32_t z1, kzb;
    int32_t za, z; /* za 0: no column term */
    int y_u8;
} quant_rq_gemm_t;
/* n (at most 32) columns of y (rows ldy bytes apart) from B's panel bp,
 * the rows of A's panels [p0, p1) (the last panel, whose ones row gives
 * the column terms, is computed whatever the range) */
void quant_rq_gemm_vnni(const quant_rq_gemm_t *g, const uint8_t *bp, int n, uint8_t *y,
                        int64_t ldy, int64_t p0, int64_t p1);

/* Whether the integer depthwise plane runs: AVX512_VNNI and AVX512_VBMI
 * on the CPU and a CAIRN_ISA cap at avx512_bf16 or above (the VNNI level) */
int quant_use_vnni(void);

/* QuantizeLinear's pass in AVX-512 (qdq.c calls it where quant_use_avx512):
 * y = saturate(round(x / s) + z) to u8 or i8, NaN quotients as 0, the
 * same bits as quant_quantize_ref. */
void quant_ql_quantize_avx512(const float *x, int64_t n, float s, int32_t z, int y_u8, void *y);
/* QLinearConv's requantisation of n int32 sums of one channel (qdq.c):
 * saturate(nearbyint(((double)acc + b) * m) + z) to yt, NaN to 0, as
 * quant_requant_ref computes it. acc_max: a bound on |acc| the caller
 * knows (K 255^2 for sums over K products), QUANT_ACC_ANY when none; it
 * spares the AVX-512 pass its overflow check. */
#define QUANT_ACC_ANY INT64_C(2147483648)
void quant_requant_row(const int32_t *acc, int64_t n, double b, double m, int32_t z,
                       cairn_dtype_t yt, void *y, int64_t acc_max);
/* The same in AVX-512 for u8 (y_u8) or i8 (quant_requant_row calls it). */
void quant_requant_avx512(const int32_t *acc, int64_t n, double b, double m, int32_t z, int y_u8,
                          void *y, int64_t acc_max);
/* quant_requant_avx512 of the sums acc[i] + rt + zt[i] (zt NULL: acc[i] +
 * rt), added as wrapping 32-bit integers (a GEMM's sums and their
 * zero-point terms: qmm_q8_rows), without a pass of its own */
void quant_requant_cols_avx512(const int32_t *acc, const int32_t *zt, int32_t rt, int64_t n,
                               double b, double m, int32_t z, int y_u8, void *y, int64_t acc_max);

/* One plane of quant_dwconv (dw.c): the geometry, and the plane kernels.
 * P holds SW phases of `rows` x ld floats: padded input column q (input
 * column q - PW) of padded row r (input row r - PH) at phase q % SW, row r,
 * column q / SW; positions outside the input hold 0 (the caller zeroes P
 * once, a plane writes only the inputs' positions). Output (oh, ow) is
 * then the sum over taps (kh, kw) of wf[kh KW + kw] times P's phase kw %
 * SW, row oh SH + kh, column ow + kw / SW. ld is a multiple of 16 of at
 * least OW rounded up to 16 plus (KW - 1) / SW, so 16-lane reads past OW
 * stay inside a row; P's rows and ld are 64-byte aligned. */
typedef struct quant_dw_geom {
    int64_t IH, IW, OH, OW;
    int KH, KW, SH, SW;
    int64_t PH, PW;
    int64_t rows, ld; /* padded rows: those that OH rounded up to 8 output rows read
                       * (the AVX-512 blocks of 8 rows may run past OH), (OH8 - 1)
                       * SH + KH; floats a phase's row */
    int64_t ih1, iw1; /* input rows [0, ih1) and columns [0, iw1) are read */
    int x_u8;         /* x u8 (else i8) */
    int32_t xz;
    /* the integer 3x3 plane (quant_dw3_plane_vnni): its u8 copy of the
     * padded input, `rows` rows of ldb bytes (a multiple of 64, room for a
     * 64-byte read at every 16-output chunk), x flipped to u8 where it is
     * i8, the padding xzb (x's zero point in that u8 form) */
    int64_t ldb;
    int32_t xzb;
    const int64_t *off; /* tap t = kh KW + kw at P + off[t] from its output's row start:
                         * (kw % SW) rows ld + kh ld + kw / SW */
} quant_dw_geom_t;
/* Where a plane's results go: its OH x OW sums as int32 (yt CAIRN_I32),
 * requantised to u8 / i8 as quant_requant_row does it, or dequantised (yt
 * CAIRN_F32): (float)sum * m, then + b where has_b, then the activation,
 * then + res[i] where res, each a separate f32 operation (quant_dwconv_f32) */
typedef struct quant_dw_out {
    cairn_dtype_t yt;
    void *y;
    double b, m;      /* bias and multiplier (f32 values for yt F32) */
    int32_t z;        /* y's zero point */
    int64_t acc_max;  /* a bound on |sum|: taps 255^2 */
    const float *res; /* yt F32: the residual's plane, or NULL */
    int has_b;        /* yt F32: add b */
    int act;          /* yt F32: after b, gemm_act_t none, relu or clip to [lo, hi] */
    float lo, hi;
} quant_dw_out_t;
/* x - xz of one plane (IH x IW bytes) into P, then the plane's outputs
 * from the taps wf (w - wz as f32); acc: OH x OW int32 of scratch for the
 * sums before their requantisation (unused for int32 outputs) */
void quant_dw_plane_c(const quant_dw_geom_t *g, const void *x, const float *wf, float *P,
                      int32_t *acc, const quant_dw_out_t *o);
void quant_dw_plane_avx512(const quant_dw_geom_t *g, const void *x, const float *wf, float *P,
                           int32_t *acc, const quant_dw_out_t *o);
/* A 3x3 plane at stride 1 or 2 (both ways) in integers: vpermb puts each
 * output's three taps of an input row in a 32-bit lane and vpdpbusd adds
 * their products with the kernel row's w - wz (wd3[kh]: the bytes w'(kh,
 * 0..2) and 0; each must fit in s8), the sums starting at corr = -xzb
 * sum(w'); U: the worker's u8 padded plane (g->ldb), its padding filled
 * with xzb by the caller. Outputs as quant_dw_plane_avx512's. Only where
 * quant_use_vnni(). */
void quant_dw3_plane_vnni(const quant_dw_geom_t *g, const void *x, const int32_t *wd3,
                          int32_t corr, uint8_t *U, int32_t *acc, const quant_dw_out_t *o);

#endif
