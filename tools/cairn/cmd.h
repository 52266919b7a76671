/* The cairn tool: one file per subcommand, each exporting cmd_<name>. */
#ifndef CAIRN_TOOL_CMD_H
#define CAIRN_TOOL_CMD_H

int cmd_info(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_conformance(int argc, char **argv);

#endif
