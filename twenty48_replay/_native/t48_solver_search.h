/* The expectimax recursion, written once for both board layouts.
 *
 * t48_solver_core.c includes this file twice: with X48_WIDE 0 (boards are a
 * uint64_t of nibbles, suffix _n) and with X48_WIDE 1 (x48_wb: nibbles plus
 * fifth bits, suffix _w).  The board operations it calls (slide_left_*,
 * heuristic_*, ...) are defined there for both layouts.
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
#define XF(name) name##_w
#else
#define XB uint64_t
#define XF(name) name##_n
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
    double h = XF(heuristic)(a);
    return h > X48_MIN_LIVE_VALUE ? h : X48_MIN_LIVE_VALUE;
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
        slot = x48_tt_probe(st, XF(hash)(a), remaining, &cached);
        if (slot == NULL) {
            st->tt_hits++;
            return cached;
        }
    }
    uint64_t open = XF(empty_nibbles)(a);
    int count = x48_nibble_count(open);
    if (count == 0) { /* not the afterstate of a valid move: score it as a leaf */
        double h = XF(heuristic)(a);
        return h > X48_MIN_LIVE_VALUE ? h : X48_MIN_LIVE_VALUE;
    }
    XB ta = XF(transpose)(a);
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
            XB s = XF(with_tile)(a, shift, tile);
            XB ts = XF(with_tile)(ta, tshift, tile);
            sum += weight * XF(max_node)(st, s, ts, child_prob, depth + 1);
            if (st->aborted) {
                return 0.0;
            }
        }
    }
    if (slot != NULL) {
        x48_tt_store(st, slot, XF(hash)(a), remaining, sum);
    }
    return sum;
}

static double XF(max_node)(x48_state *st, XB s, XB ts, double prob, int depth)
{
    st->nodes++;
    st->moves += 4;
    XB child[4];
    child[0] = XF(slide_left)(s);
    child[1] = XF(slide_right)(s);
    child[2] = XF(slide_left)(ts);
    child[3] = XF(slide_right)(ts);
    int valid = (XF(same)(child[0], s) ? 0 : 1) | (XF(same)(child[1], s) ? 0 : 2)
                | (XF(same)(child[2], ts) ? 0 : 4) | (XF(same)(child[3], ts) ? 0 : 8);
    double best = 0.0;
    if (XF(is_leaf)(st, prob, depth)) {
        /* Every child is a leaf: no calls, and the counts added once. */
        uint64_t leaves = 0;
        for (int i = 0; i < 4; i++) {
            if (valid & (1 << i)) {
                double h = XF(heuristic)(child[i]);
                h = h > X48_MIN_LIVE_VALUE ? h : X48_MIN_LIVE_VALUE;
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
                x48_tt_prefetch(st, XF(hash)(child[i]), st->depth - depth);
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        if (valid & (1 << i)) {
            double v = XF(chance_node)(st, child[i], prob, depth);
            if (st->aborted) {
                return 0.0;
            }
            best = v > best ? v : best;
        }
    }
    return best;
}

/* The four root afterstates in direction-code order, and which are valid. */
static int XF(root_moves)(XB board, XB after[4])
{
    XB t = XF(transpose)(board);
    after[X48_UP] = XF(slide_left)(t);
    after[X48_DOWN] = XF(slide_right)(t);
    after[X48_LEFT] = XF(slide_left)(board);
    after[X48_RIGHT] = XF(slide_right)(board);
    int valid = 0;
    for (int d = 0; d < 4; d++) {
        XB from = d == X48_UP || d == X48_DOWN ? t : board;
        if (!XF(same)(after[d], from)) {
            valid |= 1 << d;
        }
    }
    return valid;
}

/* One search of the whole tree at st->depth; the values of the valid moves. */
static void XF(search_once)(x48_state *st, const XB after[4], int valid, double values[4])
{
    for (int d = 0; d < 4; d++) {
        if (valid & (1 << d)) {
            values[d] = XF(chance_node)(st, after[d], 1.0, 0);
            if (st->aborted) {
                return;
            }
        }
    }
}

#undef XB
#undef XF
