/*
 * Shared by test_gemm_bf16.c and test_gemm_s8.c: the shapes every bf16 and
 * int8 GEMM variant is driven through, and the loop that runs one check per
 * distinct variant at each ISA level the machine allows (at or below the
 * CAIRN_ISA cap in force, which ctest varies).
 */
#ifndef TEST_GEMM_LOWP_CASES_H
#define TEST_GEMM_LOWP_CASES_H

#include "base/cpu.h"
#include "check.h"
#include "kernels/gemm/gemm_f32_internal.h"

#include <string.h>

/* sizes around the tile (mr, nr), the K grouping (2, 4) and the blocking */
static int lowp_sizes(const gemm_kern_t *kn, int64_t kc, int64_t *out)
{
    int64_t s[] = {1, 2, 3, 5, kn->mr - 1, kn->mr + 1, kn->nr - 1, kn->nr + 1, 2 * kn->nr + 3,
                   kc - 1, kc + 1, 127};
    int n = 0;
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (s[i] >= 1)
            out[n++] = s[i];
    return n;
}

/* A product of few rows (2 MR + 3) whose packed B block (K x N) is over a
 * quarter of L2: gemm_block then cuts its columns into blocks whose packed
 * block takes an eighth of L2, about 6 micro-panels here, the last block's
 * last panel partial (N = 14 NR + 5). K within one K block. */
static void lowp_colblock_shape(const gemm_kern_t *kn, int64_t kc, int64_t *M, int64_t *N,
                                int64_t *K)
{
    const size_t l2 = base_cpu()->l2 ? base_cpu()->l2 : (size_t)1 << 20;
    int64_t k = (int64_t)(l2 / (8 * (size_t)kn->esz * 6 * (size_t)kn->nr));
    *K = k < kc ? k : kc;
    *M = 2 * kn->mr + 3;
    *N = 14 * kn->nr + 5;
}

typedef void (*lowp_check_fn)(const gemm_kern_t *kn);

/* kern_for(cap) for every cap from the level in force down to ref, each
 * distinct variant once */
static void lowp_each_variant(void (*kern_for)(cairn_isa_t, gemm_kern_t *), lowp_check_fn fn)
{
    cairn_isa_t level = base_isa_select(CAIRN_ISA_AUTO);
    const char *done[8];
    int nd = 0;
    for (cairn_isa_t cap = level; cap >= CAIRN_ISA_REF; cap--) {
        gemm_kern_t kn;
        kern_for(cap, &kn);
        int seen = 0;
        for (int i = 0; i < nd; i++)
            seen |= !strcmp(done[i], kn.name);
        if (seen)
            continue;
        done[nd++] = kn.name;
        printf("variant %s (MR=%d NR=%d, K groups of %d)\n", kn.name, kn.mr, kn.nr, kn.kg);
        fn(&kn);
    }
}

#endif
