/* lcsb: run a command under a policy. Everything lives beside it: cli.c,
 * check.c, args.c, cache.c and leftovers.c. */
#include "cli.h"

#include <stdlib.h> /* defines __GLIBC__ where it is glibc */
#ifdef __GLIBC__
#include <malloc.h>
#endif

int main(int argc, char **argv) {
#ifdef __GLIBC__
    /* A run's heap grows to a megabyte or more (Lua, the plan), 128 KiB a
     * brk at glibc's default: a run of its own, short, grows it in larger
     * steps. Pages not touched cost nothing. */
    mallopt(M_TOP_PAD, 2 << 20);
#endif
    return cli_main(argc, argv);
}
