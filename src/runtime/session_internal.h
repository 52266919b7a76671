/*
 * Session entry points for the library's own tools, not (yet) in the public
 * header: a run that records a profile (profile/profile.h).
 */
#ifndef CAIRN_RUNTIME_SESSION_INTERNAL_H
#define CAIRN_RUNTIME_SESSION_INTERNAL_H

#include "cairn.h"
#include "profile/profile.h"

/* cairn_session_run, with every plan step timed, its hardware counters
 * read and each pool thread's busy time recorded into prof. A plan rebuilt
 * for new input shapes resets prof's steps and records. */
cairn_status_t cairn_session_run_profiled(cairn_session_t *s, const cairn_tensor_t *inputs,
                                          int n_inputs, cairn_tensor_t *outputs, int n_outputs,
                                          profile_t *prof);

#endif
