/* Part of <lcsb.h>: policy scripts (Lua 5.4). A script runs in a Lua state
 * the script handle owns, with the run's private HOME and TMPDIR; what it
 * returns (exec_policy's result) is kept by reference and its policy copied
 * out; the calls below read it back, as a policy, as lines for a person, as
 * the attestation's extra keys. And the trust a script runs under. Apart
 * because it is the Lua side: everything here owns a Lua state.
 *
 * A script is a handle the caller owns (lcsb_script_open, lcsb_script_close).
 * What the calls below return as pointers into it belongs to it and lives
 * until lcsb_script_close; lines and JSON they return are new, the caller's
 * to free. One script at a time per process (lcsb_script_open takes
 * process-wide signals while it runs), and one call at a time on a script:
 * its calls share its Lua state, the const ones too. */
#ifndef LCSB_PUBLIC_SCRIPT_H
#define LCSB_PUBLIC_SCRIPT_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/script.h is one part of it"
#endif

typedef struct lcsb_script lcsb_script;

/* The wall time a policy script may take by default, and at most, in seconds. */
#define LCSB_SCRIPT_BUDGET 10.0
#define LCSB_SCRIPT_BUDGET_MAX 1e6

/* A policy script in a project can be rewritten by the commands it
 * confines, and it runs unsandboxed, as the user. So lcsb runs one only as
 * the user approved it: lcsb_trust records the content (SHA-256) of the
 * script and of every file it reads through Lua (require, dofile,
 * loadfile, io.open, io.lines, io.input) in the user's state directory
 * ($XDG_STATE_HOME/lcsb/trust, else ~/.local/state/lcsb/trust).
 * Under CHECK, a script that is not in that record, or differs from it, is
 * refused before any of it runs (LCSB_EUNTRUSTED: the message names the
 * file, sums up the change and shows `lcsb trust`); a file it reads that is
 * not in the record as it is now is refused before the script gets a byte
 * of it; io.open to read and write at once ("r+", "a+", "w+") raises, for
 * the script would read what is on disk then, not what was checked. Files
 * in lcsb's configuration directories ($XDG_CONFIG_HOME/lcsb,
 * else ~/.config/lcsb, and the system's, /etc/lcsb) are trusted by where
 * they are: no project policy may write there. Whatever the mode, every
 * file the script read that lies in the policy's write tier is protected
 * for the run, and a script loads C modules only from the system's Lua
 * directories. */
typedef enum lcsb_trust_mode {
    LCSB_TRUST_CHECK = 0, /* run only what the user trusted */
    LCSB_TRUST_SKIP = 1,  /* the host wrote the script itself: no record needed */
} lcsb_trust_mode;

/* How a script runs: the caller's memory, initialised with
 * lcsb_script_options_init. Its strings and arrays are the caller's and are
 * read during lcsb_script_open or lcsb_trust only (copied where kept). */
typedef struct lcsb_script_options {
    size_t size; /* sizeof(lcsb_script_options), so the struct can grow */
    /* lcsb's Lua files; NULL: $LCSB_LUA_DIR when set, else the install's,
     * found as lcsb_detect finds the shim (PREFIX/share/lua/5.4). */
    const char *lua_dir;
    /* The lcsb-exec the script's lcsb.detect() reports; NULL: the installed one. */
    const char *shim;
    /* Seconds of wall time the script may take, from 0 (no budget) to
     * LCSB_SCRIPT_BUDGET_MAX; LCSB_SCRIPT_BUDGET unless set. */
    double time_budget;
    /* Whether the script must be one the user trusted (lcsb_trust): CHECK
     * unless set. */
    lcsb_trust_mode trust;
    /* The caps files (what no project policy may grant; docs/policy.md):
     * the administrator's and the user's. NULL: the usual ones,
     * LCSB_SYSCONFDIR/caps.lua (/etc/lcsb/caps.lua) and
     * $XDG_CONFIG_HOME/lcsb/user.lua (~/.config/lcsb/user.lua); "": none.
     * lcsb's defaults (LUA_DIR/lcsb/caps.lua) always apply. The caller
     * keeps ownership. */
    const char *caps_system;
    const char *caps_user;
    /* For lcsb_trust over an earlier record of the script: the files, each
     * "PATH=SHA256" as the refusal names them, it may run (dofile,
     * loadfile, require, or load of a file's bytes) though that record does
     * not cover them as they are. NULL-terminated; NULL: none. The caller
     * keeps ownership. */
    const char *const *accept;
    /* lcsb_script_after_run names the quiet files that run later too (a
     * Makefile a build wrote), as lcsb --report does; false (the default):
     * only the attestation lists them. */
    bool list_quiet;
    /* Paths the script's private HOME and TMPDIR may be named again, each
     * as a run named one before (lcsb_runner_private_names): where one is of
     * the form lcsb gives them and nothing is there, the run takes it
     * instead of a new random name, so that what it composes can be the
     * same as the run's before. NULL-terminated; NULL: none. The caller
     * keeps ownership. */
    const char *const *private_names;
} lcsb_script_options;

/* Fills the caller's OPTS with the defaults, its size included: the
 * installed Lua files and shim, LCSB_SCRIPT_BUDGET, LCSB_TRUST_CHECK, the
 * usual caps files, nothing accepted. */
LCSB_API void lcsb_script_options_init(lcsb_script_options *opts);
/* Runs the policy script at PATH for the command ARGV (NULL-terminated) into
 * *OUT (NULL on failure), which the caller closes with lcsb_script_close().
 * Copies ARGV and OPTS's strings; keeps PATH itself (not a copy) for the
 * messages of what the script reads later, so PATH must outlive *OUT.
 * The script runs in a Lua state the script object owns with the run's scope
 * (the private HOME and TMPDIR live until lcsb_script_close). OPTS may be
 * NULL: the defaults. Script errors are LCSB_ESCRIPT naming the file and line.
 *
 * The script is stopped when it runs past its time budget (LCSB_ETIMEDOUT)
 * or when SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives (LCSB_EINTR; one the
 * caller ignores stays ignored): Lua code within 10,000 instructions, a
 * blocked system call by EINTR, and a command it runs (os.execute, io.popen)
 * gets the signal too (SIGTERM when the budget ran out, SIGKILL 2 s later).
 * Then its private directories are removed, the caller's handlers and timer
 * are back (lcsb takes SIGALRM only when no ITIMER_REAL timer is running),
 * and the signal is raised again for the caller: with the default action it
 * ends the process as it would have, with nothing left behind. One script at
 * a time per process: signal dispositions are process-wide.
 *
 * The caps files are loaded first, each in a Lua state of its own, and the
 * policy the script returns is checked against them before this returns: a
 * policy beyond them (a denied path, a tree holding one unhidden, net,
 * exec = "any" or degrade where a file closes them) is LCSB_EINVAL naming
 * the cap, what the policy asked for, the file that sets the cap and what
 * to change; a broken caps file is LCSB_EINVAL naming it and its line. */
LCSB_API LCSB_NODISCARD int lcsb_script_open(const char *path, const char *const *argv,
                                             const lcsb_script_options *opts, lcsb_script **out,
                                             lcsb_error *err);
/* Trusts the policy script at PATH as it is now, recording it and what it
 * read in the trust store; returns in *TRUSTED (may be NULL) a new lcsb argv,
 * which the caller frees with lcsb_argv_free(). PATH, ARGV and OPTS are only
 * read during the call. Runs the script for the command ARGV
 * (NULL-terminated; it may read other files for another command, and those
 * are then refused until trusted for it too) with OPTS (NULL: defaults;
 * OPTS->trust is not looked at). *TRUSTED lists
 * each file recorded, "SHA256  PATH", the script first; over an earlier
 * record, one it did not cover as it is says
 * so (" (new)", " (changed)"). Nothing of the run is kept: its private
 * directories go.
 *
 * Over an earlier record, the script runs as before up to code that the
 * record does not cover as it is now (a module, a dofile, a data file's
 * bytes given to load) and that OPTS->accept does not name: it stops there
 * with LCSB_EUNTRUSTED, before any of that code runs, naming the file, what
 * changed or that it is new, when it last changed, where lcsb keeps a copy
 * of the bytes it found, and the `lcsb trust --accept FILE=SHA256` that
 * runs them; nothing is recorded. A command the policy confined may have
 * written such a file, and it would run as the user, unsandboxed. The
 * script itself is what the caller names, and the first record of a script
 * is made as it runs. */
LCSB_API LCSB_NODISCARD int lcsb_trust(const char *path, const char *const *argv,
                                       const lcsb_script_options *opts, char ***trusted,
                                       lcsb_error *err);
/* Says how SCRIPT came to run, a static string: "recorded" (as the user
 * trusted it), "location" (in lcsb's config directory), "skipped"
 * (LCSB_TRUST_SKIP). */
LCSB_API const char *lcsb_script_trusted(const lcsb_script *script);
/* Returns the script's policy, owned by SCRIPT (copied out of the Lua state
 * as the script returned) and valid until lcsb_script_close; lcsb_policy_copy
 * it to keep it longer. */
LCSB_API const lcsb_policy *lcsb_script_policy(const lcsb_script *script);
/* Returns best-guess remedies for a failed run as a new lcsb argv, which the
 * caller frees with lcsb_argv_free(); ARGV and RESULT are only read during
 * the call. "hint" lines without prefix,
 * escaped (lcsb_escape: they may quote the command's stderr); NULL when there
 * are none (or on ENOMEM). NULL-safe. */
LCSB_API char **lcsb_script_explain(lcsb_script *script, const char *const *argv,
                                    const lcsb_run_result *result);
/* Returns in *OUT a new policy, which the caller frees with
 * lcsb_policy_free(): the script's, with every program allowed (exec open),
 * held to the caps the script was (LCSB_EINVAL, naming the cap, when they
 * refuse exec "any"). What lcsb learn runs the command under, with
 * lcsb_run_options.judge the script's own policy. */
LCSB_API LCSB_NODISCARD int lcsb_script_learning_policy(const lcsb_script *script,
                                                        lcsb_policy **out, lcsb_error *err);
/* Returns what a learning run (lcsb_run under lcsb_script_learning_policy,
 * judged against the script's policy) says to add to the script: in
 * *REPORT the report's lines (an lcsb argv, escaped; the caller frees it
 * with lcsb_argv_free()), in *DIFF the script as it would be, as a unified
 * diff (the caller frees it with free(); NULL when there is nothing to add
 * or lcsb cannot place it in the script, which the report then says how
 * to). The programs the run used that the policy does not let run become
 * presets, built = true, or their paths; what it leaves out (a secret, a
 * cap) and what else was refused, the report names. WRITE: the script is
 * rewritten with the change, whole or not at all (the user still trusts it
 * with lcsb_trust). LCSB_EUNTRUSTED when the script's file is no longer the
 * one that ran. ARGV and RESULT are only read. */
LCSB_API LCSB_NODISCARD int lcsb_script_learn(lcsb_script *script, const char *const *argv,
                                              const lcsb_run_result *result, bool write,
                                              char ***report, char **diff, lcsb_error *err);
/* Returns in *HINTS the hints for a run from its attestation, as a new lcsb
 * argv the caller frees with lcsb_argv_free(); JSON and LUA_DIR are only read
 * during the call, in a Lua state of its own. The attestation as
 * lcsb_script_attestation_json
 * wrote it (`lcsb --attest FILE`): JSON, LEN bytes. What the recorder and
 * the proxy saw is in it; the stderr tail is not, so only evidence is
 * explained. For a host that runs commands in the background and reads
 * their outcome later. LUA_DIR as lcsb_script_options has it (NULL: the
 * installed one). *HINTS as lcsb_script_explain gives them, NULL when
 * there are none; LCSB_EINVAL when JSON is no attestation. */
LCSB_API LCSB_NODISCARD int lcsb_explain_attestation(const char *json, size_t len,
                                                     const char *lua_dir, char ***hints,
                                                     lcsb_error *err);
/* Returns, after lcsb_run, the warnings of what the run made as a new lcsb
 * argv, which the caller frees with lcsb_argv_free(); NULL when there is
 * nothing to say. Lets go of what the policy held for the run (the empty .git
 * of a project that is no repository), and says what it could not hold and
 * the run made anyway (a repository, with hooks nobody protected) and which
 * files the command created or changed that tools run later, unsandboxed
 * (an .envrc, a Makefile, a nested .git: lua/lcsb/run_later.lua), as
 * warning lines, escaped. lcsb_script_close lets go too, if no one did,
 * but looks for nothing: no command ran. NULL-safe. */
LCSB_API char **lcsb_script_after_run(lcsb_script *script);
/* Returns the attestation ATT as JSON (lcsb_attestation_json) with the keys
 * SCRIPT adds (SCRIPT may be NULL: ATT's alone), which the caller frees with
 * free(); NULL on ENOMEM. "policy": {"script": its path, "trust":
 * "recorded" | "location" | "skipped", "files": [{"path", "real" (when a
 * symlink led elsewhere), "sha256", "protected"}]}, every file the script
 * read and whether the run protects it; "caps": the caps files the policy
 * was checked against, [{"file": PATH, "sha256": HEX}, ...], lcsb's
 * defaults first; and "run_later", once lcsb_script_after_run looked for
 * the files a command created or changed that tools run later ([{ "path",
 * "why", "inside" (what changed in a directory), "unseen" (true where lcsb
 * could not look) }]); for exec_policy's policy, "home" and "cache": what
 * the private HOME showed of the real one ([{"name": "~/.gitconfig",
 * "path": where it led}]). */
LCSB_API char *lcsb_script_attestation_json(lcsb_script *script, const lcsb_attestation *att);
/* Returns what lcsb_script_attestation_json does for RESULT's attestation,
 * with the run's exit status as one more key of the same object,
 * "status": N; which the caller frees with free(); NULL on ENOMEM. What
 * `lcsb --attest FILE` writes after a run, and what lcsb_explain_attestation
 * reads the status from. RESULT is only read. */
LCSB_API char *lcsb_script_run_json(lcsb_script *script, const lcsb_run_result *result);
/* Fills the caller's OUT with the container world the script's exec_policy
 * named (oci = {...}), for lcsb_backend_oci, which copies it; its strings
 * belong to SCRIPT and live until lcsb_script_close. False when it named
 * none (OUT zeroed). */
LCSB_API bool lcsb_script_oci_world(const lcsb_script *script, lcsb_oci_world *out);
/* What the script asked for and exec_policy left out: a path that does not
 * exist, a protected path that is not writable anyway. Entries and their
 * strings belong to the script. */
typedef struct lcsb_left_out {
    lcsb_tier tier;
    const char *path;
    const char *why; /* "does not exist", ... */
} lcsb_left_out;
/* Returns how many entries were left out, and points *OUT (OUT may be NULL)
 * at them; they belong to SCRIPT and live until lcsb_script_close. NULL-safe. */
LCSB_API size_t lcsb_script_left_out(const lcsb_script *script, const lcsb_left_out **out);
/* What the private HOME shows of the caller's real one (exec_policy's home
 * and cache keys), each entry at the same place there. Entries and their
 * strings belong to the script. */
typedef struct lcsb_home_entry {
    const char *name; /* "~/.gitconfig": where the command sees it */
    const char *path; /* where it leads: the real file, or the project's cache */
    bool cache;       /* a cache kept per project, writable; else read-only */
} lcsb_home_entry;
/* Returns how many entries, home's then cache's, and points *OUT (OUT may be
 * NULL) at them; they belong to SCRIPT and live until lcsb_script_close.
 * NULL-safe. */
LCSB_API size_t lcsb_script_home(const lcsb_script *script, const lcsb_home_entry **out);
/* Returns the caps the policy was checked against as a new lcsb argv, which
 * the caller frees with lcsb_argv_free(): lines for a person (what is
 * denied, net, exec any, degrade; the files). NULL on ENOMEM. */
LCSB_API char **lcsb_script_caps(const lcsb_script *script);
/* Returns where the exec allowlist came from as a new lcsb argv, which the
 * caller frees with lcsb_argv_free(); NULL when there is none. Lines for a
 * person: each preset
 * (lcsb.tools.*) and closure (what a program runs on its own: gcc's cc1,
 * git's helpers, a version manager's interpreter) and what it added.
 * NULL-safe. */
LCSB_API char **lcsb_script_tools(const lcsb_script *script);
/* Returns what building the policy allowed that the user must hear of before
 * the run (a program named in exec that is not built yet, allowed by its
 * directory in the project): lines, a new lcsb argv, as lcsb_script_tools. */
LCSB_API char **lcsb_script_warnings(const lcsb_script *script);
/* Returns what became of each of exec_policy's default protections (the
 * repository's .git, hooks and config, the coding agents' configuration):
 * read-only, held
 * empty for the run, not there, let go by a "!" entry, ... with why it is
 * protected: lines, a new lcsb argv, as lcsb_script_tools; NULL when the
 * script's result has none (a bare lcsb.policy). */
LCSB_API char **lcsb_script_defaults(const lcsb_script *script);
/* Returns how exec_policy came by the policy: from the plan an earlier run
 * kept (composed once, used while what it rests on holds), or composed, with
 * why no plan was used and whether this one was kept: lines, a new lcsb argv,
 * as lcsb_script_tools; NULL when the script's result has none. */
LCSB_API char **lcsb_script_plan(const lcsb_script *script);
/* Removes the run's private directories and frees SCRIPT, whatever it
 * returns (NULL-safe): everything SCRIPT owned goes with it. LCSB_ESYS names
 * what could not be removed (a mount point inside, say: removal never
 * crosses one). */
LCSB_API int lcsb_script_close(lcsb_script *script, lcsb_error *err);

#endif
