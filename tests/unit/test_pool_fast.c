/* The f32 2-D max-pooling fast path (no indices, no dilation) against the
 * general N-d kernel (taken when indices are asked for): bit-identical on
 * random geometries, with NaNs, signed zeros, padding and ceil-mode edges. */
#include "check.h"
#include "kernels/pool/pool.h"

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

int main(void)
{
    check_rng_t r = {7};
    int cases = 0;
    for (int it = 0; it < 400; it++) {
        int64_t N = 1 + (int64_t)(check_rng_next(&r) % 2), C = 1 + (int64_t)(check_rng_next(&r) % 3);
        int64_t H = 1 + (int64_t)(check_rng_next(&r) % 13), W = 1 + (int64_t)(check_rng_next(&r) % 13);
        kpool_params_t p;
        memset(&p, 0, sizeof p);
        p.nsp = 2;
        int64_t out[2];
        int ok = 1;
        for (int d = 0; d < 2; d++) {
            int64_t in = d ? W : H;
            p.kernel[d] = 1 + (int64_t)(check_rng_next(&r) % 4);
            p.stride[d] = 1 + (int64_t)(check_rng_next(&r) % 3);
            p.dilation[d] = 1;
            p.pad_begin[d] = (int64_t)(check_rng_next(&r) % (uint64_t)p.kernel[d]);
            p.pad_end[d] = (int64_t)(check_rng_next(&r) % (uint64_t)p.kernel[d]);
            int64_t span = in + p.pad_begin[d] + p.pad_end[d] - p.kernel[d];
            if (span < 0) {
                ok = 0;
                break;
            }
            /* floor or ceil mode, as the op would size it */
            out[d] = (check_rng_next(&r) & 1) ? span / p.stride[d] + 1
                                               : (span + p.stride[d] - 1) / p.stride[d] + 1;
            if ((out[d] - 1) * p.stride[d] - p.pad_begin[d] >= in)
                out[d]--; /* a last window starting in the padding is dropped */
        }
        if (!ok)
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
