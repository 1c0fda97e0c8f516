/*
 * edit_tools.c - the edit tools models are trained on, as private parts of
 * pathgate._core (arguments: ../edit_ops.h), used by Backend.apply_patch
 * and Backend.text_editor:
 *
 *   _fs_apply_patch(owner, patch, *, atomic=True, max_file_size=None)
 *       -> (kind or None, error or None, output, files)
 *          files: [{"change": "A"|"M"|"D", "path": address, "from": address or None}]
 *   _Editor()  an undo history (docs/editor.md)
 *   _Editor.run(owner, command, path, *, tool=None, file_text=None,
 *              old_str=None, new_str=None, insert_line=None,
 *              max_characters=None, view_range=None,
 *              view_range_invalid=False, max_file_size=None)
 *       -> (kind or None, error or None, output or None)
 *
 * owner is a Resolver or a Session. What the tool answers (a patch that
 * does not apply, a text not found) is the result, not an exception; only
 * misuse raises. The GIL is released around the core call.
 */
#include "module.h"
#include "edit_ops.h"

static const pg_spec patch_spec = PG_SPEC(pg_patch_args);
static const pg_spec editor_spec = PG_SPEC(pg_editor_args);

static PyObject *text_or_none(const pathgate_buf *b) {
    if (b->ptr == NULL)
        Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(b->ptr, (Py_ssize_t)b->len, "replace");
}

static PyObject *kind_or_none(int code) {
    if (code == 0)
        Py_RETURN_NONE;
    return PyUnicode_FromString(pathgate_errname(code));
}

static PyObject *patch_files(const pathgate_fs_patch_result *r) {
    PyObject *l = PyList_New((Py_ssize_t)r->count);
    for (size_t i = 0; l != NULL && i < r->count; i++) {
        const pathgate_fs_patch_file *f = &r->files[i];
        char change[2] = {(char)f->change, '\0'};
        PyObject *d = Py_BuildValue(
            "{s:s,s:N,s:N}", "change", change, "path",
            PyUnicode_DecodeUTF8(f->path, (Py_ssize_t)f->path_len, "replace"), "from",
            f->from ? PyUnicode_DecodeUTF8(f->from, (Py_ssize_t)f->from_len, "replace")
                    : Py_NewRef(Py_None));
        if (d == NULL)
            Py_CLEAR(l);
        else
            PyList_SetItem(l, (Py_ssize_t)i, d);
    }
    return l;
}

static PyObject *apply_patch(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    pg_args h;
    if (pg_args_parse(&h, module, "_fs_apply_patch", patch_spec, args, nargs, kwnames) < 0)
        return NULL;
    pathgate_fs_patch_result r = PATHGATE_FS_PATCH_RESULT_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_apply_patch(&r, h.a.resolver, PG_TXT(&h.a, 0), &h.a.opts, &h.a.err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out = rc < 0 ? pg_raise(st, st->Error, rc, &h.a.err)
                           : Py_BuildValue("(NNNN)", kind_or_none(r.code), text_or_none(&r.error),
                                           text_or_none(&r.output), patch_files(&r));
    pathgate_fs_patch_result_dispose(&r);
    pg_args_release(&h);
    return out;
}

/* ------------------------------------------------------------- Editor */

typedef struct {
    PyObject_HEAD pathgate_editor *editor;
} editor_object;

static PyObject *editor_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    if (PyTuple_Size(args) != 0 || (kwds != NULL && PyDict_Size(kwds) != 0)) {
        PyErr_SetString(PyExc_TypeError, "_Editor() takes no arguments");
        return NULL;
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    editor_object *self = (editor_object *)alloc(type, 0);
    if (self == NULL)
        return NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_editor_new(&self->editor, NULL, &err);
    if (rc < 0) {
        Py_DECREF(self);
        pg_state *st = pg_state_of_type(type);
        return pg_raise(st, st->Error, rc, &err);
    }
    return (PyObject *)self;
}

static void editor_dealloc(PyObject *obj) {
    editor_object *self = (editor_object *)obj;
    pathgate_editor_free(self->editor);
    self->editor = NULL;
    pg_free_instance(obj);
}

static PyObject *editor_run(PyObject *obj, PyTypeObject *defining, PyObject *const *args,
                            Py_ssize_t nargs, PyObject *kwnames) {
    editor_object *self = (editor_object *)obj;
    PyObject *module = PyType_GetModule(defining);
    if (module == NULL)
        return NULL;
    pg_args h;
    if (pg_args_parse(&h, module, "_Editor.run", editor_spec, args, nargs, kwnames) < 0)
        return NULL;
    pathgate_editor_tool tool;
    if (pg_editor_tool(&h.a, &tool) < 0) {
        pg_args_release(&h);
        PyErr_SetString(PyExc_ValueError,
                        "tool must be 'str_replace_based_edit_tool' or 'str_replace_editor'");
        return NULL;
    }
    pathgate_editor_args e;
    pg_editor_core_args(&h.a, tool, &e);
    pathgate_editor_result r = PATHGATE_EDITOR_RESULT_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_editor_run(&r, self->editor, h.a.resolver, PG_TXT(&h.a, PG_ED_COMMAND),
                             PG_TXT(&h.a, PG_ED_PATH), &e, &h.a.opts, &h.a.err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out = rc < 0 ? pg_raise(st, st->Error, rc, &h.a.err)
                           : Py_BuildValue("(NNN)", kind_or_none(r.code), text_or_none(&r.error),
                                           text_or_none(&r.output));
    pathgate_editor_result_dispose(&r);
    pg_args_release(&h);
    return out;
}

static PyMethodDef editor_methods[] = {
    {"run", (PyCFunction)(void (*)(void))editor_run, METH_METHOD | METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("run($self, owner, /, command, path, *, tool=None, file_text=None, old_str=None, "
               "new_str=None, insert_line=None, max_characters=None, view_range=None, "
               "view_range_invalid=False, max_file_size=None)\n--\n\n(kind, error, output).")},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot editor_slots[] = {
    {Py_tp_doc,
     "_Editor()\n--\n\nThe text editor tool's undo history (one per session; internal)."},
    {Py_tp_new, editor_new},
    {Py_tp_dealloc, editor_dealloc},
    {Py_tp_methods, editor_methods},
    {0, NULL},
};

static PyType_Spec editor_spec_type = {
    .name = "pathgate._core._Editor",
    .basicsize = sizeof(editor_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = editor_slots,
};

static PyMethodDef edit_tools_methods[] = {
    {"_fs_apply_patch", PG_METH(apply_patch), METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("_fs_apply_patch($module, owner, /, patch, *, atomic=True, max_file_size=None)\n"
               "--\n\n"
               "(kind, error, output, files).")},
    {NULL, NULL, 0, NULL},
};

int pg_edit_tools_init(PyObject *module, pg_state *st) {
    (void)st;
    if (PyModule_AddFunctions(module, edit_tools_methods) < 0)
        return -1;
    PyObject *type = pg_add_type(module, &editor_spec_type);
    if (type == NULL)
        return -1;
    Py_DECREF(type); /* the module keeps it as _Editor */
    return 0;
}
