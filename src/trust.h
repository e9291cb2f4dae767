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

/* The most of a file a policy script may read through lcsb: a policy, a
 * module or a data file, never an archive. */
#define LCSB__TRUST_FILE_MAX ((size_t)16 << 20)

typedef struct lcsb__trust_file {
    char *path; /* as the script named it, made absolute (lcsb__trust_absolute) */
    char *real; /* where that led */
    char sha256[LCSB__SHA256_HEX];
} lcsb__trust_file;

/* What a script read, or what the record of a trusted one says it read. */
typedef struct lcsb__trust_files {
    lcsb__trust_file *v;
    size_t n, cap;
} lcsb__trust_files;

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
 * others may write, is refused. */
int lcsb__trust_load(const char *script, lcsb__trust_files *out, lcsb_error *err);
/* Record FILES (SCRIPT's first; SCRIPT as named, absolute) as what the user
 * trusts SCRIPT with, each file's content (CONTENTS[i], LENS[i]) kept beside it. */
int lcsb__trust_save(const char *script, const lcsb__trust_files *files, char *const *contents,
                     const size_t *lens, lcsb_error *err);

/* The file at PATH, a regular one of at most LCSB__TRUST_FILE_MAX bytes,
 * read whole through one descriptor: its bytes (*DATA, NUL-terminated,
 * caller frees), their digest (unless SHA256 is NULL), its real path
 * (REAL, PATH_MAX bytes) and, unless SEEN is NULL, what that descriptor
 * says of it. Errors name PATH; errno is kept for the caller to tell ENOENT. */
int lcsb__trust_read(const char *path, char **data, size_t *len, char *real, lcsb__file_seen *seen,
                     char sha256[LCSB__SHA256_HEX], lcsb_error *err);

/* A record's text (LEN bytes of DATA) as the files it names into *OUT
 * (cleared, false, when it is not one lcsb wrote). */
bool lcsb__trust_parse(const char *data, size_t len, lcsb__trust_files *out);
/* "3 lines added, 1 removed; first at line 12: ..." from OLD to NOW. */
void lcsb__trust_diff(const char *old, size_t old_len, const char *now, size_t now_len,
                      lcsb__buf *out);
/* What changed from the trusted content of a file (digest OLD_SHA256) to
 * NOW: "3 lines added, 1 removed; first at line 12: exec = \"any\"", or
 * what is known when the old content was not kept. Into OUT. */
void lcsb__trust_changes(const char *old_sha256, const char *now, size_t now_len, lcsb__buf *out);

/* LCSB_EUNTRUSTED: the script at PATH has no record. */
int lcsb__trust_not_recorded(const char *path, lcsb_error *err);
/* Why the script GIVEN (as the caller named it) is refused: it, or the
 * file READ it reads (NULL: the script itself), is not as trusted. WAS is
 * what the record says (NULL: not in it), REAL and NOW where the name led
 * and the content found. */
void lcsb__trust_refusal(lcsb__buf *b, const char *given, const char *read,
                         const lcsb__trust_file *was, const char *real, const char *now,
                         size_t now_len);
/* Is the script at PATH, and every file recorded with it, as the user
 * trusted it? 0 with *HOW "recorded" or "location"; LCSB_EUNTRUSTED saying
 * why not. What else the script reads when it runs is held to the record
 * then (lcsb_script_open). */
int lcsb__trust_verify(const char *path, const char **how, lcsb_error *err);

#endif
