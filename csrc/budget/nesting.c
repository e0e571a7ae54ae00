/* nesting.c: bound the nesting depth of objects whose C code recurses
 * without a depth check.
 *
 * CPython deallocates lists, tuples, dicts, sets and instances of classes
 * defined in Python through its "trashcan", which turns deep deallocation
 * into a loop; most other container types of C (property, classmethod,
 * staticmethod, the itertools objects, map, filter, bound methods...)
 * release what they hold by plain recursion, and some hash, compare or
 * iterate the same way.  A chain `p = property(p)` repeated a million times
 * within the operation budget kills the host later, when it clears the
 * executor's state on its own 8 MiB stack.
 *
 * The mechanism does not list the dangerous types: every result of a host
 * call made by interpreted code is measured (nesting_check, called where
 * call results are gated) by walking what it references with tp_traverse,
 * through every garbage-collected object *except* those whose release is
 * known to be protected (the trashcan types above and their subclasses, and
 * classes defined in Python); the depth of the deepest path of such
 * unprotected objects must stay within the `max_nesting` budget
 * (budgets.def), or the step ends with an InterpreterError that names it.
 * A protected object ends a path (its own release restarts the count).
 *
 * Cost: one visit per unprotected object reachable from the result, each
 * charged one operation of the step's budget, with a memo so that a shared
 * sub-object is measured once per call.  Most results (numbers, strings,
 * lists, instances) are not walked at all.
 */
#include "budget.h"

#define NEST_CACHE 16
/* Only results this deep are remembered: the cache keeps them alive until
 * the end of the step, which must not delay the release (and finalizers)
 * of ordinary objects such as `enumerate(gen)` in a for loop. */
#define NEST_CACHE_FROM 64
#define NEST_TUPLE_LOOK 16

/* Is `o` an object whose release (or hashing, iteration) may recurse in C
 * without CPython's trashcan?  Conservative: unknown GC types are. */
static int
unprotected(ModState *st, PyObject *o)
{
    if (!PyObject_IS_GC(o)) {
        return 0;
    }
    PyTypeObject *tp = Py_TYPE(o);
    /* the tests that read type flags first; sets and modules (an MRO walk
       each) only for what is left */
    if (PyList_Check(o) || PyTuple_Check(o) || PyDict_Check(o) ||
        PyType_Check(o) || tp == &PySet_Type || tp == &PyFrozenSet_Type ||
        tp == &PyModule_Type) {
        return 0;
    }
    if (st->subtype_dealloc != NULL && tp->tp_dealloc == st->subtype_dealloc) {
        return 0; /* a class defined in Python: subtype_dealloc's trashcan */
    }
    /* a subclass of set, frozenset or module: one walk of the MRO (what
       PyAnySet_Check and PyModule_Check would each do) */
    PyObject *mro = tp->tp_mro;
    if (mro == NULL) {
        return !(PyAnySet_Check(o) || PyModule_Check(o));
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *b = PyTuple_GET_ITEM(mro, i);
        if (b == (PyObject *)&PySet_Type ||
            b == (PyObject *)&PyFrozenSet_Type ||
            b == (PyObject *)&PyModule_Type) {
            return 0;
        }
    }
    return 1;
}

typedef struct {
    ModState *st;
    PyObject *kids; /* list: the unprotected referents found */
} KidsCtx;

/* tp_traverse visitor: note the unprotected referents.  A small tuple is
 * looked into (one level): C objects often keep what they chain in one,
 * e.g. map's iterators, and the chain must not hide behind it. */
static int
collect_kid(PyObject *o, void *arg)
{
    KidsCtx *k = (KidsCtx *)arg;
    if (o == NULL) {
        return 0;
    }
    if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) <= NEST_TUPLE_LOOK) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); i++) {
            PyObject *item = PyTuple_GET_ITEM(o, i);
            if (unprotected(k->st, item) && PyList_Append(k->kids, item) < 0) {
                return -1;
            }
        }
        return 0;
    }
    if (unprotected(k->st, o)) {
        return PyList_Append(k->kids, o);
    }
    return 0;
}

/* The last deep results measured (NEST_CACHE_FROM levels or more), kept
 * alive (so their addresses are theirs) until the end of the step:
 * `p = property(p)` in a loop measures each new level in one visit. */
struct NestCache {
    PyObject *obj[NEST_CACHE];
    long long depth[NEST_CACHE];
    int next;
};

static int
cache_find(struct NestCache *c, PyObject *o, long long *depth)
{
    if (c == NULL) {
        return 0;
    }
    for (int i = 0; i < NEST_CACHE; i++) {
        if (c->obj[i] == o) {
            *depth = c->depth[i];
            return 1;
        }
    }
    return 0;
}

static void
cache_add(Interp *in, PyObject *o, long long depth)
{
    struct NestCache *c = in_budget(in)->nest_cache;
    if (c == NULL) {
        c = PyMem_Calloc(1, sizeof(*c));
        if (c == NULL) {
            return; /* only a cache */
        }
        in_budget(in)->nest_cache = c;
    }
    int i = c->next;
    c->next = (i + 1) % NEST_CACHE;
    c->depth[i] = depth;
    Py_XSETREF(c->obj[i], Py_NewRef(o));
}

void
nesting_forget(Interp *in)
{
    struct NestCache *c = in_budget(in)->nest_cache;
    if (c == NULL) {
        return;
    }
    in_budget(in)->nest_cache = NULL;
    for (int i = 0; i < NEST_CACHE; i++) {
        Py_CLEAR(c->obj[i]); /* may run code: c is detached already */
    }
    PyMem_Free(c);
}

/* The small walk: the same measure as the full walk below (depth of the
 * deepest path of unprotected objects, a visited object counting once, an
 * object on the path counting 0), by recursion on the C stack over at most
 * NEST_SMALL_OBJS objects and NEST_SMALL_DEPTH levels, with a memo in an
 * array.  It gives up (-1, no exception) past those bounds or at an object
 * of the cache; nesting_check then starts the full walk.  tp_traverse runs
 * no Python code: the borrowed pointers stay valid. */
#define NEST_SMALL_OBJS 32
#define NEST_SMALL_DEPTH 8

typedef struct {
    ModState *st;
    struct NestCache *cache;
    PyObject *seen[NEST_SMALL_OBJS];
    long long depth_of[NEST_SMALL_OBJS]; /* 0 while on the path */
    int nseen;
    int level;
    long long best; /* deepest kid so far of the object being traversed */
} SmallWalk;

static int small_enter(SmallWalk *w, PyObject *o, long long *depth);

static int
small_kid(SmallWalk *w, PyObject *kid)
{
    long long d, cached;
    if (cache_find(w->cache, kid, &cached)) {
        return -1; /* deep: the full walk's business */
    }
    for (int i = 0; i < w->nseen; i++) {
        if (w->seen[i] == kid) {
            d = w->depth_of[i];
            goto got;
        }
    }
    if (small_enter(w, kid, &d) < 0) {
        return -1;
    }
got:
    if (d > w->best) {
        w->best = d;
    }
    return 0;
}

/* tp_traverse visitor of the small walk (the referents collect_kid would
 * note). */
static int
small_visit(PyObject *o, void *arg)
{
    SmallWalk *w = (SmallWalk *)arg;
    if (o == NULL) {
        return 0;
    }
    if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) <= NEST_TUPLE_LOOK) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); i++) {
            PyObject *item = PyTuple_GET_ITEM(o, i);
            if (unprotected(w->st, item) && small_kid(w, item) < 0) {
                return -1;
            }
        }
        return 0;
    }
    if (unprotected(w->st, o)) {
        return small_kid(w, o);
    }
    return 0;
}

static int
small_enter(SmallWalk *w, PyObject *o, long long *depth)
{
    if (w->nseen == NEST_SMALL_OBJS || w->level == NEST_SMALL_DEPTH) {
        return -1;
    }
    int idx = w->nseen++;
    w->seen[idx] = o;
    w->depth_of[idx] = 0;
    long long saved = w->best;
    w->best = 0;
    w->level++;
    traverseproc trav = Py_TYPE(o)->tp_traverse;
    int r = trav != NULL ? trav(o, small_visit, w) : 0;
    w->level--;
    if (r != 0) {
        return -1;
    }
    *depth = w->best + 1;
    w->depth_of[idx] = *depth;
    w->best = saved;
    return 0;
}

/* One level of the walk: an object and the referents still to visit. */
typedef struct {
    PyObject *obj;  /* borrowed: kept alive by its parent's kids list */
    PyObject *kids; /* owned list */
    Py_ssize_t next;
    long long deepest; /* deepest path below, in levels */
} Level;

int
nesting_check(Interp *in, PyObject *res)
{
    long long max = budget_max_nesting(in);
    if (!budget_limited(max) || !unprotected(in_st(in), res)) {
        return 0;
    }
    if (max > NEST_SMALL_DEPTH) {
        /* most results that are walked at all (a bound method, an
           enumerate or zip over lists, a generator...) are small and
           shallow: measured without allocating (same walk, same depth,
           same visits charged); anything bigger takes the full walk */
        SmallWalk w;
        w.st = in_st(in);
        w.cache = in_budget(in)->nest_cache;
        w.nseen = 0;
        w.level = 0;
        w.best = 0;
        long long depth;
        if (small_enter(&w, res, &depth) == 0) {
            limits_ops_spend(in, w.nseen);
            return 0;
        }
    }
    int rc = -1;
    PyObject *memo = NULL; /* id -> depth of the subtree (levels) */
    Level *levels = NULL;
    Py_ssize_t n = 0, cap = 64;
    long long visits = 0;
    PyObject *too_deep = NULL; /* borrowed: the object that was too deep */
    long long root_depth = -1;
    memo = PyDict_New();
    levels = PyMem_Malloc(sizeof(Level) * (size_t)cap);
    if (memo == NULL || levels == NULL) {
        if (levels == NULL) {
            PyErr_SetString(PyExc_MemoryError,
                            "out of memory measuring the nesting depth of a "
                            "call result");
        }
        goto done;
    }
    PyObject *obj = res;
    for (;;) {
        /* enter obj: a new level */
        if (n >= max) {
            too_deep = res;
            break;
        }
        if (n == cap) {
            Level *grown = PyMem_Realloc(levels, sizeof(Level) * (size_t)cap * 2);
            if (grown == NULL) {
                PyErr_SetString(PyExc_MemoryError,
                                "out of memory measuring the nesting depth "
                                "of a call result");
                goto done;
            }
            levels = grown;
            cap *= 2;
        }
        KidsCtx k = {in_st(in), PyList_New(0)};
        if (k.kids == NULL) {
            goto done;
        }
        traverseproc trav = Py_TYPE(obj)->tp_traverse;
        if (trav != NULL && trav(obj, collect_kid, &k) != 0) {
            Py_DECREF(k.kids);
            goto done;
        }
        visits++;
        /* on the path: a cycle back to it counts nothing more */
        PyObject *pkey = PyLong_FromVoidPtr(obj);
        PyObject *zero = PyLong_FromLong(0);
        int perr = pkey == NULL || zero == NULL ||
                   PyDict_SetItem(memo, pkey, zero) < 0;
        Py_XDECREF(pkey);
        Py_XDECREF(zero);
        if (perr) {
            Py_DECREF(k.kids);
            goto done;
        }
        levels[n].obj = obj;
        levels[n].kids = k.kids;
        levels[n].next = 0;
        levels[n].deepest = 0;
        n++;
        /* find the next kid to enter, finishing levels as they run out */
        obj = NULL;
        while (n > 0 && obj == NULL) {
            Level *lv = &levels[n - 1];
            if (lv->next < PyList_GET_SIZE(lv->kids)) {
                PyObject *kid = PyList_GET_ITEM(lv->kids, lv->next++);
                long long cached;
                if (cache_find(in_budget(in)->nest_cache, kid, &cached)) {
                    if (cached > lv->deepest) {
                        lv->deepest = cached;
                    }
                    continue;
                }
                PyObject *key = PyLong_FromVoidPtr(kid);
                if (key == NULL) {
                    goto done;
                }
                PyObject *known = PyDict_GetItemWithError(memo, key);
                Py_DECREF(key);
                if (known != NULL) {
                    long long d = PyLong_AsLongLong(known);
                    if (d > lv->deepest) {
                        lv->deepest = d;
                    }
                    continue;
                }
                if (PyErr_Occurred()) {
                    goto done;
                }
                obj = kid;
                break;
            }
            /* level done: its depth is 1 + its deepest kid */
            long long depth = lv->deepest + 1;
            if (depth > max) {
                too_deep = res;
                goto measured;
            }
            PyObject *key = PyLong_FromVoidPtr(lv->obj);
            PyObject *val = PyLong_FromLongLong(depth);
            int err = key == NULL || val == NULL ||
                      PyDict_SetItem(memo, key, val) < 0;
            Py_XDECREF(key);
            Py_XDECREF(val);
            Py_DECREF(lv->kids);
            n--;
            if (err) {
                goto done;
            }
            if (n > 0 && depth > levels[n - 1].deepest) {
                levels[n - 1].deepest = depth;
            }
            if (n == 0) {
                root_depth = depth;
            }
        }
        if (obj == NULL) {
            break; /* the whole walk is done */
        }
    }
measured:
    if (too_deep != NULL) {
        limits_abort(in, ABORT_BUDGET, budget_message(BUDGET_ID_max_nesting),
                     max, Py_TYPE(too_deep)->tp_name);
        goto done;
    }
    if (root_depth >= NEST_CACHE_FROM) {
        cache_add(in, res, root_depth);
    }
    rc = 0;
done:
    /* security: the walk is work the step asked for */
    limits_ops_spend(in, visits);
    while (n > 0) {
        Py_DECREF(levels[--n].kids);
    }
    PyMem_Free(levels);
    Py_XDECREF(memo);
    return rc;
}

int
nesting_init(ModState *st)
{
    /* the deallocator of classes defined in Python (CPython's
       subtype_dealloc, which has the trashcan) */
    PyObject *cls = PyObject_CallFunction((PyObject *)&PyType_Type, "s()N",
                                          "_nesting_probe", PyDict_New());
    if (cls == NULL) {
        return -1;
    }
    st->subtype_dealloc = ((PyTypeObject *)cls)->tp_dealloc;
    Py_DECREF(cls);
    return 0;
}
