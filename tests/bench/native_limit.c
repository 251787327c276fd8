/* The limit of verification on this machine, and the benchmark corpus (issue 21).
 *
 *   native_limit verify FILE.jsonl      verify every record of a JSON Lines file
 *   native_limit corpus N FILE.jsonl [PREFIX]   write N full games, seeds PREFIX0.. (default "corpus-")
 *
 * `verify` is what `twenty48 verify --jobs 1` does, minus everything that is not
 * the work itself: it reads the whole file, pulls seed, moves, score, max_tile
 * and final_board out of each line with a minimal JSON reader, replays the moves
 * with the native core's own replay loop (twenty48_replay/_native/t48_replay.h:
 * row tables, HMAC key states once per seed, two SHA-256 compressions per spawn,
 * SHA-NI when the CPU has it) and compares every claim.  Whole process, one core:
 * the most a verifier built on this core can do, which the benchmark compares
 * `twenty48 verify` with (tests/bench/bench_native.py).
 *
 * `corpus` plays full games (to game over) for the benchmark: each move is the
 * best of a two-move look-ahead that sees the real spawns (a "snake" weighting
 * of the tiles plus empty cells).  It is not the solver and not fair play; it only
 * makes long, distinct, ordinary-looking games quickly.
 *
 * Not part of the package; built by the benchmark with
 *   cc -O2 -I twenty48_replay/_native tests/bench/native_limit.c \
 *      twenty48_replay/_native/t48_rows.c twenty48_replay/_native/t48_sha256.c
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "t48_replay.h"

/* ------------------------------------------------------------------ JSON, minimally */

typedef struct {
    const char *p, *end;
} cursor;

static void skip_ws(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
        c->p++;
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char h = p[i];
        v <<= 4;
        if (h >= '0' && h <= '9') v |= (unsigned)(h - '0');
        else if (h >= 'a' && h <= 'f') v |= (unsigned)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F') v |= (unsigned)(h - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(unsigned cp, unsigned char *o) {
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xC0 | cp >> 6); o[1] = (unsigned char)(0x80 | (cp & 63)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12); o[1] = (unsigned char)(0x80 | (cp >> 6 & 63));
        o[2] = (unsigned char)(0x80 | (cp & 63)); return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18); o[1] = (unsigned char)(0x80 | (cp >> 12 & 63));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 63)); o[3] = (unsigned char)(0x80 | (cp & 63));
    return 4;
}

/* A JSON string; its UTF-8 bytes (escapes decoded) into out (NULL: skip).  Returns length or -1. */
static long read_string(cursor *c, unsigned char *out, size_t cap) {
    if (c->p >= c->end || *c->p != '"') return -1;
    c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != '"') {
        unsigned char ch = (unsigned char)*c->p++;
        unsigned char buf[4];
        size_t len = 1;
        buf[0] = ch;
        if (ch == '\\') {
            if (c->p >= c->end) return -1;
            char e = *c->p++;
            switch (e) {
            case '"': case '\\': case '/': buf[0] = (unsigned char)e; break;
            case 'b': buf[0] = '\b'; break;
            case 'f': buf[0] = '\f'; break;
            case 'n': buf[0] = '\n'; break;
            case 'r': buf[0] = '\r'; break;
            case 't': buf[0] = '\t'; break;
            case 'u': {
                unsigned cp, low;
                if (c->end - c->p < 4 || hex4(c->p, &cp)) return -1;
                c->p += 4;
                if (cp >= 0xD800 && cp < 0xDC00) {
                    if (c->end - c->p < 6 || c->p[0] != '\\' || c->p[1] != 'u' || hex4(c->p + 2, &low) ||
                        low < 0xDC00 || low >= 0xE000)
                        return -1; /* a lone surrogate: unreadable */
                    c->p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp < 0xE000) {
                    return -1;
                }
                len = put_utf8(cp, buf);
                break;
            }
            default: return -1;
            }
        }
        if (out != NULL) {
            if (n + len > cap) return -1;
            memcpy(out + n, buf, len);
        }
        n += len;
    }
    if (c->p >= c->end) return -1;
    c->p++;
    return (long)n;
}

static int read_int(cursor *c, long long *out) {
    long long v = 0;
    int digits = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && digits < 18) {
        v = v * 10 + (*c->p++ - '0');
        digits++;
    }
    *out = v;
    return digits ? 0 : -1;
}

static int skip_value(cursor *c, int depth) {
    skip_ws(c);
    if (c->p >= c->end || depth > 100) return -1;
    char ch = *c->p;
    if (ch == '"') return read_string(c, NULL, 0) < 0 ? -1 : 0;
    if (ch == '{' || ch == '[') {
        char close = ch == '{' ? '}' : ']';
        c->p++;
        skip_ws(c);
        if (c->p < c->end && *c->p == close) { c->p++; return 0; }
        for (;;) {
            if (ch == '{') {
                skip_ws(c);
                if (read_string(c, NULL, 0) < 0) return -1;
                skip_ws(c);
                if (c->p >= c->end || *c->p++ != ':') return -1;
            }
            if (skip_value(c, depth + 1) < 0) return -1;
            skip_ws(c);
            if (c->p >= c->end) return -1;
            if (*c->p == ',') { c->p++; continue; }
            if (*c->p == close) { c->p++; return 0; }
            return -1;
        }
    }
    while (c->p < c->end && *c->p != ',' && *c->p != '}' && *c->p != ']' && *c->p != ' ') c->p++;
    return 0;
}

typedef struct {
    unsigned char seed[512];
    long seed_length;
    const char *moves;
    size_t move_count;
    long long score, max_tile;
    int has_max_tile, has_board;
    long long board[16];
} record;

static int read_board(cursor *c, long long board[16]) {
    for (int r = 0; r < 4; r++) {
        skip_ws(c);
        if (c->p >= c->end || *c->p++ != (r == 0 ? '[' : ',')) return -1;
        skip_ws(c);
        if (c->p >= c->end || *c->p++ != '[') return -1;
        for (int col = 0; col < 4; col++) {
            skip_ws(c);
            if (col && (c->p >= c->end || *c->p++ != ',')) return -1;
            skip_ws(c);
            if (read_int(c, &board[r * 4 + col])) return -1;
        }
        skip_ws(c);
        if (c->p >= c->end || *c->p++ != ']') return -1;
    }
    skip_ws(c);
    return c->p < c->end && *c->p++ == ']' ? 0 : -1;
}

static int read_record(const char *line, const char *end, record *rec) {
    cursor c = {line, end};
    memset(rec, 0, sizeof *rec);
    rec->seed_length = -1;
    skip_ws(&c);
    if (c.p >= c.end || *c.p++ != '{') return -1;
    for (;;) {
        skip_ws(&c);
        unsigned char key[32];
        long key_length = read_string(&c, key, sizeof key);
        skip_ws(&c);
        if (c.p >= c.end || *c.p++ != ':') return -1;
        skip_ws(&c);
        if (key_length == 4 && !memcmp(key, "seed", 4)) {
            rec->seed_length = read_string(&c, rec->seed, sizeof rec->seed);
            if (rec->seed_length < 1) return -1;
        } else if (key_length == 5 && !memcmp(key, "moves", 5)) {
            if (*c.p != '"') return -1;
            rec->moves = ++c.p;
            while (c.p < c.end && *c.p != '"' && *c.p != '\\') c.p++;
            if (c.p >= c.end || *c.p != '"') return -1;
            rec->move_count = (size_t)(c.p - rec->moves);
            c.p++;
        } else if (key_length == 5 && !memcmp(key, "score", 5)) {
            if (read_int(&c, &rec->score)) return -1;
        } else if (key_length == 8 && !memcmp(key, "max_tile", 8)) {
            if (read_int(&c, &rec->max_tile)) return -1;
            rec->has_max_tile = 1;
        } else if (key_length == 11 && !memcmp(key, "final_board", 11)) {
            if (read_board(&c, rec->board)) return -1;
            rec->has_board = 1;
        } else if (key_length < 0 || skip_value(&c, 1) < 0) {
            return -1;
        }
        skip_ws(&c);
        if (c.p >= c.end) return -1;
        if (*c.p == ',') { c.p++; continue; }
        if (*c.p == '}') break;
        return -1;
    }
    return rec->seed_length > 0 && rec->moves != NULL ? 0 : -1;
}

/* ------------------------------------------------------------------ verify */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int verify_file(const char *path) {
    double started = now();
    FILE *f = fopen(path, "rb");
    if (f == NULL) { perror(path); return 2; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = (char *)malloc((size_t)size + 1);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) { perror(path); return 2; }
    fclose(f);
    if (t48_rows_init() < 0) return 2;
    t48_sha256_init_dispatch();
    long records = 0, valid = 0, unreadable = 0;
    unsigned long long moves = 0;
    const char *p = data, *end = data + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        if (line_end > p) {
            record rec;
            records++;
            if (read_record(p, line_end, &rec) < 0) {
                unreadable++;
            } else {
                t48_hmac_key key;
                t48_hmac_init(&key, rec.seed, (size_t)rec.seed_length);
                run_result r;
                t48_replay_moves(&key, (const unsigned char *)rec.moves, rec.move_count, 0,
                                 t48_opening_board(&key), &r, NULL);
                moves += r.done;
                unsigned top = t48_max_exponent(r.board);
                int ok = r.status == RUN_OK && (long long)r.score == rec.score &&
                         (!rec.has_max_tile || rec.max_tile == (top ? 1LL << top : 0));
                for (int i = 0; ok && rec.has_board && i < 16; i++) {
                    unsigned e = t48_cell(r.board, i);
                    ok = rec.board[i] == (e ? 1LL << e : 0);
                }
                valid += ok;
            }
        }
        p = line_end + 1;
    }
    free(data);
    double seconds = now() - started;
    printf("%ld records: %ld valid, %ld invalid, %ld unreadable · %llu moves in %.3f s · %.0f moves/s · "
           "sha256 %s\n",
           records, valid, records - valid - unreadable, unreadable, moves, seconds,
           (double)moves / seconds, t48_sha256_impl());
    return valid == records ? 0 : 1;
}

/* ------------------------------------------------------------------ corpus */

static uint64_t weight4[16];

static uint64_t evaluate(t48_board b) {
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        unsigned e = t48_cell(b, i);
        v += e ? (1ull << e) * weight4[i] : (1ull << 18);
    }
    return v;
}

/* The board after direction d and its real spawn k; 0 if d is not a move. */
static int after(const t48_hmac_key *key, t48_board *b, int d, uint64_t k) {
    uint64_t gained;
    if (t48_move(b, d, &gained) != 1) return 0;
    uint32_t digest[8];
    t48_hmac_counter(key, k, digest);
    t48_place_spawn(b, digest, NULL);
    return 1;
}

static int write_corpus(long count, const char *path, const char *prefix) {
    static const int snake[16] = {0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12};
    for (int i = 0; i < 16; i++) weight4[i] = 1ull << (2 * snake[i]);
    if (t48_rows_init() < 0) return 2;
    t48_sha256_init_dispatch();
    FILE *out = fopen(path, "wb");
    if (out == NULL) { perror(path); return 2; }
    size_t cap = 1 << 20;
    char *letters = (char *)malloc(cap);
    unsigned long long total = 0;
    for (long g = 0; g < count; g++) {
        char seed[256];
        int seed_length = snprintf(seed, sizeof seed, "%s%ld", prefix, g);
        t48_hmac_key key;
        t48_hmac_init(&key, (const uint8_t *)seed, (size_t)seed_length);
        t48_board b = t48_opening_board(&key);
        uint64_t score = 0;
        size_t n = 0;
        for (;;) {
            int best = -1;
            uint64_t best_value = 0;
            for (int d = 0; d < 4; d++) {
                t48_board one = b;
                if (!after(&key, &one, d, n + 2)) continue;
                uint64_t next = 0;
                int any = 0;
                for (int d2 = 0; d2 < 4; d2++) {
                    t48_board two = one;
                    if (!after(&key, &two, d2, n + 3)) continue;
                    uint64_t v = evaluate(two);
                    if (!any || v > next) next = v;
                    any = 1;
                }
                uint64_t value = evaluate(one) / 2 + (any ? next / 2 : 0);
                if (best < 0 || value > best_value) { best = d; best_value = value; }
            }
            if (best < 0 || n + 1 >= cap) break;
            uint64_t gained = 0;
            t48_move(&b, best, &gained);
            score += gained;
            uint32_t digest[8];
            t48_hmac_counter(&key, n + 2, digest);
            t48_place_spawn(&b, digest, NULL);
            letters[n++] = "UDLR"[best];
        }
        total += n;
        unsigned top = t48_max_exponent(b);
        fprintf(out, "{\"format\":\"twenty48-record\",\"version\":1,\"seed\":\"%s\",\"moves\":\"%.*s\","
                     "\"score\":%llu,\"max_tile\":%llu,\"final_board\":[",
                seed, (int)n, letters, (unsigned long long)score, top ? 1ull << top : 0ull);
        for (int r = 0; r < 4; r++) {
            fprintf(out, "%s[", r ? "," : "");
            for (int c = 0; c < 4; c++) {
                unsigned e = t48_cell(b, r * 4 + c);
                fprintf(out, "%s%llu", c ? "," : "", e ? 1ull << e : 0ull);
            }
            fprintf(out, "]");
        }
        fprintf(out, "]}\n");
    }
    free(letters);
    fclose(out);
    printf("%ld games, %llu moves (mean %llu)\n", count, total, count ? total / (unsigned long long)count : 0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "verify")) return verify_file(argv[2]);
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "corpus")) {
        const char *prefix = argc == 5 ? argv[4] : "corpus-";
        if (strlen(prefix) > 200 || strpbrk(prefix, "\"\\")) return 2;
        return write_corpus(atol(argv[2]), argv[3], prefix);
    }
    fprintf(stderr, "usage: native_limit verify FILE.jsonl | native_limit corpus N FILE.jsonl [PREFIX]\n");
    return 2;
}
