/* The n-tuple network and its TD training: see t48_ntuple.h.
 *
 * Board moves are the engine's (t48_rows.h: 5-bit cells, tiles up to 2**31);
 * the network reads the board through t48n_nibbles (exponents capped at 15).
 */
#include "t48_ntuple.h"

#include <math.h>
#include <string.h>

#include "t48_rows.h"

#if defined(__GNUC__) || defined(__clang__)
#define T48N_LOAD_INT(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#else
#define T48N_LOAD_INT(p) (*(volatile const int *)(p))
#endif

/* The 8 symmetries of the square, as boards: symmetric[s] has in cell i =
 * 4 * row + col what the board has in cell i after symmetry s (mirrored
 * left-right when s & 4, then turned a quarter clockwise (s & 3) times):
 * (row, col) -> (col, 3 - row) per quarter turn, (row, col) -> (row, 3 - col)
 * for the mirror.  Feature t * 8 + s reads tuple t's cells on symmetric[s];
 * the reference (twenty48_replay/solver/ntuple.py) reads the same cells, cell
 * by cell, and tests/solver/test_solver_ntuple.py checks the two agree. */
static inline uint64_t transpose_nibbles(uint64_t x) {
    uint64_t a = (x & 0xF0F00F0FF0F00F0Full) | ((x & 0x0000F0F00000F0F0ull) << 12) |
                 ((x & 0x0F0F00000F0F0000ull) >> 12);
    return (a & 0xFF00FF0000FF00FFull) | ((a & 0x00FF00FF00000000ull) >> 24) |
           ((a & 0x00000000FF00FF00ull) << 24);
}

/* Cell (row, col) gets the board's cell (col, 3 - row): the transpose, rows reversed. */
static inline uint64_t quarter_turn(uint64_t x) {
    uint64_t t = transpose_nibbles(x);
    return (t >> 48) | (t << 48) | ((t >> 16) & 0xFFFF0000ull) | ((t << 16) & 0xFFFF00000000ull);
}

/* Cell (row, col) gets the board's cell (row, 3 - col). */
static inline uint64_t mirror(uint64_t x) {
    x = ((x & 0x00FF00FF00FF00FFull) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFull);
    return ((x & 0x0F0F0F0F0F0F0F0Full) << 4) | ((x >> 4) & 0x0F0F0F0F0F0F0F0Full);
}

static inline void symmetric_boards(uint64_t nibbles, uint64_t symmetric[T48N_SYMMETRIES]) {
    symmetric[0] = nibbles;
    symmetric[1] = quarter_turn(nibbles);
    symmetric[2] = quarter_turn(symmetric[1]);
    symmetric[3] = quarter_turn(symmetric[2]);
    for (int s = 0; s < 4; s++) symmetric[4 + s] = mirror(symmetric[s]);
}

int t48n_setup(t48n_net *net) {
    if (net->n_tuples < 1 || net->n_tuples > T48N_MAX_TUPLES) return -1;
    if (net->n_stages < 1 || net->n_stages > T48N_MAX_STAGES || net->stage_min[0] != 0) return -1;
    for (int s = 1; s < net->n_stages; s++) {
        if (net->stage_min[s] <= net->stage_min[s - 1] || net->stage_min[s] > 31) return -1;
    }
    size_t offset = 0;
    for (int t = 0; t < net->n_tuples; t++) {
        int n = net->length[t];
        if (n < 1 || n > T48N_MAX_LEN) return -1;
        unsigned seen = 0;
        for (int k = 0; k < n; k++) {
            int cell = net->cells[t][k];
            if (cell < 0 || cell > 15 || (seen >> cell) & 1u) return -1;
            seen |= 1u << cell;
        }
        net->table_offset[t] = offset;
        offset += (size_t)1 << (4 * n);
        int runs = 0;
        for (int k = 0; k < n; k++) {
            int cell = net->cells[t][k];
            if (k > 0 && cell == net->cells[t][k - 1] + 1) {
                net->run_mask[t][runs - 1] = net->run_mask[t][runs - 1] << 4 | 15u;
                continue;
            }
            net->run_from[t][runs] = (uint8_t)(4 * cell);
            net->run_to[t][runs] = (uint8_t)(4 * k);
            net->run_mask[t][runs] = 15u;
            runs++;
        }
        net->n_runs[t] = runs;
    }
    net->stage_size = offset;
    net->total = offset * (size_t)net->n_stages;
    net->n_features = net->n_tuples * T48N_SYMMETRIES;
    for (int e = 0; e < 32; e++) {
        int stage = 0;
        for (int s = 1; s < net->n_stages; s++) {
            if (e >= net->stage_min[s]) stage = s;
        }
        net->stage_of_exponent[e] = (uint8_t)stage;
    }
    return 0;
}

/* One 20-bit row key -> its four cells capped at 15, four bits each. */
static inline uint64_t row_nibbles(uint32_t row) {
    uint32_t big = (row >> 4) & 0x08421u;       /* bit 0 of cell c: its exponent is >= 16 */
    uint32_t low = (row & 0x7BDEFu) | big * 15u; /* the low four bits, all ones when >= 16 */
    return (uint64_t)((low & 0xFu) | ((low >> 1) & 0xF0u) | ((low >> 2) & 0xF00u) |
                      ((low >> 3) & 0xF000u));
}

uint64_t t48n_nibbles(t48_board b) {
    return row_nibbles(b.row[0]) | row_nibbles(b.row[1]) << 16 | row_nibbles(b.row[2]) << 32 |
           row_nibbles(b.row[3]) << 48;
}

void t48n_indexes(const t48n_net *net, uint64_t nibbles, unsigned largest, uint32_t *out) {
    size_t base = (size_t)t48n_stage(net, largest) * net->stage_size;
    uint64_t symmetric[T48N_SYMMETRIES];
    symmetric_boards(nibbles, symmetric);
    for (int t = 0; t < net->n_tuples; t++) {
        uint32_t start = (uint32_t)(base + net->table_offset[t]);
        int runs = net->n_runs[t];
        const uint8_t *from = net->run_from[t], *to = net->run_to[t];
        const uint32_t *mask = net->run_mask[t];
        for (int s = 0; s < T48N_SYMMETRIES; s++) {
            uint64_t board = symmetric[s];
            uint32_t index = 0;
            for (int j = 0; j < runs; j++) {
                index |= ((uint32_t)(board >> from[j]) & mask[j]) << to[j];
            }
            out[t * T48N_SYMMETRIES + s] = start + index;
        }
    }
}

#if defined(__GNUC__) || defined(__clang__)
static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
#else
static inline int popcount64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}
#endif

static inline int16_t sparse_weight(const uint32_t *groups, const int16_t *values, uint32_t i) {
    const uint32_t *g = groups + 3 * (size_t)(i >> 6);
    uint64_t bits = (uint64_t)g[1] | (uint64_t)g[2] << 32;
    uint64_t below = bits & ((1ull << (i & 63u)) - 1);
    if (!((bits >> (i & 63u)) & 1u)) return 0;
    return values[g[0] + (uint32_t)popcount64(below)];
}

double t48n_evaluate(const t48n_weights *w, t48_board b) {
    return t48n_evaluate_nibbles(w, t48n_nibbles(b), t48_max_exponent(b));
}

double t48n_evaluate_nibbles(const t48n_weights *w, uint64_t nibbles, unsigned largest) {
    const t48n_net *net = w->net;
    uint32_t index[T48N_MAX_TUPLES * T48N_SYMMETRIES];
    t48n_indexes(net, nibbles, largest, index);
    if (w->kind == T48N_F32) {
        const float *v = (const float *)w->values;
        double sum = 0.0;
        for (int f = 0; f < net->n_features; f++) sum += (double)v[index[f]];
        return sum;
    }
    int64_t sum = 0;
    const int16_t *v = (const int16_t *)w->values;
    if (w->kind == T48N_I16) {
        for (int f = 0; f < net->n_features; f++) sum += v[index[f]];
    } else {
        for (int f = 0; f < net->n_features; f++) sum += sparse_weight(w->groups, v, index[f]);
    }
    return (double)sum * w->scale;
}

int t48n_check_sparse(const uint32_t *groups, size_t n_groups, size_t n_values) {
    uint64_t rank = 0;
    for (size_t k = 0; k < n_groups; k++) {
        const uint32_t *g = groups + 3 * k;
        if (g[0] != rank) return -1;
        rank += (uint64_t)popcount64((uint64_t)g[1] | (uint64_t)g[2] << 32);
        if (rank > n_values) return -1;
    }
    return rank == n_values ? 0 : -1;
}

/* ------------------------------------------------------------------ PRNG */

static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t t48n_game_state(uint64_t seed, uint64_t game) {
    return mix64(seed ^ mix64(game + 0x9E3779B97F4A7C15ull));
}

uint64_t t48n_next(uint64_t *state) {
    *state += 0x9E3779B97F4A7C15ull;
    return mix64(*state);
}

/* A spawn: a 4 when the high word mod 10 is 0 (p = 0.1), else a 2, on the
 * n-th empty cell (row-major), n = the low word times the count, >> 32. */
static inline void spawn(t48_board *b, uint64_t *state) {
    unsigned empty = t48_empty_mask(*b);
    unsigned count = (unsigned)t48_popcount16(empty);
    if (count == 0) return;
    uint64_t r = t48n_next(state);
    unsigned exponent = (r >> 32) % 10u == 0 ? 2u : 1u;
    unsigned n = (unsigned)(((r & 0xFFFFFFFFull) * count) >> 32);
    t48_set_cell(b, t48_nth_set_bit(empty, n), exponent);
}

/* -------------------------------------------------------------- training */

typedef struct {
    const t48n_net *net;
    const t48n_arrays *a;
    double coefficient; /* rate / n_features */
    int rule;
} learner;

static inline double value_at(const learner *l, const uint32_t *index) {
    const float *v = l->a->values;
    size_t stride = (size_t)l->a->stride;
    double sum = 0.0;
    for (int f = 0; f < l->net->n_features; f++) sum += (double)v[index[f] * stride];
    return sum;
}

static void features_of(const t48n_net *net, t48_board b, uint32_t *index) {
    t48n_indexes(net, t48n_nibbles(b), t48_max_exponent(b), index);
}

/* Move the value of the afterstate with these features toward `target`. */
static void learn(const learner *l, const uint32_t *index, double target) {
    double error = target - value_at(l, index);
    float *values = l->a->values;
    uint8_t *dirty = l->a->dirty;
    int n = l->net->n_features;
    if (l->rule == T48N_RULE_TC) {
        float ferror = (float)error;
        float fabs_error = (float)fabs(error);
        for (int f = 0; f < n; f++) {
            uint32_t i = index[f];
            float *wea = values + 3 * (size_t)i; /* weight, E, A */
            double coherence = wea[2] == 0.0f ? 1.0 : fabs((double)wea[1]) / (double)wea[2];
            float step = (float)(l->coefficient * coherence * error);
            wea[0] = wea[0] + step;
            wea[1] = wea[1] + ferror;
            wea[2] = wea[2] + fabs_error;
            if (dirty) dirty[i >> T48N_BLOCK_SHIFT] = 1;
        }
    } else {
        float step = (float)(l->coefficient * error);
        for (int f = 0; f < n; f++) {
            uint32_t i = index[f];
            values[i] = values[i] + step;
            if (dirty) dirty[i >> T48N_BLOCK_SHIFT] = 1;
        }
    }
}

/* Each game: greedy on reward + value of the afterstate (the first best in
 * U, D, L, R order); TD(0) from each afterstate to the next (target: the
 * next move's reward plus its afterstate's value, both computed before this
 * update; 0 after the last move). */
uint64_t t48n_train_games(const t48n_net *net, const t48n_arrays *arrays,
                          const t48n_train_config *config, uint64_t first, uint64_t step,
                          uint64_t count, t48n_game_result *results, const int *stop) {
    learner l = {net, arrays, config->rate / (double)net->n_features, config->rule};
    uint32_t prev[T48N_MAX_TUPLES * T48N_SYMMETRIES];
    uint32_t cand[T48N_MAX_TUPLES * T48N_SYMMETRIES];
    uint32_t best_index[T48N_MAX_TUPLES * T48N_SYMMETRIES];
    uint64_t played = 0;
    for (; played < count; played++) {
        if (stop != NULL && T48N_LOAD_INT(stop)) break;
        uint64_t game = first + played * step;
        uint64_t state = t48n_game_state(config->seed, game);
        t48_board board = {{0, 0, 0, 0}};
        spawn(&board, &state);
        spawn(&board, &state);
        uint64_t score = 0;
        uint32_t moves = 0;
        int have_prev = 0;
        for (;;) {
            double best = 0.0;
            int best_dir = -1;
            t48_board best_after = board;
            uint64_t best_gain = 0;
            for (int d = 0; d < 4; d++) {
                t48_board after = board;
                uint64_t gained = 0;
                if (t48_move(&after, d, &gained) != 1) continue;
                features_of(net, after, cand);
                double v = (double)gained + value_at(&l, cand);
                if (best_dir < 0 || v > best) {
                    best = v;
                    best_dir = d;
                    best_after = after;
                    best_gain = gained;
                    memcpy(best_index, cand, sizeof(uint32_t) * (size_t)net->n_features);
                }
            }
            if (best_dir < 0) {
                if (have_prev) learn(&l, prev, 0.0);
                break;
            }
            if (have_prev) learn(&l, prev, best);
            memcpy(prev, best_index, sizeof(uint32_t) * (size_t)net->n_features);
            have_prev = 1;
            score += best_gain;
            moves++;
            board = best_after;
            spawn(&board, &state);
        }
        results[played].score = score;
        results[played].moves = moves;
        results[played].largest = t48_max_exponent(board);
    }
    return played;
}

void t48n_merge(size_t total, int stride, float *shared, int n_copies, float *const *copies,
                uint8_t *const *dirty) {
    size_t block = (size_t)1 << T48N_BLOCK_SHIFT;
    size_t blocks = (total + block - 1) >> T48N_BLOCK_SHIFT;
    for (size_t k = 0; k < blocks; k++) {
        int any = 0;
        for (int c = 0; c < n_copies; c++) any |= dirty[c][k];
        if (!any) continue;
        size_t start = k * block * (size_t)stride;
        size_t end = (k * block + block < total ? k * block + block : total) * (size_t)stride;
        for (size_t i = start; i < end; i++) {
            float base = shared[i];
            float merged = base;
            for (int c = 0; c < n_copies; c++) {
                if (dirty[c][k]) merged = merged + (copies[c][i] - base);
            }
            shared[i] = merged;
        }
        for (int c = 0; c < n_copies; c++) {
            memcpy(copies[c] + start, shared + start, (end - start) * sizeof(float));
            dirty[c][k] = 0;
        }
    }
}

uint64_t t48n_play_games(const t48n_weights *w, uint64_t seed, uint64_t first, uint64_t step,
                         uint64_t count, t48n_game_result *results, const int *stop) {
    uint64_t played = 0;
    for (; played < count; played++) {
        if (stop != NULL && T48N_LOAD_INT(stop)) break;
        uint64_t state = t48n_game_state(seed, first + played * step);
        t48_board board = {{0, 0, 0, 0}};
        spawn(&board, &state);
        spawn(&board, &state);
        uint64_t score = 0;
        uint32_t moves = 0;
        for (;;) {
            double best = 0.0;
            int best_dir = -1;
            t48_board best_after = board;
            uint64_t best_gain = 0;
            for (int d = 0; d < 4; d++) {
                t48_board after = board;
                uint64_t gained = 0;
                if (t48_move(&after, d, &gained) != 1) continue;
                double v = (double)gained + t48n_evaluate(w, after);
                if (best_dir < 0 || v > best) {
                    best = v;
                    best_dir = d;
                    best_after = after;
                    best_gain = gained;
                }
            }
            if (best_dir < 0) break;
            score += best_gain;
            moves++;
            board = best_after;
            spawn(&board, &state);
        }
        results[played].score = score;
        results[played].moves = moves;
        results[played].largest = t48_max_exponent(board);
    }
    return played;
}
