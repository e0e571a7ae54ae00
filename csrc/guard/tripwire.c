/* tripwire.c: a tripwire on CPython's audit events (PEP 578), and the clean
 * Python frame steps are entered from (docs/security.md, "Tripwire").
 *
 * One audit hook per process (PySys_AddAuditHook cannot be removed; it is
 * installed at the first module exec).  It does nothing unless the thread's
 * `tripwire_armed_tls` names an interpreter: armed while interpreted code
 * runs on this thread (a step, or a hook host code calls later), suspended
 * around tool calls (proxy.c) and the interpreter's own authorized imports
 * (policy.c).  Armed, it refuses what host code acting for the code must not
 * do, whoever reached it:
 *
 *  - executing source or code objects (`exec`, `compile` for execution),
 *    except module loading (importlib), `collections.namedtuple` and
 *    `dataclasses` when every field name of the class is an identifier;
 *    parsing to an AST (`ast.parse`) stays allowed;
 *  - native code and interpreter internals: `ctypes.*`, `marshal.load(s)`
 *    outside importlib, `pickle.find_class`, `sys.settrace` / `setprofile`,
 *    `sys.addaudithook`, `sys._current_frames`, `gc.get_referrers` & co.,
 *    `code.__new__`, `function.__new__`, audited attribute reads
 *    (`object.__getattr__`: `__code__`, `__globals__`, `gi_frame`,
 *    `tb_frame`...) outside dataclasses' own processing, and `sys._getframe`
 *    of any frame older than the step's entry frame;
 *  - files outside the grants, process creation without the processes
 *    grant, sockets and network clients without the network grant.
 *
 * A refusal sets the interpreter's abort (limits.c), so the step ends with
 * InterpreterError whatever host code does with the exception the hook
 * raised.
 *
 * Mutable C state: the hook must be installed once per process (a static
 * flag, guarded by the GIL) and arming is per thread (a thread-local); both
 * are inherent to PEP 578, which has no per-module hooks.
 */
#include "tripwire.h"

#include <fcntl.h>
#include <string.h>

HOT_TLS Interp *tripwire_armed_tls = NULL;
int tripwire_kernel_bounded = 0;
/* The interpreter whose event the hook is checking (the armed one, while
 * the hook runs with the tripwire disarmed). */
static HOT_TLS Interp *tripwire_checking = NULL;
static int hook_installed = 0;

/* ------------------------------------------------------------ frames */

#if PY_VERSION_HEX < 0x030B0000
static PyObject *
PyFrame_GetGlobals(PyFrameObject *f)
{
    return PyObject_GetAttrString((PyObject *)f, "f_globals");
}
static PyObject *
PyFrame_GetLocals(PyFrameObject *f)
{
    return PyObject_GetAttrString((PyObject *)f, "f_locals");
}
#endif

/* Module name of frame `f` (its globals' __name__): 1 if it equals one of
 * the NULL-terminated `names` or starts with one ending in '.', 0 if not,
 * -1 on error. */
static int
frame_module_is(PyFrameObject *f, const char *const *names)
{
    PyObject *g = PyFrame_GetGlobals(f);
    if (g == NULL) {
        return -1;
    }
    PyObject *nm = PyDict_Check(g) ? PyDict_GetItemString(g, "__name__")
                                   : NULL; /* borrowed */
    int r = 0;
    const char *s = nm && PyUnicode_Check(nm) ? PyUnicode_AsUTF8(nm) : NULL;
    if (s == NULL) {
        PyErr_Clear();
    }
    for (int i = 0; s && names[i] && !r; i++) {
        size_t n = strlen(names[i]);
        if (n > 0 && names[i][n - 1] == '.') {
            r = strncmp(s, names[i], n) == 0;
        }
        else {
            r = strcmp(s, names[i]) == 0;
        }
    }
    Py_DECREF(g);
    return r;
}

/* Is the innermost Python frame (the code that made the audited call) in
 * one of `names`?  1 / 0 / -1. */
static int
caller_is(const char *const *names)
{
    PyFrameObject *f = PyEval_GetFrame(); /* borrowed */
    if (f == NULL) {
        return 0;
    }
    return frame_module_is(f, names);
}

/* Is some frame of the current Python stack in module `name`, with code
 * named `code_name` (any when NULL)?  Returns the first such frame (new
 * reference) or NULL (error set or not). */
static PyFrameObject *
find_frame(const char *name, const char *code_name)
{
    const char *names[] = {name, NULL};
    PyObject *entry = tripwire_checking ? in_guard(tripwire_checking)->entry_code : NULL;
    PyFrameObject *f = PyEval_GetFrame();
    Py_XINCREF(f);
    while (f != NULL) {
        PyCodeObject *fc = PyFrame_GetCode(f);
        int at_entry = entry != NULL && (PyObject *)fc == entry;
        Py_XDECREF(fc);
        if (at_entry) { /* the host's frames below the step: not searched */
            Py_DECREF(f);
            return NULL;
        }
        int hit = frame_module_is(f, names);
        if (hit < 0) {
            Py_DECREF(f);
            return NULL;
        }
        if (hit && code_name != NULL) {
            PyCodeObject *co = PyFrame_GetCode(f);
            hit = co != NULL && PyUnicode_Check(co->co_name) &&
                  PyUnicode_CompareWithASCIIString(co->co_name, code_name) ==
                      0;
            Py_XDECREF(co);
        }
        if (hit) {
            return f;
        }
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    return NULL;
}

static const char *const IMPORTLIB[] = {"importlib.", NULL};
static const char *const COLLECTIONS[] = {"collections", NULL};
static const char *const DATACLASSES[] = {"dataclasses", NULL};
static const char *const AST[] = {"ast", NULL};
static const char *const TRACEBACK[] = {"traceback", NULL};

/* The functions whose compile of a string is a syntax check only: a
 * forward reference's string is compiled when the reference is made (3.10
 * to 3.13: typing.ForwardRef.__init__; 3.14+: annotationlib's
 * ForwardRef.__forward_code__, which typing calls).  Evaluating the code
 * object is an `exec` event, refused; annotationlib's ForwardRef.evaluate
 * is a gadget. */
static const char *const SYNTAX_CHECKS[][2] = {
    {"typing", "__init__"},
    {"annotationlib", "__forward_code__"},
};

/* Is the innermost Python frame one of SYNTAX_CHECKS?  1 / 0 / -1. */
static int
caller_is_syntax_check(void)
{
    PyFrameObject *f = PyEval_GetFrame(); /* borrowed */
    if (f == NULL) {
        return 0;
    }
    PyCodeObject *co = PyFrame_GetCode(f);
    PyObject *q = PyObject_GetAttrString((PyObject *)co, "co_name");
    Py_DECREF(co);
    if (q == NULL) {
        return -1;
    }
    int hit = 0;
    size_t n = sizeof SYNTAX_CHECKS / sizeof SYNTAX_CHECKS[0];
    for (size_t i = 0; i < n && hit == 0; i++) {
        const char *mod[] = {SYNTAX_CHECKS[i][0], NULL};
        if (PyUnicode_Check(q) &&
            PyUnicode_CompareWithASCIIString(q, SYNTAX_CHECKS[i][1]) == 0) {
            hit = frame_module_is(f, mod);
        }
    }
    Py_DECREF(q);
    return hit;
}

/* dataclasses builds its methods' source from the class's field names:
 * allowed only when every one of them is an identifier (a key of the class
 * body's `__annotations__` such as "x=os.system('...')" would be pasted
 * into the source).  1 / 0 / -1. */
static int
dataclass_fields_ok(void)
{
    PyFrameObject *f = find_frame("dataclasses", "_process_class");
    if (f == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *locals = PyFrame_GetLocals(f);
    Py_DECREF(f);
    if (locals == NULL) {
        return -1;
    }
    int ok = 0;
    PyObject *cls = PyMapping_Check(locals)
                        ? PyMapping_GetItemString(locals, "cls")
                        : NULL;
    Py_DECREF(locals);
    if (cls == NULL) {
        PyErr_Clear();
        return 0;
    }
    if (PyType_Check(cls)) {
        /* the class's own dict: no descriptor or metaclass code runs */
        PyObject *d = ((PyTypeObject *)cls)->tp_dict;
        PyObject *ann = d ? PyDict_GetItemString(d, "__annotations__") : NULL;
        if (ann == NULL) {
            ok = 1; /* no fields */
        }
        else if (PyDict_Check(ann)) {
            ok = 1;
            PyObject *k, *v;
            Py_ssize_t pos = 0;
            while (ok && PyDict_Next(ann, &pos, &k, &v)) {
                ok = PyUnicode_CheckExact(k) && PyUnicode_IsIdentifier(k);
            }
        }
    }
    Py_DECREF(cls);
    return ok;
}

static int
refuse(Interp *in, const char *what, const char *grant)
{
    limits_abort(in, ABORT_POLICY,
                 "Forbidden by the sandbox (host code acting for the code): "
                 "%s%s%s",
                 what, grant ? "; " : "", grant ? grant : "");
    return -1;
}

/* The module importlib is loading (the `module` of exec_module's frame),
 * new ref, or NULL (error set or not). */
static PyObject *
loading_module_name(void)
{
    PyFrameObject *f = find_frame("importlib._bootstrap_external",
                                  "exec_module");
    if (f == NULL) {
        return NULL;
    }
    PyObject *locals = PyFrame_GetLocals(f);
    Py_DECREF(f);
    if (locals == NULL) {
        return NULL;
    }
    PyObject *mod = PyMapping_Check(locals)
                        ? PyMapping_GetItemString(locals, "module")
                        : NULL;
    Py_DECREF(locals);
    if (mod == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *name = PyModule_Check(mod) ? PyModule_GetNameObject(mod) : NULL;
    Py_DECREF(mod);
    if (name == NULL) {
        PyErr_Clear();
    }
    return name;
}

/* The first frame below the import machinery: the code that imports.  1 if
 * it is a module body (an import at the top of a module being loaded), 0 if
 * not, -1 on error. */
static int
importer_is_module_body(void)
{
    const char *const imp[] = {"importlib", "importlib.", NULL};
    PyFrameObject *f = PyEval_GetFrame();
    Py_XINCREF(f);
    while (f != NULL) {
        int r = frame_module_is(f, imp);
        if (r < 0) {
            Py_DECREF(f);
            return -1;
        }
        if (r == 0) {
            PyCodeObject *co = PyFrame_GetCode(f);
            int body = co != NULL && PyUnicode_Check(co->co_name) &&
                       PyUnicode_CompareWithASCIIString(co->co_name,
                                                        "<module>") == 0;
            Py_XDECREF(co);
            Py_DECREF(f);
            return body;
        }
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    return 0;
}

/* Host code acting for the code loads a module (importlib executes its
 * body).  Allowed: a module the code may import itself, a submodule of a
 * package already loaded, a private helper module ("_strptime"), and the
 * imports a module body being loaded makes.  Refused: loading any other
 * top-level module by a name the code may have chosen (a plotting backend,
 * a plugin).  0 / -1 (abort set). */
static int
check_module_load(Interp *in)
{
    PyObject *name = loading_module_name();
    if (name == NULL) {
        return PyErr_Occurred() ? -1 : 0; /* not a module body */
    }
    int ok = policy_import_authorized(in, name);
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    if (!ok && n > 0 && PyUnicode_READ_CHAR(name, 0) == '_') {
        ok = 1;
    }
    if (!ok) {
        Py_ssize_t dot = PyUnicode_FindChar(name, '.', 0, n, 1);
        if (dot > 0) {
            PyObject *top = PyUnicode_Substring(name, 0, dot);
            PyObject *mods = PySys_GetObject("modules"); /* borrowed */
            ok = top && mods && PyDict_Check(mods) &&
                 PyDict_GetItemWithError(mods, top) != NULL;
            Py_XDECREF(top);
            if (PyErr_Occurred()) {
                Py_DECREF(name);
                return -1;
            }
        }
    }
    if (!ok) {
        ok = importer_is_module_body();
        if (ok < 0) {
            Py_DECREF(name);
            return -1;
        }
    }
    if (ok) {
        Py_DECREF(name);
        return 0;
    }
    PyObject *msg = PyUnicode_FromFormat(
        "loading module %R on the code's behalf (authorize it and import it "
        "first)",
        name);
    Py_DECREF(name);
    if (msg == NULL) {
        return -1;
    }
    const char *m = PyUnicode_AsUTF8(msg);
    int r = refuse(in, m ? m : "loading a module", NULL);
    Py_DECREF(msg);
    return r;
}

/* Is `frame` the step's entry frame or newer (called, directly or not, from
 * within the step)?  1 / 0 / -1. */
static int
frame_within_step(Interp *in, PyObject *frame)
{
    if (in_guard(in)->entry_code == NULL || !PyFrame_Check(frame)) {
        return 0;
    }
    PyFrameObject *f = (PyFrameObject *)Py_NewRef(frame);
    while (f != NULL) {
        PyCodeObject *co = PyFrame_GetCode(f);
        int hit = (PyObject *)co == in_guard(in)->entry_code;
        Py_XDECREF(co);
        if (hit) {
            Py_DECREF(f);
            return 1;
        }
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    return 0;
}

/* ------------------------------------------------------------- paths */

/* Real path of an audited path argument (str, bytes, PathLike), new ref;
 * NULL with no error when it is not a path (a file descriptor...). */
static PyObject *
real_path(PyObject *p)
{
    if (p == NULL || p == Py_None || PyLong_Check(p)) {
        return NULL;
    }
    PyObject *fs;
    if (PyUnicode_Check(p) || PyBytes_Check(p)) {
        fs = PyOS_FSPath(p);
    }
    else {
        /* __fspath__ may be the code's own method: it runs armed, as
           anything the code does */
        Interp *prev = tripwire_arm(tripwire_checking);
        fs = PyOS_FSPath(p);
        tripwire_restore(prev);
    }
    if (fs == NULL) {
        PyErr_Clear();
        return NULL;
    }
    if (PyBytes_Check(fs)) {
        Py_SETREF(fs, PyUnicode_DecodeFSDefaultAndSize(
                          PyBytes_AS_STRING(fs), PyBytes_GET_SIZE(fs)));
        if (fs == NULL) {
            return NULL;
        }
    }
    PyObject *mod = PyImport_ImportModule("os.path");
    if (mod == NULL) {
        Py_DECREF(fs);
        return NULL;
    }
    PyObject *r = PyObject_CallMethod(mod, "realpath", "O", fs);
    Py_DECREF(mod);
    Py_DECREF(fs);
    return r;
}

/* Is `path` (a real path) one of the directories of `dirs` (a tuple of real
 * paths) or below one?  1 / 0 / -1. */
static int
under_any(PyObject *path, PyObject *dirs)
{
    Py_ssize_t plen;
    const char *p = PyUnicode_AsUTF8AndSize(path, &plen);
    if (p == NULL) {
        return -1;
    }
    for (Py_ssize_t i = 0; dirs && i < PyTuple_GET_SIZE(dirs); i++) {
        Py_ssize_t dlen;
        const char *d = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(dirs, i),
                                                &dlen);
        if (d == NULL) {
            return -1;
        }
        while (dlen > 1 && d[dlen - 1] == '/') {
            dlen--;
        }
        if (plen >= dlen && memcmp(p, d, (size_t)dlen) == 0 &&
            (plen == dlen || p[dlen] == '/' || (dlen == 1 && d[0] == '/'))) {
            return 1;
        }
    }
    return 0;
}


/* Is `obj` a Python function, or a Python frame, whose code was compiled
 * from a file of the Python installation (its co_filename under the
 * installation's directories, or a frozen standard-library module), or the
 * step's entry frame?  1 / 0 / -1. */
static int
code_of_installation(Interp *in, PyObject *obj)
{
    if (obj == NULL || in_guard(in)->install_dirs == NULL) {
        return 0;
    }
    PyObject *code;
    if (PyFunction_Check(obj)) {
        code = Py_NewRef(PyFunction_GET_CODE(obj));
    }
    else if (PyFrame_Check(obj)) {
        code = (PyObject *)PyFrame_GetCode((PyFrameObject *)obj);
        if (code == in_guard(in)->entry_code) {
            Py_DECREF(code);
            return 1; /* the step's entry frame: holds nothing of the host */
        }
    }
    else {
        return 0;
    }
    PyObject *file = PyObject_GetAttrString(code, "co_filename");
    Py_DECREF(code);
    if (file == NULL) {
        return -1;
    }
    int ok = 0;
    if (PyUnicode_Check(file)) {
        const char *f = PyUnicode_AsUTF8(file);
        if (f == NULL) {
            ok = -1;
        }
        else if (strncmp(f, "<frozen ", 8) == 0) {
            ok = 1; /* a frozen standard-library module */
        }
        else if (f[0] == '/') {
            ok = under_any(file, in_guard(in)->install_dirs);
            if (ok == 0) {
                PyObject *rp = real_path(file);
                if (rp != NULL) {
                    ok = under_any(rp, in_guard(in)->install_dirs);
                    Py_DECREF(rp);
                }
                else if (PyErr_Occurred()) {
                    PyErr_Clear();
                }
            }
        }
    }
    Py_DECREF(file);
    return ok;
}

/* Is importlib writing a module's bytecode cache (SourceLoader.get_code on
 * the stack, the write made by importlib itself)?  1 / 0 / -1. */
static int
importlib_caching(void)
{
    int ok = caller_is(IMPORTLIB);
    if (ok > 0) {
        PyFrameObject *f =
            find_frame("importlib._bootstrap_external", "get_code");
        ok = f != NULL ? 1 : PyErr_Occurred() ? -1 : 0;
        Py_XDECREF(f);
    }
    return ok;
}

/* Reading (write == 0) or writing `arg` (a path argument of an audited
 * event).  0 / -1. */
static int
check_path(Interp *in, const char *event, PyObject *arg, int write)
{
    PyObject *grant = write ? in_guard(in)->grant_write : in_guard(in)->grant_read;
    if (grant == NULL) {
        return 0; /* unrestricted */
    }
    PyObject *path = real_path(arg);
    if (path == NULL) {
        if (PyErr_Occurred()) {
            PyErr_Clear();
        }
        if (write && PyLong_Check(arg)) {
            /* the descriptor importlib opened for a bytecode cache (the
               path was checked when it was opened) */
            int ok = importlib_caching();
            if (ok != 0) {
                return ok < 0 ? -1 : 0;
            }
        }
        char buf[160];
        snprintf(buf, sizeof buf,
                 "%s of a file descriptor or non-path %s", event,
                 write ? "for writing" : "for reading");
        return refuse(in, buf,
                      write ? "it needs unrestricted writable_dirs"
                            : "it needs unrestricted readable_dirs");
    }
    int ok = under_any(path, grant);
    if (ok == 0 && write) {
        /* a bytecode cache written by importlib while it gets a module's
           code (SourceLoader.get_code), in a __pycache__ directory */
        Py_ssize_t n = PyUnicode_GET_LENGTH(path);
        PyObject *sub = PyUnicode_FromString("/__pycache__");
        ok = sub == NULL ? -1 : PyUnicode_Find(path, sub, 0, n, 1) >= 0;
        Py_XDECREF(sub);
        if (ok > 0) {
            ok = importlib_caching();
        }
    }
    if (ok == 0 && !write) {
        ok = under_any(path, in_guard(in)->grant_write); /* writable is readable */
        if (ok == 0) {
            ok = under_any(path, in_guard(in)->install_dirs);
        }
        if (ok == 0) {
            /* a module importlib loads from outside the installation (an
               editable install, a project directory on sys.path): the
               module itself passed check_module_load */
            ok = caller_is(IMPORTLIB);
            if (ok > 0) {
                PyFrameObject *f =
                    find_frame("importlib._bootstrap", "_find_and_load");
                ok = f != NULL ? 1 : PyErr_Occurred() ? -1 : 0;
                Py_XDECREF(f);
            }
        }
    }
    if (ok != 0) {
        Py_DECREF(path);
        return ok < 0 ? -1 : 0;
    }
    PyObject *msg = PyUnicode_FromFormat(
        "%s %R %s is outside the granted directories", event, path,
        write ? "for writing" : "for reading");
    Py_DECREF(path);
    if (msg == NULL) {
        return -1;
    }
    const char *m = PyUnicode_AsUTF8(msg);
    int r = refuse(in, m ? m : event,
                   write ? "missing grant: writable_dirs"
                         : "missing grant: readable_dirs");
    Py_DECREF(msg);
    return r;
}

static PyObject *
arg_at(PyObject *args, Py_ssize_t i)
{
    return PyTuple_Check(args) && PyTuple_GET_SIZE(args) > i
               ? PyTuple_GET_ITEM(args, i)
               : NULL;
}

/* The `open` event: (path, mode, flags). */
static int
check_open(Interp *in, PyObject *args)
{
    PyObject *path = arg_at(args, 0), *mode = arg_at(args, 1),
             *flags = arg_at(args, 2);
    int write = 0;
    if (mode != NULL && PyUnicode_Check(mode)) {
        const char *m = PyUnicode_AsUTF8(mode);
        write = m == NULL || strpbrk(m, "wax+") != NULL;
        PyErr_Clear();
    }
    else if (flags != NULL && PyLong_Check(flags)) {
        long fl = PyLong_AsLong(flags);
        PyErr_Clear();
        write = (fl & (O_WRONLY | O_RDWR | O_APPEND | O_CREAT | O_TRUNC)) != 0;
    }
    return check_path(in, "opening", path, write);
}

/* ------------------------------------------------------------- events */

typedef enum {
    EV_EXEC,      /* exec, compile */
    EV_GETATTR,   /* object.__getattr__ */
    EV_GETFRAME,  /* sys._getframe */
    EV_MARSHAL,   /* marshal.load(s) */
    EV_DENY,      /* always refused while armed */
    EV_OPEN,      /* open, io.open_code */
    EV_READ,      /* arg 0 is a path read */
    EV_WRITE,     /* arg 0 is a path changed */
    EV_WRITE2,    /* args 0 and 1 are paths changed */
    EV_COPY,      /* arg 0 read, arg 1 written */
    EV_ENV,       /* process environment changed */
    EV_PROCESS,   /* a process started or signalled */
    EV_NETWORK,   /* socket or network client */
} EventKind;

typedef struct {
    const char *name;
    EventKind kind;
    const char *what; /* for EV_DENY: the reason */
} EventRule;

/* The watched events, from events.def: exact names, then prefixes. */
static const EventRule rules[] = {
#define EVENT(name, rule, what, why) {name, EV_##rule, what},
#include "events.def"
    {NULL, EV_DENY, NULL},
};

static const EventRule prefix_rules[] = {
#define EVENT_PREFIX(prefix, rule, what, why) {prefix, EV_##rule, what},
#include "events.def"
    {NULL, EV_DENY, NULL},
};

#define NRULES ((int)(sizeof(rules) / sizeof(rules[0])) - 1)
#define NPREFIX ((int)(sizeof(prefix_rules) / sizeof(prefix_rules[0])) - 1)

/* The exact names by hash (FNV-1a, open addressing; index + 1, 0 empty),
 * made once by tripwire_install before the hook can run: every audited
 * event of the process passes here while a step is armed (`builtins.id`,
 * 20 times per copy.deepcopy of a small dict), and a scan of the table cost
 * about 3,500 instructions an event. */
#define RULE_SLOTS 512
_Static_assert(NRULES * 2 < RULE_SLOTS, "events.def outgrew RULE_SLOTS");
static short rule_slot[RULE_SLOTS];
static size_t prefix_len[NPREFIX > 0 ? NPREFIX : 1];

static inline uint32_t
event_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 16777619u;
    }
    return h;
}

static void
index_rules(void)
{
    for (int k = 0; k < NRULES; k++) {
        size_t i = event_hash(rules[k].name) & (RULE_SLOTS - 1);
        while (rule_slot[i] != 0) { /* a later duplicate lands after it */
            i = (i + 1) & (RULE_SLOTS - 1);
        }
        rule_slot[i] = (short)(k + 1);
    }
    for (int k = 0; k < NPREFIX; k++) {
        prefix_len[k] = strlen(prefix_rules[k].name);
    }
}

/* The rule for `event`, or NULL: not watched.  Exact names first (the
 * first of equal ones), then prefixes in the table's order. */
static const EventRule *
event_rule(const char *event)
{
    for (size_t i = event_hash(event) & (RULE_SLOTS - 1); rule_slot[i] != 0;
         i = (i + 1) & (RULE_SLOTS - 1)) {
        const EventRule *r = &rules[rule_slot[i] - 1];
        if (strcmp(event, r->name) == 0) {
            return r;
        }
    }
    for (int k = 0; k < NPREFIX; k++) {
        const EventRule *r = &prefix_rules[k];
        if (event[0] == r->name[0] && strncmp(event, r->name, prefix_len[k]) == 0) {
            return r;
        }
    }
    return NULL;
}

/* CPython calls the host's sys.unraisablehook when an object dies with an
 * error during the step (an interpreted __del__ stopped by a budget): that
 * hook is the host's code, not code acting for the sandbox.  Remember its
 * code object.  0 / -1. */
static int
note_unraisable_hook(Interp *in, PyObject *args)
{
    PyObject *hook = Py_XNewRef(arg_at(args, 0));
    /* unwrap bound methods and functools.partial (pytest's hook) */
    for (int i = 0; hook != NULL && i < 4 && !PyFunction_Check(hook); i++) {
        PyObject *inner = NULL;
        if (PyMethod_Check(hook)) {
            inner = Py_NewRef(PyMethod_GET_FUNCTION(hook));
        }
        else if (!PyCFunction_Check(hook) && !PyType_Check(hook)) {
            inner = PyObject_GetAttrString(hook, "func");
            if (inner == NULL) {
                PyErr_Clear();
            }
        }
        Py_SETREF(hook, inner);
    }
    PyObject *code = hook && PyFunction_Check(hook)
                         ? Py_NewRef(PyFunction_GET_CODE(hook))
                         : NULL;
    Py_XDECREF(hook);
    Py_XSETREF(in_guard(in)->host_hook_code, code);
    return 0;
}

/* Does the host's unraisable hook run now (a frame of it is on the stack
 * above the entry frame)?  1 / 0. */
static int
in_host_hook(Interp *in)
{
    if (in_guard(in)->host_hook_code == NULL) {
        return 0;
    }
    PyFrameObject *f = PyEval_GetFrame();
    Py_XINCREF(f);
    int hit = 0;
    while (f != NULL && !hit) {
        PyCodeObject *co = PyFrame_GetCode(f);
        hit = (PyObject *)co == in_guard(in)->host_hook_code;
        int stop = (PyObject *)co == in_guard(in)->entry_code;
        Py_XDECREF(co);
        PyFrameObject *back = stop ? NULL : PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    Py_XDECREF(f);
    return hit;
}

/* 0: allowed; -1: refused (abort set). */
static int
check_event(Interp *in, const char *event, PyObject *args)
{
    const EventRule *r = event_rule(event);
    if (r == NULL) {
        if (strcmp(event, "sys.unraisablehook") == 0) {
            return note_unraisable_hook(in, args);
        }
        return 0;
    }
    if (in_host_hook(in)) {
        return 0;
    }
    int ok;
    char buf[200];
    switch ((EventKind)r->kind) {
    case EV_EXEC:
        /* module loading, namedtuple; compile only: ast.parse */
        ok = caller_is(IMPORTLIB);
        if (ok > 0 && event[0] == 'e') {
            return check_module_load(in);
        }
        if (ok == 0) {
            ok = caller_is(COLLECTIONS);
        }
        if (ok == 0 && event[0] == 'c') {
            ok = caller_is(AST);
        }
        if (ok == 0 && event[0] == 'c') {
            ok = caller_is_syntax_check();
        }
        if (ok == 0) {
            ok = caller_is(DATACLASSES);
            if (ok > 0) {
                ok = dataclass_fields_ok();
                if (ok == 0) {
                    return refuse(in,
                                  "dataclasses generating code from field "
                                  "names that are not identifiers",
                                  NULL);
                }
            }
        }
        if (ok != 0) {
            return ok < 0 ? -1 : 0;
        }
        snprintf(buf, sizeof buf, "%s of source or code objects",
                 event[0] == 'c' ? "compiling" : "executing");
        return refuse(in, buf, NULL);
    case EV_GETATTR: {
        /* traceback renders frames to text (an unraisable exception
           reported while the step runs): it hands out no object */
        ok = caller_is(TRACEBACK);
        if (ok != 0) {
            return ok < 0 ? -1 : 0;
        }
        /* dataclasses inspects the methods it generated */
        PyFrameObject *f = find_frame("dataclasses", NULL);
        if (f != NULL && PyFunction_Check(arg_at(args, 0))) {
            Py_DECREF(f);
            return 0;
        }
        Py_XDECREF(f);
        if (PyErr_Occurred()) {
            return -1;
        }
        PyObject *nm = arg_at(args, 1);
        /* Narrowed by what it exposes: the code object and the defaults of
           a function of the Python installation (inspect.signature,
           functools, numpy's dispatch read them) hold nothing the
           installation's files do not show, and the installation is
           readable anyway; a code object still never enters the code's
           values (the value gates).  The same holds for the code object
           of a frame of the installation's code (`f_code`: pandas and
           warnings find the caller's file to report a warning at it).
           __globals__, f_globals, f_locals stay refused. */
        if (nm != NULL && PyUnicode_Check(nm) &&
            (PyUnicode_CompareWithASCIIString(nm, "__code__") == 0 ||
             PyUnicode_CompareWithASCIIString(nm, "f_code") == 0 ||
             PyUnicode_CompareWithASCIIString(nm, "__defaults__") == 0 ||
             PyUnicode_CompareWithASCIIString(nm, "__kwdefaults__") == 0)) {
            ok = code_of_installation(in, arg_at(args, 0));
            if (ok != 0) {
                return ok < 0 ? -1 : 0;
            }
        }
        snprintf(buf, sizeof buf,
                 "reading the interpreter attribute '%.60s'",
                 nm && PyUnicode_Check(nm) ? PyUnicode_AsUTF8(nm) : "?");
        PyErr_Clear();
        return refuse(in, buf, NULL);
    }
    case EV_GETFRAME:
        ok = frame_within_step(in, arg_at(args, 0));
        if (ok != 0) {
            return ok < 0 ? -1 : 0;
        }
        return refuse(in, "sys._getframe of a host frame", NULL);
    case EV_MARSHAL:
        ok = caller_is(IMPORTLIB);
        if (ok != 0) {
            return ok < 0 ? -1 : 0;
        }
        return refuse(in, "marshal.loads (code objects from bytes)", NULL);
    case EV_DENY:
        return refuse(in, r->what, NULL);
    case EV_OPEN:
        return check_open(in, args);
    case EV_READ: {
        PyObject *p = arg_at(args, 0);
        PyObject *dot = NULL;
        if (p == Py_None) {
            p = dot = PyUnicode_FromString(".");
            if (p == NULL) {
                return -1;
            }
        }
        int rc = check_path(in, event, p, 0);
        Py_XDECREF(dot);
        return rc;
    }
    case EV_WRITE:
        return check_path(in, event, arg_at(args, 0), 1);
    case EV_WRITE2:
        if (check_path(in, event, arg_at(args, 0), 1) < 0) {
            return -1;
        }
        return check_path(in, event, arg_at(args, 1), 1);
    case EV_COPY:
        if (check_path(in, event, arg_at(args, 0), 0) < 0) {
            return -1;
        }
        return check_path(in, event, arg_at(args, 1), 1);
    case EV_ENV:
        if (in_guard(in)->grant_write == NULL) {
            return 0; /* `os` authorized without narrowing */
        }
        snprintf(buf, sizeof buf, "%s (changing the process environment)",
                 event);
        return refuse(in, buf, "it needs `os` authorized with unrestricted "
                               "writable_dirs");
    case EV_PROCESS:
        if (in_guard(in)->grant_processes) {
            return 0;
        }
        snprintf(buf, sizeof buf, "%s (process creation or signals)", event);
        return refuse(in, buf,
                      "missing grant: processes (authorize `subprocess`)");
    case EV_NETWORK:
        if (in_guard(in)->grant_network) {
            return 0;
        }
        snprintf(buf, sizeof buf, "%s (network)", event);
        return refuse(in, buf, "missing grant: allow_network");
    }
    return 0;
}

/* A subinterpreter is being made or runs on the step's thread: it runs
 * source with none of the step's policy.  Not refused where it is made:
 * CPython's callers do not all survive a failed creation (3.12's
 * _xxsubinterpreters.create dereferences the NULL thread state), and a
 * refusal inside the new interpreter is a fatal error of its start.  The
 * step's abort instead, in C state only (no object may be made for `in`
 * from another interpreter), raised when the step's code next runs
 * (limits_reraise_abort). */
static void
subinterpreter_abort(Interp *in)
{
    if (in_budget(in)->abort == ABORT_NONE) {
        snprintf(in_budget(in)->abort_msg, sizeof(in_budget(in)->abort_msg),
                 "Forbidden by the sandbox: a subinterpreter ran on the "
                 "step's thread (its code runs outside the sandbox's "
                 "policy)");
        in_budget(in)->abort = ABORT_POLICY;
        limits_force_slow(in);
    }
}

int
tripwire_foreign(Interp *in)
{
    if (PyInterpreterState_Get() == in_guard(in)->py_interp) {
        return 0;
    }
    subinterpreter_abort(in);
    return 1;
}

static int
audit_hook(const char *event, PyObject *args, void *data)
{
    Interp *in = tripwire_armed_tls;
    if (in == NULL || tripwire_kernel_bounded || tripwire_foreign(in)) {
        return 0;
    }
    if (strcmp(event, "cpython.PyInterpreterState_New") == 0) {
        /* raised in the creating interpreter on 3.10 and 3.12 (with no
           thread state, so never seen, on 3.11 and 3.13+) */
        subinterpreter_abort(in);
        return 0;
    }
    /* what the checks do (frames, realpath) raises events too */
    tripwire_armed_tls = NULL;
    Interp *outer = tripwire_checking;
    tripwire_checking = in;
    int r = check_event(in, event, args);
    tripwire_checking = outer;
    tripwire_armed_tls = in;
    return r;
}

int
tripwire_install(void)
{
    if (hook_installed) {
        return 0;
    }
    index_rules(); /* before the hook can see an event */
    if (PySys_AddAuditHook(audit_hook, NULL) < 0) {
        return -1;
    }
    hook_installed = 1;
    return 0;
}

/* ------------------------------------------------------------- grants */

/* The directories of the Python installation (imports read them).  New
 * tuple of real paths. */
static PyObject *
installation_dirs(void)
{
    PyObject *res = NULL, *list = PyList_New(0), *sysconfig = NULL,
             *paths = NULL;
    if (list == NULL) {
        return NULL;
    }
    static const char *const attrs[] = {"prefix", "base_prefix", "exec_prefix",
                                        "base_exec_prefix"};
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        PyObject *v = PySys_GetObject(attrs[i]); /* borrowed */
        if (v != NULL && PyUnicode_Check(v) && PyList_Append(list, v) < 0) {
            goto done;
        }
    }
    sysconfig = PyImport_ImportModule("sysconfig");
    paths = sysconfig ? PyObject_CallMethod(sysconfig, "get_paths", NULL)
                      : NULL;
    if (paths == NULL) {
        goto done;
    }
    static const char *const keys[] = {"stdlib", "platstdlib", "purelib",
                                       "platlib"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        PyObject *v = PyDict_Check(paths) ? PyDict_GetItemString(paths, keys[i])
                                          : NULL;
        if (v != NULL && PyList_Append(list, v) < 0) {
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *rp = real_path(PyList_GET_ITEM(list, i));
        if (rp == NULL) {
            if (PyErr_Occurred()) {
                goto done;
            }
            continue; /* kept as it is */
        }
        PyList_SetItem(list, i, rp); /* steals rp */
    }
    res = PyList_AsTuple(list);
done:
    Py_XDECREF(paths);
    Py_XDECREF(sysconfig);
    Py_DECREF(list);
    return res;
}

/* None, or a tuple of real paths of the directories of `v`.  New ref. */
static PyObject *
dirs_arg(PyObject *v)
{
    if (v == NULL || v == Py_None) {
        return Py_NewRef(Py_None);
    }
    PyObject *seq = PySequence_Tuple(v);
    if (seq == NULL) {
        return NULL;
    }
    PyObject *out = PyTuple_New(PyTuple_GET_SIZE(seq));
    for (Py_ssize_t i = 0; out && i < PyTuple_GET_SIZE(seq); i++) {
        PyObject *rp = real_path(PyTuple_GET_ITEM(seq, i));
        if (rp == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError,
                                "grants: directories must be paths");
            }
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, rp);
    }
    Py_DECREF(seq);
    return out;
}

PyObject *
tripwire_get_grants(Interp *in)
{
    return Py_BuildValue(
        "{sOsOsOsO}", "readable_dirs",
        in_guard(in)->grant_read ? in_guard(in)->grant_read : Py_None, "writable_dirs",
        in_guard(in)->grant_write ? in_guard(in)->grant_write : Py_None, "allow_network",
        in_guard(in)->grant_network ? Py_True : Py_False, "allow_processes",
        in_guard(in)->grant_processes ? Py_True : Py_False);
}

int
tripwire_set_grants(Interp *in, PyObject *v)
{
    if (v == NULL || !PyDict_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "grants must be a dict");
        return -1;
    }
    PyObject *r = dirs_arg(PyDict_GetItemString(v, "readable_dirs"));
    PyObject *w = r ? dirs_arg(PyDict_GetItemString(v, "writable_dirs"))
                    : NULL;
    if (w == NULL) {
        Py_XDECREF(r);
        return -1;
    }
    PyObject *net = PyDict_GetItemString(v, "allow_network");
    PyObject *proc = PyDict_GetItemString(v, "allow_processes");
    int n = net ? PyObject_IsTrue(net) : 0;
    int p = proc ? PyObject_IsTrue(proc) : 0;
    if (n < 0 || p < 0) {
        Py_DECREF(r);
        Py_DECREF(w);
        return -1;
    }
    if (r == Py_None) {
        Py_CLEAR(r);
    }
    if (w == Py_None) {
        Py_CLEAR(w);
    }
    Py_XSETREF(in_guard(in)->grant_read, r);
    Py_XSETREF(in_guard(in)->grant_write, w);
    in_guard(in)->grant_network = n;
    in_guard(in)->grant_processes = p;
    in_guard(in)->grants_set = 1;
    return 0;
}

void
tripwire_clear(Interp *in)
{
    Py_CLEAR(in_guard(in)->grant_read);
    Py_CLEAR(in_guard(in)->grant_write);
    Py_CLEAR(in_guard(in)->install_dirs);
    Py_CLEAR(in_guard(in)->entry_code);
    Py_CLEAR(in_guard(in)->entry_runner);
    Py_CLEAR(in_guard(in)->entry_globals);
    Py_CLEAR(in_guard(in)->host_hook_code);
}

int
tripwire_traverse(Interp *in, visitproc visit, void *arg)
{
    Py_VISIT(in_guard(in)->entry_code);
    Py_VISIT(in_guard(in)->entry_runner);
    Py_VISIT(in_guard(in)->entry_globals);
    return 0;
}

/* --------------------------------------------------- the entry frame */

/* The StepRunner: the only constant of the entry frame's code.  Calling it
 * runs the pending step body on the large stack. */
typedef struct {
    PyObject_HEAD Interp *in; /* borrowed: the owner keeps the runner */
    void (*fn)(void *);
    void *arg;
} RunnerObject;

static PyObject *
runner_call(PyObject *self, PyObject *args, PyObject *kwds)
{
    RunnerObject *r = (RunnerObject *)self;
    void (*fn)(void *) = r->fn;
    if (fn == NULL || r->in == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "no step is pending");
        return NULL;
    }
    r->fn = NULL; /* one call per step */
    if (bigstack_run(r->in, fn, r->arg) < 0 || PyErr_Occurred()) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The `__import__` of the entry frame's builtins.  C code that imports by
 * name (PyImport_Import) while the entry frame is the current frame looks it
 * up there; Python code that fetched it from the frame's globals (pandas'
 * `@__builtins__[...]`) is refused.  New ref. */
static PyObject *
entry_import(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"name", "globals", "locals", "fromlist", "level",
                             NULL};
    RunnerObject *r = (RunnerObject *)self;
    PyObject *name, *globals = NULL, *locals = NULL, *fromlist = NULL;
    int level = 0;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (kwds == NULL && n >= 1 && n <= 5 &&
        PyUnicode_Check(PyTuple_GET_ITEM(args, 0)) &&
        (n < 5 || PyLong_CheckExact(PyTuple_GET_ITEM(args, 4)))) {
        /* PyImport_Import's call, positional (C code importing by name, e.g.
           datetime's strftime importing time on every call): no format
           string to interpret */
        name = PyTuple_GET_ITEM(args, 0);
        globals = n > 1 ? PyTuple_GET_ITEM(args, 1) : NULL;
        locals = n > 2 ? PyTuple_GET_ITEM(args, 2) : NULL;
        fromlist = n > 3 ? PyTuple_GET_ITEM(args, 3) : NULL;
        if (n == 5) {
            int overflow;
            long lv = PyLong_AsLongAndOverflow(PyTuple_GET_ITEM(args, 4),
                                               &overflow);
            if (overflow || lv > INT_MAX || lv < INT_MIN) {
                n = -1; /* the general parse says what is wrong */
            }
            level = (int)lv;
        }
    }
    else {
        n = -1;
    }
    if (n < 0 &&
        !PyArg_ParseTupleAndKeywords(args, kwds, "U|OOOi:__import__", kwlist,
                                     &name, &globals, &locals, &fromlist,
                                     &level)) {
        return NULL;
    }
    PyFrameObject *f = PyEval_GetFrame(); /* borrowed */
    PyCodeObject *co = f ? PyFrame_GetCode(f) : NULL;
    int direct = co != NULL && r->in != NULL &&
                 (PyObject *)co == in_guard(r->in)->entry_code;
    Py_XDECREF(co);
    if (!direct) {
        PyErr_SetString(PyExc_ImportError,
                        "__import__ of the sandbox's entry frame is only "
                        "for C code");
        if (r->in != NULL && tripwire_armed_tls == r->in) {
            refuse(r->in, "__import__ through the entry frame's builtins",
                   NULL);
        }
        return NULL;
    }
    return PyImport_ImportModuleLevelObject(name, globals, locals, fromlist,
                                            level);
}

static PyMethodDef entry_import_def = {
    "__import__", (PyCFunction)(void (*)(void))entry_import,
    METH_VARARGS | METH_KEYWORDS, NULL};

int
tripwire_is_entry_import(PyObject *v)
{
    return PyCFunction_Check(v) &&
           PyCFunction_GET_FUNCTION(v) == (PyCFunction)(void (*)(void))entry_import;
}

static void
runner_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_Free(self);
    Py_DECREF(tp);
}

static PyType_Slot runner_slots[] = {
    {Py_tp_call, runner_call},
    {Py_tp_dealloc, runner_dealloc},
    {0, NULL},
};

PyType_Spec Runner_spec = {
    .name = "smolagents_native._core.StepRunner",
    .basicsize = sizeof(RunnerObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = runner_slots,
};

/* Code of "a()" whose LOAD_NAME is turned into LOAD_CONST of its one
 * constant, None: the template of every interpreter's entry code, made once
 * per module (CPython's compiler and the opcode map cost about 45,000
 * instructions, which every new executor's first step paid).  New ref. */
static PyObject *
make_entry_template(void)
{
    PyObject *code = NULL, *opcode = NULL, *opmap = NULL, *raw = NULL,
             *patched = NULL, *consts = NULL, *res = NULL, *kw = NULL,
             *replace = NULL, *empty = NULL;
    code = Py_CompileString("a()", "<smolagents_native step>", Py_eval_input);
    opcode = code ? PyImport_ImportModule("opcode") : NULL;
    opmap = opcode ? PyObject_GetAttrString(opcode, "opmap") : NULL;
    raw = opmap ? PyObject_GetAttrString(code, "co_code") : NULL;
    if (raw == NULL || !PyBytes_Check(raw)) {
        goto done;
    }
    PyObject *ln = PyDict_GetItemString(opmap, "LOAD_NAME");
    PyObject *lc = PyDict_GetItemString(opmap, "LOAD_CONST");
    if (ln == NULL || lc == NULL) {
        PyErr_SetString(PyExc_SystemError, "opcode map without LOAD_NAME");
        goto done;
    }
    long nop = PyLong_AsLong(ln), cop = PyLong_AsLong(lc);
    patched = PyBytes_FromStringAndSize(PyBytes_AS_STRING(raw),
                                        PyBytes_GET_SIZE(raw));
    if (patched == NULL) {
        goto done;
    }
    unsigned char *b = (unsigned char *)PyBytes_AS_STRING(patched);
    int n = 0;
    for (Py_ssize_t i = 0; i + 1 < PyBytes_GET_SIZE(patched); i += 2) {
        if (b[i] == nop && b[i + 1] == 0) {
            b[i] = (unsigned char)cop;
            n++;
        }
    }
    if (n != 1) {
        PyErr_SetString(PyExc_SystemError, "unexpected entry bytecode");
        goto done;
    }
    consts = PyTuple_Pack(1, Py_None);
    empty = PyTuple_New(0);
    kw = consts && empty ? Py_BuildValue("{sOsOsO}", "co_code", patched,
                                         "co_consts", consts, "co_names",
                                         empty)
                         : NULL;
    replace = kw ? PyObject_GetAttrString(code, "replace") : NULL;
    if (replace == NULL) {
        goto done;
    }
    res = PyObject_Call(replace, empty, kw);
done:
    Py_XDECREF(replace);
    Py_XDECREF(kw);
    Py_XDECREF(empty);
    Py_XDECREF(consts);
    Py_XDECREF(patched);
    Py_XDECREF(raw);
    Py_XDECREF(opmap);
    Py_XDECREF(opcode);
    Py_XDECREF(code);
    return res;
}

/* The entry code of one interpreter: the template with the runner as its
 * constant, so the frame looks up no name and holds nothing but the runner.
 * A code object of its own (the tripwire tells the interpreter's entry
 * frame by its identity).  New ref. */
static PyObject *
make_entry_code(ModState *st, PyObject *runner)
{
    if (st->entry_template == NULL) {
        st->entry_template = make_entry_template();
        if (st->entry_template == NULL) {
            return NULL;
        }
    }
    PyObject *consts = PyTuple_Pack(1, runner);
    PyObject *empty = consts ? PyTuple_New(0) : NULL;
    PyObject *kw = empty ? Py_BuildValue("{sO}", "co_consts", consts) : NULL;
    PyObject *replace =
        kw ? PyObject_GetAttrString(st->entry_template, "replace") : NULL;
    PyObject *res = replace ? PyObject_Call(replace, empty, kw) : NULL;
    Py_XDECREF(replace);
    Py_XDECREF(kw);
    Py_XDECREF(empty);
    Py_XDECREF(consts);
    return res;
}

int
tripwire_install_dirs_ready(ModState *st)
{
    /* the installation does not move: one computation per module */
    if (st->install_dirs == NULL) {
        st->install_dirs = installation_dirs();
        if (st->install_dirs == NULL) {
            return -1;
        }
    }
    return 0;
}

int
tripwire_prepare_step(Interp *in, PyObject *state)
{
    if (in_guard(in)->install_dirs == NULL) {
        if (tripwire_install_dirs_ready(in_st(in)) < 0) {
            return -1;
        }
        in_guard(in)->install_dirs = Py_NewRef(in_st(in)->install_dirs);
    }
    if (!in_guard(in)->grants_set && in_guard(in)->grant_read == NULL) {
        /* never configured: nothing but the installation is readable */
        in_guard(in)->grant_read = PyTuple_New(0);
        in_guard(in)->grant_write = PyTuple_New(0);
        if (in_guard(in)->grant_read == NULL || in_guard(in)->grant_write == NULL) {
            return -1;
        }
        in_guard(in)->grants_set = 1;
    }
    if (in_guard(in)->entry_code == NULL) {
        RunnerObject *r = PyObject_New(RunnerObject, in_st(in)->RunnerType);
        if (r == NULL) {
            return -1;
        }
        r->in = in;
        r->fn = NULL;
        r->arg = NULL;
        in_guard(in)->entry_runner = (PyObject *)r;
        in_guard(in)->entry_code = make_entry_code(in_st(in), (PyObject *)r);
        if (in_guard(in)->entry_code == NULL) {
            Py_CLEAR(in_guard(in)->entry_runner);
            return -1;
        }
    }
    if (in_guard(in)->entry_globals == NULL) {
        /* globals of the entry frame: a module name and a copy of the
           builtins, for C code that looks them up there (numpy's `open`),
           whose `__import__` serves only C code; its locals are the state
           itself.  What the builtins do for host code is the tripwire's
           business (pandas can reach them as `@__builtins__`). */
        PyObject *bm = PyImport_ImportModule("builtins");
        PyObject *b = bm ? PyDict_Copy(PyModule_GetDict(bm)) : NULL;
        Py_XDECREF(bm);
        PyObject *imp = b ? PyCFunction_NewEx(&entry_import_def,
                                              in_guard(in)->entry_runner, NULL)
                          : NULL;
        PyObject *g = imp ? PyDict_New() : NULL;
        if (g == NULL || PyDict_SetItemString(b, "__import__", imp) < 0 ||
            PyDict_SetItemString(g, "__builtins__", b) < 0) {
            Py_XDECREF(g);
            g = NULL;
        }
        Py_XDECREF(imp);
        Py_XDECREF(b);
        if (g == NULL) {
            return -1;
        }
        in_guard(in)->entry_globals = g;
    }
    PyObject *name = PyDict_GetItemWithError(state, in_st(in)->str_name);
    if (name == NULL && PyErr_Occurred()) {
        return -1;
    }
    if (PyDict_SetItem(in_guard(in)->entry_globals, in_st(in)->str_name,
                       name && PyUnicode_CheckExact(name)
                           ? name
                           : in_st(in)->str_main) < 0) {
        return -1;
    }
    return 0;
}

int
tripwire_enter_step(Interp *in, PyObject *state, void (*fn)(void *),
                    void *arg)
{
    RunnerObject *r = (RunnerObject *)in_guard(in)->entry_runner;
    r->fn = fn;
    r->arg = arg;
    PyObject *res = PyEval_EvalCode(in_guard(in)->entry_code, in_guard(in)->entry_globals, state);
    r->fn = NULL;
    r->arg = NULL;
    if (res == NULL) {
        /* the body's own error (left for the caller), or the frame's */
        return PyErr_Occurred() ? 0 : -1;
    }
    Py_DECREF(res);
    return 0;
}
