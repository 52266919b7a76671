/*
 * The machine file: what `cairn calibrate` measured on this machine, for the
 * profiler and the benchmarks to compare against. A small JSON object:
 *
 *   {
 *     "format": "cairn-machine-1",
 *     "cpu": "Intel(R) Xeon(R) Processor",
 *     "isa": "avx512_bf16",
 *     "features": "sse4.2 avx avx2 ...",
 *     "date": "2025-01-31T12:00:00Z",
 *     "peaks": [
 *       {"threads": 1, "f32_gflops": 112.1, "f32_ymm_gflops": 112.0,
 *        "bf16_gflops": 224.3, "s8_gops": 448.0, "copy_gbs": 21.2, "triad_gbs": 22.3},
 *       {"threads": 2, ...}
 *     ]
 *   }
 *
 * A rate the machine lacks (no bf16 dot instruction) or that was not
 * measured is null. It lives at $CAIRN_MACHINE_FILE, else
 * $HOME/.cache/cairn/machine.json. The reader is a small JSON parser that
 * accepts any valid JSON, ignores keys it does not know, and rejects
 * anything malformed with CAIRN_ERR_PARSE and where it went wrong.
 */
#ifndef CAIRN_PROFILE_MACHINE_H
#define CAIRN_PROFILE_MACHINE_H

#include "cairn.h"

#include <stddef.h>
#include <stdio.h>

#define MACHINE_MAX_ROWS 16
#define MACHINE_FORMAT "cairn-machine-1"

/* One thread count's peaks; 0 means unknown (written as null). */
typedef struct machine_peaks {
    int threads;
    double f32_gflops;     /* best f32 FMA rate (zmm where AVX-512, else ymm) */
    double f32_ymm_gflops; /* f32 FMA on ymm (what an AVX2 kernel can reach) */
    double bf16_gflops;    /* vdpbf16ps */
    double s8_gops;        /* vpdpbusd (zmm, else AVX-VNNI ymm) */
    double copy_gbs, triad_gbs;
} machine_peaks_t;

typedef struct machine_info {
    char cpu[64];
    char isa[32];
    char features[512];
    char date[32];
    int n_rows;
    machine_peaks_t rows[MACHINE_MAX_ROWS];
} machine_info_t;

/* The file's path: $CAIRN_MACHINE_FILE if set and not empty, else
 * $HOME/.cache/cairn/machine.json. CAIRN_ERR_INVALID_ARGUMENT when neither
 * variable is set or the path does not fit in cap. */
cairn_status_t machine_file_path(char *buf, size_t cap);

/* Writes m as JSON to f. */
void machine_print_json(FILE *f, const machine_info_t *m);

/* Writes the file (creating its directory; replaced atomically by a rename).
 * CAIRN_ERR_IO with the path and the reason on failure. */
cairn_status_t machine_write(const char *path, const machine_info_t *m);

/* Parses text (len bytes, need not be NUL-terminated) into m. */
cairn_status_t machine_parse(const char *text, size_t len, machine_info_t *m);

/* Reads and parses the file. CAIRN_ERR_IO when it cannot be read (errno
 * ENOENT: it does not exist yet), CAIRN_ERR_PARSE when it is malformed. */
cairn_status_t machine_read(const char *path, machine_info_t *m);

/* The row for exactly `threads`, or NULL. */
const machine_peaks_t *machine_find(const machine_info_t *m, int threads);

/* Adds row r, replacing the row with the same thread count; rows stay
 * sorted by threads. CAIRN_ERR_INVALID_ARGUMENT when the table is full. */
cairn_status_t machine_set(machine_info_t *m, const machine_peaks_t *r);

#endif
