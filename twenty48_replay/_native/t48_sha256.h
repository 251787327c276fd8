/* Our own SHA-256 (FIPS 180-4), so the extension needs no OpenSSL headers.
 *
 * The compression function comes in three forms, chosen once at run time by
 * t48_sha256_init_dispatch(): the x86-64 SHA extensions (SHA-NI), the ARMv8
 * SHA2 instructions, or portable C.  Messages are passed as sixteen 32-bit
 * words already read big-endian (what SHA-256 computes on), which lets HMAC
 * feed a digest straight back in without converting it to bytes and back.
 */
#ifndef T48_SHA256_H
#define T48_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef void (*t48_compress_fn)(uint32_t state[8], const uint32_t words[16]);
/* Two independent compressions at once: the SHA instructions have long
 * latencies, so interleaving two messages runs them in nearly the time of one. */
typedef void (*t48_compress2_fn)(uint32_t state_a[8], const uint32_t words_a[16],
                                 uint32_t state_b[8], const uint32_t words_b[16]);

extern t48_compress_fn t48_sha256_compress;
extern t48_compress2_fn t48_sha256_compress2;

/* Pick the fastest compression this CPU has (safe to call more than once).
 * TWENTY48_SHA256=portable in the environment forces portable C (tests use it). */
void t48_sha256_init_dispatch(void);
/* "sha-ni", "armv8-sha2" or "portable": the compression in use. */
const char *t48_sha256_impl(void);
/* Force an implementation by name; returns 0 if this CPU or build lacks it. */
int t48_sha256_use(const char *name);

extern const uint32_t t48_sha256_iv[8];

/* SHA-256 of a byte string (one-shot, any length). */
void t48_sha256(const uint8_t *data, size_t length, uint8_t digest[32]);

/* Big-endian 32-bit word of four bytes. */
static inline uint32_t t48_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The compression functions themselves (for tests and benchmarks). */
void t48_sha256_compress_portable(uint32_t state[8], const uint32_t words[16]);
void t48_sha256_compress2_portable(uint32_t state_a[8], const uint32_t words_a[16],
                                   uint32_t state_b[8], const uint32_t words_b[16]);

#endif /* T48_SHA256_H */
