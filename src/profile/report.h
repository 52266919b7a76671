/*
 * Profile reports: a text table (with the per-op rollup, per-thread load
 * balance, counters and advice), JSON, CSV, a Chrome trace-event file
 * (Perfetto / chrome://tracing: one track per thread, one slice per step per
 * run with its counters as arguments) and one self-contained HTML page
 * (inline SVG roofline and timeline, the table; no network).
 */
#ifndef CAIRN_PROFILE_REPORT_H
#define CAIRN_PROFILE_REPORT_H

#include "profile/profile.h"

#include <stdio.h>

/* Context printed with every report. */
typedef struct report_meta {
    const char *model;
    const char *isa;         /* ISA level in use */
    const char *roof_source; /* where the peaks came from, e.g. "estimated: ..." */
    const char *counters_note; /* why counters are missing, or NULL */
} report_meta_t;

void profile_report_text(FILE *f, const profile_analysis_t *a, const report_meta_t *m);
void profile_report_json(FILE *f, const profile_analysis_t *a, const report_meta_t *m);
void profile_report_csv(FILE *f, const profile_analysis_t *a);
void profile_report_trace(FILE *f, const profile_t *p, const profile_analysis_t *a);
void profile_report_html(FILE *f, const profile_t *p, const profile_analysis_t *a, const report_meta_t *m);

#endif
