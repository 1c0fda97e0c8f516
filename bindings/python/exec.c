/*
 * exec.c - contained command execution (docs/spec.md section 7b; docs/exec.md) for Python:
 *
 *   _core._execute(target, command, /, *, cwd=None, timeout=None,
 *                  output_cap=None, allow_network=False,
 *                  allow_unconfined=False, env=None, _test_no_landlock=False,
 *                  max_processes=None, max_memory=None, max_cpu_seconds=None,
 *                  max_file_size=None, tmp_size=None, _test_no_namespaces=False,
 *                  _test_abi_cap=None, _test_no_idmap=False, home=None,
 *                  allow_domains=None, toolchains=None,
 *                  toolchains_at_host_path=False, id_range=None)
 *       -> (output: str, exit_code: int, truncated: bool, timed_out: bool,
 *           landlock_abi: int, protections: int, quarantined: list[str])
 *   _core._landlock_abi() -> int
 *   _core._check_allow_domains(entries) -> None  (pathgate.Error when one is malformed)
 *
 * target is a Resolver (cwd defaults to its first root) or a Session (cwd
 * defaults to the session's cwd); home is the address of a directory in a
 * writable base to be HOME (default: a private one); allow_domains a
 * list of host patterns (the network allowlist: docs/exec.md "Network";
 * None = none); toolchains a list of host directories shown read-only
 * (docs/exec.md "Toolchains of the host"); timeout is in
 * seconds; env is a mapping
 * of str to str merged over the defaults. The output is decoded as UTF-8
 * with U+FFFD for what is not. The GIL is released while the command runs,
 * so other threads (and other executions) proceed meanwhile. Refusals
 * raise pathgate.Error with .kind (e.g. "unsupported", "invalid_path").
 * python/pathgate/sandbox.py builds Backend.execute on it.
 */
#include "module.h"
#include "exec_opts.h"
#include "fields.h"

#include <math.h>

/* The result tuple: the fields of result_fields.h's PG_EXEC_FIELDS, in order. */
static const char *const exec_names[] = {PG_EXEC_FIELDS(PG_PY_NAME, _)};
PG_PY_TUPLE_FN(exec_tuple, PG_EXEC_FIELDS, pathgate_exec_result)

/* "KEY=VALUE" entries of a mapping: a list of bytes objects (kept alive by
 * *holder) and a NULL-terminated array pointing into them (PyMem). */
static int build_env(PyObject *mapping, PyObject **holder, const char ***out) {
    *holder = NULL;
    *out = NULL;
    if (!PyMapping_Check(mapping) || PyUnicode_Check(mapping)) {
        PyErr_SetString(PyExc_TypeError, "env must be a mapping of str to str");
        return -1;
    }
    PyObject *items = PyMapping_Items(mapping);
    if (items == NULL)
        return -1;
    Py_ssize_t n = PyList_Size(items);
    PyObject *list = PyList_New(0);
    const char **arr = list == NULL ? NULL : PyMem_Calloc((size_t)n + 1, sizeof *arr);
    if (arr == NULL) {
        if (list != NULL)
            PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GetItem(items, i);
        PyObject *k = PyTuple_GetItem(item, 0), *v = PyTuple_GetItem(item, 1);
        if (k == NULL || v == NULL)
            goto fail;
        if (!PyUnicode_Check(k) || !PyUnicode_Check(v)) {
            PyErr_SetString(PyExc_TypeError, "env must be a mapping of str to str");
            goto fail;
        }
        PyObject *entry = PyUnicode_FromFormat("%U=%U", k, v);
        if (entry == NULL)
            goto fail;
        PyObject *bytes = PyUnicode_AsEncodedString(entry, "utf-8", "surrogateescape");
        Py_DECREF(entry);
        if (bytes == NULL)
            goto fail;
        int rc = PyList_Append(list, bytes);
        Py_DECREF(bytes);
        if (rc < 0)
            goto fail;
        char *p;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(bytes, &p, &len) < 0)
            goto fail;
        Py_ssize_t klen = PyUnicode_GetLength(k);
        if ((Py_ssize_t)strlen(p) != len || klen == 0 ||
            PyUnicode_FindChar(k, '=', 0, klen, 1) >= 0) {
            PyErr_SetString(PyExc_ValueError,
                            "env names must be non-empty without '=' and nothing may hold NUL");
            goto fail;
        }
        arr[i] = p;
    }
    Py_DECREF(items);
    *holder = list;
    *out = arr;
    return 0;
fail:
    PyMem_Free(arr);
    Py_XDECREF(list);
    Py_DECREF(items);
    return -1;
}

static int flag_arg(PyObject *obj, int *out) {
    if (obj == NULL)
        return 0;
    int v = PyObject_IsTrue(obj);
    if (v < 0)
        return -1;
    *out = v;
    return 0;
}

/* A non-negative int option (None/absent = 0, the default). */
static int limit_arg(PyObject *obj, unsigned long long max, unsigned long long *out,
                     const char *name) {
    *out = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (PyBool_Check(obj) || !PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int or None", name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be > 0", name);
        return -1;
    }
    if (v == 0 || v > max) {
        PyErr_Format(PyExc_ValueError, "%s must be > 0 (at most %llu)", name, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* timeout=: seconds (an int or float, > 0, at most 4e6) into *seconds;
 * the caller skips None/absent. */
static int timeout_arg(PyObject *obj, double *seconds) {
    if (PyBool_Check(obj) || !(PyLong_Check(obj) || PyFloat_Check(obj))) {
        PyErr_SetString(PyExc_TypeError, "timeout must be a number of seconds or None");
        return -1;
    }
    double t = PyFloat_AsDouble(obj);
    if (t == -1.0 && PyErr_Occurred())
        return -1;
    if (!(t > 0) || t > PG_XO_SECONDS_MAX) {
        PyErr_SetString(PyExc_ValueError, "timeout must be > 0 seconds (at most 4e6)");
        return -1;
    }
    *seconds = t;
    return 0;
}

/* output_cap=: a positive int; the caller skips None/absent. */
static int output_cap_arg(PyObject *obj, unsigned long long *out) {
    if (PyBool_Check(obj) || !PyLong_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "output_cap must be an int or None");
        return -1;
    }
    long long cap = PyLong_AsLongLong(obj);
    if (cap == -1 && PyErr_Occurred())
        return -1;
    if (cap <= 0 || (unsigned long long)cap > (unsigned long long)(((size_t)-1) / 4)) {
        PyErr_SetString(PyExc_ValueError, "output_cap must be > 0");
        return -1;
    }
    *out = (unsigned long long)cap;
    return 0;
}

/* A list or tuple of str (allow_domains, toolchains) into a
 * NULL-terminated array (PyMem) pointing into the strings, kept alive by
 * *holder. */
static int str_list_arg(PyObject *obj, PyObject **holder, const char ***out, const char *what) {
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || !(PyList_Check(obj) || PyTuple_Check(obj))) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of str", what);
        return -1;
    }
    PyObject *seq = PySequence_Tuple(obj);
    if (seq == NULL)
        return -1;
    *holder = seq;
    Py_ssize_t n = PyTuple_Size(seq);
    const char **list = PyMem_Calloc((size_t)n + 1, sizeof *list);
    if (list == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *out = list;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GetItem(seq, i);
        Py_ssize_t len;
        const char *s = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &len) : NULL;
        if (s == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "%s must be a list of str", what);
            return -1;
        }
        if ((size_t)len != strlen(s)) {
            PyErr_Format(PyExc_ValueError, "%s entries must not contain NUL", what);
            return -1;
        }
        list[i] = s;
    }
    return 0;
}

/* The keyword arguments of _execute (a[2..], one per entry of
 * ../exec_opts.h, in its order: the table Lua's options read too) into o.
 * cwd, home, allow_domains and toolchains point into objects kept alive by
 * the holders (h[0] cwd, h[1] home, h[2] allow_domains, h[3] toolchains),
 * env by *env_holder, and *env, lists[0] (allow_domains) and lists[1]
 * (toolchains) are PyMem: the caller releases all of them, also on
 * failure (-1, an exception set). */
/* id_range: "none" (only 0 mapped) or (first, count) with count >= 2
 * (pathgate_exec_options.id_range_*; docs/exec.md "Ownership changes
 * inside"). */
static int id_range_arg(PyObject *v, pathgate_exec_options *o) {
    if (PyUnicode_Check(v)) {
        if (PyUnicode_CompareWithASCIIString(v, "none") == 0) {
            o->id_range_first = 0;
            o->id_range_count = 1;
            return 0;
        }
    } else if (PyTuple_Check(v) && PyTuple_Size(v) == 2) {
        PyObject *f = PyTuple_GetItem(v, 0), *c = PyTuple_GetItem(v, 1);
        if (f && c && PyLong_Check(f) && PyLong_Check(c) && !PyBool_Check(f) && !PyBool_Check(c)) {
            unsigned long long first = PyLong_AsUnsignedLongLong(f);
            unsigned long long count = PyErr_Occurred() ? 0 : PyLong_AsUnsignedLongLong(c);
            if (!PyErr_Occurred() && first <= 0xFFFFFFFEull && count >= 2 &&
                count <= 0xFFFFFFFFull) {
                o->id_range_first = (unsigned int)first;
                o->id_range_count = (unsigned int)count;
                return 0;
            }
            PyErr_Clear();
        }
    }
    PyErr_SetString(
        PyExc_ValueError,
        "id_range must be None, \"none\" or a tuple (first, count) of ints, count >= 2");
    return -1;
}

static int exec_options_from(pathgate_exec_options *o, PyObject *const *a, PyObject **h,
                             PyObject **env_holder, const char ***env, const char **lists[2]) {
    for (int i = 0; i < PG_XO_COUNT; i++) {
        PyObject *v = a[2 + i];
        const pg_exec_opt *x = &pg_exec_opts[i];
        pg_exec_opt_id id = (pg_exec_opt_id)i;
        if (v == NULL || (v == Py_None && x->kind != PG_XO_BOOL && x->kind != PG_XO_FLAG))
            continue; /* absent: the default */
        switch (x->kind) {
        case PG_XO_TEXT: {
            const char *text;
            Py_ssize_t len;
            if (pg_text(v, &text, &len, &h[id == PG_XO_cwd ? 0 : 1], x->name) < 0)
                return -1;
            pg_exec_opt_set_text(o, id, text, (size_t)len);
            break;
        }
        case PG_XO_SECONDS: {
            double t;
            if (timeout_arg(v, &t) < 0)
                return -1;
            pg_exec_opt_set_seconds(o, t);
            break;
        }
        case PG_XO_CAP: {
            unsigned long long cap;
            if (output_cap_arg(v, &cap) < 0)
                return -1;
            pg_exec_opt_set_num(o, id, cap);
            break;
        }
        case PG_XO_BOOL:
        case PG_XO_FLAG: {
            int on = 0;
            if (flag_arg(v, &on) < 0)
                return -1;
            pg_exec_opt_set_num(o, id, (unsigned long long)on);
            break;
        }
        case PG_XO_LIMIT: {
            unsigned long long lim;
            if (limit_arg(v, x->arg, &lim, x->name) < 0)
                return -1;
            pg_exec_opt_set_num(o, id, lim);
            break;
        }
        case PG_XO_ABI_CAP: {
            long cap = PyBool_Check(v) || !PyLong_Check(v) ? -1 : PyLong_AsLong(v);
            if (cap < 0 || (unsigned long long)cap > x->arg) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%s must be an int 0..%d", x->name, (int)x->arg);
                return -1;
            }
            pg_exec_opt_set_num(o, id, (unsigned long long)cap);
            break;
        }
        case PG_XO_ENV:
            if (build_env(v, env_holder, env) < 0)
                return -1;
            o->env = *env;
            break;
        case PG_XO_LIST: {
            int k = id == PG_XO_allow_domains ? 0 : 1;
            if (str_list_arg(v, &h[2 + k], &lists[k], x->name) < 0)
                return -1;
            pg_exec_opt_set_list(o, id, lists[k]);
            break;
        }
        case PG_XO_ID_RANGE:
            if (id_range_arg(v, o) < 0)
                return -1;
            break;
        }
    }
    return 0;
}

static PyObject *pg_execute(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    /* target, command, then the options of ../exec_opts.h */
#define PG__XO_NAME(name, kind, arg) #name,
    static const char *const names[2 + PG_XO_COUNT] = {NULL, NULL, PG_EXEC_OPTIONS(PG__XO_NAME)};
#undef PG__XO_NAME
    PyObject *a[2 + PG_XO_COUNT];
    if (pg_bind("_execute", args, nargs, kwnames, names, 2 + PG_XO_COUNT, 2, 2, a) < 0)
        return NULL;
    pg_state *st = PyModule_GetState(module);
    PyObject *target = a[0];
    int is_session = Py_IS_TYPE(target, (PyTypeObject *)st->SessionType);
    if (!is_session && !pg_is_resolver(st, target)) {
        PyObject *tname = PyType_GetName(Py_TYPE(target));
        if (tname != NULL) {
            PyErr_Format(PyExc_TypeError,
                         "_execute() target must be a Resolver or a Session, not %U", tname);
            Py_DECREF(tname);
        }
        return NULL;
    }
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    PyObject *cmd_holder = NULL, *holders[4] = {NULL, NULL, NULL, NULL}, *env_holder = NULL,
             *result = NULL;
    const char **env = NULL, **lists[2] = {NULL, NULL};
    const char *command;
    Py_ssize_t len;
    if (pg_text(a[1], &command, &len, &cmd_holder, "command") < 0)
        return NULL;
    if (exec_options_from(&o, a, holders, &env_holder, &env, lists) < 0)
        goto done;

    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    if (is_session) {
        pathgate_session *s = ((pg_session_object *)target)->session;
        Py_BEGIN_ALLOW_THREADS
        rc = pathgate_exec_run_session(&res, s, command, (size_t)len, &o, &err);
        Py_END_ALLOW_THREADS
    } else {
        pathgate_resolver *r = ((pg_resolver_object *)target)->resolver;
        Py_BEGIN_ALLOW_THREADS
        rc = pathgate_exec_run(&res, r, command, (size_t)len, &o, &err);
        Py_END_ALLOW_THREADS
    }
    if (rc < 0) {
        pg_raise(st, st->Error, rc, &err);
        goto done;
    }
    pg_conv cv;
    if (pg_conv_init(&cv, PG_NAMES(exec_names), 0) == 0)
        result = exec_tuple(&cv, &res);
    pg_conv_dispose(&cv);
    if (result != NULL) {
        /* + the addresses of what the command planted at protected names
         * (docs/exec.md "Planted links"), each NUL-terminated */
        PyObject *q = PyList_New(0);
        const char *p = res.quarantined.ptr;
        for (size_t i = 0; q != NULL && p != NULL && i < res.nquarantined; i++) {
            size_t n = strlen(p);
            PyObject *addr = PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "surrogateescape");
            if (addr == NULL || PyList_Append(q, addr) < 0)
                Py_CLEAR(q);
            Py_XDECREF(addr);
            p += n + 1;
        }
        PyObject *tail = q != NULL ? Py_BuildValue("(N)", q) : NULL;
        PyObject *all = tail != NULL ? PySequence_Concat(result, tail) : NULL;
        Py_XDECREF(tail);
        Py_DECREF(result);
        result = all;
    }
    pathgate_exec_result_dispose(&res);
done:
    PyMem_Free(env);
    PyMem_Free(lists[0]);
    PyMem_Free(lists[1]);
    Py_XDECREF(env_holder);
    for (size_t i = 0; i < 4; i++)
        Py_XDECREF(holders[i]);
    Py_XDECREF(cmd_holder);
    return result;
}

static PyObject *pg_landlock_abi(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    int abi;
    Py_BEGIN_ALLOW_THREADS
    abi = pathgate_exec_landlock_abi();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(abi);
}

static PyObject *pg_exec_capabilities(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    unsigned int caps;
    Py_BEGIN_ALLOW_THREADS
    caps = pathgate_exec_capabilities();
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLong(caps);
}

/* The entries of allow_domains checked as a command's options would be
 * (for a configuration loaded ahead of its first command). */
static PyObject *pg_check_allow_domains(PyObject *module, PyObject *entries) {
    pg_state *st = PyModule_GetState(module);
    PyObject *holder = NULL;
    const char **list = NULL;
    PyObject *result = NULL;
    if (str_list_arg(entries, &holder, &list, "allow_domains") == 0) {
        size_t n = 0;
        while (list[n])
            n++;
        pathgate_error err = PATHGATE_ERROR_INIT;
        int rc = pathgate_exec_check_allow_domains(list, n, &err);
        if (rc < 0)
            pg_raise(st, st->Error, rc, &err);
        else
            result = Py_NewRef(Py_None);
    }
    PyMem_Free(list);
    Py_XDECREF(holder);
    return result;
}

/* The toolchains checked as a command's options would be (each opened
 * now), for a configuration made ahead: pathgate.Error when one fails. */
static PyObject *pg_check_toolchains(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    pg_state *st = PyModule_GetState(module);
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "_check_toolchains(entries, at_host_path, base_home)");
        return NULL;
    }
    PyObject *holder = NULL, *result = NULL;
    const char **list = NULL;
    int at_host = 0, base_home = 0;
    if (flag_arg(args[1], &at_host) == 0 && flag_arg(args[2], &base_home) == 0 &&
        str_list_arg(args[0], &holder, &list, "toolchains") == 0) {
        pathgate_error err = PATHGATE_ERROR_INIT;
        int rc = pathgate_exec_check_toolchains(list, at_host, base_home, &err);
        if (rc < 0)
            pg_raise(st, st->Error, rc, &err);
        else
            result = Py_NewRef(Py_None);
    }
    PyMem_Free(list);
    Py_XDECREF(holder);
    return result;
}

static PyMethodDef exec_methods[] = {
    {"_execute", PG_METH(pg_execute), METH_FASTCALL | METH_KEYWORDS,
     "_execute(target, command, /, *, cwd=None, timeout=None, output_cap=None, "
     "allow_network=False, allow_unconfined=False, env=None, _test_no_landlock=False, "
     "max_processes=None, max_memory=None, max_cpu_seconds=None, max_file_size=None, "
     "tmp_size=None, _test_no_namespaces=False, _test_abi_cap=None, _test_no_idmap=False, "
     "home=None, allow_domains=None, toolchains=None, toolchains_at_host_path=False, "
     "id_range=None)"
     "\n--\n\n"
     "Runs /bin/sh -c command confined to the target's roots (see pathgate.sandbox)."},
    {"_check_toolchains", PG_METH(pg_check_toolchains), METH_FASTCALL,
     "_check_toolchains(entries, at_host_path, base_home, /)\n--\n\n"
     "Raises pathgate.Error (invalid_argument) when a toolchain fails its checks."},
    {"_check_allow_domains", pg_check_allow_domains, METH_O,
     "_check_allow_domains(entries, /)\n--\n\n"
     "Raises pathgate.Error (invalid_argument) when an allow_domains entry is malformed."},
    {"_landlock_abi", pg_landlock_abi, METH_NOARGS,
     "_landlock_abi()\n--\n\nThe Landlock ABI a command would run under (0: none)."},
    {"_exec_capabilities", pg_exec_capabilities, METH_NOARGS,
     "_exec_capabilities()\n--\n\nPATHGATE_EXEC_PROT_* bits this build's commands can get "
     "(0: no commands)."},
    {NULL, NULL, 0, NULL},
};

int pg_exec_init(PyObject *module, pg_state *st) {
    (void)st;
    /* Private names: the public surface is python/pathgate/sandbox.py. */
    if (PyModule_AddFunctions(module, exec_methods) < 0)
        return -1;
    /* _protections: {name: bit} of every protection (../result_fields.h),
     * sandbox.PROTECTIONS */
    PyObject *prot = PyDict_New();
    if (prot == NULL)
        return -1;
    for (size_t i = 0; i < PG_PROTECTION_COUNT; i++) {
        PyObject *bit = PyLong_FromUnsignedLong(pg_protections[i].bit);
        if (bit == NULL || PyDict_SetItemString(prot, pg_protections[i].name, bit) < 0) {
            Py_XDECREF(bit);
            Py_DECREF(prot);
            return -1;
        }
        Py_DECREF(bit);
    }
    int rc = PyModule_AddObjectRef(module, "_protections", prot);
    Py_DECREF(prot);
    return rc;
}
