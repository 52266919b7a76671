/*
 * CPU feature detection.
 *
 * A feature counts only when the CPU reports it (CPUID) *and* the OS saves
 * its registers on context switch (XGETBV/XCR0): AVX needs the YMM state,
 * AVX-512 the opmask/ZMM states, AMX the tile states (and, on Linux, the
 * arch_prctl permission request). Cache sizes come from CPUID leaf 4 (Intel)
 * or 0x8000001D (AMD). On aarch64 the path compiles and reports NEON.
 *
 * base_cpu() detects once and returns the same struct thereafter.
 */
#ifndef CAIRN_BASE_CPU_H
#define CAIRN_BASE_CPU_H

#include "cairn.h"
#include <stddef.h>

typedef struct base_cpu {
    char vendor[16];
    char model[64];      /* brand string, e.g. "Intel(R) Xeon(R) ..." */
    int family, model_id, stepping;
    int logical_cpus;    /* online CPUs usable by this process */
    /* features, each usable (CPU + OS) */
    int sse42, avx, avx2, fma, f16c;
    int avx512f, avx512bw, avx512vl, avx512dq;
    int avx512_bf16, avx512_vnni, avx_vnni;
    int avx512_vbmi; /* vpermb and friends (Ice Lake, Zen 4) */
    int amx_tile, amx_bf16, amx_int8;
    int neon;
    /* caches, bytes (0 if unknown); L1D and L2 per core, L3 shared */
    size_t l1d, l2, l3;
    size_t cache_line;
    /* 512-bit operations execute as two 256-bit halves (AMD Zen 4, family
     * 19h with AVX-512): one zmm FMA per cycle, the rate of two ymm FMAs */
    int zmm_halves;
    cairn_isa_t best_isa; /* highest cairn ISA level these features allow */
} base_cpu_t;

const base_cpu_t *base_cpu(void);

/* The ISA level to use: min(best the CPU has, cap, the CAIRN_ISA env var).
 * cap == CAIRN_ISA_AUTO means no cap. */
cairn_isa_t base_isa_select(cairn_isa_t cap);

/* Writes a space-separated list of the usable features into buf. */
void base_cpu_features_string(const base_cpu_t *c, char *buf, size_t cap);

#endif
