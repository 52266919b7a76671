/* The cairn tool: one file per subcommand, each exporting cmd_<name>. */
#ifndef CAIRN_TOOL_CMD_H
#define CAIRN_TOOL_CMD_H

int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_profile(int argc, char **argv);

#include <stdio.h>
/* cairn profile with its streams (argv[0] is the command's name); also what
 * `cairn run --profile` hands over to. */
int profile_cli(int argc, char **argv, FILE *out, FILE *err);
int cmd_conformance(int argc, char **argv);

#endif
