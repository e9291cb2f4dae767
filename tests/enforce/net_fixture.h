/* The net.domains suites' servers (tests/enforce/net_server.py): HTTP and
 * HTTPS on the host's loopback, a self-signed certificate, named by the
 * name this host resolves for itself, started once for a suite. Shared by
 * the domains suite and the interception suite (rules on requests,
 * secrets). */
#ifndef LCSB_TESTS_NET_FIXTURE_H
#define LCSB_TESTS_NET_FIXTURE_H

#include "enforce_fixture.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#define NODE "/usr/bin/node"

/* The secrets cases' value: the smart HTTP server's password too (handed
 * to it in its environment, which no other process may read, unlike its
 * argv). */
#define SECRET_VALUE "ghp_0nly-the-server-sees-this"

typedef struct net_servers {
    char host[256];             /* a name the host resolves to its loopback, not "localhost" */
    char addr[INET_ADDRSTRLEN]; /* where it resolves: 127.0.1.1 on an installed Debian */
    char root[PATH_MAX];
    char cert[PATH_MAX];
    int http, https;
    pid_t pid;
    int feed;            /* the server's stdin: it serves until this closes */
    const char *missing; /* why the suite cannot run here */
} net_servers;

extern net_servers srv;

/* The suite's group setup and teardown: enforce_group_setup's, and the
 * servers started (or why not, in srv.missing) and stopped. */
int net_group_setup(void **state);
int net_group_teardown(void **state);

#define NEED_SERVERS()                                                                             \
    do {                                                                                           \
        NEED_LANDLOCK();                                                                           \
        if (srv.missing) {                                                                         \
            if (tests_required())                                                                  \
                fail_msg("missing %s and LCSB_SANDBOX_TESTS_REQUIRED=1", srv.missing);             \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* Run CMD under BACKEND with the attestation in ATT (a file in OUTSIDE),
 * read back into ATTESTED. */
void run_attested(fx *f, const char *backend, const char *const *cmd, char *attested, size_t size);
/* The policy of most cases: curl, the certificate readable, the servers' two
 * ports on the host's name, and its loopback address let in; EXTRA (NULL:
 * none) appended inside the policy's table. */
void servers_policy(fx *f, const char *extra);

#endif
