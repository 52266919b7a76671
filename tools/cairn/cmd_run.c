/* cairn run: placeholder until the run command lands. */
#include "cmd.h"

#include <stdio.h>

int cmd_run(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "cairn run: not yet\n");
    return 1;
}
