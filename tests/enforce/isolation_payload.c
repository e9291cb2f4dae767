/* What an attacker would smuggle in: a static program that is in no exec
 * list. isolation_probe runs it from a memfd; it says that it ran. */
#include <stdio.h>

int main(int argc, char **argv) {
    printf("payload ran via %s\n", argc > 1 ? argv[1] : "?");
    return 0;
}
