/* twenty48_replay._core: the hot loops of the engine in C.
 *
 * Replays a move string under a seed (SPEC sections 3 to 5): the slide by row
 * tables, then spawn k = n + 1 drawn by HMAC-SHA256 with the seed's key
 * states hashed once per call.  It never reads JSON or text: Python validates
 * the record and passes the seed's UTF-8 bytes and a move string of U, D, L,
 * R (checked again here, one byte at a time).  Long replays release the GIL.
 *
 * Results mirror twenty48_replay/engine.py exactly (the tests and the
 * differential fuzzer compare every field): states are the engine's working
 * state b | t << 80, moves are numbered from 1, a null move stops the replay.
 */
#include "t48_py.h"
#include "t48_hmac.h"
#include "t48_replay.h"
#include "t48_rows.h"

#include <stdlib.h>

/* Replays longer than this many moves run with the GIL released. */
#define RELEASE_GIL_MOVES 2048
/* The most steps one steps() call returns (the Python side asks in chunks). */
#define MAX_STEPS_PER_CALL 65536

/* rows.TileOverflowError's text; the Python side turns OverflowError into it. */
#define OVERFLOW_MESSAGE "merging two 2147483648 tiles overflows the board"

/* Whether a line of the board (its rows, and with `columns` its columns too) holds
 * two 2**31 tiles that would merge: the pure-Python engine refuses to learn such a
 * row, so every path that looks one up raises, and so does this one. */
static int has_overflow_line(t48_board b, int columns) {
    t48_board t = t48_transpose(b);
    for (int i = 0; i < 4; i++) {
        if (t48_row_entry(b.row[i], T48_TOWARD_START) & T48_ROW_OVERFLOW) return 1;
        if (columns && (t48_row_entry(t.row[i], T48_TOWARD_START) & T48_ROW_OVERFLOW)) return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- arguments */

typedef struct {
    t48_hmac_key key;
    const unsigned char *moves;
    size_t n;
    uint64_t start;
    t48_board board;
} replay_args;

/* (key, moves, state | None, start): the common arguments of replay and steps. */
static int parse_replay_args(PyObject *const *args, Py_ssize_t nargs, const char *name,
                             replay_args *out) {
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "%s() takes 4 arguments (%zd given)", name, nargs);
        return -1;
    }
    const char *key, *moves;
    Py_ssize_t key_length, n;
    if (t48_bytes_arg(args[0], &key, &key_length) < 0) return -1;
    if (t48_moves_arg(args[1], &moves, &n) < 0) return -1;
    if (t48_count_arg(args[3], &out->start) < 0) return -1;
    if (out->start > ((uint64_t)1 << 62)) {
        PyErr_SetString(PyExc_ValueError, "start is out of range");
        return -1;
    }
    t48_hmac_init(&out->key, (const uint8_t *)key, (size_t)key_length);
    if (args[2] == Py_None) {
        out->board = t48_opening_board(&out->key);
    } else if (t48_board_from_pyint(args[2], 1, &out->board) < 0) {
        return -1;
    }
    out->moves = (const unsigned char *)moves;
    out->n = (size_t)n;
    return 0;
}

/* Turn a stop other than the end or a null move into the exception Python raises. */
static int raise_for(const run_result *r, const replay_args *a) {
    switch (r->status) {
    case RUN_BAD_LETTER:
        PyErr_Format(PyExc_ValueError, "move %zu is not U, D, L or R", r->done + 1);
        return -1;
    case RUN_OVERFLOW:
        PyErr_SetString(PyExc_OverflowError, OVERFLOW_MESSAGE);
        return -1;
    case RUN_FULL:
        PyErr_SetString(PyExc_RuntimeError, "no empty cell to spawn into");
        return -1;
    default:
        return 0;
    }
}

static void run_released(replay_args *a, run_result *r, step_record *steps) {
    if (a->n > RELEASE_GIL_MOVES) {
        Py_BEGIN_ALLOW_THREADS t48_replay_moves(&a->key, a->moves, a->n, a->start, a->board, r, steps);
        Py_END_ALLOW_THREADS
    } else {
        t48_replay_moves(&a->key, a->moves, a->n, a->start, a->board, r, steps);
    }
}

/* ---------------------------------------------------------------- functions */

PyDoc_STRVAR(replay_doc,
             "replay(key, moves, state, start) -> (state, score, moves, null_move)\n\n"
             "engine.run in C: replay `moves` (U, D, L, R) under the seed whose UTF-8 bytes\n"
             "are `key`, from the working state `state` (None: the opening) after `start`\n"
             "moves.  Stops at the first null move; null_move is its 1-based number or None.");

static PyObject *core_replay(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    replay_args a;
    if (parse_replay_args(args, nargs, "replay", &a) < 0) return NULL;
    run_result r;
    run_released(&a, &r, NULL);
    if (raise_for(&r, &a) < 0) return NULL;
    uint64_t moves = a.start + r.done;
    PyObject *null_move = r.status == RUN_NULL_MOVE ? PyLong_FromUnsignedLongLong(moves + 1)
                                                     : (Py_INCREF(Py_None), Py_None);
    PyObject *state = t48_state_to_pyint(r.board);
    PyObject *score = PyLong_FromUnsignedLongLong(r.score);
    PyObject *count = PyLong_FromUnsignedLongLong(moves);
    PyObject *result = NULL;
    if (null_move && state && score && count) {
        result = PyTuple_New(4);
        if (result) {
            PyTuple_SetItem(result, 0, state);
            PyTuple_SetItem(result, 1, score);
            PyTuple_SetItem(result, 2, count);
            PyTuple_SetItem(result, 3, null_move);
            return result;
        }
    }
    Py_XDECREF(null_move);
    Py_XDECREF(state);
    Py_XDECREF(score);
    Py_XDECREF(count);
    return NULL;
}

PyDoc_STRVAR(verdict_doc,
             "verdict(key, moves) -> (board, score, moves, null_move, max_exponent, over)\n\n"
             "What verify() needs from a whole record in one call: the replay from the\n"
             "opening, the final Board.packed, its largest exponent and whether no\n"
             "direction changes it.");

static PyObject *core_verdict(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "verdict() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *full[4] = {args[0], args[1], Py_None, NULL};
    PyObject *zero = PyLong_FromLong(0);
    if (zero == NULL) return NULL;
    full[3] = zero;
    replay_args a;
    int parsed = parse_replay_args(full, 4, "verdict", &a);
    Py_DECREF(zero);
    if (parsed < 0) return NULL;
    run_result r;
    run_released(&a, &r, NULL);
    if (raise_for(&r, &a) < 0) return NULL;
    PyObject *null_move = r.status == RUN_NULL_MOVE ? PyLong_FromUnsignedLongLong(r.done + 1)
                                                     : (Py_INCREF(Py_None), Py_None);
    PyObject *board = t48_board_to_pyint(r.board);
    PyObject *score = PyLong_FromUnsignedLongLong(r.score);
    PyObject *count = PyLong_FromUnsignedLongLong(r.done);
    PyObject *top = PyLong_FromLong((long)t48_max_exponent(r.board));
    PyObject *over = PyBool_FromLong(!t48_can_move(r.board));
    if (null_move && board && score && count && top && over) {
        PyObject *result = PyTuple_New(6);
        if (result) {
            PyTuple_SetItem(result, 0, board);
            PyTuple_SetItem(result, 1, score);
            PyTuple_SetItem(result, 2, count);
            PyTuple_SetItem(result, 3, null_move);
            PyTuple_SetItem(result, 4, top);
            PyTuple_SetItem(result, 5, over);
            return result;
        }
    }
    Py_XDECREF(null_move);
    Py_XDECREF(board);
    Py_XDECREF(score);
    Py_XDECREF(count);
    Py_XDECREF(top);
    Py_XDECREF(over);
    return NULL;
}

PyDoc_STRVAR(steps_doc,
             "steps(key, moves, state, start) -> list of (state, gained, cell, four)\n\n"
             "engine.steps in C, for one chunk of moves (at most 65536): every valid move's\n"
             "working state after its spawn, points, spawn cell and whether it was a 4.\n"
             "Fewer entries than moves means the next move changes nothing.");

static PyObject *core_steps(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    replay_args a;
    if (parse_replay_args(args, nargs, "steps", &a) < 0) return NULL;
    if (a.n > MAX_STEPS_PER_CALL) {
        PyErr_SetString(PyExc_ValueError, "steps() takes at most 65536 moves per call");
        return NULL;
    }
    step_record *records = (step_record *)malloc((a.n ? a.n : 1) * sizeof(step_record));
    if (records == NULL) return PyErr_NoMemory();
    run_result r;
    run_released(&a, &r, records);
    PyObject *list = NULL;
    if (raise_for(&r, &a) == 0) list = PyList_New((Py_ssize_t)r.done);
    for (size_t i = 0; list != NULL && i < r.done; i++) {
        PyObject *state = t48_state_to_pyint(records[i].board);
        PyObject *gained = PyLong_FromUnsignedLongLong(records[i].gained);
        PyObject *cell = PyLong_FromLong(records[i].cell);
        PyObject *four = PyBool_FromLong(records[i].four);
        PyObject *item = (state && gained && cell && four) ? PyTuple_New(4) : NULL;
        if (item == NULL) {
            Py_XDECREF(state);
            Py_XDECREF(gained);
            Py_XDECREF(cell);
            Py_XDECREF(four);
            Py_CLEAR(list);
            break;
        }
        PyTuple_SetItem(item, 0, state);
        PyTuple_SetItem(item, 1, gained);
        PyTuple_SetItem(item, 2, cell);
        PyTuple_SetItem(item, 3, four);
        PyList_SetItem(list, (Py_ssize_t)i, item);
    }
    free(records);
    return list;
}

PyDoc_STRVAR(play_doc,
             "play(key, board, moves, direction) -> (board, gained, cell, four) or None\n\n"
             "GameState.play in C: slide Board.packed `board` toward `direction` (0..3 =\n"
             "U, D, L, R) and place spawn k = moves + 2.  None when the direction changes\n"
             "nothing.");

static PyObject *core_play(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "play() takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    const char *key;
    Py_ssize_t key_length;
    t48_board b;
    uint64_t moves, direction;
    if (t48_bytes_arg(args[0], &key, &key_length) < 0) return NULL;
    if (t48_board_from_pyint(args[1], 0, &b) < 0) return NULL;
    if (t48_count_arg(args[2], &moves) < 0) return NULL;
    if (t48_count_arg(args[3], &direction) < 0) return NULL;
    if (direction > 3 || moves > ((uint64_t)1 << 62)) {
        PyErr_SetString(PyExc_ValueError, "direction or move count out of range");
        return NULL;
    }
    /* Board.slide looks up the rows first (the transpose), then the moved lines. */
    if (has_overflow_line(b, direction <= T48_DOWN)) {
        PyErr_SetString(PyExc_OverflowError, OVERFLOW_MESSAGE);
        return NULL;
    }
    uint64_t gained = 0;
    int moved = t48_move(&b, (int)direction, &gained);
    if (moved == 0) Py_RETURN_NONE;
    if (moved < 0) {
        PyErr_SetString(PyExc_OverflowError, OVERFLOW_MESSAGE);
        return NULL;
    }
    t48_hmac_key hk;
    t48_hmac_init(&hk, (const uint8_t *)key, (size_t)key_length);
    uint32_t digest[8];
    t48_hmac_counter(&hk, moves + 2, digest);
    step_record step;
    if (t48_place_spawn(&b, digest, &step) < 0) {
        PyErr_SetString(PyExc_RuntimeError, "no empty cell to spawn into");
        return NULL;
    }
    return Py_BuildValue("(NKiO)", t48_board_to_pyint(b), (unsigned long long)gained,
                         (int)step.cell, step.four ? Py_True : Py_False);
}

PyDoc_STRVAR(slide_doc,
             "slide(board, direction) -> (board, gained) or None\n\n"
             "Board.slide in C: Board.packed `board` slid toward `direction` (0..3 = U, D,\n"
             "L, R), no spawn.  None when the direction changes nothing.");

static PyObject *core_slide(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "slide() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    t48_board b;
    uint64_t direction;
    if (t48_board_from_pyint(args[0], 0, &b) < 0) return NULL;
    if (t48_count_arg(args[1], &direction) < 0) return NULL;
    if (direction > 3) {
        PyErr_SetString(PyExc_ValueError, "direction out of range");
        return NULL;
    }
    if (has_overflow_line(b, direction <= T48_DOWN)) {
        PyErr_SetString(PyExc_OverflowError, OVERFLOW_MESSAGE);
        return NULL;
    }
    uint64_t gained = 0;
    int moved = t48_move(&b, (int)direction, &gained);
    if (moved == 0) Py_RETURN_NONE;
    if (moved < 0) {
        PyErr_SetString(PyExc_OverflowError, OVERFLOW_MESSAGE);
        return NULL;
    }
    return Py_BuildValue("(NK)", t48_board_to_pyint(b), (unsigned long long)gained);
}

PyDoc_STRVAR(is_over_doc, "is_over(board) -> bool: no direction changes Board.packed `board`.");

static PyObject *core_is_over(PyObject *self, PyObject *board) {
    (void)self;
    t48_board b;
    if (t48_board_from_pyint(board, 0, &b) < 0) return NULL;
    if (has_overflow_line(b, 1)) {
        PyErr_SetString(PyExc_OverflowError, OVERFLOW_MESSAGE);
        return NULL;
    }
    return PyBool_FromLong(!t48_can_move(b));
}

PyDoc_STRVAR(hmac_doc, "hmac(key, k) -> bytes: HMAC-SHA256(key, k as 8 bytes big-endian).");

static PyObject *core_hmac(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "hmac() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    const char *key;
    Py_ssize_t key_length;
    if (t48_bytes_arg(args[0], &key, &key_length) < 0) return NULL;
    if (!PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "k is an int");
        return NULL;
    }
    uint64_t k = PyLong_AsUnsignedLongLong(args[1]);
    if (k == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    t48_hmac_key hk;
    t48_hmac_init(&hk, (const uint8_t *)key, (size_t)key_length);
    uint32_t d[8];
    t48_hmac_counter(&hk, k, d);
    unsigned char out[32];
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(d[i] >> 24);
        out[4 * i + 1] = (unsigned char)(d[i] >> 16);
        out[4 * i + 2] = (unsigned char)(d[i] >> 8);
        out[4 * i + 3] = (unsigned char)d[i];
    }
    return PyBytes_FromStringAndSize((const char *)out, 32);
}

PyDoc_STRVAR(spawn_doc,
             "spawn(key, board, k) -> (cell, value)\n\n"
             "SPEC 5.2 in C: spawn number k (0 <= k < 2**64) on Board.packed `board`, which\n"
             "has an empty cell; the cell and the tile (2 or 4) the native replay places.");

static PyObject *core_spawn(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "spawn() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    const char *key;
    Py_ssize_t key_length;
    t48_board b;
    if (t48_bytes_arg(args[0], &key, &key_length) < 0) return NULL;
    if (t48_board_from_pyint(args[1], 0, &b) < 0) return NULL;
    if (!PyLong_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "k is an int");
        return NULL;
    }
    uint64_t k = PyLong_AsUnsignedLongLong(args[2]);
    if (k == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    t48_hmac_key hk;
    t48_hmac_init(&hk, (const uint8_t *)key, (size_t)key_length);
    uint32_t digest[8];
    t48_hmac_counter(&hk, k, digest);
    step_record step;
    if (t48_place_spawn(&b, digest, &step) < 0) {
        PyErr_SetString(PyExc_ValueError, "no empty cell to spawn into");
        return NULL;
    }
    return Py_BuildValue("(ii)", (int)step.cell, step.four ? 4 : 2);
}

PyDoc_STRVAR(sha256_doc, "sha256(data) -> bytes: SHA-256 of a bytes object (for the tests).");

static PyObject *core_sha256(PyObject *self, PyObject *data) {
    (void)self;
    const char *bytes;
    Py_ssize_t length;
    if (t48_bytes_arg(data, &bytes, &length) < 0) return NULL;
    unsigned char digest[32];
    t48_sha256((const uint8_t *)bytes, (size_t)length, digest);
    return PyBytes_FromStringAndSize((const char *)digest, 32);
}

PyDoc_STRVAR(sha256_impl_doc,
             "sha256_impl(name=None) -> str\n\n"
             "The SHA-256 compression in use: 'sha-ni', 'armv8-sha2' or 'portable'.  With a\n"
             "name, switch to it first (ValueError if this CPU or build lacks it).");

static PyObject *core_sha256_impl(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "sha256_impl() takes at most 1 argument");
        return NULL;
    }
    if (nargs == 1) {
        const char *name = PyUnicode_Check(args[0]) ? PyUnicode_AsUTF8AndSize(args[0], NULL) : NULL;
        if (name == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a name is a str");
            return NULL;
        }
        if (!t48_sha256_use(name)) {
            PyErr_SetString(PyExc_ValueError, "that SHA-256 implementation is not available here");
            return NULL;
        }
    }
    return PyUnicode_FromString(t48_sha256_impl());
}

PyDoc_STRVAR(self_check_doc,
             "self_check() -> int\n\n"
             "Check the division-free and table helpers against their definitions (every\n"
             "residue below 2 * 720720 for each n, every 16-bit mask and index, a million\n"
             "pseudo-random boards transposed both ways); returns the number of mismatches.");

static PyObject *core_self_check(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    long bad = 0;
    for (unsigned n = 1; n <= 16; n++)
        for (uint64_t x = 0; x < 2 * 720720u; x++) bad += t48_mod_small(x, n) != x % n;
    uint64_t x = 88172645463325252ull;
    for (long i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        unsigned n = 1 + (unsigned)(x >> 60);
        bad += t48_mod_small(x, n) != x % n;
        t48_board b = t48_board_from_packed(x, (x * 2654435761u) & 0xFFFF);
        t48_board t = t48_transpose(b);
        bad += !t48_board_equal(t, t48_transpose_slow(b)) + !t48_board_equal(t48_transpose(t), b);
    }
    for (unsigned mask = 1; mask < 65536; mask++) {
        unsigned rest = mask;
        for (int i = 0; rest; i++, rest &= rest - 1) {
            int lowest = 0;
            while (!((rest >> lowest) & 1u)) lowest++;
            bad += t48_nth_set_bit(mask, (unsigned)i) != lowest;
        }
    }
    return PyLong_FromLong(bad);
}

static PyMethodDef core_methods[] = {
    {"replay", (PyCFunction)(void (*)(void))core_replay, METH_FASTCALL, replay_doc},
    {"verdict", (PyCFunction)(void (*)(void))core_verdict, METH_FASTCALL, verdict_doc},
    {"steps", (PyCFunction)(void (*)(void))core_steps, METH_FASTCALL, steps_doc},
    {"play", (PyCFunction)(void (*)(void))core_play, METH_FASTCALL, play_doc},
    {"slide", (PyCFunction)(void (*)(void))core_slide, METH_FASTCALL, slide_doc},
    {"is_over", core_is_over, METH_O, is_over_doc},
    {"hmac", (PyCFunction)(void (*)(void))core_hmac, METH_FASTCALL, hmac_doc},
    {"spawn", (PyCFunction)(void (*)(void))core_spawn, METH_FASTCALL, spawn_doc},
    {"sha256", core_sha256, METH_O, sha256_doc},
    {"self_check", core_self_check, METH_NOARGS, self_check_doc},
    {"sha256_impl", (PyCFunction)(void (*)(void))core_sha256_impl, METH_FASTCALL,
     sha256_impl_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    "twenty48_replay._core",
    "The engine's hot loops in C: replay, spawn HMAC, one move (see twenty48_replay.native).",
    -1,
    core_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    if (t48_rows_init() < 0) return PyErr_NoMemory();
    t48_sha256_init_dispatch();
    return PyModule_Create(&core_module);
}
