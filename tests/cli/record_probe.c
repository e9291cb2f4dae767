/* What test_record.sh asks of the recorder (shim/record.c) that no ordinary
 * program does in one place: the calls it wraps, each made to fail for
 * real, with what they returned printed so that a run with the recorder and
 * one without can be compared; and the ways a program takes descriptors
 * from under it (closefrom, close_range, a close of every number, dup2 onto
 * its number), each followed by a call that must still be recorded.
 *
 *     record_probe calls DIR          the wrapped calls on DIR's fixtures
 *     record_probe closefrom PATH     closefrom(3), then open PATH
 *     record_probe close_range PATH   close_range(3, ~0U, 0), then open PATH
 *     record_probe close PATH         close() of 3..1023, then open PATH
 *     record_probe dup2 PATH ARGV...  /dev/null dup2'd onto the recorder's
 *                                     number, open PATH, then exec ARGV
 *     record_probe vfork PATH         a vfork child's execv of PATH
 *     record_probe execveat DIR NAME  execveat of NAME from DIR's descriptor
 *     record_probe flood N DIR        N failing opens of distinct names
 *
 * DIR's fixtures (made by the test): secret and at/secret (mode 000),
 * ro/ (mode 555) holding file and sub/, closed/ (mode 000), rootfile (a
 * file of another user's, or a link to one). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *call, long r) { printf("%s %ld %d\n", call, r, r < 0 ? errno : 0); }

static void show_ptr(const char *call, const void *p) {
    printf("%s %s %d\n", call, p ? "ok" : "null", p ? 0 : errno);
}

static char *at(const char *dir, const char *name) {
    static char paths[32][4096];
    static int next;
    char *p = paths[next++ % 32];
    snprintf(p, 4096, "%s/%s", dir, name);
    return p;
}

static int calls(const char *dir) {
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
    int atfd = open(at(dir, "at"), O_RDONLY | O_DIRECTORY);
    struct stat st;
    struct timeval tv[2] = {{0, 0}, {0, 0}};
    char *const argv[] = {"secret", NULL};

    errno = 0;
    show("open", open(at(dir, "secret"), O_RDONLY));
    show("open-create", open(at(dir, "ro/new"), O_WRONLY | O_CREAT, 0644));
    show("openat", openat(atfd, "secret", O_RDONLY));
    show("creat", creat(at(dir, "ro/creat"), 0644));
    show_ptr("fopen", fopen(at(dir, "secret"), "r"));
    show_ptr("fopen-w", fopen(at(dir, "ro/fopen"), "we"));
    show_ptr("opendir", opendir(at(dir, "closed")));
    show("mkdir", mkdir(at(dir, "ro/mkdir"), 0755));
    show("mkdirat", mkdirat(dirfd, "ro/mkdirat", 0755));
    show("unlink", unlink(at(dir, "ro/file")));
    show("unlinkat", unlinkat(dirfd, "ro/sub", AT_REMOVEDIR));
    show("rmdir", rmdir(at(dir, "ro/sub")));
    show("rename", rename(at(dir, "ro/file"), at(dir, "renamed")));
    show("renameat", renameat(dirfd, "ro/file", dirfd, "renamed"));
    show("link", link(at(dir, "rootfile"), at(dir, "ro/link")));
    show("symlink", symlink("anything", at(dir, "ro/symlink")));
    show("truncate", truncate(at(dir, "secret"), 0));
    show("chmod", chmod(at(dir, "rootfile"), 0777));
    show("fchmodat", fchmodat(dirfd, "rootfile", 0777, 0));
    show("chown", chown(at(dir, "rootfile"), getuid(), getgid()));
    show("utimes", utimes(at(dir, "rootfile"), tv));
    show("mkfifo", mkfifo(at(dir, "ro/fifo"), 0644));
    show("mknod", mknod(at(dir, "ro/node"), S_IFIFO | 0644, 0));
    show("stat", stat(at(dir, "closed/x"), &st));
    show("access", access(at(dir, "secret"), R_OK));
    show("access-x", access(at(dir, "secret"), X_OK));
    show("execve", execve(at(dir, "secret"), argv, environ));
    show("execv-relative", execv("secret", argv));
    return 0;
}

static int open_after(const char *what, const char *path) {
    int fd = open(path, O_RDONLY);
    printf("%s open %d %d\n", what, fd, fd < 0 ? errno : 0);
    return 0;
}

int main(int argc, char **argv) {
    const char *recorder = getenv("LCSB_RECORD_FD");
    int fd = recorder ? atoi(recorder) : -1;

    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc >= 3 && strcmp(argv[1], "calls") == 0) {
        if (chdir(argv[2]) != 0) return 2;
        return calls(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "closefrom") == 0) {
        closefrom(3);
        return open_after("closefrom", argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "close_range") == 0) {
        printf("close_range %d\n", close_range(3, ~0U, 0));
        return open_after("close_range", argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "close") == 0) {
        int answer = -2;
        for (int i = 3; i < 1024; i++) {
            int r = close(i);
            if (i == fd) answer = r;
        }
        printf("close of the recorder's %d\n", answer);
        return open_after("close", argv[2]);
    }
    if (argc >= 4 && strcmp(argv[1], "dup2") == 0) {
        int null = open("/dev/null", O_WRONLY);
        struct stat st;
        if (fd < 3 || dup2(null, fd) != fd || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) return 3;
        printf("moved %s\n", strcmp(getenv("LCSB_RECORD_FD"), recorder) != 0 ? "yes" : "no");
        open_after("dup2", argv[2]);
        execvp(argv[3], argv + 3);
        return 4;
    }
    if (argc == 3 && strcmp(argv[1], "vfork") == 0) {
        int status;
        char *const args[] = {argv[2], NULL};
        pid_t pid = vfork();
        if (pid == 0) {
            execv(argv[2], args);
            _exit(errno);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid) return 5;
        printf("vfork child %d\n", WEXITSTATUS(status));
        return open_after("vfork", argv[2]);
    }
    if (argc == 4 && strcmp(argv[1], "execveat") == 0) {
        int dirfd = open(argv[2], O_PATH | O_DIRECTORY);
        char *const args[] = {argv[3], NULL};
        show("execveat", execveat(dirfd, argv[3], args, environ, 0));
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "flood") == 0) {
        int n = atoi(argv[2]), refused = 0;
        for (int i = 0; i < n; i++) {
            char name[64];
            snprintf(name, sizeof name, "name-%d", i);
            refused += open(at(argv[3], name), O_RDONLY) < 0 && errno == EACCES;
        }
        printf("refused %d\n", refused);
        return 0;
    }
    fprintf(stderr, "record_probe: usage: see the comment at the top of tests/cli/record_probe.c\n");
    return 2;
}
