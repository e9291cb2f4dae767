/* A world made before its command is known.
 *
 * A host that runs many commands under one policy (lcsb_runner_new) has
 * lcsb start the next shim while the current command runs, so that the
 * world is made by the time the command is asked for. LCSB_EXEC_COMMAND_FD
 * then names a unix stream socket on which the init, once the world is
 * made and every rule and filter is in force, waits for the command
 * (docs/wire-format.md):
 *
 *   - one byte, 'C', carrying the descriptors the command starts with:
 *     its stdin and stdout, and its stderr where lcsb does not read it
 *     (two or three, SCM_RIGHTS): a host hands each command its own, and
 *     the shim started ahead holds none of them open;
 *   - then the command's words, each ended by a NUL, up to the end of the
 *     stream; they follow what the argv already holds after "--" (the env
 *     hop lcsb composed), as a command given on the argv would.
 *
 * Only which command runs, and with which standard descriptors, comes this
 * way: the policy was read and enforced before, from the argv, and nothing
 * here can change it. The stream ending with nothing on it is lcsb letting
 * the world go unused: the init ends without running anything. */
#define _GNU_SOURCE
#include "handover.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "say.h"

/* More than any kernel takes as an exec's arguments. */
#define WORDS_MAX ((size_t)16 << 20)

/* The descriptors the handover's first byte carries, put in place as 0, 1
 * and 2. 0 when they came; 1 at the end of the stream; -1, said, else. */
static int take_descriptors(int fd) {
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
    bool whole = byte == 'C' && !(msg.msg_flags & MSG_CTRUNC) && n >= 2 && n <= 3;
    for (size_t i = 0; i < n; i++)
        whole = whole && fds[i] > 2;
    for (size_t i = 0; i < n; i++) {
        if (whole && dup2(fds[i], (int)i) < 0)
            whole = false;
        close(fds[i]);
    }
    return whole ? 0 : fail("receive the command: not lcsb's handover");
}

int take_command(int fd, char **argv, int argc, char ***out) {
    char *words = NULL;
    size_t len = 0, size = 0, count = 0;
    int rc = take_descriptors(fd);

    if (rc != 0)
        return rc;
    for (;;) {
        if (len == size) {
            char *more = size < WORDS_MAX ? realloc(words, size = size ? 2 * size : 4096) : NULL;
            if (more == NULL)
                return fail("receive the command: %s",
                            size >= WORDS_MAX ? "more than 16 MiB of words" : strerror(ENOMEM));
            words = more;
        }
        ssize_t got = read(fd, words + len, size - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return fail("receive the command: %s", strerror(errno));
        if (got == 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    if (len == 0 || words[len - 1] != '\0')
        return fail("receive the command: %s", len == 0 ? "no command came" : "a word without its end");
    for (size_t i = 0; i < len; i++)
        count += words[i] == '\0';
    *out = calloc((size_t)argc + count + 1, sizeof **out);
    if (*out == NULL)
        return fail("receive the command: %s", strerror(ENOMEM));
    memcpy(*out, argv, (size_t)argc * sizeof *argv);
    for (size_t i = 0, k = (size_t)argc; i < len; i += strlen(words + i) + 1)
        (*out)[k++] = words + i;
    return 0;
}
