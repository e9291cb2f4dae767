/* Secrets by placeholder (secrets.c): an entry read and written back, the
 * placeholder swapped for the value in a request head's header lines and
 * inside Basic credentials for the secret's hosts alone, and a value found
 * where it must not be. Pure functions; the proxy's use of them is the
 * domains enforcement suite's. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"
#include "internal.h"
#include "secrets.h"

#include <stdlib.h>
#include <string.h>

#define PLACEHOLDER "lcsb-placeholder-0123456789abcdef0123456789abcdef"
#define VALUE "ghp_realvalue123"

static void secret(lcsb__secret *s, const char *entry) {
    char why[300];
    if (lcsb__secret_parse(entry, NULL, s, why, sizeof why) != 0) fail_msg("%s: %s", entry, why);
    snprintf(s->placeholder, sizeof s->placeholder, "%s", PLACEHOLDER);
    assert_int_equal(lcsb__secret_set_value(s, VALUE, strlen(VALUE)), 0);
}

/* An echo of a value, and a part of it (or of its Base64) that must not
 * be left once the echo is masked. */
typedef struct echo_case {
    const char *value, *echo, *telltale;
} echo_case;

/* Each of the N CASES masked for its value: found, and no telltale left. */
static void masks_each(const echo_case *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        lcsb__secret s;
        secret(&s, "API_KEY api.example");
        assert_int_equal(lcsb__secret_set_value(&s, cases[i].value, strlen(cases[i].value)), 0);
        char *echo = strdup(cases[i].echo);
        assert_non_null(echo);
        bool hit = false;
        assert_true(lcsb__secrets_mask(&s, 1, echo, strlen(echo), 0, NULL, &hit) >= 1);
        assert_true(hit);
        assert_lacks(echo, cases[i].telltale, cases[i].echo);
        free(echo);
        lcsb__secret_clear(&s);
    }
}

static void test_secret_entry(void **state) {
    (void)state;
    lcsb__secret s;
    char why[300], out[4096];
    assert_int_equal(
        lcsb__secret_parse("GH_TOKEN", "API.github.com,*.Example.org:8443", &s, why, sizeof why),
        0);
    lcsb__secret_format(&s, out, sizeof out);
    assert_string_equal(out, "GH_TOKEN api.github.com,*.example.org:8443");
    assert_true(lcsb__secret_goes_to(&s, "api.github.com", 443));
    assert_false(lcsb__secret_goes_to(&s, "api.github.com", 8443));
    assert_true(lcsb__secret_goes_to(&s, "a.example.org", 8443));
    assert_false(lcsb__secret_goes_to(&s, "example.org", 8443));
    assert_int_equal(lcsb__secret_parse("T a.example headers=Private-Token,X-Api-Key", NULL, &s,
                                        why, sizeof why),
                     0);
    lcsb__secret_format(&s, out, sizeof out);
    assert_string_equal(out, "T a.example headers=private-token,x-api-key");
    assert_int_equal(
        lcsb__secret_parse("T a.example,b.example from=/run/secrets/t", NULL, &s, why, sizeof why),
        0);
    assert_string_equal(s.from, "/run/secrets/t");
    lcsb__secret_format(&s, out, sizeof out);
    assert_string_equal(out, "T a.example,b.example from=/run/secrets/t");
    assert_int_equal(lcsb__secret_parse("T", "a.example headers=X-A from=/t", &s, why, sizeof why),
                     0);
    lcsb__secret_format(&s, out, sizeof out);
    assert_string_equal(out, "T a.example headers=x-a from=/t");
    /* A command that prints the value: its words, spaces and all. */
    assert_int_equal(lcsb__secret_parse("T", "a.example command=[\"gh\",\"auth token\",\"-x\"]", &s,
                                        why, sizeof why),
                     0);
    lcsb__secret_format(&s, out, sizeof out);
    assert_string_equal(out, "T a.example command=[\"gh\",\"auth token\",\"-x\"]");
    char words[256], *argv[8];
    assert_int_equal(lcsb__secret_command(&s, words, sizeof words, argv, 8), 3);
    assert_string_equal(argv[0], "gh");
    assert_string_equal(argv[1], "auth token");
    assert_string_equal(argv[2], "-x");
    assert_null(argv[3]);

    static const char *const refused[][3] = {
        {"1X", "a.example", "no variable's name"},
        {"A-B", "a.example", "no variable's name"},
        {"X", "", "hosts"},
        {"X", "a.example,", "hosts"},
        {"X", "!a.example", "no host a secret"},
        {"X", "a.example once", "only \" headers="},
        {"X", "a.example headers=", "only \" headers="},
        {"X", "a.example headers=a b", "only"},
        {"X", "a.example headers=X,", "only \" headers="},
        {"X", "a.example from=relative/t", "from=/PATH"},
        {"X", "a.example from=/a from=/b", "from=/PATH"},
        {"X", "a.example from=/t headers=X", "from=/PATH"},
        {"X", "a.example command=[]", "command="},
        {"X", "a.example command=[\"\"]", "command="},
        {"X", "a.example command=[\"a\\\\b\"]", "command="},
        {"X", "a.example command=[\"a\",]", "command="},
        {"X", "a.example command=\"a\"", "command="},
        {"X", "a.example methods=GET", "only \" headers="},
        {"X", "http://a.example/", "no host a secret"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        if (lcsb__secret_parse(refused[i][0], refused[i][1], &s, why, sizeof why) == 0)
            fail_msg("accepted %s %s", refused[i][0], refused[i][1]);
        assert_contains(why, refused[i][2], refused[i][1]);
    }
}

static void test_secret_swap(void **state) {
    (void)state;
    lcsb__secret s;
    secret(&s, "GH_TOKEN api.github.com headers=X-Token");
    static const char head[] = "GET /x?t=" PLACEHOLDER " HTTP/1.1\r\n"
                               "X-Token: " PLACEHOLDER "\r\n"
                               "X-Echo: " PLACEHOLDER "\r\n"
                               "Authorization: Basic eDoxMjNsY3NiLXBsYWNlaG9sZGVyLTAxMjM0NTY3ODlh"
                               "YmNkZWYwMTIzNDU2Nzg5YWJjZGVm\r\n"
                               "Host: api.github.com\r\n\r\n";
    lcsb__buf out = {0};
    assert_int_equal(
        lcsb__secrets_swap(&s, 1, "api.github.com", 443, head, sizeof head - 1, &out, NULL), 2);
    /* The request line keeps its placeholder; the headers get the value,
     * and Basic's "x:123<placeholder>" becomes "x:123<value>". */
    assert_contains(out.p, "GET /x?t=" PLACEHOLDER " HTTP/1.1\r\n");
    assert_contains(out.p, "X-Token: " VALUE "\r\n");
    assert_contains(out.p, "Authorization: Basic eDoxMjNnaHBfcmVhbHZhbHVlMTIz\r\n");
    /* A header the secret does not name (one a server might echo) keeps
     * the placeholder. */
    assert_contains(out.p, "X-Echo: " PLACEHOLDER "\r\n");
    /* Another host gets the placeholder as it was. */
    out.len = 0;
    assert_int_equal(
        lcsb__secrets_swap(&s, 1, "evil.example", 443, head, sizeof head - 1, &out, NULL), 0);
    assert_int_equal(out.len, sizeof head - 1);
    assert_memory_equal(out.p, head, out.len);
    lcsb__buf_free(&out);
    lcsb__secret_clear(&s);
    assert_null(s.value);
}

static void test_secret_find(void **state) {
    (void)state;
    lcsb__secret v[2];
    secret(&v[0], "GH_TOKEN api.github.com");
    secret(&v[1], "OTHER a.example");
    assert_int_equal(lcsb__secret_set_value(&v[1], "another-longer-value", 20), 0);
    static const char plain[] = "POST / HTTP/1.1\r\nX: ghp_realvalue123\r\n\r\n";
    assert_int_equal(lcsb__secrets_find(v, 2, plain, sizeof plain - 1), 0);
    static const char basic[] = "GET / HTTP/1.1\r\nauthorization:  basic  "
                                "dXNlcjphbm90aGVyLWxvbmdlci12YWx1ZQ== \r\n\r\n";
    assert_int_equal(lcsb__secrets_find(v, 2, basic, sizeof basic - 1), 1);
    static const char encoded[] = "GET /?q=ghp%5Frealvalue%31%32%33 HTTP/1.1\r\n\r\n";
    assert_int_equal(lcsb__secrets_find(v, 2, encoded, sizeof encoded - 1), 0);
    static const char unpadded[] = "GET / HTTP/1.1\r\nAuthorization: Basic "
                                   "dXNlcjphbm90aGVyLWxvbmdlci12YWx1ZQ\r\n\r\n";
    assert_int_equal(lcsb__secrets_find(v, 2, unpadded, sizeof unpadded - 1), 1);
    char echoed[] = "x: ghp_realvalue123, y: ghp_realvalue123another-longer-value";
    assert_int_equal(lcsb__secrets_mask(v, 2, echoed, strlen(echoed), 0, NULL, NULL), 3);
    assert_string_equal(echoed, "x: ****************, y: ************************************");
    static const char clean[] = "GET / HTTP/1.1\r\nX: " PLACEHOLDER "\r\n\r\n";
    assert_int_equal(lcsb__secrets_find(v, 2, clean, sizeof clean - 1), -1);
    /* A search across reads holds back what the longest value's forms
     * could start in: its Base64 with every character escaped (\u002B),
     * or encoded thrice, twelve times as long. */
    assert_int_equal(lcsb__secrets_longest(v, 2), 12 * strlen("another-longer-value"));
    /* In Base64, at any alignment, as a server echoing Basic credentials
     * sends it back; and whose it was. */
    char basic_echo[] = "authorization: Basic dXNlcjphbm90aGVyLWxvbmdlci12YWx1ZQ== and "
                        "eHg6Z2hwX3JlYWx2YWx1ZTEyMw==";
    bool hit[2];
    assert_true(lcsb__secrets_mask(v, 2, basic_echo, strlen(basic_echo), 0, NULL, hit) >= 2);
    assert_true(hit[0] && hit[1]);
    assert_lacks(basic_echo, "bm90aGVyLWxvbmdlci12YWx1Z", "the echo");
    assert_lacks(basic_echo, "X3JlYWx2YWx1ZTEy", "the echo");
    /* The whole run of Base64 around it: its edges carry the value's bits. */
    assert_lacks(basic_echo, "dXNlcj", "the user's part, mixed with the value's first bits");
    assert_contains(basic_echo, "Basic ****", "the credentials");
    static const char b64_body[] = "POST / HTTP/1.1\r\n\r\nk=Z2hwX3JlYWx2YWx1ZTEyMw";
    assert_int_equal(lcsb__secrets_find(v, 2, b64_body, sizeof b64_body - 1), 0);
    lcsb__secret_clear(&v[0]);
    lcsb__secret_clear(&v[1]);
}

/* What a server's echo makes of a value besides Base64: percent-encoded
 * (either case of hex digits) and escaped in a JSON string (with "/"
 * escaped or not), each overwritten. A value with none of those characters
 * has no such forms: nothing else is overwritten. */
static void test_secret_echo_forms(void **state) {
    (void)state;
    lcsb__secret s;
    secret(&s, "API_KEY api.example");
    static const char value[] = "ab/c\"d\\e+f=g";
    assert_int_equal(lcsb__secret_set_value(&s, value, sizeof value - 1), 0);
    char percent[] = "q=ab%2Fc%22d%5Ce%2Bf%3Dg&r=ab%2fc%22d%5ce%2bf%3dg";
    assert_int_equal(lcsb__secrets_mask(&s, 1, percent, strlen(percent), 0, NULL, NULL), 2);
    assert_string_equal(percent, "q=**********************&r=**********************");
    char json[] = "{\"k\":\"ab\\/c\\\"d\\\\e+f=g\",\"l\":\"ab/c\\\"d\\\\e+f=g\"}";
    assert_int_equal(lcsb__secrets_mask(&s, 1, json, strlen(json), 0, NULL, NULL), 2);
    assert_string_equal(json, "{\"k\":\"***************\",\"l\":\"**************\"}");
    /* The same finds in a request refuse it. */
    static const char body[] = "POST / HTTP/1.1\r\n\r\n{\"k\":\"ab\\/c\\\"d\\\\e+f=g\"}";
    assert_int_equal(lcsb__secrets_find(&s, 1, body, sizeof body - 1), 0);
    lcsb__secret_clear(&s);
    secret(&s, "PLAIN api.example");
    assert_int_equal(lcsb__secret_set_value(&s, "plain-value_1.x~", 16), 0);
    for (size_t k = LCSB__SECRET_SPELLED_FORMS; k < LCSB__SECRET_FORMS; k++)
        assert_null(s.forms[k]);
    lcsb__secret_clear(&s);
}

/* Echoes as real encoders write them (a red team's servers): Go's JSON
 * (\u0026 for "&"), urllib's quote (keeping "/"), quote_plus (a space as
 * "+"), base64url, Basic's Base64 percent-encoded in a Location, HTML,
 * and JSON of a value past ASCII, by code point and by Latin-1 byte. Each
 * is overwritten where the value's characters stand. */
static void test_secret_encoders(void **state) {
    (void)state;
    lcsb__secret s;
    secret(&s, "API_KEY api.example");
    static const char value[] = "s3cr3t-V4lue+with/Special&<chars>\"x";
    assert_int_equal(lcsb__secret_set_value(&s, value, sizeof value - 1), 0);
    char *echoes[] = {
        strdup("{\"a\":\"Bearer s3cr3t-V4lue+with/Special\\u0026\\u003cchars\\u003e\\\"x\"}"),
        strdup("x=s3cr3t-V4lue%2Bwith/Special%26%3Cchars%3E%22x&y=1"),
        strdup("<p>s3cr3t-V4lue+with/Special&amp;&lt;chars&gt;&quot;x</p>"),
        strdup("t=czNjcjN0LVY0bHVlK3dpdGgvU3BlY2lhbCY8Y2hhcnM-Ing="),
        strdup(
            "Location: /x?prev=Basic%20YWI6czNjcjN0LVY0bHVlK3dpdGgvU3BlY2lhbCY8Y2hhcnM%2BIng%3D"),
    };
    static const char *const telltales[] = {"Special", "Special", "Special", "NjcjN0LVY0bHVlK3dp",
                                            "NjcjN0LVY0bHVlK3dp"};
    for (size_t i = 0; i < sizeof echoes / sizeof *echoes; i++) {
        assert_non_null(echoes[i]);
        bool hit = false;
        assert_true(lcsb__secrets_mask(&s, 1, echoes[i], strlen(echoes[i]), 0, NULL, &hit) >= 1);
        assert_true(hit);
        assert_lacks(echoes[i], telltales[i], "the echo");
        free(echoes[i]);
    }
    lcsb__secret_clear(&s);
    secret(&s, "API_KEY api.example");
    static const char spaced[] = "file-s3cret value+x";
    assert_int_equal(lcsb__secret_set_value(&s, spaced, sizeof spaced - 1), 0);
    char plus[] = "q=file-s3cret+value%2Bx&r=2";
    assert_int_equal(lcsb__secrets_mask(&s, 1, plus, strlen(plus), 0, NULL, NULL), 1);
    assert_string_equal(plus, "q=*********************&r=2");
    lcsb__secret_clear(&s);
    secret(&s, "API_KEY api.example");
    static const char wide[] = "p\xc3\xa4ssw\xc3\xb6rd-f\xc3\xbcr-dich";
    assert_int_equal(lcsb__secret_set_value(&s, wide, sizeof wide - 1), 0);
    char json[] = "[\"p\\u00e4ssw\\u00f6rd-f\\u00fcr-dich\",\"p\\u00c3\\u00a4ssw\\u00c3\\u00b6rd-f"
                  "\\u00c3\\u00bcr-dich\"]";
    assert_int_equal(lcsb__secrets_mask(&s, 1, json, strlen(json), 0, NULL, NULL), 2);
    assert_lacks(json, "ssw", "by code point and by byte");
    lcsb__secret_clear(&s);
}

/* Escapes an encoder puts in the midst of a value or of its Base64 (a
 * third red team's servers): PHP's "\/" and .NET's "\u002B" in JSON, Go's
 * "&#43;" in HTML, Go's PathEscape, MIME's line every 76 characters, and
 * Basic credentials percent-encoded whole, whose last characters mix the
 * value's bits with the command's: each overwritten to the run's end. */
static void test_secret_escaped_midst(void **state) {
    (void)state;
    static const echo_case cases[] = {
        {"S3cr3t+Val/ue_ABCD?1234", "{\"a\":\"Basic dTpTM2NyM3QrVmFsL3VlX0FCQ0Q\\/MTIzNA==\"}",
         "MTIzNA"},
        {"tok~en>Value?9xyz_ABCD", "\"Basic dTp0b2t\\u002BZW4\\u002BVmFsdWU/OXh5el9BQkNE\"",
         "VmFsdWU"},
        {"tok~en>Value?9xyz_ABCD", "<p>Basic dTp0b2t&#43;ZW4&#43;VmFsdWU/OXh5el9BQkNE</p>",
         "VmFsdWU"},
        {"S3cr3t+Val/ue_ABCD?1234", "\"Bearer S3cr3t\\u002BVal/ue_ABCD?1234\"", "ue_ABCD"},
        {"S3cr3t+Val-ue_ABCD.123o", "<p>S3cr3t&#43;Val-ue_ABCD.123o</p>", "ue_ABCD"},
        {"S3cr3t+Val/ue_ABCD?1234", "Location: /u/S3cr3t+Val%2Fue_ABCD%3F1234", "ue_ABCD"},
        {"S3cr3t+Val-ue_ABCD.123o",
         "UFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUzNjcjN0K1ZhbC11\n"
         "ZV9BQkNELjEyM28=\n",
         "ZV9BQkNE"},
    };
    masks_each(cases, sizeof cases / sizeof *cases);
    /* Basic credentials percent-encoded whole: every character of the run,
     * escapes and all (and the "20" of the space before it, Base64's
     * characters as the echo has them). */
    lcsb__secret s;
    secret(&s, "API_KEY api.example");
    assert_int_equal(lcsb__secret_set_value(&s, "S3cr3t+Val/ue_ABCD?1234", 23), 0);
    char location[] =
        "Location: /cb?c=Basic%20dXU6UzNjcjN0K1ZhbC91ZV9BQkNEPzEyMzT%2F%2Fw%3D%3D&d=1";
    assert_true(lcsb__secrets_mask(&s, 1, location, strlen(location), 0, NULL, NULL) >= 1);
    assert_string_equal(
        location, "Location: /cb?c=Basic%**************************************************&d=1");
    lcsb__secret_clear(&s);
    /* A request that carries the value escaped so is refused too. */
    secret(&s, "API_KEY api.example");
    assert_int_equal(lcsb__secret_set_value(&s, "S3cr3t+Val/ue_ABCD?1234", 23), 0);
    static const char body[] = "POST / HTTP/1.1\r\n\r\n{\"k\":\"S3cr3t\\u002BVal\\/ue_ABCD?1234\"}";
    assert_int_equal(lcsb__secrets_find(&s, 1, body, sizeof body - 1), 0);
    lcsb__secret_clear(&s);
}

/* A fourth red team's echoes: HTML5's named references and numeric ones
 * without ";" or with leading zeros, escapes of escapes (a percent-escape
 * of .NET's \u002B, HTML of a percent-escape, a URL encoded thrice), and
 * Base64 wrapped in lines whose breaks are escaped (JSON's \n, %0A) or
 * carry blanks. Each overwritten: no telltale left. */
static void test_secret_nested_escapes(void **state) {
    (void)state;
    static const char value[] = "Xy+k/9_Q~>w1234?";
    static const struct {
        const char *echo, *telltale;
    } cases[] = {
        {"Xy&plus;k&sol;9_Q~>w1234?", "w1234"},
        {"Xy+k/9&lowbar;Q~>w1234?", "w1234"},
        {"Xy&#43k/9_Q~>w1234?", "w1234"},
        {"Xy&#x0000002B;k/9_Q~>w1234?", "w1234"},
        {"Xy%5Cu002Bk/9_Q~>w1234?", "w1234"},
        {"Xy&#37;2Bk/9_Q~>w1234?", "w1234"},
        {"Xy%25252Bk%25252F9_Q~%25253Ew1234%25253F", "w1234"},
        {"\"QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFYeStrLzlf\\nUX4+"
         "dzEyMzQ/QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJC\\nQkI=\\n\"",
         "UX4+dzEyMzQ"},
        {"QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFYeStrLzlf%0AUX4+"
         "dzEyMzQ/QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJC%0AQkI=%0A",
         "UX4+dzEyMzQ"},
        {"QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB \r\nQUFYeStrLzlfUX4+"
         "dzEyMzQ/QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJC \r\nQkJCQkJCQkJCQkJCQkJCQkJCQkI=",
         "YeStrLzlf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lcsb__secret s;
        secret(&s, "API_KEY api.example");
        assert_int_equal(lcsb__secret_set_value(&s, value, sizeof value - 1), 0);
        char *echo = strdup(cases[i].echo);
        assert_non_null(echo);
        assert_true(lcsb__secrets_mask(&s, 1, echo, strlen(echo), 0, NULL, NULL) >= 1);
        assert_lacks(echo, cases[i].telltale, cases[i].echo);
        free(echo);
        lcsb__secret_clear(&s);
    }
    /* The character after the value's own Base64 holds its last bits: cut
     * there by a read, and escaped (%2B) at the next one's start, it is
     * the run's all the same. */
    lcsb__secret s;
    secret(&s, "API_KEY api.example");
    assert_int_equal(lcsb__secret_set_value(&s, value, sizeof value - 1), 0);
    char data[128] = "x WHkray85X1F+PncxMjM0P";
    size_t first = strlen(data);
    bool open = false;
    assert_true(lcsb__secrets_mask(&s, 1, data, first, 0, &open, NULL) >= 1);
    assert_true(open);
    strcat(data, "%2BBCQkJC next");
    (void)lcsb__secrets_mask(&s, 1, data, strlen(data), first, &open, NULL);
    assert_lacks(data, "%2B", "the edge's character, escaped");
    assert_contains(data, " next", "what follows the run");
    lcsb__secret_clear(&s);
}

/* An answer read in parts: where a read ends right after a value's
 * Base64, the next read's first characters may still carry its last bits
 * (Basic credentials echoed, "...=" after them); they are overwritten as
 * the run goes on. The twin: looked at alone, the second part keeps them. */
static void test_secret_mask_across_reads(void **state) {
    (void)state;
    lcsb__secret s;
    secret(&s, "GH_TOKEN api.github.com");
    /* "uuu:" + the value in Base64: dXV1OmdocF9yZWFsdmFsdWUxMjM= */
    char data[64] = "Basic dXV1OmdocF9yZWFsdmFsdWUxMj";
    size_t first = strlen(data);
    bool open = false;
    assert_true(lcsb__secrets_mask(&s, 1, data, first, 0, &open, NULL) >= 1);
    assert_true(open);
    assert_string_equal(data, "Basic **************************");
    strcat(data, "M= next");
    assert_int_equal(lcsb__secrets_mask(&s, 1, data, strlen(data), first, &open, NULL), 0);
    assert_false(open);
    assert_string_equal(data, "Basic **************************** next");
    char alone[] = "M= next";
    assert_int_equal(lcsb__secrets_mask(&s, 1, alone, strlen(alone), 0, NULL, NULL), 0);
    assert_string_equal(alone, "M= next");
    /* An eighth red team's reads: the next character escaped, the read cut
     * inside its escape ("%2", then "F"), or the run wrapped where the read
     * ends: the run goes on through them ("uu:" + the value, its last bits
     * in the "/"). */
    static const struct {
        const char *first, *then, *left;
    } cuts[] = {{"c=dXU6Z2hwX3JlYWx2YWx1ZTEyM%2", "Fg%3D&d=1", "&d=1"},
                {"X: dXU6Z2hwX3JlYWx2YWx1ZTEyM", "\n/g= next", "\n*** next"},
                {"X: dXU6Z2hwX3JlYWx2YWx1ZTEyM\r", "\n/g= next", "\r\n*** next"}};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        char cut[128];
        snprintf(cut, sizeof cut, "%s", cuts[i].first);
        size_t at = strlen(cut);
        open = false;
        assert_true(lcsb__secrets_mask(&s, 1, cut, at, 0, &open, NULL) >= 1);
        assert_true(open);
        strcat(cut, cuts[i].then);
        (void)lcsb__secrets_mask(&s, 1, cut, strlen(cut), at, &open, NULL);
        assert_lacks(cut, "g", cuts[i].first);
        assert_contains(cut, cuts[i].left, cuts[i].then);
    }
    lcsb__secret_clear(&s);
}

/* A fifth red team's echoes. A value that holds what reads as an escape
 * (%41, \n, &amp;), spelled with escapes of an encoder's around it, which
 * a view undoes in the same pass; a value past ASCII escaped byte by byte
 * in upper case, or under a second escape, or read as Latin-1 and written
 * as UTF-8; a form's field keeping "*" or "!'()"; Base64 wrapped at a
 * column counted from its line's start (a header's name before it). Each
 * overwritten: no telltale left. */
static void test_secret_escape_lookalikes(void **state) {
    (void)state;
    static const echo_case cases[] = {
        {"Tr0ub%4Dor&3xyz", "Tr0ub%25254Dor%25263xyz", "Tr0ub"},
        {"p+ss%41word99", "\"p\\u002Bss%41word99\"", "word99"},
        {"p+ss%41word99", "p&#43;ss%41word99", "word99"},
        {"p+ss&amp;word99", "p&#43;ss&amp;word99", "word99"},
        {"ab\\ncdefgh+", "\"\\\"ab\\\\\\\\ncdefgh+\\\"\"", "cdefgh"},
        {"p\xc3"
         "\xa4"
         "ssw\xc3"
         "\xb6"
         "rd-1234",
         "p\\u00C3\\u00A4ssw\\u00C3\\u00B6rd-1234", "ssw"},
        {"p\xc3"
         "\xa4"
         "ssw\xc3"
         "\xb6"
         "rd-1234",
         "\"\\\"p\\\\u00c3\\\\u00a4ssw\\\\u00c3\\\\u00b6rd-1234\\\"\"", "ssw"},
        {"p\xc3"
         "\xa4"
         "ssw\xc3"
         "\xb6"
         "rd-1234",
         "%22p%5Cu00c3%5Cu00a4ssw%5Cu00c3%5Cu00b6rd-1234%22", "ssw"},
        {"p\xc3"
         "\xa4"
         "ssw\xc3"
         "\xb6"
         "rd-1234",
         "p\xc3"
         "\x83"
         "\xc2"
         "\xa4"
         "ssw\xc3"
         "\x83"
         "\xc2"
         "\xb6"
         "rd-1234",
         "ssw"},
        {"p\xc3"
         "\xa4"
         "ssw\xc3"
         "\xb6"
         "rd-1234",
         "p&#195;&#164;ssw&#195;&#182;rd-1234", "ssw"},
        {"my pass*word~1", "my+pass*word%7E1", "word"},
        {"it's a secret!", "it's+a+secret!", "secret"},
        {"k3y-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV",
         "X-Forwarded-Authorization-Header-Value: "
         "azN5LTAxMjM0NTY3ODlhYmNkZWZnaGlqa2xt\nbm9wcXJzdHV2d3h5ekFCQ0RFRkdISUpLTE1OT1BRUlNUVVY=\n",
         "cXJzdHV2d3h5"},
    };
    masks_each(cases, sizeof cases / sizeof *cases);
    /* And in a request, withheld: the value with its look-alike, .NET's
     * escape beside it. */
    lcsb__secret s;
    secret(&s, "API_KEY api.example");
    assert_int_equal(lcsb__secret_set_value(&s, "p+ss%41word99", 13), 0);
    static const char body[] = "POST / HTTP/1.1\r\n\r\n{\"k\":\"p\\u002Bss%41word99\"}";
    assert_int_equal(lcsb__secrets_find(&s, 1, body, sizeof body - 1), 0);
    static const char other[] = "POST / HTTP/1.1\r\n\r\n{\"k\":\"p\\u002Bss%42word99\"}";
    assert_int_equal(lcsb__secrets_find(&s, 1, other, sizeof other - 1), -1);
    lcsb__secret_clear(&s);
}

/* A sixth and a seventh red team's echoes. The command's own "%", "&#" or
 * "\\" before the value (or its "%4" at the end) takes some of it into an
 * escape: less than its whole leading run, beside a look-alike, or at both
 * ends; a value read as Latin-1, written as UTF-8, then form-encoded; PHP's
 * htmlentities, Latin-1's names and HTML 4's past them. */
static void test_secret_escapes_at_the_edges(void **state) {
    (void)state;
    static const echo_case cases[] = {
        {"4f9e+secretToken", "{\"x-token\":\"%4f9e\\u002BsecretToken\"}", "4f9e"},
        {"12\xc3\xa4"
         "b-secret",
         "%12&#228;b-secret", "b-secret"},
        {"k3yT0ken+value%4", "\"k3yT0ken\\u002Bvalue%41\"", "T0ken"},
        {"p\xc3\xa4sswo\xcc\x88rd 1234", "token=p%C3%83%C2%A4sswo%C3%8C%C2%88rd+1234", "rd+1234"},
        {"p\xc3\xa4ssw\xc3\xb6rd-1234", "p&auml;ssw&ouml;rd-1234", "rd-1234"},
        {"p\xc3\xa4ssw\xc3\xb6rd-1234", "p&aumlssw&oumlrd-1234", "rd-1234"},
        {"abcdefghijkl+mno", "{\"x-token\":\"%abcdefghijkl\\u002Bmno\"}", "ghijkl"},
        {"ab%41cdefgh+ijkl", "%ab%41cdefgh\\u002Bijkl", "cdefgh"},
        {"9bSecret+Password%", "%9bSecret\\u002BPassword%41", "Password"},
        {"p\xc3\xa4sswort\xe2\x82\xac"
         "1234",
         "p&auml;sswort&euro;1234", "sswort"},
        {"Secret-\xce\xa9mega-12", "Secret-&Omega;mega-12", "mega-12"},
    };
    masks_each(cases, sizeof cases / sizeof *cases);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secret_entry),
        cmocka_unit_test(test_secret_swap),
        cmocka_unit_test(test_secret_find),
        cmocka_unit_test(test_secret_echo_forms),
        cmocka_unit_test(test_secret_encoders),
        cmocka_unit_test(test_secret_escaped_midst),
        cmocka_unit_test(test_secret_nested_escapes),
        cmocka_unit_test(test_secret_mask_across_reads),
        cmocka_unit_test(test_secret_escape_lookalikes),
        cmocka_unit_test(test_secret_escapes_at_the_edges),
    };
    return cmocka_run_group_tests_name("sandbox_secrets", tests, NULL, NULL);
}
