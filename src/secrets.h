/* Layer 1, pure: secrets the command never sees (a policy's secrets = {
 * NAME = { hosts = {...} } }). A secret is a variable of lcsb's caller's
 * whose value lcsb's proxy puts into requests to the secret's hosts alone,
 * in place of a placeholder the command holds under the same name. Here:
 * a secret's entry read, a request head's placeholders swapped for values
 * (in header values, and inside HTTP Basic credentials, which git sends),
 * and a value looked for where it must not be (a request that carries it
 * itself is refused). No I/O. */
#ifndef LCSB_SECRETS_H
#define LCSB_SECRETS_H

#include "netname.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LCSB__SECRET_NAME_MAX 128 /* with its NUL */
#define LCSB__SECRET_HOSTS_MAX 16
#define LCSB__PLACEHOLDER_MAX 64 /* with its NUL */
#define LCSB__SECRETS_MAX 32
/* A run's: the policy's secrets and the values of lcsb's variables it
 * withholds from the command, at most (intercept.c stops there). */
#define LCSB__WITHHELD_MAX 96
#define LCSB__RUN_SECRETS_MAX (LCSB__SECRETS_MAX + LCSB__WITHHELD_MAX)
#define LCSB__SECRET_HEADERS_MAX 256
#define LCSB__SECRET_FROM_MAX 1024

/* The Base64 forms come first: forms[0] to forms[2]. */
#define LCSB__SECRET_FORMS 7
#define LCSB__SECRET_B64_FORMS 3

/* A secret's value shorter than this has Base64 forms too short to be told
 * from other data, and is refused. */
#define LCSB__SECRET_VALUE_MIN 8

typedef struct lcsb__secret {
    char name[LCSB__SECRET_NAME_MAX];
    lcsb__domain hosts[LCSB__SECRET_HOSTS_MAX];
    size_t hosts_n;
    /* The headers besides Authorization it may go in, lowercase,
     * comma-separated ("private-token,x-api-key"; empty: Authorization
     * alone). */
    char headers[LCSB__SECRET_HEADERS_MAX];
    /* Where the value is read from: a file's absolute path, or the argv of
     * a command that prints it, as a JSON array of plain strings (both "":
     * lcsb's own variable NAME). */
    char from[LCSB__SECRET_FROM_MAX];
    char command[LCSB__SECRET_FROM_MAX];
    char placeholder[LCSB__PLACEHOLDER_MAX]; /* what the command holds */
    char *value;                             /* the caller's, never the command's */
    size_t value_len;
    /* The other forms the value takes in what a server echoes, made once
     * with it by lcsb__secret_set_value (NULL where there is none): what it
     * makes in Base64 whatever surrounds it, at each of the three
     * alignments (none when too short to make 8 characters), then, where
     * they differ from it, percent-encoded (upper and lower hex digits)
     * and escaped as in a JSON string (with "/" escaped and without). */
    char *forms[LCSB__SECRET_FORMS];
    size_t forms_len[LCSB__SECRET_FORMS];
} lcsb__secret;

/* ENTRY ("NAME host,host", or NAME and HOSTS apart when HOSTS is not
 * NULL) as a secret: NAME a shell variable's name, each host an allowing
 * net.domains entry without an end or a rule; after the hosts, in this
 * order, the other headers it may go in, " headers=Private-Token,X-Api-Key",
 * and where its value comes from: a file, " from=/ABSOLUTE/PATH" (no space
 * or comma in it), or a command that prints it, " command=[\"gh\",\"auth\",
 * \"token\"]" (printable ASCII, no quote or backslash in its words). 0, or
 * -1 with why in WHY. The placeholder and the value are the run's to fill. */
/* The command of S (its argv, from S's command) into ARGV (at most MAX - 1
 * words and a NULL, each pointing into BUF, SIZE bytes): how many words. */
size_t lcsb__secret_command(const lcsb__secret *s, char *buf, size_t size, char **argv, size_t max);
int lcsb__secret_parse(const char *name, const char *hosts, lcsb__secret *out, char *why,
                       size_t size);
/* S's normal form, "NAME host,host", into OUT. */
void lcsb__secret_format(const lcsb__secret *s, char *out, size_t size);
/* Does S go to HOST:PORT? */
bool lcsb__secret_goes_to(const lcsb__secret *s, const char *host, uint16_t port);
/* S's value: a copy of VALUE (LEN bytes), and the forms it is looked for
 * in. 0, or -1 out of memory (S then holds none). */
int lcsb__secret_set_value(lcsb__secret *s, const char *value, size_t len);
/* S's value (and its forms) wiped and freed. */
void lcsb__secret_clear(lcsb__secret *s);

/* HEAD (LEN bytes: a request line and its header lines, CRLF-ended, as the
 * proxy sends them on) into OUT, each placeholder of the N secrets at V
 * that go to HOST:PORT swapped for its value in the value of Authorization
 * (Basic credentials decoded, swapped and encoded again) and of the
 * secret's other headers; nowhere else (not the request line, which is
 * logged everywhere, nor a header a server may echo). How many were
 * swapped; WHICH (N bools, or NULL) says whose. */
size_t lcsb__secrets_swap(const lcsb__secret *v, size_t n, const char *host, uint16_t port,
                          const char *head, size_t len, lcsb__buf *out, bool *which);
/* The first of the N secrets at V whose value DATA (LEN bytes) holds, as
 * it is, in Base64, percent-decoded, or inside Basic credentials: its
 * index, or -1. */
int lcsb__secrets_find(const lcsb__secret *v, size_t n, const char *data, size_t len);
/* Every value of the N secrets at V in DATA (LEN bytes), as it is and in
 * its other forms, overwritten with as many '*' (the length kept, so that
 * an answer's framing holds): how many; HIT (N bools, or NULL) says whose.
 * Across reads (RUN_OPEN not NULL): DATA's bytes from FRESH on came since
 * the last call, and *RUN_OPEN says, in and out, that a Base64 run
 * overwritten reached the end of the bytes that call saw, so goes on. */
size_t lcsb__secrets_mask(const lcsb__secret *v, size_t n, char *data, size_t len, size_t fresh,
                          bool *run_open, bool *hit);
/* What a search across reads must hold back for the longest value among
 * them, in any form it looks for. */
size_t lcsb__secrets_longest(const lcsb__secret *v, size_t n);

#endif
