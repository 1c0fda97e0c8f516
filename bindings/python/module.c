/*
 * module.c - pathgate._core: multi-phase initialisation and module state.
 *
 * The module keeps everything it needs (heap types, exception classes,
 * interned strings, the lazily imported pathlib.Path) in its per-module
 * state, so it can be imported into several interpreters and re-imported
 * after being dropped. The exec slot runs the parts of PG_MODULE_PARTS
 * (module.h) in order.
 */
#include "module.h"

static int pg_module_traverse(PyObject *module, visitproc visit, void *arg) {
    pg_state *st = PyModule_GetState(module);
    if (st == NULL)
        return 0;
    PyObject **slots = (PyObject **)st;
    for (size_t i = 0; i < PG_STATE_COUNT; i++)
        Py_VISIT(slots[i]);
    return 0;
}

static int pg_module_clear(PyObject *module) {
    pg_state *st = PyModule_GetState(module);
    if (st == NULL)
        return 0;
    PyObject **slots = (PyObject **)st;
    for (size_t i = 0; i < PG_STATE_COUNT; i++)
        Py_CLEAR(slots[i]);
    return 0;
}

static void pg_module_free(void *module) {
    (void)pg_module_clear((PyObject *)module);
}

static int pg_add_constants(PyObject *module) {
    if (PyModule_AddStringConstant(module, "__version__", pathgate_version()) < 0 ||
        PyModule_AddStringConstant(module, "INVALID_PATH_MESSAGE", PATHGATE_MSG_INVALID) < 0 ||
        PyModule_AddStringConstant(module, "CAPACITY_MESSAGE", PATHGATE_MSG_CAPACITY) < 0 ||
        PyModule_AddIntConstant(module, "MAX_TOKENS_DEFAULT", PATHGATE_MAX_TOKENS_DEFAULT) < 0 ||
        PyModule_AddIntConstant(module, "SESSION_MAX_DEPTH", PATHGATE_SESSION_MAX_DEPTH) < 0 ||
        PyModule_AddIntConstant(module, "PATH_MAX", PATHGATE_PATH_MAX) < 0)
        return -1;
    return 0;
}

static int pg_module_exec(PyObject *module) {
    pg_state *st = PyModule_GetState(module);
    if ((st->str_posix = PyUnicode_InternFromString("posix")) == NULL ||
        (st->str_windows = PyUnicode_InternFromString("windows")) == NULL ||
        (st->str_kind = PyUnicode_InternFromString("kind")) == NULL ||
        (st->str_code = PyUnicode_InternFromString("code")) == NULL)
        return -1;
    if (pg_add_constants(module) < 0)
        return -1;
#define PG_X_INIT(name)                                                                            \
    if (pg_##name##_init(module, st) < 0)                                                          \
        return -1;
    PG_MODULE_PARTS(PG_X_INIT)
#undef PG_X_INIT
    return 0;
}

static PyModuleDef_Slot pg_module_slots[] = {
    {Py_mod_exec, (void *)pg_module_exec},
    {0, NULL},
};

static struct PyModuleDef pg_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pathgate._core",
    .m_doc = "The C core of pathgate (import pathgate instead).",
    .m_size = sizeof(pg_state),
    .m_methods = NULL,
    .m_slots = pg_module_slots,
    .m_traverse = pg_module_traverse,
    .m_clear = pg_module_clear,
    .m_free = pg_module_free,
};

PyMODINIT_FUNC PyInit__core(void) {
    return PyModuleDef_Init(&pg_module_def);
}
