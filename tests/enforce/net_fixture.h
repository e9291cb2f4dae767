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

/* A sensitive variable's value the secrets cases give lcsb and not the
 * command; sha256(SECRET_VALUE), and of "Basic " base64("git:"
 * SECRET_VALUE). */
#define WITHHELD_VALUE "aws-withheld-4f9a2c7e"
#define SECRET_SHA256 "da804544d3c0190405806a15e0bc2e781fc2dc5e40616d599574cad1b2ede83b"
#define BASIC_SHA256 "7636a7236a38e4cd62085ade7ba393e196f9c193198a50ae8c17eea68a08e94e"

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
/* The secrets cases' policy: LCSB_TEST_SECRET goes to the HTTPS server (in
 * X-Token too), the HTTP one is a host it does not go to; EXTRA after the
 * table's keys. */
void secrets_policy(fx *f, const char *extra);
/* lcsb with the secret's value, a sensitive variable the command is not
 * given, and the servers' certificate trusted, in its own environment;
 * into P. */
void lcsb_with_secret(fx *f, const char *const *launcher, const char *const *options,
                      const char *const *cmd);

#endif
