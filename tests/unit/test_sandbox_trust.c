/* The trust store (trust.c): lcsb_script_open refusing a script no one
 * trusted, lcsb_trust recording it and what it read, the refusal naming every
 * file not as trusted, a record read back, and the summary of a change; and
 * the digest it names files by (sha256.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "helpers.h"
#include "sha256.h"
#include "trust.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The digest trust and caps name files by: FIPS 180-4's own examples, and a
 * length that puts the padding across a block boundary. */
static void test_sha256(void **state) {
    (void)state;
    char hex[LCSB__SHA256_HEX];
    lcsb__sha256_of("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    lcsb__sha256_of("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    lcsb__sha256_of(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* A million 'a's, fed in uneven pieces. */
    lcsb__sha256 h;
    lcsb__sha256_init(&h);
    char as[997];
    memset(as, 'a', sizeof as);
    size_t left = 1000000;
    for (size_t piece = 1; left > 0; piece = piece % (sizeof as - 7) + 7) {
        size_t n = piece < left ? piece : left;
        lcsb__sha256_add(&h, as, n);
        left -= n;
    }
    lcsb__sha256_hex(&h, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* The portable code compiled again, without the SHA extensions, under names
 * of its own: on a CPU that has them, the library's digests come from them. */
#define LCSB_SHA256_PORTABLE
#define lcsb__sha256_init portable_sha256_init
#define lcsb__sha256_add portable_sha256_add
#define lcsb__sha256_hex portable_sha256_hex
#define lcsb__sha256_of portable_sha256_of
void portable_sha256_init(lcsb__sha256 *h);
void portable_sha256_add(lcsb__sha256 *h, const void *data, size_t len);
void portable_sha256_hex(lcsb__sha256 *h, char hex[LCSB__SHA256_HEX]);
void portable_sha256_of(const void *data, size_t len, char hex[LCSB__SHA256_HEX]);
#include "../../src/sha256.c"
#undef lcsb__sha256_init
#undef lcsb__sha256_add
#undef lcsb__sha256_hex
#undef lcsb__sha256_of

/* Both ways agree, on every length around a block and fed in pieces, and
 * the portable one on FIPS 180-4's example. */
static void test_sha256_both_ways(void **state) {
    (void)state;
    char hex[LCSB__SHA256_HEX], portable[LCSB__SHA256_HEX];
    portable_sha256_of("abc", 3, portable);
    assert_string_equal(portable,
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    static unsigned char data[4099];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 2654435761u >> 13);
    for (size_t len = 0; len < sizeof data; len += len < 200 ? 1 : 97) {
        lcsb__sha256_of(data, len, hex);
        portable_sha256_of(data, len, portable);
        assert_string_equal(hex, portable);
        lcsb__sha256 h;
        lcsb__sha256_init(&h);
        for (size_t at = 0, piece = 1; at < len; at += piece, piece = piece * 3 % 211 + 1)
            lcsb__sha256_add(&h, data + at, piece < len - at ? piece : len - at);
        lcsb__sha256_hex(&h, hex);
        assert_string_equal(hex, portable);
    }
}

/* Embedding: lcsb_script_open checks trust unless told the host wrote the
 * script; lcsb_trust records it and what it read; lcsb.trusted's check
 * (lcsb__trust_verify) agrees, and names what changed. */
static void test_script_trust(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX", store[PATH_MAX], path[PATH_MAX], data[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    assert_int_equal(setenv("XDG_STATE_HOME", path_in(store, dir, "state"), 1), 0);
    write_file(path_in(data, dir, "tools.txt"), "/bin/sh\n");
    FMT(path, "%s/p.lua", dir);
    char text[PATH_MAX + 256];
    FMT(text,
        "local lcsb = require \"lcsb\"\n"
        "local exec = {}\n"
        "for line in io.lines(\"%s\") do exec[#exec + 1] = line end\n"
        "return lcsb.policy { exec = exec }\n",
        data);
    write_file(path, text);
    lcsb_script_options opts;
    lcsb_script_options_init(&opts);
    assert_int_equal(opts.trust, LCSB_TRUST_CHECK);
    opts.lua_dir = LCSB_LUA_DIR;
    static const char *const cmd[] = {"sh", NULL};
    lcsb_script *s = NULL;
    lcsb_error err;
    const char *how;
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), LCSB_EUNTRUSTED);
    assert_null(s);
    assert_contains(err.message, "is not trusted, so lcsb ran none of it");
    assert_int_equal(lcsb__trust_verify(path, &how, &err), LCSB_EUNTRUSTED);

    char **trusted = NULL;
    if (lcsb_trust(path, cmd, &opts, &trusted, &err)) fail_msg("lcsb_trust: %s", err.message);
    assert_int_equal(argc_of(trusted), 2);
    assert_contains(trusted[0], "/p.lua");
    assert_contains(trusted[1], "/tools.txt");
    lcsb_argv_free(trusted);
    assert_int_equal(lcsb__trust_verify(path, &how, &err), 0);
    assert_string_equal(how, "recorded");
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), 0);
    assert_int_equal(lcsb_script_close(s, &err), 0);

    write_file(data, "/bin/sh\n/bin/rm\n");
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), LCSB_EUNTRUSTED);
    assert_contains(err.message, "tools.txt, which changed since you trusted it (1 line added, "
                                 "0 removed; first at line 2: /bin/rm)");
    assert_int_equal(lcsb__trust_verify(path, &how, &err), LCSB_EUNTRUSTED);
    assert_contains(err.message, "tools.txt, which changed");
    /* The host that wrote the script itself needs no record. */
    opts.trust = LCSB_TRUST_SKIP;
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), 0);
    assert_int_equal(lcsb_script_close(s, &err), 0);
    opts.trust = (lcsb_trust_mode)7;
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), LCSB_EINVAL);
    /* What lcsb_trust may run unrecorded is named with its digest. */
    static const char *const accept[] = {"tools.txt", NULL};
    opts.trust = LCSB_TRUST_CHECK;
    opts.accept = accept;
    assert_int_equal(lcsb_trust(path, cmd, &opts, NULL, &err), LCSB_EINVAL);
    assert_contains(err.message, "accept 'tools.txt': expected FILE=SHA256");
    assert_int_equal(unsetenv("XDG_STATE_HOME"), 0);
    rm_rf(dir);
}

/* A refusal names every file the record knows of that is not as trusted,
 * not only the first it met: the rest after it, each with what changed (or
 * that it is new where the script found nothing before), as many as one
 * message holds, and how many more there are. */
static void test_script_trust_names_every_change(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-api.XXXXXX", store[PATH_MAX], path[PATH_MAX], data[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    assert_int_equal(setenv("XDG_STATE_HOME", path_in(store, dir, "state"), 1), 0);
    char name[32];
    for (int i = 0; i < 40; i++) {
        FMT(name, "data%02d.txt", i);
        write_file(path_in(data, dir, name), "sh\n");
    }
    char text[PATH_MAX + 256];
    FMT(text,
        "pcall(dofile, \"%s/local.lua\")\n"
        "for i = 0, 39 do io.open(string.format(\"%s/data%%02d.txt\", i)):close() end\n"
        "return require(\"lcsb\").policy { exec = { \"/bin/sh\" } }\n",
        dir, dir);
    write_file(path_in(path, dir, "p.lua"), text);
    lcsb_script_options opts;
    lcsb_script_options_init(&opts);
    opts.lua_dir = LCSB_LUA_DIR;
    static const char *const cmd[] = {"sh", NULL};
    lcsb_error err;
    if (lcsb_trust(path, cmd, &opts, NULL, &err)) fail_msg("lcsb_trust: %s", err.message);
    /* A file it looked for and did not find is there now (a command may
     * have planted it), and the script changed: the refusal of the script
     * names that file too, though the script never got to read it. */
    char local[PATH_MAX], edited[sizeof text + 32];
    write_file(path_in(local, dir, "local.lua"), "return 1\n");
    FMT(edited, "%s-- mine\n", text);
    write_file(path, edited);
    lcsb_script *s = NULL;
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), LCSB_EUNTRUSTED);
    assert_contains(err.message, "p.lua changed since you trusted it");
    assert_contains(err.message, "local.lua (new: 1 line, last changed ");
    assert_int_equal(unlink(local), 0);
    write_file(path, text);
    /* Two changed: the first refused, the second named after it. */
    write_file(path_in(data, dir, "data03.txt"), "rm\n");
    write_file(path_in(data, dir, "data07.txt"), "sh\ncat\n");
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), LCSB_EUNTRUSTED);
    assert_contains(err.message, "data03.txt, which changed since you trusted it");
    assert_contains(err.message, ". Also new or changed since you trusted it: ");
    assert_contains(err.message, "data07.txt (1 line added, 0 removed; first at line 2: cat; "
                                 "last changed ");
    /* Every one changed: as many as fit, and a count of the rest. */
    for (int i = 0; i < 40; i++) {
        FMT(name, "data%02d.txt", i);
        write_file(path_in(data, dir, name), "rm\n");
    }
    assert_int_equal(lcsb_script_open(path, cmd, &opts, &s, &err), LCSB_EUNTRUSTED);
    assert_contains(err.message, "data00.txt, which changed");
    assert_contains(err.message, "data01.txt (1 line added, 1 removed");
    assert_contains(err.message, " more.");
    assert_true(strlen(err.message) < sizeof err.message - 1);
    assert_int_equal(unsetenv("XDG_STATE_HOME"), 0);
    rm_rf(dir);
}

/* A record reads back as lcsb writes it: version 2 names the files read,
 * version 3 the files looked for and not found too ("- PATH"). Such a line
 * in a version 2 record, or one naming no absolute path, is damage. */
static void test_trust_record_parse(void **state) {
    (void)state;
#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    static const char v3[] = "lcsb-trust 3\n" SHA " /w/p.lua /w/p.lua\n- /w/p.local.lua\n";
    lcsb__trust_record r;
    assert_true(lcsb__trust_parse(v3, sizeof v3 - 1, &r));
    assert_int_equal(r.files.n, 1);
    assert_string_equal(r.files.v[0].path, "/w/p.lua");
    assert_int_equal(r.absent.n, 1);
    assert_string_equal(r.absent.v[0].path, "/w/p.local.lua");
    assert_string_equal(r.absent.v[0].sha256, "");
    lcsb__trust_record_clear(&r);
    static const char v2[] = "lcsb-trust 2\n" SHA " /w/p.lua /w/p.lua\n";
    assert_true(lcsb__trust_parse(v2, sizeof v2 - 1, &r));
    assert_int_equal(r.absent.n, 0);
    lcsb__trust_record_clear(&r);
    static const char *const damaged[] = {
        "lcsb-trust 2\n" SHA " /w/p.lua /w/p.lua\n- /w/p.local.lua\n",
        "lcsb-trust 3\n" SHA " /w/p.lua /w/p.lua\n- p.local.lua\n",
        "lcsb-trust 3\n" SHA " /w/p.lua /w/p.lua\n- \n",
        "lcsb-trust 3\n- /w/p.local.lua\n",
    };
    for (size_t i = 0; i < sizeof damaged / sizeof *damaged; i++) {
        assert_false(lcsb__trust_parse(damaged[i], strlen(damaged[i]), &r));
        assert_int_equal(r.files.n + r.absent.n, 0);
    }
#undef SHA
}

static void test_trust_diff(void **state) {
    (void)state;
    static const struct {
        const char *old, *now, *says;
    } cases[] = {
        {"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
         "2 lines added, 1 removed; first at line 5: FIVE"},
        {"a\nb\nc\nd\ne\n", "top\na\nb\nc\nd\ne\nbottom\n",
         "2 lines added, 0 removed; first at line 1: top"},
        {"a\nb\nc\n", "a\nc\n", "0 lines added, 1 removed; first at line 2: (removed) b"},
        {"same\n", "same\n", "0 lines added, 0 removed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lcsb__buf b = {0};
        lcsb__trust_diff(cases[i].old, strlen(cases[i].old), cases[i].now, strlen(cases[i].now),
                         &b);
        assert_false(b.oom);
        assert_string_equal(b.p, cases[i].says);
        lcsb__buf_free(&b);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),
        cmocka_unit_test(test_sha256_both_ways),
        cmocka_unit_test(test_script_trust),
        cmocka_unit_test(test_trust_diff),
        cmocka_unit_test(test_trust_record_parse),
        cmocka_unit_test(test_script_trust_names_every_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
