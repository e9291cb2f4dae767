/* Command-line parsing for lcsb. Pure: no I/O, so it is tested on its own. */
#include "cli.h"

#include <lcsb.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LCSB_CLI_SYSCONFDIR
#define LCSB_CLI_SYSCONFDIR "/etc/lcsb"
#endif

const char cli_usage[] =
    "usage: lcsb [OPTIONS] POLICY.lua -- COMMAND [ARG...]   run COMMAND under POLICY\n"
    "       lcsb detect [--json]                            what this host can enforce\n"
    "       lcsb check [OPTIONS] POLICY.lua [-- COMMAND...] validate, show backend and rules\n"
    "       lcsb wrap [OPTIONS] POLICY.lua -- COMMAND...    print the final argv as JSON\n"
    "       lcsb trust [--accept FILE=SHA256]... POLICY.lua [-- COMMAND...]\n"
    "                                                       approve POLICY as it is now\n"
    "       lcsb cache [list|clear] [--project DIR | --all] a project's caches (cache = {...})\n"
    "       lcsb cache [list|clear] --plans                  the policies composed once, kept\n"
    "       lcsb explain ATTESTATION.json                   the hints for a run --attest saved\n"
    "       lcsb learn [--write] [OPTIONS] POLICY.lua -- COMMAND...\n"
    "                                                       run COMMAND with every program\n"
    "                                                       allowed; print what to add to POLICY\n"
    "       lcsb --help | --version\n"
    "\n"
    "options:\n"
    "  --backend auto|landlock|seatbelt|oci|none\n"
    "                     auto (default) picks the strongest mechanism this host has and\n"
    "                     never runs unsandboxed; oci runs a container (podman or docker)\n"
    "                     in the world the policy's oci = { rootfs = DIR | image = NAME }\n"
    "                     names, without an exec allowlist; seatbelt (macOS) wraps on any\n"
    "                     host, runs where sandbox-exec is; none runs unsandboxed and says so\n"
    "  --attest FILE      write the attestation JSON to FILE (- for stderr)\n"
    "  --prefix 'ARGV'    a launcher in front of the command, e.g. 'uv run --'\n"
    "                     (words split on blanks; quotes group): outside the sandbox\n"
    "                     under landlock, inside the container under oci\n"
    "  --keep-fd N        pass descriptor N (3 or above) on to the command; every other\n"
    "                     descriptor but 0, 1 and 2 is closed before it starts\n"
    "  --no-trust-check   run POLICY without checking that you trusted it as it is now\n"
    "                     (for a CI checkout, which is itself what you trust); it is\n"
    "                     still protected for the run\n"
    "  --accept FILE=SHA256\n"
    "                     lcsb trust only, repeatable: run FILE though the earlier record\n"
    "                     does not cover it, if its content is still the one lcsb trust\n"
    "                     showed you (SHA256, as its refusal names it)\n"
    "  --no-capture       leave the command's stderr alone: it sees your terminal there, and\n"
    "                     lcsb keeps no tail of it for hints (by default stderr goes\n"
    "                     through lcsb, relayed live, and the command sees a pipe)\n"
    "  --report           print the hints however the command exits (by default only when\n"
    "                     it fails: a tool that succeeds keeps a clean stderr), and every\n"
    "                     file that runs later the run wrote, the quiet ones too; a refusal\n"
    "                     that asks for nothing (a file looked for and not there) gets no\n"
    "                     line: --attest FILE lists every refusal recorded\n"
    "  --no-record        do not record refusals: the command's programs get no\n"
    "                     LD_PRELOAD of lcsb's recorder nor LCSB_RECORD_FD, the shim's\n"
    "                     init reports no exec it sees, and the hints are guessed from\n"
    "                     its stderr alone\n"
    "\n"
    "a policy runs as you, unsandboxed, and the commands it confines may write it:\n"
    "lcsb runs only what you trusted. `lcsb trust POLICY` runs it and records it and\n"
    "each file it reads (require, dofile, io.open) by content, under\n"
    "$XDG_STATE_HOME/lcsb/trust (~/.local/state/lcsb/trust); a policy that is not\n"
    "recorded, or changed since, is refused (125) and none of it runs; the refusal\n"
    "names every file the record knows of that is new or changed. Policies in\n"
    "~/.config/lcsb or /etc/lcsb are trusted where they are. What a policy read from\n"
    "the write tier is read-only during the run.\n"
    "\n"
    "lcsb trust over an earlier record runs the policy you name, but no other code\n"
    "the record does not cover as it is (a module, a dofile, a file's bytes given to\n"
    "load): a command may have written it, and lcsb trust runs as you. It stops\n"
    "there (125), naming the file, what changed and when, and where it kept a copy\n"
    "of what it found; read that, then run lcsb trust --accept FILE=SHA256 POLICY.\n"
    "\n"
    "the project's .git/hooks and .git/config, and the coding agents' configuration\n"
    "at its root (.claude/, .mcp.json, .cursor/, .codex/, .gemini/, ...), stay\n"
    "read-only where they exist (protect); what is not there is named after the run\n"
    "if made. protect = { \"!.claude\" } lets one go; lcsb check lists each. After a\n"
    "run lcsb names what the command made or changed that a tool or an agent runs\n"
    "later, outside any sandbox (.envrc, a new .mcp.json, a workflow).\n"
    "\n"
    "under landlock the command runs in a world of its own: only the policy's paths\n"
    "exist, its own processes, IPC and keyrings; what it starts ends with it. After\n"
    "TERM, INT, HUP or QUIT is sent to lcsb (not a ^C at the terminal, which is the\n"
    "command's to handle), the command has 10 s to exit, then every process of it is\n"
    "killed; the policy's limits = { time=, memory=, pids=, files=, tmp= } bound the\n"
    "rest (lcsb-policy(5)).\n"
    "\n"
    "net = { domains = { \"registry.npmjs.org\" } } gives the command a network of its\n"
    "own, loopback only, whose way out is lcsb's proxy (HTTP CONNECT, HTTP, SOCKS5 on\n"
    "127.0.0.1:3128, named in HTTPS_PROXY and friends, to Java in JAVA_TOOL_OPTIONS)\n"
    "to the names listed; each host it refused is in the attestation and named in a\n"
    "hint. An entry may carry a rule, [\"host\"] = { methods = { \"GET\" }, paths =\n"
    "{ \"/v2/\" } }, which the proxy judges by reading the requests (HTTPS under a\n"
    "certificate authority lcsb makes for the run, which Java trusts by a truststore\n"
    "JAVA_TOOL_OPTIONS names); secrets = { NAME = { hosts = { \"host\" } } } gives the\n"
    "command a placeholder in $NAME, which the proxy swaps for lcsb's own $NAME on\n"
    "the way to those hosts alone.\n"
    "\n"
    "the command does not get your environment: only PATH, LANG, LANGUAGE, LC_*, TERM,\n"
    "COLORTERM, NO_COLOR, TZ, USER, LOGNAME, SHELL, COLUMNS, LINES and the certificate\n"
    "authorities' files (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, GIT_SSL_CAINFO, ...), what the "
    "policy's\n"
    "env = { pass = { ... } } names (a secret-looking name only when named exactly),\n"
    "and its own values; `lcsb check` lists them. `lcsb wrap` prints an argv only:\n"
    "run it with just those variables, never with your whole environment.\n"
    "\n"
    "environment:\n"
    "  LCSB_POLICY_TIMEOUT=SECONDS\n"
    "                     the wall time the policy script may take (default 10, 0 for no\n"
    "                     limit); past it lcsb stops the script and exits 125\n"
    "\n"
    "caps: what no project policy may grant (paths such as ~/.ssh, net, exec any,\n"
    "degrade), from lcsb's defaults (lcsb/caps.lua beside its Lua files),\n" LCSB_CLI_SYSCONFDIR
    "/caps.lua and $XDG_CONFIG_HOME/lcsb/user.lua\n"
    "(~/.config/lcsb/user.lua); the tightest wins, and a policy beyond them is\n"
    "refused (125). lcsb check shows them (lcsb-policy(5)).\n"
    "\n"
    "lcsb learn POLICY -- COMMAND runs COMMAND once under POLICY with every program\n"
    "allowed (reads, writes and the network as POLICY says; the caps still hold) and\n"
    "prints what to add to POLICY's exec for the programs it ran that POLICY does not\n"
    "let run (the shim sees every exec, static programs' too): presets where one holds\n"
    "them, built = true for the project's own, else their paths, as a diff of the file\n"
    "on stdout (the command's own output goes to stderr meanwhile); what it leaves out\n"
    "(a secret, a cap) and what else was refused, it names. --write applies the change;\n"
    "lcsb runs the file only once you trust it again.\n"
    "\n"
    "lcsb cache lists the caches a policy's cache = { \"~/.npm\" } keeps for the\n"
    "project in the current directory (--project DIR: that one; --all: every\n"
    "project's), with the disk each takes, and lcsb cache clear removes them. They\n"
    "live under $XDG_CACHE_HOME/lcsb/projects (~/.cache/lcsb/projects), one\n"
    "directory per project; what one run writes there, the next run reads.\n"
    "lcsb composes a policy once and keeps it as a plan ($XDG_STATE_HOME/lcsb/plans),\n"
    "used while nothing it rests on changed (lcsb check says which); lcsb cache\n"
    "list --plans counts them, lcsb cache clear --plans removes them.\n"
    "\n"
    "signals: SIGINT, SIGTERM, SIGHUP or SIGQUIT stops the policy script, and the\n"
    "commands it runs get it too; lcsb removes the run's private HOME and TMPDIR and\n"
    "exits 128+N. One that comes after, before the command starts (a ^C at the\n"
    "terminal included), starts none: 128+N. While the command runs, lcsb relays\n"
    "them to it. One lcsb was started ignoring (nohup's SIGHUP, a background job's\n"
    "SIGINT and SIGQUIT) stays ignored, by lcsb and by the command, as if run bare.\n"
    "\n"
    "exit status: the command's own (128+N if killed by signal N); 97 the sandbox\n"
    "could not be set up and nothing ran; 125 lcsb failed before running anything\n"
    "(usage, policy script or its time budget, a policy not trusted, invalid\n"
    "policy, a policy beyond the caps, no mechanism); 126 the command could not be\n"
    "executed; 127 the command was not found; 128+N signal N stopped lcsb before\n"
    "the command started.\n";

char **cli_split_words(const char *text) {
    size_t cap = 8, n = 0, len = strlen(text);
    char **words = calloc(cap, sizeof *words);
    char *word = malloc(len + 1);
    if (!words || !word) goto fail;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) break;
        size_t w = 0;
        while (*p && *p != ' ' && *p != '\t') {
            if (*p == '\'' || *p == '"') {
                char quote = *p++;
                while (*p && *p != quote) word[w++] = *p++;
                if (*p != quote) goto fail;
                p++;
            } else {
                word[w++] = *p++;
            }
        }
        word[w] = '\0';
        if (n + 2 > cap) {
            char **grown = realloc(words, (cap *= 2) * sizeof *words);
            if (!grown) goto fail;
            words = grown;
        }
        if (!(words[n++] = strdup(word))) goto fail;
        words[n] = NULL;
    }
    free(word);
    if (n == 0) {
        free(words);
        return NULL;
    }
    return words;
fail:
    for (size_t i = 0; words && i < n; i++) free(words[i]);
    free(words);
    free(word);
    return NULL;
}

void cli_args_free(cli_args *args) {
    for (size_t i = 0; args->prefix && args->prefix[i]; i++) free(args->prefix[i]);
    free(args->prefix);
    args->prefix = NULL;
}

static int usage_error(char *err, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int cli_parse_timeout(const char *text, double *seconds, char *err, size_t err_size) {
    if (!text || !*text) return 0;
    /* Digits and a point only: strtod would take " 1", "inf", "nan" and "0x1p3". */
    bool plain =
        strspn(text, "0123456789.") == strlen(text) && strchr(text, '.') == strrchr(text, '.');
    char *end;
    double value = plain ? strtod(text, &end) : -1;
    if (!plain || *end || !(value >= 0 && value <= LCSB_SCRIPT_BUDGET_MAX))
        return usage_error(err, err_size,
                           "LCSB_POLICY_TIMEOUT='%s': expected the seconds the policy script may "
                           "take, from 0 (no limit) to %g",
                           text, LCSB_SCRIPT_BUDGET_MAX);
    *seconds = value;
    return 0;
}
static int usage_error(char *err, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}

/* lcsb cache [list|clear] [--project DIR | --all], from argv[I]. */
static int parse_cache(int argc, char **argv, int i, cli_args *out, char *err, size_t err_size) {
    if (i < argc && (strcmp(argv[i], "list") == 0 || strcmp(argv[i], "clear") == 0))
        out->cache_clear = strcmp(argv[i++], "clear") == 0;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--project") == 0 && i + 1 < argc && !out->project)
            out->project = argv[++i];
        else if (strcmp(argv[i], "--project") == 0)
            return usage_error(err, err_size, "%s",
                               out->project ? "cache: --project given twice"
                                            : "option --project needs a value");
        else if (strcmp(argv[i], "--all") == 0)
            out->all_projects = true;
        else if (strcmp(argv[i], "--plans") == 0)
            out->plans = true;
        else
            return usage_error(err, err_size,
                               "cache: unexpected argument %s (lcsb cache [list|clear] "
                               "[--project DIR | --all | --plans])",
                               argv[i]);
    }
    if ((out->project != NULL) + out->all_projects + out->plans > 1)
        return usage_error(err, err_size, "cache: --project, --all and --plans: choose one");
    return 0;
}

/* --keep-fd V: one more descriptor the command keeps. */
static int parse_keep_fd(const char *v, cli_args *out, char *err, size_t err_size) {
    char *end;
    long fd = strtol(v, &end, 10);
    if (!*v || *end || v[0] == '+' || v[0] == '-' || fd < 3 || fd >= LCSB_KEEP_FD_MAX)
        return usage_error(err, err_size,
                           "--keep-fd '%s': expected a descriptor number from 3 to %d", v,
                           LCSB_KEEP_FD_MAX - 1);
    if (out->keep_fds_count == CLI_KEEP_FDS_MAX)
        return usage_error(err, err_size, "more than %d --keep-fd options", CLI_KEEP_FDS_MAX);
    out->keep_fds[out->keep_fds_count++] = (int)fd;
    return 0;
}

/* --accept V, lcsb trust's FILE=SHA256: one more file the user accepts. */
static int parse_accept(const char *v, cli_args *out, char *err, size_t err_size) {
    const char *eq = strrchr(v, '=');
    if (out->command != CLI_TRUST)
        return usage_error(err, err_size, "%s",
                           "--accept is for lcsb trust (lcsb trust --accept FILE=SHA256 "
                           "POLICY.lua)");
    if (!eq || eq == v || strlen(eq + 1) != 64 || strspn(eq + 1, "0123456789abcdef") != 64)
        return usage_error(err, err_size,
                           "--accept '%s': expected FILE=SHA256, the file and the digest "
                           "lcsb trust named",
                           v);
    if (out->accept_count == CLI_ACCEPT_MAX)
        return usage_error(err, err_size, "more than %d --accept options", CLI_ACCEPT_MAX);
    out->accept[out->accept_count++] = v;
    return 0;
}

/* What the options leave to check once all are read: a backend lcsb
 * knows, and the policy script and command the subcommand needs. */
static int check_parsed(const cli_args *out, char *err, size_t err_size) {
    static const char *const backends[] = {"auto", "landlock", "seatbelt", "oci", "none", NULL};
    bool known = false;
    for (size_t b = 0; backends[b]; b++) known |= strcmp(out->backend, backends[b]) == 0;
    if (!known)
        return usage_error(err, err_size,
                           "unknown backend '%s' (expected auto, landlock, seatbelt, oci or none)",
                           out->backend);
    if (out->command == CLI_DETECT) return 0;
    if (!out->policy) return usage_error(err, err_size, "%s", "no policy script given");
    bool needs_command =
        out->command == CLI_RUN || out->command == CLI_WRAP || out->command == CLI_LEARN;
    if (needs_command && (!out->argv || !out->argv[0]))
        return usage_error(err, err_size, "%s", "no command given (lcsb POLICY.lua -- COMMAND)");
    if (out->command == CLI_LEARN && out->no_record)
        return usage_error(err, err_size, "%s",
                           "learn: --no-record leaves out what lcsb learns from (the programs "
                           "the command runs)");
    return 0;
}

/* The options, POLICY.lua and the command after "--", from argv[I]: a run,
 * or lcsb check, wrap, trust or detect. */
static int parse_options(int argc, char **argv, int i, cli_args *out, char *err, size_t err_size) {
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            out->argv = (const char *const *)&argv[i + 1];
            break;
        }
        bool takes_value = strcmp(a, "--backend") == 0 || strcmp(a, "--attest") == 0 ||
                           strcmp(a, "--prefix") == 0 || strcmp(a, "--keep-fd") == 0 ||
                           strcmp(a, "--accept") == 0;
        if (takes_value && i + 1 >= argc)
            return usage_error(err, err_size, "option %s needs a value", a);
        if (strcmp(a, "--backend") == 0)
            out->backend = argv[++i];
        else if (strcmp(a, "--attest") == 0)
            out->attest = argv[++i];
        else if (strcmp(a, "--prefix") == 0) {
            cli_args_free(out);
            if (!(out->prefix = cli_split_words(argv[++i])))
                return usage_error(err, err_size, "--prefix '%s': no words, or an unclosed quote",
                                   argv[i]);
        } else if (strcmp(a, "--keep-fd") == 0) {
            if (parse_keep_fd(argv[++i], out, err, err_size) != 0) return -1;
        } else if (strcmp(a, "--accept") == 0) {
            if (parse_accept(argv[++i], out, err, err_size) != 0) return -1;
        } else if (strcmp(a, "--no-capture") == 0)
            out->no_capture = true;
        else if (strcmp(a, "--no-record") == 0)
            out->no_record = true;
        else if (strcmp(a, "--report") == 0)
            out->report = true;
        else if (strcmp(a, "--no-trust-check") == 0)
            out->no_trust_check = true;
        else if (strcmp(a, "--json") == 0 && out->command == CLI_DETECT)
            out->json = true;
        else if (strcmp(a, "--write") == 0 && out->command == CLI_LEARN)
            out->write = true;
        else if (a[0] == '-' && a[1] != '\0')
            return usage_error(err, err_size, "unknown option %s", a);
        else if (out->command == CLI_DETECT)
            return usage_error(err, err_size, "detect takes no argument (got %s)", a);
        else if (out->policy)
            return usage_error(err, err_size, "unexpected argument %s (put the command after --)",
                               a);
        else
            out->policy = a;
    }
    return check_parsed(out, err, err_size);
}

int cli_parse(int argc, char **argv, cli_args *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    out->command = CLI_RUN;
    out->backend = "auto";
    int i = 1;
    if (i < argc) {
        const char *first = argv[i];
        if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
            out->command = CLI_HELP;
            return 0;
        }
        if (strcmp(first, "--version") == 0) {
            out->command = CLI_VERSION;
            return 0;
        }
        if (strcmp(first, "detect") == 0)
            out->command = CLI_DETECT, i++;
        else if (strcmp(first, "check") == 0)
            out->command = CLI_CHECK, i++;
        else if (strcmp(first, "wrap") == 0)
            out->command = CLI_WRAP, i++;
        else if (strcmp(first, "trust") == 0)
            out->command = CLI_TRUST, i++;
        else if (strcmp(first, "learn") == 0)
            out->command = CLI_LEARN, i++;
        else if (strcmp(first, "explain") == 0) {
            out->command = CLI_EXPLAIN;
            if (argc != 3 || argv[2][0] == '-')
                return usage_error(err, err_size, "%s",
                                   "explain takes one file: lcsb explain ATTESTATION.json");
            out->policy = argv[2];
            return 0;
        } else if (strcmp(first, "cache") == 0) {
            out->command = CLI_CACHE;
            return parse_cache(argc, argv, i + 1, out, err, err_size);
        }
    }
    return parse_options(argc, argv, i, out, err, err_size);
}
