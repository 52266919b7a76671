/*
 * Fused f32 elementwise chains: one pass over memory for a small
 * straight-line program of elementwise ops (the compiler's fuse_eltwise
 * pass builds them from chains of Add, Mul, Sigmoid, ...).
 *
 * The program is in SSA form over registers: registers 0 .. n_in-1 hold
 * the inputs at the current element, and instruction j writes register
 * n_in + j. Each instruction is three int32s (opcode, a, b): a and b name
 * registers, except where the opcode says they index the immediates. The
 * result is the last instruction's register. Every opcode computes exactly
 * what the unfused op's kernel computes at the same ISA level: the
 * reference (efused_f32_ref) uses the float libm formulas of unary.c, the
 * vector variants the vmath functions that the fast unary kernels use, so
 * a fused chain gives the same bits as the ops run one by one.
 *
 * Inputs are f32, or 8-bit (u8 / i8) read as their integer values by
 * EFU_DEQUANT instructions only (a DequantizeLinear fused in); the output
 * is f32, or 8-bit when the last instruction is EFU_QUANT (a
 * QuantizeLinear fused in). Each input is, against the output of n
 * elements (the output is dense row-major), either
 *   - full:   n elements, element i at p[i];
 *   - scalar: 1 element, p[0] everywhere;
 *   - row:    len elements with n % len == 0, element i at p[i % len]
 *             (a tensor broadcast along the output's leading dims, e.g. a
 *             bias [C] against [N, C]).
 * Cost floor: every input read once and the output written once; the
 * intermediate values live in registers or in a block of scratch that
 * stays in L1 (blocks of EFUSED_BLOCK elements).
 */
#ifndef CAIRN_KERNELS_ELTWISE_FUSED_H
#define CAIRN_KERNELS_ELTWISE_FUSED_H

#include "kernels/ktensor.h"

#include <stddef.h>
#include <stdint.h>

typedef enum efused_opc {
    EFU_IMM = 0,   /* r = imm[a] */
    EFU_ADD,       /* r = ra + rb */
    EFU_SUB,       /* r = ra - rb */
    EFU_MUL,       /* r = ra * rb */
    EFU_DIV,       /* r = ra / rb */
    EFU_MIN,       /* r = ra < rb || ra is NaN ? ra : rb (NaN propagates, as Min) */
    EFU_MAX,       /* r = ra > rb || ra is NaN ? ra : rb */
    EFU_NEG,       /* r = -ra */
    EFU_ABS,       /* r = |ra| */
    EFU_RELU,      /* r = ra < 0 ? 0 : ra */
    EFU_SQRT,      /* r = sqrt(ra) (correctly rounded at every level) */
    EFU_RECIP,     /* r = 1 / ra */
    EFU_EXP,
    EFU_LOG,
    EFU_TANH,
    EFU_SIGMOID,
    EFU_ERF,
    EFU_GELU_ERF,  /* Gelu(approximate="none") */
    EFU_GELU_TANH, /* Gelu(approximate="tanh") */
    EFU_CLIP,      /* r = Clip(ra, lo = imm[b], hi = imm[b+1]) with ONNX's lo > hi rule */
    EFU_LEAKY,     /* r = ra < 0 ? imm[b] * ra : ra (LeakyRelu, alpha = imm[b]) */
    EFU_QDQ,       /* r = DequantizeLinear(QuantizeLinear(ra)) with scale imm[b], zero point
                    * imm[b+1] and the 8-bit type's range [imm[b+2], imm[b+3]]:
                    * q = ra / s (NaN -> 0) rounded half to even, + z, clamped; r = (q - z) * s,
                    * quant_quantize_ref's then quant_dequantize_ref's bits (a QDQ pair) */
    EFU_DEQUANT,   /* r = (ra - imm[b]) * imm[b+1]: DequantizeLinear of an 8-bit input register
                    * (zero point, scale), quant_dequantize_ref's bits (ra - z is exact) */
    EFU_QUANT,     /* r = QuantizeLinear(ra) as a float: ra / imm[b] (NaN -> 0) rounded half to
                    * even, + imm[b+1], clamped to [imm[b+2], imm[b+3]]; the last instruction of a
                    * program with an 8-bit output (efused_run), quant_quantize_ref's value */
    EFU_OPC_COUNT
} efused_opc_t;

#define EFUSED_MAX_IN 8
#define EFUSED_MAX_INSTR 32
#define EFUSED_MAX_REGS (EFUSED_MAX_IN + EFUSED_MAX_INSTR)
#define EFUSED_MAX_IMM 64
/* Elements per block of the vector variants: 32 scratch registers of 128
 * floats are 16 KiB, within L1 next to the inputs' and output's lines. */
#define EFUSED_BLOCK 128

typedef struct efused_prog {
    int n_in;            /* 1 .. EFUSED_MAX_IN */
    int n_instr;         /* 1 .. EFUSED_MAX_INSTR */
    const int32_t *code; /* 3 * n_instr */
    int n_imm;           /* 0 .. EFUSED_MAX_IMM */
    const float *imm;
} efused_prog_t;

typedef struct efused_input {
    const void *p; /* f32, or 8-bit as dt says */
    int64_t len;   /* 1: scalar; n: full; else a row repeated n / len times */
    cairn_dtype_t dt; /* CAIRN_U8 / CAIRN_I8, or f32 (CAIRN_F32 or left 0) */
} efused_input_t;

/* Evaluates elements [i0, i1) of the output: out[i - i0] = program(inputs
 * at i) (out points at element i0), stored as out_dt: f32, or u8 / i8 when
 * the last instruction is a quant (its whole values in the type's range). */
typedef void (*efused_fn)(const efused_prog_t *prog, const efused_input_t *in, void *out,
                          cairn_dtype_t out_dt, int64_t n, int64_t i0, int64_t i1);

typedef struct efused_variant {
    const char *name;
    cairn_isa_t isa;
    efused_fn fn;
} efused_variant_t;

extern const efused_variant_t efused_variants[];
extern const int efused_n_variants;

/* Best variant at or below `cap` on this CPU (CAIRN_ISA_AUTO: no cap). */
const efused_variant_t *efused_variant_for(cairn_isa_t cap);
/* The process-wide choice (base_isa_select(), honours CAIRN_ISA). */
const efused_variant_t *efused_select(void);

/* Checks a program: opcodes known, operands naming earlier registers or
 * immediates in range, counts within the limits, the last instruction not
 * an immediate. CAIRN_ERR_INVALID_ARGUMENT with a message naming the
 * instruction otherwise. */
cairn_status_t efused_check(const efused_prog_t *prog);

/* Checks the program's types: in_dt[i] (n_in of them) f32 or u8 / i8, the
 * 8-bit ones read only by dequant; out_dt f32, or u8 / i8 exactly when the
 * last instruction is quant. CAIRN_ERR_DTYPE / CAIRN_ERR_INVALID_ARGUMENT
 * with a message naming the culprit otherwise (efused_run and
 * FusedElementwise's inference both ask). */
cairn_status_t efused_check_types(const efused_prog_t *prog, const cairn_dtype_t *in_dt,
                                  cairn_dtype_t out_dt);
/* Lower-case name of an opcode ("mul", "sigmoid", ...), "?" if unknown. */
const char *efused_opc_name(int opc);
/* Formats the program readably ("r2 = mul(r0, r1); r3 = sigmoid(r2)"),
 * truncated to cap (always NUL-terminated when cap > 0). */
void efused_format(const efused_prog_t *prog, char *buf, size_t cap);
/* Nominal FLOPs per element (1 per arithmetic op, 10 per transcendental,
 * 0 per immediate), as op_eltwise_cost counts the unfused ops. */
double efused_flops_per_element(const efused_prog_t *prog);

/* The whole output (n elements), the variant's fn over blocks of elements
 * split across k's pool when large. v NULL: efused_select(). The program
 * is checked (efused_check), and the inputs must satisfy the layout rules
 * above (CAIRN_ERR_SHAPE otherwise) and the 8-bit ones be read only by
 * EFU_DEQUANT. out_dt CAIRN_F32, or CAIRN_U8 / CAIRN_I8 with EFU_QUANT as
 * the last instruction (its value stored as that type). */
cairn_status_t efused_run(const efused_variant_t *v, const efused_prog_t *prog,
                          const efused_input_t *in, void *out, cairn_dtype_t out_dt, int64_t n,
                          const kctx_t *k);
/* efused_run with an f32 output */
cairn_status_t efused_f32(const efused_variant_t *v, const efused_prog_t *prog,
                          const efused_input_t *in, float *out, int64_t n, const kctx_t *k);

/* The reference: one element at a time, float libm (unary.c's formulas). */
void efused_f32_ref(const efused_prog_t *prog, const efused_input_t *in, void *out,
                    cairn_dtype_t out_dt, int64_t n, int64_t i0, int64_t i1);
void efused_f32_avx2(const efused_prog_t *prog, const efused_input_t *in, void *out,
                     cairn_dtype_t out_dt, int64_t n, int64_t i0, int64_t i1);
void efused_f32_avx512(const efused_prog_t *prog, const efused_input_t *in, void *out,
                       cairn_dtype_t out_dt, int64_t n, int64_t i0, int64_t i1);

#endif
