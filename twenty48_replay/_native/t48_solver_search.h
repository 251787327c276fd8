/* The expectimax recursion, written once for both board layouts and both evaluations.
 *
 * t48_solver_core.c includes this file four times: with X48_WIDE 0 (boards
 * are a uint64_t of nibbles, board operations suffixed _n) and with X48_WIDE
 * 1 (x48_wb: nibbles plus fifth bits, _w); each with X48_NET 0 (the
 * hand-tuned heuristic, functions suffixed _n / _w) and X48_NET 1 (the
 * n-tuple network, functions suffixed _nn / _wn).  The board operations it
 * calls (slide_left_*, heuristic_*, ...) are defined there for both layouts.
 *
 * With the network, a value is the expected score still to come:
 * a max node takes the best of (points the move scores + the value of its
 * afterstate), a leaf is the network's value of the afterstate, floored at 0
 * (no position has negative points to come; a lost one has 0), and the root
 * values include the root move's points.  Without it, values are the
 * heuristic's and moves score nothing, as in the NumPy solver.
 *
 * The tree, as in the NumPy solver: an afterstate (a board just moved,
 * before its spawn) is a chance node; it averages over every empty cell
 * with a 2 (p = 0.9) and a 4 (p = 0.1), in that order (the NumPy solver's
 * summation order, so the two agree to the last bits where they search the
 * same tree).  A spawned board is a max node: the best valid move, or 0 (a
 * lost game) when none is valid.  Leaves are afterstates at the depth limit
 * or below the probability cut, scored by the heuristic floored at
 * X48_MIN_LIVE_VALUE.  UP and DOWN are LEFT and RIGHT on the transposed
 * board and their results stay transposed (a board and its transpose have
 * the same value), which saves two transposes per spawned board.
 */
#if X48_WIDE
#define XB x48_wb
#define XO(name) name##_w
#if X48_NET
#define XF(name) name##_wn
#else
#define XF(name) name##_w
#endif
#else
#define XB uint64_t
#define XO(name) name##_n
#if X48_NET
#define XF(name) name##_nn
#else
#define XF(name) name##_n
#endif
#endif

/* The value of an afterstate at a leaf: the heuristic floored at
 * X48_MIN_LIVE_VALUE, or the network's value floored at 0. */
static inline double XF(evaluate)(const x48_state *st, XB a)
{
#if X48_NET && !X48_WIDE
    double v = cached_network_value_n(st, a);
    return v > 0.0 ? v : 0.0;
#elif X48_NET
    double v = XO(network_value)(st->net, a);
    return v > 0.0 ? v : 0.0;
#else
    (void)st;
    double h = XO(heuristic)(a);
    return h > X48_MIN_LIVE_VALUE ? h : X48_MIN_LIVE_VALUE;
#endif
}

/* Points a move scores: the row gains (the network's search), or nothing. */
#if X48_NET
#define XGAIN(table, b) XO(gain)(table, b)
#else
#define XGAIN(table, b) 0.0
#endif

static double XF(max_node)(x48_state *st, XB s, XB ts, double prob, int depth);

/* Whether an afterstate at this depth and path probability is scored by the heuristic. */
static inline int XF(is_leaf)(const x48_state *st, double prob, int depth)
{
    return depth >= st->depth || prob < st->cutoff;
}

/* A leaf: the heuristic, floored so that a live position beats a lost one (0). */
static inline double XF(leaf)(x48_state *st, XB a, int depth)
{
    st->nodes++;
    st->depth_leaves += depth >= st->depth;
    return XF(evaluate)(st, a);
}

static double XF(chance_node)(x48_state *st, XB a, double prob, int depth)
{
    if (XF(is_leaf)(st, prob, depth)) {
        return XF(leaf)(st, a, depth);
    }
    st->nodes++;
    if (st->nodes > st->limit) {
        st->aborted = 1;
        return 0.0;
    }
    int remaining = st->depth - depth;
    x48_entry *slot = NULL;
    if (remaining >= X48_TT_MIN_REMAINING) {
        double cached = 0.0;
        slot = x48_tt_probe(st, XO(hash)(a), remaining, &cached);
        if (slot == NULL) {
            st->tt_hits++;
            return cached;
        }
    }
    uint64_t open = XO(empty_nibbles)(a);
    int count = x48_nibble_count(open);
    if (count == 0) { /* not the afterstate of a valid move: score it as a leaf */
        return XF(evaluate)(st, a);
    }
    XB ta = XO(transpose)(a);
    double share = 1.0 / count;
    double w2 = share * X48_P_TWO;
    double w4 = share * X48_P_FOUR;
    double p2 = prob * w2;
    double p4 = prob * w4;
    double sum = 0.0;
    for (int tile = 1; tile <= 2; tile++) {
        double weight = tile == 1 ? w2 : w4;
        double child_prob = tile == 1 ? p2 : p4;
        for (uint64_t rest = open; rest; rest &= rest - 1) {
            int shift = x48_ctz(rest);
            int tshift = x48_transposed_shift(shift);
            XB s = XO(with_tile)(a, shift, tile);
            XB ts = XO(with_tile)(ta, tshift, tile);
            sum += weight * XF(max_node)(st, s, ts, child_prob, depth + 1);
            if (st->aborted) {
                return 0.0;
            }
        }
    }
    if (slot != NULL) {
        x48_tt_store(st, slot, XO(hash)(a), remaining, sum);
    }
    return sum;
}

static double XF(max_node)(x48_state *st, XB s, XB ts, double prob, int depth)
{
    st->nodes++;
    st->moves += 4;
    XB child[4];
    child[0] = XO(slide_left)(s);
    child[1] = XO(slide_right)(s);
    child[2] = XO(slide_left)(ts);
    child[3] = XO(slide_right)(ts);
    int valid = (XO(same)(child[0], s) ? 0 : 1) | (XO(same)(child[1], s) ? 0 : 2)
                | (XO(same)(child[2], ts) ? 0 : 4) | (XO(same)(child[3], ts) ? 0 : 8);
#if X48_NET
    double gain[4] = {XGAIN(X48_GAIN_LEFT, s), XGAIN(X48_GAIN_RIGHT, s),
                      XGAIN(X48_GAIN_LEFT, ts), XGAIN(X48_GAIN_RIGHT, ts)};
#else
    static const double gain[4] = {0.0, 0.0, 0.0, 0.0};
#endif
    double best = 0.0;
    if (XF(is_leaf)(st, prob, depth)) {
        /* Every child is a leaf: no calls, and the counts added once. */
        uint64_t leaves = 0;
        for (int i = 0; i < 4; i++) {
            if (valid & (1 << i)) {
                double h = gain[i] + XF(evaluate)(st, child[i]);
                best = h > best ? h : best;
                leaves++;
            }
        }
        st->nodes += leaves;
        if (depth >= st->depth) {
            st->depth_leaves += leaves;
        }
        return best;
    }
    if (st->depth - depth >= X48_TT_MIN_REMAINING) {
        /* Start loading the children's table lines now; the first child's
         * subtree hides the latency of the others'. */
        for (int i = 0; i < 4; i++) {
            if (valid & (1 << i)) {
                x48_tt_prefetch(st, XO(hash)(child[i]), st->depth - depth);
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        if (valid & (1 << i)) {
            double v = gain[i] + XF(chance_node)(st, child[i], prob, depth);
            if (st->aborted) {
                return 0.0;
            }
            best = v > best ? v : best;
        }
    }
    return best;
}

/* The four root afterstates in direction-code order, the points each move
 * scores (0 without the network), and which are valid. */
static int XF(root_moves)(XB board, XB after[4], double gains[4])
{
    XB t = XO(transpose)(board);
    after[X48_UP] = XO(slide_left)(t);
    after[X48_DOWN] = XO(slide_right)(t);
    after[X48_LEFT] = XO(slide_left)(board);
    after[X48_RIGHT] = XO(slide_right)(board);
    gains[X48_UP] = XGAIN(X48_GAIN_LEFT, t);
    gains[X48_DOWN] = XGAIN(X48_GAIN_RIGHT, t);
    gains[X48_LEFT] = XGAIN(X48_GAIN_LEFT, board);
    gains[X48_RIGHT] = XGAIN(X48_GAIN_RIGHT, board);
    int valid = 0;
    for (int d = 0; d < 4; d++) {
        XB from = d == X48_UP || d == X48_DOWN ? t : board;
        if (!XO(same)(after[d], from)) {
            valid |= 1 << d;
        }
    }
    return valid;
}

/* One search of the whole tree at st->depth; the values of the valid moves. */
static void XF(search_once)(x48_state *st, const XB after[4], const double gains[4], int valid,
                            double values[4])
{
    for (int d = 0; d < 4; d++) {
        if (valid & (1 << d)) {
            values[d] = gains[d] + XF(chance_node)(st, after[d], 1.0, 0);
            if (st->aborted) {
                return;
            }
        }
    }
}

#undef XB
#undef XO
#undef XF
#undef XGAIN
