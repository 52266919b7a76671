/* The cairn tool: one file per subcommand, each exporting cmd_<name>. */
#ifndef CAIRN_TOOL_CMD_H
#define CAIRN_TOOL_CMD_H

#include "profile/machine.h"

#include <stddef.h>
#include <stdio.h>

int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_profile(int argc, char **argv);

#include <stdio.h>
/* cairn profile with its streams (argv[0] is the command's name); also what
 * `cairn run --profile` hands over to. */
int profile_cli(int argc, char **argv, FILE *out, FILE *err);
int cmd_conformance(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* bench_model.c: the `model` target of cairn bench */
int bench_model(int argc, char **argv);

/* cmd_calibrate.c: measures the peaks for each count in threads[] into m
 * (cpu, isa, date filled in); mem_bytes 0 skips the bandwidth loops.
 * Returns 0, or 1 after a message on err. */
int calibrate_measure(const int *threads, int n_threads, int quick, size_t mem_bytes,
                      machine_info_t *m, FILE *err);
/* min(4 x L3, 1 GiB), at least 64 MiB; 1 GiB when the L3 size is unknown */
size_t calibrate_default_mem_bytes(void);

#endif
