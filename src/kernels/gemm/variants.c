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

/* Both x86 variants keep a B micro-panel in L1 while the A micro-panels
 * stream (b_in_l1 = 1): a weight panel then comes from memory once and is
 * used by every A panel while the next one is prefetched. For avx512_14x32
 * (Xeon, 1 thread) that order measured level on warm GEMMs and faster in
 * models, whose weights are cold: GPT-2 stack 169-174 -> 158-159 ms,
 * MiniLM encoder 23.6-24.1 -> 21.9-22.8 ms (2 threads 12.4-12.8 -> 11.2-11.5),
 * ResNet-50 and MobileNetV2 level. */
const gemm_f32_variant_t gemm_f32_variants[] = {
    {"avx512_14x32", CAIRN_ISA_AVX512, 14, 32, gemm_f32_ukernel_14x32_avx512,
     gemm_f32_smallm_avx512, gemm_f32_pack_a_avx512, gemm_f32_pack_b_avx512, 1,
     gemm_f32_indb_14x32_avx512, gemm_f32_tile_store_avx512, gemm_f32_gemv_packed_avx512,
     gemm_f32_inda_14x32_avx512,
     gemm_f32_tile_store_t_avx512, NULL, gemm_f32_indb_part_avx512, gemm_f32_inda_part_avx512,
     gemm_f32_ukernel_pf_14x32_avx512, gemm_f32_inda_pf_14x32_avx512, gemm_f32_indb_half_avx512,
     gemm_f32_ukernel_packb_14x32_avx512, gemm_f32_ukernel_packa_14x32_avx512,
     gemm_f32_inda_narrow_avx512},
    {"avx2_6x16", CAIRN_ISA_AVX2, 6, 16, gemm_f32_ukernel_6x16_avx2, gemm_f32_smallm_avx2,
     gemm_f32_pack_a_avx2, gemm_f32_pack_b_avx2, 1, gemm_f32_indb_6x16_avx2,
     gemm_f32_tile_store_avx2, gemm_f32_gemv_packed_avx2, gemm_f32_inda_6x16_avx2,
     gemm_f32_tile_store_t_avx2, gemm_f32_ukrun_6x16_avx2, gemm_f32_indb_part_avx2,
     gemm_f32_inda_part_avx2, NULL, NULL, NULL, NULL, NULL, NULL},
    {"ref_4x8", CAIRN_ISA_REF, 4, 8, gemm_f32_ukernel_ref_4x8, gemm_f32_smallm_ref, NULL, NULL, 0,
     gemm_f32_indb_ref_4x8, gemm_f32_tile_store_ref_4x8, NULL, gemm_f32_inda_ref_4x8,
     gemm_f32_tile_store_t_ref_4x8, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};
const int gemm_f32_n_variants = (int)(sizeof gemm_f32_variants / sizeof gemm_f32_variants[0]);

int gemm_verbose(void)
{
    const char *verbose = getenv("CAIRN_VERBOSE");
    return verbose && verbose[0] && verbose[0] != '0';
}

int gemm_table_pick(const char *what, int n, const char *const *names, const cairn_isa_t *isas,
                    cairn_isa_t cap, int report)
{
    const base_cpu_t *cpu = base_cpu();
    cairn_isa_t level = cap != CAIRN_ISA_AUTO && cap < cpu->best_isa ? cap : cpu->best_isa;
    int i = 0;
    for (; i < n - 1; i++) {
#if defined(__x86_64__)
        if (isas[i] <= level)
            break;
#else
        if (isas[i] == CAIRN_ISA_REF)
            break;
#endif
        if (report)
            fprintf(stderr, "cairn: gemm %s: skipping %s: needs ISA %s, %s\n", what, names[i],
                    cairn_isa_name(isas[i]),
                    isas[i] > cpu->best_isa ? "which this CPU does not have"
                                            : "above the cap (CAIRN_ISA)");
    }
    if (report)
        fprintf(stderr, "cairn: gemm %s: using %s (ISA %s)\n", what, names[i],
                cairn_isa_name(isas[i]));
    return i;
}

static int f32_pick(cairn_isa_t cap, int report)
{
    const char *names[8];
    cairn_isa_t isas[8];
    for (int i = 0; i < gemm_f32_n_variants; i++) {
        names[i] = gemm_f32_variants[i].name;
        isas[i] = gemm_f32_variants[i].isa;
    }
    return gemm_table_pick("f32", gemm_f32_n_variants, names, isas, cap, report);
}

const gemm_f32_variant_t *gemm_f32_variant_for(cairn_isa_t cap)
{
    return &gemm_f32_variants[f32_pick(cap, 0)];
}

static _Atomic(const gemm_f32_variant_t *) g_chosen;

const gemm_f32_variant_t *gemm_f32_select(void)
{
    const gemm_f32_variant_t *v = atomic_load_explicit(&g_chosen, memory_order_acquire);
    if (v)
        return v;
    const gemm_f32_variant_t *expected = NULL;
    v = gemm_f32_variant_for(base_isa_select(CAIRN_ISA_AUTO));
    /* only the thread that installs the choice reports it */
    if (atomic_compare_exchange_strong(&g_chosen, &expected, v)) {
        if (gemm_verbose())
            f32_pick(base_isa_select(CAIRN_ISA_AUTO), 1);
        return v;
    }
    return expected;
}

const char *gemm_f32_variant_name(void) { return gemm_f32_select()->name; }
