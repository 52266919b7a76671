/* Base layer: errors, dtype conversions, CPU detection, the thread pool. */
#define _POSIX_C_SOURCE 200809L
#include "base/alloc.h"
#include "base/clock.h"
#include "base/cpu.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/threadpool.h"
#include "check.h"

#include <stdatomic.h>
#include <stdlib.h>

static void test_errors(void)
{
    base_error_clear();
    CHECK(cairn_last_error()[0] == 0);
    CHECK(base_error(CAIRN_ERR_SHAPE, "bad %d", 7) == CAIRN_ERR_SHAPE);
    CHECK(strcmp(cairn_last_error(), "bad 7") == 0);
    CHECK(base_error_prefix(CAIRN_ERR_SHAPE, "node '%s': ", "n1") == CAIRN_ERR_SHAPE);
    CHECK(strcmp(cairn_last_error(), "node 'n1': bad 7") == 0);
    /* a very long prefix is cut, not overrun */
    char big[4000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    base_error(CAIRN_ERR_IO, "%s", big);
    base_error_prefix(CAIRN_ERR_IO, "%s", big);
    CHECK(strlen(cairn_last_error()) < 4000);
    for (int s = CAIRN_OK; s <= CAIRN_ERR_INTERNAL; s++)
        CHECK(strcmp(cairn_status_string((cairn_status_t)s), "unknown status") != 0);
    char buf[64];
    int64_t d[3] = {2, -1, 5};
    CHECK(strcmp(base_fmt_dims(buf, sizeof buf, d, 3), "[2,?,5]") == 0);
    size_t out;
    CHECK(!base_mul_size(SIZE_MAX / 2, 3, &out));
    CHECK(base_mul_size(1000, 1000, &out) && out == 1000000);
    void *p = base_aligned_alloc(100, 64);
    CHECK(p && ((uintptr_t)p & 63) == 0);
    base_aligned_free(p);
    /* a large allocation (huge-page eligible unless CAIRN_HUGE_PAGES=0):
     * 2 MB aligned when eligible, every byte of the odd size writable (the
     * rounding up never shortens it), freed as any other */
    const size_t nbig = BASE_HUGE_MIN + 12345;
    unsigned char *q = base_aligned_alloc(nbig, 64);
    CHECK(q && ((uintptr_t)q & 63) == 0);
    if (q) {
        CHECK(!base_huge_pages() || ((uintptr_t)q & (((uintptr_t)2 << 20) - 1)) == 0);
        memset(q, 0xA5, nbig);
        CHECK(q[0] == 0xA5 && q[nbig - 1] == 0xA5);
    }
    base_aligned_free(q);
}

/* Converts through double in a way independent of the bit tricks. */
static double half_value(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0)
        v = ldexp(m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(1024 + m, e - 25);
    return sign ? -v : v;
}

static void test_half(void)
{
    /* every f16 value decodes right and re-encodes to itself */
    int bad_dec = 0, bad_rt = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = base_f16_to_f32((uint16_t)h);
        double want = half_value((uint16_t)h);
        if (isnan(want) ? !isnan(f) : (double)f != want)
            bad_dec++;
        uint16_t back = base_f32_to_f16(f);
        if (!isnan(want) && back != h)
            bad_rt++;
        if (isnan(want) && !isnan(base_f16_to_f32(back)))
            bad_rt++;
    }
    CHECK_MSG(bad_dec == 0, "%d f16 values decode wrong", bad_dec);
    CHECK_MSG(bad_rt == 0, "%d f16 values do not round-trip", bad_rt);
    /* rounding to nearest even, overflow, underflow */
    CHECK(base_f32_to_f16(1.0f + ldexpf(1, -11)) == 0x3c00);              /* tie -> even */
    CHECK(base_f32_to_f16(1.0f + 3 * ldexpf(1, -11)) == 0x3c02);          /* tie -> even up */
    CHECK(base_f32_to_f16(65504.0f) == 0x7bff);
    CHECK(base_f32_to_f16(65520.0f) == 0x7c00);                          /* rounds to inf */
    CHECK(base_f32_to_f16(ldexpf(1, -25)) == 0);                         /* tie -> 0 */
    CHECK(base_f32_to_f16(ldexpf(1.5f, -25)) == 1);
    CHECK(base_f32_to_f16(-0.0f) == 0x8000);
    /* bf16: truncation with round to nearest even; NaN stays NaN */
    CHECK(base_f32_to_bf16(1.0f) == 0x3f80);
    CHECK(base_bf16_to_f32(0x3f80) == 1.0f);
    CHECK(base_f32_to_bf16(1.0f + ldexpf(1, -8)) == 0x3f80);             /* tie -> even */
    CHECK(base_f32_to_bf16(1.0f + 3 * ldexpf(1, -8)) == 0x3f82);
    CHECK(isnan(base_bf16_to_f32(base_f32_to_bf16(NAN))));
    CHECK(base_f32_to_bf16(INFINITY) == 0x7f80);
    CHECK(cairn_dtype_size(CAIRN_BF16) == 2 && cairn_dtype_size(CAIRN_I64) == 8 &&
          cairn_dtype_size((cairn_dtype_t)99) == 0);
    CHECK(strcmp(cairn_dtype_name(CAIRN_F16), "f16") == 0);
}

static void test_cpu(void)
{
    const base_cpu_t *c = base_cpu();
    CHECK(c == base_cpu());
    CHECK(c->logical_cpus >= 1);
    CHECK(c->model[0] != 0);
    /* features form a lattice: nothing above a level without the level */
    if (c->avx512f)
        CHECK(c->avx);
    if (c->avx2)
        CHECK(c->avx);
    if (c->avx512_bf16 || c->avx512_vnni || c->avx512bw)
        CHECK(c->avx512f);
    if (c->amx_bf16 || c->amx_int8)
        CHECK(c->amx_tile);
#if defined(__x86_64__)
    CHECK(c->best_isa >= CAIRN_ISA_REF);
    CHECK(c->sse42); /* every x86-64 machine we build for has it */
    CHECK(c->l1d > 0 && c->l2 > 0);
#endif
    CHECK(base_isa_select(CAIRN_ISA_REF) == CAIRN_ISA_REF);
    CHECK(base_isa_select(CAIRN_ISA_AUTO) == c->best_isa || getenv("CAIRN_ISA"));
    cairn_isa_t isa;
    CHECK_OK(cairn_isa_parse("avx2", &isa));
    CHECK(isa == CAIRN_ISA_AVX2);
    CHECK_FAILS(cairn_isa_parse("sse9", &isa), CAIRN_ERR_INVALID_ARGUMENT, "sse9");
    setenv("CAIRN_ISA", "ref", 1);
    CHECK(base_isa_select(CAIRN_ISA_AUTO) == CAIRN_ISA_REF);
    unsetenv("CAIRN_ISA");
    char feats[512];
    base_cpu_features_string(c, feats, sizeof feats);
    if (c->avx2)
        CHECK(strstr(feats, "avx2") != NULL);
}

typedef struct hits {
    _Atomic int *count;
    _Atomic int max_worker;
} hits_t;

static void mark_1d(void *ctx, size_t b, size_t e, int worker)
{
    hits_t *h = ctx;
    for (size_t i = b; i < e; i++)
        atomic_fetch_add(&h->count[i], 1);
    int m = atomic_load(&h->max_worker);
    while (worker > m && !atomic_compare_exchange_weak(&h->max_worker, &m, worker))
        ;
}

static void mark_2d(void *ctx, size_t i0, size_t n0, size_t i1, size_t n1, int worker)
{
    hits_t *h = ctx;
    (void)worker;
    for (size_t a = i0; a < i0 + n0; a++)
        for (size_t b = i1; b < i1 + n1; b++)
            atomic_fetch_add(&h->count[a * 37 + b], 1);
}

static base_pool_t *g_nested_pool;
static void nested(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    /* a parallel-for from inside a task runs serially, and still covers its range */
    for (size_t i = b; i < e; i++)
        base_pool_parallel_for_1d(g_nested_pool, 1, 1, mark_1d, ctx);
}

static void test_pool(void)
{
    for (int threads = 1; threads <= 4; threads++) {
        base_pool_t *p;
        CHECK_OK(base_pool_create(threads, &p));
        CHECK(base_pool_threads(p) == threads);
        size_t sizes[] = {1, 2, 3, 7, 64, 1000, 4097};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (size_t grain = 0; grain <= 5; grain += 5) {
                size_t n = sizes[si];
                _Atomic int *cnt = calloc(n, sizeof *cnt);
                hits_t h = {cnt, 0};
                base_pool_parallel_for_1d(p, n, grain, mark_1d, &h);
                int ok = 1;
                for (size_t i = 0; i < n; i++)
                    ok &= atomic_load(&cnt[i]) == 1;
                CHECK_MSG(ok, "threads %d, n %zu, grain %zu: not every index once", threads, n,
                          grain);
                CHECK(atomic_load(&h.max_worker) < threads);
                free(cnt);
            }
        /* 2-D tiles, ragged edges */
        _Atomic int *cnt = calloc(23 * 37, sizeof *cnt);
        hits_t h = {cnt, 0};
        base_pool_parallel_for_2d(p, 23, 37, 4, 5, mark_2d, &h);
        int ok = 1;
        for (int i = 0; i < 23 * 37; i++)
            ok &= atomic_load(&cnt[i]) == 1;
        CHECK(ok);
        /* many back-to-back dispatches (lost wake-ups would hang here) */
        memset(cnt, 0, 23 * 37 * sizeof *cnt);
        for (int r = 0; r < 2000; r++)
            base_pool_parallel_for_1d(p, 8, 1, mark_1d, &h);
        ok = 1;
        for (int i = 0; i < 8; i++)
            ok &= atomic_load(&cnt[i]) == 2000;
        CHECK(ok);
        /* nested parallel-for */
        memset(cnt, 0, 23 * 37 * sizeof *cnt);
        g_nested_pool = p;
        base_pool_parallel_for_1d(p, 10, 1, nested, &h);
        CHECK(atomic_load(&cnt[0]) == 10);
        free(cnt);
        base_pool_destroy(p);
    }
    /* a NULL pool runs serially */
    _Atomic int cnt[5] = {0};
    hits_t h = {cnt, 0};
    base_pool_parallel_for_1d(NULL, 5, 2, mark_1d, &h);
    CHECK(atomic_load(&cnt[4]) == 1);
    /* wake-up after workers went to sleep */
    base_pool_t *p;
    CHECK_OK(base_pool_create(2, &p));
    uint64_t t0 = base_now_ns();
    while (base_now_ns() - t0 < 5000000) /* 5 ms: longer than the spin phase */
        ;
    _Atomic int c2[4] = {0};
    hits_t h2 = {c2, 0};
    base_pool_parallel_for_1d(p, 4, 1, mark_1d, &h2);
    CHECK(atomic_load(&c2[3]) == 1);
    base_pool_destroy(p);
    CHECK(base_now_ns() > t0);
}

int main(void)
{
    test_errors();
    test_half();
    test_cpu();
    test_pool();
    return check_finish("test_base");
}
