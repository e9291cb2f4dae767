/* Layer 6: the user's approval of policy scripts (lcsb trust). A record per
 * script, in the user's state directory, names every file the script read
 * when it was trusted, by real path and SHA-256; a copy of each file's
 * content lets a refusal say what changed. A policy kept where only the user
 * writes (lcsb's config directories) is trusted by where it is. */
#ifndef LCSB_TRUST_H
#define LCSB_TRUST_H

#include "sha256.h"
#include "sys.h"
#include "util.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

/* The most of a file a policy script may read through lcsb: a policy, a
 * module or a data file, never an archive. */
#define LCSB__TRUST_FILE_MAX ((size_t)16 << 20)

typedef struct lcsb__trust_file {
    char *path; /* as the script named it, made absolute (lcsb__trust_absolute) */
    char *real; /* where that led */
    char sha256[LCSB__SHA256_HEX];
    time_t changed; /* its status change time when read (0: not asked) */
} lcsb__trust_file;

/* What a script read, or what the record of a trusted one says it read. */
typedef struct lcsb__trust_files {
    lcsb__trust_file *v;
    size_t n, cap;
} lcsb__trust_files;

/* The record of a script: what it read when the user trusted it, and what
 * it looked for then and did not find (a file that is there now is news
 * the user hears of in a refusal). */
typedef struct lcsb__trust_record {
    lcsb__trust_files files;  /* the script first */
    lcsb__trust_files absent; /* path only: real and sha256 empty */
    time_t at;                /* when the record was written; 0 when there is none */
} lcsb__trust_record;

void lcsb__trust_record_clear(lcsb__trust_record *record);

int lcsb__trust_files_add(lcsb__trust_files *files, const char *path, const char *real,
                          const char *sha256);
/* The entry for PATH (as named), or NULL. */
const lcsb__trust_file *lcsb__trust_files_find(const lcsb__trust_files *files, const char *path);
void lcsb__trust_files_clear(lcsb__trust_files *files);

/* The directory records live in: $XDG_STATE_HOME/lcsb/trust, else
 * ~/.local/state/lcsb/trust (HOME from the environment, else the password
 * database). */
int lcsb__trust_store(char *out, size_t size, lcsb_error *err);
/* PATH made absolute against the working directory, lexically: "//", "."
 * and ".." resolved as text (what a name says, before the file system has
 * its say). False when too long. */
bool lcsb__trust_absolute(const char *path, char out[PATH_MAX]);
/* Is the file named PATH (absolute), whose real path is REAL, in a
 * directory lcsb reads its own configuration from ($XDG_CONFIG_HOME/lcsb or
 * ~/.config/lcsb, and the system's), by name and in fact? */
bool lcsb__trust_by_location(const char *path, const char *real);

/* The record of the script named SCRIPT (absolute) into *OUT (empty, and 0,
 * when there is none). A store or record that is not the user's own, or
 * others may write, is refused; one lcsb did not write is LCSB_EINVAL. */
int lcsb__trust_load(const char *script, lcsb__trust_record *out, lcsb_error *err);
/* Record FILES (SCRIPT's first; SCRIPT as named, absolute) as what the user
 * trusts SCRIPT with, each file's content (CONTENTS[i], LENS[i]) kept beside
 * it, and ABSENT (paths) as what it looked for and did not find. */
int lcsb__trust_save(const char *script, const lcsb__trust_files *files,
                     const lcsb__trust_files *absent, char *const *contents, const size_t *lens,
                     lcsb_error *err);
/* Keep LEN bytes of DATA, whose digest is SHA256, in the store's copies of
 * content, where a summary of a change finds them; its path into WHERE
 * (PATH_MAX bytes). */
int lcsb__trust_keep(const char *sha256, const char *data, size_t len, char *where,
                     lcsb_error *err);

/* The file at PATH, a regular one of at most LCSB__TRUST_FILE_MAX bytes,
 * read whole through one descriptor: its bytes (*DATA, NUL-terminated,
 * caller frees), their digest (unless SHA256 is NULL), its real path
 * (REAL, PATH_MAX bytes) and, unless SEEN is NULL, what that descriptor
 * says of it. Errors name PATH; errno is kept for the caller to tell ENOENT. */
int lcsb__trust_read(const char *path, char **data, size_t *len, char *real, lcsb__file_seen *seen,
                     char sha256[LCSB__SHA256_HEX], lcsb_error *err);

/* A record's text (LEN bytes of DATA) as the files it names into *OUT
 * (cleared, false, when it is not one lcsb wrote). */
bool lcsb__trust_parse(const char *data, size_t len, lcsb__trust_record *out);
/* "3 lines added, 1 removed; first at line 12: ..." from OLD to NOW. */
void lcsb__trust_diff(const char *old, size_t old_len, const char *now, size_t now_len,
                      lcsb__buf *out);
/* What changed from the trusted content of a file (digest OLD_SHA256) to
 * NOW: "3 lines added, 1 removed; first at line 12: exec = \"any\"", or
 * what is known when the old content was not kept. Into OUT. */
void lcsb__trust_changes(const char *old_sha256, const char *now, size_t now_len, lcsb__buf *out);

/* "1 line, last changed 2024-05-01 12:00:03": what is known of a file no
 * record names, LEN bytes of NOW, whose status changed at CHANGED (the
 * kernel's to set, where a command may set the modification time to
 * anything). Into OUT. */
void lcsb__trust_new_summary(const char *now, size_t now_len, time_t changed, lcsb__buf *out);
/* T as the local time "2024-05-01 12:00:03", into OUT. */
void lcsb__trust_add_time(lcsb__buf *out, time_t t);
/* PATH (absolute) as a refusal names it: from the working directory when
 * beneath it. */
const char *lcsb__trust_shown(const char *path, char cwd[PATH_MAX]);
/* Every file RECORD names but SKIP (absolute; NULL: none) that is not as
 * recorded now (changed, moved, gone), and every file it looked for and did
 * not find that is there now, each with what changed: " Also new or
 * changed since you trusted it: A (...); B (...)." into B, or nothing. A
 * refusal names the first such file it met; this, the rest. */
void lcsb__trust_also(lcsb__buf *b, const lcsb__trust_record *record, const char *skip);

/* LCSB_EUNTRUSTED: the script at PATH has no record. AGAIN is the command
 * that trusts it ("lcsb trust policy.lua -- python3"; NULL: "lcsb trust
 * PATH"): with the run's command, what the script reads for that command
 * is recorded too, and the next run is not refused again for it. */
int lcsb__trust_not_recorded(const char *path, const char *again, lcsb_error *err);
/* Why the script GIVEN (as the caller named it) is refused: it, or the
 * file READ it reads (NULL: the script itself), is not as trusted. WAS is
 * what the record says (NULL: not in it), REAL and NOW where the name led
 * and the content found; AGAIN as above. */
void lcsb__trust_refusal(lcsb__buf *b, const char *given, const char *again, const char *read,
                         const lcsb__trust_file *was, const char *real, const char *now,
                         size_t now_len);
/* Is the script at PATH, and every file recorded with it, as the user
 * trusted it? 0 with *HOW "recorded" or "location"; LCSB_EUNTRUSTED saying
 * why not. What else the script reads when it runs is held to the record
 * then (lcsb_script_open). */
int lcsb__trust_verify(const char *path, const char **how, lcsb_error *err);

#endif
