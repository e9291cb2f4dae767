/* lcsb-exec's messages (say.h). libc only. */
#define _GNU_SOURCE
#include "say.h"

#include <limits.h>
#include <stdio.h>

void say(const char *lead, const char *fmt, va_list ap) {
    fputs(lead, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int fail(const char *fmt, ...) {
    va_list ap;

    va_start(ap, fmt);
    say("lcsb-exec: cannot ", fmt, ap);
    va_end(ap);
    return -1;
}

void hint(const char *fmt, ...) {
    va_list ap;

    va_start(ap, fmt);
    say("lcsb-exec: hint: ", fmt, ap);
    va_end(ap);
}

const char *show(const char *s) {
    static char buf[4 * PATH_MAX + 1];
    size_t n = 0;

    for (; *s != '\0' && n + 5 < sizeof buf; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '"')
            buf[n++] = (char)ch;
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, "\\x%02x", ch);
    }
    buf[n] = '\0';
    return buf;
}
