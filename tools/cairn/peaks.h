/* The calibrated peaks for the tool's commands: read from the machine file
 * (`cairn calibrate` writes it), or measured quickly now, said so, and
 * written there for next time. Shared by `bench` and `profile`. */
#ifndef CAIRN_TOOL_PEAKS_H
#define CAIRN_TOOL_PEAKS_H

#include "profile/machine.h"

#include <stddef.h>
#include <stdio.h>

/* Fills *row with the peaks for `threads`. need_bandwidth: the memory rates
 * must be known too (else only f32 compute is). source gets where the
 * numbers came from. Messages go to err, prefixed "cairn CMD: ".
 * Returns 0, or 1 after a message. */
int tool_get_peaks(const char *cmd, int threads, int need_bandwidth, machine_peaks_t *row,
                   char *source, size_t source_cap, FILE *err);

#endif
