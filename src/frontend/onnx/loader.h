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

#endif
