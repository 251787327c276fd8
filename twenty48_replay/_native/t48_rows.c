/* Row tables: see t48_rows.h. */
#include "t48_rows.h"

#include <stdlib.h>

uint64_t *t48_row_tables[2];

int t48_rows_init(void) {
    for (int side = 0; side < 2; side++) {
        if (t48_row_tables[side] == NULL) {
            t48_row_tables[side] = (uint64_t *)calloc((size_t)1 << 20, sizeof(uint64_t));
            if (t48_row_tables[side] == NULL) return -1;
        }
    }
    return 0;
}

/* SPEC 3.2 slide_line on exponents: the tiles in order from the pushed edge,
 * equal neighbours merge once each, starting at the edge. */
uint64_t t48_row_compute(uint32_t key, int side) {
    unsigned line[4], tiles[4], out[4] = {0, 0, 0, 0};
    for (int c = 0; c < 4; c++) {
        unsigned e = (key >> (T48_CELL_BITS * c)) & T48_CELL_MASK;
        line[side == T48_TOWARD_START ? c : 3 - c] = e;
    }
    int count = 0;
    for (int i = 0; i < 4; i++)
        if (line[i]) tiles[count++] = line[i];
    uint64_t gained = 0, overflow = 0;
    int n = 0;
    for (int i = 0; i < count; n++) {
        if (i + 1 < count && tiles[i] == tiles[i + 1]) {
            if (tiles[i] >= T48_MAX_EXPONENT) {
                overflow = T48_ROW_OVERFLOW;
                out[n] = 0;
            } else {
                out[n] = tiles[i] + 1;
                gained += (uint64_t)2 << tiles[i];
            }
            i += 2;
        } else {
            out[n] = tiles[i];
            i += 1;
        }
    }
    uint32_t result = 0;
    for (int c = 0; c < 4; c++) {
        unsigned e = out[side == T48_TOWARD_START ? c : 3 - c];
        result |= (uint32_t)e << (T48_CELL_BITS * c);
    }
    return T48_ROW_KNOWN | overflow | (gained & T48_ROW_GAIN_MASK) << T48_ROW_GAIN_SHIFT | result;
}
