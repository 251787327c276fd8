/* Python-facing helpers for the extension modules, limited API (abi3) only.
 *
 * Boards cross the boundary as Python ints in the packing of
 * twenty48_replay/rows.py: ``Board.packed`` (80 bits) or the engine's working
 * state ``b | t << 80`` (160 bits, t the transposed board).  Arguments come
 * from our own Python code, which validated the record, but they are checked
 * again here: a wrong type or range is a TypeError / ValueError, never a crash.
 */
#ifndef T48_PY_H
#define T48_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>

#include "t48_board.h"

/* A non-negative int's low 80 bits as a board (the b half of a working state).
 * Bits above 80 are ignored when `state` is true (they hold t), refused otherwise. */
static inline int t48_board_from_pyint(PyObject *value, int state, t48_board *out) {
    if (!PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "a board is an int");
        return -1;
    }
    PyObject *zero = PyLong_FromLong(0);
    if (zero == NULL) return -1;
    int negative = PyObject_RichCompareBool(value, zero, Py_LT);
    Py_DECREF(zero);
    if (negative < 0) return -1;
    if (negative) {
        PyErr_SetString(PyExc_ValueError, "a board is not negative");
        return -1;
    }
    uint64_t lo = PyLong_AsUnsignedLongLongMask(value);
    if (lo == (uint64_t)-1 && PyErr_Occurred()) return -1;
    PyObject *shift = PyLong_FromLong(64);
    if (shift == NULL) return -1;
    PyObject *high = PyNumber_Rshift(value, shift);
    Py_DECREF(shift);
    if (high == NULL) return -1;
    uint64_t hi = PyLong_AsUnsignedLongLongMask(high);
    int too_big = 0;
    if (!state) {
        PyObject *limit = PyLong_FromLong(0xFFFF);
        if (limit == NULL) {
            Py_DECREF(high);
            return -1;
        }
        too_big = PyObject_RichCompareBool(high, limit, Py_GT);
        Py_DECREF(limit);
    }
    Py_DECREF(high);
    if (too_big < 0 || (hi == (uint64_t)-1 && PyErr_Occurred())) return -1;
    if (too_big) {
        PyErr_SetString(PyExc_ValueError, "a packed board has 80 bits");
        return -1;
    }
    *out = t48_board_from_packed(lo, hi & 0xFFFF);
    return 0;
}

/* Board.packed of a board, as a Python int. */
static inline PyObject *t48_board_to_pyint(t48_board b) {
    uint64_t lo, hi;
    t48_board_packed(b, &lo, &hi);
    char text[24];
    snprintf(text, sizeof text, "%04x%016llx", (unsigned)hi, (unsigned long long)lo);
    return PyLong_FromString(text, NULL, 16);
}

/* The engine's working state b | t << 80 of a board, as a Python int. */
static inline PyObject *t48_state_to_pyint(t48_board b) {
    uint64_t lo, hi, tlo, thi;
    t48_board_packed(b, &lo, &hi);
    t48_board_packed(t48_transpose(b), &tlo, &thi);
    char text[48];
    snprintf(text, sizeof text, "%04x%016llx%04x%016llx", (unsigned)thi, (unsigned long long)tlo,
             (unsigned)hi, (unsigned long long)lo);
    return PyLong_FromString(text, NULL, 16);
}

/* The bytes of a bytes object (a seed's UTF-8 key). */
static inline int t48_bytes_arg(PyObject *value, const char **data, Py_ssize_t *length) {
    if (!PyBytes_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "a seed key is bytes");
        return -1;
    }
    char *buffer;
    if (PyBytes_AsStringAndSize(value, &buffer, length) < 0) return -1;
    *data = buffer;
    return 0;
}

/* The letters of a move string (str or bytes). */
static inline int t48_moves_arg(PyObject *value, const char **data, Py_ssize_t *length) {
    if (PyUnicode_Check(value)) {
        *data = PyUnicode_AsUTF8AndSize(value, length);
        return *data == NULL ? -1 : 0;
    }
    if (PyBytes_Check(value)) {
        char *buffer;
        if (PyBytes_AsStringAndSize(value, &buffer, length) < 0) return -1;
        *data = buffer;
        return 0;
    }
    PyErr_SetString(PyExc_TypeError, "moves are a str or bytes");
    return -1;
}

/* A non-negative int that fits in 63 bits (a move count or spawn number). */
static inline int t48_count_arg(PyObject *value, uint64_t *out) {
    if (!PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "a count is an int");
        return -1;
    }
    long long n = PyLong_AsLongLong(value);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "a count is not negative");
        return -1;
    }
    *out = (uint64_t)n;
    return 0;
}

#endif /* T48_PY_H */
