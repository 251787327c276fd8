/* Row tables: one move of one 20-bit row, looked up instead of computed.
 *
 * The rules of a move (schema/SPEC.md section 3) are the slide of each of the
 * four lines; a line is a 20-bit row key (t48_board.h), so the slide of every
 * possible row can be tabulated: 2**20 entries per side.  A table is calloc'd
 * (the kernel hands out zero pages only when touched) and each entry is
 * computed on first use; a game meets a few thousand distinct rows, so start-up
 * costs nothing and memory stays small.  Entries are read and written with
 * relaxed atomics, so threads running with the GIL released may share them.
 */
#ifndef T48_ROWS_H
#define T48_ROWS_H

#include <stdint.h>

#include "t48_board.h"

/* Entry layout. */
#define T48_ROW_RESULT_MASK 0xFFFFFull            /* bits 0..19: the row after the slide */
#define T48_ROW_GAIN_SHIFT 20                     /* bits 20..53: points gained (<= 2**33) */
#define T48_ROW_GAIN_MASK 0x3FFFFFFFFull
#define T48_ROW_OVERFLOW (1ull << 62)             /* a merge of two 2**31 tiles */
#define T48_ROW_KNOWN (1ull << 63)                /* the entry has been computed */

/* Sides: toward column 0 (LEFT on rows, UP on columns) or toward column 3. */
#define T48_TOWARD_START 0
#define T48_TOWARD_END 1

/* Allocate the tables; returns 0 on success, -1 when memory is short.  Idempotent. */
int t48_rows_init(void);

extern uint64_t *t48_row_tables[2];

/* Compute one entry (the slow path; also what fills the tables). */
uint64_t t48_row_compute(uint32_t key, int side);

#if defined(__GNUC__) || defined(__clang__)
#define T48_LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define T48_STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define T48_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else /* MSVC: aligned 64-bit loads and stores are atomic on x64 and arm64 */
#define T48_LOAD_RELAXED(p) (*(volatile uint64_t *)(p))
#define T48_STORE_RELAXED(p, v) (*(volatile uint64_t *)(p) = (v))
#define T48_UNLIKELY(x) (x)
#endif

static inline uint64_t t48_row_entry(uint32_t key, int side) {
    uint64_t *slot = &t48_row_tables[side][key & T48_ROW_MASK];
    uint64_t entry = T48_LOAD_RELAXED(slot);
    if (T48_UNLIKELY(!entry)) {
        entry = t48_row_compute(key & T48_ROW_MASK, side);
        T48_STORE_RELAXED(slot, entry);
    }
    return entry;
}

/* Move codes (T48_UP..T48_RIGHT) to the side their lines slide toward. */
static inline int t48_side_of(int direction) {
    return direction == T48_DOWN || direction == T48_RIGHT;
}

/* Apply a direction.  Returns 1 when the board changed (*b updated, *gained set),
 * 0 when it did not (a null move: *b untouched), -1 on a tile overflow. */
static inline int t48_move(t48_board *b, int direction, uint64_t *gained) {
    int side = t48_side_of(direction);
    int vertical = direction <= T48_DOWN;
    t48_board src = vertical ? t48_transpose(*b) : *b;
    uint64_t e0 = t48_row_entry(src.row[0], side), e1 = t48_row_entry(src.row[1], side);
    uint64_t e2 = t48_row_entry(src.row[2], side), e3 = t48_row_entry(src.row[3], side);
    if (T48_UNLIKELY((e0 | e1 | e2 | e3) & T48_ROW_OVERFLOW)) return -1;
    t48_board out;
    out.row[0] = (uint32_t)(e0 & T48_ROW_RESULT_MASK);
    out.row[1] = (uint32_t)(e1 & T48_ROW_RESULT_MASK);
    out.row[2] = (uint32_t)(e2 & T48_ROW_RESULT_MASK);
    out.row[3] = (uint32_t)(e3 & T48_ROW_RESULT_MASK);
    if (t48_board_equal(out, src)) return 0;
    *gained = ((e0 >> T48_ROW_GAIN_SHIFT) & T48_ROW_GAIN_MASK) +
              ((e1 >> T48_ROW_GAIN_SHIFT) & T48_ROW_GAIN_MASK) +
              ((e2 >> T48_ROW_GAIN_SHIFT) & T48_ROW_GAIN_MASK) +
              ((e3 >> T48_ROW_GAIN_SHIFT) & T48_ROW_GAIN_MASK);
    *b = vertical ? t48_transpose(out) : out;
    return 1;
}

/* Whether any direction changes the board.  A board with some tiles and some
 * empty cells always has one: if every row and every column were already full
 * or empty, the board would be all full or all empty. */
static inline int t48_can_move(t48_board b) {
    unsigned empty = t48_empty_mask(b);
    if (empty != 0 && empty != 0xFFFFu) return 1;
    for (int d = 0; d < 4; d++) {
        t48_board copy = b;
        uint64_t gained;
        if (t48_move(&copy, d, &gained) != 0) return 1;
    }
    return 0;
}

#endif /* T48_ROWS_H */
