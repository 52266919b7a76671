/*
 * libFuzzer target for everything after the loader: any bytes that load
 * as a model are verified, compiled into a session (every compiler pass,
 * the memory plan, the pre-packing) and run once on made-up inputs. Each
 * step must succeed or fail with a status and a message; none may crash,
 * leak or read out of bounds. Symbolic input dims are taken as 2; models
 * whose inputs would hold more than FUZZ_MAX_ELEMS elements, or whose
 * outputs are known to take more than FUZZ_MAX_OUT_BYTES, are not run (the
 * fuzzer's memory limit, not cairn, would stop them). Inputs are
 * small numbers (floats in [-2, 2], integers 0 to 2, booleans alternating)
 * so that index-taking ops see valid indices as often as not.
 */
#include "cairn.h"
#include "frontend/onnx/loader.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_INPUTS 16
#define FUZZ_MAX_ELEMS (1 << 18)
#define FUZZ_MAX_OUT_BYTES (256.0 * 1024 * 1024)
#define FUZZ_READ_BYTES ((size_t)1 << 22) /* of each output */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must_say_why(cairn_status_t st)
{
    if (st != CAIRN_OK && !cairn_last_error()[0])
        abort(); /* every failure must say why */
}

static void fill(void *p, cairn_dtype_t t, int64_t n, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        const uint32_t r = s >> 8;
        switch (t) {
        case CAIRN_F32: ((float *)p)[i] = (float)(r % 4001) / 1000.0f - 2.0f; break;
        case CAIRN_F64: ((double *)p)[i] = (double)(r % 4001) / 1000.0 - 2.0; break;
        case CAIRN_I64: ((int64_t *)p)[i] = (int64_t)(r % 3); break;
        case CAIRN_I32: ((int32_t *)p)[i] = (int32_t)(r % 3); break;
        case CAIRN_BOOL: ((uint8_t *)p)[i] = (uint8_t)(i & 1); break;
        default: {
            /* other types: small byte patterns of the element's size */
            const size_t es = cairn_dtype_size(t);
            for (size_t b = 0; b < es; b++)
                ((uint8_t *)p)[(size_t)i * es + b] = b == 0 ? (uint8_t)(r % 3) : 0;
        }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cairn_graph_t *g = NULL;
    cairn_status_t st = onnx_model_load_buffer(data, size, NULL, "fuzz", &g);
    must_say_why(st);
    if (st != CAIRN_OK)
        return 0;
    st = cairn_graph_verify(g);
    must_say_why(st);
    if (st != CAIRN_OK) {
        cairn_graph_destroy(g);
        return 0;
    }
    cairn_session_options_t o = cairn_session_options_default();
    o.threads = 1;
    cairn_session_t *s = NULL;
    st = cairn_session_create_from(g, &o, &s); /* takes g, on failure too */
    must_say_why(st);
    if (st != CAIRN_OK)
        return 0;
    const int ni = cairn_session_input_count(s), no = cairn_session_output_count(s);
    cairn_tensor_t in[FUZZ_MAX_INPUTS];
    int64_t shapes[FUZZ_MAX_INPUTS][CAIRN_MAX_RANK];
    int ok = ni >= 0 && ni <= FUZZ_MAX_INPUTS && no >= 0 && no <= FUZZ_MAX_INPUTS;
    memset(in, 0, sizeof in);
    for (int i = 0; ok && i < no; i++) { /* outputs known to be huge: not run */
        cairn_dtype_t t;
        int rank = 0;
        int64_t shape[CAIRN_MAX_RANK];
        double bytes = 0;
        if (cairn_session_output_info(s, i, NULL, &t, &rank, shape, NULL) == CAIRN_OK) {
            bytes = (double)cairn_dtype_size(t);
            for (int d = 0; d < rank && d < CAIRN_MAX_RANK; d++)
                bytes *= shape[d] > 0 ? (double)shape[d] : 1.0;
        }
        ok = bytes <= FUZZ_MAX_OUT_BYTES;
    }
    for (int i = 0; ok && i < ni; i++) {
        cairn_dtype_t t;
        int rank = 0;
        if (cairn_session_input_info(s, i, NULL, &t, &rank, shapes[i], NULL) != CAIRN_OK ||
            rank < 0 || rank > CAIRN_MAX_RANK || cairn_dtype_size(t) == 0) {
            ok = 0;
            break;
        }
        int64_t n = 1;
        for (int d = 0; d < rank; d++) {
            if (shapes[i][d] < 0)
                shapes[i][d] = 2;
            n = shapes[i][d] > FUZZ_MAX_ELEMS ? FUZZ_MAX_ELEMS + 1 : n * shapes[i][d];
            if (n > FUZZ_MAX_ELEMS)
                break;
        }
        if (n > FUZZ_MAX_ELEMS) {
            ok = 0;
            break;
        }
        in[i].dtype = t;
        in[i].rank = rank;
        memcpy(in[i].shape, shapes[i], sizeof(int64_t) * (size_t)rank);
        in[i].data = malloc(n > 0 ? (size_t)n * cairn_dtype_size(t) : 1);
        if (!in[i].data) {
            ok = 0;
            break;
        }
        fill(in[i].data, t, n, (uint32_t)i + (uint32_t)size);
    }
    if (ok) {
        cairn_tensor_t out[FUZZ_MAX_INPUTS];
        memset(out, 0, sizeof out);
        st = cairn_session_run(s, in, ni, out, no);
        must_say_why(st);
        /* the outputs are views of the session's buffers: read them (their
         * first FUZZ_READ_BYTES) */
        volatile uint8_t sink = 0;
        for (int i = 0; st == CAIRN_OK && i < no; i++) {
            const size_t bytes = cairn_tensor_bytes(&out[i]);
            for (size_t b = 0; out[i].data && b < bytes && b < FUZZ_READ_BYTES; b++)
                sink ^= ((const uint8_t *)out[i].data)[b];
        }
        (void)sink;
    }
    for (int i = 0; i < ni && i < FUZZ_MAX_INPUTS; i++)
        free(in[i].data);
    cairn_session_destroy(s);
    return 0;
}
