/* The lcsb command line: parsing (pure, tested) and the subcommands. */
#ifndef LCSB_CLI_H
#define LCSB_CLI_H

#include <lcsb.h>

#include <stdbool.h>
#include <stddef.h>

typedef enum cli_command {
    CLI_RUN,
    CLI_DETECT,
    CLI_CHECK,
    CLI_WRAP,
    CLI_TRUST,
    CLI_LEARN,
    CLI_CACHE,
    CLI_EXPLAIN,
    CLI_HELP,
    CLI_VERSION,
} cli_command;

#define CLI_KEEP_FDS_MAX 64
#define CLI_ACCEPT_MAX 64

typedef struct cli_args {
    cli_command command;
    const char *backend; /* "auto" unless given */
    const char *attest;  /* --attest FILE, or NULL */
    char **prefix;       /* --prefix split into words, or NULL; free with cli_args_free */
    bool no_capture;
    bool no_record;                 /* --no-record */
    bool report;                    /* --report: the hints whatever the exit */
    bool write;                     /* learn --write: the script rewritten */
    bool no_trust_check;            /* --no-trust-check */
    bool json;                      /* detect --json */
    int keep_fds[CLI_KEEP_FDS_MAX]; /* --keep-fd N, in order given */
    size_t keep_fds_count;
    bool cache_clear;    /* cache clear (else cache list) */
    const char *project; /* cache --project DIR, or NULL: the current directory */
    bool all_projects;   /* cache --all */
    bool plans;          /* cache --plans: the plans kept, not a project's caches */
    /* trust --accept FILE=SHA256, in order given, NULL-terminated. */
    const char *accept[CLI_ACCEPT_MAX + 1];
    size_t accept_count;
    const char *policy;      /* POLICY.lua */
    const char *const *argv; /* the command after "--", NULL-terminated, or NULL */
} cli_args;

/* Parse ARGV (argv[0] is the program). 0 on success; otherwise a message in ERR. */
int cli_parse(int argc, char **argv, cli_args *out, char *err, size_t err_size);
void cli_args_free(cli_args *args);

/* LCSB_POLICY_TIMEOUT's TEXT (NULL or "": unset, *SECONDS kept) as the
 * policy script's time budget. 0 on success; otherwise a message in ERR. */
int cli_parse_timeout(const char *text, double *seconds, char *err, size_t err_size);

/* Split a --prefix value into words on blanks; single and double quotes group.
 * NULL on an unterminated quote or an empty result. */
char **cli_split_words(const char *text);

/* Where the lcsb binary's companions are: the shim and the Lua files, found
 * beside the executable (build tree) or under its install prefix. */
typedef struct cli_paths {
    char shim[4096];
    char lua_dir[4096];
} cli_paths;
void cli_find_paths(cli_paths *paths);

/* Make lcsb the subreaper of what the command leaves behind (0 or -1), and
 * kill and reap all of it once the command has exited (how many, or -1). */
int cli_adopt_leftovers(void);
int cli_end_leftovers(void);

/* lcsb cache [list|clear]: the caches exec_policy's cache = { ... } keeps
 * per project (cache.c beside this). The exit status. */
int cli_cache(const cli_args *args);

/* lcsb check: the policy P as B holds it for this very command (ATT, from
 * lcsb_prepare) on this host (CAP), section by section on stdout (check.c
 * beside this). The exit status. */
int cli_check(const cli_args *args, const lcsb_capability *cap, const lcsb_backend *b,
              const lcsb_policy *p, const lcsb_attestation *att, const lcsb_script *script);

/* FMT as one line "lcsb: TEXT" on stderr, escaped for the terminal. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cli_main(int argc, char **argv);

extern const char cli_usage[];

#endif
