/* Program resolution for the exec allowlist: a name on PATH becomes the
 * regular files the kernel will execute for it. Landlock checks EXECUTE on the
 * program and on the interpreter the kernel loads for it (ELF PT_INTERP, `#!`),
 * so both must be granted, each as a resolved file. Reads files. */
#include "sys.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Find NAME the way execvp does; a name with a slash is taken as a path. */
static int locate(const char *name, char *out, lcsb_error *err) {
    if (!*name) return lcsb__fail(err, LCSB_EINVAL, "exec: empty program name");
    if (strchr(name, '/')) {
        if (snprintf(out, PATH_MAX, "%s", name) >= PATH_MAX)
            return lcsb__fail(err, LCSB_EINVAL, "exec: %s: path too long", name);
        return 0;
    }
    if (lcsb__find_on_path(name, out, PATH_MAX)) return 0;
    return lcsb__fail(err, LCSB_EINVAL, "exec: %s: not found on PATH", name);
}

/* ELF PT_INTERP of the open file FD into OUT; 1 found, 0 none (static or not ELF). */
static int elf_interp(int fd, char *out) {
    unsigned char ident[EI_NIDENT];
    if (pread(fd, ident, sizeof ident, 0) != (ssize_t)sizeof ident ||
        memcmp(ident, ELFMAG, SELFMAG) != 0)
        return 0;
    bool is64 = ident[EI_CLASS] == ELFCLASS64;
    Elf64_Ehdr eh;
    Elf32_Ehdr eh32;
    uint64_t phoff;
    unsigned phnum, phentsize;
    if (is64) {
        if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh) return 0;
        phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
    } else {
        if (pread(fd, &eh32, sizeof eh32, 0) != (ssize_t)sizeof eh32) return 0;
        phoff = eh32.e_phoff, phnum = eh32.e_phnum, phentsize = eh32.e_phentsize;
    }
    if (phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || phnum > 4096) return 0;
    for (unsigned i = 0; i < phnum; i++) {
        uint64_t type, offset, size;
        off_t at = (off_t)(phoff + (uint64_t)i * phentsize);
        if (is64) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph) return 0;
            type = ph.p_type, offset = ph.p_offset, size = ph.p_filesz;
        } else {
            Elf32_Phdr ph;
            if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph) return 0;
            type = ph.p_type, offset = ph.p_offset, size = ph.p_filesz;
        }
        if (type != PT_INTERP) continue;
        if (size < 2 || size >= PATH_MAX) return 0;
        if (pread(fd, out, size, (off_t)offset) != (ssize_t)size) return 0;
        out[size - 1] = '\0';
        return out[0] == '/' ? 1 : 0;
    }
    return 0;
}

/* The `#!` line of FD: the interpreter path into INTERP and, for env, the
 * program it will look up into ENV_PROGRAM. 1 found, 0 none. */
static int shebang(int fd, char *interp, char *env_program) {
    char line[PATH_MAX];
    ssize_t n = pread(fd, line, sizeof line - 1, 0);
    if (n < 3 || line[0] != '#' || line[1] != '!') return 0;
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

static bool listed(const lcsb__strv *sv, const char *s) {
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0) return true;
    return false;
}

static int resolve_into(const char *name, lcsb__strv *out, int depth, lcsb_error *err) {
    char found[PATH_MAX], real[PATH_MAX], interp[PATH_MAX], env_program[PATH_MAX];
    if (depth > 8)
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s: interpreters nest too deep", name);
    int rc = locate(name, found, err);
    if (rc) return rc;
    if (!lcsb__realpath(found, real))
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s: %s", found, strerror(errno));
    if (listed(out, real)) return 0;
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return lcsb__fail(err, LCSB_EINVAL, "exec: %s: %s", real, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s is not a regular file", real);
    }
    /* An interpreter the kernel or env would run must be executable: a
     * #! line the command rewrote cannot make any file of the host an
     * exec (and so readable) path of the next run. */
    if (depth > 0 && !(st.st_mode & 0111)) {
        close(fd);
        return lcsb__fail(err, LCSB_EINVAL,
                          "exec: %s is named to run a program (#! or env) but is not executable",
                          real);
    }
    if (lcsb__strv_push(out, real)) {
        close(fd);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    env_program[0] = '\0';
    int has_interp = elf_interp(fd, interp);
    if (!has_interp) has_interp = shebang(fd, interp, env_program);
    close(fd);
    if (has_interp) rc = resolve_into(interp, out, depth + 1, err);
    if (!rc && env_program[0]) rc = resolve_into(env_program, out, depth + 1, err);
    return rc;
}

int lcsb_resolve_program(const char *name, char ***out, lcsb_error *err) {
    lcsb__strv sv = {0};
    int rc = name ? resolve_into(name, &sv, 0, err)
                  : lcsb__fail(err, LCSB_EINVAL, "exec: no program name");
    if (rc) {
        lcsb__strv_clear(&sv);
        return rc;
    }
    if (!(*out = lcsb__strv_take(&sv))) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}
