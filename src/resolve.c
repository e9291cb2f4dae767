/* Program resolution for the exec allowlist: a name on PATH becomes the
 * regular files the kernel will execute for it. Landlock checks EXECUTE on the
 * program and on the interpreter the kernel loads for it (ELF PT_INTERP, `#!`),
 * so both must be granted, each as a resolved file. Reads files. */
#include "resolve.h"

#include "facts.h"
#include "sys.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How much of a program is read at first: its ELF headers and interpreter,
 * or its #! line, lie within it but for odd files, which are read again. */
#define HEAD 4096
/* The most of a program read to find its interpreter. */
#define HEAD_MAX (1 << 20)

/* Does the PATH entry DIR (LEN bytes) surely hold no NAME? A small
 * directory's listing says so at once, where asking for the name would be an
 * lstat for each of a preset's programs. */
static bool surely_absent(lcsb__facts *f, const char *dir, size_t len, const char *name) {
    char at[PATH_MAX];
    if (len >= sizeof at) return false;
    memcpy(at, dir, len);
    at[len] = '\0';
    return lcsb__facts_dir_has(f, at, name) == 0;
}

/* Find NAME the way execvp does (absolute PATH entries only); a name with a
 * slash is taken as a path. */
static int locate(lcsb__facts *f, const char *name, char *out, lcsb_error *err) {
    if (!*name) return lcsb__fail(err, LCSB_EINVAL, "exec: empty program name");
    if (strchr(name, '/')) {
        if (snprintf(out, PATH_MAX, "%s", name) >= PATH_MAX)
            return lcsb__fail(err, LCSB_EINVAL, "exec: %s: path too long", name);
        return 0;
    }
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : ""; *dir;) {
        size_t len = strcspn(dir, ":");
        struct stat st;
        if (dir[0] == '/' && !surely_absent(f, dir, len, name) &&
            (size_t)snprintf(out, PATH_MAX, "%.*s/%s", (int)len, dir, name) < PATH_MAX &&
            lcsb__facts_stat(f, out, &st) == 0 && S_ISREG(st.st_mode) &&
            lcsb__facts_executable(f, out))
            return 0;
        dir += len + (dir[len] == ':');
    }
    return lcsb__fail(err, LCSB_EINVAL, "exec: %s: not found on PATH", name);
}

/* LEN bytes at OFF of the head H (GOT bytes long) into OUT: false when the
 * head is too short, and *NEED then says how much of it would do. */
static bool take(const char *h, size_t got, uint64_t off, size_t len, void *out, uint64_t *need) {
    if (off > HEAD_MAX || len > HEAD_MAX || off + len > got) {
        if (off + len > *need) *need = off + len;
        return false;
    }
    memcpy(out, h + off, len);
    return true;
}

/* The ELF PT_INTERP in the head H (GOT bytes) into OUT: 1 found, 0 none
 * (static or not ELF), -1 when more of the file is needed (*NEED bytes). */
static int elf_interp(const char *h, size_t got, char *out, uint64_t *need) {
    unsigned char ident[EI_NIDENT];
    if (!take(h, got, 0, sizeof ident, ident, need) || memcmp(ident, ELFMAG, SELFMAG) != 0)
        return 0;
    bool is64 = ident[EI_CLASS] == ELFCLASS64;
    Elf64_Ehdr eh;
    Elf32_Ehdr eh32;
    uint64_t phoff;
    unsigned phnum, phentsize;
    if (is64) {
        if (!take(h, got, 0, sizeof eh, &eh, need)) return got < sizeof eh ? 0 : -1;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    } else {
        if (!take(h, got, 0, sizeof eh32, &eh32, need)) return got < sizeof eh32 ? 0 : -1;
        phoff = eh32.e_phoff, phnum = eh32.e_phnum, phentsize = eh32.e_phentsize;
    }
    if (phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || phnum > 4096) return 0;
    for (unsigned i = 0; i < phnum; i++) {
        uint64_t type, offset, size;
        uint64_t at = phoff + (uint64_t)i * phentsize;
        if (is64) {
            Elf64_Phdr ph;
            if (!take(h, got, at, sizeof ph, &ph, need)) return -1;
            type = ph.p_type, offset = ph.p_offset, size = ph.p_filesz;
        } else {
            Elf32_Phdr ph;
            if (!take(h, got, at, sizeof ph, &ph, need)) return -1;
            type = ph.p_type, offset = ph.p_offset, size = ph.p_filesz;
        }
        if (type != PT_INTERP) continue;
        if (size < 2 || size >= PATH_MAX) return 0;
        if (!take(h, got, offset, size, out, need)) return -1;
        out[size - 1] = '\0';
        return out[0] == '/' ? 1 : 0;
    }
    return 0;
}

/* The `#!` line of the head H (GOT bytes): the interpreter path into INTERP
 * and, for env, the program it will look up into ENV_PROGRAM. 1 found, 0 none. */
static int shebang(const char *h, size_t got, char *interp, char *env_program) {
    char line[PATH_MAX];
    size_t n = got < sizeof line - 1 ? got : sizeof line - 1;
    if (n < 3 || h[0] != '#' || h[1] != '!') return 0;
    memcpy(line, h, n);
    line[n] = '\0';
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    char *save = NULL;
    char *word = strtok_r(line + 2, " \t", &save);
    if (!word || word[0] != '/') return 0;
    snprintf(interp, PATH_MAX, "%s", word);
    env_program[0] = '\0';
    const char *base = strrchr(interp, '/') + 1;
    if (strcmp(base, "env") == 0) {
        bool options = true;
        while ((word = strtok_r(NULL, " \t", &save))) {
            /* env's options that take the next word (-u NAME, -C DIR): that
             * word is no program, whatever it looks like. */
            if (options && (strcmp(word, "-u") == 0 || strcmp(word, "-C") == 0 ||
                            strcmp(word, "--unset") == 0 || strcmp(word, "--chdir") == 0)) {
                if (!strtok_r(NULL, " \t", &save)) break;
                continue;
            }
            if (options && strcmp(word, "--") == 0) {
                options = false;
                continue;
            }
            if ((options && word[0] == '-') || strchr(word, '=')) continue; /* -S, NAME=VALUE */
            snprintf(env_program, PATH_MAX, "%s", word);
            break;
        }
    }
    return 1;
}

/* NAME's files into OUT; LOCATED, when given, receives where NAME itself
 * was found (the path as named, or the PATH entry's). */
static int resolve_into(lcsb__facts *f, const char *name, lcsb__strv *out, int depth, char *located,
                        lcsb_error *err) {
    char found[PATH_MAX], real[PATH_MAX], interp[PATH_MAX], env_program[PATH_MAX];
    if (depth > 8)
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s: interpreters nest too deep", name);
    int rc = locate(f, name, found, err);
    if (rc) return rc;
    if (located) memcpy(located, found, strlen(found) + 1);
    if (!lcsb__facts_realpath(f, found, real))
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s: %s", found, strerror(errno));
    if (lcsb__strv_has(out, real)) return 0;
    /* The head, and more of it where the ELF headers lie further in. */
    char small[HEAD], *head = small;
    size_t got;
    mode_t mode;
    uint64_t need = HEAD;
    int has_interp;
    for (;;) {
        if (lcsb__facts_head(f, real, head, need, &got, &mode) != 0) {
            int saved = errno;
            if (head != small) free(head);
            return lcsb__fail(err, LCSB_EINVAL,
                              saved == EINVAL ? "exec: %s is not a regular file" : "exec: %s: %s",
                              real, strerror(saved));
        }
        uint64_t more = need;
        has_interp = elf_interp(head, got, interp, &more);
        if (has_interp >= 0 || more <= need || more > HEAD_MAX || got < need) break;
        char *bigger = malloc(more);
        if (head != small) free(head);
        if (!(head = bigger)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        need = more;
    }
    if (has_interp < 0) has_interp = 0;
    /* An interpreter the kernel or env would run must be executable: a
     * #! line the command rewrote cannot make any file of the host an
     * exec (and so readable) path of the next run. */
    if (depth > 0 && !(mode & 0111)) {
        if (head != small) free(head);
        return lcsb__fail(err, LCSB_EINVAL,
                          "exec: %s is named to run a program (#! or env) but is not executable",
                          real);
    }
    env_program[0] = '\0';
    if (!has_interp) has_interp = shebang(head, got, interp, env_program);
    if (head != small) free(head);
    if (lcsb__strv_push(out, real)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if (has_interp) rc = resolve_into(f, interp, out, depth + 1, NULL, err);
    if (!rc && env_program[0]) rc = resolve_into(f, env_program, out, depth + 1, NULL, err);
    return rc;
}

int lcsb__resolve_program_at(lcsb__facts *f, const char *name, char ***out, char *located,
                             lcsb_error *err) {
    lcsb__strv sv = {0};
    int rc = name ? resolve_into(f, name, &sv, 0, located, err)
                  : lcsb__fail(err, LCSB_EINVAL, "exec: no program name");
    if (rc) {
        lcsb__strv_clear(&sv);
        return rc;
    }
    if (!(*out = lcsb__strv_take(&sv))) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}

int lcsb__resolve_program(lcsb__facts *f, const char *name, char ***out, lcsb_error *err) {
    return lcsb__resolve_program_at(f, name, out, NULL, err);
}

int lcsb_resolve_program(const char *name, char ***out, lcsb_error *err) {
    return lcsb__resolve_program(NULL, name, out, err);
}
