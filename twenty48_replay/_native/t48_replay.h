/* The replay loop of the native core, shared by the extension and the benchmark's
 * limit program (tests/bench/native_limit.c): SPEC sections 3 to 5 on t48_board.
 *
 * Header-only (static inline), no Python: moves are bytes U, D, L, R; anything
 * else stops the replay with RUN_BAD_LETTER.
 */
#ifndef T48_REPLAY_H
#define T48_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "t48_board.h"
#include "t48_hmac.h"
#include "t48_rows.h"

static const signed char T48_LETTER_CODE[256] = {
    ['U'] = T48_UP + 1, ['D'] = T48_DOWN + 1, ['L'] = T48_LEFT + 1, ['R'] = T48_RIGHT + 1,
};

/* Why a replay stopped. */
enum { RUN_OK = 0, RUN_NULL_MOVE, RUN_BAD_LETTER, RUN_OVERFLOW, RUN_FULL };

typedef struct {
    uint64_t gained;
    t48_board board; /* after the move and its spawn */
    uint8_t cell;
    uint8_t four;
} step_record;

typedef struct {
    t48_board board; /* the last valid state */
    uint64_t score;  /* points of the moves replayed by this call */
    size_t done;     /* valid moves replayed by this call */
    int status;      /* RUN_*: why it stopped (RUN_OK: end of the string) */
} run_result;

/* Place spawn k's tile from its digest on a board that has an empty cell. */
static inline int t48_place_spawn(t48_board *b, const uint32_t digest[8], step_record *step) {
    unsigned empty = t48_empty_mask(*b);
    unsigned count = (unsigned)t48_popcount16(empty);
    if (T48_UNLIKELY(count == 0)) return -1; /* impossible after a valid move */
    int cell = t48_nth_set_bit(empty, t48_mod_small(t48_draw_selector(digest), count));
    int four = t48_draw_four(digest);
    t48_set_cell(b, cell, four ? 2u : 1u);
    if (step != NULL) {
        step->cell = (uint8_t)cell;
        step->four = (uint8_t)four;
    }
    return 0;
}

/* The replay loop: moves[0..n) from board b, move i being move number start + i + 1,
 * followed by spawn k = start + i + 2.  Digests are computed two at a time
 * (k and k + 1 interleaved), which costs little more than one. */
static inline void t48_replay_moves(const t48_hmac_key *hk, const unsigned char *moves, size_t n,
                         uint64_t start, t48_board b, run_result *out, step_record *steps) {
    uint32_t pair[2][8];
    uint64_t score = 0;
    size_t i = 0;
    int status = RUN_OK;
    for (; i < n; i++) {
        int code = T48_LETTER_CODE[moves[i]] - 1;
        if (T48_UNLIKELY(code < 0)) {
            status = RUN_BAD_LETTER;
            break;
        }
        uint64_t gained = 0;
        int moved = t48_move(&b, code, &gained);
        if (T48_UNLIKELY(moved <= 0)) {
            status = moved == 0 ? RUN_NULL_MOVE : RUN_OVERFLOW;
            break;
        }
        score += gained;
        uint64_t k = start + i + 2;
        if ((i & 1) == 0) {
            if (i + 1 < n) {
                t48_hmac_counter2(hk, k, pair[0], pair[1]);
            } else {
                t48_hmac_counter(hk, k, pair[0]);
            }
        }
        step_record *step = steps != NULL ? &steps[i] : NULL;
        if (T48_UNLIKELY(t48_place_spawn(&b, pair[i & 1], step) < 0)) {
            status = RUN_FULL;
            break;
        }
        if (step != NULL) {
            step->gained = gained;
            step->board = b;
        }
    }
    out->board = b;
    out->score = score;
    out->done = i;
    out->status = status;
}

/* The opening board of a seed: spawns k = 0 and k = 1 on the empty board. */
static inline t48_board t48_opening_board(const t48_hmac_key *hk) {
    uint32_t first[8], second[8];
    t48_hmac_counter2(hk, 0, first, second);
    t48_board b = {{0, 0, 0, 0}};
    t48_place_spawn(&b, first, NULL);
    t48_place_spawn(&b, second, NULL);
    return b;
}

#endif /* T48_REPLAY_H */
