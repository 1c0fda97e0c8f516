/*
 * fields.h - the result fields of ../result_fields.h as Python objects
 * (fields.c): dicts for the file operations, a tuple for exec.
 *
 * A pg_conv holds the interned keys of one description and, per STR field,
 * a one-entry cache, so that consecutive equal texts (the path of a grep's
 * matches in one file) share one str.
 */
#ifndef PATHGATE_PY_FIELDS_H
#define PATHGATE_PY_FIELDS_H

#include "module.h"
#include "result_fields.h"

#define PG_CONV_MAX 16
typedef struct pg_conv {
    size_t n;
    int absent_none; /* an absent field: None, or no key at all */
    PyObject *keys[PG_CONV_MAX];
    PyObject *last[PG_CONV_MAX];
    const char *last_ptr[PG_CONV_MAX];
    size_t last_len[PG_CONV_MAX];
} pg_conv;

/* 0, or -1 with an exception (pg_conv_dispose it either way). */
int pg_conv_init(pg_conv *cv, const char *const *names, size_t n, int absent_none);
void pg_conv_dispose(pg_conv *cv);

/* One converter per kind of result_fields.h: a new reference or NULL. */
PyObject *pg_field_STR(pg_conv *cv, size_t k, const char *s, size_t len);
PyObject *pg_field_CSTR(pg_conv *cv, size_t k, const char *s, size_t unused);
PyObject *pg_field_BOOL(pg_conv *cv, size_t k, int v, size_t unused);
PyObject *pg_field_INT(pg_conv *cv, size_t k, int v, size_t unused);
PyObject *pg_field_UINT(pg_conv *cv, size_t k, uint64_t v, size_t unused);

/* d[keys[k]] = value (stolen), or the absent rule; -1 with an exception. */
int pg_conv_put(PyObject *d, const pg_conv *cv, size_t k, int present, PyObject *value);

/* The names of a description: static const char *const x[] = {F(PG_PY_NAME, _)}; */
#define PG_PY_NAME(name, kind, value, aux, present) #name,
#define PG_NAMES(a) (a), (sizeof(a) / sizeof((a)[0]))

#define PG_PY_FIELD(name, kind, value, aux, present)                                               \
    if (!bad)                                                                                      \
        bad = pg_conv_put(d, cv, k, (present),                                                     \
                          (present) ? pg_field_##kind(cv, k, value, aux) : NULL) < 0;              \
    k++;
/* static PyObject *fn(pg_conv *cv, const type *e): the dict of one result. */
#define PG_PY_DICT_FN(fn, FIELDS, type)                                                            \
    static PyObject *fn(pg_conv *cv, const type *e) {                                              \
        PyObject *d = PyDict_New();                                                                \
        int bad = d == NULL;                                                                       \
        size_t k = 0;                                                                              \
        FIELDS(PG_PY_FIELD, e)                                                                     \
        (void)k;                                                                                   \
        if (bad)                                                                                   \
            Py_CLEAR(d);                                                                           \
        return d;                                                                                  \
    }

#define PG_PY_ITEM(name, kind, value, aux, present)                                                \
    if (t != NULL) {                                                                               \
        PyObject *v_ = pg_field_##kind(cv, k, value, aux);                                         \
        if (v_ == NULL)                                                                            \
            Py_CLEAR(t);                                                                           \
        else                                                                                       \
            PyTuple_SetItem(t, (Py_ssize_t)k, v_);                                                 \
    }                                                                                              \
    k++;
/* static PyObject *fn(pg_conv *cv, const type *e): the fields as a tuple,
 * in order (every field must be present). */
#define PG_PY_TUPLE_FN(fn, FIELDS, type)                                                           \
    static PyObject *fn(pg_conv *cv, const type *e) {                                              \
        PyObject *t = PyTuple_New(PG_FIELD_COUNT(FIELDS));                                         \
        size_t k = 0;                                                                              \
        FIELDS(PG_PY_ITEM, e)                                                                      \
        (void)k;                                                                                   \
        return t;                                                                                  \
    }

#endif
