#define _DEFAULT_SOURCE /* madvise */
#include "base/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

int base_huge_pages(void)
{
    static atomic_int on = -1;
    int v = atomic_load_explicit(&on, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv("CAIRN_HUGE_PAGES");
        v = !(e && e[0] == '0');
        atomic_store(&on, v);
    }
    return v;
}

void *base_aligned_alloc(size_t size, size_t align)
{
    void *p = NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (size == 0)
        size = align;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (size >= BASE_HUGE_MIN && base_huge_pages()) {
        const size_t huge = (size_t)2 << 20;
        if (align < huge)
            align = huge;
        size = (size + huge - 1) / huge * huge;
        if (posix_memalign(&p, align, size) != 0)
            return NULL;
        (void)madvise(p, size, MADV_HUGEPAGE);
        return p;
    }
#endif
    if (posix_memalign(&p, align, size) != 0)
        return NULL;
    return p;
}

void base_aligned_free(void *p) { free(p); }

int base_mul_size(size_t n, size_t m, size_t *out)
{
    if (n != 0 && m > SIZE_MAX / n)
        return 0;
    *out = n * m;
    return 1;
}

#define SCRATCH_SLOTS 32
/* Under AddressSanitizer a slot is reallocated to exactly the bytes asked
 * for on every get, so that a kernel writing past its scratch (which a
 * reused, larger slot would hide) is reported. */
#if defined(__SANITIZE_ADDRESS__)
#define SCRATCH_EXACT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCRATCH_EXACT 1
#endif
#endif
#ifndef SCRATCH_EXACT
#define SCRATCH_EXACT 0
#endif
static struct {
    atomic_int busy;
    void *p;
    size_t cap;
} g_scratch[SCRATCH_SLOTS];

void *base_scratch_get(size_t bytes, int *slot)
{
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        int z = 0;
        if (!atomic_compare_exchange_strong(&g_scratch[i].busy, &z, 1))
            continue;
        if (g_scratch[i].cap < bytes || (SCRATCH_EXACT && g_scratch[i].cap != bytes)) {
            base_aligned_free(g_scratch[i].p);
            g_scratch[i].p = base_aligned_alloc(bytes, BASE_ALIGN);
            g_scratch[i].cap = g_scratch[i].p ? bytes : 0;
            if (!g_scratch[i].p) {
                atomic_store(&g_scratch[i].busy, 0);
                return NULL;
            }
        }
        *slot = i;
        return g_scratch[i].p;
    }
    *slot = -1;
    return base_aligned_alloc(bytes, BASE_ALIGN);
}

void base_scratch_put(void *p, int slot)
{
    if (slot < 0)
        base_aligned_free(p);
    else
        atomic_store(&g_scratch[slot].busy, 0);
}
