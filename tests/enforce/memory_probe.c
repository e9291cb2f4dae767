/* The attacks of test_sandbox_enforce_memory.c on limits.memory, as one
 * program the policy names in its exec list: `memory_probe VERB ARGS...`.
 * Each verb tries to hold more memory than a process's address space limit
 * (RLIMIT_AS) would ever see: in a memfd it never maps, in SysV shared
 * memory segments it attaches, fills and detaches, in many processes at
 * once. It prints "probe: VERB" (so that the test knows it ran), then
 * "held N MiB" each time it holds N MiB more (so that the test knows how
 * far it got, even when the kernel kills it), then one last line, and exits
 * 0 when it held all it was asked to, 1 when something refused it. What it
 * made it lets go of before it exits: under --backend none the segments
 * would outlive it in the host's IPC namespace. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

#define MIB (1024L * 1024L)
/* How often progress is said, in MiB. */
#define STEP 4

static char errbuf[256];

/* "ENOSPC (No space left on device)" for errno E. */
static const char *err_name(int e) {
    const char *name = strerrorname_np(e);
    snprintf(errbuf, sizeof errbuf, "%s (%s)", name ? name : "?", strerror(e));
    return errbuf;
}

static void sleep_ms(long ms) {
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

static void held(long mib) {
    if (mib % STEP == 0) printf("held %ld MiB\n", mib);
}

/* memfd MIB: MIB MiB written into one memfd (sealed against exec, as the
 * sandbox demands), never mapped. */
static int memfd(int argc, char **argv) {
    if (argc < 1) return 2;
    long want = atol(argv[0]);
    static char chunk[MIB];
    memset(chunk, 0x5a, sizeof chunk);
    int fd = memfd_create("memory_probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
    if (fd < 0) {
        printf("memfd_create: %s\n", err_name(errno));
        return 1;
    }
    for (long mib = 0; mib < want; held(++mib)) {
        if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk) {
            printf("memfd: stopped at %ld MiB: %s\n", mib, err_name(errno));
            return 1;
        }
    }
    printf("memfd: held %ld MiB\n", want);
    close(fd);
    return 0;
}

/* shm MIB SEGMENT: MIB MiB in SysV segments of SEGMENT MiB each, every one
 * attached, filled, detached and kept; then all of them removed. */
static int shm(int argc, char **argv) {
    if (argc < 2) return 2;
    long want = atol(argv[0]), segment = atol(argv[1]);
    if (segment < 1 || want / segment > 4096) return 2;
    int ids[4096], made = 0, status = 0;
    long mib = 0;
    while (mib < want) {
        int id = shmget(IPC_PRIVATE, (size_t)(segment * MIB), IPC_CREAT | 0600);
        if (id < 0) {
            printf("shm: stopped at %ld MiB: shmget: %s\n", mib, err_name(errno));
            status = 1;
            break;
        }
        ids[made++] = id;
        char *at = shmat(id, NULL, 0);
        if (at == (void *)-1) {
            printf("shm: stopped at %ld MiB: shmat: %s\n", mib, err_name(errno));
            status = 1;
            break;
        }
        for (long i = 0; i < segment; i++) {
            memset(at + i * MIB, 0x5a, MIB);
            held(++mib);
        }
        shmdt(at);
    }
    if (!status) printf("shm: held %ld MiB in %d segments\n", mib, made);
    for (int i = 0; i < made; i++) shmctl(ids[i], IPC_RMID, NULL);
    return status;
}

/* procs N MIB: N processes, each touching MIB MiB of its own memory, held at
 * the same time; then all of them let go. Each counts the MiB it touched in
 * memory they share; the sum, read while every one of them is still
 * running, is what they held at once. (The kernel may be freeing a process
 * it killed a moment before that shows: a count under a limit is close,
 * not exact; the host's own count is the suite's.) */
static int procs(int argc, char **argv) {
    if (argc < 2) return 2;
    int n = atoi(argv[0]);
    long each = atol(argv[1]);
    if (n < 1 || n > 64) return 2;
    long *count =
        mmap(NULL, 64 * sizeof *count, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int gate[2];
    pid_t pids[64];
    if (count == MAP_FAILED || pipe(gate) != 0) return 2;
    fflush(stdout);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            close(gate[1]);
            char *mem = mmap(NULL, (size_t)(each * MIB), PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (mem == MAP_FAILED) _exit(3);
            for (long k = 0; k < each; k++) {
                memset(mem + k * MIB, 0x5a, MIB);
                __atomic_fetch_add(&count[i], 1, __ATOMIC_SEQ_CST);
            }
            char byte;
            (void)!read(gate[0], &byte, 1); /* until the parent lets go */
            _exit(0);
        }
        if (pids[i] < 0) {
            printf("procs: fork: %s\n", err_name(errno));
            n = i;
            break;
        }
    }
    close(gate[0]);
    long target = (long)n * each, said = 0, at_once = 0;
    int status = 0;
    time_t deadline = time(NULL) + 60;
    while (at_once < target && time(NULL) < deadline) {
        long sum = 0;
        for (int i = 0; i < n; i++) sum += __atomic_load_n(&count[i], __ATOMIC_SEQ_CST);
        /* Counted, and still running after: held then. */
        siginfo_t info = {0};
        if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
            printf("procs: stopped at %ld MiB held at once: a process %s %d\n", at_once,
                   info.si_code == CLD_EXITED ? "exited" : "died of signal", info.si_status);
            status = 1;
            break;
        }
        at_once = sum;
        for (; said + STEP <= at_once; said += STEP) printf("held %ld MiB\n", said + STEP);
        sleep_ms(5);
    }
    if (!status && at_once < target) {
        printf("procs: stopped at %ld MiB held at once: out of time\n", at_once);
        status = 1;
    }
    if (!status) printf("procs: held %ld MiB at once in %d processes\n", target, n);
    close(gate[1]);
    for (int i = 0; i < n; i++) waitpid(pids[i], NULL, 0);
    return status;
}

/* new-ipc: an IPC namespace of its own, in a user namespace of its own,
 * would start again from the kernel's limits, none of them the sandbox's.
 * Says whether one could be made, and its shmall. */
static int new_ipc(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWIPC) != 0) {
            printf("new-ipc: %s\n", err_name(errno));
            _exit(1);
        }
        char text[64] = "";
        FILE *f = fopen("/proc/sys/kernel/shmall", "re");
        if (f && !fgets(text, sizeof text, f)) text[0] = '\0';
        if (f) fclose(f);
        text[strcspn(text, "\n")] = '\0';
        printf("new-ipc: ok, shmall %s\n", text);
        _exit(0);
    }
    int ws;
    if (pid < 0 || waitpid(pid, &ws, 0) != pid) return 2;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 2;
}

/* raise-shm: the IPC namespace's limits opened for writing (nothing is
 * written: under none, as root, they are the host's). */
static int raise_shm(int argc, char **argv) {
    (void)argc;
    (void)argv;
    int fd = open("/proc/sys/kernel/shmall", O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        printf("raise-shm: %s\n", err_name(errno));
        return 1;
    }
    close(fd);
    printf("raise-shm: open for writing\n");
    return 0;
}

/* ipc-limits: the IPC namespace's limits, as the command sees them. */
static int ipc_limits(int argc, char **argv) {
    (void)argc;
    (void)argv;
    static const char *const names[] = {"shmmax", "shmall", "shmmni", "msgmni", "sem"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[64], text[128] = "";
        snprintf(path, sizeof path, "/proc/sys/kernel/%s", names[i]);
        FILE *f = fopen(path, "re");
        if (f && !fgets(text, sizeof text, f)) text[0] = '\0';
        if (f) fclose(f);
        text[strcspn(text, "\n")] = '\0';
        for (char *tab = strchr(text, '\t'); tab; tab = strchr(tab, '\t')) *tab = ' ';
        printf("%s=%s\n", names[i], text);
    }
    return 0;
}

int main(int argc, char **argv) {
    static const struct {
        const char *verb;
        int (*run)(int argc, char **argv);
    } verbs[] = {{"memfd", memfd},         {"shm", shm},
                 {"procs", procs},         {"new-ipc", new_ipc},
                 {"raise-shm", raise_shm}, {"ipc-limits", ipc_limits}};
    setvbuf(stdout, NULL, _IONBF, 0);
    for (size_t i = 0; argc > 1 && i < sizeof verbs / sizeof verbs[0]; i++)
        if (strcmp(argv[1], verbs[i].verb) == 0) {
            printf("probe: %s\n", argv[1]); /* it ran, whatever it meets next */
            return verbs[i].run(argc - 2, argv + 2);
        }
    fprintf(stderr, "usage: memory_probe VERB ARGS... (see the source)\n");
    return 2;
}
