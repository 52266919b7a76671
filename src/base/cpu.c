/* CPU feature detection: CPUID + XGETBV on x86-64, a plain answer on aarch64. */
#define _GNU_SOURCE
#include "base/cpu.h"
#include "base/status.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static unsigned long long xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

/* Linux hands AMX tile state to a process only after it asks. */
static int amx_permitted(void)
{
#if defined(__linux__) && defined(SYS_arch_prctl)
    const int ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18;
    return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
#else
    return 0;
#endif
}

/* Deterministic cache parameters: leaf 4 (Intel) or 0x8000001D (AMD). */
static void detect_caches(base_cpu_t *c, unsigned leaf)
{
    for (unsigned sub = 0; sub < 16; sub++) {
        unsigned r[4];
        cpuid(leaf, sub, r);
        unsigned type = r[0] & 0x1f;
        if (type == 0)
            break;
        unsigned level = (r[0] >> 5) & 7;
        size_t ways = ((r[1] >> 22) & 0x3ff) + 1;
        size_t parts = ((r[1] >> 12) & 0x3ff) + 1;
        size_t line = (r[1] & 0xfff) + 1;
        size_t sets = (size_t)r[2] + 1;
        size_t size = ways * parts * line * sets;
        if (level == 1 && (type == 1 || type == 3))
            c->l1d = size, c->cache_line = line;
        else if (level == 2 && type != 2)
            c->l2 = size;
        else if (level == 3 && type != 2)
            c->l3 = size;
    }
}

static void detect(base_cpu_t *c)
{
    unsigned r[4];
    cpuid(0, 0, r);
    unsigned max_leaf = r[0];
    memcpy(c->vendor, &r[1], 4);
    memcpy(c->vendor + 4, &r[3], 4);
    memcpy(c->vendor + 8, &r[2], 4);
    c->vendor[12] = 0;

    cpuid(0x80000000u, 0, r);
    unsigned max_ext = r[0];
    if (max_ext >= 0x80000004u) {
        char brand[49];
        for (unsigned i = 0; i < 3; i++) {
            cpuid(0x80000002u + i, 0, r);
            memcpy(brand + 16 * i, r, 16);
        }
        brand[48] = 0;
        const char *b = brand;
        while (*b == ' ')
            b++;
        snprintf(c->model, sizeof c->model, "%s", b);
    }

    cpuid(1, 0, r);
    unsigned ecx1 = r[2];
    c->stepping = r[0] & 0xf;
    c->family = (r[0] >> 8) & 0xf;
    c->model_id = (r[0] >> 4) & 0xf;
    if (c->family == 0xf)
        c->family += (r[0] >> 20) & 0xff;
    if (c->family >= 6)
        c->model_id |= ((r[0] >> 16) & 0xf) << 4;

    int osxsave = (ecx1 >> 27) & 1;
    unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
    int os_ymm = (xcr0 & 0x6) == 0x6;            /* SSE + AVX state */
    int os_zmm = os_ymm && (xcr0 & 0xe0) == 0xe0; /* opmask, ZMM_Hi256, Hi16_ZMM */
    int os_amx = (xcr0 & 0x60000ull) == 0x60000ull; /* XTILECFG, XTILEDATA */

    c->sse42 = (ecx1 >> 20) & 1;
    c->avx = os_ymm && ((ecx1 >> 28) & 1);
    c->fma = c->avx && ((ecx1 >> 12) & 1);
    c->f16c = c->avx && ((ecx1 >> 29) & 1);
    if (max_leaf >= 7) {
        cpuid(7, 0, r);
        unsigned ebx7 = r[1], edx7 = r[3];
        c->avx2 = c->avx && ((ebx7 >> 5) & 1);
        c->avx512f = os_zmm && ((ebx7 >> 16) & 1);
        c->avx512dq = c->avx512f && ((ebx7 >> 17) & 1);
        c->avx512bw = c->avx512f && ((ebx7 >> 30) & 1);
        c->avx512vl = c->avx512f && ((ebx7 >> 31) & 1);
        c->avx512_vnni = c->avx512f && ((r[2] >> 11) & 1);
        c->avx512_vbmi = c->avx512f && ((r[2] >> 1) & 1);
        c->amx_bf16 = (edx7 >> 22) & 1;
        c->amx_tile = (edx7 >> 24) & 1;
        c->amx_int8 = (edx7 >> 25) & 1;
        cpuid(7, 1, r);
        c->avx512_bf16 = c->avx512f && ((r[0] >> 5) & 1);
        c->avx_vnni = c->avx && ((r[0] >> 4) & 1);
        if (c->amx_tile && !(os_amx && amx_permitted()))
            c->amx_tile = c->amx_bf16 = c->amx_int8 = 0;
        if (!c->amx_tile)
            c->amx_bf16 = c->amx_int8 = 0;
    }

    c->zmm_halves = c->avx512f && strcmp(c->vendor, "AuthenticAMD") == 0 && c->family == 0x19;
    if (strcmp(c->vendor, "AuthenticAMD") == 0 && max_ext >= 0x8000001Du)
        detect_caches(c, 0x8000001Du);
    else if (max_leaf >= 4)
        detect_caches(c, 4);
}
#else
static void detect(base_cpu_t *c)
{
    snprintf(c->vendor, sizeof c->vendor, "%s", "unknown");
#if defined(__aarch64__)
    snprintf(c->model, sizeof c->model, "%s", "aarch64");
    c->neon = 1; /* mandatory on AArch64 */
#endif
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    long v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    c->l1d = v > 0 ? (size_t)v : 0;
    v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    c->l2 = v > 0 ? (size_t)v : 0;
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    c->l3 = v > 0 ? (size_t)v : 0;
#endif
}
#endif

static base_cpu_t g_cpu;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void detect_once(void)
{
    memset(&g_cpu, 0, sizeof g_cpu);
    detect(&g_cpu);
    if (!g_cpu.model[0])
        snprintf(g_cpu.model, sizeof g_cpu.model, "%s", "unknown");
    if (!g_cpu.cache_line)
        g_cpu.cache_line = 64;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    g_cpu.logical_cpus = n > 0 ? (int)n : 1;
    cairn_isa_t best = CAIRN_ISA_REF;
    if (g_cpu.avx2 && g_cpu.fma && g_cpu.f16c)
        best = CAIRN_ISA_AVX2;
    if (best == CAIRN_ISA_AVX2 && g_cpu.avx512f && g_cpu.avx512bw && g_cpu.avx512vl &&
        g_cpu.avx512dq)
        best = CAIRN_ISA_AVX512;
    if (best == CAIRN_ISA_AVX512 && g_cpu.avx512_bf16 && g_cpu.avx512_vnni)
        best = CAIRN_ISA_AVX512_BF16_VNNI;
    if (best == CAIRN_ISA_AVX512_BF16_VNNI && g_cpu.amx_tile && g_cpu.amx_bf16 && g_cpu.amx_int8)
        best = CAIRN_ISA_AMX;
    g_cpu.best_isa = best;
}

const base_cpu_t *base_cpu(void)
{
    pthread_once(&g_once, detect_once);
    return &g_cpu;
}

cairn_isa_t base_isa_select(cairn_isa_t cap)
{
    cairn_isa_t isa = base_cpu()->best_isa;
    if (cap != CAIRN_ISA_AUTO && cap < isa)
        isa = cap;
    const char *env = getenv("CAIRN_ISA");
    cairn_isa_t env_cap;
    if (env && *env && cairn_isa_parse(env, &env_cap) == CAIRN_OK && env_cap != CAIRN_ISA_AUTO &&
        env_cap < isa)
        isa = env_cap;
    return isa;
}

void base_cpu_features_string(const base_cpu_t *c, char *buf, size_t cap)
{
    const struct {
        const char *name;
        int on;
    } f[] = {{"sse4.2", c->sse42},         {"avx", c->avx},
             {"avx2", c->avx2},            {"fma", c->fma},
             {"f16c", c->f16c},            {"avx512f", c->avx512f},
             {"avx512bw", c->avx512bw},    {"avx512vl", c->avx512vl},
             {"avx512dq", c->avx512dq},    {"avx512_bf16", c->avx512_bf16},
             {"avx512_vnni", c->avx512_vnni}, {"avx512_vbmi", c->avx512_vbmi},
             {"avx_vnni", c->avx_vnni},
             {"amx_tile", c->amx_tile},    {"amx_bf16", c->amx_bf16},
             {"amx_int8", c->amx_int8},    {"neon", c->neon}};
    size_t u = 0;
    if (!cap)
        return;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0] && u < cap; i++)
        if (f[i].on)
            u += (size_t)snprintf(buf + u, cap - u, "%s%s", u ? " " : "", f[i].name);
}

const char *cairn_isa_name(cairn_isa_t isa)
{
    switch (isa) {
    case CAIRN_ISA_AUTO: return "auto";
    case CAIRN_ISA_REF: return "ref";
    case CAIRN_ISA_AVX2: return "avx2";
    case CAIRN_ISA_AVX512: return "avx512";
    case CAIRN_ISA_AVX512_BF16_VNNI: return "avx512_bf16";
    case CAIRN_ISA_AMX: return "amx";
    }
    return "?";
}

cairn_status_t cairn_isa_parse(const char *text, cairn_isa_t *out)
{
    static const struct {
        const char *name;
        cairn_isa_t isa;
    } names[] = {{"auto", CAIRN_ISA_AUTO},
                 {"ref", CAIRN_ISA_REF},
                 {"avx2", CAIRN_ISA_AVX2},
                 {"avx512", CAIRN_ISA_AVX512},
                 {"avx512_bf16", CAIRN_ISA_AVX512_BF16_VNNI},
                 {"avx512_vnni", CAIRN_ISA_AVX512_BF16_VNNI},
                 {"amx", CAIRN_ISA_AMX}};
    if (!text || !out)
        return base_error(CAIRN_ERR_INVALID_ARGUMENT, "isa_parse: NULL argument");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(text, names[i].name) == 0) {
            *out = names[i].isa;
            return CAIRN_OK;
        }
    return base_error(CAIRN_ERR_INVALID_ARGUMENT,
                      "unknown ISA '%s'; use ref, avx2, avx512, avx512_bf16, amx or auto", text);
}
