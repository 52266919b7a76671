/*
 * The table of f32 GEMM micro-kernel variants, best first, and the
 * dispatch: the first row whose ISA level is within base_isa_select() (the
 * CPU's best, capped by CAIRN_ISA) is chosen once per process. With
 * CAIRN_VERBOSE=1 the choice and the reason each better row was passed
 * over are printed to stderr.
 */
#include "kernels/gemm/gemm_f32_internal.h"

#include "base/cpu.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

const gemm_f32_variant_t gemm_f32_variants[] = {
    {"avx512_14x32", CAIRN_ISA_AVX512, 14, 32, gemm_f32_ukernel_14x32_avx512,
     gemm_f32_smallm_avx512, gemm_f32_pack_a_avx512, gemm_f32_pack_b_avx512},
    {"avx2_6x16", CAIRN_ISA_AVX2, 6, 16, gemm_f32_ukernel_6x16_avx2, gemm_f32_smallm_avx2, NULL,
     NULL},
    {"ref_4x8", CAIRN_ISA_REF, 4, 8, gemm_f32_ukernel_ref_4x8, gemm_f32_smallm_ref, NULL, NULL},
};
const int gemm_f32_n_variants = (int)(sizeof gemm_f32_variants / sizeof gemm_f32_variants[0]);

static int variant_usable(const gemm_f32_variant_t *v, cairn_isa_t level)
{
#if !defined(__x86_64__)
    if (v->isa != CAIRN_ISA_REF)
        return 0;
#endif
    return v->isa <= level;
}

const gemm_f32_variant_t *gemm_f32_variant_for(cairn_isa_t cap)
{
    cairn_isa_t best = base_cpu()->best_isa;
    cairn_isa_t level = cap != CAIRN_ISA_AUTO && cap < best ? cap : best;
    for (int i = 0; i < gemm_f32_n_variants; i++)
        if (variant_usable(&gemm_f32_variants[i], level))
            return &gemm_f32_variants[i];
    return &gemm_f32_variants[gemm_f32_n_variants - 1];
}

static _Atomic(const gemm_f32_variant_t *) g_chosen;

const gemm_f32_variant_t *gemm_f32_select(void)
{
    const gemm_f32_variant_t *v = atomic_load_explicit(&g_chosen, memory_order_acquire);
    if (v)
        return v;
    cairn_isa_t level = base_isa_select(CAIRN_ISA_AUTO);
    v = gemm_f32_variant_for(level);
    const char *verbose = getenv("CAIRN_VERBOSE");
    const gemm_f32_variant_t *expected = NULL;
    /* only the thread that installs the choice reports it */
    if (atomic_compare_exchange_strong(&g_chosen, &expected, v)) {
        if (verbose && verbose[0] && verbose[0] != '0') {
            const base_cpu_t *cpu = base_cpu();
            for (int i = 0; i < gemm_f32_n_variants && &gemm_f32_variants[i] != v; i++) {
                const gemm_f32_variant_t *r = &gemm_f32_variants[i];
                fprintf(stderr, "cairn: gemm f32: skipping %s: needs ISA %s, %s\n", r->name,
                        cairn_isa_name(r->isa),
                        r->isa > cpu->best_isa ? "which this CPU does not have"
                                               : "above the cap (CAIRN_ISA)");
            }
            fprintf(stderr, "cairn: gemm f32: using %s (MR=%d, NR=%d, ISA %s)\n", v->name, v->mr,
                    v->nr, cairn_isa_name(v->isa));
        }
        return v;
    }
    return expected;
}

const char *gemm_f32_variant_name(void) { return gemm_f32_select()->name; }
