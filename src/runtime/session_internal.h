/*
 * Session entry points for the library's own tools, not (yet) in the public
 * header: a run that records a profile (profile/profile.h).
 */
#ifndef CAIRN_RUNTIME_SESSION_INTERNAL_H
#define CAIRN_RUNTIME_SESSION_INTERNAL_H

#include "cairn.h"
#include "kernels/ktensor.h"
#include "profile/profile.h"

#include <stdio.h>

/* cairn_session_run, with every plan step timed, its hardware counters
 * read and each pool thread's busy time recorded into prof. A plan rebuilt
 * for new input shapes resets prof's steps and records. */
cairn_status_t cairn_session_run_profiled(cairn_session_t *s, const cairn_tensor_t *inputs,
                                          int n_inputs, cairn_tensor_t *outputs, int n_outputs,
                                          profile_t *prof);

/* What the compiler does for a session (src/compiler/pass.h). */
typedef struct cairn_compile_options {
    const char *passes;     /* NULL: the CAIRN_PASSES variable, else all; "none"; "all"; a list */
    const char *dump_after; /* a pass name: print the graph after it to dump; or NULL */
    FILE *dump;
} cairn_compile_options_t;

/* cairn_session_create with the compiler's options (co may be NULL). */
cairn_status_t cairn_session_create_compiled(const cairn_graph_t *graph,
                                             const cairn_session_options_t *opts,
                                             const cairn_compile_options_t *co,
                                             cairn_session_t **out);

/* cairn_session_create_compiled that takes the graph: it is destroyed (on
 * failure too) as soon as the session shares its constants, before the
 * compiler runs, so a weight the compiler replaces (a pre-packed GEMM
 * operand) is freed when it is replaced instead of staying in the graph:
 * the weights are never held twice. For callers that would destroy the
 * graph right after creating the session anyway. */
cairn_status_t cairn_session_create_taking(cairn_graph_t *graph,
                                           const cairn_session_options_t *opts,
                                           const cairn_compile_options_t *co,
                                           cairn_session_t **out);

#define CAIRN_STEP_MAX_OUT 8

/* One step of the session's current plan, for --explain. Pointers are
 * valid until the plan changes (a run with other shapes) or the session
 * is destroyed. */
typedef struct cairn_step_info {
    const char *name;            /* the IR node */
    const char *op;
    int n_sources;               /* source-model nodes it covers (0: just `name`) */
    const char *const *sources;
    int n_out;                   /* outputs described (at most CAIRN_STEP_MAX_OUT) */
    ktensor_t out[CAIRN_STEP_MAX_OUT]; /* dtype and shape; data NULL */
    char kernel[128];            /* the kernel variant */
    int threads;                 /* threads of the session's pool the step may use */
    double flops, bytes;         /* the cost model's */
    size_t ws_bytes;
} cairn_step_info_t;

/* Steps in the current plan, or -1 when there is none yet. */
int cairn_session_step_count(const cairn_session_t *s);
cairn_status_t cairn_session_step_info(const cairn_session_t *s, int i, cairn_step_info_t *out);
/* The arena's size: the peak bytes of intermediates live at once. */
size_t cairn_session_arena_peak(const cairn_session_t *s);

#endif
