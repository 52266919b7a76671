/* A monotonic clock for timing: nanoseconds since an arbitrary origin. */
#ifndef CAIRN_BASE_CLOCK_H
#define CAIRN_BASE_CLOCK_H

#include <stdint.h>

uint64_t base_now_ns(void);
static inline double base_ns_to_ms(uint64_t ns) { return (double)ns * 1e-6; }

#endif
