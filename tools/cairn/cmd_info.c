/* cairn info: what cairn sees of this machine. */
#include "base/cpu.h"
#include "cmd.h"

#include <stdio.h>
#include <string.h>

static void print_size(const char *label, size_t bytes)
{
    if (!bytes)
        printf("%-14s unknown\n", label);
    else if (bytes >= (1u << 20))
        printf("%-14s %zu MiB\n", label, bytes >> 20);
    else
        printf("%-14s %zu KiB\n", label, bytes >> 10);
}

int cmd_info(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: cairn info\n\nPrints the CPU model, the features cairn can use (CPUID and "
               "OS support),\nthe ISA level it chooses (capped by CAIRN_ISA), cache sizes and "
               "threads.\n");
        return 0;
    }
    const base_cpu_t *c = base_cpu();
    char feats[512];
    base_cpu_features_string(c, feats, sizeof feats);
    printf("%-14s %s\n", "cpu", c->model);
    printf("%-14s %s (family %d, model %d, stepping %d)\n", "vendor", c->vendor, c->family,
           c->model_id, c->stepping);
    printf("%-14s %s\n", "features", feats[0] ? feats : "(none)");
    printf("%-14s %s (best available: %s)\n", "isa", cairn_isa_name(base_isa_select(CAIRN_ISA_AUTO)),
           cairn_isa_name(c->best_isa));
    print_size("l1d", c->l1d);
    print_size("l2", c->l2);
    print_size("l3", c->l3);
    printf("%-14s %zu B\n", "cache line", c->cache_line);
    if (c->avx512f)
        printf("%-14s %s\n", "zmm",
               c->zmm_halves ? "two 256-bit halves (one zmm FMA per cycle)" : "full width");
    printf("%-14s %d\n", "threads", c->logical_cpus);
    return 0;
}
