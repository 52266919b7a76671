/* Writing JSON: a string with the escapes JSON requires, and a number
 * (null where JSON has no spelling: NaN, infinities). For the tool's and
 * the profiler's --json outputs. */
#ifndef CAIRN_BASE_JSON_OUT_H
#define CAIRN_BASE_JSON_OUT_H

#include <stdio.h>

/* "s" with \" \\ \n escaped and other control bytes as \u00XX; NULL: "". */
void base_json_string(FILE *f, const char *s);
/* v to 9 significant digits (enough for a float), or null. */
void base_json_number(FILE *f, double v);

#endif
