/* dictwatch.c: versions of watched dicts on dict watchers (PEP 509's
 * ma_version_tag is deprecated from CPython 3.12 and gone in 3.14; see
 * compat.h): globals dicts on 3.14 (3.12 and 3.13 version them by the tag,
 * COMPAT_GLOBALS_BY_TAG) and builtins dicts for the global-name cache
 * (globalcache.c), and the
 * tool dicts the shim compares before each step (shim.c, entries_token).
 *
 * A watcher callback receives no context, so the epoch it advances is a
 * static of the extension: one counter per kind, shared by every module
 * instance in the process (the module does not declare a per-interpreter
 * GIL, so all callbacks run under one GIL).  Sharing it only costs cache
 * misses.
 */
#include "compat.h"

#if PY_VERSION_HEX >= 0x030C0000

uint64_t compat_watch_epoch[COMPAT_WATCH_KINDS] = {1, 1, 1, 1};

/* Any event of any watched dict of a kind invalidates every cache entry
 * filled before it.  Called before the change is made; must not fail. */
static int
dict_event_globals(PyDict_WatchEvent event, PyObject *dict, PyObject *key,
                   PyObject *new_value)
{
    (void)event;
    (void)dict;
    (void)key;
    (void)new_value;
    compat_watch_epoch[COMPAT_WATCH_GLOBALS]++;
    return 0;
}

static int
dict_event_builtins(PyDict_WatchEvent event, PyObject *dict, PyObject *key,
                    PyObject *new_value)
{
    (void)event;
    (void)dict;
    (void)key;
    (void)new_value;
    compat_watch_epoch[COMPAT_WATCH_BUILTINS]++;
    return 0;
}

static int
dict_event_tools(PyDict_WatchEvent event, PyObject *dict, PyObject *key,
                 PyObject *new_value)
{
    (void)event;
    (void)dict;
    (void)key;
    (void)new_value;
    compat_watch_epoch[COMPAT_WATCH_TOOLS]++;
    return 0;
}

static int
dict_event_modules(PyDict_WatchEvent event, PyObject *dict, PyObject *key,
                   PyObject *new_value)
{
    (void)event;
    (void)dict;
    (void)key;
    (void)new_value;
    compat_watch_epoch[COMPAT_WATCH_MODULES]++;
    return 0;
}

int
compat_dict_watch(int wid, PyObject *d)
{
    if (wid < 0 || !PyDict_CheckExact(d)) {
        return 0;
    }
    if (wid == COMPAT_WATCHER_TAG) {
        return 1; /* versioned by its tag (compat.h) */
    }
    return PyDict_Watch(wid, d) < 0 ? -1 : 1;
}

#if PY_VERSION_HEX >= 0x030E0000
int compat_watch_bits_direct = 0;

/* Does PyDict_Watch(wid, ...) set bit `wid` of _ma_watcher_tag and nothing
 * else, and PyDict_Unwatch clear it?  (compat.h, compat_globals_quiet) */
static void
check_watch_bits(int wid)
{
    PyObject *d = PyDict_New();
    if (d == NULL) {
        PyErr_Clear();
        return;
    }
    PyDictObject *o = (PyDictObject *)d;
    uint64_t bit = (uint64_t)1 << wid, before = o->_ma_watcher_tag;
    int ok = (before & bit) == 0 && PyDict_Watch(wid, d) == 0 &&
             o->_ma_watcher_tag == (before | bit) &&
             PyDict_Unwatch(wid, d) == 0 && o->_ma_watcher_tag == before;
    PyErr_Clear();
    Py_DECREF(d);
    compat_watch_bits_direct = ok;
}
#endif

int
compat_dict_watcher_add(int kind)
{
    if (COMPAT_GLOBALS_BY_TAG && kind == COMPAT_WATCH_GLOBALS) {
        return COMPAT_WATCHER_TAG;
    }
    int wid =
        PyDict_AddWatcher(kind == COMPAT_WATCH_BUILTINS  ? dict_event_builtins
                          : kind == COMPAT_WATCH_TOOLS   ? dict_event_tools
                          : kind == COMPAT_WATCH_MODULES ? dict_event_modules
                                                         : dict_event_globals);
    if (wid < 0) {
        /* all watcher slots are taken: run without the caches */
        PyErr_Clear();
        return -1;
    }
#if PY_VERSION_HEX >= 0x030E0000
    if (kind == COMPAT_WATCH_GLOBALS) {
        check_watch_bits(wid);
    }
#endif
    return wid;
}

void
compat_dict_watcher_clear(int wid)
{
    if (wid >= 0 && wid != COMPAT_WATCHER_TAG &&
        PyDict_ClearWatcher(wid) < 0) {
        PyErr_WriteUnraisable(NULL);
    }
}

#else

int
compat_dict_watch(int wid, PyObject *d)
{
    (void)wid;
    return PyDict_CheckExact(d) ? 1 : 0;
}

int
compat_dict_watcher_add(int kind)
{
    (void)kind;
    return -1;
}

void
compat_dict_watcher_clear(int wid)
{
    (void)wid;
}

#endif
