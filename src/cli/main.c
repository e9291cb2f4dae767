/* lcsb: run a command under a policy. Everything lives in cli.c and args.c. */
#include "cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv); }
