/* lcsb: run a command under a policy. Everything lives beside it: cli.c,
 * check.c, args.c, cache.c and leftovers.c. */
#include "cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv); }
