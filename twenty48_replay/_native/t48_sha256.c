/* SHA-256 compression: portable C, x86-64 SHA extensions, ARMv8 SHA2; see t48_sha256.h. */
#include "t48_sha256.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#define T48_X86 1
#include <immintrin.h>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define T48_TARGET_SHANI
#else
#include <cpuid.h>
#define T48_TARGET_SHANI __attribute__((target("sha,sse4.1,ssse3")))
#endif
#endif

#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__linux__) || defined(__APPLE__))
#define T48_ARM 1
#include <arm_neon.h>
#if defined(__ARM_FEATURE_SHA2) || defined(__ARM_FEATURE_CRYPTO)
#define T48_TARGET_ARMSHA
#elif defined(__clang__)
#define T48_TARGET_ARMSHA __attribute__((target("crypto")))
#else
#define T48_TARGET_ARMSHA __attribute__((target("+crypto")))
#endif
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1 << 6)
#endif
#endif
#endif

const uint32_t t48_sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

/* ------------------------------------------------------------------ portable C */

static inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void t48_sha256_compress_portable(uint32_t state[8], const uint32_t words[16]) {
    uint32_t w[64];
    memcpy(w, words, sizeof(uint32_t) * 16);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] +
                      w[t];
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

void t48_sha256_compress2_portable(uint32_t state_a[8], const uint32_t words_a[16],
                                   uint32_t state_b[8], const uint32_t words_b[16]) {
    t48_sha256_compress_portable(state_a, words_a);
    t48_sha256_compress_portable(state_b, words_b);
}

/* ------------------------------------------------------------------ x86-64 SHA-NI */

#ifdef T48_X86
/* The SHA instructions keep the state as two registers, (A,B,E,F) and (C,D,G,H). */
#define SHANI_LOAD_STATE(STATE, ABEF, CDGH)                                         \
    do {                                                                            \
        __m128i dcba_ = _mm_loadu_si128((const __m128i *)(STATE));                  \
        __m128i hgfe_ = _mm_loadu_si128((const __m128i *)((STATE) + 4));            \
        __m128i cdab_ = _mm_shuffle_epi32(dcba_, 0xB1);                             \
        __m128i efgh_ = _mm_shuffle_epi32(hgfe_, 0x1B);                             \
        ABEF = _mm_alignr_epi8(cdab_, efgh_, 8);                                    \
        CDGH = _mm_blend_epi16(efgh_, cdab_, 0xF0);                                 \
    } while (0)

#define SHANI_STORE_STATE(STATE, ABEF, CDGH)                                        \
    do {                                                                            \
        __m128i feba_ = _mm_shuffle_epi32(ABEF, 0x1B);                              \
        __m128i dchg_ = _mm_shuffle_epi32(CDGH, 0xB1);                              \
        _mm_storeu_si128((__m128i *)(STATE), _mm_blend_epi16(feba_, dchg_, 0xF0));  \
        _mm_storeu_si128((__m128i *)((STATE) + 4), _mm_alignr_epi8(dchg_, feba_, 8)); \
    } while (0)

/* Four rounds with message group M (words 4g..4g+3) and constants K[4g..4g+3]. */
#define SHANI_ROUNDS4(ABEF, CDGH, M, G)                                             \
    do {                                                                            \
        __m128i wk_ = _mm_add_epi32(M, _mm_loadu_si128((const __m128i *)(K + 4 * (G)))); \
        CDGH = _mm_sha256rnds2_epu32(CDGH, ABEF, wk_);                              \
        ABEF = _mm_sha256rnds2_epu32(ABEF, CDGH, _mm_shuffle_epi32(wk_, 0x0E));     \
    } while (0)

/* Message group g >= 4 from groups g-4 (A), g-3 (B), g-2 (C), g-1 (D); result in A. */
#define SHANI_SCHEDULE(A, B, C, D)                                                  \
    A = _mm_sha256msg2_epu32(                                                       \
        _mm_add_epi32(_mm_sha256msg1_epu32(A, B), _mm_alignr_epi8(D, C, 4)), D)

/* After group G's rounds the register holding group G+1-4 ... is rescheduled:
 * the usual rolling order keeps only four message registers alive. */
#define SHANI_BODY(ABEF, CDGH, M0, M1, M2, M3)                                      \
    SHANI_ROUNDS4(ABEF, CDGH, M0, 0);                                               \
    SHANI_ROUNDS4(ABEF, CDGH, M1, 1);                                               \
    SHANI_ROUNDS4(ABEF, CDGH, M2, 2);                                               \
    SHANI_ROUNDS4(ABEF, CDGH, M3, 3);                                               \
    SHANI_SCHEDULE(M0, M1, M2, M3); SHANI_ROUNDS4(ABEF, CDGH, M0, 4);               \
    SHANI_SCHEDULE(M1, M2, M3, M0); SHANI_ROUNDS4(ABEF, CDGH, M1, 5);               \
    SHANI_SCHEDULE(M2, M3, M0, M1); SHANI_ROUNDS4(ABEF, CDGH, M2, 6);               \
    SHANI_SCHEDULE(M3, M0, M1, M2); SHANI_ROUNDS4(ABEF, CDGH, M3, 7);               \
    SHANI_SCHEDULE(M0, M1, M2, M3); SHANI_ROUNDS4(ABEF, CDGH, M0, 8);               \
    SHANI_SCHEDULE(M1, M2, M3, M0); SHANI_ROUNDS4(ABEF, CDGH, M1, 9);               \
    SHANI_SCHEDULE(M2, M3, M0, M1); SHANI_ROUNDS4(ABEF, CDGH, M2, 10);              \
    SHANI_SCHEDULE(M3, M0, M1, M2); SHANI_ROUNDS4(ABEF, CDGH, M3, 11);              \
    SHANI_SCHEDULE(M0, M1, M2, M3); SHANI_ROUNDS4(ABEF, CDGH, M0, 12);              \
    SHANI_SCHEDULE(M1, M2, M3, M0); SHANI_ROUNDS4(ABEF, CDGH, M1, 13);              \
    SHANI_SCHEDULE(M2, M3, M0, M1); SHANI_ROUNDS4(ABEF, CDGH, M2, 14);              \
    SHANI_SCHEDULE(M3, M0, M1, M2); SHANI_ROUNDS4(ABEF, CDGH, M3, 15)

T48_TARGET_SHANI static void compress_shani(uint32_t state[8], const uint32_t words[16]) {
    __m128i abef, cdgh;
    SHANI_LOAD_STATE(state, abef, cdgh);
    __m128i abef0 = abef, cdgh0 = cdgh;
    __m128i m0 = _mm_loadu_si128((const __m128i *)words);
    __m128i m1 = _mm_loadu_si128((const __m128i *)(words + 4));
    __m128i m2 = _mm_loadu_si128((const __m128i *)(words + 8));
    __m128i m3 = _mm_loadu_si128((const __m128i *)(words + 12));
    SHANI_BODY(abef, cdgh, m0, m1, m2, m3);
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
    SHANI_STORE_STATE(state, abef, cdgh);
}

/* Two messages interleaved group by group: independent chains in flight together. */
T48_TARGET_SHANI static void compress2_shani(uint32_t state_a[8], const uint32_t words_a[16],
                                             uint32_t state_b[8], const uint32_t words_b[16]) {
    __m128i sa0, sa1, sb0, sb1;
    SHANI_LOAD_STATE(state_a, sa0, sa1);
    SHANI_LOAD_STATE(state_b, sb0, sb1);
    __m128i ia0 = sa0, ia1 = sa1, ib0 = sb0, ib1 = sb1;
    __m128i a0 = _mm_loadu_si128((const __m128i *)words_a);
    __m128i a1 = _mm_loadu_si128((const __m128i *)(words_a + 4));
    __m128i a2 = _mm_loadu_si128((const __m128i *)(words_a + 8));
    __m128i a3 = _mm_loadu_si128((const __m128i *)(words_a + 12));
    __m128i b0 = _mm_loadu_si128((const __m128i *)words_b);
    __m128i b1 = _mm_loadu_si128((const __m128i *)(words_b + 4));
    __m128i b2 = _mm_loadu_si128((const __m128i *)(words_b + 8));
    __m128i b3 = _mm_loadu_si128((const __m128i *)(words_b + 12));
#define PAIR(GA, GB)  /* one group of each message */                               \
    SHANI_ROUNDS4(sa0, sa1, GA, G_);                                                \
    SHANI_ROUNDS4(sb0, sb1, GB, G_)
    {
        enum { G_ = 0 };
        PAIR(a0, b0);
    }
    {
        enum { G_ = 1 };
        PAIR(a1, b1);
    }
    {
        enum { G_ = 2 };
        PAIR(a2, b2);
    }
    {
        enum { G_ = 3 };
        PAIR(a3, b3);
    }
#define STEP(G, A0, A1, A2, A3, B0, B1, B2, B3)                                     \
    {                                                                               \
        enum { G_ = G };                                                            \
        SHANI_SCHEDULE(A0, A1, A2, A3);                                             \
        SHANI_SCHEDULE(B0, B1, B2, B3);                                             \
        PAIR(A0, B0);                                                               \
    }
    STEP(4, a0, a1, a2, a3, b0, b1, b2, b3)
    STEP(5, a1, a2, a3, a0, b1, b2, b3, b0)
    STEP(6, a2, a3, a0, a1, b2, b3, b0, b1)
    STEP(7, a3, a0, a1, a2, b3, b0, b1, b2)
    STEP(8, a0, a1, a2, a3, b0, b1, b2, b3)
    STEP(9, a1, a2, a3, a0, b1, b2, b3, b0)
    STEP(10, a2, a3, a0, a1, b2, b3, b0, b1)
    STEP(11, a3, a0, a1, a2, b3, b0, b1, b2)
    STEP(12, a0, a1, a2, a3, b0, b1, b2, b3)
    STEP(13, a1, a2, a3, a0, b1, b2, b3, b0)
    STEP(14, a2, a3, a0, a1, b2, b3, b0, b1)
    STEP(15, a3, a0, a1, a2, b3, b0, b1, b2)
#undef STEP
#undef PAIR
    sa0 = _mm_add_epi32(sa0, ia0);
    sa1 = _mm_add_epi32(sa1, ia1);
    sb0 = _mm_add_epi32(sb0, ib0);
    sb1 = _mm_add_epi32(sb1, ib1);
    SHANI_STORE_STATE(state_a, sa0, sa1);
    SHANI_STORE_STATE(state_b, sb0, sb1);
}

static int cpu_has_shani(void) {
    unsigned a, b, c, d;
#if defined(_MSC_VER) && !defined(__clang__)
    int regs[4];
    __cpuid(regs, 0);
    if (regs[0] < 7) return 0;
    __cpuid(regs, 1);
    c = (unsigned)regs[2];
    __cpuidex(regs, 7, 0);
    b = (unsigned)regs[1];
    (void)a;
    (void)d;
#else
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    unsigned c1 = c;
    __cpuid_count(7, 0, a, b, c, d);
    c = c1;
#endif
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1, sha = (b >> 29) & 1;
    return ssse3 && sse41 && sha;
}
#endif /* T48_X86 */

/* ------------------------------------------------------------------ ARMv8 SHA2 */

#ifdef T48_ARM
/* Four rounds with message group M; the NEON state is (A,B,C,D) and (E,F,G,H). */
#define ARM_ROUNDS4(ABCD, EFGH, M, G)                                               \
    do {                                                                            \
        uint32x4_t wk_ = vaddq_u32(M, vld1q_u32(K + 4 * (G)));                      \
        uint32x4_t abcd_ = ABCD;                                                    \
        ABCD = vsha256hq_u32(ABCD, EFGH, wk_);                                      \
        EFGH = vsha256h2q_u32(EFGH, abcd_, wk_);                                    \
    } while (0)
#define ARM_SCHEDULE(A, B, C, D) A = vsha256su1q_u32(vsha256su0q_u32(A, B), C, D)
#define ARM_BODY(ABCD, EFGH, M0, M1, M2, M3)                                        \
    ARM_ROUNDS4(ABCD, EFGH, M0, 0);                                                 \
    ARM_ROUNDS4(ABCD, EFGH, M1, 1);                                                 \
    ARM_ROUNDS4(ABCD, EFGH, M2, 2);                                                 \
    ARM_ROUNDS4(ABCD, EFGH, M3, 3);                                                 \
    for (int g_ = 4; g_ < 16; g_ += 4) {                                            \
        ARM_SCHEDULE(M0, M1, M2, M3); ARM_ROUNDS4(ABCD, EFGH, M0, g_);              \
        ARM_SCHEDULE(M1, M2, M3, M0); ARM_ROUNDS4(ABCD, EFGH, M1, g_ + 1);          \
        ARM_SCHEDULE(M2, M3, M0, M1); ARM_ROUNDS4(ABCD, EFGH, M2, g_ + 2);          \
        ARM_SCHEDULE(M3, M0, M1, M2); ARM_ROUNDS4(ABCD, EFGH, M3, g_ + 3);          \
    }

T48_TARGET_ARMSHA static void compress_armv8(uint32_t state[8], const uint32_t words[16]) {
    uint32x4_t abcd = vld1q_u32(state), efgh = vld1q_u32(state + 4);
    uint32x4_t abcd0 = abcd, efgh0 = efgh;
    uint32x4_t m0 = vld1q_u32(words), m1 = vld1q_u32(words + 4);
    uint32x4_t m2 = vld1q_u32(words + 8), m3 = vld1q_u32(words + 12);
    ARM_BODY(abcd, efgh, m0, m1, m2, m3)
    vst1q_u32(state, vaddq_u32(abcd, abcd0));
    vst1q_u32(state + 4, vaddq_u32(efgh, efgh0));
}

T48_TARGET_ARMSHA static void compress2_armv8(uint32_t state_a[8], const uint32_t words_a[16],
                                              uint32_t state_b[8], const uint32_t words_b[16]) {
    uint32x4_t sa0 = vld1q_u32(state_a), sa1 = vld1q_u32(state_a + 4);
    uint32x4_t sb0 = vld1q_u32(state_b), sb1 = vld1q_u32(state_b + 4);
    uint32x4_t ia0 = sa0, ia1 = sa1, ib0 = sb0, ib1 = sb1;
    uint32x4_t a0 = vld1q_u32(words_a), a1 = vld1q_u32(words_a + 4);
    uint32x4_t a2 = vld1q_u32(words_a + 8), a3 = vld1q_u32(words_a + 12);
    uint32x4_t b0 = vld1q_u32(words_b), b1 = vld1q_u32(words_b + 4);
    uint32x4_t b2 = vld1q_u32(words_b + 8), b3 = vld1q_u32(words_b + 12);
    ARM_ROUNDS4(sa0, sa1, a0, 0);
    ARM_ROUNDS4(sb0, sb1, b0, 0);
    ARM_ROUNDS4(sa0, sa1, a1, 1);
    ARM_ROUNDS4(sb0, sb1, b1, 1);
    ARM_ROUNDS4(sa0, sa1, a2, 2);
    ARM_ROUNDS4(sb0, sb1, b2, 2);
    ARM_ROUNDS4(sa0, sa1, a3, 3);
    ARM_ROUNDS4(sb0, sb1, b3, 3);
    for (int g = 4; g < 16; g += 4) {
        ARM_SCHEDULE(a0, a1, a2, a3);
        ARM_SCHEDULE(b0, b1, b2, b3);
        ARM_ROUNDS4(sa0, sa1, a0, g);
        ARM_ROUNDS4(sb0, sb1, b0, g);
        ARM_SCHEDULE(a1, a2, a3, a0);
        ARM_SCHEDULE(b1, b2, b3, b0);
        ARM_ROUNDS4(sa0, sa1, a1, g + 1);
        ARM_ROUNDS4(sb0, sb1, b1, g + 1);
        ARM_SCHEDULE(a2, a3, a0, a1);
        ARM_SCHEDULE(b2, b3, b0, b1);
        ARM_ROUNDS4(sa0, sa1, a2, g + 2);
        ARM_ROUNDS4(sb0, sb1, b2, g + 2);
        ARM_SCHEDULE(a3, a0, a1, a2);
        ARM_SCHEDULE(b3, b0, b1, b2);
        ARM_ROUNDS4(sa0, sa1, a3, g + 3);
        ARM_ROUNDS4(sb0, sb1, b3, g + 3);
    }
    vst1q_u32(state_a, vaddq_u32(sa0, ia0));
    vst1q_u32(state_a + 4, vaddq_u32(sa1, ia1));
    vst1q_u32(state_b, vaddq_u32(sb0, ib0));
    vst1q_u32(state_b + 4, vaddq_u32(sb1, ib1));
}

static int cpu_has_armv8_sha2(void) {
#if defined(__APPLE__)
    return 1; /* every Apple arm64 CPU has the SHA2 instructions */
#else
    return (getauxval(AT_HWCAP) & HWCAP_SHA2) != 0;
#endif
}
#endif /* T48_ARM */

/* ------------------------------------------------------------------ dispatch */

t48_compress_fn t48_sha256_compress = t48_sha256_compress_portable;
t48_compress2_fn t48_sha256_compress2 = t48_sha256_compress2_portable;
static const char *impl_name = "portable";

int t48_sha256_use(const char *name) {
    if (strcmp(name, "portable") == 0) {
        t48_sha256_compress = t48_sha256_compress_portable;
        t48_sha256_compress2 = t48_sha256_compress2_portable;
        impl_name = "portable";
        return 1;
    }
#ifdef T48_X86
    if (strcmp(name, "sha-ni") == 0 && cpu_has_shani()) {
        t48_sha256_compress = compress_shani;
        t48_sha256_compress2 = compress2_shani;
        impl_name = "sha-ni";
        return 1;
    }
#endif
#ifdef T48_ARM
    if (strcmp(name, "armv8-sha2") == 0 && cpu_has_armv8_sha2()) {
        t48_sha256_compress = compress_armv8;
        t48_sha256_compress2 = compress2_armv8;
        impl_name = "armv8-sha2";
        return 1;
    }
#endif
    return 0;
}

void t48_sha256_init_dispatch(void) {
    const char *forced = getenv("TWENTY48_SHA256");
    if (forced != NULL && strcmp(forced, "portable") == 0) {
        t48_sha256_use("portable");
        return;
    }
    if (t48_sha256_use("sha-ni")) return;
    if (t48_sha256_use("armv8-sha2")) return;
    t48_sha256_use("portable");
}

const char *t48_sha256_impl(void) { return impl_name; }

/* ------------------------------------------------------------------ one-shot */

void t48_sha256(const uint8_t *data, size_t length, uint8_t digest[32]) {
    uint32_t state[8], words[16];
    memcpy(state, t48_sha256_iv, sizeof state);
    size_t done = 0;
    for (; length - done >= 64; done += 64) {
        for (int i = 0; i < 16; i++) words[i] = t48_be32(data + done + 4 * i);
        t48_sha256_compress(state, words);
    }
    uint8_t tail[128] = {0};
    size_t rest = length - done;
    if (rest) memcpy(tail, data + done, rest);
    tail[rest] = 0x80;
    size_t blocks = rest + 9 <= 64 ? 1 : 2;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++) tail[blocks * 64 - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t b = 0; b < blocks; b++) {
        for (int i = 0; i < 16; i++) words[i] = t48_be32(tail + 64 * b + 4 * i);
        t48_sha256_compress(state, words);
    }
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)state[i];
    }
}
