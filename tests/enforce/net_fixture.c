/* The net.domains suites' servers (net_fixture.h). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include "net_fixture.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

net_servers srv;

/* The host's own name, when it resolves to a loopback address: the proxy
 * resolves it as any name, and the command's NO_PROXY (localhost) does not
 * send it round the proxy. */
static bool find_host(void) {
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (gethostname(srv.host, sizeof srv.host) != 0 || strcmp(srv.host, "localhost") == 0 ||
        getaddrinfo(srv.host, NULL, &hints, &res) != 0)
        return false;
    const struct sockaddr_in *in = (const struct sockaddr_in *)res->ai_addr;
    bool loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127 &&
                    inet_ntop(AF_INET, &in->sin_addr, srv.addr, sizeof srv.addr);
    freeaddrinfo(res);
    return loopback;
}

static int start_servers(void) {
    int in[2], out[2];
    char line[PATH_MAX + 64];
    FMT(srv.root, "/tmp/lcsb-net-servers.XXXXXX");
    if (!mkdtemp(srv.root) || pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return -1;
    const char *script = LCSB_NET_SERVER;
    srv.pid = fork();
    if (srv.pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        /* The token in its environment: another process may read its argv. */
        setenv("LCSB_NET_SERVER_TOKEN", SECRET_VALUE, 1);
        execl(PYTHON, PYTHON, script, srv.root, srv.host, srv.addr, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    srv.feed = in[1];
    bool ok = read_line(out[0], line, sizeof line) &&
              sscanf(line, "http %d https %d cert %4095s", &srv.http, &srv.https, srv.cert) == 3;
    close(out[0]);
    return ok ? 0 : -1;
}

int net_group_setup(void **state) {
    enforce_group_setup(state);
    static const char *const tools[] = {"/usr/bin/curl", "/usr/bin/openssl", "/usr/bin/git", PYTHON,
                                        NODE};
    for (size_t i = 0; i < sizeof tools / sizeof *tools; i++)
        if (access(tools[i], X_OK) != 0) srv.missing = tools[i];
    if (!srv.missing && !find_host()) srv.missing = "a host name that resolves to loopback";
    if (!srv.missing && start_servers() != 0) srv.missing = "the test servers (net_server.py)";
    if (srv.missing) fprintf(stderr, "# net.domains cases cannot run: %s\n", srv.missing);
    return 0;
}

int net_group_teardown(void **state) {
    (void)state;
    if (srv.pid > 0) {
        close(srv.feed);
        waitpid(srv.pid, NULL, 0);
    }
    if (srv.root[0]) rm_rf(srv.root);
    return 0;
}

void run_attested(fx *f, const char *backend, const char *const *cmd, char *attested, size_t size) {
    char att[PATH_MAX];
    FMT(att, "%s/attestation.json", f->outside);
    unlink(att);
    lcsb_opts(f, backend, CMD("--attest", att), cmd, NULL, &P);
    read_file(att, attested, size);
}

void servers_policy(fx *f, const char *extra) {
    policy(f,
           "exec = { \"curl\", \"sh\" }, read = { \"%s\" }, net = { domains = { \"%s:%d\", "
           "\"%s:%d\" }, lan = { \"127.0.0.0/8\" }%s }",
           srv.cert, srv.host, srv.https, srv.host, srv.http, extra ? extra : "");
}

void secrets_policy(fx *f, const char *extra) {
    policy(f,
           "exec = { \"curl\", \"sh\", \"cat\", \"grep\", \"head\" }, net = { domains = { "
           "\"%s:%d\", \"%s:%d\" }, lan = { \"127.0.0.0/8\" } }, secrets = { LCSB_TEST_SECRET = { "
           "hosts = { \"%s:%d\" }, headers = { \"X-Token\" } } }%s",
           srv.host, srv.https, srv.host, srv.http, srv.host, srv.https, extra);
}

void lcsb_with_secret(fx *f, const char *const *launcher, const char *const *options,
                      const char *const *cmd) {
    char trust[PATH_MAX + 16];
    FMT(trust, "SSL_CERT_FILE=%s", srv.cert);
    lcsb_launched(
        f, launcher, "landlock", options, cmd,
        ENV(trust, "LCSB_TEST_SECRET=" SECRET_VALUE, "AWS_SECRET_ACCESS_KEY=" WITHHELD_VALUE), &P);
}
