#define _POSIX_C_SOURCE 200809L
#include "base/alloc.h"

#include <stdint.h>
#include <stdlib.h>

void *base_aligned_alloc(size_t size, size_t align)
{
    void *p = NULL;
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (size == 0)
        size = align;
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
