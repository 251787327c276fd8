/* Tables, board operations, transposition table and the driver of the
 * solver's expectimax (see t48_solver_core.h and t48_solver_search.h).
 *
 * The tables are computed from the same definitions and in the same order
 * of floating-point operations as twenty48_replay/solver/tables.py, so
 * the two solvers score every line alike (tests compare the tables).
 */
#include "t48_solver_core.h"

#include "t48_ntuple.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#if defined(MADV_HUGEPAGE)
#define X48_HUGE_PAGES 1
#endif
#endif

/* Tables start on a 2 MB boundary, so that huge pages can back them. */
#define X48_TT_ALIGN ((size_t)2 << 20)

/* ------------------------------------------------------------------ bits */

#if defined(__GNUC__) || defined(__clang__)
static inline int x48_ctz(uint64_t x) { return __builtin_ctzll(x); }
#else
static inline int x48_ctz(uint64_t x)
{
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
}
#endif

/* Bit shift of cell i's nibble (4i) -> the shift of the same cell in the transpose. */
static inline int x48_transposed_shift(int shift)
{
    int cell = shift >> 2;
    return (((cell & 3) << 2) | (cell >> 2)) << 2;
}

/* ---------------------------------------------------------------- tables */

#define X48_NARROW_KEYS 65536u
#define X48_WIDE_KEYS (1u << 20)

static uint16_t narrow_left[X48_NARROW_KEYS];
static uint16_t narrow_right[X48_NARROW_KEYS];
static double narrow_heur[X48_NARROW_KEYS];
static int narrow_ready;

static uint32_t *wide_left;
static uint32_t *wide_right;
static double *wide_heur;

/* Points a slide scores, per row key and side (the network's search adds
 * them; the heuristic's does not): X48_GAIN_LEFT toward column 0. */
#define X48_GAIN_LEFT 0
#define X48_GAIN_RIGHT 1
static uint32_t narrow_gain[2][X48_NARROW_KEYS];
static uint64_t *wide_gain[2];

static double power_mono[32];
static double power_sum[32];

static void line_of_key(uint32_t key, int cells[4])
{
    for (int j = 0; j < 4; j++) {
        cells[j] = (int)(((key >> (4 * j)) & 15u) | (((key >> (16 + j)) & 1u) << 4));
    }
}

static uint32_t key_of_line(const int cells[4])
{
    uint32_t key = 0;
    for (int j = 0; j < 4; j++) {
        uint32_t c = (uint32_t)cells[j] & 31u;
        key |= ((c & 15u) << (4 * j)) | ((c >> 4) << (16 + j));
    }
    return key;
}

/* Slide toward index 0: pack, then merge each slot with the next equal tile
 * once (tables.py slide_left); 31 + 31 wraps to 0 as there (never in a game).
 * Returns the points the merges score (2**(e+1) for two tiles 2**e). */
static uint64_t slide_line(int a[4])
{
    uint64_t gained = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (int j = 0; j < 3; j++) {
            if (a[j] == 0) {
                a[j] = a[j + 1];
                a[j + 1] = 0;
            }
        }
    }
    for (int j = 0; j < 3; j++) {
        if (a[j] != 0 && a[j] == a[j + 1]) {
            gained += (uint64_t)2 << a[j];
            a[j] = (a[j] + 1) & 31;
            for (int k = j + 1; k < 3; k++) {
                a[k] = a[k + 1];
            }
            a[3] = 0;
        }
    }
    return gained;
}

/* nneonneo's line heuristic, in tables.py line_heuristic's order of operations. */
static double line_heuristic(const int c[4])
{
    long empty = 0;
    double total = 0.0;
    for (int j = 0; j < 4; j++) {
        empty += c[j] == 0;
        total += power_sum[c[j]];
    }
    long merges = 0;
    int prev = 0;
    long counter = 0;
    for (int j = 0; j < 4; j++) {
        int rank = c[j];
        if (rank == 0) {
            continue;
        }
        if (prev == rank) {
            counter++;
        } else if (counter > 0) {
            merges += 1 + counter;
            counter = 0;
        }
        prev = rank;
    }
    if (counter > 0) {
        merges += 1 + counter;
    }
    double mono_left = 0.0;
    double mono_right = 0.0;
    for (int j = 1; j < 4; j++) {
        double drop = power_mono[c[j - 1]] - power_mono[c[j]];
        if (c[j - 1] > c[j]) {
            mono_left += drop;
        } else {
            mono_right += -drop;
        }
    }
    double mono = mono_left < mono_right ? mono_left : mono_right;
    return X48_LOST_PENALTY + X48_EMPTY_WEIGHT * (double)empty + X48_MERGES_WEIGHT * (double)merges
           - X48_MONOTONICITY_WEIGHT * mono - X48_SUM_WEIGHT * total;
}

static void table_entry(uint32_t key, uint32_t *left, uint32_t *right, double *heur,
                        uint64_t gains[2])
{
    int cells[4];
    int moved[4];
    int reversed[4];
    line_of_key(key, cells);
    *heur = line_heuristic(cells);
    memcpy(moved, cells, sizeof moved);
    gains[X48_GAIN_LEFT] = slide_line(moved);
    *left = key_of_line(moved);
    for (int j = 0; j < 4; j++) {
        reversed[j] = cells[3 - j];
    }
    gains[X48_GAIN_RIGHT] = slide_line(reversed);
    for (int j = 0; j < 4; j++) {
        moved[j] = reversed[3 - j];
    }
    *right = key_of_line(moved);
}

/* rank**4 and rank**3.5 as tables.py rank_powers computes them (an exact
 * cube times a correctly rounded sqrt, never pow(), whose last bit differs
 * between C libraries and NumPy). */
static void init_powers(void)
{
    for (int r = 0; r < 32; r++) {
        double x = (double)r;
#ifdef X48_MONOTONICITY_POWER /* tuning builds only: pow() need not match NumPy's last bit */
        power_mono[r] = pow(x, X48_MONOTONICITY_POWER);
#else
        power_mono[r] = x * x * x * x;
#endif
#ifdef X48_SUM_POWER
        power_sum[r] = pow(x, X48_SUM_POWER);
#else
        power_sum[r] = x * x * x * sqrt(x);
#endif
    }
}

void x48_init(void)
{
    if (narrow_ready) {
        return;
    }
    init_powers();
    for (uint32_t key = 0; key < X48_NARROW_KEYS; key++) {
        uint32_t left, right;
        uint64_t gains[2];
        table_entry(key, &left, &right, &narrow_heur[key], gains);
        narrow_gain[X48_GAIN_LEFT][key] = (uint32_t)gains[X48_GAIN_LEFT];
        narrow_gain[X48_GAIN_RIGHT][key] = (uint32_t)gains[X48_GAIN_RIGHT];
        narrow_left[key] = (uint16_t)(left & 0xFFFFu);
        narrow_right[key] = (uint16_t)(right & 0xFFFFu);
    }
    narrow_ready = 1;
}

int x48_init_wide(void)
{
    if (wide_heur != NULL) {
        return 1;
    }
    x48_init();
    uint32_t *left = malloc(X48_WIDE_KEYS * sizeof *left);
    uint32_t *right = malloc(X48_WIDE_KEYS * sizeof *right);
    double *heur = malloc(X48_WIDE_KEYS * sizeof *heur);
    uint64_t *gain_left = malloc(X48_WIDE_KEYS * sizeof *gain_left);
    uint64_t *gain_right = malloc(X48_WIDE_KEYS * sizeof *gain_right);
    if (left == NULL || right == NULL || heur == NULL || gain_left == NULL || gain_right == NULL) {
        free(left);
        free(right);
        free(heur);
        free(gain_left);
        free(gain_right);
        return 0;
    }
    for (uint32_t key = 0; key < X48_WIDE_KEYS; key++) {
        uint64_t gains[2];
        table_entry(key, &left[key], &right[key], &heur[key], gains);
        gain_left[key] = gains[X48_GAIN_LEFT];
        gain_right[key] = gains[X48_GAIN_RIGHT];
    }
    wide_gain[X48_GAIN_LEFT] = gain_left;
    wide_gain[X48_GAIN_RIGHT] = gain_right;
    wide_left = left;
    wide_right = right;
    wide_heur = heur;
    return 1;
}

int x48_wide_ready(void) { return wide_heur != NULL; }
const uint32_t *x48_table_left(void) { return wide_left; }
const uint32_t *x48_table_right(void) { return wide_right; }
const double *x48_table_heur(void) { return wide_heur; }

/* ----------------------------------------------------- transposition table */

/* Two tables of 16-byte entries, four to a 64-byte line (a bucket, 4-way):
 *
 * - the deep one (2**bits entries) for positions with 3 or more plies left;
 * - a shallow one (2**14 entries, 256 kB: it stays in the L2 cache beside
 *   the row tables) for positions with 1 or 2 plies left.  Most lookups are
 *   of those, their subtrees are small and their transpositions close in
 *   time, so an L2 hit beats a trip to memory (measured: 8% less time,
 *   against 14% more nodes).
 *
 * A board's 64-bit hash is a bijection of a narrow board (a multiplication
 * by an odd constant), split into the bucket index (its top bits) and the
 * tag kept in `check` (the rest, shifted up), so a narrow board is never
 * mistaken for another.  A wide board (80 bits) is hashed to 64 first.  The
 * low bits of `check` hold an 11-bit search stamp (entries of other
 * searches are empty) and the remaining depth: 5 bits in the deep table
 * (tags from 16 bits up: bits >= 18), 1 bit in the shallow one (depth 1 or
 * 2; tags from 12 bits up). */
typedef struct {
    uint64_t check;
    double value;
} x48_entry;

#define X48_WAYS 4
#define X48_STAMP_BITS 11
#define X48_STAMP_MASK ((1u << X48_STAMP_BITS) - 1)
#define X48_SHALLOW_BITS 14
#define X48_SHALLOW_MAX_REMAINING 2

/* The network's values of narrow afterstates, direct-mapped by board: a
 * search meets the same leaf along many paths (two moves in either order),
 * and one lookup here (1 MiB, in the core's cache) saves the network's 32
 * lookups in 134 MB.  Keyed by the whole board, so a hit is exact; board 0
 * (no tiles) is never an afterstate, so zeroed entries are empty.  Emptied
 * when a search brings other weights (their serial, t48n_weights). */
typedef struct {
    uint64_t board;
    double value;
} x48_eval_entry;

#define X48_EVAL_BITS 14

struct x48_tt {
    x48_eval_entry *eval; /* 1 << X48_EVAL_BITS entries */
    uint64_t eval_serial; /* the serial of the weights whose values `eval` holds (0: none) */
    void *memory;
    x48_entry *entries; /* 2 MB aligned */
    void *shallow_memory;
    x48_entry *shallow; /* 64-byte aligned */
    unsigned bits;
    uint32_t stamp;
};

x48_tt *x48_tt_new(unsigned bits)
{
    if (bits < X48_MIN_TT_BITS || bits > 30) {
        return NULL;
    }
    x48_tt *tt = calloc(1, sizeof *tt);
    if (tt == NULL) {
        return NULL;
    }
    size_t bytes = ((size_t)1 << bits) * sizeof(x48_entry);
    tt->memory = calloc(1, bytes + X48_TT_ALIGN);
    tt->shallow_memory = calloc(((size_t)1 << X48_SHALLOW_BITS) + X48_WAYS, sizeof(x48_entry));
    tt->eval = calloc((size_t)1 << X48_EVAL_BITS, sizeof(x48_eval_entry));
    if (tt->memory == NULL || tt->shallow_memory == NULL || tt->eval == NULL) {
        x48_tt_free(tt);
        return NULL;
    }
    uintptr_t start = ((uintptr_t)tt->memory + X48_TT_ALIGN - 1) & ~(uintptr_t)(X48_TT_ALIGN - 1);
    tt->entries = (x48_entry *)start;
    tt->shallow = (x48_entry *)(((uintptr_t)tt->shallow_memory + 63) & ~(uintptr_t)63);
#ifdef X48_HUGE_PAGES
    /* Probes land anywhere in the table: with 4 kB pages nearly every one
     * also misses the TLB.  Ask for 2 MB pages (a hint; the zeroed memory
     * calloc gave is untouched until the search writes it). */
    madvise((void *)start, bytes, MADV_HUGEPAGE);
#endif
    tt->bits = bits;
    tt->stamp = 0;
    return tt;
}

void x48_tt_free(x48_tt *tt)
{
    if (tt != NULL) {
        free(tt->memory);
        free(tt->shallow_memory);
        free(tt->eval);
        free(tt);
    }
}

unsigned x48_tt_bits(const x48_tt *tt) { return tt->bits; }

/* One table as the search sees it. */
typedef struct {
    x48_entry *entries;
    int index_shift;     /* bucket index = hash >> index_shift */
    int tag_shift;       /* tag = hash << tag_shift */
    uint64_t low_mask;   /* the bits of `check` below the tag */
    uint64_t stamp_mask; /* the stamp's bits in `check` */
    uint64_t stamp;      /* this search's stamp, in place */
    int stamp_shift;
    uint64_t depth_mask; /* the remaining depth's bits (bit 0 up), minus depth_base */
    int depth_base;
} x48_view;

static x48_view deep_view(const x48_tt *tt)
{
    int index_bits = (int)tt->bits - 2;
    x48_view v = {tt->entries, 64 - index_bits, index_bits, 0xFFFFu,
                  (uint64_t)X48_STAMP_MASK << 5, 0, 5, 31u, 0};
    return v;
}

static x48_view shallow_view(const x48_tt *tt)
{
    int index_bits = X48_SHALLOW_BITS - 2;
    x48_view v = {tt->shallow, 64 - index_bits, index_bits, 0xFFFu,
                  (uint64_t)X48_STAMP_MASK << 1, 0, 1, 1u, 1};
    return v;
}

/* ----------------------------------------------------------- search state */

typedef struct {
    x48_view deep;    /* positions with more than X48_SHALLOW_MAX_REMAINING plies left */
    x48_view shallow; /* the others */
    int depth;
    double cutoff;
    int reuse_deeper;
    uint64_t limit;
    int aborted;
    uint64_t nodes;
    uint64_t moves;
    uint64_t tt_hits;
    uint64_t depth_leaves; /* leaves cut by depth, in this step */
    const t48n_weights *net; /* the network's search (NULL: the heuristic's) */
    x48_eval_entry *eval;    /* the network's values of narrow boards (x48_tt) */
} x48_state;

#define X48_HASH_MULTIPLIER 0x9E3779B97F4A7C15ULL

static inline const x48_view *x48_view_for(const x48_state *st, int remaining)
{
    return remaining <= X48_SHALLOW_MAX_REMAINING ? &st->shallow : &st->deep;
}

static inline x48_entry *x48_bucket(const x48_view *v, uint64_t hash)
{
    return v->entries + X48_WAYS * (hash >> v->index_shift);
}

static inline void x48_tt_prefetch(const x48_state *st, uint64_t hash, int remaining)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(x48_bucket(x48_view_for(st, remaining), hash));
#else
    (void)st;
    (void)hash;
    (void)remaining;
#endif
}

/* The stored value of this board if it is good enough (returns NULL, value
 * in *cached), else the slot its value should go to: its own, an empty or
 * stale one, or the one searched least deep. */
static inline x48_entry *x48_tt_probe(const x48_state *st, uint64_t hash, int remaining,
                                      double *cached)
{
    const x48_view *v = x48_view_for(st, remaining);
    x48_entry *bucket = x48_bucket(v, hash);
    uint64_t tag = hash << v->tag_shift;
    x48_entry *victim = NULL;
    int victim_depth = 1 << 30;
    for (int i = 0; i < X48_WAYS; i++) {
        uint64_t check = bucket[i].check;
        int live = (check & v->stamp_mask) == v->stamp;
        int depth = (int)(check & v->depth_mask) + v->depth_base;
        if (live && (check & ~v->low_mask) == tag) {
            if (st->reuse_deeper ? depth >= remaining : depth == remaining) {
                *cached = bucket[i].value;
                return NULL;
            }
            return &bucket[i];
        }
        if (!live) {
            depth = -1;
        }
        if (depth < victim_depth) {
            victim_depth = depth;
            victim = &bucket[i];
        }
    }
    return victim;
}

static inline void x48_tt_store(const x48_state *st, x48_entry *slot, uint64_t hash, int remaining,
                                double value)
{
    const x48_view *v = x48_view_for(st, remaining);
    slot->check = (hash << v->tag_shift) | v->stamp | (uint64_t)(remaining - v->depth_base);
    slot->value = value;
}

/* Number of set nibble-low bits (bit 4i), 1..16, without a popcount instruction. */
static inline int x48_nibble_count(uint64_t nibbles)
{
    int n = (int)((nibbles * 0x1111111111111111ULL) >> 60);
    return n == 0 && nibbles != 0 ? 16 : n;
}

/* ----------------------------------------------- narrow boards (uint64_t) */

static inline uint64_t transpose_n(uint64_t x)
{
    uint64_t a = (x & 0xF0F00F0FF0F00F0FULL) | ((x & 0x0000F0F00000F0F0ULL) << 12)
                 | ((x & 0x0F0F00000F0F0000ULL) >> 12);
    return (a & 0xFF00FF0000FF00FFULL) | ((a & 0x00FF00FF00000000ULL) >> 24)
           | ((a & 0x00000000FF00FF00ULL) << 24);
}

static inline uint64_t rows_through(const uint16_t *table, uint64_t b)
{
    return (uint64_t)table[b & 0xFFFF] | ((uint64_t)table[(b >> 16) & 0xFFFF] << 16)
           | ((uint64_t)table[(b >> 32) & 0xFFFF] << 32) | ((uint64_t)table[b >> 48] << 48);
}

static inline uint64_t slide_left_n(uint64_t b) { return rows_through(narrow_left, b); }
static inline uint64_t slide_right_n(uint64_t b) { return rows_through(narrow_right, b); }
static inline int same_n(uint64_t a, uint64_t b) { return a == b; }

static inline double rows_heuristic_n(uint64_t b)
{
    return narrow_heur[b & 0xFFFF] + narrow_heur[(b >> 16) & 0xFFFF]
           + narrow_heur[(b >> 32) & 0xFFFF] + narrow_heur[b >> 48];
}

static inline double heuristic_n(uint64_t b)
{
    return rows_heuristic_n(b) + rows_heuristic_n(transpose_n(b));
}

/* Bit 4i set where cell i is empty. */
static inline uint64_t empty_nibbles_n(uint64_t b)
{
    uint64_t x = b | (b >> 1);
    x |= x >> 2;
    return ~x & 0x1111111111111111ULL;
}

static inline uint64_t with_tile_n(uint64_t b, int shift, int tile)
{
    return b | ((uint64_t)tile << shift);
}

static inline uint64_t hash_n(uint64_t b) { return b * X48_HASH_MULTIPLIER; }

static inline double gain_n(int side, uint64_t b)
{
    const uint32_t *g = narrow_gain[side];
    return (double)(g[b & 0xFFFF] + g[(b >> 16) & 0xFFFF] + g[(b >> 32) & 0xFFFF] + g[b >> 48]);
}

static inline unsigned largest_nibble(uint64_t b)
{
    unsigned best = 0;
    for (int i = 0; i < 16; i++) {
        unsigned v = (unsigned)(b >> (4 * i)) & 15u;
        best = v > best ? v : best;
    }
    return best;
}

/* A narrow board is the network's capped board as it is. */
static inline double network_value_n(const t48n_weights *net, uint64_t b)
{
    return t48n_evaluate_nibbles(net, b, largest_nibble(b));
}

static inline double cached_network_value_n(const x48_state *st, uint64_t b)
{
    x48_eval_entry *e = st->eval + ((b * X48_HASH_MULTIPLIER) >> (64 - X48_EVAL_BITS));
    if (e->board != b) {
        e->board = b;
        e->value = network_value_n(st->net, b);
    }
    return e->value;
}



/* ------------------------------------- wide boards (nibbles + fifth bits) */

typedef struct {
    uint64_t lo;
    uint32_t hi; /* bit i: the fifth exponent bit of cell i */
} x48_wb;

static inline uint32_t transpose_bits(uint32_t x)
{
    return (x & 0x8421u) | ((x & 0x0842u) << 3) | ((x & 0x0084u) << 6) | ((x & 0x0008u) << 9)
           | ((x & 0x4210u) >> 3) | ((x & 0x2100u) >> 6) | ((x & 0x1000u) >> 9);
}

static inline x48_wb transpose_w(x48_wb b)
{
    x48_wb t = {transpose_n(b.lo), transpose_bits(b.hi)};
    return t;
}

static inline uint32_t wide_key(x48_wb b, int row)
{
    return (uint32_t)((b.lo >> (16 * row)) & 0xFFFF) | (((b.hi >> (4 * row)) & 15u) << 16);
}

static inline x48_wb wide_rows_through(const uint32_t *table, x48_wb b)
{
    x48_wb out = {0, 0};
    for (int row = 0; row < 4; row++) {
        uint32_t moved = table[wide_key(b, row)];
        out.lo |= (uint64_t)(moved & 0xFFFFu) << (16 * row);
        out.hi |= (moved >> 16) << (4 * row);
    }
    return out;
}

static inline x48_wb slide_left_w(x48_wb b) { return wide_rows_through(wide_left, b); }
static inline x48_wb slide_right_w(x48_wb b) { return wide_rows_through(wide_right, b); }
static inline int same_w(x48_wb a, x48_wb b) { return a.lo == b.lo && a.hi == b.hi; }

static inline double rows_heuristic_w(x48_wb b)
{
    return wide_heur[wide_key(b, 0)] + wide_heur[wide_key(b, 1)] + wide_heur[wide_key(b, 2)]
           + wide_heur[wide_key(b, 3)];
}

static inline double heuristic_w(x48_wb b) { return rows_heuristic_w(b) + rows_heuristic_w(transpose_w(b)); }

static inline uint64_t spread_bits(uint32_t bits)
{
    uint64_t out = 0;
    for (uint32_t rest = bits & 0xFFFFu; rest; rest &= rest - 1) {
        out |= 1ULL << (4 * x48_ctz(rest));
    }
    return out;
}

static inline uint64_t empty_nibbles_w(x48_wb b) { return empty_nibbles_n(b.lo) & ~spread_bits(b.hi); }

static inline x48_wb with_tile_w(x48_wb b, int shift, int tile)
{
    x48_wb out = {b.lo | ((uint64_t)tile << shift), b.hi};
    return out;
}

static inline double gain_w(int side, x48_wb b)
{
    const uint64_t *g = wide_gain[side];
    return (double)(g[wide_key(b, 0)] + g[wide_key(b, 1)] + g[wide_key(b, 2)] + g[wide_key(b, 3)]);
}

/* The network caps a cell at 15: a fifth bit makes the nibble 15. */
static inline double network_value_w(const t48n_weights *net, x48_wb b)
{
    uint64_t big = spread_bits(b.hi);
    unsigned largest = largest_nibble(b.lo);
    for (int i = 0; i < 16; i++) {
        if ((b.hi >> i) & 1u) {
            unsigned e = 16u + (unsigned)((b.lo >> (4 * i)) & 15u);
            largest = e > largest ? e : largest;
        }
    }
    return t48n_evaluate_nibbles(net, b.lo | big * 15u, largest);
}

static inline uint64_t hash_w(x48_wb b)
{
    return (b.lo ^ ((uint64_t)b.hi * 0xC2B2AE3D27D4EB4FULL)) * X48_HASH_MULTIPLIER;
}



/* --------------------------------------------------------- the recursion */

#define X48_NET 0
#define X48_WIDE 0
#include "t48_solver_search.h"
#undef X48_WIDE
#define X48_WIDE 1
#include "t48_solver_search.h"
#undef X48_WIDE
#undef X48_NET
#define X48_NET 1
#define X48_WIDE 0
#include "t48_solver_search.h"
#undef X48_WIDE
#define X48_WIDE 1
#include "t48_solver_search.h"
#undef X48_WIDE
#undef X48_NET

/* ---------------------------------------------------------------- driver */

static void split_packed(uint64_t lo, uint64_t hi, uint64_t *nibbles, uint32_t *fifth)
{
    t48_board b = t48_board_from_packed(lo, hi);
    *nibbles = 0;
    *fifth = 0;
    for (int i = 0; i < 16; i++) {
        uint64_t e = t48_cell(b, i);
        *nibbles |= (e & 15u) << (4 * i);
        *fifth |= (uint32_t)(e >> 4) << i;
    }
}

int x48_needs_wide(uint64_t lo, uint64_t hi, int depth)
{
    uint64_t nibbles;
    uint32_t fifth;
    split_packed(lo, hi, &nibbles, &fifth);
    if (fifth != 0) {
        return 1;
    }
    uint64_t sum = 0;
    for (int i = 0; i < 16; i++) {
        unsigned e = (unsigned)((nibbles >> (4 * i)) & 15u);
        sum += e ? (uint64_t)1 << e : 0;
    }
    /* Each ply adds at most a 4: a 65536 (exponent 16) needs a sum of 65536. */
    return sum + 4 * (uint64_t)(depth + 1) >= 65536;
}

/* The next search stamp; entries with another stamp are empty. */
static void next_stamp(x48_tt *tt, x48_state *st)
{
    tt->stamp = (tt->stamp + 1) & X48_STAMP_MASK;
    if (tt->stamp == 0) { /* wrapped: old stamps could match again */
        memset(tt->entries, 0, ((size_t)1 << tt->bits) * sizeof(x48_entry));
        memset(tt->shallow, 0, ((size_t)1 << X48_SHALLOW_BITS) * sizeof(x48_entry));
        tt->stamp = 1;
    }
    st->deep.stamp = (uint64_t)tt->stamp << st->deep.stamp_shift;
    st->shallow.stamp = (uint64_t)tt->stamp << st->shallow.stamp_shift;
}

int x48_search(uint64_t lo, uint64_t hi, const x48_settings *settings, x48_tt *tt,
               x48_result *result)
{
    memset(result, 0, sizeof *result);
    int depth = settings->depth;
    if (depth < 0 || depth > X48_MAX_DEPTH || !(settings->cutoff >= 0.0) || tt == NULL) {
        return -2;
    }
    int wide = x48_needs_wide(lo, hi, depth);
    if (wide && !x48_wide_ready()) {
        return -1;
    }
    x48_init();
    uint64_t nibbles;
    uint32_t fifth;
    split_packed(lo, hi, &nibbles, &fifth);

    x48_state st;
    memset(&st, 0, sizeof st);
    st.deep = deep_view(tt);
    st.shallow = shallow_view(tt);
    next_stamp(tt, &st);
    st.cutoff = settings->cutoff;
    st.reuse_deeper = settings->reuse_deeper;
    st.net = settings->net;
    int net = st.net != NULL;
    if (net && (tt->eval_serial != st.net->serial || st.net->serial == 0)) {
        memset(tt->eval, 0, ((size_t)1 << X48_EVAL_BITS) * sizeof(x48_eval_entry));
        tt->eval_serial = st.net->serial;
    }
    st.eval = tt->eval;

    uint64_t after_n[4];
    x48_wb after_w[4];
    double gains[4];
    x48_wb board_w = {nibbles, fifth};
    int valid;
    if (net) {
        valid = wide ? root_moves_wn(board_w, after_w, gains) : root_moves_nn(nibbles, after_n, gains);
    } else {
        valid = wide ? root_moves_w(board_w, after_w, gains) : root_moves_n(nibbles, after_n, gains);
    }
    result->valid = valid;
    result->wide = wide;
    if (!valid) {
        return 0;
    }

    /* With a budget: deepen one ply at a time from min_depth (that step is
     * always completed) and keep the deepest search that fits; a step the
     * growth so far says cannot fit is not started, one that runs over is
     * abandoned (its partial values thrown away). */
    int first = depth;
    if (settings->max_nodes > 0) {
        first = settings->min_depth < 0 ? 0 : settings->min_depth;
        first = first > depth ? depth : first;
    }
    uint64_t last_cost = 0;
    uint64_t growth = 0;
    for (int d = first; d <= depth; d++) {
        double values[4] = {0.0, 0.0, 0.0, 0.0};
        uint64_t before = st.nodes;
        if (d > first) {
            uint64_t predicted = last_cost * (growth ? growth : 4);
            if (st.nodes + predicted > settings->max_nodes) {
                break;
            }
        }
        st.depth = d;
        st.limit = d == first ? UINT64_MAX : settings->max_nodes;
        st.aborted = 0;
        st.depth_leaves = 0;
        /* One part with a shared table; with a table per move, one part per
         * valid move, each under a fresh stamp. */
        for (int rest = valid; rest && !st.aborted;) {
            int part = settings->table_per_move ? rest & -rest : rest;
            rest &= ~part;
            if (settings->table_per_move) {
                next_stamp(tt, &st);
            }
            if (net && wide) {
                search_once_wn(&st, after_w, gains, part, values);
            } else if (net) {
                search_once_nn(&st, after_n, gains, part, values);
            } else if (wide) {
                search_once_w(&st, after_w, gains, part, values);
            } else {
                search_once_n(&st, after_n, gains, part, values);
            }
        }
        if (st.aborted) {
            break;
        }
        memcpy(result->values, values, sizeof values);
        result->depth = d;
        uint64_t cost = st.nodes - before;
        growth = last_cost ? (cost + last_cost - 1) / last_cost : 0;
        last_cost = cost;
        if (st.depth_leaves == 0) {
            break; /* nothing was cut by depth: a deeper step searches the same tree */
        }
    }
    result->nodes = st.nodes;
    result->moves = st.moves;
    result->tt_hits = st.tt_hits;
    return 0;
}
