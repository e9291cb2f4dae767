/* A world made before its command is known.
 *
 * A host that runs many commands under one policy (lcsb_runner_new) has
 * lcsb start the next shim while the current command runs, so that the
 * world is made by the time the command is asked for. LCSB_EXEC_COMMAND_FD
 * then names a unix stream socket on which the init, once the world is
 * made and every rule and filter is in force, waits for the command
 * (docs/wire-format.md):
 *
 *   - one byte carrying the descriptors the command starts with: its
 *     stdin and stdout, and its stderr where lcsb does not read it (two or
 *     three, SCM_RIGHTS): a host hands each command its own, and the shim
 *     started ahead holds none of them open. 'N' when the world was made
 *     for this command (while lcsb composed it), 'C' when for a later one
 *     (while the one before ran): a stop a terminal sent to its foreground
 *     group before the command started is this command's only in the
 *     first (init.c);
 *   - then words, each ended by a NUL, up to the end of the stream, and
 *     nothing beside them: how many are the command's and how many its
 *     environment's ("N E", in decimal), the command's words,
 *     which follow what the argv already holds after "--" (the env hop lcsb
 *     composed) as a command given on the argv would, and its environment,
 *     which replaces the shim's own (lcsb spawns it with only what it tells
 *     the shim, so that the world can be made before the policy is known).
 *
 * Only which command runs, with which standard descriptors and environment,
 * comes this way: the policy was read and enforced before, from the argv,
 * and nothing here can change it. The stream ending with nothing on it is
 * lcsb letting the world go unused: the init ends without running anything.
 * A world whose mount table changed while it waited is one the host changed
 * under it (a file it protected or hid, replaced): it is not used, and lcsb
 * makes another (REPORT_STALE). */
#define _GNU_SOURCE
#include "handover.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "covers.h"
#include "say.h"

/* More than any kernel takes as an exec's arguments. */
#define WORDS_MAX ((size_t)16 << 20)

/* The descriptors the handover's first byte carries, put in place as 0, 1
 * and 2, and whether that byte says the world was made for this command.
 * 0 when they came; 1 at the end of the stream; -1, said, else. */
static int take_descriptors(int fd, bool *for_it) {
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } control;
    char byte = 0;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    struct cmsghdr *c;
    int fds[4];
    size_t n = 0;
    ssize_t got;

    while ((got = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    if (got == 0)
        return 1;
    if (got < 0)
        return fail("receive the command: %s", strerror(errno));
    c = CMSG_FIRSTHDR(&msg);
    if (c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        memcpy(fds, CMSG_DATA(c), n * sizeof(int));
    }
    /* Whatever came is closed below, whether it is taken or not. */
    bool whole = (byte == 'C' || byte == 'N') && !(msg.msg_flags & MSG_CTRUNC) && n >= 2 && n <= 3;
    *for_it = byte == 'N';
    for (size_t i = 0; i < n; i++)
        whole = whole && fds[i] > 2;
    for (size_t i = 0; i < n; i++) {
        if (whole && dup2(fds[i], (int)i) < 0)
            whole = false;
        close(fds[i]);
    }
    return whole ? 0 : fail("receive the command: not lcsb's handover");
}

/* Room in *BUF (*SIZE bytes, LEN of them used) for more: the buffer grown
 * to twice its size (FIRST to start with) while under WORDS_MAX. false when
 * it cannot grow, *BUF kept. */
static bool grow(char **buf, size_t *size, size_t len, size_t first) {
    char *more;

    if (len < *size)
        return true;
    if (*size >= WORDS_MAX || (more = realloc(*buf, *size ? 2 * *size : first)) == NULL)
        return false;
    *buf = more;
    *size = *size ? 2 * *size : first;
    return true;
}

/* What the stream holds up to its end into *WORDS (*LEN bytes): plain
 * bytes, no descriptor beside them. 0, or -1, said. */
static int read_words(int fd, char **words, size_t *len) {
    size_t size = 0;
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;

    *words = NULL;
    *len = 0;
    for (;;) {
        if (!grow(words, &size, *len, 4096))
            return fail("receive the command: %s",
                        size >= WORDS_MAX ? "more than 16 MiB of words" : strerror(ENOMEM));
        struct iovec iov = {.iov_base = *words + *len, .iov_len = size - *len};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof control.buf};
        ssize_t got = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fail("receive the command: %s", strerror(errno));
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
                for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++)
                    close(((int *)CMSG_DATA(c))[k]);
        if (msg.msg_controllen != 0 || (msg.msg_flags & MSG_CTRUNC))
            return fail("receive the command: not lcsb's handover");
        if (got == 0)
            return 0;
        *len += (size_t)got;
    }
}

/* The world's mount table as it reads now (from MOUNTS, opened before the
 * init was restricted), into *TABLE; NULL when it cannot be read. */
static char *mount_table(int mounts, size_t *len) {
    char *table = NULL;
    size_t size = 0;

    *len = 0;
    for (;;) {
        if (!grow(&table, &size, *len, 16384)) {
            free(table);
            return NULL;
        }
        ssize_t got = pread(mounts, table + *len, size - *len, (off_t)*len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(table);
            return NULL;
        }
        if (got == 0)
            return table;
        *len += (size_t)got;
    }
}

/* The world's mount table as it was made (NULL: it could not be read), and
 * where to read it again. */
static char *as_made;
static size_t as_made_len;
static int mounts = -1;

void world_made(int command_fd) {
    int fd = command_fd < 0 ? -1 : open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return;
    if ((as_made = mount_table(fd, &as_made_len)) == NULL) {
        close(fd);
        return;
    }
    mounts = fd;
}

int take_command(int fd, char **argv, int argc, char ***out, char ***env, bool *for_it) {
    char *words, *end, *now;
    size_t len, now_len, count = 0;

    *for_it = true;
    if (fd < 0)
        return 0;
    int rc = take_descriptors(fd, for_it);

    if (rc != 0 || (rc = read_words(fd, &words, &len)) != 0)
        return rc;
    close(fd);
    /* A cover the world put on a file of the host's (a protected or hidden
     * path) goes with the file when the host replaces it (a rename over
     * it), a directory that holds one in place goes where the host renames
     * it, and one it found missing has none (the empty .git a project's
     * run makes after the world was started): the world then no longer
     * holds what the policy says. One whose table could not be read (a
     * policy that hides /proc) cannot tell. */
    now = as_made == NULL ? NULL : mount_table(mounts, &now_len);
    if (now == NULL || now_len != as_made_len || memcmp(now, as_made, now_len) != 0 ||
        world_covers_changed())
        return 2;
    /* Words, each ended: nothing below reads past the last NUL. */
    if (len == 0 || words[len - 1] != '\0')
        return fail("receive the command: not lcsb's handover");
    for (size_t i = 0; i < len; i++)
        count += words[i] == '\0';
    /* The first word says how many words are the command's and how many its
     * environment's; all of them, and nothing more, must have come. */
    unsigned long long n, e;
    errno = 0;
    n = strtoull(words, &end, 10);
    e = *end == ' ' ? strtoull(end + 1, &end, 10) : 0;
    if (errno != 0 || end == words || *end != '\0' || n == 0 || n > count - 1 ||
        e != count - 1 - n)
        return fail("receive the command: not lcsb's handover");
    *out = calloc((size_t)argc + n + 1, sizeof **out);
    *env = calloc(e + 1, sizeof **env);
    if (*out == NULL || *env == NULL)
        return fail("receive the command: %s", strerror(ENOMEM));
    memcpy(*out, argv, (size_t)argc * sizeof *argv);
    size_t k = 0;
    for (size_t i = strlen(words) + 1; i < len; i += strlen(words + i) + 1, k++) {
        if (k < n)
            (*out)[(size_t)argc + k] = words + i;
        else
            (*env)[k - n] = words + i;
    }
    return 0;
}
