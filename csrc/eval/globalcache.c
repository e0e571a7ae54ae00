/* globalcache.c: module-level names and globals, one cached slot per name.
 *
 * Why.  CPython looks a module-level name up in dicts every time
 * (LOAD_NAME), and caches a global by its dict's keys version (LOAD_GLOBAL),
 * which survives stores of values.  A cache keyed by the dict's version
 * (PEP 509, or a dict watcher's epoch) does not: at module level, where
 * agent code runs its loops, every store changes the version, so such a
 * cache missed on every name of a loop that assigns a variable.
 *
 * What.  The interpreter keeps one slot per global name (numbered at
 * lowering, per module state: Name.gslot = number + 1, 0 for none) holding
 * the value the globals-then-builtins lookup gave, borrowed, and whether it
 * came from the globals.
 *
 * Guarantee: a slot's value is what the lookup would return now, and is
 * alive (the dict holds it).  A slot is used only while
 *   - the frame's globals and builtins are the dicts the slots describe
 *     (Interp.g_dict / g_builtins, held by the interpreter so that their
 *     addresses cannot be reused, exact dicts; the globals versioned by
 *     PEP 509's tag up to 3.13 and by a watcher on 3.14, the builtins by
 *     the tag up to 3.11 and by a watcher from 3.12: compat.h,
 *     compat_watched_version),
 *   - both dicts' versions are the ones last seen (g_seen / b_seen): a
 *     change not made by gcache_store / gcache_delete (host code, an
 *     interpreted __del__ between two stores, any dict method) moves a
 *     version, and then every slot is emptied (g_epoch advances), and
 *   - the slot's epoch is the current one.
 * The interpreter's own stores and deletes update their name's slot, then
 * adopt the dict's new version as seen.  That is sound only if that one
 * change is all that happened to the dict in between, so:
 *   - the old value is held across the dict operation (its deallocation
 *     may run any code, which then happens after the adoption and moves
 *     the version again), and
 *   - the dict's keys are all exact str (checked by a scan after slots are
 *     emptied; our stores only add exact str keys), so its lookup calls no
 *     __eq__ and the operation runs no code.
 * Otherwise the store is a plain dict store, seen as a foreign change.
 * On 3.14+, where the globals' version is the globals watcher's epoch, such
 * an adopted change is made with the dict's bit for our watcher cleared and
 * the epoch advanced by hand (compat.h, compat_globals_quiet): the same
 * version for every cache, without CPython's event dispatch on every store.
 */
#include "eval.h"

/* Names numbered per module state; more names than this are not cached. */
#define GCACHE_MAX_NAMES 65536
/* Slots remembered as filled in a step (gcache_touched); past this many,
 * the answer comes from a pass over every slot instead. */
#define GCACHE_FILLED_MAX 4096

uint32_t
gcache_name_slot(ModState *st, PyObject *name)
{
    if (!PyUnicode_CheckExact(name)) {
        return 0;
    }
    if (st->gname_ids == NULL &&
        ((st->gname_ids = PyDict_New()) == NULL ||
         (st->gname_list = PyList_New(0)) == NULL)) {
        Py_CLEAR(st->gname_ids);
        PyErr_Clear();
        return 0;
    }
    PyObject *id = PyDict_GetItemWithError(st->gname_ids, name);
    if (id != NULL) {
        return (uint32_t)PyLong_AsUnsignedLong(id);
    }
    Py_ssize_t n = PyDict_GET_SIZE(st->gname_ids);
    if (PyErr_Occurred() || n >= GCACHE_MAX_NAMES) {
        PyErr_Clear();
        return 0;
    }
    id = PyLong_FromSsize_t(n + 1);
    if (id == NULL || PyList_Append(st->gname_list, name) < 0) {
        Py_XDECREF(id);
        PyErr_Clear();
        return 0;
    }
    if (PyDict_SetItem(st->gname_ids, name, id) < 0) {
        /* the list and the dict stay in step: the name's entry goes */
        PyList_SetSlice(st->gname_list, n, n + 1, NULL);
        Py_DECREF(id);
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(id);
    return (uint32_t)(n + 1);
}

void
gcache_begin(Interp *in, PyObject *globals, PyObject *builtins)
{
    /* callers watched both dicts (compat_dict_watch returned 1) */
    if (in_eval(in)->g_dict != globals) {
        Py_XSETREF(in_eval(in)->g_dict, Py_NewRef(globals));
    }
    if (in_eval(in)->g_builtins != builtins) {
        Py_XSETREF(in_eval(in)->g_builtins, Py_NewRef(builtins));
    }
    in_eval(in)->g_epoch++;
    in_eval(in)->g_seen = compat_watched_version(COMPAT_WATCH_GLOBALS, globals);
    in_eval(in)->b_seen = compat_watched_version(COMPAT_WATCH_BUILTINS, builtins);
    /* the verdict of the last step's end, if these are its globals,
       unchanged since (a state that grows by a name a step would otherwise
       be scanned whole at every step's first store) */
    in_eval(in)->g_strkeys = globals == in_eval(in)->strkeys_dict &&
                            in_eval(in)->g_seen == in_eval(in)->strkeys_version
                        ? 1
                        : -1;
    /* a new step: nothing touched yet */
    in_eval(in)->g_step_epoch = in_eval(in)->g_epoch;
    in_eval(in)->g_untracked = 0;
    in_eval(in)->n_filled = 0;
    in_eval(in)->g_filled_over = 0;
    if (in_eval(in)->g_touched != NULL) {
        PySet_Clear(in_eval(in)->g_touched);
    }
}

void
gcache_end(Interp *in)
{
    if (in_eval(in)->g_dict == NULL) {
        in_eval(in)->g_untracked = 1; /* a step on unwatched dicts: no slot used */
    }
    in_eval(in)->strkeys_dict = NULL;
    if (in_eval(in)->g_dict != NULL && in_eval(in)->g_strkeys == 1 &&
        compat_watched_version(COMPAT_WATCH_GLOBALS, in_eval(in)->g_dict) ==
            in_eval(in)->g_seen) {
        in_eval(in)->strkeys_dict = in_eval(in)->g_dict;
        in_eval(in)->strkeys_version = in_eval(in)->g_seen;
    }
    in_eval(in)->g_epoch++;
    Py_CLEAR(in_eval(in)->g_dict);
    Py_CLEAR(in_eval(in)->g_builtins);
}

void
gcache_clear(Interp *in)
{
    PyMem_Free(in_eval(in)->g_filled);
    in_eval(in)->g_filled = NULL;
    in_eval(in)->n_filled = 0;
    Py_CLEAR(in_eval(in)->g_touched);
    Py_CLEAR(in_eval(in)->g_dict);
    Py_CLEAR(in_eval(in)->g_builtins);
    PyMem_Free(in_eval(in)->gslots);
    in_eval(in)->gslots = NULL;
    in_eval(in)->ngslots = 0;
    in_eval(in)->g_epoch++;
}

int
gcache_traverse(Interp *in, visitproc visit, void *arg)
{
    Py_VISIT(in_eval(in)->g_dict);
    Py_VISIT(in_eval(in)->g_builtins);
    Py_VISIT(in_eval(in)->g_touched);
    return 0;
}

/* The frame's dicts are the ones the slots describe, and the slots are
 * current for their versions (emptied if a version moved).  1 / 0. */
static inline int
gcache_sync(Interp *in, Frame *f)
{
    if (f->globals != in_eval(in)->g_dict || f->builtins != in_eval(in)->g_builtins ||
        in_eval(in)->g_dict == NULL) {
        return 0;
    }
    uint64_t gv = compat_watched_version(COMPAT_WATCH_GLOBALS, in_eval(in)->g_dict);
    uint64_t bv =
        compat_watched_version(COMPAT_WATCH_BUILTINS, in_eval(in)->g_builtins);
    if (gv != in_eval(in)->g_seen || bv != in_eval(in)->b_seen) {
        in_eval(in)->g_epoch++;
        in_eval(in)->g_seen = gv;
        in_eval(in)->b_seen = bv;
        in_eval(in)->g_strkeys = -1;
    }
    return 1;
}

/* gcache_slot() when the table must grow first. */
static NOINLINE GSlot *
gcache_slot_grow(Interp *in, uint32_t i)
{
    {
        uint32_t n = in_eval(in)->ngslots ? in_eval(in)->ngslots : 64;
        while (n <= i) {
            n *= 2;
        }
        GSlot *t = PyMem_Realloc(in_eval(in)->gslots, (size_t)n * sizeof(GSlot));
        if (t == NULL) {
            PyErr_Clear();
            return NULL;
        }
        memset(t + in_eval(in)->ngslots, 0, (size_t)(n - in_eval(in)->ngslots) * sizeof(GSlot));
        in_eval(in)->gslots = t;
        in_eval(in)->ngslots = n;
    }
    return &in_eval(in)->gslots[i];
}

/* The slot of `slot1` (number + 1), the table grown if needed; NULL when
 * the name has none or the table cannot grow (no error set). */
static inline GSlot *
gcache_slot(Interp *in, uint32_t slot1)
{
    if (slot1 == 0) {
        return NULL;
    }
    uint32_t i = slot1 - 1;
    if (i >= in_eval(in)->ngslots) {
        return gcache_slot_grow(in, i);
    }
    return &in_eval(in)->gslots[i];
}

/* g_dict's keys are all exact str (scanned once per epoch). */
static int
gcache_strkeys(Interp *in)
{
    if (in_eval(in)->g_strkeys < 0) {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        in_eval(in)->g_strkeys = 1;
        while (PyDict_Next(in_eval(in)->g_dict, &pos, &k, &v)) {
            if (!PyUnicode_CheckExact(k)) {
                in_eval(in)->g_strkeys = 0;
                break;
            }
        }
    }
    return in_eval(in)->g_strkeys;
}

/* Slot `gslot` (number + 1) is about to be filled; its epoch before is
 * `prev`: the first fill of the step is remembered for gcache_touched. */
static inline void
note_fill(Interp *in, uint64_t prev, uint32_t gslot)
{
    if (prev >= in_eval(in)->g_step_epoch || in_eval(in)->g_filled_over) {
        return;
    }
    if (in_eval(in)->g_filled == NULL) {
        in_eval(in)->g_filled = PyMem_Malloc(GCACHE_FILLED_MAX * sizeof(uint32_t));
    }
    if (in_eval(in)->g_filled == NULL || in_eval(in)->n_filled >= GCACHE_FILLED_MAX) {
        in_eval(in)->g_filled_over = 1; /* the pass over every slot answers */
        return;
    }
    in_eval(in)->g_filled[in_eval(in)->n_filled++] = gslot;
}

PyObject *
gcache_load_slow(Frame *f, Node *e)
{
    Interp *in = f->in;
    int cacheable = gcache_sync(in, f);
    uint64_t gv = in_eval(in)->g_seen, bv = in_eval(in)->b_seen, epoch = in_eval(in)->g_epoch;
    int in_globals = 1;
    PyObject *v = PyDict_GetItemWithError(f->globals, e->obj);
    if (v == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        in_globals = 0;
        v = PyDict_GetItemWithError(f->builtins, e->obj);
        if (v == NULL) {
            if (!PyErr_Occurred()) {
                raise_name_error(e->obj);
            }
            return NULL;
        }
    }
    if (in_globals && Py_TYPE(v) == in_st(in)->LazyImportType) {
        /* PEP 810: imported now, never remembered (lazyimport.c) */
        gcache_note(in, e->obj);
        return lazyimport_resolve(f, e->obj, v);
    }
    /* remembered only if the lookups changed nothing (a key's __eq__ could
       have run; the table is found after it, as that code may grow it) */
    GSlot *s;
    if (cacheable && in_eval(in)->g_epoch == epoch &&
        compat_watched_version(COMPAT_WATCH_GLOBALS, f->globals) == gv &&
        compat_watched_version(COMPAT_WATCH_BUILTINS, f->builtins) == bv &&
        (s = gcache_slot(in, e->Name.gslot)) != NULL) {
        note_fill(in, s->epoch, e->Name.gslot);
        s->value = v;
        s->epoch = epoch;
        s->in_globals = in_globals;
    }
    else {
        gcache_note(in, e->obj);
    }
    return Py_NewRef(v);
}

/* Adopt the globals' version after our own change of one name (see the
 * guarantee above). */
static inline void
gcache_adopt(Interp *in, uint64_t before)
{
    uint64_t now = compat_watched_version(COMPAT_WATCH_GLOBALS, in_eval(in)->g_dict);
    if (in_eval(in)->g_seen == before) {
        in_eval(in)->g_seen = now;
    }
}

/* gcache_store() past its common case. */
static NOINLINE int
gcache_store_slow(Frame *f, Node *t, PyObject *value)
{
    Interp *in = f->in;
    GSlot *s = gcache_sync(in, f) && gcache_strkeys(in)
                   ? gcache_slot(in, t->Name.gslot)
                   : NULL;
    if (s == NULL) {
        gcache_note(in, t->obj);
        return PyDict_CheckExact(f->globals)
                   ? PyDict_SetItem(f->globals, t->obj, value)
                   : PyObject_SetItem(f->globals, t->obj, value);
    }
    uint64_t before = in_eval(in)->g_seen;
    PyObject *old;
    if (s->epoch == in_eval(in)->g_epoch) {
        old = s->in_globals ? s->value : NULL;
    }
    else {
        /* exact str keys only: no code runs */
        old = PyDict_GetItemWithError(f->globals, t->obj);
        if (old == NULL && PyErr_Occurred()) {
            return -1;
        }
    }
    /* from here to the adoption no code runs (see above), so `s` stays a
       valid pointer into the table */
    Py_XINCREF(old);
    int quiet = compat_globals_quiet(in_st(in)->dict_watcher, f->globals);
    int r = PyDict_SetItem(f->globals, t->obj, value);
    compat_globals_loud(quiet, f->globals);
    if (r == 0) {
        gcache_adopt(in, before);
        note_fill(in, s->epoch, t->Name.gslot);
        s->value = value;
        s->epoch = in_eval(in)->g_epoch;
        s->in_globals = 1;
    }
    else {
        s->epoch = 0;
    }
    Py_XDECREF(old); /* may run code: after the adoption */
    return r;
}

/* The common case: the name's slot is current and says the globals hold
 * it, and the globals' keys are all exact str (g_strkeys is 1 only for the
 * version last seen, which gcache_current checked).  What gcache_store_slow
 * does for it, without its syncing, scan and bookkeeping: the slot's epoch
 * is already the current one, so note_fill has nothing to note.  Its own
 * copy of the held store: one helper shared with gcache_store_slow cost 15
 * more instructions a store (callgrind, 3.11). */
int
gcache_store(Frame *f, Node *t, PyObject *value)
{
    GSlot *s = gcache_current(f, t->Name.gslot);
    EvalState *ev = in_eval(f->in);
    if (s == NULL || !s->in_globals || ev->g_strkeys != 1) {
        return gcache_store_slow(f, t, value);
    }
    /* as in gcache_store_slow: no code runs until the old value goes */
    PyObject *old = Py_NewRef(s->value);
    int quiet = compat_globals_quiet(in_st(f->in)->dict_watcher, f->globals);
    int r = PyDict_SetItem(f->globals, t->obj, value);
    compat_globals_loud(quiet, f->globals);
    if (r == 0) {
        /* adopted: no change but this one happened since g_seen */
        ev->g_seen = compat_watched_version(COMPAT_WATCH_GLOBALS, f->globals);
        s->value = value;
    }
    else {
        s->epoch = 0;
    }
    Py_DECREF(old); /* may run code: after the adoption */
    return r;
}

void
gcache_forget(Interp *in)
{
    in_eval(in)->g_epoch++;
}

int
gcache_delete(Frame *f, Node *t)
{
    Interp *in = f->in;
    GSlot *s = gcache_sync(in, f) && gcache_strkeys(in)
                   ? gcache_slot(in, t->Name.gslot)
                   : NULL;
    if (s == NULL) {
        gcache_note(in, t->obj); /* before: no exception is set yet */
        int r = PyObject_DelItem(f->globals, t->obj);
        if (r < 0 && PyErr_ExceptionMatches(PyExc_KeyError)) {
            PyErr_Clear();
            return -2;
        }
        return r;
    }
    uint64_t before = in_eval(in)->g_seen;
    PyObject *old;
    if (s->epoch == in_eval(in)->g_epoch) {
        old = s->in_globals ? s->value : NULL;
        if (old == NULL) {
            return -2;
        }
    }
    else {
        old = PyDict_GetItemWithError(f->globals, t->obj);
        if (old == NULL) {
            return PyErr_Occurred() ? -1 : -2;
        }
    }
    Py_INCREF(old);
    int quiet = compat_globals_quiet(in_st(in)->dict_watcher, f->globals);
    int r = PyDict_DelItem(f->globals, t->obj);
    compat_globals_loud(quiet, f->globals);
    if (r == 0) {
        gcache_adopt(in, before);
    }
    s->epoch = 0; /* refilled by the next load (builtins, or NameError) */
    if (r == 0) {
        gcache_note(in, t->obj); /* the slot no longer says so */
    }
    Py_DECREF(old);
    return r;
}

void
gcache_note(Interp *in, PyObject *name)
{
    if (in_eval(in)->g_untracked) {
        return;
    }
    if (in_eval(in)->g_touched == NULL && (in_eval(in)->g_touched = PySet_New(NULL)) == NULL) {
        PyErr_Clear();
        in_eval(in)->g_untracked = 1;
        return;
    }
    if (PySet_Add(in_eval(in)->g_touched, name) < 0) {
        PyErr_Clear();
        in_eval(in)->g_untracked = 1;
    }
}

PyObject *
gcache_touched(Interp *in)
{
    if (in_eval(in)->g_untracked) {
        Py_RETURN_NONE;
    }
    PyObject *out = in_eval(in)->g_touched ? PySet_New(in_eval(in)->g_touched) : PySet_New(NULL);
    if (out == NULL) {
        return NULL;
    }
    PyObject *names = in_st(in)->gname_list;
    if (names == NULL || in_eval(in)->gslots == NULL) {
        return out;
    }
    if (!in_eval(in)->g_filled_over) {
        /* the slots the step filled first, as it went */
        for (uint32_t k = 0; k < in_eval(in)->n_filled; k++) {
            Py_ssize_t i = (Py_ssize_t)in_eval(in)->g_filled[k] - 1;
            if (i < PyList_GET_SIZE(names) &&
                PySet_Add(out, PyList_GET_ITEM(names, i)) < 0) {
                Py_DECREF(out);
                return NULL;
            }
        }
        return out;
    }
    /* more than were remembered: every slot filled since the step began */
    Py_ssize_t n = PyList_GET_SIZE(names);
    for (Py_ssize_t i = 0; i < n && (size_t)i < in_eval(in)->ngslots; i++) {
        if (in_eval(in)->gslots[i].epoch != 0 &&
            in_eval(in)->gslots[i].epoch >= in_eval(in)->g_step_epoch &&
            PySet_Add(out, PyList_GET_ITEM(names, i)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}
