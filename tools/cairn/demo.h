/*
 * The built-in 'demo' model of `cairn run demo`: one pre-LayerNorm
 * transformer encoder block (multi-head self-attention + GELU MLP), built
 * through the public API only, with deterministic weights. Its input "x" is
 * f32 [1, seq, d_model] with `seq` symbolic; its output is "y", same shape.
 */
#ifndef CAIRN_TOOL_DEMO_H
#define CAIRN_TOOL_DEMO_H

#include "cairn.h"

#include <stdint.h>

#define DEMO_SEQ_NAME "seq"
#define DEMO_SEQ_DEFAULT 128

typedef struct demo_config {
    int d_model;   /* 256 */
    int heads;     /* 4; d_model must be a multiple */
    int d_ff;      /* 1024 */
    uint64_t seed; /* weight seed; the same seed gives the same weights */
} demo_config_t;

demo_config_t demo_config_default(void);

/* Builds the block into a new graph (*out; destroy it with
 * cairn_graph_destroy). On failure nothing is left allocated and
 * cairn_last_error() says which node failed and why. */
cairn_status_t demo_build(const demo_config_t *cfg, cairn_graph_t **out);

#endif
