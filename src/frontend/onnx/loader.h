/*
 * The ONNX model loader: a ModelProto (file or bytes) to a cairn graph.
 *
 * The public entry point is cairn_graph_load_onnx() (include/cairn.h); the
 * in-memory form below is for the fuzzer and the unit tests. Older opset
 * forms of an op (attributes that later became inputs, Softmax's coercion
 * to 2-D, Add-6's broadcast/axis, ...) are rewritten here onto cairn's ops,
 * which follow opset 17.
 */
#ifndef CAIRN_FRONTEND_ONNX_LOADER_H
#define CAIRN_FRONTEND_ONNX_LOADER_H

#include "cairn.h"

#include <stddef.h>
#include <stdint.h>

/* Loads a serialized ModelProto. `dir` is the folder that external data
 * locations are relative to (NULL: external data is refused); `label` names
 * the model in messages. */
cairn_status_t onnx_model_load_buffer(const uint8_t *buf, size_t len, const char *dir,
                                      const char *label, cairn_graph_t **out);

/* A graph input given a fixed value: it becomes a constant (so ops that
 * need it when planning, like Reshape's shape, can read it). */
typedef struct onnx_bound_input {
    const char *name;
    const cairn_tensor_t *value;
} onnx_bound_input_t;

/* cairn_graph_load_onnx with some graph inputs bound to constants (n_bound
 * may be 0). A bound name that is not a graph input is an error. */
cairn_status_t onnx_model_load_file(const char *path, const onnx_bound_input_t *bound,
                                    int n_bound, cairn_graph_t **out);
cairn_status_t onnx_model_load_buffer_bound(const uint8_t *buf, size_t len, const char *dir,
                                            const char *label, const onnx_bound_input_t *bound,
                                            int n_bound, cairn_graph_t **out);

#endif
