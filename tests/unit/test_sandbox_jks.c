/* The Java truststore's bytes (jks.c), against the layout Java's
 * JavaKeyStore reads: the header, each trusted entry, the count written in
 * at the end, and what the digest is taken over. The digest itself is the
 * caller's (OpenSSL's SHA-1 in a run), and Java's acceptance of a whole
 * store is the enforcement suite's (test_sandbox_enforce_java). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <string.h>

#include "jks.h"

static unsigned char hashed[4096];
static size_t hashed_len;

/* A stand-in for SHA-1: keeps its input, answers twenty 0xAB. */
static int keep(const void *data, size_t len, unsigned char digest[LCSB__SHA1_LEN]) {
    assert_true(len <= sizeof hashed);
    memcpy(hashed, data, len);
    hashed_len = len;
    memset(digest, 0xAB, LCSB__SHA1_LEN);
    return 0;
}

static int refuse(const void *data, size_t len, unsigned char digest[LCSB__SHA1_LEN]) {
    (void)data;
    (void)len;
    (void)digest;
    return -1;
}

static void test_layout(void **state) {
    (void)state;
    lcsb__jks k = {0};
    lcsb__jks_init(&k);
    lcsb__jks_add_trusted(&k, "lcsb-run", 0x0102030405060708ull, "\x30\x01\x02", 3);
    lcsb__jks_add_trusted(&k, "s", 1, "\x30", 1);
    assert_true(lcsb__jks_finish(&k, "ab", keep));
    static const unsigned char want[] = "\xFE\xED\xFE\xED"
                                        "\x00\x00\x00\x02" /* version 2 */
                                        "\x00\x00\x00\x02" /* two entries */
                                        "\x00\x00\x00\x02"
                                        "\x00\x08lcsb-run"
                                        "\x01\x02\x03\x04\x05\x06\x07\x08"
                                        "\x00\x05X.509"
                                        "\x00\x00\x00\x03\x30\x01\x02"
                                        "\x00\x00\x00\x02"
                                        "\x00\x01s"
                                        "\x00\x00\x00\x00\x00\x00\x00\x01"
                                        "\x00\x05X.509"
                                        "\x00\x00\x00\x01\x30";
    size_t body = sizeof want - 1;
    assert_int_equal(k.bytes.len, body + LCSB__SHA1_LEN);
    assert_memory_equal(k.bytes.p, want, body);
    for (size_t i = 0; i < LCSB__SHA1_LEN; i++)
        assert_int_equal((unsigned char)k.bytes.p[body + i], 0xAB);
    /* The password as UTF-16BE, Java's whitener, then the store. */
    static const char keyed[] = "\x00"
                                "a\x00"
                                "bMighty Aphrodite";
    assert_int_equal(hashed_len, sizeof keyed - 1 + body);
    assert_memory_equal(hashed, keyed, sizeof keyed - 1);
    assert_memory_equal(hashed + sizeof keyed - 1, want, body);
    lcsb__jks_free(&k);
}

/* A digest that failed makes no store. */
static void test_digest_failed(void **state) {
    (void)state;
    lcsb__jks k = {0};
    lcsb__jks_init(&k);
    lcsb__jks_add_trusted(&k, "a", 0, "\x30", 1);
    assert_false(lcsb__jks_finish(&k, LCSB__JKS_PASSWORD, refuse));
    lcsb__jks_free(&k);
}

/* A PEM bundle's certificates, as a system's file has them: each block's
 * Base64 decoded whatever its line breaks, what lies between blocks
 * skipped, each named system-N in their order. "MAEC" is 30 01 02, "MAED"
 * 30 01 03. */
static void test_pem(void **state) {
    (void)state;
    static const char pem[] =
        "# a comment\n"
        "-----BEGIN CERTIFICATE-----\nMA\r\nED\n-----END CERTIFICATE-----\n"
        "junk\n-----BEGIN CERTIFICATE-----\nMAEC\n-----END CERTIFICATE-----\n";
    lcsb__jks k = {0};
    lcsb__jks_init(&k);
    assert_int_equal(lcsb__jks_add_pem(&k, pem, sizeof pem - 1, 1), 0);
    assert_int_equal(k.n, 2);
    lcsb__jks want = {0};
    lcsb__jks_init(&want);
    lcsb__jks_add_trusted(&want, "system-1", 1, "\x30\x01\x03", 3);
    lcsb__jks_add_trusted(&want, "system-2", 1, "\x30\x01\x02", 3);
    assert_int_equal(k.bytes.len, want.bytes.len);
    assert_memory_equal(k.bytes.p, want.bytes.p, want.bytes.len);
    lcsb__jks_free(&want);
    lcsb__jks_free(&k);

    /* A block without its end; no Base64. */
    static const char unended[] = "-----BEGIN CERTIFICATE-----\nMAED\n";
    static const char garbled[] = "-----BEGIN CERTIFICATE-----\nMA*D\n-----END CERTIFICATE-----\n";
    lcsb__jks_init(&k);
    assert_int_equal(lcsb__jks_add_pem(&k, unended, sizeof unended - 1, 1), -1);
    assert_int_equal(lcsb__jks_add_pem(&k, garbled, sizeof garbled - 1, 1), -1);
    lcsb__jks_free(&k);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_digest_failed),
        cmocka_unit_test(test_pem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
