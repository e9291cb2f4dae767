/* liblcsb-record.so inside: what the wrapped calls (record.c) ask of the
 * writer (record_write.c), which holds lcsb's descriptor and writes the
 * records. Nothing here leaves the library: it is built with hidden
 * visibility, and only the wrappers are marked for export. */
#ifndef LCSB_SHIM_RECORD_H
#define LCSB_SHIM_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* ---- the descriptor ---- */

/* lcsb's descriptor now (-1: record nothing). */
int current_fd(void);

/* Is FD the descriptor lcsb handed over, still? */
bool ours(int fd);

/* Is FD the recorder's, to be passed over by a close? */
bool spared(int fd);

/* The program is about to put something of its own at TARGET (from
 * SOURCE): the recorder moves off it first. Returns the number it left, or
 * -1 when it did not move. */
int make_room(int target, int source);

/* The program's call failed: the recorder goes back to LEFT. */
void move_back(int left);

/* How many slots ENV needs for the next program to be told where the
 * descriptor is now (0: ENV will do), and ENV into FIXED so (ENTRY: 32
 * bytes). */
size_t env_slots(char *const env[]);
char *const *env_fill(char *const env[], char **fixed, char *entry);

/* Takes LCSB_RECORD_FD at start, when it names a descriptor fit to write
 * records on. */
void take_descriptor(void);

/* ---- the records ---- */

/* NUMBER in decimal into OUT (at least 12 bytes); its length. */
size_t decimal(long number, char *out);

/* Is the record new to this process? Noted when it is. */
bool first_time(const char *op, int err, const char *target);

/* One record, "OP ERRNO PID PROGRAM TARGET", written or lost, never waited for. */
void record(const char *op, int err, const char *target);

/* Could ERR be the sandbox's refusal? */
bool refusal_errno(int err);

/* The call on PATH (from DIRFD) failed with ERR: a record when it reads as
 * a refusal. */
void note_path(const char *op, int err, int dirfd, const char *path, bool empty);

/* What a call returned, passed on with errno as it was, its failure noted:
 * on PATH; on either side of a rename; on a path that stat or access only
 * asked about. */
int noted(int r, const char *op, int dirfd, const char *path);
int noted2(int r, int dirfd1, const char *path1, int dirfd2, const char *path2);
int probed(int r, const char *op, int dirfd, const char *path);

/* A refused connect or bind to ADDR, recorded by its address or path. */
void note_address(const char *op, int err, const struct sockaddr *addr, socklen_t len);

/* A socket's kind as "FAMILY/TYPE" into OUT (64 bytes). */
void socket_kind(int domain, int type, char *out);

#endif
