/* The f32 2-D max-pooling fast path (no indices, no dilation) against the
 * general N-d kernel (taken when indices are asked for): bit-identical on
 * random geometries, with NaNs, signed zeros, padding and ceil-mode edges. */
#include "check.h"
#include "base/threadpool.h"
#include "kernels/pool/pool.h"

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A random 2-D pooling geometry over H x W: windows 1 to kmax, strides 1
 * to 3, pads below the window, the output sized by floor or ceil mode as
 * the op would (a last window starting in the padding dropped); with big,
 * ResNet-50's stem pool (3x3, stride 2, pad 1). 0 when the window does not
 * fit. */
static int random_geom(check_rng_t *r, int64_t H, int64_t W, int64_t kmax, int big,
                       kpool_params_t *p, int64_t out[2])
{
    memset(p, 0, sizeof *p);
    p->nsp = 2;
    for (int d = 0; d < 2; d++) {
        int64_t in = d ? W : H;
        p->kernel[d] = big ? 3 : 1 + (int64_t)(check_rng_next(r) % (uint64_t)kmax);
        p->stride[d] = big ? 2 : 1 + (int64_t)(check_rng_next(r) % 3);
        p->dilation[d] = 1;
        p->pad_begin[d] = big ? 1 : (int64_t)(check_rng_next(r) % (uint64_t)p->kernel[d]);
        p->pad_end[d] = big ? 1 : (int64_t)(check_rng_next(r) % (uint64_t)p->kernel[d]);
        int64_t span = in + p->pad_begin[d] + p->pad_end[d] - p->kernel[d];
        if (span < 0)
            return 0;
        out[d] = (check_rng_next(r) & 1) ? span / p->stride[d] + 1
                                          : (span + p->stride[d] - 1) / p->stride[d] + 1;
        if ((out[d] - 1) * p->stride[d] - p->pad_begin[d] >= in)
            out[d]--;
    }
    return 1;
}

/* The 8-bit 2-D rows (kpool_max_8bit_fast: u8, and i8 flipped; stride 1
 * and 2, other strides the scalar rows) against the N-d kernel, on widths
 * around the 32-byte vectors (the last part vector overlapping the one
 * before), bytes over the whole range with runs of the extremes, pads up
 * to the window less one, floor and ceil sizes; a large case on 2
 * threads. */
static void test_8bit(void)
{
    check_rng_t r = {8};
    base_pool_t *pool = NULL;
    CHECK_OK(base_pool_create(2, &pool));
    int cases = 0;
    for (int it = 0; it < 500; it++) {
        const cairn_dtype_t t = it % 2 ? CAIRN_I8 : CAIRN_U8;
        const int big = it % 50 == 49;
        int64_t N = 1 + (int64_t)(check_rng_next(&r) % 2), C = 1 + (int64_t)(check_rng_next(&r) % 3);
        int64_t H = 1 + (int64_t)(check_rng_next(&r) % 20);
        int64_t W = 1 + (int64_t)(check_rng_next(&r) % 150);
        if (big)
            C = 64, H = 112, W = 112;
        kpool_params_t p;
        int64_t out[2];
        if (!random_geom(&r, H, W, 5, big, &p, out))
            continue;
        cases++;
        int64_t nx = N * C * H * W, ny = N * C * out[0] * out[1];
        uint8_t *x = malloc((size_t)nx), *y1 = malloc((size_t)ny), *y2 = malloc((size_t)ny);
        int64_t *ind = malloc((size_t)ny * sizeof *ind);
        const uint8_t lo = t == CAIRN_I8 ? 0x80 : 0x00, hi = t == CAIRN_I8 ? 0x7f : 0xff;
        for (int64_t i = 0; i < nx; i++) {
            uint64_t u = check_rng_next(&r);
            x[i] = u % 7 == 0 ? lo : u % 11 == 0 ? hi : (uint8_t)(u >> 8);
        }
        memset(y1, 0x5a, (size_t)ny), memset(y2, 0xa5, (size_t)ny);
        ktensor_t xt = {t, 4, {N, C, H, W}, x};
        ktensor_t yt1 = {t, 4, {N, C, out[0], out[1]}, y1};
        ktensor_t yt2 = {t, 4, {N, C, out[0], out[1]}, y2};
        ktensor_t it_ = {CAIRN_I64, 4, {N, C, out[0], out[1]}, ind};
        kctx_t k = {pool, 2};
        CHECK_OK(kpool_max(&xt, &yt1, NULL, &p, it % 3 == 0 || big ? &k : NULL));
        CHECK_OK(kpool_max(&xt, &yt2, &it_, &p, NULL));
        int64_t bad = 0;
        for (int64_t i = 0; i < ny; i++)
            bad += y1[i] != y2[i];
        CHECK_MSG(bad == 0,
                  "8-bit case %d (%s): %lld outputs differ ([%lld,%lld,%lld,%lld] k %lldx%lld "
                  "s %lldx%lld pads %lld,%lld)",
                  it, cairn_dtype_name(t), (long long)bad, (long long)N, (long long)C,
                  (long long)H, (long long)W, (long long)p.kernel[0], (long long)p.kernel[1],
                  (long long)p.stride[0], (long long)p.stride[1], (long long)p.pad_begin[1],
                  (long long)p.pad_end[1]);
        free(x), free(y1), free(y2), free(ind);
    }
    CHECK(cases > 300);
    base_pool_destroy(pool);
}

int main(void)
{
    test_8bit();
    check_rng_t r = {7};
    int cases = 0;
    for (int it = 0; it < 400; it++) {
        int64_t N = 1 + (int64_t)(check_rng_next(&r) % 2), C = 1 + (int64_t)(check_rng_next(&r) % 3);
        int64_t H = 1 + (int64_t)(check_rng_next(&r) % 13), W = 1 + (int64_t)(check_rng_next(&r) % 13);
        kpool_params_t p;
        int64_t out[2];
        if (!random_geom(&r, H, W, 4, 0, &p, out))
            continue;
        cases++;
        int64_t nx = N * C * H * W, ny = N * C * out[0] * out[1];
        float *x = malloc((size_t)nx * sizeof *x), *y1 = malloc((size_t)ny * sizeof *y1),
              *y2 = malloc((size_t)ny * sizeof *y2);
        int64_t *ind = malloc((size_t)ny * sizeof *ind);
        check_fill_f32(&r, x, nx, -4, 4);
        for (int64_t i = 0; i < nx; i++) {
            uint64_t u = check_rng_next(&r) % 40;
            if (u == 0)
                x[i] = NAN;
            else if (u == 1)
                x[i] = -0.0f;
            else if (u == 2)
                x[i] = 0.0f;
            else if (u == 3)
                x[i] = (float)(int)x[i]; /* ties */
        }
        for (int64_t i = 0; i < ny; i++)
            y1[i] = y2[i] = 12345.0f;
        ktensor_t xt = {CAIRN_F32, 4, {N, C, H, W}, x};
        ktensor_t yt1 = {CAIRN_F32, 4, {N, C, out[0], out[1]}, y1};
        ktensor_t yt2 = {CAIRN_F32, 4, {N, C, out[0], out[1]}, y2};
        ktensor_t it_ = {CAIRN_I64, 4, {N, C, out[0], out[1]}, ind};
        CHECK_OK(kpool_max(&xt, &yt1, NULL, &p, NULL));
        CHECK_OK(kpool_max(&xt, &yt2, &it_, &p, NULL));
        int64_t bad = 0;
        for (int64_t i = 0; i < ny; i++)
            bad += !same_bits(y1[i], y2[i]) && !(isnan(y1[i]) && isnan(y2[i]));
        CHECK_MSG(bad == 0, "case %d: %lld outputs differ ([%lld,%lld,%lld,%lld] k %lldx%lld)", it,
                  (long long)bad, (long long)N, (long long)C, (long long)H, (long long)W,
                  (long long)p.kernel[0], (long long)p.kernel[1]);
        free(x), free(y1), free(y2), free(ind);
    }
    CHECK(cases > 200);
    return check_finish("test_pool_fast");
}
