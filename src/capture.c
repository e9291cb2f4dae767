/* The command's stderr, relayed and remembered: while the command runs, every
 * byte it writes to stderr goes on to the caller's, live and in order, and
 * the last LCSB_STDERR_TAIL_MAX bytes stay in the result for explain. stdout
 * is never touched. The recorder's pipe is read in the same loop, so that
 * it never fills while the command runs, but at most every RECORD_PAUSE_MS:
 * a build writes records by the thousand, and waking for each would cost
 * lcsb more CPU than the records are worth (the pipe holds a megabyte). The
 * child's exit is heard through SIGCHLD on a self-pipe, so that a process
 * the command left behind, holding the pipe open, cannot keep lcsb waiting
 * for an end of file. */
#include "capture.h"

#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long the recorder's pipe rests after a read before it is polled again. */
#define RECORD_PAUSE_MS 50

static volatile sig_atomic_t child_note_fd = -1;

static void note_child(int sig) {
    (void)sig;
    int saved = errno;
    if (child_note_fd >= 0) (void)!write(child_note_fd, "", 1);
    errno = saved;
}

int lcsb__capture_open(lcsb__capture *c, bool with_stderr, lcsb_error *err) {
    int rc = lcsb__capture_make(c, with_stderr, err);
    if (!rc) lcsb__capture_listen(c);
    return rc;
}

int lcsb__capture_make(lcsb__capture *c, bool with_stderr, lcsb_error *err) {
    memset(c, 0, sizeof *c);
    c->out[0] = c->out[1] = c->note[0] = c->note[1] = c->record = -1;
    if ((with_stderr && pipe2(c->out, O_CLOEXEC) != 0) ||
        pipe2(c->note, O_CLOEXEC | O_NONBLOCK) != 0) {
        int saved = errno;
        lcsb__capture_close(c);
        return lcsb__fail(err, LCSB_ESYS, "cannot make a pipe for the command's stderr: %s",
                          strerror(saved));
    }
    return 0;
}

/* How many captures listen, and SIGPIPE as the caller had it before the
 * first: while any does, lcsb ignores it for itself. */
static int pipe_held;
static struct sigaction callers_pipe;

bool lcsb__capture_caller_ignores_pipe(void) {
    struct sigaction now;
    if (pipe_held) return lcsb__ignores(&callers_pipe);
    return sigaction(SIGPIPE, NULL, &now) == 0 && lcsb__ignores(&now);
}

bool lcsb__capture_ignores_pipe_itself(void) { return pipe_held && !lcsb__ignores(&callers_pipe); }

void lcsb__capture_listen(lcsb__capture *c) {
    child_note_fd = c->note[1];
    struct sigaction sa = {.sa_handler = note_child, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &c->old_chld);
    /* A caller whose stderr is gone must not die of SIGPIPE for it. */
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &c->old_pipe);
    if (pipe_held++ == 0) callers_pipe = c->old_pipe;
    c->installed = true;
}

void lcsb__capture_close(lcsb__capture *c) {
    if (c->installed) {
        sigaction(SIGCHLD, &c->old_chld, NULL);
        sigaction(SIGPIPE, &c->old_pipe, NULL);
        pipe_held--;
        child_note_fd = -1;
        c->installed = false;
    }
    for (int i = 0; i < 2; i++) {
        if (c->out[i] >= 0) close(c->out[i]);
        if (c->note[i] >= 0) close(c->note[i]);
        c->out[i] = c->note[i] = -1;
    }
}

void lcsb__capture_watch(lcsb__capture *c, int record, lcsb__refusals *refusals) {
    c->record = record;
    c->refusals = refusals;
}

/* After the spawn: only the child writes into the pipe. */
void lcsb__capture_spawned(lcsb__capture *c) {
    if (c->out[1] >= 0) close(c->out[1]);
    c->out[1] = -1;
}

/* What the recorder's pipe holds now, up to RECORDS_READ_MAX bytes: a
 * command that keeps the pipe full must not keep lcsb from its stderr or
 * from the command's exit. False once every write end is gone. */
#define RECORDS_READ_MAX (1024 * 1024)
static bool read_records(lcsb__capture *c) {
    char buf[16384];
    for (size_t taken = 0; taken < RECORDS_READ_MAX; taken += sizeof buf) {
        ssize_t n = read(c->record, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno == EAGAIN;
        if (n == 0) return false;
        lcsb__refusals_feed(c->refusals, buf, (size_t)n);
    }
    return true;
}

static void keep_tail(lcsb_run_result *result, const char *bytes, size_t n) {
    const size_t max = sizeof result->stderr_tail;
    if (n > max) {
        bytes += n - max;
        n = max;
    }
    size_t keep = result->stderr_tail_len + n > max ? max - n : result->stderr_tail_len;
    memmove(result->stderr_tail, result->stderr_tail + result->stderr_tail_len - keep, keep);
    memcpy(result->stderr_tail + keep, bytes, n);
    result->stderr_tail_len = keep + n;
}

enum pumped { PUMPED_DATA, PUMPED_NOTHING, PUMPED_END };

/* Relay what the pipe holds now. */
static enum pumped pump(lcsb__capture *c, int relay_fd, lcsb_run_result *result) {
    char buf[16384];
    ssize_t n = read(c->out[0], buf, sizeof buf);
    if (n < 0) return errno == EINTR || errno == EAGAIN ? PUMPED_NOTHING : PUMPED_END;
    if (n == 0) return PUMPED_END;
    keep_tail(result, buf, (size_t)n);
    for (ssize_t done = 0; c->relaying && done < n;) {
        ssize_t w = write(relay_fd, buf + done, (size_t)(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) { /* a non-blocking stderr: wait for room, lose nothing */
            struct pollfd out = {.fd = relay_fd, .events = POLLOUT};
            if (poll(&out, 1, -1) >= 0 || errno == EINTR) continue;
        }
        if (w <= 0)
            c->relaying = false; /* the caller's stderr is gone: keep the tail only */
        else
            done += w;
    }
    return PUMPED_DATA;
}

int lcsb__capture_wait(lcsb__capture *c, pid_t pid, int relay_fd, int *wstatus,
                       lcsb_run_result *result) {
    bool open = c->out[0] >= 0, recording = c->record >= 0;
    c->relaying = relay_fd >= 0;
    /* SIGCHLD is how the exit is heard: a caller that blocks it must not
     * leave lcsb waiting. Polls are bounded too, whatever else fails. */
    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_UNBLOCK, &chld, &old);
    int rc = 0;
    int64_t records_due = 0; /* when the recorder's pipe is polled again */
    for (;;) {
        int64_t wait_records = recording ? records_due - lcsb__now_ms() : 0;
        bool records_now = recording && wait_records <= 0;
        /* A pipe that ended, or rests, is polled as -1, which poll passes over. */
        struct pollfd fds[3] = {{.fd = c->note[0], .events = POLLIN},
                                {.fd = open ? c->out[0] : -1, .events = POLLIN},
                                {.fd = records_now ? c->record : -1, .events = POLLIN}};
        int timeout = open || recording ? 1000 : 100;
        if (recording && !records_now && wait_records < timeout) timeout = (int)wait_records;
        int n = poll(fds, 3, timeout);
        if (n < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        if (open && n > 0 && fds[1].revents) open = pump(c, relay_fd, result) != PUMPED_END;
        if (records_now && n > 0 && fds[2].revents) {
            recording = read_records(c);
            records_due = lcsb__now_ms() + RECORD_PAUSE_MS;
        }
        char drain[64];
        while (read(c->note[0], drain, sizeof drain) > 0) {
        }
        pid_t done = waitpid(pid, wstatus, WNOHANG);
        if (done < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        if (done == pid) break;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc) return rc;
    /* The command is gone; what it wrote before it went is still relayed,
     * without waiting on a pipe something it left behind may hold open. */
    int flags = fcntl(c->out[0], F_GETFL);
    if (open && flags >= 0 && fcntl(c->out[0], F_SETFL, flags | O_NONBLOCK) == 0)
        while (pump(c, relay_fd, result) == PUMPED_DATA) {
        }
    if (recording) read_records(c);
    return 0;
}
