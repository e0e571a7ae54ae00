/* dictwatch.c: versions of globals and builtins dicts for the global-lookup
 * caches, on dict watchers (PEP 509's ma_version_tag is deprecated from
 * CPython 3.12; see compat.h).
 *
 * A watcher callback receives no context, so the epoch it advances is the
 * one static of the extension: a counter, shared by every module instance
 * in the process (the module does not declare a per-interpreter GIL, so all
 * callbacks run under one GIL).  Sharing it only costs cache misses.
 */
#include "compat.h"

#if PY_VERSION_HEX >= 0x030C0000

static uint64_t watched_epoch = 1;

/* Any event of any watched dict invalidates every cache entry filled
 * before it.  Called before the change is made; must not fail. */
static int
dict_event(PyDict_WatchEvent event, PyObject *dict, PyObject *key,
           PyObject *new_value)
{
    (void)event;
    (void)dict;
    (void)key;
    (void)new_value;
    watched_epoch++;
    return 0;
}

uint64_t
compat_dict_version(int wid, PyObject *d)
{
    return (wid >= 0 && PyDict_CheckExact(d)) ? watched_epoch : 0;
}

int
compat_dict_watch(int wid, PyObject *d)
{
    if (wid < 0 || !PyDict_CheckExact(d)) {
        return 0;
    }
    return PyDict_Watch(wid, d);
}

int
compat_dict_watcher_add(void)
{
    int wid = PyDict_AddWatcher(dict_event);
    if (wid < 0) {
        /* all watcher slots are taken: run without the caches */
        PyErr_Clear();
        return -1;
    }
    return wid;
}

void
compat_dict_watcher_clear(int wid)
{
    if (wid >= 0 && PyDict_ClearWatcher(wid) < 0) {
        PyErr_WriteUnraisable(NULL);
    }
}

#else

int
compat_dict_watch(int wid, PyObject *d)
{
    (void)wid;
    (void)d;
    return 0;
}

int
compat_dict_watcher_add(void)
{
    return -1;
}

void
compat_dict_watcher_clear(int wid)
{
    (void)wid;
}

#endif
