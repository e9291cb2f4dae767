/* The attacks of test_sandbox_enforce_isolation.c, as one program the policy
 * names in its exec list: `isolation_probe VERB ARGS...`. Each verb tries one
 * thing a command might do to reach past its sandbox; it prints "probe: VERB"
 * (so that the test knows it ran), then one line per observation ("WHAT:
 * RESULT", an errno as its name and message), and exits 0 when the attempt
 * succeeded, 1 when something refused it. Nothing it starts lives forever:
 * whatever it leaves running stops when DIR/stop appears, when DIR is gone,
 * or after a minute. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIFETIME_SECONDS 60

static char errbuf[256];

/* "ENOENT (No such file or directory)" for errno E. */
static const char *err_name(int e) {
    const char *name = strerrorname_np(e);
    snprintf(errbuf, sizeof errbuf, "%s (%s)", name ? name : "?", strerror(e));
    return errbuf;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

static char *path_of(char *buf, size_t size, const char *dir, const char *leaf) {
    /* A path too long to hold names nothing: the probe's directories are short. */
    if ((size_t)snprintf(buf, size, "%s/%s", dir, leaf) >= size) buf[0] = '\0';
    return buf;
}

/* Is it time to go: DIR/stop exists, DIR is gone, or DEADLINE passed? */
static bool told_to_stop(const char *dir, double deadline) {
    char stop[4096];
    struct stat st;
    return stat(dir, &st) != 0 || stat(path_of(stop, sizeof stop, dir, "stop"), &st) == 0 ||
           now() > deadline;
}

static void quiet_stdio(void) {
    int null = open("/dev/null", O_RDWR);
    if (null < 0) _exit(1);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    if (null > 2) close(null);
}

/* ---- chain: three daemons that re-spawn whichever of them dies ---- */

/* Member I holds an exclusive lock on DIR/lock.I while it lives (a lock that
 * can be taken is a member that is gone), writes its pid to DIR/pid.I, and
 * appends its digit to DIR/heartbeat every 50 ms. */
static double chain_deadline; /* shared by every member: the chain does end */
static int my_lock = -1;

static int lock_fd(const char *dir, int i) {
    char leaf[32], path[4096];
    snprintf(leaf, sizeof leaf, "lock.%d", i);
    return open(path_of(path, sizeof path, dir, leaf), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

static bool member_alive(const char *dir, int i) {
    int fd = lock_fd(dir, i);
    if (fd < 0) return true; /* cannot tell: do not re-spawn */
    bool alive = flock(fd, LOCK_EX | LOCK_NB) != 0;
    close(fd); /* drops the lock if it was taken */
    return alive;
}

static void member(const char *dir, int me);

/* Start member I as a daemon: fork, setsid, fork again, the middle one exits. */
static void spawn_member(const char *dir, int i) {
    pid_t pid = fork();
    if (pid < 0) return;
    if (pid == 0) {
        setsid();
        pid_t again = fork();
        if (again == 0) {
            if (my_lock >= 0) close(my_lock);
            my_lock = -1;
            quiet_stdio();
            member(dir, i);
        }
        _exit(0);
    }
    waitpid(pid, NULL, 0);
}

static void member(const char *dir, int me) {
    my_lock = lock_fd(dir, me);
    if (my_lock < 0 || flock(my_lock, LOCK_EX | LOCK_NB) != 0) _exit(0); /* one is there */
    char leaf[32], path[4096];
    snprintf(leaf, sizeof leaf, "pid.%d", me);
    FILE *pid = fopen(path_of(path, sizeof path, dir, leaf), "we");
    if (pid) {
        fprintf(pid, "%d\n", (int)getpid());
        fclose(pid);
    }
    char beat[4096];
    path_of(beat, sizeof beat, dir, "heartbeat");
    char mark = (char)('0' + me);
    for (;;) {
        if (told_to_stop(dir, chain_deadline)) _exit(0);
        int fd = open(beat, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (write(fd, &mark, 1) != 1) {
            }
            close(fd);
        }
        for (int k = 0; k < 3; k++)
            if (k != me && !member_alive(dir, k)) spawn_member(dir, k);
        sleep_ms(50);
    }
}

/* chain DIR [wait]: start the three, see them beat, then exit 0 (or, with
 * "wait", stay in the foreground until told to stop). */
static int chain(int argc, char **argv) {
    if (argc < 1) return 2;
    const char *dir = argv[0];
    chain_deadline = now() + LIFETIME_SECONDS;
    for (int i = 0; i < 3; i++) spawn_member(dir, i);
    char beat[4096];
    path_of(beat, sizeof beat, dir, "heartbeat");
    struct stat st;
    for (int k = 0; k < 300 && (stat(beat, &st) != 0 || st.st_size < 6); k++) sleep_ms(10);
    if (stat(beat, &st) != 0 || st.st_size < 6) {
        printf("chain: no heartbeat\n");
        return 1;
    }
    printf("chain started\n");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "wait") == 0)
        while (!told_to_stop(dir, chain_deadline)) sleep_ms(100);
    return 0;
}

/* ---- SysV IPC and POSIX message queues made outside ---- */

struct msg {
    long type;
    char text[128];
};

/* ipc SHMKEY MSGKEY MQNAME: read what the outside left in each (and put the
 * messages back). */
static int ipc(int argc, char **argv) {
    if (argc < 3) return 2;
    key_t shm_key = (key_t)strtol(argv[0], NULL, 0), msg_key = (key_t)strtol(argv[1], NULL, 0);
    int read_all = 0;
    int id = shmget(shm_key, 0, 0);
    if (id < 0) {
        printf("shm: shmget: %s\n", err_name(errno));
    } else {
        const char *p = shmat(id, NULL, SHM_RDONLY);
        if (p == (void *)-1) {
            printf("shm: shmat: %s\n", err_name(errno));
        } else {
            printf("shm: read %.64s\n", p);
            shmdt(p);
            read_all++;
        }
    }
    id = msgget(msg_key, 0);
    if (id < 0) {
        printf("msg: msgget: %s\n", err_name(errno));
    } else {
        struct msg m;
        ssize_t n = msgrcv(id, &m, sizeof m.text - 1, 0, IPC_NOWAIT);
        if (n < 0) {
            printf("msg: msgrcv: %s\n", err_name(errno));
        } else {
            m.text[n] = '\0';
            printf("msg: read %s\n", m.text);
            msgsnd(id, &m, (size_t)n, IPC_NOWAIT);
            read_all++;
        }
    }
    mqd_t q = mq_open(argv[2], O_RDWR | O_NONBLOCK);
    if (q == (mqd_t)-1) {
        printf("mq: mq_open: %s\n", err_name(errno));
    } else {
        char text[8192];
        unsigned prio;
        ssize_t n = mq_receive(q, text, sizeof text - 1, &prio);
        if (n < 0) {
            printf("mq: mq_receive: %s\n", err_name(errno));
        } else {
            text[n] = '\0';
            printf("mq: read %s\n", text);
            mq_send(q, text, (size_t)n, prio);
            read_all++;
        }
        mq_close(q);
    }
    return read_all == 3 ? 0 : 1;
}

/* ---- running code from memory ---- */

/* memfd PAYLOAD: copy PAYLOAD (a static program outside the exec list) into a
 * memfd made as an attacker would (no flags), and run it from there, by
 * execveat(AT_EMPTY_PATH) and by execve("/proc/self/fd/N"). */
static int memfd(int argc, char **argv) {
    if (argc < 1) return 2;
    int src = open(argv[0], O_RDONLY | O_CLOEXEC);
    if (src < 0) {
        printf("open payload: %s\n", err_name(errno));
        return 1;
    }
    int fd = (int)syscall(SYS_memfd_create, "payload", 0u);
    if (fd < 0) {
        printf("memfd_create: %s\n", err_name(errno));
        return 1;
    }
    char buf[65536];
    ssize_t n;
    while ((n = read(src, buf, sizeof buf)) > 0)
        if (write(fd, buf, (size_t)n) != n) {
            printf("write memfd: %s\n", err_name(errno));
            return 1;
        }
    close(src);
    int ran = 0;
    for (int how = 0; how < 2; how++) {
        char self_fd[64];
        snprintf(self_fd, sizeof self_fd, "/proc/self/fd/%d", fd);
        char *args[] = {"payload", how == 0 ? "execveat" : "/proc/self/fd", NULL};
        pid_t pid = fork();
        if (pid == 0) {
            extern char **environ;
            if (how == 0)
                syscall(SYS_execveat, fd, "", args, environ, AT_EMPTY_PATH);
            else
                execve(self_fd, args, environ);
            printf("%s: %s\n", how == 0 ? "execveat" : self_fd, err_name(errno));
            _exit(1);
        }
        int status;
        if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0)
            ran++;
    }
    return ran == 2 ? 0 : 1;
}

/* exec PATH: run PATH itself. */
static int exec_path(int argc, char **argv) {
    if (argc < 1) return 2;
    char *args[] = {argv[0], "direct", NULL};
    execv(argv[0], args);
    printf("execve %s: %s\n", argv[0], err_name(errno));
    return 1;
}

/* ---- the caller's keyrings ---- */

/* key-read DESC SERIAL: find the user key DESC from the session keyring, and
 * read key SERIAL. */
static int key_read(int argc, char **argv) {
    if (argc < 2) return 2;
    long found = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, "user", argv[0], 0);
    if (found < 0)
        printf("search @s: %s\n", err_name(errno));
    else
        printf("search @s: found %ld\n", found);
    char buf[256];
    long n = syscall(SYS_keyctl, KEYCTL_READ, strtol(argv[1], NULL, 10), buf, sizeof buf - 1);
    if (n < 0) {
        printf("read %s: %s\n", argv[1], err_name(errno));
        return 1;
    }
    buf[n < (long)sizeof buf ? n : (long)sizeof buf - 1] = '\0';
    printf("read %s: %s\n", argv[1], buf);
    return found < 0 ? 1 : 0;
}

/* key-add DESC: plant user keys DESC.s in the session keyring and DESC.u in
 * the user keyring. */
static int key_add(int argc, char **argv) {
    if (argc < 1) return 2;
    int added = 0;
    static const struct {
        const char *suffix;
        long ring;
    } rings[] = {{"s", KEY_SPEC_SESSION_KEYRING}, {"u", KEY_SPEC_USER_KEYRING}};
    for (int i = 0; i < 2; i++) {
        char desc[256];
        snprintf(desc, sizeof desc, "%s.%s", argv[0], rings[i].suffix);
        long serial = syscall(SYS_add_key, "user", desc, "planted", 7, rings[i].ring);
        if (serial < 0) {
            printf("add %s: %s\n", desc, err_name(errno));
        } else {
            printf("add %s: %ld\n", desc, serial);
            added++;
        }
    }
    return added == 2 ? 0 : 1;
}

/* ---- the process list ---- */

/* The start time of PID (field 22 of /proc/PID/stat), or 0. */
static unsigned long long start_time(const char *pid) {
    char path[64], stat[4096];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) return 0;
    stat[n] = '\0';
    const char *p = strrchr(stat, ')');
    if (!p) return 0;
    /* Each space after the ")" that closes field 2 starts the next field. */
    for (int field = 2; field < 22 && p; field++) p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* proc NEKOT PID: every command line in /proc, looking for the token spelled
 * backwards in NEKOT (so that no command line of this run holds it); whether
 * PID is listed; and when /proc/1 started. */
static int proc(int argc, char **argv) {
    if (argc < 2) return 2;
    size_t len = strlen(argv[0]);
    char token[256];
    if (len >= sizeof token) return 2;
    for (size_t i = 0; i < len; i++) token[i] = argv[0][len - 1 - i];
    token[len] = '\0';
    DIR *d = opendir("/proc");
    if (!d) {
        printf("opendir /proc: %s\n", err_name(errno));
        return 1;
    }
    int pids = 0, seen = 0;
    bool self_listed = false, pid_listed = false;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        pids++;
        if (atol(e->d_name) == (long)getpid()) self_listed = true;
        if (strcmp(e->d_name, argv[1]) == 0) pid_listed = true;
        char path[300], cmdline[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = read(fd, cmdline, sizeof cmdline - 1);
        close(fd);
        if (n <= 0) continue;
        for (ssize_t i = 0; i < n; i++)
            if (cmdline[i] == '\0') cmdline[i] = ' ';
        cmdline[n] = '\0';
        if (strstr(cmdline, token)) {
            printf("token in pid %s: %s\n", e->d_name, cmdline);
            seen++;
        }
    }
    closedir(d);
    printf("pids: %d\nself listed: %s\n", pids, self_listed ? "yes" : "no");
    printf("pid %s listed: %s\n", argv[1], pid_listed ? "yes" : "no");
    printf("init-start: %llu\n", start_time("1"));
    return seen ? 0 : 1;
}

/* ---- unix sockets ---- */

/* connect PATH: connect to the pathname socket and read its greeting. */
static int connect_to(int argc, char **argv) {
    if (argc < 1) return 2;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(argv[0]) >= sizeof a.sun_path) return 2;
    strcpy(a.sun_path, argv[0]);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        printf("socket: %s\n", err_name(errno));
        return 1;
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        printf("connect %s: %s\n", argv[0], err_name(errno));
        return 1;
    }
    char buf[128];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    printf("connect %s: read %s\n", argv[0], buf);
    return n > 0 ? 0 : 1;
}

/* stat PATH */
static int stat_path(int argc, char **argv) {
    if (argc < 1) return 2;
    struct stat st;
    if (stat(argv[0], &st) != 0) {
        printf("stat %s: %s\n", argv[0], err_name(errno));
        return 1;
    }
    printf("stat %s: mode %o\n", argv[0], (unsigned)st.st_mode);
    return 0;
}

/* ---- limits ---- */

struct bomb_counts {
    int forks, refused;
};

/* bomb LOCKFILE MS CAP: a fork bomb that stops growing at CAP processes (the
 * test must not hurt a machine with no limit), whose every process holds a
 * shared lock on LOCKFILE (so the test can see whether any is left) and lives
 * on after the first one exits. After MS milliseconds the first one says how
 * many forks succeeded and how many the kernel refused, and exits 1 when any
 * was refused. */
static int bomb(int argc, char **argv) {
    if (argc < 3) return 2;
    int lock = open(argv[0], O_RDWR | O_CREAT, 0644);
    if (lock < 0 || flock(lock, LOCK_SH) != 0) {
        printf("lock %s: %s\n", argv[0], err_name(errno));
        return 2;
    }
    double deadline = now() + atol(argv[1]) / 1000.0;
    int cap = atoi(argv[2]);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", argv[0]);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    struct bomb_counts *c =
        mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (c == MAP_FAILED) return 2;
    fflush(stdout);
    pid_t first = fork();
    if (first == 0) {
        quiet_stdio();
        while (now() < deadline) {
            if (__atomic_load_n(&c->forks, __ATOMIC_SEQ_CST) >= cap) {
                sleep_ms(50);
                continue;
            }
            pid_t pid = fork();
            if (pid > 0)
                __atomic_fetch_add(&c->forks, 1, __ATOMIC_SEQ_CST);
            else if (pid < 0) {
                __atomic_fetch_add(&c->refused, 1, __ATOMIC_SEQ_CST);
                sleep_ms(10);
            }
        }
        /* Linger, so that whatever ends them is not their own exit. */
        while (!told_to_stop(dir, deadline + 20)) sleep_ms(100);
        _exit(0);
    }
    if (first < 0) {
        printf("fork: %s\n", err_name(errno));
        return 1;
    }
    while (now() < deadline) sleep_ms(20);
    int forks = __atomic_load_n(&c->forks, __ATOMIC_SEQ_CST);
    int refused = __atomic_load_n(&c->refused, __ATOMIC_SEQ_CST);
    printf("forks=%d refused=%d\n", forks, refused);
    return refused > 0 ? 1 : 0;
}

/* spawn N: start N sleeping children, then end them all. */
static int spawn(int argc, char **argv) {
    if (argc < 1) return 2;
    int n = atoi(argv[0]), made = 0, status = 0;
    pid_t *pids = calloc((size_t)n, sizeof *pids);
    if (!pids) return 2;
    fflush(stdout);
    for (; made < n; made++) {
        pids[made] = fork();
        if (pids[made] == 0) {
            pause();
            _exit(0);
        }
        if (pids[made] < 0) {
            printf("fork #%d: %s\n", made + 1, err_name(errno));
            status = 1;
            break;
        }
    }
    for (int i = 0; i < made; i++) kill(pids[i], SIGKILL);
    for (int i = 0; i < made; i++) waitpid(pids[i], NULL, 0);
    if (!status) printf("spawned %d\n", made);
    free(pids);
    return status;
}

/* open N: hold N descriptors open at once. */
static int open_many(int argc, char **argv) {
    if (argc < 1) return 2;
    int n = atoi(argv[0]);
    for (int i = 0; i < n; i++)
        if (open("/dev/null", O_RDONLY) < 0) {
            printf("open #%d: %s\n", i + 1, err_name(errno));
            return 1;
        }
    printf("opened %d\n", n);
    return 0;
}

/* alloc BYTES: allocate and touch BYTES. */
static int alloc(int argc, char **argv) {
    if (argc < 1) return 2;
    size_t n = strtoull(argv[0], NULL, 10);
    char *p = malloc(n);
    if (!p) {
        printf("malloc %zu: %s\n", n, err_name(errno));
        return 1;
    }
    for (size_t i = 0; i < n; i += 4096) p[i] = 1;
    printf("touched %zu\n", n);
    free(p);
    return 0;
}

/* trace-parent: seize the parent (the sandbox's init; lcsb itself under
 * none), then detach at once; and follow its descriptor 0 and its root.
 * What ends the run must be out of the command's reach. */
static int trace_parent(int argc, char **argv) {
    (void)argc, (void)argv;
    pid_t parent = getppid();
    char path[64];
    if (ptrace(PTRACE_SEIZE, parent, 0, 0) == 0) {
        printf("seize parent: ok\n");
        ptrace(PTRACE_DETACH, parent, 0, 0);
    } else {
        printf("seize parent: %s\n", err_name(errno));
    }
    static const char *const links[] = {"fd/0", "root"};
    for (size_t i = 0; i < 2; i++) {
        char target[256];
        snprintf(path, sizeof path, "/proc/%d/%s", (int)parent, links[i]);
        ssize_t n = readlink(path, target, sizeof target - 1);
        printf("parent %s: %s\n", links[i], n >= 0 ? "ok" : err_name(errno));
    }
    return 0;
}

/* sched-parent: what would starve the parent (the init that must reap), each
 * asked to keep what the parent has, so that the unsandboxed twin changes
 * nothing: its policy, its priority, its CPUs, and a read of its limits. */
static int sched_parent(int argc, char **argv) {
    (void)argc, (void)argv;
    pid_t parent = getppid();
    struct sched_param sp = {0};
    cpu_set_t cpus;
    struct rlimit core;
    errno = 0;
    int prio = getpriority(PRIO_PROCESS, (id_t)parent);
    int policy = sched_getscheduler(parent);
    printf("setscheduler: %s\n",
           policy >= 0 && sched_setscheduler(parent, policy, &sp) == 0 ? "ok" : err_name(errno));
    printf("setpriority: %s\n",
           setpriority(PRIO_PROCESS, (id_t)parent, prio) == 0 ? "ok" : err_name(errno));
    printf("setaffinity: %s\n",
           sched_getaffinity(parent, sizeof cpus, &cpus) == 0 &&
                   sched_setaffinity(parent, sizeof cpus, &cpus) == 0
               ? "ok"
               : err_name(errno));
    printf("prlimit: %s\n",
           prlimit(parent, RLIMIT_CORE, NULL, &core) == 0 ? "ok" : err_name(errno));
    return 0;
}

/* setxattrat FILE: a user xattr through setxattrat(2), which takes its
 * arguments in a struct. */
static int set_xattr_at(int argc, char **argv) {
    if (argc < 1) return 2;
    struct {
        uint64_t value;
        uint32_t size, flags;
    } args = {(uint64_t)(uintptr_t) "x", 1, 0};
    long rc = syscall(463, AT_FDCWD, argv[0], 0, "user.lcsb", &args, sizeof args);
    printf("setxattrat: %s\n", rc == 0 ? "ok" : err_name(errno));
    return 0;
}

int main(int argc, char **argv) {
    static const struct {
        const char *verb;
        int (*run)(int argc, char **argv);
    } verbs[] = {
        {"chain", chain},       {"ipc", ipc},         {"memfd", memfd}, {"exec", exec_path},
        {"key-read", key_read}, {"key-add", key_add}, {"proc", proc},   {"connect", connect_to},
        {"stat", stat_path},    {"bomb", bomb},       {"spawn", spawn}, {"open", open_many},
        {"alloc", alloc},       {"trace-parent", trace_parent},
        {"sched-parent", sched_parent}, {"setxattrat", set_xattr_at}};
    setvbuf(stdout, NULL, _IONBF, 0);
    for (size_t i = 0; argc > 1 && i < sizeof verbs / sizeof verbs[0]; i++)
        if (strcmp(argv[1], verbs[i].verb) == 0) {
            printf("probe: %s\n", argv[1]); /* it ran, whatever it meets next */
            return verbs[i].run(argc - 2, argv + 2);
        }
    fprintf(stderr, "usage: isolation_probe VERB ARGS... (see the source)\n");
    return 2;
}
