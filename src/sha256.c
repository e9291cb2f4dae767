/* SHA-256 as FIPS 180-4 defines it: small enough to keep in the tree rather
 * than take a cryptography library for one digest of a few files. */
#include "sha256.h"

#include <string.h>

/* x86-64's SHA extensions, where glibc says the CPU has them: a digest of
 * a plan's key (tens of KB) on every run costs a tenth of the portable
 * code's time. glibc read the CPU's features when it started, so asking
 * costs no cpuid (which traps on a virtual machine). LCSB_SHA256_PORTABLE
 * leaves them out (the test suite's second copy, which checks the two agree). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(__has_include) &&  \
    !defined(LCSB_SHA256_PORTABLE)
#if __has_include(<sys/platform/x86.h>)
#include <immintrin.h>
#include <sys/platform/x86.h>
#define HAVE_SHA_NI 1
#endif
#endif

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t state[8], const unsigned char block[64]) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      round_constants[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

#ifdef HAVE_SHA_NI
/* BLOCKS blocks at P, four rounds a step: the state kept as ABEF and CDGH,
 * the message schedule four words at a time (Intel's SHA extensions). */
__attribute__((target("sha,sse4.1,ssse3"))) static void
compress_ni(uint32_t state[8], const unsigned char *p, size_t blocks) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0xB1);
    __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(state + 4)), 0x1B);
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);
    s1 = _mm_blend_epi16(s1, t, 0xF0);
    for (; blocks; blocks--, p += 64) {
        __m128i abef = s0, cdgh = s1, w[4];
        for (int i = 0; i < 16; i++) {
            __m128i m;
            if (i < 4) {
                m = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), swap);
            } else {
                /* W[i-4] and W[i-3], W[i-1] and W[i-2]: the words 16, 15,
                 * 7 and 2 before these four. */
                m = _mm_sha256msg1_epu32(w[i % 4], w[(i + 1) % 4]);
                m = _mm_add_epi32(m, _mm_alignr_epi8(w[(i + 3) % 4], w[(i + 2) % 4], 4));
                m = _mm_sha256msg2_epu32(m, w[(i + 3) % 4]);
            }
            w[i % 4] = m;
            __m128i k = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)&round_constants[4 * i]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, k);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(k, 0x0E));
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);
    s1 = _mm_shuffle_epi32(s1, 0xB1);
    s0 = _mm_blend_epi16(t, s1, 0xF0);
    s1 = _mm_alignr_epi8(s1, t, 8);
    _mm_storeu_si128((__m128i *)state, s0);
    _mm_storeu_si128((__m128i *)(state + 4), s1);
}
#endif

/* BLOCKS whole blocks at P into STATE. */
static void compress_blocks(uint32_t state[8], const unsigned char *p, size_t blocks) {
#ifdef HAVE_SHA_NI
    if (CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSE4_1) && CPU_FEATURE_ACTIVE(SSSE3)) {
        compress_ni(state, p, blocks);
        return;
    }
#endif
    for (; blocks; blocks--, p += 64) compress(state, p);
}

void lcsb__sha256_init(lcsb__sha256 *h) {
    static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(h->state, initial, sizeof initial);
    h->length = 0;
    h->filled = 0;
}

void lcsb__sha256_add(lcsb__sha256 *h, const void *data, size_t len) {
    const unsigned char *p = data;
    h->length += len;
    if (h->filled) {
        size_t take = sizeof h->block - h->filled;
        if (take > len) take = len;
        memcpy(h->block + h->filled, p, take);
        h->filled += take;
        p += take;
        len -= take;
        if (h->filled < sizeof h->block) return;
        compress_blocks(h->state, h->block, 1);
        h->filled = 0;
    }
    /* Whole blocks straight from DATA; what is left waits in BLOCK. */
    size_t whole = len / sizeof h->block;
    if (whole) compress_blocks(h->state, p, whole);
    p += whole * sizeof h->block;
    len -= whole * sizeof h->block;
    memcpy(h->block, p, len);
    h->filled = len;
}

void lcsb__sha256_hex(lcsb__sha256 *h, char hex[LCSB__SHA256_HEX]) {
    static const char digits[] = "0123456789abcdef";
    uint64_t bits = h->length * 8;
    unsigned char pad[72] = {0x80};
    /* The 0x80 byte, zeros up to 56 mod 64, then the length in bits. */
    size_t zeros = (h->filled < 56 ? 56 : 120) - h->filled;
    for (int i = 0; i < 8; i++) pad[zeros + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    lcsb__sha256_add(h, pad, zeros + 8);
    for (int i = 0; i < 32; i++) {
        unsigned byte = h->state[i / 4] >> (24 - 8 * (i % 4)) & 0xff;
        hex[2 * i] = digits[byte >> 4];
        hex[2 * i + 1] = digits[byte & 0xf];
    }
    hex[64] = '\0';
}

void lcsb__sha256_of(const void *data, size_t len, char hex[LCSB__SHA256_HEX]) {
    lcsb__sha256 h;
    lcsb__sha256_init(&h);
    lcsb__sha256_add(&h, data, len);
    lcsb__sha256_hex(&h, hex);
}
