/* The solver's expectimax in C: the same search as twenty48_replay/solver
 * (NumPy), depth first.
 *
 * Pure C (no Python): t48_solver.c wraps it as twenty48_replay._solver, and
 * a test or benchmark harness can link it alone.
 *
 * Boards come in the engine's packing (Board.packed: 16 cells of 5 bits,
 * cell i = 4*row + col at bits 5i..5i+4; `lo` = bits 0..63, `hi` = bits
 * 64..79).  Inside, the solver uses the NumPy solver's split layout (see
 * twenty48_replay/solver/tables.py): a 64-bit word of low nibbles, so a row
 * is a 16-bit word and a move is four lookups in 2**16-entry tables that fit
 * in the L2 cache, plus a 16-bit word of fifth exponent bits that is only
 * carried when a tile of 65536 or more can appear in the search ("wide"
 * mode, 2**20-entry tables).  Tiles up to 2**31 are handled; nothing is
 * capped at 32768.
 */
#ifndef T48_SOLVER_CORE_H
#define T48_SOLVER_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "t48_board.h"
#include "t48_ntuple.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Direction codes, in record-letter order (t48_board.h, twenty48_replay/rows.py). */
#define X48_UP T48_UP
#define X48_DOWN T48_DOWN
#define X48_LEFT T48_LEFT
#define X48_RIGHT T48_RIGHT

/* The deepest search accepted (move plies after the first); the recursion
 * uses two C frames per ply, so this also bounds the stack. */
#define X48_MAX_DEPTH 24

/* Heuristic weights: nneonneo/2048-ai's, as twenty48_replay/solver/tables.py.
 * Each can be overridden when compiling (-DX48_EMPTY_WEIGHT=500.0), which is
 * how the weights were tuned (README "Solver in C"); the package's build never
 * overrides them, so the C and NumPy tables stay equal. */
#ifndef X48_LOST_PENALTY
#define X48_LOST_PENALTY 200000.0
#endif
#ifndef X48_MONOTONICITY_WEIGHT
#define X48_MONOTONICITY_WEIGHT 47.0
#endif
#ifndef X48_SUM_WEIGHT
#define X48_SUM_WEIGHT 11.0
#endif
#ifndef X48_MERGES_WEIGHT
#define X48_MERGES_WEIGHT 700.0
#endif
#ifndef X48_EMPTY_WEIGHT
#define X48_EMPTY_WEIGHT 270.0
#endif
/* Spawn probabilities of the rules, and the floor of a live position's value. */
#define X48_P_TWO 0.9
#define X48_P_FOUR 0.1
#define X48_MIN_LIVE_VALUE 1.0

typedef struct {
    /* Chance-node depth where the heuristic scores: nneonneo's depth_limit,
     * the NumPy solver's plies - 1.  Searched directly unless a budget is set. */
    int depth;
    /* With a node budget: iterative deepening from this depth (always
     * completed, like the NumPy solver's min_plies) up to `depth`. */
    int min_depth;
    /* An afterstate whose path probability is below this is a leaf. */
    double cutoff;
    /* Node budget (0: none).  A deepening step that would pass it is not
     * started, or is abandoned and its partial values thrown away. */
    uint64_t max_nodes;
    /* Transposition table: a stored value searched deeper than needed may
     * answer (nneonneo's rule: more information for free); 0 asks for the
     * exact depth only, which makes a full-width search (cutoff 0) equal to
     * plain expectimax, value for value. */
    int reuse_deeper;
    /* 1: each root move is searched with a table of its own (a new stamp),
     * as nneonneo's search does; 0: the four share one.  A shared table lets
     * a later root move reuse values its predecessors stored, which were
     * computed along other paths, with other probabilities and so other
     * cuts: the value of a move then depends on the moves searched before it. */
    int table_per_move;
    /* The n-tuple network to score leaves with, or NULL for the
     * hand-tuned heuristic.  With a network, values are expected points to
     * come (each move's points included); see t48_solver_search.h. */
    const t48n_weights *net;
} x48_settings;

typedef struct {
    double values[4];     /* expected value per direction code; valid only where `valid` has the bit */
    int valid;            /* bit d set: direction d changes the board */
    int depth;            /* depth of the last completed search (plies = depth + 1) */
    uint64_t nodes;       /* afterstates + spawned boards, all deepening steps */
    uint64_t moves;       /* moves tried (4 per spawned board: nneonneo's moves_evaled) */
    uint64_t tt_hits;
    int wide;             /* 1 when the search carried the fifth exponent bits */
} x48_result;

/* A transposition table: reused across searches (a stamp marks the live
 * entries, so nothing is cleared between searches). */
typedef struct x48_tt x48_tt;

/* Build the 2**16-entry tables (about a millisecond); idempotent, not thread-safe. */
void x48_init(void);
/* Build the 2**20-entry tables for wide searches (about 20 MB, some tens of
 * ms); idempotent, not thread-safe; returns 0 when out of memory. */
int x48_init_wide(void);
int x48_wide_ready(void);

/* Transposition tables hold 2**bits entries of 16 bytes, bits from 18 (4 MB),
 * plus 256 kB for the positions near the leaves. */
#define X48_MIN_TT_BITS 18
/* Chance nodes with less remaining depth than this skip the table. */
#ifndef X48_TT_MIN_REMAINING
#define X48_TT_MIN_REMAINING 1
#endif

/* A table of 2**bits entries; NULL when out of memory or bits is out of range. */
x48_tt *x48_tt_new(unsigned bits);
void x48_tt_free(x48_tt *tt);
unsigned x48_tt_bits(const x48_tt *tt);

/* Whether a search of `depth` from this board needs the wide tables. */
int x48_needs_wide(uint64_t lo, uint64_t hi, int depth);

/* Search the board (packed) and fill `result`.  Returns 0, or -1 when the
 * board needs the wide tables and they are not built, or -2 on bad
 * settings.  Reentrant given distinct tables `tt`. */
int x48_search(uint64_t lo, uint64_t hi, const x48_settings *settings, x48_tt *tt,
               x48_result *result);

/* The tables, for tests: the 2**20-entry left/right slides and line
 * heuristic in the NumPy solver's 20-bit key layout (wide tables needed). */
const uint32_t *x48_table_left(void);
const uint32_t *x48_table_right(void);
const double *x48_table_heur(void);

#ifdef __cplusplus
}
#endif

#endif
