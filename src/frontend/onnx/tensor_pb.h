/*
 * ONNX TensorProto files (the `input_0.pb` / `output_0.pb` of the ONNX
 * backend test data): reading them into a cairn tensor and writing cairn
 * tensors out as raw_data TensorProtos.
 *
 * Reading accepts raw_data and the typed fields (float_data; int32_data for
 * i32, i16, i8, u8, bool, f16 and bf16 as ONNX packs them; int64_data;
 * double_data), checks that the data fit the shape exactly, and rejects what
 * cairn has no dtype for (string, complex, uint16/32/64) or cannot load yet
 * (segments; external data outside a model) with CAIRN_ERR_UNSUPPORTED. Every message names
 * the file (or the label given to the in-memory parser) and the problem.
 */
#ifndef CAIRN_FRONTEND_ONNX_TENSOR_PB_H
#define CAIRN_FRONTEND_ONNX_TENSOR_PB_H

#include "cairn.h"

#include <stddef.h>
#include <stdint.h>

/* Reads the TensorProto in file `path`. On success out->data is malloc'd
 * (never NULL, even for an empty tensor; the caller frees it) and, when
 * name is non-NULL, *name is a malloc'd copy of the tensor's name ("" when
 * it has none). On failure nothing is left allocated. */
cairn_status_t onnx_tensor_read(const char *path, cairn_tensor_t *out, char **name);

/* The same for a serialized TensorProto in memory; `label` names it in
 * error messages (e.g. the file it came from). */
cairn_status_t onnx_tensor_parse(const uint8_t *buf, size_t len, const char *label,
                                 cairn_tensor_t *out, char **name);

struct Onnx__TensorProto;

/* Decodes a TensorProto already unpacked (an initializer, a Constant's
 * value). `dir` is the model's folder for external data (its location must
 * resolve inside that folder); NULL refuses external data as UNSUPPORTED.
 * out->data is malloc'd (never NULL); the caller frees it. */
cairn_status_t onnx_tensor_decode(const struct Onnx__TensorProto *p, const char *label,
                                  const char *dir, cairn_tensor_t *out);

/* Writes t to `path` as a TensorProto with raw_data (little-endian) and the
 * given name (NULL: no name), replacing the file. */
cairn_status_t onnx_tensor_write(const char *path, const cairn_tensor_t *t, const char *name);

/* Serializes t into a malloc'd buffer (*buf, *len; the caller frees it). */
cairn_status_t onnx_tensor_serialize(const cairn_tensor_t *t, const char *name, uint8_t **buf,
                                     size_t *len);

#endif
