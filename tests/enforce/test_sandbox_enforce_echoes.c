/* Echoes: what a server the secret goes to sends back, and what it keeps
 * for later, hands the command no value. Basic credentials echoed in
 * Base64, an echo in chunks that split the value, a coded or partial
 * answer, a request bin, an answer cut short; against the net.domains
 * servers (net_fixture.h), with real curl. Every refusal has its twin:
 * the same requests to a host the secret does not go to. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enforce_fixture.h"
#include "net_fixture.h"

/* What a server echoes does not hand the command a value: a secret's
 * Basic credentials echoed in Base64, an echo in chunks that split the
 * value, are overwritten; an answer the server encoded though asked not to
 * is refused. A withheld value that comes back though the request did not
 * carry it as such (the command guessed it, in a form the proxy does not
 * decode) is overwritten too, and the proxy sends on no more. */
static void test_echoes(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char script[1600], att[PATH_MAX], attested[8192], base[256];
    FMT(base, "https://%s:%d/echo", srv.host, srv.https);
    FMT(att, "%s/attestation.json", f->outside);
    secrets_policy(f, "");
    FMT(script,
        "curl -sS -u \"git:$LCSB_TEST_SECRET\" %s; curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" "
        "'%s?chunked'; curl -sS --compressed -H \"X-Token: $LCSB_TEST_SECRET\" '%s?gzip'; "
        "curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" '%s?chunked,te-list'; "
        "curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" '%s?te-other'; "
        "curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" '%s?bare-lf'",
        base, base, base, base, base, base);
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", script));
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "authorization-sha256: " BASIC_SHA256 "\n", "the server got it");
    assert_lacks(P.out, "Z2l0OmdocF8wbmx5LXRoZS1zZXJ2ZXItc2Vlcy10aGlz", "Basic, echoed");
    assert_lacks(P.out, "bmx5LXRoZS1zZXJ2ZXItc2Vlcy10aGl", "Basic's core, echoed");
    assert_contains(P.out, "x-token: *****************************\n", "chunked, echoed");
    assert_contains(P.out, "x-token-sha256: " SECRET_SHA256 "\n", "chunked, the server got it");
    assert_lacks(P.out, SECRET_VALUE, "the command's output");
    assert_contains(P.out, "the server encoded its answer though asked not to", "gzip");
    assert_contains(P.out, "GET /echo?chunked,te-list\n", "chunked, last of a list");
    assert_contains(P.out,
                    "framed in a way the proxy does not read (a Transfer-Encoding whose "
                    "last coding is not chunked)",
                    "another framing");
    /* A head whose lines end in a bare LF ends where the client ends it:
     * the chunks after it are read as the body's, not searched as a head. */
    assert_contains(P.out,
                    "GET /echo?bare-lf\nauthorization: None\nauthorization-sha256: None\n"
                    "x-token: *****************************\n",
                    "a head of bare LFs, then chunks");

    /* The guess, hex-encoded; the server decodes and echoes it. */
    char hex[2 * sizeof WITHHELD_VALUE];
    for (size_t i = 0; i + 1 < sizeof WITHHELD_VALUE; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)WITHHELD_VALUE[i]);
    FMT(script, "curl -sS -d %s '%s?hex'; curl -sS %s", hex, base, base);
    unlink(att);
    lcsb_with_secret(f, NULL, CMD("--attest", att), CMD("sh", "-c", script));
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "body: *********************\n", "the guess, overwritten");
    assert_lacks(P.out, WITHHELD_VALUE, "stdout");
    assert_contains(P.out, "an earlier request of this run carried a value lcsb withholds",
                    "the request after");
    read_file(att, attested, sizeof attested);
    /* The refusal after it counts as another attempt of the same kind. */
    assert_contains(attested,
                    "\"attempts\":2,\"why\":\"withheld: the value of AWS_SECRET_ACCESS_KEY, in "
                    "an answer\"",
                    "the attestation");
}

/* Where an echo could hand back a part of a value, or a form the proxy
 * does not read: every request to a host a secret goes to goes without TE
 * (a transfer coding such as gzip) and Range (a part the command picks),
 * asking for a plain answer, whether it carries the value or not (a server
 * may keep a request and serve it back later: a request bin); an answer
 * from there in a coding, or a part (206), is refused, and one cut short of
 * its length keeps back what it held. The twins: the same requests to a
 * host no secret goes to keep their TE and Range, and the coded or partial
 * answer reaches the command. */
static void test_echo_parts(void **state) {
    NEED_SERVERS();
    fx *f = *state;
    char script[2400], base[256], plain[256];
    FMT(base, "https://%s:%d/echo", srv.host, srv.https);
    FMT(plain, "http://%s:%d/echo", srv.host, srv.http);
    secrets_policy(f, "");
    FMT(script,
        "curl -sS --tr-encoding -H \"X-Token: $LCSB_TEST_SECRET\" %s; "
        "curl -sS -r 0-40 -H \"X-Token: $LCSB_TEST_SECRET\" '%s?range'; "
        "curl -sS --tr-encoding -H \"X-Token: $LCSB_TEST_SECRET\" '%s?te-gzip'; "
        "curl -sS '%s?partial'; curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" '%s?cut'; "
        "echo \"cut: $?\"; curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" '%s?cr-line'; "
        "curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" '%s?switch'; "
        "curl -sS -H \"X-Token: $LCSB_TEST_SECRET\" '%s?h2-status'",
        base, base, base, base, base, base, base, base);
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", script));
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "x-token-sha256: " SECRET_SHA256 "\n", "the server got it");
    assert_contains(P.out, "te: None\nrange: None\n", "TE and Range, not sent on");
    assert_contains(P.out, "GET /echo?range\n", "the whole echo, not a part");
    assert_contains(P.out, "x-token: *****************************\n", "the whole echo, masked");
    assert_contains(P.out,
                    "the server encoded its answer though asked not to; lcsb cannot look in it",
                    "a transfer coding before chunked");
    assert_contains(P.out, "the server answered with a part (206) though asked for the whole",
                    "a part not asked for");
    assert_contains(P.out, "cut: 18\n", "an answer cut short (curl's partial file)");
    assert_lacks(P.out, "GET /echo?cut", "what the cut answer held back");
    assert_lacks(P.out, "ghp_0nly", "the start of the value, cut");
    /* A head line that starts with a CR (curl ends the head there, others
     * do not), and a 101 with chunks after it (read raw by clients): the
     * chunk lines would split the value where the search does not see it. */
    assert_contains(P.out, "the server's answer has a CR that ends no line in its head",
                    "a head line that starts with a CR");
    assert_contains(P.out, "the server switched protocols (101)", "a 101");
    assert_contains(P.out, "(a status line that is not HTTP/1.0's or HTTP/1.1's)",
                    "curl's interim HTTP/2 100");
    assert_lacks(P.out, "hp_0n", "the value in pieces");
    assert_lacks(P.out, SECRET_VALUE, "the command's output");
    /* What the server kept, fetched by a request that carries no value, in
     * a part or gzipped if the proxy let it: whole, plain and masked (and,
     * the value being where the request did not put it, no request more). */
    static const char *const fetches[] = {"-r 0-9 \"$0?fetch,range\"",
                                          "--compressed \"$0?fetch,compress-asked\""};
    for (size_t i = 0; i < 2; i++) {
        const char *fetch = fetches[i];
        FMT(script,
            "curl -sS -o /dev/null -H \"X-Token: $LCSB_TEST_SECRET\" \"$0?store\"; curl -sS %s",
            fetch);
        lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", script, base));
        assert_int_equal(P.status, 0);
        assert_contains(P.out, "GET /echo?store\nauthorization: None\n", fetch);
        assert_contains(P.out, "x-token: *****************************\n", fetch);
        assert_lacks(P.out, SECRET_VALUE, fetch);
    }
    /* The twins: a host no secret goes to, whose requests are not read. */
    FMT(script,
        "curl -sS --tr-encoding %s; curl -sS -r 0-3 '%s?range'; echo; "
        "curl -sS --tr-encoding '%s?te-gzip'; curl -sS '%s?partial'; curl -sS '%s?cr-line'; "
        "curl -sS '%s?h2-status'",
        plain, plain, plain, plain, plain, plain);
    lcsb_with_secret(f, NULL, NULL, CMD("sh", "-c", script));
    assert_int_equal(P.status, 0);
    assert_contains(P.out, "te: gzip\n", "TE, sent on");
    assert_contains(P.out, "\nGET \n", "the part Range asked for");
    assert_contains(P.out, "GET /echo?te-gzip\n", "the coded answer, passed on and decoded");
    assert_contains(P.out, "GET /echo?partial\n", "a part, passed on");
    /* What curl reads of the heads the proxy refuses from a host it reads:
     * a head line that starts with a CR, an interim HTTP/2 100. */
    assert_contains(P.out, "GET /echo?cr-line\n", "a CR line, read by curl");
    assert_contains(P.out, "GET /echo?h2-status\n", "an HTTP/2 100, read by curl");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_echoes),
        T(test_echo_parts),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_echoes", tests, net_group_setup,
                                       net_group_teardown);
}
