/* cairn: the command-line tool. `cairn help` lists the subcommands. */
#include "cmd.h"

#include <stdio.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command_t;

static const command_t commands[] = {
    {"info", cmd_info, "CPU model, features, ISA level chosen, caches, threads"},
    {"run", cmd_run, "run a model ('demo' or an .onnx file): latency, plan, outputs"},
    {"profile", cmd_profile, "per-step time, roofline, counters, load balance, advice"},
    {"conformance", cmd_conformance, "run ONNX backend test folders: PASS/FAIL/UNSUPPORTED"},
    {"calibrate", cmd_calibrate,
     "measure peak FLOP/s and memory bandwidth; write the machine file"},
    {"bench", cmd_bench, "benchmark a kernel against peak and peers ('bench gemm')"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cairn <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'cairn <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cairn: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
