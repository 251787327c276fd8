/* HMAC-SHA256 for spawn RNG v1 (schema/SPEC.md section 5), key states hashed once per seed.
 *
 * HMAC(key, m) = H((K ^ opad) || H((K ^ ipad) || m)).  The two key blocks are
 * the same for every spawn of a seed, so their compressions are done once
 * (t48_hmac_init); a spawn's message is the 8-byte counter k, which with the
 * inner block fits one padded block, and the inner digest with the outer
 * padding fits one more: two compressions per spawn.
 *
 * Header-only (static inline).
 */
#ifndef T48_HMAC_H
#define T48_HMAC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "t48_sha256.h"

typedef struct {
    uint32_t inner[8]; /* state after the block K ^ ipad */
    uint32_t outer[8]; /* state after the block K ^ opad */
} t48_hmac_key;

static inline void t48_hmac_init(t48_hmac_key *hk, const uint8_t *key, size_t length) {
    uint8_t block[64];
    memset(block, 0, sizeof block);
    if (length > 64) {
        t48_sha256(key, length, block); /* a long key is replaced by its digest */
    } else if (length) {
        memcpy(block, key, length);
    }
    uint32_t ipad[16], opad[16];
    for (int i = 0; i < 16; i++) {
        uint32_t w = t48_be32(block + 4 * i);
        ipad[i] = w ^ 0x36363636u;
        opad[i] = w ^ 0x5c5c5c5cu;
    }
    memcpy(hk->inner, t48_sha256_iv, sizeof hk->inner);
    memcpy(hk->outer, t48_sha256_iv, sizeof hk->outer);
    t48_sha256_compress2(hk->inner, ipad, hk->outer, opad);
}

/* The inner message block of counter k: k (8 bytes, big-endian), padding, 72*8 bits. */
static inline void t48_hmac_inner_block(uint32_t words[16], uint64_t k) {
    words[0] = (uint32_t)(k >> 32);
    words[1] = (uint32_t)k;
    words[2] = 0x80000000u;
    for (int i = 3; i < 15; i++) words[i] = 0;
    words[15] = (64 + 8) * 8;
}

/* The outer message block: the inner digest, padding, 96*8 bits. */
static inline void t48_hmac_outer_block(uint32_t words[16], const uint32_t inner_digest[8]) {
    for (int i = 0; i < 8; i++) words[i] = inner_digest[i];
    words[8] = 0x80000000u;
    for (int i = 9; i < 15; i++) words[i] = 0;
    words[15] = (64 + 32) * 8;
}

/* HMAC-SHA256(key, k as 8 bytes big-endian) as eight big-endian words. */
static inline void t48_hmac_counter(const t48_hmac_key *hk, uint64_t k, uint32_t digest[8]) {
    uint32_t block[16], inner[8];
    memcpy(inner, hk->inner, sizeof inner);
    t48_hmac_inner_block(block, k);
    t48_sha256_compress(inner, block);
    memcpy(digest, hk->outer, sizeof hk->outer);
    t48_hmac_outer_block(block, inner);
    t48_sha256_compress(digest, block);
}

/* Two counters at once (the compressions interleaved): digests of k and k + 1. */
static inline void t48_hmac_counter2(const t48_hmac_key *hk, uint64_t k, uint32_t digest_a[8],
                                     uint32_t digest_b[8]) {
    uint32_t block_a[16], block_b[16], inner_a[8], inner_b[8];
    memcpy(inner_a, hk->inner, sizeof inner_a);
    memcpy(inner_b, hk->inner, sizeof inner_b);
    t48_hmac_inner_block(block_a, k);
    t48_hmac_inner_block(block_b, k + 1);
    t48_sha256_compress2(inner_a, block_a, inner_b, block_b);
    memcpy(digest_a, hk->outer, sizeof hk->outer);
    memcpy(digest_b, hk->outer, sizeof hk->outer);
    t48_hmac_outer_block(block_a, inner_a);
    t48_hmac_outer_block(block_b, inner_b);
    t48_sha256_compress2(digest_a, block_a, digest_b, block_b);
}

/* SPEC 5.2's two numbers from a digest: the cell selector a = d[0..7] and whether
 * b = d[8..15] makes a 4 (b mod 10 == 0), both as unsigned 64-bit big-endian. */
static inline uint64_t t48_draw_selector(const uint32_t digest[8]) {
    return (uint64_t)digest[0] << 32 | digest[1];
}
static inline int t48_draw_four(const uint32_t digest[8]) {
    return ((uint64_t)digest[2] << 32 | digest[3]) % 10 == 0;
}

/* Spawn draw k of a seed: the selector and whether the tile is a 4. */
static inline void t48_spawn_draw(const t48_hmac_key *hk, uint64_t k, uint64_t *selector,
                                  int *four) {
    uint32_t d[8];
    t48_hmac_counter(hk, k, d);
    *selector = t48_draw_selector(d);
    *four = t48_draw_four(d);
}

#endif /* T48_HMAC_H */
