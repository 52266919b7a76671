/*
 * Errors with context.
 *
 * Every fallible internal function returns cairn_status_t. The function that
 * first sees the problem records a message with base_error(); callers on the
 * way up may add context in front of it with base_error_prefix() (the node,
 * the op), so the message a user reads says what went wrong and where:
 *
 *   node 'attn/MatMul' (MatMul): inner dimensions differ: [2,3] x [4,5]
 *
 * Messages live in a per-thread buffer, so concurrent sessions do not mix
 * them. BASE_CHECK is for conditions that are bugs in cairn, not user input.
 */
#ifndef CAIRN_BASE_STATUS_H
#define CAIRN_BASE_STATUS_H

#include "cairn.h"
#include <stdarg.h>

#if defined(__GNUC__)
#define BASE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BASE_PRINTF(f, a)
#endif

/* Records a message (printf-style) for status s and returns s. */
cairn_status_t base_error(cairn_status_t s, const char *fmt, ...) BASE_PRINTF(2, 3);
cairn_status_t base_verror(cairn_status_t s, const char *fmt, va_list ap);

/* Puts context in front of the current message; returns s unchanged. */
cairn_status_t base_error_prefix(cairn_status_t s, const char *fmt, ...) BASE_PRINTF(2, 3);

/* Clears this thread's message (public calls do this on entry). */
void base_error_clear(void);
const char *base_error_message(void);

/* Propagate a failure. */
#define BASE_TRY(expr)                       \
    do {                                     \
        cairn_status_t base_try_s_ = (expr); \
        if (base_try_s_ != CAIRN_OK)         \
            return base_try_s_;              \
    } while (0)

/* An internal invariant: reports it as CAIRN_ERR_INTERNAL with file:line. */
#define BASE_CHECK(cond)                                                     \
    do {                                                                     \
        if (!(cond))                                                         \
            return base_error(CAIRN_ERR_INTERNAL, "%s:%d: check failed: %s", \
                              __FILE__, __LINE__, #cond);                    \
    } while (0)

/* Formats shape dims as "[2,3,4]" into buf (always terminated). */
const char *base_fmt_dims(char *buf, size_t cap, const int64_t *dims, int rank);

#endif
