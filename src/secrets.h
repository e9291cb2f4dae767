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

/* The forms a value takes in an echo (secret_forms.c); the Base64 ones,
 * whose runs are overwritten whole, come first. */
#define LCSB__SECRET_FORMS 40
/* The clipped forms: three for the value, its spaces as "+" and each of
 * its views (secret_forms.c). */
#define LCSB__SECRET_CLIPPED 30
#define LCSB__SECRET_B64_FORMS 6
/* After them that Base64 percent-encoded, then the value's own spellings. */
#define LCSB__SECRET_SPELLED_FORMS 12

/* A secret's value shorter than the least has Base64 forms too short to
 * be told from other data; one longer than the most has no forms made
 * (a withheld value is looked for as it is): both refused for a secret. */
#define LCSB__SECRET_VALUE_MIN 8
#define LCSB__SECRET_FORMS_VALUE_MAX 4096

/* N bytes at P set to zero where the compiler cannot leave it out. */
#ifdef __GLIBC__
#define lcsb__wipe(p, n) explicit_bzero(p, n)
#else
#define lcsb__wipe(p, n) memset_s(p, n, 0, n)
#endif

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
     * with it by lcsb__secret_set_value (NULL where there is none, or one
     * is the same as another): its Base64 whatever surrounds it, at each
     * alignment (standard and URL-safe; none shorter than 8 characters),
     * that Base64 percent-encoded, and the value percent-encoded, escaped
     * in JSON and in HTML as encoders do (secret_forms.c). */
    char *forms[LCSB__SECRET_FORMS];
    size_t forms_len[LCSB__SECRET_FORMS];
    /* The value (and each of its views, and its spaces as "+") less what
     * an escape the echo began before it could take (CLIP_HEAD characters:
     * "%" and its first two hex digits, "&#" and its digits), less what one
     * the value begins at CLIP_TAIL could (its last "%4" and the command's
     * "1"), or less both; each a kind (1, 2, 3: which ends it lacks). In a
     * view the value is missing whole where such an escape took part of it,
     * but these are there (secret_forms.c makes them; none under
     * LCSB__SECRET_VALUE_MIN bytes). */
    char *clipped[LCSB__SECRET_CLIPPED];
    size_t clipped_len[LCSB__SECRET_CLIPPED];
    unsigned char clipped_kind[LCSB__SECRET_CLIPPED];
    size_t clip_head, clip_tail;
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
/* FROM copied into TO: the entry as it is, the value and its forms TO's
 * own. 0, or -1 out of memory. */
int lcsb__secret_copy(lcsb__secret *to, const lcsb__secret *from);

/* What an echo says with its escapes undone (secret_view.c): LEN bytes at
 * P, the Ith of which came from the echo's bytes [FROM[I], TO[I]). */
typedef struct lcsb__view {
    char *p;
    uint32_t *from, *to;
    size_t len;
} lcsb__view;

/* DATA (LEN bytes) viewed with its percent-escapes, JSON's escapes, HTML's
 * character references and the line breaks inside a run of Base64 undone,
 * then what that undid undone again (escapes of escapes), each pass's view
 * given to EACH (the view is EACH's to read, not to keep); with BYTES_TOO,
 * where a character past ASCII below 0x100 was escaped, the same again
 * with each such escape taken as the byte it names (only a value with a
 * byte past ASCII can be found so). EACH returns nonzero to stop there. 0,
 * EACH's nonzero, or -1 out of memory. */
int lcsb__echo_views(const char *data, size_t len, bool bytes_too,
                     int (*each)(const lcsb__view *v, void *arg), void *arg);
/* Does any of V's N values hold a byte past ASCII? */
bool lcsb__secrets_wide(const lcsb__secret *v, size_t n);
void lcsb__view_free(lcsb__view *v);
/* Where in DATA (LEN bytes), from I on, the first escape that
 * lcsb__echo_views undoes stands: LEN for none. */
size_t lcsb__echo_escape_next(const char *data, size_t len, size_t i);
/* The escape at DATA[I] (LEN bytes in all) undone into OUT (4 bytes): how
 * many bytes of DATA it takes (0: none there) and *N, how many it gives. */
size_t lcsb__echo_escape_at(const char *data, size_t len, size_t i, char *out, size_t *n);
/* Past the blanks at DATA[I] (LEN bytes in all), a line break and the
 * blanks after it, where Base64 goes on: 0 when there is none of that. */
size_t lcsb__echo_wrap_end(const char *data, size_t len, size_t i);
/* Does C start an escape the view undoes ("%", "\\", "&")? Is it a blank
 * a wrap of Base64 is made of (a space, a tab, CR, LF)? */
bool lcsb__echo_escapes(char c);
bool lcsb__echo_blank(char c);
/* Is C a character of Base64, standard or URL-safe? */
bool lcsb__is_b64(char c);

/* S's other forms (forms) made from its value: 0, or -1 out of memory
 * (some may be made). None for a value past LCSB__SECRET_FORMS_VALUE_MAX. */
int lcsb__secret_make_forms(lcsb__secret *s);

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
