/* parse.c: CPython's parser to Python ast objects, one thread at a time where
 * CPython needs it.
 *
 * CPython 3.11 counts the depth of the ast objects it builds from a parse
 * (ast2obj) in its `_ast` state, which every thread shares, and checks at the
 * end that the count came back to where it started.  The construction
 * allocates, an allocation can run the cyclic GC, and a finalizer the GC calls
 * can give up the GIL: another thread that parses meanwhile moves the same
 * count, and one of the two parses fails with "SystemError: AST constructor
 * recursion depth mismatch" (CPython gh-106905; met by
 * tests/api/test_api.py's test of evaluate_python_code in threads on a loaded
 * machine; made to happen by tests/engine/test_parse_threads.py).  3.12 runs the GC only between
 * bytecodes, and 3.13 keeps the count per parse; the lock is taken on every
 * version before 3.13 all the same, as it costs one uncontended mutex.
 *
 * Every parse to ast objects this module makes goes through front_parse_ast
 * (the lowering's and observability.imports_used's, by _core.parse_ast); a
 * host's own ast.parse in another thread can still meet CPython's bug, which
 * only CPython can fix.
 *
 * The lock: a pthread mutex, waited for with the GIL given up.  The thread
 * that holds it may parse again inside its parse (a finalizer that runs a
 * step): it does not wait for itself.  A fork while another thread held it
 * leaves the child a mutex nobody will release: the child makes it new.
 * A step that waits for another thread's parse waits at most that parse,
 * which that step's source-size budget bounds; the waiting step's deadline
 * is checked after its own parse (lower_program).
 */
#include "front/front.h"

#include <pthread.h>

#if PY_VERSION_HEX < 0x030D0000
#define PARSE_SERIALIZED 1
static pthread_mutex_t parse_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned long parse_owner; /* thread ident, 0: none; read and written
                                     with the GIL held */
static pthread_once_t parse_once = PTHREAD_ONCE_INIT;

static void
parse_after_fork_child(void)
{
    /* Only this thread is left: another thread that held the mutex is
       gone.  This one may hold it itself (a finalizer run inside its parse
       forked): it still does in the child, and unlocks it at its end. */
    pthread_mutex_init(&parse_mutex, NULL);
    if (parse_owner != 0 && parse_owner == PyThread_get_thread_ident()) {
        pthread_mutex_lock(&parse_mutex);
    }
    else {
        parse_owner = 0;
    }
}

static void
parse_register_fork_handler(void)
{
    (void)pthread_atfork(NULL, NULL, parse_after_fork_child);
}
#endif

PyObject *
front_parse_ast(PyObject *source, PyObject *filename)
{
    PyCompilerFlags cf = {PyCF_ONLY_AST, PY_MINOR_VERSION};
    const char *src = PyUnicode_AsUTF8(source);
    if (src == NULL) {
        return NULL;
    }
    if (PyUnicode_FindChar(source, 0, 0, PyUnicode_GET_LENGTH(source), 1) !=
        -1) {
        /* a C string would end at the NUL: let CPython's compile() refuse
           the whole source with its own SyntaxError */
        PyObject *b = PyImport_ImportModule("builtins");
        PyObject *c = b ? PyObject_CallMethod(b, "compile", "OOsi", source,
                                              filename,
                                              "exec", PyCF_ONLY_AST)
                        : NULL;
        Py_XDECREF(b);
        if (c != NULL) {
            Py_DECREF(c);
            PyErr_SetString(PyExc_SyntaxError,
                            "source code string cannot contain null bytes");
        }
        return NULL;
    }
#ifdef PARSE_SERIALIZED
    unsigned long me = PyThread_get_thread_ident();
    int mine = 0;
    (void)pthread_once(&parse_once, parse_register_fork_handler);
    if (parse_owner != me) {
        if (pthread_mutex_trylock(&parse_mutex) != 0) {
            Py_BEGIN_ALLOW_THREADS
            pthread_mutex_lock(&parse_mutex);
            Py_END_ALLOW_THREADS
        }
        parse_owner = me;
        mine = 1;
    }
#endif
    PyObject *tree = Py_CompileStringObject(src, filename, Py_file_input, &cf,
                                            -1);
#ifdef PARSE_SERIALIZED
    if (mine) {
        parse_owner = 0;
        pthread_mutex_unlock(&parse_mutex);
    }
#endif
    return tree;
}
