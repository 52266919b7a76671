/*
 * libFuzzer target for the ONNX loader: any bytes must load or fail with a
 * status and a message, never crash, leak or read out of bounds. Loaded
 * graphs are also verified and printed, so what the loader builds is
 * walked end to end. External data is refused (dir NULL): the fuzzer must
 * not read files.
 */
#include "cairn.h"
#include "frontend/onnx/loader.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cairn_graph_t *g = NULL;
    if (onnx_model_load_buffer(data, size, NULL, "fuzz", &g) == CAIRN_OK) {
        char *text = NULL;
        cairn_graph_verify(g);
        if (cairn_graph_print(g, &text) == CAIRN_OK)
            free(text);
        cairn_graph_destroy(g);
    } else if (!cairn_last_error()[0]) {
        abort(); /* every failure must say why */
    }
    return 0;
}
