/* The n-tuple network's functions in twenty48_replay._solver.
 *
 * Included once, by t48_solver.c (one extension module, one method table).
 * Python (twenty48_replay/solver/ntuple.py) owns every array (NumPy arrays,
 * passed through the buffer protocol, part of the limited API since 3.11) and
 * has already checked the weights file they came from; this file checks the
 * numbers again (shapes, lengths, alignment), so a wrong call is a Python
 * error, never a crash.
 */
#ifndef T48_NTUPLE_PY_H
#define T48_NTUPLE_PY_H

#include <stdlib.h>
#include <string.h>

#include "t48_ntuple.h"
#include "t48_py.h"
#include "t48_rows.h"

/* A tuple of tuples of cells, and a tuple of stage thresholds, as a network. */
static int ntuple_shape(PyObject *tuples, PyObject *stages, t48n_net *net) {
    memset(net, 0, sizeof *net);
    if (!PyTuple_Check(tuples) || !PyTuple_Check(stages)) {
        PyErr_SetString(PyExc_TypeError, "tuples and stages are tuples");
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(tuples);
    Py_ssize_t m = PyTuple_Size(stages);
    if (n < 1 || n > T48N_MAX_TUPLES || m < 1 || m > T48N_MAX_STAGES) {
        PyErr_SetString(PyExc_ValueError, "bad number of tuples or stages");
        return -1;
    }
    net->n_tuples = (int)n;
    net->n_stages = (int)m;
    for (Py_ssize_t t = 0; t < n; t++) {
        PyObject *cells = PyTuple_GetItem(tuples, t);
        if (cells == NULL || !PyTuple_Check(cells)) {
            PyErr_SetString(PyExc_TypeError, "a tuple's cells are a tuple");
            return -1;
        }
        Py_ssize_t k = PyTuple_Size(cells);
        if (k < 1 || k > T48N_MAX_LEN) {
            PyErr_SetString(PyExc_ValueError, "a tuple has 1 to 7 cells");
            return -1;
        }
        net->length[t] = (int)k;
        for (Py_ssize_t j = 0; j < k; j++) {
            long cell = PyLong_AsLong(PyTuple_GetItem(cells, j));
            if (cell == -1 && PyErr_Occurred()) return -1;
            net->cells[t][j] = cell < 0 || cell > 15 ? -1 : (int)cell;
        }
    }
    for (Py_ssize_t s = 0; s < m; s++) {
        long low = PyLong_AsLong(PyTuple_GetItem(stages, s));
        if (low == -1 && PyErr_Occurred()) return -1;
        net->stage_min[s] = low < 0 || low > 31 ? -1 : (int)low;
    }
    if (t48n_setup(net) < 0) {
        PyErr_SetString(PyExc_ValueError, "not a valid network shape");
        return -1;
    }
    return 0;
}

/* A C-contiguous buffer of exactly `bytes` bytes (writable if asked), aligned
 * to `align`; None gives NULL when `optional`. */
static int ntuple_buffer(PyObject *obj, Py_ssize_t bytes, int writable, Py_ssize_t align,
                         int optional, const char *name, Py_buffer *view, void **out) {
    *out = NULL;
    view->obj = NULL;
    if (obj == Py_None && optional) return 0;
    if (PyObject_GetBuffer(obj, view, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0) return -1;
    if (view->len != bytes || ((uintptr_t)view->buf % (uintptr_t)align) != 0) {
        PyErr_Format(PyExc_ValueError, "%s must be %zd aligned bytes, not %zd", name, bytes,
                     view->len);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    *out = view->buf;
    return 0;
}

static void ntuple_release(Py_buffer *views, int n) {
    for (int i = 0; i < n; i++) {
        if (views[i].obj != NULL) PyBuffer_Release(&views[i]);
    }
}

static int ntuple_u64(PyObject *obj, const char *name, uint64_t *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = (uint64_t)v;
    return 0;
}

PyDoc_STRVAR(ntuple_train_doc,
             "ntuple_train(tuples, stages, values, dirty, rule, rate, seed, first, step, count,\n"
             "             results, stop)\n"
             "--\n\n"
             "Play and learn from games first, first + step, ... (count of them).  values:\n"
             "float32, one per weight under TD (rule 0), three per weight under TC (rule 1:\n"
             "weight, E, A side by side); dirty: a uint8 per block of 256 weights, or None.\n"
             "results: count * 16 writable bytes (score u64, moves u32, largest exponent u32\n"
             "per game); stop: a writable int32 (or None) that stops the run between games\n"
             "when set.  Returns the games played.  Runs without the GIL.");

static PyObject *py_ntuple_train(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "ntuple_train() takes 12 arguments");
        return NULL;
    }
    t48n_net net;
    if (ntuple_shape(args[0], args[1], &net) < 0) return NULL;
    long rule = PyLong_AsLong(args[4]);
    if (rule == -1 && PyErr_Occurred()) return NULL;
    if (rule != T48N_RULE_TD && rule != T48N_RULE_TC) {
        PyErr_SetString(PyExc_ValueError, "rule must be 0 (TD) or 1 (TC)");
        return NULL;
    }
    double rate = PyFloat_AsDouble(args[5]);
    if (rate == -1.0 && PyErr_Occurred()) return NULL;
    if (!(rate > 0.0 && rate <= 16.0)) {
        PyErr_SetString(PyExc_ValueError, "rate must be above 0 and at most 16");
        return NULL;
    }
    t48n_train_config config = {(int)rule, rate, 0};
    uint64_t first, step, count;
    if (ntuple_u64(args[6], "seed", &config.seed) < 0 || ntuple_u64(args[7], "first", &first) < 0 ||
        ntuple_u64(args[8], "step", &step) < 0 || ntuple_u64(args[9], "count", &count) < 0) {
        return NULL;
    }
    if (count > ((uint64_t)1 << 40)) {
        PyErr_SetString(PyExc_ValueError, "count is too large");
        return NULL;
    }
    int stride = rule == T48N_RULE_TC ? 3 : 1;
    Py_ssize_t floats = (Py_ssize_t)net.total * stride * 4;
    Py_ssize_t blocks = (Py_ssize_t)((net.total + 255) >> T48N_BLOCK_SHIFT);
    Py_buffer views[4];
    memset(views, 0, sizeof views);
    void *values, *dirty, *results, *stop;
    if (ntuple_buffer(args[2], floats, 1, 4, 0, "values", &views[0], &values) < 0 ||
        ntuple_buffer(args[3], blocks, 1, 1, 1, "dirty", &views[1], &dirty) < 0 ||
        ntuple_buffer(args[10], (Py_ssize_t)count * 16, 1, 8, 0, "results", &views[2], &results) <
            0 ||
        ntuple_buffer(args[11], 4, 1, 4, 1, "stop", &views[3], &stop) < 0) {
        ntuple_release(views, 4);
        return NULL;
    }
    if (t48_rows_init() < 0) {
        ntuple_release(views, 4);
        return PyErr_NoMemory();
    }
    t48n_arrays arrays = {(float *)values, stride, (uint8_t *)dirty};
    uint64_t played;
    Py_BEGIN_ALLOW_THREADS
    played = t48n_train_games(&net, &arrays, &config, first, step, count,
                              (t48n_game_result *)results, (const int *)stop);
    Py_END_ALLOW_THREADS
    ntuple_release(views, 4);
    return PyLong_FromUnsignedLongLong((unsigned long long)played);
}

PyDoc_STRVAR(ntuple_merge_doc,
             "ntuple_merge(shared, copies, dirty, stride)\n"
             "--\n\n"
             "Merge threads' private copies into the shared float32 array (stride floats\n"
             "per weight): copies is a tuple of arrays like shared, dirty a tuple of uint8\n"
             "block marks (one per copy, a mark per 256 weights).  For each block some copy\n"
             "marked: shared += sum over copies in order of (copy - shared); then every copy\n"
             "gets the merged block and the marks are cleared.  Runs without the GIL.");

#define NTUPLE_MAX_COPIES 64

static PyObject *py_ntuple_merge(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4 || !PyTuple_Check(args[1]) || !PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "ntuple_merge() takes an array, 2 tuples and an int");
        return NULL;
    }
    Py_ssize_t n_copies = PyTuple_Size(args[1]);
    long stride = PyLong_AsLong(args[3]);
    if (stride == -1 && PyErr_Occurred()) return NULL;
    if (stride < 1 || stride > 3 || n_copies < 1 || n_copies > NTUPLE_MAX_COPIES ||
        PyTuple_Size(args[2]) != n_copies) {
        PyErr_SetString(PyExc_ValueError, "stride 1 to 3, 1 to 64 copies, a mark per copy");
        return NULL;
    }
    Py_buffer *views = PyMem_Calloc(1 + 2 * NTUPLE_MAX_COPIES, sizeof(Py_buffer));
    float **copies = PyMem_Calloc(NTUPLE_MAX_COPIES, sizeof(float *));
    uint8_t **dirty = PyMem_Calloc(NTUPLE_MAX_COPIES, sizeof(uint8_t *));
    PyObject *answer = NULL;
    int used = 0;
    if (views == NULL || copies == NULL || dirty == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (PyObject_GetBuffer(args[0], &views[0], PyBUF_WRITABLE) < 0) goto done;
    used = 1;
    Py_ssize_t bytes = views[0].len;
    if (bytes <= 0 || bytes % (4 * stride) != 0 || (uintptr_t)views[0].buf % 4 != 0) {
        PyErr_SetString(PyExc_ValueError, "shared is float32, stride floats per weight");
        goto done;
    }
    size_t total = (size_t)bytes / 4 / (size_t)stride;
    Py_ssize_t blocks = (Py_ssize_t)((total + 255) >> T48N_BLOCK_SHIFT);
    void *p;
    for (Py_ssize_t c = 0; c < n_copies; c++) {
        if (ntuple_buffer(PyTuple_GetItem(args[1], c), bytes, 1, 4, 0, "copy", &views[used++],
                          &p) < 0) {
            goto done;
        }
        copies[c] = (float *)p;
        if (ntuple_buffer(PyTuple_GetItem(args[2], c), blocks, 1, 1, 0, "dirty", &views[used++],
                          &p) < 0) {
            goto done;
        }
        dirty[c] = (uint8_t *)p;
    }
    float *shared = (float *)views[0].buf;
    Py_BEGIN_ALLOW_THREADS
    t48n_merge(total, (int)stride, shared, (int)n_copies, copies, dirty);
    Py_END_ALLOW_THREADS
    answer = Py_NewRef(Py_None);
done:
    if (views != NULL) ntuple_release(views, used);
    PyMem_Free(views);
    PyMem_Free(copies);
    PyMem_Free(dirty);
    return answer;
}

/* A loaded network: its shape and weights, and the buffers it reads
 * (held until the capsule is freed, so a memory-mapped file stays mapped). */
typedef struct {
    t48n_net net;
    t48n_weights weights;
    Py_buffer views[2];
    int16_t *owned; /* a dense copy this capsule made (ntuple_expand), or NULL */
} ntuple_loaded;

#define NTUPLE_CAPSULE "twenty48_replay._solver.ntuple"

/* The next t48n_weights.serial (called with the GIL held). */
static uint64_t next_serial(void) {
    static uint64_t last = 0;
    return ++last;
}

static void ntuple_capsule_free(PyObject *capsule) {
    ntuple_loaded *loaded = PyCapsule_GetPointer(capsule, NTUPLE_CAPSULE);
    if (loaded == NULL) {
        PyErr_Clear();
        return;
    }
    ntuple_release(loaded->views, 2);
    free(loaded->owned);
    PyMem_Free(loaded);
}

/* The network of a capsule made by ntuple_load (NULL with a TypeError otherwise). */
static const ntuple_loaded *ntuple_of(PyObject *capsule) {
    if (!PyCapsule_IsValid(capsule, NTUPLE_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "not a network from ntuple_load()");
        return NULL;
    }
    return PyCapsule_GetPointer(capsule, NTUPLE_CAPSULE);
}

PyDoc_STRVAR(ntuple_load_doc,
             "ntuple_load(tuples, stages, kind, scale, values, groups)\n"
             "--\n\n"
             "A network to evaluate with: kind 0 = float32 weights, 1 = int16 weights\n"
             "times scale, 2 = sparse int16 (values: the nonzero weights; groups: the\n"
             "index, 3 uint32 per 64 weights).  The buffers (a memory-mapped file) are\n"
             "checked once here and held by the returned capsule.");

static PyObject *py_ntuple_load(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "ntuple_load() takes 6 arguments");
        return NULL;
    }
    ntuple_loaded *loaded = PyMem_Calloc(1, sizeof *loaded);
    if (loaded == NULL) return PyErr_NoMemory();
    if (ntuple_shape(args[0], args[1], &loaded->net) < 0) goto fail;
    long kind = PyLong_AsLong(args[2]);
    if (kind == -1 && PyErr_Occurred()) goto fail;
    double scale = PyFloat_AsDouble(args[3]);
    if (scale == -1.0 && PyErr_Occurred()) goto fail;
    if (kind < T48N_F32 || kind > T48N_I16_SPARSE || !(scale > 0.0 && scale < 1e30)) {
        PyErr_SetString(PyExc_ValueError, "kind must be 0, 1 or 2 and scale above 0");
        goto fail;
    }
    size_t total = loaded->net.total;
    void *values = NULL, *groups = NULL;
    if (kind == T48N_I16_SPARSE) {
        if (total % 64 != 0) {
            PyErr_SetString(PyExc_ValueError, "a sparse network has a multiple of 64 weights");
            goto fail;
        }
        Py_ssize_t index_bytes = (Py_ssize_t)(total / 64 * 12);
        if (ntuple_buffer(args[5], index_bytes, 0, 4, 0, "groups", &loaded->views[1], &groups) < 0) {
            goto fail;
        }
        if (PyObject_GetBuffer(args[4], &loaded->views[0], PyBUF_SIMPLE) < 0) goto fail;
        values = loaded->views[0].buf;
        if (loaded->views[0].len % 2 != 0 || (uintptr_t)values % 2 != 0 ||
            t48n_check_sparse((const uint32_t *)groups, total / 64,
                              (size_t)loaded->views[0].len / 2) < 0) {
            PyErr_SetString(PyExc_ValueError, "the sparse index does not fit its values");
            goto fail;
        }
    } else {
        Py_ssize_t size = kind == T48N_F32 ? 4 : 2;
        if (ntuple_buffer(args[4], (Py_ssize_t)total * size, 0, size, 0, "values",
                          &loaded->views[0], &values) < 0) {
            goto fail;
        }
    }
    loaded->weights.net = &loaded->net;
    loaded->weights.kind = (int)kind;
    loaded->weights.scale = kind == T48N_F32 ? 1.0 : scale;
    loaded->weights.values = values;
    loaded->weights.groups = (const uint32_t *)groups;
    loaded->weights.serial = next_serial();
    PyObject *capsule = PyCapsule_New(loaded, NTUPLE_CAPSULE, ntuple_capsule_free);
    if (capsule == NULL) goto fail;
    return capsule;
fail:
    ntuple_release(loaded->views, 2);
    PyMem_Free(loaded);
    return NULL;
}

PyDoc_STRVAR(ntuple_expand_doc,
             "ntuple_expand(network)\n"
             "--\n\n"
             "The same network with its weights dense in memory (int16, 2 bytes a weight;\n"
             "the zero pages are never written, so it costs about the nonzero weights):\n"
             "lookups then take one memory access instead of two.  Values are the same.\n"
             "A network that is not sparse is returned as it is.");

static PyObject *py_ntuple_expand(PyObject *module, PyObject *arg) {
    (void)module;
    const ntuple_loaded *source = ntuple_of(arg);
    if (source == NULL) return NULL;
    if (source->weights.kind != T48N_I16_SPARSE) return Py_NewRef(arg);
    ntuple_loaded *loaded = PyMem_Calloc(1, sizeof *loaded);
    if (loaded == NULL) return PyErr_NoMemory();
    size_t total = source->net.total;
    int16_t *dense = calloc(total, sizeof *dense);
    if (dense == NULL) {
        PyMem_Free(loaded);
        return PyErr_NoMemory();
    }
    const uint32_t *groups = source->weights.groups;
    const int16_t *values = (const int16_t *)source->weights.values;
    Py_BEGIN_ALLOW_THREADS
    for (size_t k = 0; k < total / 64; k++) {
        const uint32_t *g = groups + 3 * k;
        uint64_t bits = (uint64_t)g[1] | (uint64_t)g[2] << 32;
        uint32_t rank = g[0];
        while (bits) {
            int bit = t48n_lowest_bit(bits);
            dense[64 * k + (size_t)bit] = values[rank++];
            bits &= bits - 1;
        }
    }
    Py_END_ALLOW_THREADS
    loaded->net = source->net;
    loaded->weights = source->weights;
    loaded->weights.net = &loaded->net;
    loaded->weights.kind = T48N_I16;
    loaded->weights.values = dense;
    loaded->weights.groups = NULL;
    loaded->weights.serial = next_serial();
    loaded->owned = dense;
    PyObject *capsule = PyCapsule_New(loaded, NTUPLE_CAPSULE, ntuple_capsule_free);
    if (capsule == NULL) {
        free(dense);
        PyMem_Free(loaded);
    }
    return capsule;
}

PyDoc_STRVAR(ntuple_value_doc,
             "ntuple_value(network, packed)\n"
             "--\n\n"
             "The network's value of the afterstate `packed` (Board.packed).");

static PyObject *py_ntuple_value(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "ntuple_value() takes 2 arguments");
        return NULL;
    }
    const ntuple_loaded *loaded = ntuple_of(args[0]);
    t48_board board;
    if (loaded == NULL || t48_board_from_pyint(args[1], 0, &board) < 0) return NULL;
    return PyFloat_FromDouble(t48n_evaluate(&loaded->weights, board));
}

PyDoc_STRVAR(ntuple_play_doc,
             "ntuple_play(network, seed, first, step, count, results, stop)\n"
             "--\n\n"
             "Play games first, first + step, ... greedily by the network (no search, no\n"
             "learning) with the training PRNG; results and stop as ntuple_train.\n"
             "Returns the games played.  Runs without the GIL.");

static PyObject *py_ntuple_play(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "ntuple_play() takes 7 arguments");
        return NULL;
    }
    const ntuple_loaded *loaded = ntuple_of(args[0]);
    uint64_t seed, first, step, count;
    if (loaded == NULL || ntuple_u64(args[1], "seed", &seed) < 0 ||
        ntuple_u64(args[2], "first", &first) < 0 || ntuple_u64(args[3], "step", &step) < 0 ||
        ntuple_u64(args[4], "count", &count) < 0) {
        return NULL;
    }
    if (count > ((uint64_t)1 << 40)) {
        PyErr_SetString(PyExc_ValueError, "count is too large");
        return NULL;
    }
    Py_buffer views[2];
    memset(views, 0, sizeof views);
    void *results, *stop;
    if (ntuple_buffer(args[5], (Py_ssize_t)count * 16, 1, 8, 0, "results", &views[0], &results) <
            0 ||
        ntuple_buffer(args[6], 4, 1, 4, 1, "stop", &views[1], &stop) < 0) {
        ntuple_release(views, 2);
        return NULL;
    }
    if (t48_rows_init() < 0) {
        ntuple_release(views, 2);
        return PyErr_NoMemory();
    }
    uint64_t played;
    Py_BEGIN_ALLOW_THREADS
    played = t48n_play_games(&loaded->weights, seed, first, step, count,
                             (t48n_game_result *)results, (const int *)stop);
    Py_END_ALLOW_THREADS
    ntuple_release(views, 2);
    return PyLong_FromUnsignedLongLong((unsigned long long)played);
}

PyDoc_STRVAR(ntuple_indexes_doc,
             "ntuple_indexes(tuples, stages, packed)\n"
             "--\n\n"
             "The weights' indexes the board's features read (tuple by tuple, 8\n"
             "symmetries each), for tests.");

static PyObject *py_ntuple_indexes(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "ntuple_indexes() takes 3 arguments");
        return NULL;
    }
    t48n_net net;
    t48_board board;
    if (ntuple_shape(args[0], args[1], &net) < 0 || t48_board_from_pyint(args[2], 0, &board) < 0) {
        return NULL;
    }
    uint32_t index[T48N_MAX_TUPLES * T48N_SYMMETRIES];
    t48n_indexes(&net, t48n_nibbles(board), t48_max_exponent(board), index);
    PyObject *out = PyTuple_New(net.n_features);
    if (out == NULL) return NULL;
    for (int f = 0; f < net.n_features; f++) {
        PyObject *item = PyLong_FromUnsignedLong(index[f]);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SetItem(out, f, item);
    }
    return out;
}

PyDoc_STRVAR(ntuple_random_doc,
             "ntuple_random(seed, game, n)\n"
             "--\n\n"
             "The first n outputs of the training PRNG of game `game`, for tests.");

static PyObject *py_ntuple_random(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    uint64_t seed, game, n;
    if (nargs != 3 || ntuple_u64(args[0], "seed", &seed) < 0 ||
        ntuple_u64(args[1], "game", &game) < 0 || ntuple_u64(args[2], "n", &n) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "ntuple_random() takes 3 ints");
        return NULL;
    }
    if (n > 1000000) {
        PyErr_SetString(PyExc_ValueError, "n is too large");
        return NULL;
    }
    PyObject *out = PyTuple_New((Py_ssize_t)n);
    if (out == NULL) return NULL;
    uint64_t state = t48n_game_state(seed, game);
    for (uint64_t i = 0; i < n; i++) {
        PyObject *item = PyLong_FromUnsignedLongLong(t48n_next(&state));
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SetItem(out, (Py_ssize_t)i, item);
    }
    return out;
}

#define T48_NTUPLE_METHODS                                                                        \
    {"ntuple_train", (PyCFunction)(void (*)(void))py_ntuple_train, METH_FASTCALL,                \
     ntuple_train_doc},                                                                           \
        {"ntuple_merge", (PyCFunction)(void (*)(void))py_ntuple_merge, METH_FASTCALL,            \
         ntuple_merge_doc},                                                                       \
        {"ntuple_load", (PyCFunction)(void (*)(void))py_ntuple_load, METH_FASTCALL,              \
         ntuple_load_doc},                                                                        \
        {"ntuple_expand", py_ntuple_expand, METH_O, ntuple_expand_doc},                          \
        {"ntuple_value", (PyCFunction)(void (*)(void))py_ntuple_value, METH_FASTCALL,            \
         ntuple_value_doc},                                                                       \
        {"ntuple_play", (PyCFunction)(void (*)(void))py_ntuple_play, METH_FASTCALL,              \
         ntuple_play_doc},                                                                        \
        {"ntuple_indexes", (PyCFunction)(void (*)(void))py_ntuple_indexes, METH_FASTCALL,        \
         ntuple_indexes_doc},                                                                     \
    {                                                                                             \
        "ntuple_random", (PyCFunction)(void (*)(void))py_ntuple_random, METH_FASTCALL,           \
            ntuple_random_doc                                                                     \
    }

#endif /* T48_NTUPLE_PY_H */
