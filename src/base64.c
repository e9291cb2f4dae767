/* Base64 (base64.h). */
#include "base64.h"

#include <string.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int value_of(char c) {
    const char *p = c ? strchr(alphabet, c) : NULL;
    return p ? (int)(p - alphabet) : -1;
}

long lcsb__base64_decode(const char *in, size_t len, char *out) {
    /* Padded or not: a server may take either. */
    while (len && in[len - 1] == '=' && len % 4 != 1) len--;
    if (len % 4 == 1) return -1;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        size_t have = len - i < 4 ? len - i : 4;
        unsigned bits = 0;
        for (size_t k = 0; k < 4; k++) {
            int v = k < have ? value_of(in[i + k]) : 0;
            if (v < 0) return -1;
            bits = bits << 6 | (unsigned)v;
        }
        out[o++] = (char)(bits >> 16);
        if (have > 2) out[o++] = (char)(bits >> 8 & 0xff);
        if (have > 3) out[o++] = (char)(bits & 0xff);
    }
    return (long)o;
}

void lcsb__base64_encode(const char *in, size_t len, lcsb__buf *out) {
    for (size_t i = 0; i < len; i += 3) {
        unsigned bits = (unsigned char)in[i] << 16;
        if (i + 1 < len) bits |= (unsigned char)in[i + 1] << 8;
        if (i + 2 < len) bits |= (unsigned char)in[i + 2];
        char q[4] = {alphabet[bits >> 18], alphabet[bits >> 12 & 63],
                     i + 1 < len ? alphabet[bits >> 6 & 63] : '=',
                     i + 2 < len ? alphabet[bits & 63] : '='};
        lcsb__buf_add(out, q, 4);
    }
}
