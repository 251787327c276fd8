/* twenty48_replay._solver: the solver's expectimax (t48_solver_core.c) for Python.
 *
 * Limited API (abi3, CPython 3.11+).  Python (twenty48_replay/solver/native_search.py)
 * picks the depth and the budget and hands over a board as its packed
 * integer split in two; this module only checks the numbers and searches.
 * The search runs without the GIL, so each call takes a transposition table
 * from a small pool (the pool itself is only touched with the GIL held).
 */
#include "t48_py.h"
#include "t48_ntuple_py.h"
#include "t48_solver_core.h"

/* Table sizes a caller may ask for: 2**18 (4 MB) to 2**24 (256 MB). */
#define MIN_TT_BITS X48_MIN_TT_BITS
#define MAX_TT_BITS 24
#define POOL_SIZE 4

static x48_tt *pool[POOL_SIZE];

static x48_tt *take_table(unsigned bits)
{
    for (int i = 0; i < POOL_SIZE; i++) {
        if (pool[i] != NULL && x48_tt_bits(pool[i]) == bits) {
            x48_tt *tt = pool[i];
            pool[i] = NULL;
            return tt;
        }
    }
    return x48_tt_new(bits);
}

static void give_back(x48_tt *tt)
{
    for (int i = 0; i < POOL_SIZE; i++) {
        if (pool[i] == NULL) {
            pool[i] = tt;
            return;
        }
    }
    /* The pool is full: replace a table of another size, else drop this one. */
    for (int i = 0; i < POOL_SIZE; i++) {
        if (x48_tt_bits(pool[i]) != x48_tt_bits(tt)) {
            x48_tt_free(pool[i]);
            pool[i] = tt;
            return;
        }
    }
    x48_tt_free(tt);
}

static int read_int(PyObject *obj, const char *name, long low, long high, long *out)
{
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", name);
        return -1;
    }
    int overflow = 0;
    long value = PyLong_AsLongAndOverflow(obj, &overflow);
    if (value == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow || value < low || value > high) {
        PyErr_Format(PyExc_ValueError, "%s must be from %ld to %ld", name, low, high);
        return -1;
    }
    *out = value;
    return 0;
}

/* A float from 0 to 1. */
static int read_share(PyObject *obj, const char *name, double *out)
{
    double value = PyFloat_AsDouble(obj);
    if (value == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    if (!(value >= 0.0 && value <= 1.0)) {
        PyErr_Format(PyExc_ValueError, "%s must be from 0 to 1", name);
        return -1;
    }
    *out = value;
    return 0;
}

PyDoc_STRVAR(search_doc,
             "search(packed, depth, min_depth, cutoff, max_nodes, reuse_deeper, tt_bits,\n"
             "       table_per_move, network=None)\n"
             "--\n\n"
             "Expectimax from the board whose packed integer (Board.packed) is given.\n"
             "With a network (from ntuple_load), leaves are scored by it and values are\n"
             "expected points to come, the moves' points included; else by the heuristic.\n"
             "Returns (values, depth, nodes, moves, tt_hits, wide): values is a 4-tuple in\n"
             "direction-code order (U, D, L, R) with None where the move is not valid.");

static PyObject *py_search(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 8 && nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "search() takes 8 or 9 arguments");
        return NULL;
    }
    const ntuple_loaded *network = NULL;
    if (nargs == 9 && args[8] != Py_None) {
        network = ntuple_of(args[8]);
        if (network == NULL) {
            return NULL;
        }
    }
    t48_board board;
    uint64_t max_nodes;
    long depth, min_depth, reuse, bits, per_move;
    if (t48_board_from_pyint(args[0], 0, &board) < 0
        || read_int(args[1], "depth", 0, X48_MAX_DEPTH, &depth) < 0
        || read_int(args[2], "min_depth", 0, X48_MAX_DEPTH, &min_depth) < 0
        || t48_count_arg(args[4], &max_nodes) < 0
        || read_int(args[5], "reuse_deeper", 0, 1, &reuse) < 0
        || read_int(args[6], "tt_bits", MIN_TT_BITS, MAX_TT_BITS, &bits) < 0
        || read_int(args[7], "table_per_move", 0, 1, &per_move) < 0) {
        return NULL;
    }
    uint64_t lo, hi;
    t48_board_packed(board, &lo, &hi);
    double cutoff;
    if (read_share(args[3], "cutoff", &cutoff) < 0) {
        return NULL;
    }
    if (x48_needs_wide(lo, hi, (int)depth) && !x48_init_wide()) {
        return PyErr_NoMemory();
    }
    x48_tt *tt = take_table((unsigned)bits);
    if (tt == NULL) {
        return PyErr_NoMemory();
    }
    x48_settings settings = {(int)depth, (int)min_depth, cutoff, max_nodes, (int)reuse,
                             (int)per_move, network != NULL ? &network->weights : NULL};
    x48_result result;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = x48_search(lo, hi, &settings, tt, &result);
    Py_END_ALLOW_THREADS
    give_back(tt);
    if (status != 0) {
        PyErr_Format(PyExc_RuntimeError, "solver search failed (%d)", status);
        return NULL;
    }
    PyObject *values = PyTuple_New(4);
    if (values == NULL) {
        return NULL;
    }
    for (int d = 0; d < 4; d++) {
        PyObject *item;
        if (result.valid & (1 << d)) {
            item = PyFloat_FromDouble(result.values[d]);
            if (item == NULL) {
                Py_DECREF(values);
                return NULL;
            }
        } else {
            item = Py_NewRef(Py_None);
        }
        PyTuple_SetItem(values, d, item);
    }
    return Py_BuildValue("(NiKKKO)", values, result.depth, (unsigned long long)result.nodes,
                         (unsigned long long)result.moves, (unsigned long long)result.tt_hits,
                         result.wide ? Py_True : Py_False);
}

PyDoc_STRVAR(tables_doc,
             "tables()\n--\n\n"
             "The 2**20-entry tables as bytes (left and right: uint32 row keys; heur: float64),\n"
             "in the NumPy solver's key layout, for tests.");

static PyObject *py_tables(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    if (!x48_init_wide()) {
        return PyErr_NoMemory();
    }
    Py_ssize_t n = (Py_ssize_t)1 << 20;
    return Py_BuildValue("(y#y#y#)", (const char *)x48_table_left(), n * 4,
                         (const char *)x48_table_right(), n * 4, (const char *)x48_table_heur(),
                         n * 8);
}

static PyMethodDef methods[] = {
    {"search", (PyCFunction)(void (*)(void))py_search, METH_FASTCALL, search_doc},
    {"tables", py_tables, METH_NOARGS, tables_doc},
    T48_NTUPLE_METHODS,
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "twenty48_replay._solver",
    "The solver's expectimax in C (see twenty48_replay/solver/native_search.py).",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__solver(void)
{
    x48_init();
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "MAX_DEPTH", X48_MAX_DEPTH) < 0

        || PyModule_AddIntConstant(module, "MIN_TT_BITS", MIN_TT_BITS) < 0
        || PyModule_AddIntConstant(module, "MAX_TT_BITS", MAX_TT_BITS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
