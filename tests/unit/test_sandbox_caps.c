/* Caps, what no project policy may grant: the files loaded as data (a broken,
 * huge or hostile one is a message naming it, never a crash), merged so that
 * the tightest wins, and the check of a policy against them, by path and by
 * real path. Then the same through lcsb_script_open, as a host gets it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "caps.h"
#include "helpers.h"
#include "sha256.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LCSB_LUA_DIR
#error "build with -DLCSB_LUA_DIR='\"/path/to/lua\"'"
#endif

/* A temporary tree: HOME (with .ssh/id_ed25519 in it), ETC for the
 * system's file, ELSEWHERE outside both. */
typedef struct tree {
    char root[PATH_MAX];
    char home[PATH_MAX];
    char etc[PATH_MAX];
    char elsewhere[PATH_MAX];
    char key[PATH_MAX];
    lcsb__caps_places places;
} tree;

static char *at(char *buf, const char *dir, const char *leaf) { return path_in(buf, dir, leaf); }

static int tree_setup(void **state) {
    tree *t = calloc(1, sizeof *t);
    if (!t) return -1;
    FMT(t->root, "/tmp/lcsb-caps.XXXXXX");
    if (!mkdtemp(t->root)) return -1;
    char ssh[PATH_MAX];
    if (mkdir(at(t->home, t->root, "home"), 0700) || mkdir(at(t->etc, t->root, "etc"), 0755) ||
        mkdir(at(t->elsewhere, t->root, "elsewhere"), 0755) ||
        mkdir(at(ssh, t->home, ".ssh"), 0700))
        return -1;
    write_file(at(t->key, ssh, "id_ed25519"), "PRIVATE KEY\n");
    lcsb__caps_places *pl = &t->places;
    FMT(pl->home, "%s", t->home);
    FMT(pl->defaults, "%s/lcsb/caps.lua", LCSB_LUA_DIR);
    FMT(pl->system, "%s/caps.lua", t->etc);
    FMT(pl->user, "%s/.config/lcsb/user.lua", t->home);
    FMT(pl->own[0], "%s", t->etc);
    FMT(pl->own[1], "%s/.config/lcsb", t->home);
    FMT(pl->own[2], "%s/.local/state/lcsb", t->home);
    pl->own_n = 3;
    *state = t;
    return 0;
}

static int tree_teardown(void **state) {
    tree *t = *state;
    rm_rf(t->root);
    free(t);
    return 0;
}

static void write_user(tree *t, const char *text) {
    char dir[PATH_MAX], config[PATH_MAX];
    mkdir(at(config, t->home, ".config"), 0755);
    mkdir(at(dir, config, "lcsb"), 0755);
    write_file(t->places.user, text);
}

static lcsb__caps *load(tree *t) {
    lcsb__caps *caps = NULL;
    lcsb_error err = {0};
    if (lcsb__caps_load(&t->places, &caps, &err)) fail_msg("caps: %s", err.message);
    return caps;
}

/* The check's answer for P; its message in ERR. */
static int check(tree *t, lcsb_policy *p, lcsb_error *err) {
    lcsb__caps *caps = load(t);
    int rc = lcsb__caps_check(caps, p, "p.lua", err);
    lcsb__caps_free(caps);
    return rc;
}

static void assert_allowed(tree *t, lcsb_policy *p) {
    lcsb_error err = {0};
    if (check(t, p, &err)) fail_msg("refused: %s", err.message);
}

/* Refused, the message holding each of the NULL-terminated NEEDLES. */
static void assert_refused(tree *t, lcsb_policy *p, const char *const *needles) {
    lcsb_error err = {0};
    int rc = check(t, p, &err);
    if (rc != LCSB_EINVAL) fail_msg("expected LCSB_EINVAL, got %d (%s)", rc, err.message);
    assert_true(strncmp(err.message, "p.lua: ", 7) == 0);
    for (size_t i = 0; needles[i]; i++) assert_contains(err.message, needles[i], "the refusal");
}
#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* A policy with PATH in TIER alone. */
static lcsb_policy *one(lcsb_tier tier, const char *path) {
    lcsb_policy *p = new_policy();
    add(p, tier, path);
    return p;
}

/* ---- the defaults ---- */

/* lcsb's defaults are data: they load, name ~/.ssh, and an ordinary policy
 * (the system baseline, a project under HOME, a private HOME in /tmp)
 * passes. */
static void test_defaults_pass_the_ordinary(void **state) {
    tree *t = *state;
    char project[PATH_MAX], src[PATH_MAX];
    mkdir(at(src, t->home, "src"), 0755);
    mkdir(at(project, src, "proj"), 0755);
    lcsb_policy *p = new_policy();
    static const char *const baseline[] = {"/usr", "/etc", "/proc", "/dev/urandom"};
    for (size_t i = 0; i < sizeof baseline / sizeof baseline[0]; i++)
        add(p, LCSB_TIER_READ, baseline[i]);
    add(p, LCSB_TIER_WRITE, project);
    add(p, LCSB_TIER_WRITE, t->elsewhere);
    add(p, LCSB_TIER_EXEC, "/usr/bin/env");
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    lcsb_policy_set_exec_open(p, true);
    lcsb_policy_set_degradable(p, LCSB_PARTS_ALL);
    assert_allowed(t, p);
    lcsb_policy_free(p);

    lcsb__caps *caps = load(t);
    char **lines = lcsb__caps_lines(caps);
    assert_non_null(lines);
    assert_contains(lines[0], "net up to open, exec any allowed, degrade any part");
    assert_contains(lines[1], "lcsb's defaults " LCSB_LUA_DIR "/lcsb/caps.lua");
    assert_contains(lines[1], "(absent)");
    lcsb_argv_free(lines);
    /* The attestation's list names the defaults' file by its content. */
    char path[PATH_MAX], hex[LCSB__SHA256_HEX], want[PATH_MAX + 128];
    FMT(path, "%s/lcsb/caps.lua", LCSB_LUA_DIR);
    char *text = slurp(path);
    assert_non_null(text);
    lcsb__sha256_of(text, strlen(text), hex);
    free(text);
    FMT(want, "[{\"file\":\"%s\",\"sha256\":\"%s\"}]", path, hex);
    char *json = lcsb__caps_json(caps);
    assert_string_equal(json, want);
    free(json);
    lcsb__caps_free(caps);
}

/* ---- paths ---- */

/* A path equal to or inside a denied one is refused in every tier that
 * grants, naming the path, the cap, its file and the remedy. */
static void test_inside_refused(void **state) {
    tree *t = *state;
    char ssh[PATH_MAX];
    at(ssh, t->home, ".ssh");
    static const lcsb_tier tiers[] = {LCSB_TIER_READ, LCSB_TIER_WRITE, LCSB_TIER_EXEC};
    static const char *const verbs[] = {"to read ", "to write ", "to run "};
    for (size_t i = 0; i < 3; i++) {
        lcsb_policy *p = one(tiers[i], t->key);
        char asked[PATH_MAX + 16], inside[PATH_MAX + 16];
        FMT(asked, "%s%s", verbs[i], t->key);
        FMT(inside, "inside %s", ssh);
        assert_refused(t, p,
                       NEEDLES(asked, inside, "cap deny", "lcsb's defaults, " LCSB_LUA_DIR,
                               "add \"~/.ssh\" to allow in", t->places.user));
        lcsb_policy_free(p);
    }
    lcsb_policy *p = one(LCSB_TIER_READ, ssh);
    assert_refused(t, p, NEEDLES("asks to read", "which no project policy may read"));
    lcsb_policy_free(p);
    /* Hiding it is what is wanted. */
    p = one(LCSB_TIER_HIDE, ssh);
    assert_allowed(t, p);
    lcsb_policy_free(p);
}

/* A tree that holds a denied path that exists is refused unless the policy
 * hides it, and the hide holds only while neither world nor metadata may
 * degrade. A denied path that does not exist is nothing to read. */
static void test_containing_needs_hide(void **state) {
    tree *t = *state;
    char ssh[PATH_MAX];
    at(ssh, t->home, ".ssh");
    lcsb_policy *p = one(LCSB_TIER_READ, t->root);
    assert_refused(t, p,
                   NEEDLES("read path", "holds what no project policy may have", ssh,
                           "hide it (exec_policy{ hide = { \"~/.ssh\" } }"));
    /* ~/.aws does not exist: not named. */
    lcsb_error err;
    check(t, p, &err);
    assert_lacks(err.message, ".aws");
    add(p, LCSB_TIER_HIDE, ssh);
    assert_allowed(t, p);
    lcsb_policy_set_degradable(p, LCSB_PART_WORLD);
    assert_refused(t, p, NEEDLES("hidden, but degrade lets world", "out of degrade"));
    lcsb_policy_set_degradable(p, LCSB_PART_METADATA);
    assert_refused(t, p, NEEDLES("hidden, but degrade"));
    lcsb_policy_set_degradable(p, LCSB_PART_NET | LCSB_PART_SCOPE);
    assert_allowed(t, p);
    lcsb_policy_free(p);

    /* "/" too: all of it but what is hidden. */
    p = one(LCSB_TIER_READ, "/");
    assert_refused(t, p, NEEDLES("read path / holds", ssh));
    add(p, LCSB_TIER_HIDE, ssh);
    assert_allowed(t, p);
    lcsb_policy_free(p);
}

/* A writable tree is refused when it holds what the caps keep, whether it
 * exists or not: the command could make it (a ~/.config/lcsb/user.lua of
 * its own). HOME as a project is the plain case. */
static void test_writable_tree(void **state) {
    tree *t = *state;
    char ssh[PATH_MAX], own[PATH_MAX];
    at(ssh, t->home, ".ssh");
    FMT(own, "%s/.config/lcsb", t->home);
    lcsb_policy *p = one(LCSB_TIER_WRITE, t->home);
    add(p, LCSB_TIER_HIDE, ssh);
    assert_refused(t, p,
                   NEEDLES("write path", "not there, but the command could make them", own,
                           "deny_write: lcsb's own programs, configuration", "write less than"));
    lcsb_policy_free(p);

    /* lcsb's own configuration, once there, may be held read-only. */
    char opt[PATH_MAX], mine[PATH_MAX];
    mkdir(at(opt, t->root, "opt"), 0755);
    mkdir(at(mine, opt, "lcsb"), 0755);
    FMT(t->places.own[t->places.own_n], "%s", mine);
    t->places.own_n++;
    p = one(LCSB_TIER_WRITE, opt);
    assert_refused(t, p, NEEDLES("write path", mine, "protect it (exec_policy{ protect = {"));
    add(p, LCSB_TIER_PROTECT, mine);
    assert_allowed(t, p);
    lcsb_policy_set_degradable(p, LCSB_PART_METADATA);
    assert_refused(t, p, NEEDLES("hidden, but degrade"));
    lcsb_policy_free(p);
    /* Reading it is fine; writing it is not. */
    p = one(LCSB_TIER_READ, mine);
    assert_allowed(t, p);
    lcsb_policy_free(p);
    p = one(LCSB_TIER_WRITE, mine);
    assert_refused(
        t, p, NEEDLES("asks to write", "cap deny_write", "lcsb's own programs, configuration"));
    lcsb_policy_free(p);
}

/* Real paths count: a denied path that is a symlink is refused where it
 * really is, and a policy path that is a symlink into one is refused too. */
static void test_symlinks(void **state) {
    tree *t = *state;
    char keys[PATH_MAX], aws[PATH_MAX], link[PATH_MAX];
    /* ~/.aws -> ELSEWHERE/keys */
    mkdir(at(keys, t->elsewhere, "keys"), 0700);
    write_file(at((char[PATH_MAX]){0}, keys, "credentials"), "secret\n");
    assert_int_equal(symlink(keys, at(aws, t->home, ".aws")), 0);
    lcsb_policy *p = one(LCSB_TIER_READ, t->elsewhere);
    assert_refused(t, p, NEEDLES("read path", aws));
    lcsb_policy_free(p);
    char cred[PATH_MAX];
    p = one(LCSB_TIER_READ, at(cred, keys, "credentials"));
    assert_refused(t, p, NEEDLES("asks to read", cred));
    lcsb_policy_free(p);
    /* A hide of where it really is holds. */
    p = one(LCSB_TIER_READ, t->elsewhere);
    add(p, LCSB_TIER_HIDE, keys);
    assert_allowed(t, p);
    lcsb_policy_free(p);
    /* ELSEWHERE/ssh-link -> ~/.ssh */
    assert_int_equal(
        symlink(at((char[PATH_MAX]){0}, t->home, ".ssh"), at(link, t->elsewhere, "ssh-link")), 0);
    p = one(LCSB_TIER_READ, link);
    assert_refused(t, p, NEEDLES("asks to read", link, "inside"));
    lcsb_policy_free(p);
    /* ~/.config -> ELSEWHERE/dotfiles (a dotfiles checkout, stow's folding):
     * ~/.config/lcsb, not there yet, lies where the link leads, and a tree
     * writable there could make it. */
    char dotfiles[PATH_MAX], config[PATH_MAX];
    mkdir(at(dotfiles, t->elsewhere, "dotfiles"), 0755);
    at(config, t->home, ".config");
    rm_rf(config);
    assert_int_equal(symlink(dotfiles, config), 0);
    p = one(LCSB_TIER_WRITE, dotfiles);
    assert_refused(t, p,
                   NEEDLES("write path", "not there, but the command could make", "/.config/lcsb"));
    lcsb_policy_free(p);
}

/* ---- net, exec any, degrade; the files merged ---- */

static void test_switches(void **state) {
    tree *t = *state;
    write_user(t,
               "return { net = \"ports\", exec_any = false, degrade = { \"net\", \"scope\" } }\n");
    lcsb_policy *p = new_policy();
    assert_allowed(t, p);
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    assert_refused(t, p,
                   NEEDLES("an open network", t->places.user, "net = \"ports\"", "change net in"));
    lcsb_policy_set_net(p, LCSB_NET_DENY);
    add_port(p, LCSB_PORT_CONNECT, 443);
    assert_allowed(t, p);
    lcsb_policy_set_exec_open(p, true);
    assert_refused(t, p, NEEDLES("exec = \"any\"", "exec_any = false", t->places.user));
    lcsb_policy_set_exec_open(p, false);
    lcsb_policy_set_degradable(p, LCSB_PART_NET | LCSB_PART_SCOPE);
    assert_allowed(t, p);
    lcsb_policy_set_degradable(p, LCSB_PART_NET | LCSB_PART_WORLD);
    assert_refused(t, p,
                   NEEDLES("lets world degrade", "allows degrading net, scope",
                           "take \"world\" out of degrade"));
    lcsb_policy_free(p);
    write_user(t, "return { net = false, degrade = false }\n");
    p = new_policy();
    add_port(p, LCSB_PORT_CONNECT, 443);
    assert_refused(t, p, NEEDLES("TCP ports", "net = false"));
    lcsb_policy_set_net(p, LCSB_NET_DENY);
    lcsb_policy_set_degradable(p, LCSB_PART_SCOPE);
    assert_refused(t, p, NEEDLES("allows degrading nothing"));
    lcsb_policy_free(p);
}

/* The system's file cannot be loosened by the user's: the tightest wins,
 * and the message names the file that set it. */
static void test_merge_tightest(void **state) {
    tree *t = *state;
    write_file(t->places.system,
               "return { net = \"ports\", exec_any = false, degrade = { \"net\" }, "
               "deny = { \"~/.ssh\" } }\n");
    write_user(t, "return { net = \"open\", exec_any = true, degrade = true, "
                  "allow = { \"~/.ssh\" } }\n");
    lcsb_policy *p = new_policy();
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    assert_refused(t, p, NEEDLES(t->places.system, "only an administrator can change"));
    lcsb_policy_set_net(p, LCSB_NET_DENY);
    lcsb_policy_set_exec_open(p, true);
    assert_refused(t, p, NEEDLES("exec_any = false", t->places.system));
    lcsb_policy_set_exec_open(p, false);
    lcsb_policy_set_degradable(p, LCSB_PART_SCOPE);
    assert_refused(t, p, NEEDLES(t->places.system, "allows degrading net"));
    lcsb_policy_free(p);
    /* The user's allow takes back lcsb's default, never the system's deny. */
    p = one(LCSB_TIER_READ, t->key);
    assert_refused(t, p, NEEDLES("cap deny, set by", t->places.system));
    lcsb_policy_free(p);
    lcsb__caps *caps = load(t);
    char **lines = lcsb__caps_lines(caps);
    assert_contains(lines[0], "net up to ports, exec any refused, degrade net");
    lcsb_argv_free(lines);
    char *json = lcsb__caps_json(caps);
    assert_contains(json, t->places.system);
    assert_contains(json, t->places.user);
    free(json);
    lcsb__caps_free(caps);

    /* The other way round: the user's tighter, and named. */
    write_file(t->places.system, "return { net = \"open\" }\n");
    write_user(t, "return { net = false }\n");
    p = new_policy();
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    assert_refused(t, p, NEEDLES(t->places.user, "change net in"));
    lcsb_policy_free(p);
}

/* allow takes lcsb's defaults back (a path and what is beneath it), not
 * lcsb's own files; deny and deny_write add paths. */
static void test_allow_and_deny(void **state) {
    tree *t = *state;
    char own[PATH_MAX], notes[PATH_MAX];
    FMT(own, "%s/.config/lcsb", t->home);
    write_user(t, "return { allow = { \"~/.ssh\", \"~/.config\" }, deny_write = { \"~/notes\" }, "
                  "deny = { \"/opt/vault\" } }\n");
    lcsb_policy *p = one(LCSB_TIER_READ, t->key);
    assert_allowed(t, p);
    lcsb_policy_free(p);
    p = one(LCSB_TIER_WRITE, own);
    assert_refused(t, p, NEEDLES("cap deny_write", "lcsb's own programs, configuration"));
    lcsb_policy_free(p);
    mkdir(at(notes, t->home, "notes"), 0755);
    p = one(LCSB_TIER_READ, notes);
    assert_allowed(t, p);
    lcsb_policy_free(p);
    p = one(LCSB_TIER_WRITE, notes);
    assert_refused(t, p, NEEDLES("cap deny_write", t->places.user, "out of deny_write in"));
    lcsb_policy_free(p);
    p = one(LCSB_TIER_READ, "/opt/vault/x");
    assert_refused(t, p, NEEDLES("inside /opt/vault", "out of deny in"));
    lcsb_policy_free(p);
}

/* ---- files that are broken, huge or hostile ---- */

static void test_broken_files(void **state) {
    tree *t = *state;
    static const struct {
        const char *text;
        const char *says;
    } cases[] = {
        {"return {\n  net = = false\n}\n", ":2: unexpected symbol"},
        {"local x = nil\nreturn x.y\n", ":2: attempt to index"},
        {"return 5\n", "returned a number; expected a table of caps"},
        {"return { nett = false }\n", "unknown key 'nett' (expected one of: allow"},
        {"return { [1] = true }\n", "unknown key '1'"},
        {"return { deny = { \".ssh\" } }\n", ".ssh: not an absolute path"},
        {"return { deny = { \"/a/../b\" } }\n", "\"..\" is not allowed"},
        {"return { deny = \"~/.ssh\" }\n", "key 'deny' must be a list of paths"},
        {"return { deny = { 5 } }\n", "entry 1 is a number"},
        {"return { deny = { x = \"/a\" } }\n", "key that is no index"},
        {"return { deny = { \"/a\\0b\" } }\n", "holds a NUL byte"},
        {"return { net = \"closed\" }\n", "key 'net' must be false"},
        {"return { exec_any = \"no\" }\n", "key 'exec_any' must be true or false"},
        {"return { degrade = { \"worlds\" } }\n", "not a part name (expected one of: net"},
        {"return { degrade = 1 }\n", "key 'degrade' must be true, false or a list"},
        {"os.execute('touch /tmp/lcsb-caps-pwned')\n",
         "attempt to index a nil value (global 'os')"},
        {"require 'lcsb'\n", "attempt to call a nil value (global 'require')"},
        {"while true do end\n", "ran past 10 million instructions"},
        {"local t = {}\nwhile true do t[#t + 1] = {} end\n", "ran out of memory"},
        {"local s = 'x'\nwhile true do s = s .. s end\n", "ran out of memory"},
        {"\x1bLua", "attempt to load a binary chunk"},
        {"error({})\n", ":1: attempt to call a nil value (global 'error')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_user(t, cases[i].text);
        lcsb__caps *caps = NULL;
        lcsb_error err = {0};
        int rc = lcsb__caps_load(&t->places, &caps, &err);
        if (rc != LCSB_EINVAL) fail_msg("case %zu: expected LCSB_EINVAL, got %d", i, rc);
        assert_null(caps);
        char named[PATH_MAX + 16];
        FMT(named, "caps file %s", t->places.user);
        assert_contains(err.message, named, "the message");
        assert_contains(err.message, cases[i].says, "the message");
    }
    assert_false(exists("/tmp/lcsb-caps-pwned"));
}

/* Files that are too large, not regular, unreadable or writable by others;
 * lcsb's own defaults missing. */
static void test_huge_or_hostile_files(void **state) {
    tree *t = *state;
    /* Larger than a caps file may be: refused unread. */
    size_t big = (1u << 20) + 2;
    char *text = malloc(big + 1);
    assert_non_null(text);
    memset(text, ' ', big);
    memcpy(text, "return {}", 9);
    text[big] = '\0';
    write_user(t, text);
    free(text);
    lcsb__caps *caps = NULL;
    lcsb_error err = {0};
    assert_int_equal(lcsb__caps_load(&t->places, &caps, &err), LCSB_EINVAL);
    assert_contains(err.message, "larger than 1024 KiB");

    /* Not a regular file: a FIFO would block, a directory is none. */
    unlink(t->places.user);
    assert_int_equal(mkfifo(t->places.user, 0600), 0);
    assert_int_equal(lcsb__caps_load(&t->places, &caps, &err), LCSB_EINVAL);
    assert_contains(err.message, "not a regular file");
    unlink(t->places.user);
    assert_int_equal(mkdir(t->places.user, 0755), 0);
    assert_int_equal(lcsb__caps_load(&t->places, &caps, &err), LCSB_EINVAL);
    assert_contains(err.message, "not a regular file");
    rmdir(t->places.user);

    /* An unreadable one is refused, not passed over (root reads anything). */
    if (geteuid() != 0) {
        write_user(t, "return {}\n");
        chmod(t->places.user, 0);
        assert_int_equal(lcsb__caps_load(&t->places, &caps, &err), LCSB_EINVAL);
        assert_contains(err.message, "cannot read it");
        unlink(t->places.user);
    }

    /* A caps file others may write could be loosened by them: refused, as
     * the descriptor it was read through shows it. Its twin, the same file
     * writable by its owner alone, loads. */
    write_user(t, "return { deny = { \"/opt/vault\" } }\n");
    assert_int_equal(chmod(t->places.user, 0666), 0);
    assert_int_equal(lcsb__caps_load(&t->places, &caps, &err), LCSB_EINVAL);
    assert_contains(err.message, "writable by others, so lcsb takes nothing from it");
    assert_null(caps);
    assert_int_equal(chmod(t->places.user, 0644), 0);
    assert_int_equal(lcsb__caps_load(&t->places, &caps, &err), 0);
    lcsb__caps_free(caps);
    caps = NULL;
    unlink(t->places.user);

    /* lcsb's defaults are part of lcsb: missing, they are an error. */
    lcsb__caps_places places = t->places;
    FMT(places.defaults, "%s/nothing/caps.lua", t->root);
    assert_int_equal(lcsb__caps_load(&places, &caps, &err), LCSB_EINVAL);
    assert_contains(err.message, "missing; lcsb's defaults are part of lcsb");
    /* The others are optional. */
    places.defaults[0] = '\0';
    FMT(places.defaults, "%s/lcsb/caps.lua", LCSB_LUA_DIR);
    places.system[0] = places.user[0] = '\0';
    caps = NULL;
    assert_int_equal(lcsb__caps_load(&places, &caps, &err), 0);
    lcsb__caps_free(caps);
}

/* ---- where the files are ---- */

/* What runs the next command is among lcsb's own paths: this program, the
 * shim, the recorder. */
static void places_own_programs(tree *t, lcsb__caps_places *pl) {
    char exe[PATH_MAX], shim[PATH_MAX], recorder[PATH_MAX];
    assert_non_null(realpath("/proc/self/exe", exe));
    FMT(shim, "%s/lcsb-exec", t->root);
    FMT(recorder, "%s/liblcsb-record.so", t->root);
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(i ? recorder : shim, "w");
        assert_non_null(f);
        fclose(f);
    }
    chmod(shim, 0755);
    char *saved_shim = getenv("LCSB_SHIM") ? strdup(getenv("LCSB_SHIM")) : NULL;
    setenv("LCSB_SHIM", shim, 1);
    lcsb__caps_places_find(pl, "/lua", NULL, NULL);
    const char *const programs[] = {exe, shim, recorder};
    for (size_t i = 0; i < 3; i++) {
        bool found = false;
        for (size_t k = 0; k < pl->own_n; k++) found |= strcmp(pl->own[k], programs[i]) == 0;
        if (!found) fail_msg("%s is not among lcsb's own paths", programs[i]);
    }
    if (saved_shim)
        setenv("LCSB_SHIM", saved_shim, 1);
    else
        unsetenv("LCSB_SHIM");
    free(saved_shim);
    unlink(shim);
    unlink(recorder);
}

/* The XDG names, and the usual ones beside them; HOME "/" (a service's). */
static void places_xdg(tree *t, lcsb__caps_places *pl) {
    char want[PATH_MAX];
    /* The XDG names, and the usual ones beside them. */
    char config[PATH_MAX], state_dir[PATH_MAX];
    FMT(config, "%s/cfg", t->root);
    FMT(state_dir, "%s/st", t->root);
    setenv("XDG_CONFIG_HOME", config, 1);
    setenv("XDG_STATE_HOME", state_dir, 1);
    lcsb__caps_places_find(pl, "/lua", "/srv/caps.lua", NULL);
    FMT(want, "%s/lcsb/user.lua", config);
    assert_string_equal(pl->user, want);
    assert_string_equal(pl->system, "/srv/caps.lua");
    static const char *const leaves[] = {"/cfg/lcsb", "/st/lcsb", "/home/.config/lcsb",
                                         "/home/.local/state/lcsb"};
    for (size_t i = 0; i < 4; i++) {
        FMT(want, "%s%s", t->root, leaves[i]);
        bool found = false;
        for (size_t k = 0; k < pl->own_n; k++) found |= strcmp(pl->own[k], want) == 0;
        if (!found) fail_msg("%s is not among lcsb's own paths", want);
    }
    bool srv = false;
    for (size_t k = 0; k < pl->own_n; k++) srv |= strcmp(pl->own[k], "/srv") == 0;
    assert_true(srv);
    /* A relative XDG name is none (the XDG rule); "" is no file. */
    setenv("XDG_CONFIG_HOME", "rel", 1);
    lcsb__caps_places_find(pl, "/lua", "", "");
    assert_string_equal(pl->system, "");
    assert_string_equal(pl->user, "");
    lcsb__caps_places_find(pl, "/lua", NULL, NULL);
    FMT(want, "%s/.config/lcsb/user.lua", t->home);
    assert_string_equal(pl->user, want);
    /* HOME "/" (a service's): lcsb's own paths are normal all the same. */
    setenv("HOME", "/", 1);
    unsetenv("XDG_CONFIG_HOME");
    lcsb__caps_places_find(pl, "/lua", NULL, NULL);
    assert_string_equal(pl->home, "/");
    assert_string_equal(pl->user, "/.config/lcsb/user.lua");
    bool normal = false;
    for (size_t k = 0; k < pl->own_n; k++) normal |= strcmp(pl->own[k], "/.config/lcsb") == 0;
    assert_true(normal);
}

static void test_places(void **state) {
    tree *t = *state;
    char *saved[3];
    static const char *const names[] = {"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"};
    for (size_t i = 0; i < 3; i++) saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;

    setenv("HOME", t->home, 1);
    unsetenv("XDG_CONFIG_HOME");
    unsetenv("XDG_STATE_HOME");
    lcsb__caps_places *pl = calloc(1, sizeof *pl);
    assert_non_null(pl);
    lcsb__caps_places_find(pl, "/lua", NULL, NULL);
    char want[PATH_MAX];
    assert_string_equal(pl->home, t->home);
    /* ".." in HOME is text, as the trust store and the policy take it. */
    char dotted[PATH_MAX];
    FMT(dotted, "%s/../home", t->home);
    setenv("HOME", dotted, 1);
    lcsb__caps_places_find(pl, "/lua", NULL, NULL);
    assert_string_equal(pl->home, t->home);
    setenv("HOME", t->home, 1);
    lcsb__caps_places_find(pl, "/lua", NULL, NULL);
    assert_string_equal(pl->defaults, "/lua/lcsb/caps.lua");
    assert_string_equal(pl->system, LCSB_SYSCONFDIR_FOR_TESTS "/caps.lua");
    FMT(want, "%s/.config/lcsb/user.lua", t->home);
    assert_string_equal(pl->user, want);
    assert_string_equal(pl->own[0], "/lua/lcsb");

    places_own_programs(t, pl);
    places_xdg(t, pl);
    free(pl);

    for (size_t i = 0; i < 3; i++) {
        if (saved[i])
            setenv(names[i], saved[i], 1);
        else
            unsetenv(names[i]);
        free(saved[i]);
    }
}

/* ---- through lcsb_script_open ---- */

/* A host's script is checked too: refused with the file named, and the
 * files named in the attestation and the lines for a person. */
static void test_script_open(void **state) {
    tree *t = *state;
    char project[PATH_MAX], script[PATH_MAX], cwd[PATH_MAX];
    mkdir(at(project, t->root, "project"), 0755);
    write_file(at(script, project, "p.lua"),
               "local lcsb = require \"lcsb\"\nreturn lcsb.exec_policy { net = true }\n");
    write_file(t->places.system, "return { net = false }\n");
    lcsb_script_options opts;
    lcsb_script_options_init(&opts);
    opts.trust = LCSB_TRUST_SKIP; /* the suite wrote the script itself */
    opts.lua_dir = LCSB_LUA_DIR;
    opts.shim = LCSB_SHIM_PATH;
    opts.caps_system = t->places.system;
    opts.caps_user = "";
    static const char *const cmd[] = {"true", NULL};
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(project), 0);
    lcsb_script *s = NULL;
    lcsb_error err = {0};
    assert_int_equal(lcsb_script_open(script, cmd, &opts, &s, &err), LCSB_EINVAL);
    assert_null(s);
    assert_contains(err.message, script);
    assert_contains(err.message, "an open network (net = true)");
    assert_contains(err.message, t->places.system);

    write_file(t->places.system, "return { net = \"open\" }\n");
    assert_int_equal(lcsb_script_open(script, cmd, &opts, &s, &err), 0);
    lcsb_attestation att = {.backend = LCSB_MECHANISM_NONE, .net = LCSB_NET_OPEN};
    char *json = lcsb_script_attestation_json(s, &att);
    char hex[LCSB__SHA256_HEX], want[PATH_MAX + 128];
    static const char system_text[] = "return { net = \"open\" }\n";
    lcsb__sha256_of(system_text, strlen(system_text), hex);
    FMT(want, "{\"file\":\"%s\",\"sha256\":\"%s\"}]}", t->places.system, hex);
    assert_contains(json, "{\"backend\":\"none\",");
    assert_contains(json, ",\"caps\":[{\"file\":\"" LCSB_LUA_DIR "/lcsb/caps.lua\"");
    assert_contains(json, want);
    free(json);
    char **lines = lcsb_script_caps(s);
    assert_contains(lines[1], t->places.system);
    assert_contains(lines[1], "user (none)");
    lcsb_argv_free(lines);
    assert_int_equal(lcsb_script_close(s, &err), 0);

    /* A broken caps file stops lcsb before the project's script runs. */
    char marker[PATH_MAX];
    at(marker, project, "ran");
    char text[PATH_MAX + 128];
    FMT(text, "io.open(\"%s\", \"w\"):close()\nreturn require(\"lcsb\").exec_policy {}\n", marker);
    write_file(script, text);
    write_file(t->places.system, "return {\n  deny = { \"rel\" },\n}\n");
    assert_int_equal(lcsb_script_open(script, cmd, &opts, &s, &err), LCSB_EINVAL);
    assert_contains(err.message, "caps file ");
    assert_contains(err.message, t->places.system);
    assert_false(exists(marker));
    assert_int_equal(chdir(cwd), 0);
}

int main(void) {
#define TT(name) cmocka_unit_test_setup_teardown(name, tree_setup, tree_teardown)
    const struct CMUnitTest tests[] = {
        TT(test_defaults_pass_the_ordinary),
        TT(test_inside_refused),
        TT(test_containing_needs_hide),
        TT(test_writable_tree),
        TT(test_symlinks),
        TT(test_switches),
        TT(test_merge_tightest),
        TT(test_allow_and_deny),
        TT(test_broken_files),
        TT(test_huge_or_hostile_files),
        TT(test_places),
        TT(test_script_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
