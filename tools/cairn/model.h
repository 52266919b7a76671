/*
 * Model loading shared by the tool's commands (run, profile): the one place
 * a model format is recognised is load_model in cmd_run.c.
 */
#ifndef CAIRN_TOOL_MODEL_H
#define CAIRN_TOOL_MODEL_H

#include "cairn.h"

#include <stdint.h>

/* A loaded model: the graph plus a default for a symbolic dim, if it has one. */
typedef struct run_model {
    cairn_graph_t *graph;
    const char *default_dim;
    int64_t default_value;
    int usage_error; /* the failure was the user's choice of model, not the model */
} run_model_t;

/* Loads 'demo' or a model file into m (m->graph owned by the caller). On
 * failure cairn_last_error() says why and m->usage_error says whether it was
 * the user's choice of model. */
cairn_status_t load_model(const char *path, run_model_t *m);

#endif
