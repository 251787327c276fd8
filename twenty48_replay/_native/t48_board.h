/* The 4x4 board of twenty48-replay in C: the same packing as twenty48_replay/rows.py.
 *
 * A cell holds the exponent e of its tile (tile 2**e, 0 = empty) in 5 bits, so
 * tiles up to 2**31 fit and 65536 + 65536 -> 131072 works (4-bit packings cap at
 * 32768).  Cell i = row*4 + col (row 0 on top, col 0 on the left) sits at bits
 * 5i..5i+4 of Python's 80-bit Board.packed; a row is a 20-bit key with column 0
 * in its lowest bits.  In C the board is kept as its four row keys, which is
 * what the row tables (t48_rows.h) index.
 *
 * Header-only: every function is static inline, so each extension module that
 * includes it gets its own copy and nothing needs linking.
 */
#ifndef T48_BOARD_H
#define T48_BOARD_H

#include <stdint.h>

/* Direction codes: the same as rows.py (UP, DOWN, LEFT, RIGHT = 0..3). */
#define T48_UP 0
#define T48_DOWN 1
#define T48_LEFT 2
#define T48_RIGHT 3

#define T48_CELL_BITS 5
#define T48_CELL_MASK 31u
#define T48_ROW_MASK 0xFFFFFu
#define T48_MAX_EXPONENT 31

typedef struct {
    uint32_t row[4]; /* row[r]: the 20-bit key of row r, column 0 in bits 0..4 */
} t48_board;

/* From the 80-bit packing split in two: lo = bits 0..63, hi = bits 64..79. */
static inline t48_board t48_board_from_packed(uint64_t lo, uint64_t hi) {
    t48_board b;
    b.row[0] = (uint32_t)(lo & T48_ROW_MASK);
    b.row[1] = (uint32_t)((lo >> 20) & T48_ROW_MASK);
    b.row[2] = (uint32_t)((lo >> 40) & T48_ROW_MASK);
    b.row[3] = (uint32_t)(((lo >> 60) | (hi << 4)) & T48_ROW_MASK);
    return b;
}

/* To the 80-bit packing: *lo = bits 0..63, *hi = bits 64..79. */
static inline void t48_board_packed(t48_board b, uint64_t *lo, uint64_t *hi) {
    *lo = (uint64_t)b.row[0] | (uint64_t)b.row[1] << 20 | (uint64_t)b.row[2] << 40 |
          (uint64_t)b.row[3] << 60;
    *hi = (uint64_t)(b.row[3] >> 4);
}

static inline unsigned t48_cell(t48_board b, int cell) {
    return (b.row[cell >> 2] >> (T48_CELL_BITS * (cell & 3))) & T48_CELL_MASK;
}

static inline void t48_set_cell(t48_board *b, int cell, unsigned exponent) {
    int shift = T48_CELL_BITS * (cell & 3);
    uint32_t *row = &b->row[cell >> 2];
    *row = (*row & ~(T48_CELL_MASK << shift)) | ((uint32_t)(exponent & T48_CELL_MASK) << shift);
}

static inline int t48_board_equal(t48_board a, t48_board b) {
    return a.row[0] == b.row[0] && a.row[1] == b.row[1] && a.row[2] == b.row[2] &&
           a.row[3] == b.row[3];
}

/* The transposed board: cell (r, c) of the result is cell (c, r) of b, so the
 * columns of b become rows (column c read top to bottom = row c left to right).
 *
 * A block transpose on two 64-bit words, each holding two rows 32 bits apart
 * (the struct's own layout): transpose the four 2x2 blocks in place (swap cells
 * (0,1) <-> (1,0) and (0,3) <-> (1,2): 27 bits apart), then swap the two
 * off-diagonal blocks between the words (10 bits apart).  About 20 operations
 * and no loads, instead of 16 extractions and insertions. */
static inline t48_board t48_transpose(t48_board b) {
    const uint64_t low = 0x000FFFFF000FFFFFull; /* 20 bits of each row */
    uint64_t top = (uint64_t)b.row[0] | (uint64_t)b.row[1] << 32;
    uint64_t bottom = (uint64_t)b.row[2] | (uint64_t)b.row[3] << 32;
    /* cells (0,1), (0,3) of a word's first row: bits 5..9 and 15..19 */
    const uint64_t up = 0x00000000000F83E0ull;
    /* cells (1,0), (1,2) of its second row: bits 32..36 and 42..46 */
    const uint64_t down = up << 27;
    const uint64_t keep = low & ~(up | down);
    top = (top & keep) | (top & up) << 27 | (top & down) >> 27;
    bottom = (bottom & keep) | (bottom & up) << 27 | (bottom & down) >> 27;
    /* columns 0-1 of each row: bits 0..9 (+32); columns 2-3: bits 10..19 (+32) */
    const uint64_t left = 0x000003FF000003FFull;
    const uint64_t right = left << 10;
    uint64_t new_top = (top & left) | (bottom & left) << 10;
    uint64_t new_bottom = (bottom & right) | (top & right) >> 10;
    t48_board t;
    t.row[0] = (uint32_t)(new_top & T48_ROW_MASK);
    t.row[1] = (uint32_t)(new_top >> 32);
    t.row[2] = (uint32_t)(new_bottom & T48_ROW_MASK);
    t.row[3] = (uint32_t)(new_bottom >> 32);
    return t;
}

/* The same by the definition, cell by cell (the tests check the fast one against it). */
static inline t48_board t48_transpose_slow(t48_board b) {
    t48_board t;
    for (int c = 0; c < 4; c++) {
        int s = T48_CELL_BITS * c;
        t.row[c] = ((b.row[0] >> s) & T48_CELL_MASK) | ((b.row[1] >> s) & T48_CELL_MASK) << 5 |
                   ((b.row[2] >> s) & T48_CELL_MASK) << 10 | ((b.row[3] >> s) & T48_CELL_MASK) << 15;
    }
    return t;
}

/* 4-bit mask of the empty cells of one row key (bit c = column c empty). */
static inline unsigned t48_row_empty_mask(uint32_t row) {
    /* bit 5c of `any` is set when cell c holds a tile; multiplying by 0x1111
     * gathers bits 0, 5, 10, 15 into bits 12..15 without carries. */
    uint32_t any = (row | row >> 1 | row >> 2 | row >> 3 | row >> 4) & 0x8421u;
    return ~((any * 0x1111u) >> 12) & 0xFu;
}

/* 16-bit mask of the empty cells (bit i = cell i empty), row-major. */
static inline unsigned t48_empty_mask(t48_board b) {
    return t48_row_empty_mask(b.row[0]) | t48_row_empty_mask(b.row[1]) << 4 |
           t48_row_empty_mask(b.row[2]) << 8 | t48_row_empty_mask(b.row[3]) << 12;
}

static inline unsigned t48_max_exponent(t48_board b) {
    unsigned best = 0;
    for (int i = 0; i < 16; i++) {
        unsigned e = t48_cell(b, i);
        best = e > best ? e : best;
    }
    return best;
}

static inline int t48_popcount16(unsigned mask) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcount(mask & 0xFFFFu);
#else
    int n = 0;
    for (mask &= 0xFFFFu; mask; mask &= mask - 1) n++;
    return n;
#endif
}

/* t48_select_table[byte][n]: the index of the n-th set bit of a byte (8 if none). */
extern const uint8_t t48_select_table[256][8];

/* Index of the n-th (0-based) set bit of a 16-bit mask that has more than n bits:
 * one table lookup in the low or the high byte, without a loop or a branch to
 * mispredict. */
static inline int t48_nth_set_bit(unsigned mask, unsigned n) {
    unsigned low = mask & 0xFFu;
    unsigned in_low = (unsigned)t48_popcount16(low);
    unsigned high = n >= in_low;
    unsigned byte = high ? (mask >> 8) & 0xFFu : low;
    unsigned index = high ? n - in_low : n;
    return (int)(t48_select_table[byte][index & 7u] + (high << 3));
}

/* x mod n for any 64-bit x and 1 <= n <= 16, without a division instruction:
 * 720720 is a multiple of every such n, so x mod n = (x mod 720720) mod n; the
 * first is a division by a constant (a multiplication), the second a multiply
 * by a rounded-up reciprocal that is exact below 2**20. */
extern const uint64_t t48_reciprocal16[17];

static inline unsigned t48_mod_small(uint64_t x, unsigned n) {
    uint32_t r = (uint32_t)(x % 720720u);
    uint32_t q = (uint32_t)(((uint64_t)r * t48_reciprocal16[n]) >> 32);
    return r - q * n;
}

#endif /* T48_BOARD_H */
