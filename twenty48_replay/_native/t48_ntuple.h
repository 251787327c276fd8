/* An afterstate n-tuple network for the solver, and its TD training.
 *
 * The network (Szubert and Jaskowski 2014): a few tuples of cells ("0 1 2 3 4
 * 5" = the top row and two cells under it); each tuple has a table with one
 * weight per combination of the values in its cells; the value of a board is
 * the sum, over every tuple and each of the 8 symmetries of the square, of
 * the weight its cells index.  A cell's value is its exponent capped at 15
 * (tiles of 32768 and up look alike to the network; the board itself keeps
 * every tile up to 2**31, t48_board.h), so a tuple of k cells has 16**k
 * weights.  With stages (Yeh et al. 2016), each stage has its own tables and
 * a board uses the tables of the last stage whose threshold its largest tile
 * reaches.
 *
 * Weights index: stage s, tuple t, combination c (cell k of the tuple in bits
 * 4k..4k+3 of c): weights[s * stage_size + table_offset[t] + c].
 *
 * Training (t48n_train_games): TD(0) on afterstates, played greedily by the
 * network (Szubert and Jaskowski's TD-afterstate), with either a fixed rate
 * (TD) or a per-weight adaptive rate (temporal coherence, Beal and Smith 1999,
 * as Jaskowski 2018 uses it).  Spawns come from a small PRNG per game
 * (splitmix64 seeded from the training seed and the game's index), not from
 * the record RNG: training needs speed, not checkable games.  Everything is
 * deterministic: a game's moves depend only on the weights and its index.
 *
 * Pure C (no Python); the Python side (twenty48_replay/solver/ntuple.py)
 * owns the arrays, checks every shape and header, and runs the threads.
 */
#ifndef T48_NTUPLE_H
#define T48_NTUPLE_H

#include <stddef.h>
#include <stdint.h>

#include "t48_board.h"

#ifdef __cplusplus
extern "C" {
#endif

#define T48N_MAX_TUPLES 16
#define T48N_MAX_LEN 7
#define T48N_MAX_STAGES 8
#define T48N_SYMMETRIES 8
#define T48N_VALUE_CAP 15 /* cell values 0..15 */
/* Dirty marks (threads' private copies) cover blocks of this many weights. */
#define T48N_BLOCK_SHIFT 8

/* Learning rules. */
#define T48N_RULE_TD 0
#define T48N_RULE_TC 1

typedef struct {
    int n_tuples;
    int length[T48N_MAX_TUPLES];
    int cells[T48N_MAX_TUPLES][T48N_MAX_LEN];
    int n_stages;
    int stage_min[T48N_MAX_STAGES]; /* stage s from this largest exponent up; [0] = 0 */
    /* derived by t48n_setup */
    size_t table_offset[T48N_MAX_TUPLES];
    size_t stage_size; /* weights per stage */
    size_t total;      /* weights in all */
    int n_features;    /* n_tuples * 8 */
    /* A tuple's cells as runs of consecutive cells (consecutive cells are
     * adjacent nibbles of the board): run j of tuple t takes the nibbles
     * (board >> run_from[t][j]) & run_mask[t][j] to bit run_to[t][j] of the
     * combination.  "0 1 2 4 5 6" is two runs, where cell by cell it is six. */
    int n_runs[T48N_MAX_TUPLES];
    uint8_t run_from[T48N_MAX_TUPLES][T48N_MAX_LEN];
    uint8_t run_to[T48N_MAX_TUPLES][T48N_MAX_LEN];
    uint32_t run_mask[T48N_MAX_TUPLES][T48N_MAX_LEN];
    uint8_t stage_of_exponent[32];
} t48n_net;

/* Fill the derived fields.  Returns 0, or -1 when the shape is out of range
 * (no tuples, a tuple of 0 or more than T48N_MAX_LEN cells, a cell outside
 * 0..15 or twice in a tuple, stages not increasing from 0). */
int t48n_setup(t48n_net *net);

/* The 16 cells as capped 4-bit values (cell i at bits 4i..4i+3). */
uint64_t t48n_nibbles(t48_board b);

/* The weights' indexes of the n_features features of a nibble board (stage included). */
void t48n_indexes(const t48n_net *net, uint64_t nibbles, unsigned largest, uint32_t *out);

/* The stage of a board whose largest exponent is `largest`. */
static inline int t48n_stage(const t48n_net *net, unsigned largest) {
    return net->stage_of_exponent[largest & 31u];
}

/* One game's result. */
typedef struct {
    uint64_t score;
    uint32_t moves;
    uint32_t largest; /* exponent of the largest tile */
} t48n_game_result;

/* Weights as a file holds them (twenty48_replay/solver/weights.py checks the
 * file; t48n_check_sparse checks a sparse index before any lookup):
 *
 * - T48N_F32: `total` float32 values;
 * - T48N_I16: `total` int16 values, times `scale`;
 * - T48N_I16_SPARSE: the nonzero int16 values only, in index order, and an
 *   index of `groups` = total / 64 groups of three uint32 words: the number
 *   of stored values before the group, then the group's 64-bit mask of
 *   nonzero weights (low word, high word).  Weight i is 0 when bit i % 64 of
 *   its group's mask is clear, else values[rank + popcount(bits below it)]. */
#define T48N_F32 0
#define T48N_I16 1
#define T48N_I16_SPARSE 2

typedef struct {
    const t48n_net *net;
    int kind;
    double scale;
    const void *values;
    const uint32_t *groups; /* T48N_I16_SPARSE only */
    /* Unique to these weights in this process, never 0 (set by the loader,
     * t48_ntuple_py.h): the search's table of leaf values is keyed by it.  An
     * address is no key: weights freed and new ones loaded can get the same one. */
    uint64_t serial;
} t48n_weights;

/* The value of an afterstate: float32 weights summed in double precision in
 * feature order; int16 weights summed exactly, times the scale. */
double t48n_evaluate(const t48n_weights *w, t48_board b);
/* The same from the capped nibble board (t48n_nibbles) and the exponent of
 * the largest tile (which picks the stage). */
double t48n_evaluate_nibbles(const t48n_weights *w, uint64_t nibbles, unsigned largest);

/* 0 when a sparse index is consistent with `n_values` stored values
 * (ranks counted right, every group's rank + count within n_values), else -1. */
int t48n_check_sparse(const uint32_t *groups, size_t n_groups, size_t n_values);

/* Play games first, first + step, ... greedily (reward + value, no search,
 * no learning) with the training PRNG; results as t48n_train_games. */
uint64_t t48n_play_games(const t48n_weights *w, uint64_t seed, uint64_t first, uint64_t step,
                         uint64_t count, t48n_game_result *results, const int *stop);

typedef struct {
    int rule;      /* T48N_RULE_TD or T48N_RULE_TC */
    double rate;   /* TD: alpha; TC: beta.  The change of a board's value per update is
                      about rate * error: each of the n_features weights moves by
                      rate * error / n_features (times its own coherence under TC) */
    uint64_t seed; /* the training seed */
} t48n_train_config;

/* The arrays a training changes.  `values` holds `stride` floats per weight:
 * under TD (stride 1) the weight; under TC (stride 3) the weight, the sum of
 * its errors (E) and the sum of their absolute values (A), side by side, so
 * that an update touches one cache line, not three.  `dirty` (may be NULL)
 * gets a 1 for every block of 2**T48N_BLOCK_SHIFT weights that changed. */
typedef struct {
    float *values;
    int stride;
    uint8_t *dirty;
} t48n_arrays;

/* Play and learn from games first, first + step, ..., (count of them) in
 * order, writing each game's result to results[i].  Stops early (between
 * games) when *stop becomes nonzero (read with a relaxed atomic load); returns
 * the number of games played.  Needs t48_rows_init() to have succeeded. */
uint64_t t48n_train_games(const t48n_net *net, const t48n_arrays *arrays,
                          const t48n_train_config *config, uint64_t first, uint64_t step,
                          uint64_t count, t48n_game_result *results, const int *stop);

/* Merge threads' private copies into the shared arrays, block by block: for
 * each block of weights some copy marked dirty, shared += sum over copies (in
 * order) of (copy - shared), float by float, then every copy gets the merged
 * block and its marks are cleared.  `total` weights of `stride` floats. */
void t48n_merge(size_t total, int stride, float *shared, int n_copies, float *const *copies,
                uint8_t *const *dirty);

/* The index of the lowest set bit of a nonzero word. */
static inline int t48n_lowest_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1u)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* The training PRNG (exposed for the reference tests). */
uint64_t t48n_game_state(uint64_t seed, uint64_t game);
uint64_t t48n_next(uint64_t *state);

#ifdef __cplusplus
}
#endif

#endif /* T48_NTUPLE_H */
