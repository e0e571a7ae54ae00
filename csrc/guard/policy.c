/* policy.c: what interpreted code may reach (docs/security.md).
 *
 * 1. Imports: smolagents' rules (check_import_authorized: an entry "a.b"
 *    also authorizes its parent "a", "pkg.*" authorizes pkg and everything
 *    below it, "*" everything), with smolagents' refusal messages.  A parent
 *    authorized only through a dotted entry is a *namespace*: its only
 *    readable attributes are the authorized submodules below it.
 * 2. One attribute choke point (policy_check_attr_name): every attribute
 *    read, write and delete made on behalf of interpreted code passes here
 *    with the exact name (a str subclass is copied to an exact str first):
 *    dunders are refused except a short allowlist, module privates are
 *    refused, names that lead to interpreter internals are refused even
 *    without underscores, and the object itself is checked (unauthorized
 *    modules, classes and objects shared with the host are read-only).
 *    str.format / str.format_map field names ("{0.__class__}") are checked
 *    when the bound method is made, and formats that traverse attributes run
 *    through the same choke point.
 * 3. Value gates (policy_check_value): frames, tracebacks, code objects,
 *    unauthorized modules, module namespaces (globals dicts), the dangerous
 *    builtins and host functions, synchronization primitives (which could
 *    block past the deadline) and the interpreter's own objects never enter
 *    interpreted code as values.
 * 4. Call gate (policy_check_call): dangerous callables are refused when
 *    called, however they were reached (unless the host gave them as tools).
 * 5. Host calls (policy_prepare_call): blocking calls are bounded by the
 *    deadline (time.sleep, queue waits), memory/time-heavy builtins are
 *    pre-checked against the size budgets, and C loops that consume
 *    iterators (sum, list, "".join, itertools...) check the deadline.
 *
 * Refusals raise the interpreter error and abort the step (uncatchable).
 * tests/security/ attacks all of this.
 */
#include "guard.h"
#include "tripwire.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ policy data */

/* What a callable is to the policy (looked up by identity, see key_of). */
typedef enum {
    PK_NONE = 0,
    /* blocking calls, bounded by the deadline */
    PK_SLEEP,
    PK_QUEUE_GET,  /* queue.Queue.get(block=True, timeout=None) */
    PK_QUEUE_PUT,  /* queue.Queue.put(item, block=True, timeout=None) */
    PK_QUEUE_JOIN, /* queue.Queue.join() */
    PK_SQUEUE_GET, /* queue.SimpleQueue.get(block=True, timeout=None) */
    /* str.format and str.format_map (bound to a str, or the descriptor) */
    PK_FORMAT,
    PK_FORMAT_MAP,
    /* size pre-checks */
    PK_POW,
    PK_BYTES,   /* bytes(n), bytearray(n); else an iterable consumer */
    PK_STR_PAD, /* str.ljust/rjust/center/zfill(width) */
    PK_STR_EXPANDTABS,
    PK_STR_REPLACE,
    PK_STR_TRANSLATE,
    PK_FACTORIAL,
    PK_COMB,
    PK_PERM,
    PK_GETRANDBITS,
    PK_RANDBYTES,
    /* consumers of iterables: which positional arguments are iterated, and
       whether the result holds every item (MAT: item-count budget) */
    PK_MAT_FIRST,  /* list(it), tuple, sorted, cycle, permutations, ... */
    PK_MAT_HASHED, /* set(it), frozenset, dict.fromkeys: bigger items */
    PK_MAT_ALL,    /* itertools.product(*its), set.update(*its) */
    PK_MAT_DICT,   /* dict(it), Counter(it): only iterators (a mapping is
                       not iterated) */
    PK_SEQ_EXTEND, /* list.extend(it), deque.extend, bytearray.extend */
    PK_JOIN,       /* sep.join(it): items and total length */
    PK_DEQUE,      /* deque(it[, maxlen]) */
    PK_SUM,        /* sum(it[, start]): a list start concatenates */
    PK_RED_FIRST,  /* any, all, enumerate, islice, ... */
    PK_RED_ALL,    /* zip(*its), chain, zip_longest, compress */
    PK_RED_REST,   /* map(f, *its), filter(f, it), starmap, dropwhile, ... */
    PK_MINMAX,     /* min(it) / max(it): only with one positional argument */
    PK_FORMAT_BUILTIN, /* format(value, spec): the spec's width */
    PK_CHOICES,        /* random.choices(..., k=n) */
    PK_PRODUCT,        /* itertools.product(*its, repeat=n) */
    PK_ACCUMULATE,     /* itertools.accumulate(it, func): func must not be a
                       host type (it would nest its outputs without bound) */
    PK_TO_BYTES,       /* int.to_bytes(length, ...): the length */
    PK_PROD,           /* math.prod(it): the bits of its int items */
} PolicyKind;

#define PTAB_SIZE 512 /* power of two, well above the number of entries */
/* distinct types among the dangerous objects (value_verdict_by_type reads
 * them all; init fails rather than leave one out) */
#define DANGEROUS_TYPES_MAX 16

typedef struct {
    uintptr_t key;
    int kind;
} PEntry;

typedef struct PolicyData {
    ModState *st;          /* the module state whose `policy` this is */
    PyObject *refs;        /* list: owns every object referenced below */
    PEntry tab[PTAB_SIZE]; /* callable identity -> PolicyKind */
    /* addresses of dangerous objects: an open-addressed set of dmask + 1
       slots (a power of two, at least 4 per entry: every probe sequence
       meets an empty slot), 0 for empty */
    uintptr_t *dangerous;
    size_t dmask;
    Py_ssize_t ndangerous;
    PyTypeObject *dangerous_types[DANGEROUS_TYPES_MAX];
    int ndangerous_types;
    PyObject *sync_types;     /* tuple of types refused as values */
    PyObject *internal_names; /* frozenset: refused attribute names */
    PyObject *dunder_allow;   /* frozenset: dunders that may be read */
    PyObject *formatter_parser, *field_name_split; /* _string functions */
    PyObject *queue_empty, *queue_full;
    PyObject *s_format, *s_format_map, *s_obj, *s_init, *s_module, *s_main,
        *s_builtins, *s_name, *s_all, *s_unfinished, *s_all_tasks_done,
        *s_wait, *s_enter, *s_exit, *s_block, *s_timeout, *s_tab, *s_lbrace;
    PyTypeObject *budget_iter_type;
    /* policy_check_value's verdict by type: types whose every instance
       passes (no check looks at the value), and types whose instances
       always need the full check (by_value); keyed by the type's version
       tag, so a change of bases drops the entry; emptied when gadgets.c
       learns a new gadget type (inert_gadgets) */
    struct {
        PyTypeObject *tp; /* identity only */
        unsigned int tag;
        int by_value; /* 1: the verdict depends on the value (check it) */
    } inert[64];
    int inert_gadgets;
#if COMPAT_HAS_DICT_TAG
    /* is_namespace_dict's "no" by dict state: the version tags of exact
       dicts found not to be a namespace, in sets of two by address, valid
       while the interpreter's module table (ns_modules, whose entries the
       check consults) keeps the tag ns_modules_tag (0: empty).  A tag
       names one dict in one state (compat_dict_state_tag; a dict without
       such a tag is checked every time): a changed dict, or another dict
       at a reused address, misses.  With two ways per set,
       sort_key_lambda's checks of its 5,000 records (in the
       orders its sorts produce) miss 34% of the time, against 60%
       direct-mapped; each record's first check, 14%, always misses. */
#define NS_CLEAR_SLOTS 8192
    uint64_t ns_clear[NS_CLEAR_SLOTS];
    uint64_t ns_modules_tag;
    unsigned int ns_victim;
    PyObject *ns_modules; /* PyImport_GetModuleDict() at init (in refs) */
#endif
} PolicyData;

static int check_value_full(Interp *in, PolicyData *pd, PyObject *v);

static int value_verdict_by_type(PolicyData *pd, PyTypeObject *tp);

static PolicyData *
pdata(Interp *in)
{
    return in_st(in)->policy;
}

static uintptr_t
fnkey(PyCFunction fn)
{
    return (uintptr_t)(void (*)(void))fn;
}

static size_t
ptab_slot(uintptr_t key)
{
    return (size_t)((key >> 4) ^ (key >> 13)) & (PTAB_SIZE - 1);
}

static void
ptab_add(PolicyData *pd, uintptr_t key, int kind)
{
    if (key == 0) {
        return;
    }
    for (size_t i = ptab_slot(key), n = 0; n < PTAB_SIZE;
         i = (i + 1) & (PTAB_SIZE - 1), n++) {
        if (pd->tab[i].key == 0 || pd->tab[i].key == key) {
            pd->tab[i].key = key;
            pd->tab[i].kind = kind;
            return;
        }
    }
}

static int
ptab_get(PolicyData *pd, uintptr_t key)
{
    for (size_t i = ptab_slot(key);; i = (i + 1) & (PTAB_SIZE - 1)) {
        if (pd->tab[i].key == key) {
            return pd->tab[i].kind;
        }
        if (pd->tab[i].key == 0) {
            return PK_NONE;
        }
    }
}

/* The identity under which a callable is known to the policy: the C
 * function of a builtin (so that every bound method of str.join, say, has
 * the same key), the function of a bound method, else the object.  Sets
 * *self to the object a method is bound to (NULL for plain functions and
 * descriptors).  Borrowed. */
static uintptr_t
key_of(PyObject *f, PyObject **self)
{
    PyTypeObject *tp = Py_TYPE(f);
    *self = NULL;
    if (tp == &PyCFunction_Type || tp == &PyCMethod_Type) {
        PyObject *s = PyCFunction_GET_SELF(f);
        if (s != NULL && !PyModule_Check(s)) {
            *self = s;
        }
        return fnkey(PyCFunction_GET_FUNCTION(f));
    }
    if (tp == &PyMethodDescr_Type) {
        return fnkey(((PyMethodDescrObject *)f)->d_method->ml_meth);
    }
    if (tp == &PyMethod_Type) {
        *self = PyMethod_GET_SELF(f);
        return (uintptr_t)PyMethod_GET_FUNCTION(f);
    }
    return (uintptr_t)f;
}

static int
kind_of(PolicyData *pd, PyObject *f, PyObject **self)
{
    return ptab_get(pd, key_of(f, self));
}

/* ------------------------------------------------------------ helpers */

/* Exact equality of two str objects (canonical PEP 393 forms). */
static int
str_eq(PyObject *a, PyObject *b)
{
    if (a == b) {
        return 1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    if (n != PyUnicode_GET_LENGTH(b) ||
        PyUnicode_KIND(a) != PyUnicode_KIND(b)) {
        return 0;
    }
    return memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b),
                  (size_t)n * PyUnicode_KIND(a)) == 0;
}

static int
str_eq_ascii(PyObject *a, const char *s)
{
    return PyUnicode_CompareWithASCIIString(a, s) == 0;
}

/* 1 if a[0:n] == b[0:n] (both long enough). */
static int
str_head_eq(PyObject *a, PyObject *b, Py_ssize_t n)
{
    if (PyUnicode_GET_LENGTH(a) < n || PyUnicode_GET_LENGTH(b) < n) {
        return 0;
    }
    int ka = PyUnicode_KIND(a), kb = PyUnicode_KIND(b);
    const void *da = PyUnicode_DATA(a), *db = PyUnicode_DATA(b);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyUnicode_READ(ka, da, i) != PyUnicode_READ(kb, db, i)) {
            return 0;
        }
    }
    return 1;
}

/* The dotted name `s` starts with the dotted name p[0:plen], part-wise:
 * s == p[:plen] or s starts with p[:plen] + ".". */
static int
parts_prefix(PyObject *s, PyObject *p, Py_ssize_t plen)
{
    Py_ssize_t sl = PyUnicode_GET_LENGTH(s);
    if (sl < plen || !str_head_eq(s, p, plen)) {
        return 0;
    }
    return sl == plen || PyUnicode_READ_CHAR(s, plen) == '.';
}

/* Index of the first part of the dotted name `e` that is exactly "*", as a
 * character offset, or -1. */
static Py_ssize_t
first_star_part(PyObject *e)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(e);
    for (Py_ssize_t j = 0; j < n; j++) {
        if (PyUnicode_READ_CHAR(e, j) == '*' &&
            (j == 0 || PyUnicode_READ_CHAR(e, j - 1) == '.') &&
            (j + 1 == n || PyUnicode_READ_CHAR(e, j + 1) == '.')) {
            return j;
        }
    }
    return -1;
}

/* smolagents' check_import_authorized (a tree of the entries' parts; a "*"
 * node authorizes everything below it; every node on an entry's path is
 * authorized): 1 / 0. */
static int
smol_authorized(PyObject *authorized, PyObject *name)
{
    if (authorized == NULL) {
        return 0;
    }
    Py_ssize_t nl = PyUnicode_GET_LENGTH(name);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(authorized); i++) {
        PyObject *e = PyList_GET_ITEM(authorized, i);
        if (!PyUnicode_Check(e)) {
            continue;
        }
        if (str_eq(e, name) || parts_prefix(e, name, nl)) {
            return 1; /* the entry, or a parent of it */
        }
        Py_ssize_t j = first_star_part(e);
        if (j == 0) {
            return 1;
        }
        if (j > 0 && nl > j - 1 && parts_prefix(name, e, j - 1)) {
            return 1; /* below a "pkg.*" */
        }
    }
    return 0;
}

/* Strict authorization: the entry itself, or below a "pkg.*" / "*" entry
 * (not a mere parent of an entry).  1 / 0. */
static int
strict_authorized(PyObject *authorized, PyObject *name)
{
    if (authorized == NULL) {
        return 0;
    }
    Py_ssize_t n = PyList_GET_SIZE(authorized);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyList_GET_ITEM(authorized, i) == name) {
            return 1; /* interned names: the common case */
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyList_GET_ITEM(authorized, i);
        if (!PyUnicode_Check(e)) {
            continue;
        }
        if (str_eq(e, name)) {
            return 1;
        }
        Py_ssize_t j = first_star_part(e);
        if (j == 0 || (j > 0 && parts_prefix(name, e, j - 1))) {
            return 1;
        }
    }
    return 0;
}

/* Wholesale authorization: below a "pkg.*" entry (pkg included) or "*".
 * 1 / 0. */
static int
star_authorized(PyObject *authorized, PyObject *name)
{
    for (Py_ssize_t i = 0; authorized && i < PyList_GET_SIZE(authorized);
         i++) {
        PyObject *e = PyList_GET_ITEM(authorized, i);
        if (!PyUnicode_Check(e)) {
            continue;
        }
        Py_ssize_t j = first_star_part(e);
        if (j == 0 || (j > 0 && parts_prefix(name, e, j - 1))) {
            return 1;
        }
    }
    return 0;
}

typedef enum { MOD_DENIED = 0, MOD_FULL, MOD_PARENT } ModStatus;

/* How module `m` may be used.  Sets *pname to a new reference to its name
 * (or NULL).  Never raises. */
static ModStatus
module_status(Interp *in, PyObject *m, PyObject **pname)
{
    *pname = NULL;
    PyObject *name = PyModule_GetNameObject(m);
    if (name == NULL || !PyUnicode_Check(name)) {
        PyErr_Clear();
        Py_XDECREF(name);
        return MOD_DENIED;
    }
    *pname = name;
    if (strict_authorized(in_guard(in)->authorized, name)) {
        return MOD_FULL;
    }
    /* a module known under an authorized name it does not carry
       (os.path is posixpath) */
    for (Py_ssize_t i = 0;
         in_guard(in)->authorized && i < PyList_GET_SIZE(in_guard(in)->authorized); i++) {
        PyObject *e = PyList_GET_ITEM(in_guard(in)->authorized, i);
        if (!PyUnicode_Check(e) || first_star_part(e) >= 0) {
            continue;
        }
        PyObject *mm = PyImport_GetModule(e);
        if (mm == NULL) {
            PyErr_Clear();
            continue;
        }
        Py_DECREF(mm);
        if (mm == m) {
            return MOD_FULL;
        }
    }
    if (smol_authorized(in_guard(in)->authorized, name)) {
        return MOD_PARENT;
    }
    return MOD_DENIED;
}

/* Is `v` one of the tools the host gave (by identity)? */
static int
is_tool(Interp *in, PyObject *v)
{
    if (Py_IS_TYPE(v, in_st(in)->ProxyType)) {
        return 1; /* the code's handle on a tool (proxy.c) */
    }
    if (in_guard(in)->tools == NULL) {
        return 0;
    }
    if (in_guard(in)->ntool_objs >= 0) {
        for (Py_ssize_t i = 0; i < in_guard(in)->ntool_objs; i++) {
            if (in_guard(in)->tool_objs[i] == v) {
                return 1;
            }
        }
        return 0;
    }
    PyObject *k, *t;
    Py_ssize_t pos = 0;
    while (PyDict_Next(in_guard(in)->tools, &pos, &k, &t)) {
        if (t == v) {
            return 1;
        }
    }
    return 0;
}

static inline size_t
dset_slot(uintptr_t key, size_t mask)
{
    return (size_t)((key >> 4) ^ (key >> 13)) & mask;
}

static int
is_dangerous(PolicyData *pd, PyObject *v)
{
    uintptr_t key = (uintptr_t)v;
    for (size_t i = dset_slot(key, pd->dmask);; i = (i + 1) & pd->dmask) {
        uintptr_t k = pd->dangerous[i];
        if (k == key) {
            return 1;
        }
        if (k == 0) {
            break;
        }
    }
    /* the entry frame's __import__ (tripwire.c) */
    return PyCFunction_Check(v) && tripwire_is_entry_import(v);
}

/* A printable name for a callable (new reference; never NULL unless out of
 * memory). */
static PyObject *
callable_name(PyObject *v)
{
    PyObject *nm = PyObject_GetAttrString(v, "__name__");
    if (nm == NULL) {
        PyErr_Clear();
    }
    if (nm == NULL || !PyUnicode_Check(nm)) {
        Py_XDECREF(nm);
        nm = PyUnicode_FromString(Py_TYPE(v)->tp_name);
    }
    return nm;
}

/* Dicts of at most this many entries are scanned before they are looked
 * up (is_namespace_dict). */
#define NS_SCAN_MAX 8

static int is_namespace_dict_check(PolicyData *pd, PyObject *d);

/* Is the dict `d` some module's namespace (its globals)?  A dict of at
 * most NS_SCAN_MAX entries is scanned first (no code runs); a larger one,
 * or one the scan cannot clear, is looked up, which can call a key's
 * __eq__ (a key whose hash is that of "__builtins__").  The "no" is
 * remembered for the dict's state (PolicyData.ns_clear, per interpreter as
 * the module's state is): the tag is read before the check, so a change
 * made during it gives the dict a new tag. */
static int
is_namespace_dict(PolicyData *pd, PyObject *d)
{
#if COMPAT_HAS_DICT_TAG
    uint64_t tag = PyDict_CheckExact(d) ? compat_dict_state_tag(d) : 0;
    uint64_t *set =
        &pd->ns_clear[(((uintptr_t)d >> 6) & (NS_CLEAR_SLOTS / 2 - 1)) * 2];
    uint64_t mtag =
        pd->ns_modules != NULL ? compat_dict_version_tag(pd->ns_modules) : 0;
    if (tag != 0 && (set[0] == tag || set[1] == tag) &&
        pd->ns_modules_tag == mtag) {
        return 0;
    }
    int r = is_namespace_dict_check(pd, d);
    if (r == 0 && tag != 0 && mtag != 0) {
        if (pd->ns_modules_tag != mtag) {
            memset(pd->ns_clear, 0, sizeof(pd->ns_clear));
            pd->ns_modules_tag = mtag;
        }
        /* the empty way, else either (a loop over more records than fit
           keeps most of them rather than losing all to a fixed order) */
        set[set[0] == 0 ? 0 : set[1] == 0 ? 1 : (pd->ns_victim++ & 1)] = tag;
    }
    return r;
#else
    return is_namespace_dict_check(pd, d);
#endif
}

static int
is_namespace_dict_check(PolicyData *pd, PyObject *d)
{
    if (PyDict_GET_SIZE(d) <= NS_SCAN_MAX) {
        /* most dicts the code handles are small records: a scan of their
           keys (no code runs) shows that neither key looked up below can
           be there; any str key as long as either one, starting with '_',
           takes the lookups */
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        int maybe = 0;
        while (PyDict_Next(d, &pos, &k, &v)) {
            if (PyUnicode_Check(k)) {
                Py_ssize_t n = PyUnicode_GET_LENGTH(k);
                if ((n == 8 || n == 12) && PyUnicode_READ_CHAR(k, 0) == '_') {
                    maybe = 1;
                    break;
                }
            }
        }
        if (!maybe) {
            return 0;
        }
    }
    PyObject *v = PyDict_GetItemWithError(d, pd->s_builtins);
    if (v != NULL) {
        return 1; /* code ran with this dict as globals */
    }
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 1;
    }
    PyObject *nm = PyDict_GetItemWithError(d, pd->s_name);
    if (nm == NULL) {
        if (PyErr_Occurred()) {
            PyErr_Clear();
        }
        return 0;
    }
    if (!PyUnicode_Check(nm)) {
        return 0;
    }
    PyObject *m = PyImport_GetModule(nm);
    if (m == NULL) {
        PyErr_Clear();
        return 0;
    }
    int r = PyModule_Check(m) && PyModule_GetDict(m) == d;
    Py_DECREF(m);
    return r;
}

/* ------------------------------------------------- attribute choke point */

static int
is_dunder(PyObject *name)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    return n >= 4 && PyUnicode_READ_CHAR(name, 0) == '_' &&
           PyUnicode_READ_CHAR(name, 1) == '_' &&
           PyUnicode_READ_CHAR(name, n - 1) == '_' &&
           PyUnicode_READ_CHAR(name, n - 2) == '_';
}

static int
set_has(PyObject *set, PyObject *name)
{
    int r = PySet_Contains(set, name);
    if (r < 0) {
        PyErr_Clear();
        return 0;
    }
    return r;
}

int
policy_check_attr_name(Interp *in, PyObject *obj, PyObject *name, int store)
{
    PolicyData *pd = pdata(in);
    if (!PyUnicode_CheckExact(name)) {
        PyErr_SetString(PyExc_TypeError, "attribute name must be string");
        return -1;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    Py_UCS4 c0 = n ? PyUnicode_READ_CHAR(name, 0) : 0;
    /* 1. the name alone */
    if (c0 == '_' && is_dunder(name)) {
        if (store || (!set_has(pd->dunder_allow, name) &&
                      !dunder_read_allowed(in, obj, name) &&
                      !provenance_super_init_subclass(obj, name))) {
            raise_interp_error(in, "Forbidden access to dunder attribute: %U",
                               name);
            return -1;
        }
        if (obj != NULL && str_eq(name, pd->s_init) &&
            (module_check_fast(obj) || is_tool(in, obj))) {
            /* module.__init__ renames a module shared with the host */
            raise_interp_error(in, "Forbidden access to dunder attribute: %U",
                               name);
            return -1;
        }
    }
    else if (c0 == 'c' && n > 3 && PyUnicode_READ_CHAR(name, 1) == 'o' &&
             PyUnicode_READ_CHAR(name, 2) == '_') {
        raise_interp_error(in, "Forbidden access to internal attribute: %U",
                           name);
        return -1;
    }
    else if (set_has(pd->internal_names, name)) {
        raise_interp_error(in, "Forbidden access to internal attribute: %U",
                           name);
        return -1;
    }
    if (obj == NULL) {
        return 0;
    }
    return policy_check_attr_object(in, obj, name, store);
}

/* Parts 2 and 3 of policy_check_attr_name: what the object decides, for a
 * name part 1 let through. */
int
policy_check_attr_object(Interp *in, PyObject *obj, PyObject *name,
                         int store)
{
    PolicyData *pd = pdata(in);
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    Py_UCS4 c0 = n ? PyUnicode_READ_CHAR(name, 0) : 0;
    /* 2. the object */
    PyTypeObject *tp = Py_TYPE(obj);
    if (module_check_fast(obj)) {
        PyObject *mname = NULL;
        ModStatus ms = module_status(in, obj, &mname);
        int r = 0;
        if (ms == MOD_DENIED) {
            raise_interp_error(in, "Forbidden access to module: %S",
                               mname ? mname : Py_None);
            r = -1;
        }
        else if (c0 == '_' && !is_dunder(name) &&
                 !(store == 0 && tripwire_kernel_bounded && mname != NULL &&
                   star_authorized(in_guard(in)->authorized, mname))) {
            /* (in a process-mode worker, whose kernel is the boundary, a
               private name is read from a module the host authorized
               wholesale, "pkg.*" or "*": the checks below still apply; a
               module it holds is a module, gated as any other.  In the
               host's process never: private names reach process-wide
               tables, random._inst, copy._deepcopy_dispatch...)
               smolagents names the module when a private attribute is one
               (`random._os`): peek, without handing anything out */
            PyObject *v = store ? NULL : PyObject_GetAttr(obj, name);
            PyObject *vname = v != NULL && PyModule_Check(v)
                                  ? PyModule_GetNameObject(v)
                                  : NULL;
            PyErr_Clear();
            if (vname != NULL) {
                raise_interp_error(in, "Forbidden access to module: %U",
                                   vname);
            }
            else {
                raise_interp_error(
                    in, "Forbidden access to private module attribute: %U",
                    name);
            }
            Py_XDECREF(vname);
            Py_XDECREF(v);
            r = -1;
        }
        else if (store) {
            /* no monkey-patching of modules shared with the host */
            raise_interp_error(
                in,
                store > 0 ? "Forbidden assignment to module attribute: %U"
                          : "Forbidden deletion of module attribute: %U",
                name);
            r = -1;
        }
        else if (inprocess_check_module_attr(in, mname, name) < 0) {
            /* withheld in the host's process (inprocess.def) */
            r = -1;
        }
        else if (ms == MOD_PARENT && !is_dunder(name)) {
            PyObject *full = PyUnicode_FromFormat("%U.%U", mname, name);
            if (full == NULL) {
                r = -1;
            }
            else if (!smol_authorized(in_guard(in)->authorized, full)) {
                raise_interp_error(
                    in,
                    "Forbidden access to %U: module %U is only "
                    "authorized as the parent of authorized imports",
                    full, mname);
                r = -1;
            }
            Py_XDECREF(full);
        }
        Py_XDECREF(mname);
        return r;
    }
    if (tp == &PyFrame_Type || tp == &PyTraceBack_Type || tp == &PyCode_Type) {
        raise_interp_error(
            in, "Forbidden access to internal object of type %s", tp->tp_name);
        return -1;
    }
    if (!store && str_eq(name, pd->s_obj) &&
        (PyObject_TypeCheck(obj, (PyTypeObject *)PyExc_AttributeError) ||
         PyMemoryView_Check(obj))) {
        /* AttributeError.obj / memoryview.obj: whatever host object the
           error or the buffer came from */
        raise_interp_error(in, "Forbidden access to internal attribute: %U",
                           name);
        return -1;
    }
    if (store) {
        if (is_tool(in, obj)) {
            raise_interp_error(in,
                               "Forbidden %s of an attribute of a tool: %U",
                               store > 0 ? "assignment" : "deletion", name);
            return -1;
        }
    }
    /* 3. objects and classes the code did not create (provenance.c): only
       `_private` names and writes concern it (its own first test) */
    if (c0 != '_' && !store) {
        return 0;
    }
    return provenance_check_attr(in, obj, name, store);
}

/* --------------------------------------------------- str.format checking */

/* Check the attribute names a format string would traverse ("{0.a.b}"),
 * nested format specs included, and tell whether there is any.  Stops
 * quietly at a malformed part: str.format fails there too, before
 * rendering anything after it.  0 / -1. */
static int
scan_format(Interp *in, PyObject *fmt, int depth, int *has_attr)
{
    PolicyData *pd = pdata(in);
    Py_ssize_t n = PyUnicode_GET_LENGTH(fmt);
    /* an attribute step needs a '.' inside a '{...}' field */
    if (depth <= 0 || PyUnicode_FindChar(fmt, '{', 0, n, 1) < 0 ||
        PyUnicode_FindChar(fmt, '.', 0, n, 1) < 0) {
        return 0;
    }
    PyObject *it = NULL, *item = NULL;
    PyObject *p = PyObject_CallOneArg(pd->formatter_parser, fmt);
    if (p != NULL) {
        it = PyObject_GetIter(p);
        Py_DECREF(p);
    }
    if (it == NULL) {
        goto malformed;
    }
    while ((item = PyIter_Next(it)) != NULL) {
        PyObject *field = PyTuple_GET_ITEM(item, 1);
        PyObject *spec = PyTuple_GET_ITEM(item, 2);
        if (field != Py_None) {
            PyObject *split = PyObject_CallOneArg(pd->field_name_split, field);
            PyObject *rest =
                split ? PyObject_GetIter(PyTuple_GET_ITEM(split, 1)) : NULL;
            Py_XDECREF(split);
            if (rest == NULL) {
                goto malformed;
            }
            PyObject *step;
            while ((step = PyIter_Next(rest)) != NULL) {
                if (PyTuple_GET_ITEM(step, 0) == Py_True) {
                    *has_attr = 1;
                    if (policy_check_attr_name(
                            in, NULL, PyTuple_GET_ITEM(step, 1), 0) < 0) {
                        Py_DECREF(step);
                        Py_DECREF(rest);
                        Py_DECREF(item);
                        Py_DECREF(it);
                        return -1;
                    }
                }
                Py_DECREF(step);
            }
            Py_DECREF(rest);
            if (PyErr_Occurred()) {
                goto malformed;
            }
        }
        if (spec != Py_None && PyUnicode_Check(spec) &&
            scan_format(in, spec, depth - 1, has_attr) < 0) {
            Py_DECREF(item);
            Py_DECREF(it);
            return -1;
        }
        Py_CLEAR(item);
    }
    if (PyErr_Occurred()) {
        goto malformed;
    }
    Py_DECREF(it);
    return 0;
malformed:
    Py_XDECREF(item);
    Py_XDECREF(it);
    if (in_budget(in)->abort != ABORT_NONE) {
        return -1;
    }
    PyErr_Clear();
    return 0;
}

typedef struct {
    Py_ssize_t next; /* next automatic field number */
    int state;       /* 0 not decided, 1 automatic, 2 manual */
} AutoNumber;

/* str.format / str.format_map for formats that traverse attributes: the
 * same rendering as CPython's (the same parser, the same errors), with every
 * attribute step through policy_getattr.  `args` is NULL for format_map,
 * `kw` the keyword dict or the mapping (or NULL).  Appends to `out`. */
static int
render_format(Interp *in, PyObject *fmt, PyObject *args, PyObject *kw,
              int depth, AutoNumber *an, PyObject *out)
{
    PolicyData *pd = pdata(in);
    if (depth <= 0) {
        PyErr_SetString(PyExc_ValueError, "Max string recursion exceeded");
        return -1;
    }
    PyObject *p = PyObject_CallOneArg(pd->formatter_parser, fmt);
    PyObject *it = p ? PyObject_GetIter(p) : NULL;
    Py_XDECREF(p);
    if (it == NULL) {
        return -1;
    }
    PyObject *item;
    int rc = 0;
    while (rc == 0 && (item = PyIter_Next(it)) != NULL) {
        PyObject *literal = PyTuple_GET_ITEM(item, 0);
        PyObject *field = PyTuple_GET_ITEM(item, 1);
        PyObject *spec = PyTuple_GET_ITEM(item, 2);
        PyObject *conv = PyTuple_GET_ITEM(item, 3);
        PyObject *obj = NULL, *split = NULL, *rest = NULL, *fspec = NULL,
                 *s = NULL;
        rc = -1;
        if (PyUnicode_GET_LENGTH(literal) && PyList_Append(out, literal) < 0) {
            goto next;
        }
        if (field == Py_None) {
            rc = 0;
            goto next;
        }
        split = PyObject_CallOneArg(pd->field_name_split, field);
        if (split == NULL) {
            goto next;
        }
        PyObject *first = PyTuple_GET_ITEM(split, 0);
        int empty = PyUnicode_Check(first) && PyUnicode_GET_LENGTH(first) == 0;
        int numeric = empty || PyLong_Check(first);
        if (numeric) {
            if (an->state == 0) {
                an->state = empty ? 1 : 2;
            }
            if (an->state == 2 && empty) {
                PyErr_SetString(
                    PyExc_ValueError,
                    "cannot switch from manual field specification to "
                    "automatic field numbering");
                goto next;
            }
            if (an->state == 1 && !empty) {
                PyErr_SetString(
                    PyExc_ValueError,
                    "cannot switch from automatic field numbering to "
                    "manual field specification");
                goto next;
            }
        }
        if (!numeric) {
            if (kw == NULL) {
                PyErr_SetObject(PyExc_KeyError, first);
                goto next;
            }
            obj = PyObject_GetItem(kw, first);
        }
        else {
            Py_ssize_t idx = empty ? an->next++ : PyLong_AsSsize_t(first);
            if (idx == -1 && PyErr_Occurred()) {
                goto next;
            }
            if (args == NULL) {
                PyErr_SetString(PyExc_ValueError,
                                "Format string contains positional fields");
                goto next;
            }
            if (idx < 0 || idx >= PyTuple_GET_SIZE(args)) {
                PyErr_Format(
                    PyExc_IndexError,
                    "Replacement index %zd out of range for positional "
                    "args tuple",
                    idx);
                goto next;
            }
            obj = Py_NewRef(PyTuple_GET_ITEM(args, idx));
        }
        if (obj == NULL) {
            goto next;
        }
        rest = PyObject_GetIter(PyTuple_GET_ITEM(split, 1));
        if (rest == NULL) {
            goto next;
        }
        PyObject *step;
        while ((step = PyIter_Next(rest)) != NULL) {
            PyObject *key = PyTuple_GET_ITEM(step, 1);
            PyObject *nobj = PyTuple_GET_ITEM(step, 0) == Py_True
                                 ? policy_getattr(in, obj, key)
                                 : PyObject_GetItem(obj, key);
            Py_DECREF(step);
            Py_SETREF(obj, nobj);
            if (obj == NULL) {
                goto next;
            }
        }
        if (PyErr_Occurred()) {
            goto next;
        }
        if (conv != Py_None) {
            Py_UCS4 c = PyUnicode_READ_CHAR(conv, 0);
            PyObject *cv = c == 'r'   ? PyObject_Repr(obj)
                           : c == 's' ? PyObject_Str(obj)
                           : c == 'a' ? PyObject_ASCII(obj)
                                      : NULL;
            if (cv == NULL && c != 'r' && c != 's' && c != 'a') {
                if (c > 32 && c < 127) {
                    PyErr_Format(PyExc_ValueError,
                                 "Unknown conversion specifier %c", (char)c);
                }
                else {
                    PyErr_Format(PyExc_ValueError,
                                 "Unknown conversion specifier \\x%x",
                                 (unsigned int)c);
                }
            }
            Py_SETREF(obj, cv);
            if (obj == NULL) {
                goto next;
            }
        }
        if (PyUnicode_FindChar(spec, '{', 0, PyUnicode_GET_LENGTH(spec), 1) >=
            0) {
            PyObject *parts = PyList_New(0);
            if (parts == NULL) {
                goto next;
            }
            if (render_format(in, spec, args, kw, depth - 1, an, parts) < 0) {
                Py_DECREF(parts);
                goto next;
            }
            PyObject *empty_s = PyUnicode_New(0, 0);
            fspec = empty_s ? PyUnicode_Join(empty_s, parts) : NULL;
            Py_XDECREF(empty_s);
            Py_DECREF(parts);
            if (fspec == NULL) {
                goto next;
            }
        }
        else {
            fspec = Py_NewRef(spec);
        }
        s = PyObject_Format(obj, fspec);
        if (s == NULL || PyList_Append(out, s) < 0) {
            goto next;
        }
        rc = 0;
    next:
        Py_XDECREF(s);
        Py_XDECREF(fspec);
        Py_XDECREF(rest);
        Py_XDECREF(obj);
        Py_XDECREF(split);
        Py_DECREF(item);
    }
    if (rc == 0 && PyErr_Occurred()) {
        rc = -1;
    }
    Py_DECREF(it);
    return rc;
}

/* fmt.format(*args, **kw) (is_map: fmt.format_map(mapping)) through
 * render_format.  New reference or NULL. */
static PyObject *
guarded_format(Interp *in, PyObject *fmt, int is_map, PyObject *const *args,
               Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *targs = NULL, *kw = NULL, *out = NULL, *res = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (is_map) {
        if (nkw) {
            PyErr_SetString(PyExc_TypeError,
                            "str.format_map() takes no keyword arguments");
            return NULL;
        }
        if (nargs != 1) {
            PyErr_Format(PyExc_TypeError,
                         "format_map() takes exactly one argument (%zd given)",
                         nargs);
            return NULL;
        }
        kw = Py_NewRef(args[0]);
    }
    else {
        targs = PyTuple_New(nargs);
        if (targs == NULL) {
            return NULL;
        }
        for (Py_ssize_t i = 0; i < nargs; i++) {
            PyTuple_SET_ITEM(targs, i, Py_NewRef(args[i]));
        }
        if (nkw) {
            kw = PyDict_New();
            for (Py_ssize_t i = 0; kw && i < nkw; i++) {
                if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i),
                                   args[nargs + i]) < 0) {
                    Py_CLEAR(kw);
                }
            }
            if (kw == NULL) {
                goto done;
            }
        }
    }
    out = PyList_New(0);
    AutoNumber an = {0, 0};
    if (out == NULL || render_format(in, fmt, targs, kw, 2, &an, out) < 0) {
        goto done;
    }
    PyObject *empty = PyUnicode_New(0, 0);
    res = empty ? PyUnicode_Join(empty, out) : NULL;
    Py_XDECREF(empty);
done:
    Py_XDECREF(out);
    Py_XDECREF(kw);
    Py_XDECREF(targs);
    return res;
}

/* ------------------------------------------------------ bounded wrappers */

/* Wrappers are builtin functions whose self is a tuple
 * (interpreter, original callable, kind, extra). */
static PyObject *wrapper_call(PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs, PyObject *kwnames);
static int format_estimate(Interp *in, PyObject *fmt, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames);

#define WRAPPER_DEF(name, doc)                           \
    {                                                    \
        name, (PyCFunction)(void (*)(void))wrapper_call, \
            METH_FASTCALL | METH_KEYWORDS, doc           \
    }

static PyMethodDef wrapper_defs[] = {
    WRAPPER_DEF("sleep", "time.sleep, bounded by the step's deadline."),
    WRAPPER_DEF("get", "Queue.get, bounded by the step's deadline."),
    WRAPPER_DEF("put", "Queue.put, bounded by the step's deadline."),
    WRAPPER_DEF("join", "Queue.join, bounded by the step's deadline."),
    WRAPPER_DEF("format", "str.format, with the sandbox's attribute policy."),
    WRAPPER_DEF("format_map",
                "str.format_map, with the sandbox's attribute policy."),
};

static PyMethodDef *
wrapper_def(int kind)
{
    switch (kind) {
    case PK_SLEEP:
        return &wrapper_defs[0];
    case PK_QUEUE_GET:
    case PK_SQUEUE_GET:
        return &wrapper_defs[1];
    case PK_QUEUE_PUT:
        return &wrapper_defs[2];
    case PK_QUEUE_JOIN:
        return &wrapper_defs[3];
    case PK_FORMAT:
        return &wrapper_defs[4];
    case PK_FORMAT_MAP:
        return &wrapper_defs[5];
    default:
        return NULL;
    }
}

/* New reference: a wrapper for `orig` (a new reference is taken). */
static PyObject *
make_wrapper(Interp *in, int kind, PyObject *orig, PyObject *extra)
{
    PyObject *self = Py_BuildValue("(OOiO)", in_guard(in)->owner, orig, kind,
                                   extra ? extra : Py_None);
    if (self == NULL) {
        return NULL;
    }
    PyObject *w = PyCFunction_NewEx(wrapper_def(kind), self, NULL);
    Py_DECREF(self);
    return w;
}

static int
deadline_active(Interp *in)
{
    return in_budget(in)->running && in_budget(in)->deadline > 0;
}

static int
raise_deadline(Interp *in)
{
    double t = budget_timeout(in);
    if (t == floor(t) && t < 1e15) {
        return limits_abort(
            in, ABORT_TIMEOUT,
            "Code execution exceeded the maximum execution time of "
            "%lld seconds",
            (long long)t);
    }
    PyObject *ts = PyFloat_FromDouble(t);
    if (ts == NULL) {
        return -1;
    }
    int r = limits_abort(
        in, ABORT_TIMEOUT,
        "Code execution exceeded the maximum execution time of %R "
        "seconds",
        ts);
    Py_DECREF(ts);
    return r;
}

/* time.sleep(secs): sleeps at most until the deadline, then ends the step. */
static PyObject *
bounded_sleep(Interp *in, PyObject *orig, PyObject *const *args,
              Py_ssize_t nargs, PyObject *kwnames)
{
    if (!deadline_active(in) || nargs != 1 || kwnames != NULL) {
        return PyObject_Vectorcall(orig, args, nargs, kwnames);
    }
    double secs = PyFloat_AsDouble(args[0]);
    if (secs == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return PyObject_Vectorcall(orig, args, nargs, NULL); /* its error */
    }
    double remaining = in_budget(in)->deadline - limits_now();
    if (!(secs > remaining)) { /* also NaN, negative: time.sleep's errors */
        return PyObject_Vectorcall(orig, args, nargs, NULL);
    }
    PyObject *r = PyFloat_FromDouble(remaining > 0 ? remaining : 0.0);
    PyObject *res = r ? PyObject_CallOneArg(orig, r) : NULL;
    Py_XDECREF(r);
    if (res == NULL) {
        return NULL; /* e.g. KeyboardInterrupt */
    }
    Py_DECREF(res);
    raise_deadline(in);
    return NULL;
}

/* Queue.get / Queue.put / SimpleQueue.get with block=True: wait at most
 * until the deadline, then end the step. */
static PyObject *
bounded_wait(Interp *in, int kind, PyObject *orig, PyObject *const *args,
             Py_ssize_t nargs, PyObject *kwnames)
{
    PolicyData *pd = pdata(in);
    PyObject *self = NULL;
    (void)key_of(orig, &self);
    int nprefix = (kind == PK_QUEUE_PUT ? 1 : 0) + (self == NULL ? 1 : 0);
    PyObject *block = Py_True, *timeout = Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (!deadline_active(in) || nargs < nprefix || nargs > nprefix + 2) {
        return PyObject_Vectorcall(orig, args, nargs, kwnames);
    }
    if (nargs > nprefix) {
        block = args[nprefix];
    }
    if (nargs > nprefix + 1) {
        timeout = args[nprefix + 1];
    }
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        if (str_eq(k, pd->s_block)) {
            block = args[nargs + i];
        }
        else if (str_eq(k, pd->s_timeout)) {
            timeout = args[nargs + i];
        }
        else {
            return PyObject_Vectorcall(orig, args, nargs, kwnames);
        }
    }
    int b = PyObject_IsTrue(block);
    if (b < 0) {
        return NULL;
    }
    double remaining = in_budget(in)->deadline - limits_now();
    double t = INFINITY;
    if (timeout != Py_None) {
        t = PyFloat_AsDouble(timeout);
        if (t == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return PyObject_Vectorcall(orig, args, nargs, kwnames);
        }
    }
    if (!b || !(t > remaining)) {
        return PyObject_Vectorcall(orig, args, nargs, kwnames);
    }
    PyObject *nargsv[4];
    for (int i = 0; i < nprefix; i++) {
        nargsv[i] = args[i];
    }
    PyObject *rt = PyFloat_FromDouble(remaining > 0 ? remaining : 0.0);
    if (rt == NULL) {
        return NULL;
    }
    nargsv[nprefix] = Py_True;
    nargsv[nprefix + 1] = rt;
    PyObject *res = PyObject_Vectorcall(orig, nargsv, nprefix + 2, NULL);
    Py_DECREF(rt);
    if (res == NULL &&
        PyErr_ExceptionMatches(kind == PK_QUEUE_PUT ? pd->queue_full
                                                    : pd->queue_empty) &&
        limits_now() >= in_budget(in)->deadline) {
        PyErr_Clear();
        raise_deadline(in);
    }
    return res;
}

/* Queue.join(): wait for unfinished tasks at most until the deadline. */
static PyObject *
bounded_join(Interp *in, PyObject *orig, PyObject *const *args,
             Py_ssize_t nargs, PyObject *kwnames)
{
    PolicyData *pd = pdata(in);
    PyObject *self = NULL;
    (void)key_of(orig, &self);
    if (!deadline_active(in) || kwnames != NULL ||
        nargs != (self == NULL ? 1 : 0)) {
        return PyObject_Vectorcall(orig, args, nargs, kwnames);
    }
    PyObject *q = self ? self : args[0];
    PyObject *cond = PyObject_GetAttr(q, pd->s_all_tasks_done);
    if (cond == NULL) {
        return NULL;
    }
    PyObject *r = PyObject_CallMethodNoArgs(cond, pd->s_enter);
    if (r == NULL) {
        Py_DECREF(cond);
        return NULL;
    }
    Py_DECREF(r);
    int status = 0; /* 0 done, -1 error, 1 deadline */
    for (;;) {
        PyObject *n = PyObject_GetAttr(q, pd->s_unfinished);
        int more = n ? PyObject_IsTrue(n) : -1;
        Py_XDECREF(n);
        if (more <= 0) {
            status = more;
            break;
        }
        double remaining = in_budget(in)->deadline - limits_now();
        if (remaining <= 0) {
            status = 1;
            break;
        }
        PyObject *rt = PyFloat_FromDouble(remaining);
        PyObject *w =
            rt ? PyObject_CallMethodOneArg(cond, pd->s_wait, rt) : NULL;
        Py_XDECREF(rt);
        if (w == NULL) {
            status = -1;
            break;
        }
        Py_DECREF(w);
    }
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    r = PyObject_CallMethodObjArgs(cond, pd->s_exit, Py_None, Py_None, Py_None,
                                   NULL);
    Py_XDECREF(r);
    if (et != NULL) {
        PyErr_Restore(et, ev, etb);
    }
    Py_DECREF(cond);
    if (status < 0) {
        return NULL;
    }
    if (status > 0) {
        raise_deadline(in);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
wrapper_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
             PyObject *kwnames)
{
    Interp *in = interp_of(PyTuple_GET_ITEM(self, 0));
    PyObject *orig = PyTuple_GET_ITEM(self, 1);
    int kind = (int)PyLong_AsLong(PyTuple_GET_ITEM(self, 2));
    PyObject *extra = PyTuple_GET_ITEM(self, 3);
    nargs = PyVectorcall_NARGS(nargs);
    switch (kind) {
    case PK_SLEEP:
        return bounded_sleep(in, orig, args, nargs, kwnames);
    case PK_QUEUE_GET:
    case PK_QUEUE_PUT:
    case PK_SQUEUE_GET:
        return bounded_wait(in, kind, orig, args, nargs, kwnames);
    case PK_QUEUE_JOIN:
        return bounded_join(in, orig, args, nargs, kwnames);
    case PK_FORMAT:
    case PK_FORMAT_MAP:
        if (extra != Py_None) {
            /* bound to a format string with attribute steps (checked) */
            if (format_estimate(in, extra, args, nargs, kwnames) < 0) {
                return NULL;
            }
            return guarded_format(in, extra, kind == PK_FORMAT_MAP, args,
                                  nargs, kwnames);
        }
        /* the unbound descriptor: str.format(fmt, ...) */
        if (nargs >= 1 && PyUnicode_Check(args[0])) {
            int has_attr = 0;
            if (scan_format(in, args[0], 2, &has_attr) < 0) {
                return NULL;
            }
            if (format_estimate(in, args[0], args + 1, nargs - 1, kwnames) <
                0) {
                return NULL;
            }
            if (has_attr) {
                return guarded_format(in, args[0], kind == PK_FORMAT_MAP,
                                      args + 1, nargs - 1, kwnames);
            }
        }
        return PyObject_Vectorcall(orig, args, nargs, kwnames);
    default:
        return PyObject_Vectorcall(orig, args, nargs, kwnames);
    }
}

/* The value an attribute read gives interpreted code: bounded or guarded
 * versions of a few host callables.  Steals `v`; new reference or NULL. */
static PyObject *
substitute(Interp *in, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp == &PyMethod_Type || tp == &PyCFunction_Type ||
        tp == &PyCMethod_Type) {
        /* random's module functions: the executor's generator (ownstate.c) */
        PyObject *own = ownstate_random_method(in, v);
        if (own != NULL || PyErr_Occurred()) {
            Py_DECREF(v);
            return own;
        }
    }
    if (tp != &PyCFunction_Type && tp != &PyCMethod_Type &&
        tp != &PyMethodDescr_Type && tp != &PyMethod_Type &&
        tp != &PyFunction_Type) {
        return v;
    }
    PyObject *self;
    int kind = kind_of(pdata(in), v, &self);
    switch (kind) {
    case PK_SLEEP:
    case PK_QUEUE_GET:
    case PK_QUEUE_PUT:
    case PK_QUEUE_JOIN:
    case PK_SQUEUE_GET:
        Py_SETREF(v, make_wrapper(in, kind, v, NULL));
        return v;
    case PK_FORMAT:
    case PK_FORMAT_MAP:
        if (self == NULL) {
            Py_SETREF(v, make_wrapper(in, kind, v, NULL));
            return v;
        }
        if (PyUnicode_Check(self)) {
            int has_attr = 0;
            if (scan_format(in, self, 2, &has_attr) < 0) {
                Py_DECREF(v);
                return NULL;
            }
            if (has_attr) {
                Py_SETREF(v, make_wrapper(in, kind, v, self));
            }
        }
        return v;
    default:
        return v;
    }
}

/* Attribute names whose verdict policy_check_attr_name reaches without
 * looking at the name again once the object is ordinary: no leading
 * underscore (part 1's dunder rules and part 3's provenance rules concern
 * only `_` names on loads), not `co_*` nor an internal name (part 1), not
 * `obj` (part 2's AttributeError.obj / memoryview.obj).  For such a name a
 * load from an object that is neither a module nor a frame, traceback or
 * code object passes: policy_check_attr_plain (guard.h) checks that much
 * and sends everything else here.  The lowering asks once per Attribute
 * node (NF_PLAIN_NAME); keep this in step with policy_check_attr_name. */
int
policy_attr_name_plain(ModState *st, PyObject *name)
{
    PolicyData *pd = st->policy;
    if (pd == NULL || !PyUnicode_CheckExact(name)) {
        return 0;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    if (n == 0) {
        return 0;
    }
    Py_UCS4 c0 = PyUnicode_READ_CHAR(name, 0);
    if (c0 == '_' || (c0 == 'c' && n > 3 && PyUnicode_READ_CHAR(name, 1) == 'o' &&
                      PyUnicode_READ_CHAR(name, 2) == '_')) {
        return 0;
    }
    return !set_has(pd->internal_names, name) && !str_eq(name, pd->s_obj);
}

PyObject *
policy_getattr_plain(Interp *in, PyObject *obj, PyObject *name)
{
    if (policy_check_attr_plain(in, obj, name) < 0) {
        return NULL;
    }
    return policy_getattr_checked(in, obj, name);
}

PyObject *
policy_attr_result_slow(Interp *in, PyObject *v)
{
    v = substitute(in, v);
    if (v != NULL && gate_value(in, v) < 0) {
        Py_CLEAR(v);
    }
    return v;
}

PyObject *
policy_getattr_checked(Interp *in, PyObject *obj, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    return v != NULL ? policy_attr_result(in, v) : NULL;
}

int
policy_setattr_plain(Interp *in, PyObject *obj, PyObject *name,
                     PyObject *value)
{
    if (policy_check_attr_object(in, obj, name, 1) < 0) {
        return -1;
    }
    return PyObject_SetAttr(obj, name, value);
}

AttrVerdict
policy_getattr_verdict(PyObject *obj, PyObject *name)
{
    AttrVerdict v = {NULL, 0, 0, 0, 0};
    PyTypeObject *tp = Py_TYPE(obj);
    unsigned int tag = compat_type_version(tp);
    if (tag == 0 || policy_attr_plain_asks_object(obj) ||
        !provenance_getattr_is_generic(tp, name)) {
        return v;
    }
    v.type = tp;
    v.tag = tag;
    return v;
}

int
policy_setattr_plain_cached(Interp *in, PyObject *obj, PyObject *name,
                            PyObject *value, const AttrVerdict *cached,
                            AttrVerdict *learned)
{
    PyTypeObject *tp = Py_TYPE(obj);
    unsigned int tag = compat_type_version(tp);
    if (tag != 0 && tp == cached->type && tag == cached->tag &&
        !is_tool(in, obj)) {
        if (tag == cached->dict_only_tag) {
            /* the type at this tag has nothing of the name (no descriptor
               to call) and its instances have a dict: what
               PyObject_GenericSetAttr does then, without the type lookup
               (tags are never reused: the tag alone says the type).  With
               the name's inline slot known: CPython's own store of an
               instance value, when its conditions hold */
            if (COMPAT_INLINE_VALUES && cached->slot != 0 &&
                compat_inline_store(obj, cached->slot - 1u, value)) {
                return 0;
            }
            int managed = compat_managed_dict_known(tp);
            PyObject *d = managed ? compat_managed_dict(obj) : NULL;
            int r;
            if (managed && d == NULL) {
                /* CPython keeps the values without a dict object: its own
                   store, which makes none (making one here costs a new
                   instance's __init__ more than its stores save: 3.14,
                   callgrind) */
                r = PyObject_GenericSetAttr(obj, name, value);
            }
            else {
                if (d != NULL) {
                    Py_INCREF(d); /* a key's __eq__ may replace obj.__dict__ */
                }
                else if ((d = PyObject_GenericGetDict(obj, NULL)) == NULL) {
                    return -1;
                }
                r = PyDict_SetItem(d, name, value);
                Py_DECREF(d);
            }
            if (r == 0 && cached->slot == 0 && cached->slot_learn &&
                Py_TYPE(obj) == tp && compat_type_version(tp) == tag &&
                compat_inline_values(obj) != NULL) {
                /* where the value went, for the next stores: only while
                   the object's type, and the type at its tag, are still
                   the ones this store was for (the release of the value
                   it replaced may have run code that changed either; the
                   name's read-back then finds no descriptor to call) */
                learned->type = tp;
                learned->tag = tag;
                learned->dict_only_tag = tag;
                learned->slot = (uint8_t)compat_inline_slot_of(obj, name, value);
                learned->slot_learn = 1;
            }
            return r;
        }
        return PyObject_GenericSetAttr(obj, name, value);
    }
    if (policy_check_attr_object(in, obj, name, 1) < 0) {
        return -1;
    }
    /* the check passed, and for an instance (not a class, not a super()
       proxy, not a module or internal object) its verdict depends on the
       type alone once the object is not a tool */
    if (tag != 0 && tp->tp_setattro == PyObject_GenericSetAttr &&
        !PyType_Check(obj) && tp != &PySuper_Type &&
        !policy_attr_plain_asks_object(obj)) {
        /* once per type and tag (not on the remembered path): does the
           store only ever write the instance's dict? */
        int dict_only = 0;
        if (compat_type_has_instance_dict(tp) && PyUnicode_CheckExact(name)) {
            PyObject *found = compat_type_lookup(tp, name);
            dict_only = found == NULL && !PyErr_Occurred();
            Py_XDECREF(found);
            PyErr_Clear();
        }
        /* the lookup may have run code (a str subclass key's __eq__):
           remember nothing unless the tag is still the one checked */
        if (compat_type_version(tp) == tag) {
            learned->type = tp;
            learned->tag = tag;
            learned->dict_only_tag = dict_only ? tag : 0;
        }
    }
    return PyObject_SetAttr(obj, name, value);
}

PyObject *
policy_getattr(Interp *in, PyObject *obj, PyObject *name)
{
    if (policy_check_attr_name(in, obj, name, 0) < 0) {
        return NULL;
    }
    return policy_getattr_checked(in, obj, name);
}

int
policy_setattr(Interp *in, PyObject *obj, PyObject *name, PyObject *value)
{
    if (policy_check_attr_name(in, obj, name, 1) < 0) {
        return -1;
    }
    return PyObject_SetAttr(obj, name, value);
}

int
policy_delattr(Interp *in, PyObject *obj, PyObject *name)
{
    if (policy_check_attr_name(in, obj, name, -1) < 0) {
        return -1;
    }
    return PyObject_DelAttr(obj, name);
}

/* ---------------------------------------------------------------- imports */

static int
refuse_import(Interp *in, const char *fmt, PyObject *modname)
{
    PyObject *lst = in_guard(in)->authorized ? PyObject_Repr(in_guard(in)->authorized) : NULL;
    if (lst == NULL) {
        PyErr_Clear();
        lst = PyUnicode_FromString("[]");
        if (lst == NULL) {
            return -1;
        }
    }
    raise_interp_error(in, fmt, modname, lst);
    Py_DECREF(lst);
    return -1;
}

/* 1 when an import of `modname` would be allowed (no error raised). */
int
policy_import_authorized(Interp *in, PyObject *modname)
{
    int r =
        PyUnicode_Check(modname) && smol_authorized(in_guard(in)->authorized, modname);
    PyErr_Clear();
    return r;
}

int
policy_check_import(Interp *in, PyObject *modname)
{
    if (PyUnicode_Check(modname) && smol_authorized(in_guard(in)->authorized, modname)) {
        return 0;
    }
    return refuse_import(
        in, "Import of %U is not allowed. Authorized imports are: %U",
        modname);
}

/* `from m import *` must not rebind a tool: refuse before binding. */
static int
check_star_import(Interp *in, PyObject *mod)
{
    if (in_guard(in)->tools == NULL || PyDict_GET_SIZE(in_guard(in)->tools) == 0) {
        return 0;
    }
    PolicyData *pd = pdata(in);
    PyObject *names = NULL;
    PyObject *all = NULL;
    if (PyObject_GetOptionalAttr(mod, pd->s_all, &all) < 0) {
        return -1;
    }
    if (all != NULL) {
        names = PySequence_List(all);
        Py_DECREF(all);
    }
    else {
        PyObject *d = PyModule_Check(mod) ? PyModule_GetDict(mod) : NULL;
        names = d ? PyDict_Keys(d) : PyList_New(0);
    }
    if (names == NULL) {
        return -1;
    }
    int r = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++) {
        PyObject *nm = PyList_GET_ITEM(names, i);
        if (!PyUnicode_Check(nm) || PyUnicode_GET_LENGTH(nm) == 0 ||
            PyUnicode_READ_CHAR(nm, 0) == '_') {
            continue;
        }
        int c = PyDict_Contains(in_guard(in)->tools, nm);
        if (c != 0) {
            if (c > 0) {
                raise_interp_error(
                    in,
                    "Cannot assign to name '%U': doing this would "
                    "erase the existing tool!",
                    nm);
            }
            r = -1;
            break;
        }
    }
    Py_DECREF(names);
    return r;
}

PyObject *
policy_import(Frame *f, PyObject *name, PyObject *fromlist, int level)
{
    Interp *in = f->in;
    if (level > 0) {
        PyErr_SetString(
            PyExc_ImportError,
            "attempted relative import with no known parent package");
        return NULL;
    }
    if (!PyUnicode_Check(name) || !smol_authorized(in_guard(in)->authorized, name)) {
        /* smolagents words `from m import x` refusals differently */
        refuse_import(
            in,
            fromlist != NULL
                ? "Import from %U is not allowed. Authorized imports are: %U"
                : "Import of %U is not allowed. Authorized imports are: %U",
            name);
        return NULL;
    }
    /* the interpreter's own import of an authorized module: not host code
       acting for the code (tripwire.c), nor are the module bodies it runs
       (gadgets.c: a module's own initialisation may do what a gadget entry
       withholds from the code, e.g. array registering itself with
       collections.abc.MutableSequence); interpreted code entered meanwhile
       (a finalizer) has every check on again (interp_rearm) */
    Interp *armed = tripwire_suspend();
    GadgetPause gp;
    gadgets_pause(in, &gp);
    PyObject *mod =
        PyImport_ImportModuleLevelObject(name, NULL, NULL, fromlist, 0);
    gadgets_unpause(in, &gp);
    tripwire_restore(armed);
    /* the code's decimal: its context is the executor's from now on
       (ownstate.c) */
    if (mod == NULL || gadgets_refresh() < 0 ||
        (str_eq_ascii(name, "decimal") && ownstate_decimal_imported(in) < 0)) {
        Py_XDECREF(mod);
        return NULL;
    }
    if (fromlist != NULL && PyTuple_Check(fromlist)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fromlist); i++) {
            PyObject *x = PyTuple_GET_ITEM(fromlist, i);
            if (PyUnicode_Check(x) && str_eq_ascii(x, "*") &&
                check_star_import(in, mod) < 0) {
                Py_DECREF(mod);
                return NULL;
            }
        }
    }
    return mod;
}

int
policy_star_skips(Interp *in, PyObject *mod, PyObject *nm)
{
    if (!PyModule_Check(mod) || !PyUnicode_CheckExact(nm)) {
        return 0;
    }
    PyObject *d = PyModule_GetDict(mod); /* borrowed */
    PyObject *v = d != NULL ? PyDict_GetItemWithError(d, nm) : NULL;
    if (v == NULL) {
        PyErr_Clear();
        return 0;
    }
    if (!module_check_fast(v)) {
        return 0;
    }
    PyObject *vname = NULL;
    ModStatus ms = module_status(in, v, &vname);
    Py_XDECREF(vname);
    return ms == MOD_DENIED;
}

/* ------------------------------------------------------------ value gates */

int
policy_check_call(Interp *in, PyObject *callable)
{
    PolicyData *pd = pdata(in);
    if (is_dangerous(pd, callable) && !is_tool(in, callable)) {
        PyObject *nm = callable_name(callable);
        raise_interp_error(
            in,
            "Forbidden function evaluation: '%S' is not among the "
            "explicitly allowed tools or defined/imported in the "
            "preceding code",
            nm ? nm : Py_None);
        Py_XDECREF(nm);
        return -1;
    }
    return 0;
}

PyTypeObject *plain_type_tab[64];
unsigned int plain_type_shift;
int plain_type_chain;

int
policy_plain_types_init(void)
{
    PyTypeObject *plain[] = {&PyLong_Type,  &PyUnicode_Type, &PyFloat_Type,
                             &PyTuple_Type, &PyList_Type,    &PyBool_Type};
    size_t n = sizeof(plain) / sizeof(plain[0]);
    for (unsigned int shift = 3; shift < 16; shift++) {
        PyTypeObject *tab[64] = {NULL};
        size_t i;
        for (i = 0; i < n; i++) {
            size_t k = ((uintptr_t)plain[i] >> shift) & 63;
            if (tab[k] != NULL) {
                break;
            }
            tab[k] = plain[i];
        }
        if (i == n) {
            memcpy(plain_type_tab, tab, sizeof(tab));
            plain_type_shift = shift;
            plain_type_chain = 0;
            return 0;
        }
    }
    /* no shift separates them: the table stays empty, the chain decides */
    memset(plain_type_tab, 0, sizeof(plain_type_tab));
    plain_type_chain = 1;
    return 0;
}

int
policy_check_value(Interp *in, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp == &PyLong_Type || tp == &PyUnicode_Type || tp == &PyFloat_Type ||
        tp == &PyTuple_Type || tp == &PyList_Type || tp == &PyBool_Type ||
        v == Py_None) {
        return 0;
    }
    PolicyData *pd = pdata(in);
    if (tp == &PyDict_Type) {
        /* check_value_full's verdict on an exact dict, its error there */
        return is_namespace_dict(pd, v) ? check_value_full(in, pd, v) : 0;
    }
    if (tp == &PyModule_Type || tp == &PySlice_Type ||
        tp == &PyCFunction_Type || tp == &PyFunction_Type) {
        return check_value_full(in, pd, v); /* verdicts by value */
    }
    unsigned int tag = compat_type_version(tp);
    size_t slot = ((uintptr_t)tp >> 4) & 63;
    int ngad = gadgets_known_types;
    if (tag != 0 && pd->inert[slot].tp == tp && pd->inert[slot].tag == tag &&
        pd->inert_gadgets == ngad) {
        return pd->inert[slot].by_value ? check_value_full(in, pd, v) : 0;
    }
    int r = check_value_full(in, pd, v);
    if (tag != 0) {
        /* remember that the type passes, or that its instances need the
           full check (not to ask value_verdict_by_type every time) */
        int by_value = !value_verdict_by_type(pd, tp);
        if (by_value || r == 0) {
            if (pd->inert_gadgets != ngad) {
                memset(pd->inert, 0, sizeof(pd->inert));
                pd->inert_gadgets = ngad;
            }
            pd->inert[slot].tp = tp;
            pd->inert[slot].tag = tag;
            pd->inert[slot].by_value = by_value;
        }
    }
    return r;
}

/* Does check_value_full's verdict for instances of tp depend on the type
 * alone?  Not for the kinds whose checks look at the value: modules (which
 * one), dicts (a namespace?), slices (their bounds), the types of dangerous
 * callables (which one), gadget types (what they hold). */
static int
value_verdict_by_type(PolicyData *pd, PyTypeObject *tp)
{
    if (PyType_IsSubtype(tp, &PyModule_Type) ||
        PyType_IsSubtype(tp, &PyDict_Type) || tp == &PySlice_Type ||
        gadgets_is_type(tp)) {
        return 0;
    }
    for (int i = 0; i < pd->ndangerous_types; i++) {
        if (pd->dangerous_types[i] == tp) {
            return 0;
        }
    }
    return 1;
}

static int
check_value_full(Interp *in, PolicyData *pd, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp == &PyFrame_Type || tp == &PyTraceBack_Type || tp == &PyCode_Type ||
        tp == in_st(in)->InterpreterType || tp == in_st(in)->ProgramType) {
        raise_interp_error(
            in, "Forbidden access to internal object of type %s", tp->tp_name);
        return -1;
    }
    if (module_check_fast(v)) {
        PyObject *name = NULL;
        ModStatus ms = module_status(in, v, &name);
        if (ms == MOD_DENIED) {
            raise_interp_error(in, "Forbidden access to module: %S",
                               name ? name : Py_None);
        }
        Py_XDECREF(name);
        return ms == MOD_DENIED ? -1 : 0;
    }
    if (PyDict_Check(v)) {
        if (is_namespace_dict(pd, v)) {
            raise_interp_error(
                in, "Forbidden access to the namespace (globals) of a "
                    "module");
            return -1;
        }
        return 0;
    }
    if (PySlice_Check(v)) {
        PySliceObject *sl = (PySliceObject *)v;
        if (PySlice_Check(sl->start) || PySlice_Check(sl->stop) ||
            PySlice_Check(sl->step)) {
            /* slice(slice(...)) chains crash CPython when deallocated (no
               trashcan): a slice never holds a slice here */
            raise_interp_error(
                in, "Forbidden value: a slice whose bounds are slices");
            return -1;
        }
        return 0;
    }
    if (is_dangerous(pd, v) && !is_tool(in, v)) {
        PyObject *nm = callable_name(v);
        raise_interp_error(in, "Forbidden access to function: %S",
                           nm ? nm : Py_None);
        Py_XDECREF(nm);
        return -1;
    }
    if (tp == &PyMethod_Type || tp == &PyFunction_Type ||
        tp == &PyCFunction_Type || tp == in_st(in)->FunctionType) {
        return 0; /* callables: not synchronization primitives */
    }
    if (gadgets_check_value(in, v) < 0) {
        return -1; /* attrgetter & co. holding refused names (gadgets.c) */
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pd->sync_types); i++) {
        if (PyObject_TypeCheck(
                v, (PyTypeObject *)PyTuple_GET_ITEM(pd->sync_types, i))) {
            raise_interp_error(
                in,
                "Forbidden access to a synchronization primitive (%s): "
                "waiting on it could outlive the step's deadline",
                tp->tp_name);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------ budget-aware iteration */

/* An iterator handed to a host function that consumes it in a C loop (sum,
 * list, "".join, itertools...): checks the deadline as it goes and, when the
 * consumer keeps every item, the size budget. */
typedef struct {
    PyObject_HEAD PyObject *it; /* the wrapped iterator */
    PyObject *owner;            /* InterpreterObject */
    Py_ssize_t count, limit;    /* items so far; limit < 0: none */
    long long size, size_limit; /* bytes of sequence items (join, sum) */
} BudgetIterObject;

static int
budget_iter_traverse(BudgetIterObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->it);
    Py_VISIT(self->owner);
    return 0;
}

static int
budget_iter_clear(BudgetIterObject *self)
{
    Py_CLEAR(self->it);
    Py_CLEAR(self->owner);
    return 0;
}

static void
budget_iter_dealloc(BudgetIterObject *self)
{
    /* the trashcan bounds the C recursion of deallocating a deep chain of
       iterators (enumerate(enumerate(...)) has no trashcan of its own) */
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_TRASHCAN_BEGIN(self, budget_iter_dealloc) budget_iter_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
    Py_TRASHCAN_END
}

static int
too_big(Interp *in, const char *what)
{
    return limits_abort(in, ABORT_BUDGET,
                        "The result of this %s would be too large for the "
                        "sandbox's size limit",
                        what);
}

static PyObject *
budget_iter_next(BudgetIterObject *self)
{
    if (self->it == NULL) {
        return NULL;
    }
    Interp *in = interp_of(self->owner);
    if (in_budget(in)->running) {
        if ((in_budget(in)->abort != ABORT_NONE ||
             (limits_clock_spend(in, 1), in_budget(in)->tick <= 0)) &&
            limits_tick_slow(in) < 0) {
            return NULL;
        }
        /* a chain of iterators built by the code (it = map(f, it) in a
           loop) recurses in C on each next(): stop before the stack ends */
        if (limits_check_stack(in) < 0) {
            return NULL;
        }
        if (self->limit >= 0 && ++self->count > self->limit) {
            too_big(in, "call");
            return NULL;
        }
    }
    PyObject *x = Py_TYPE(self->it)->tp_iternext(self->it);
    if (x != NULL && self->size_limit >= 0 && in_budget(in)->running) {
        long long b = seq_bytes(x);
        self->size += b > 0 ? b : 0;
        if (self->size > self->size_limit) {
            Py_DECREF(x);
            too_big(in, "call");
            return NULL;
        }
    }
    return x;
}

/* repr of the wrapped iterator: print(map(...)) looks as in CPython */
static PyObject *
budget_iter_repr(BudgetIterObject *self)
{
    if (self->it == NULL) {
        return PyUnicode_FromString("<exhausted iterator>");
    }
    return PyObject_Repr(self->it);
}

static PyObject *
budget_iter_length_hint(BudgetIterObject *self, PyObject *unused)
{
    Py_ssize_t n = self->it ? PyObject_LengthHint(self->it, 0) : 0;
    return n < 0 ? NULL : PyLong_FromSsize_t(n);
}

static PyMethodDef budget_iter_methods[] = {
    {"__length_hint__", (PyCFunction)budget_iter_length_hint, METH_NOARGS,
     NULL},
    {NULL},
};

static PyType_Slot budget_iter_slots[] = {
    {Py_tp_repr, budget_iter_repr},
    {Py_tp_methods, budget_iter_methods},
    {Py_tp_dealloc, budget_iter_dealloc},
    {Py_tp_traverse, budget_iter_traverse},
    {Py_tp_clear, budget_iter_clear},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, budget_iter_next},
    {0, NULL},
};

static PyType_Spec budget_iter_spec = {
    .name = "smolagents_native._core.budget_iterator",
    .basicsize = sizeof(BudgetIterObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = budget_iter_slots,
};

/* Threshold below which a range is consumed as is (fast, and harmless). */
#define SMALL_RANGE 100000

/* Estimated memory per item kept by a consumer: a slot and (often) a new
 * object for sequences; a hash table entry for sets and dicts. */
#define SEQ_ITEM_BYTES 16
#define HASHED_ITEM_BYTES 64

/* How a consumer uses one iterable argument. */
typedef struct {
    int item_bytes; /* > 0: the consumer keeps every item (size budget) */
    int count_size; /* add up the sizes of sequence items (join, sum) */
    int iter_only;  /* wrap only iterators: the consumer treats other
                        iterables specially (mappings, __bytes__...) */
} IterUse;

static const IterUse USE_REDUCE = {0, 0, 0};
static const IterUse USE_SEQ = {SEQ_ITEM_BYTES, 0, 0};
static const IterUse USE_HASHED = {HASHED_ITEM_BYTES, 0, 0};

static int
is_materialized(PyTypeObject *tp)
{
    return tp == &PyList_Type || tp == &PyTuple_Type || tp == &PyDict_Type ||
           tp == &PySet_Type || tp == &PyFrozenSet_Type ||
           tp == &PyUnicode_Type || tp == &PyBytes_Type ||
           tp == &PyByteArray_Type;
}

/* Prepare one iterable argument of a consumer.  May replace *parg with a
 * budget iterator over it.  0 / -1. */
static int
prepare_iterable(Interp *in, PyObject **parg, IterUse use)
{
    PolicyData *pd = pdata(in);
    PyObject *a = *parg;
    PyTypeObject *tp = Py_TYPE(a);
    long long max = budget_max_result_bytes(in);
    int limited = budget_limited(max);
    if (is_materialized(tp)) {
        if (use.count_size && (tp == &PyList_Type || tp == &PyTuple_Type) &&
            limited) {
            /* "".join(list), sum(list_of_lists, []): the size is known */
            long long total = 0;
            for (Py_ssize_t i = 0; i < Py_SIZE(a); i++) {
                long long b = seq_bytes(PySequence_Fast_ITEMS(a)[i]);
                total += b > 0 ? b : 0;
            }
            if (total > max) {
                return too_big(in, "call");
            }
        }
        return 0;
    }
    if (tp == pd->budget_iter_type &&
        (use.item_bytes <= 0 || !limited ||
         ((BudgetIterObject *)a)->limit >= 0) &&
        (!use.count_size || ((BudgetIterObject *)a)->size_limit >= 0)) {
        return 0; /* already checks what this consumer needs */
    }
    if ((use.item_bytes <= 0 || !limited) && (!use.count_size || !limited) &&
        generator_is_own(in, a)) {
        /* nothing to count per item (sum, any, max...), and the code's own
           generator charges its body's operations on every resume */
        return 0;
    }
    PyObject *it = NULL;
    if (tp == &PyRange_Type) {
        Py_ssize_t n = PyObject_Length(a);
        if (n < 0) {
            PyErr_Clear();
            n = PY_SSIZE_T_MAX;
        }
        if (use.item_bytes > 0 && limited &&
            (double)n * use.item_bytes > (double)max) {
            return too_big(in, "call");
        }
        if (n <= SMALL_RANGE) {
            return 0;
        }
        it = PyObject_GetIter(a);
        if (it == NULL) {
            return -1;
        }
    }
    else if (PyIter_Check(a)) {
        if (use.iter_only && (tp->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
            return 0; /* might be a mapping too */
        }
        it = Py_NewRef(a);
    }
    else if ((tp->tp_flags & Py_TPFLAGS_HEAPTYPE) && !use.iter_only &&
             tp->tp_iter != NULL) {
        /* a class of the code (or a host Python class) whose iteration
           the consumer would run in its C loop */
        it = PyObject_GetIter(a);
        if (it == NULL) {
            if (in_budget(in)->abort != ABORT_NONE) {
                return -1;
            }
            PyErr_Clear(); /* the consumer reports it */
            return 0;
        }
    }
    else {
        return 0; /* bounded host containers (dict views, ...) */
    }
    BudgetIterObject *w =
        PyObject_GC_New(BudgetIterObject, pd->budget_iter_type);
    if (w == NULL) {
        Py_DECREF(it);
        return -1;
    }
    w->it = it;
    w->owner = Py_NewRef(in_guard(in)->owner);
    w->count = 0;
    w->limit = use.item_bytes > 0 && limited
                   ? (Py_ssize_t)(max / use.item_bytes)
                   : -1;
    w->size = 0;
    w->size_limit = use.count_size && limited ? max : -1;
    PyObject_GC_Track(w);
    Py_SETREF(*parg, (PyObject *)w);
    return 0;
}

/* A budget iterator over the iterator `it` (no item or size limit: the
 * deadline and the operation budget only).  New reference. */
PyObject *
policy_budget_iterator(Interp *in, PyObject *it)
{
    PolicyData *pd = pdata(in);
    if (Py_TYPE(it) == pd->budget_iter_type) {
        return Py_NewRef(it);
    }
    BudgetIterObject *w =
        PyObject_GC_New(BudgetIterObject, pd->budget_iter_type);
    if (w == NULL) {
        return NULL;
    }
    w->it = Py_NewRef(it);
    w->owner = Py_NewRef(in_guard(in)->owner);
    w->count = 0;
    w->limit = -1;
    w->size = 0;
    w->size_limit = -1;
    PyObject_GC_Track(w);
    return (PyObject *)w;
}

int
policy_is_budget_iterator(Interp *in, PyObject *v)
{
    return Py_TYPE(v) == pdata(in)->budget_iter_type;
}

/* Estimated bits of an int argument, or -1 (not an int); overflow: huge. */
static double
as_double_arg(PyObject *v)
{
    PyObject *iv = NULL;
    if (!PyLong_Check(v)) {
        /* an object with __index__ (a class of the code): the size it
           stands for; CPython asks it again (an error recurs there) */
        if (PyFloat_Check(v) || !PyIndex_Check(v)) {
            return -1;
        }
        iv = PyNumber_Index(v);
        if (iv == NULL) {
            PyErr_Clear();
            return -1;
        }
        v = iv;
    }
    double d = PyLong_AsDouble(v);
    Py_XDECREF(iv);
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return HUGE_VAL;
    }
    return d;
}

/* Length and character width of a str / bytes / bytearray `self` (0 / -1
 * when it is none of them). */
static int
text_shape(PyObject *self, double *len, int *kind)
{
    if (self == NULL) {
        return -1;
    }
    if (PyUnicode_Check(self)) {
        *len = (double)PyUnicode_GET_LENGTH(self);
        *kind = PyUnicode_KIND(self);
        return 0;
    }
    if (PyBytes_Check(self) || PyByteArray_Check(self)) {
        *len = (double)Py_SIZE(self);
        *kind = 1;
        return 0;
    }
    return -1;
}

static int
check_int_bits(Interp *in, double bits, const char *what)
{
    if (budget_limited(budget_max_int_bits(in)) &&
        bits > (double)budget_max_int_bits(in)) {
        return too_big(in, what);
    }
    return 0;
}

static int
check_bytes(Interp *in, double bytes, const char *what)
{
    if (budget_limited(budget_max_result_bytes(in)) &&
        bytes > (double)budget_max_result_bytes(in)) {
        return too_big(in, what);
    }
    return 0;
}

/* The largest width or precision a format string (or a format spec, when
 * `in_field`) asks for: digit runs inside replacement fields; a nested field
 * ("{:{}}") takes its width from the arguments, so the largest int argument
 * counts then.  Also counts the fields.  Never raises. */
static double
format_width(PyObject *fmt, int in_field, PyObject *const *args, Py_ssize_t n,
             Py_ssize_t *fields)
{
    Py_ssize_t len = PyUnicode_GET_LENGTH(fmt);
    int kind = PyUnicode_KIND(fmt);
    const void *data = PyUnicode_DATA(fmt);
    int depth = in_field ? 1 : 0, nested = 0;
    double best = 0, cur = -1;
    *fields = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (depth > 0 && c >= '0' && c <= '9') {
            cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
            continue;
        }
        if (cur > best) {
            best = cur;
        }
        cur = -1;
        if (c == '{') {
            depth++;
            *fields += depth == 1;
            nested |= depth > 1;
        }
        else if (c == '}' && depth > 0) {
            depth--;
        }
    }
    if (cur > best) {
        best = cur;
    }
    if (nested || in_field) {
        for (Py_ssize_t i = 0; i < n; i++) {
            double w = as_double_arg(args[i]);
            if (w > best) {
                best = w;
            }
        }
    }
    return best;
}

/* Size pre-check of fmt.format(*args, **kw): "{0}{0}".format(s) doubles s,
 * "{:>1000000000}" pads; estimated from the fields, the widths and the
 * largest string argument.  0 / -1. */
static int
format_estimate(Interp *in, PyObject *fmt, PyObject *const *args,
                Py_ssize_t nargs, PyObject *kwnames)
{
    if (!budget_limited(budget_max_result_bytes(in)) || !PyUnicode_Check(fmt)) {
        return 0;
    }
    Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    long long big = 0;
    for (Py_ssize_t i = 0; i < nargs + nk; i++) {
        long long b = seq_bytes(args[i]);
        big = b > big ? b : big;
    }
    Py_ssize_t fields;
    double width = format_width(fmt, 0, args, nargs + nk, &fields);
    return check_bytes(in,
                       (double)seq_bytes(fmt) +
                           (double)fields * ((double)big + 4.0 * width),
                       "format");
}

/* Size pre-check of a format spec (an f-string's `{x:>1000000000}`): the
 * width or precision it asks for.  0 / -1. */
int
policy_check_format_spec(Interp *in, PyObject *spec)
{
    if (!budget_limited(budget_max_result_bytes(in)) || spec == NULL ||
        !PyUnicode_Check(spec)) {
        return 0;
    }
    Py_ssize_t fields;
    return check_bytes(in, format_width(spec, 1, NULL, 0, &fields), "format");
}

/* The next value a `*` width of printf-style formatting takes. */
static double
percent_star_arg(PyObject *args, Py_ssize_t *next)
{
    PyObject *a = NULL;
    if (PyTuple_Check(args)) {
        if (*next < PyTuple_GET_SIZE(args)) {
            a = PyTuple_GET_ITEM(args, *next);
        }
    }
    else if (*next == 0) {
        a = args;
    }
    (*next)++;
    return a != NULL ? as_double_arg(a) : 0;
}

/* Size pre-check of `fmt % args` for str and bytes: widths and precisions
 * (digits or `*`), and the arguments substituted.  0 / -1. */
int
policy_check_percent(Interp *in, PyObject *fmt, PyObject *args)
{
    if (!budget_limited(budget_max_result_bytes(in))) {
        return 0;
    }
    Py_ssize_t len;
    int kind = 0;
    const void *data = NULL;
    const char *bytes = NULL;
    if (PyUnicode_Check(fmt)) {
        len = PyUnicode_GET_LENGTH(fmt);
        kind = PyUnicode_KIND(fmt);
        data = PyUnicode_DATA(fmt);
    }
    else if (PyBytes_Check(fmt)) {
        len = PyBytes_GET_SIZE(fmt);
        bytes = PyBytes_AS_STRING(fmt);
    }
    else {
        return 0;
    }
#define CH(i) \
    (bytes ? (Py_UCS4)(unsigned char)bytes[i] : PyUnicode_READ(kind, data, i))
    double widest = 0;
    Py_ssize_t directives = 0, next = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        if (CH(i) != '%') {
            continue;
        }
        i++;
        if (i < len && CH(i) == '%') {
            continue;
        }
        directives++;
        if (i < len && CH(i) == '(') {
            while (i < len && CH(i) != ')') {
                i++;
            }
            i++;
        }
        while (i < len && (CH(i) == '-' || CH(i) == '+' || CH(i) == ' ' ||
                           CH(i) == '#' || CH(i) == '0')) {
            i++;
        }
        for (int part = 0; part < 2; part++) {
            double w = 0;
            if (i < len && CH(i) == '*') {
                w = percent_star_arg(args, &next);
                i++;
            }
            else {
                while (i < len && CH(i) >= '0' && CH(i) <= '9') {
                    w = w * 10 + (CH(i) - '0');
                    i++;
                }
            }
            if (w > widest) {
                widest = w;
            }
            if (part == 0 && i < len && CH(i) == '.') {
                i++;
                continue;
            }
            break;
        }
        next++;
    }
#undef CH
    long long big = seq_bytes(args);
    if (PyTuple_Check(args)) {
        big = 0;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(args); k++) {
            long long b = seq_bytes(PyTuple_GET_ITEM(args, k));
            big = b > big ? b : big;
        }
    }
    return check_bytes(in,
                       (double)len +
                           (double)directives *
                               ((double)(big > 0 ? big : 0) + 4.0 * widest),
                       "format");
}

/* self.extend(arg): see guard.h. */
int
policy_check_extend(Interp *in, PyObject *self, PyObject *arg)
{
    long long b = seq_bytes(arg);
    if (b < 0 && arg != self) {
        return 1; /* no size known: an iterable */
    }
    /* a list (its subclasses too: their storage, never a __len__ of the
       code's) by its type flag first: PyByteArray_Check is a call of
       PyType_IsSubtype for any other type */
    long long a = PyList_Check(self) ? (long long)PyList_GET_SIZE(self) *
                                           (long long)sizeof(PyObject *)
                  : PyByteArray_Check(self)
                      ? PyByteArray_GET_SIZE(self)
                      : (long long)PyObject_Length(self) *
                            (long long)sizeof(PyObject *);
    if (a < 0) {
        PyErr_Clear();
        a = 0;
    }
    if (arg == self) {
        /* d.extend(d) of a deque: the method copies itself first (never
           given a budget iterator over itself, which it would see mutate
           while it appends) */
        b = a;
    }
    /* x.extend(x) doubles */
    return check_bytes(in, (double)a + (double)b, "call");
}

/* A result about to be materialized (star displays): `bytes` estimated.
 * 0 / -1. */
int
policy_check_result_bytes(Interp *in, double bytes, const char *what)
{
    return check_bytes(in, bytes, what);
}

/* 1 when policy_prepare_call() has nothing to do for `callable` (no
 * bounded substitute, no budget wrapper): the evaluator may then call an
 * unbound method descriptor directly instead of binding it first. */
int
policy_call_is_plain(Interp *in, PyObject *callable)
{
    PyObject *self;
    return kind_of(pdata(in), callable, &self) == PK_NONE;
}

int
policy_callable_is_dangerous(Interp *in, PyObject *callable)
{
    return is_dangerous(pdata(in), callable);
}

int
policy_prepare_call(Interp *in, PyObject **pfunc, PyObject **args,
                    Py_ssize_t nargs, PyObject *kwnames)
{
    PolicyData *pd = pdata(in);
    PyObject *func = *pfunc;
    PyObject *self;
    int kind = kind_of(pd, func, &self);
    if (kind == PK_NONE) {
        return 0;
    }
    /* a method descriptor called with its object first -- `str.zfill(s,
       n)`, or a method call the evaluator passes unbound (HC_METHOD) --
       gets the checks of the bound call: the object is `self`, the
       arguments follow (the descriptor refuses any other first argument
       itself) */
    if (self == NULL && Py_TYPE(func) == &PyMethodDescr_Type && nargs >= 1 &&
        PyObject_TypeCheck(args[0], PyDescr_TYPE(func))) {
        self = args[0];
        args++;
        nargs--;
    }
    switch ((PolicyKind)kind) {
    case PK_NONE:
        return 0;
    case PK_SLEEP:
    case PK_QUEUE_GET:
    case PK_QUEUE_PUT:
    case PK_QUEUE_JOIN:
    case PK_SQUEUE_GET:
    case PK_FORMAT:
    case PK_FORMAT_MAP: {
        if (Py_TYPE(func) == &PyCFunction_Type &&
            PyCFunction_GET_FUNCTION(func) ==
                (PyCFunction)(void (*)(void))wrapper_call) {
            return 0;
        }
        if ((kind == PK_FORMAT || kind == PK_FORMAT_MAP) && self != NULL &&
            PyUnicode_Check(self) &&
            budget_limited(budget_max_result_bytes(in))) {
            if (format_estimate(in, self, args, nargs, kwnames) < 0) {
                return -1;
            }
        }
        Py_INCREF(func);
        PyObject *w = substitute(in, func);
        if (w == NULL) {
            return -1;
        }
        Py_SETREF(*pfunc, w);
        return 0;
    }
    case PK_FORMAT_BUILTIN:
        if (nargs == 2 && PyUnicode_Check(args[1])) {
            Py_ssize_t fields;
            double width = format_width(args[1], 1, NULL, 0, &fields);
            return check_bytes(in, 4.0 * width, "format");
        }
        return 0;
    case PK_CHOICES: {
        Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
        for (Py_ssize_t i = 0; i < nk; i++) {
            if (str_eq_ascii(PyTuple_GET_ITEM(kwnames, i), "k")) {
                return check_bytes(
                    in, as_double_arg(args[nargs + i]) * SEQ_ITEM_BYTES,
                    "call");
            }
        }
        return 0;
    }
    case PK_PRODUCT: {
        Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
        for (Py_ssize_t i = 0; i < nk; i++) {
            if (str_eq_ascii(PyTuple_GET_ITEM(kwnames, i), "repeat")) {
                /* product keeps `repeat` copies of its pools */
                double total = 0;
                for (Py_ssize_t j = 0; j < nargs; j++) {
                    Py_ssize_t n = PyObject_Length(args[j]);
                    if (n < 0) {
                        PyErr_Clear();
                        n = 1;
                    }
                    total += (double)n;
                }
                if (check_bytes(in,
                                total * as_double_arg(args[nargs + i]) *
                                    SEQ_ITEM_BYTES,
                                "call") < 0) {
                    return -1;
                }
            }
        }
        for (Py_ssize_t i = 0; i < nargs; i++) {
            if (prepare_iterable(in, &args[i], USE_SEQ) < 0) {
                return -1;
            }
        }
        return 0;
    }
    case PK_POW:
        if (nargs == 2 || (nargs == 3 && args[2] == Py_None)) {
            return limits_check_binop(in, OP_Pow, args[0], args[1]);
        }
        if (nargs == 3) {
            /* deadline.c: modular exponentiation's time */
            return deadline_check_modpow(in, args[0], args[1], args[2]);
        }
        return 0;
    case PK_TO_BYTES:
        if (nargs >= 1) {
            return check_bytes(in, as_double_arg(args[0]), "to_bytes");
        }
        if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0 &&
            str_eq_ascii(PyTuple_GET_ITEM(kwnames, 0), "length")) {
            return check_bytes(in, as_double_arg(args[0]), "to_bytes");
        }
        return 0;
    case PK_PROD:
        if (nargs >= 1 && (PyList_Check(args[0]) || PyTuple_Check(args[0]))) {
            /* the product's bits are at most the sum of the factors' */
            double bits = 0;
            for (Py_ssize_t i = 0; i < Py_SIZE(args[0]); i++) {
                PyObject *x = PySequence_Fast_ITEMS(args[0])[i];
                if (PyLong_Check(x)) {
                    size_t b = compat_long_num_bits(x);
                    if (b == (size_t)-1) {
                        PyErr_Clear();
                        b = SIZE_MAX / 2;
                    }
                    bits += (double)b;
                }
            }
            return check_int_bits(in, bits, "product");
        }
        return nargs >= 1 ? prepare_iterable(in, &args[0], USE_REDUCE) : 0;
    case PK_BYTES:
        if (nargs >= 1 && as_double_arg(args[0]) >= 0) {
            return check_bytes(in, as_double_arg(args[0]), "allocation");
        }
        if (nargs == 1) {
            IterUse u = {1, 0, 1};
            return prepare_iterable(in, &args[0], u);
        }
        return 0;
    case PK_STR_PAD: {
        double len;
        int k;
        if (nargs >= 1 && text_shape(self, &len, &k) == 0) {
            return check_bytes(in, as_double_arg(args[0]) * k, "padding");
        }
        return 0;
    }
    case PK_STR_TRANSLATE: {
        double len;
        int k;
        if (nargs == 1 && PyUnicode_Check(self) && PyDict_Check(args[0]) &&
            text_shape(self, &len, &k) == 0) {
            /* a table mapping a character to a long string */
            double longest = 1;
            PyObject *key, *val;
            Py_ssize_t pos = 0;
            while (PyDict_Next(args[0], &pos, &key, &val)) {
                if (PyUnicode_Check(val) &&
                    PyUnicode_GET_LENGTH(val) * 4.0 > longest) {
                    longest = (double)PyUnicode_GET_LENGTH(val) * 4.0;
                }
            }
            return check_bytes(in, len * longest, "translate");
        }
        return 0;
    }
    case PK_STR_EXPANDTABS: {
        PyObject *ts = nargs >= 1 ? args[0] : NULL;
        double len;
        int k;
        if (ts == NULL && kwnames && PyTuple_GET_SIZE(kwnames) == 1) {
            ts = args[0];
        }
        if (ts && as_double_arg(ts) > 0 && text_shape(self, &len, &k) == 0) {
            /* at most every character is a tab */
            Py_ssize_t tabs =
                PyUnicode_Check(self)
                    ? PyUnicode_Count(self, pd->s_tab, 0, PY_SSIZE_T_MAX)
                    : (Py_ssize_t)len;
            if (tabs < 0) {
                PyErr_Clear();
                return 0;
            }
            return check_bytes(in,
                               (len + (double)tabs * as_double_arg(ts)) * k,
                               "expandtabs");
        }
        return 0;
    }
    case PK_STR_REPLACE:
        if (self && (PyBytes_Check(self) || PyByteArray_Check(self)) &&
            nargs >= 2) {
            /* bytes: bound the growth by the worst case */
            double len = (double)Py_SIZE(self);
            Py_ssize_t lo = PyObject_Length(args[0]),
                       ln = PyObject_Length(args[1]);
            if (lo < 0 || ln < 0) {
                PyErr_Clear();
                return 0;
            }
            if (ln <= lo) {
                return 0;
            }
            double occ = lo == 0 ? len + 1 : len / (double)lo;
            return check_bytes(in, len + occ * (double)(ln - lo), "replace");
        }
        if (self && PyUnicode_Check(self) && nargs >= 2 &&
            PyUnicode_Check(args[0]) && PyUnicode_Check(args[1])) {
            Py_ssize_t lo = PyUnicode_GET_LENGTH(args[0]),
                       ln = PyUnicode_GET_LENGTH(args[1]);
            if (ln <= lo) {
                return 0;
            }
            Py_ssize_t occ =
                lo == 0 ? PyUnicode_GET_LENGTH(self) + 1
                        : PyUnicode_Count(self, args[0], 0, PY_SSIZE_T_MAX);
            if (occ < 0) {
                PyErr_Clear();
                return 0;
            }
            if (nargs >= 3 && PyLong_Check(args[2])) {
                double c = as_double_arg(args[2]);
                if (c >= 0 && c < (double)occ) {
                    occ = (Py_ssize_t)c;
                }
            }
            int k = PyUnicode_KIND(self) > PyUnicode_KIND(args[1])
                        ? PyUnicode_KIND(self)
                        : PyUnicode_KIND(args[1]);
            return check_bytes(in,
                               ((double)PyUnicode_GET_LENGTH(self) +
                                (double)occ * (double)(ln - lo)) *
                                   k,
                               "replace");
        }
        return 0;
    case PK_FACTORIAL:
        if (nargs == 1) {
            double n = as_double_arg(args[0]);
            if (n > 2) {
                return check_int_bits(in, n * (log2(n) - 1.4426950408889634),
                                      "factorial");
            }
        }
        return 0;
    case PK_COMB:
        if (nargs == 2) {
            double n = as_double_arg(args[0]), k = as_double_arg(args[1]);
            if (n > 2 && k > 0) {
                double kk = k < n - k ? k : n - k;
                double est = kk * log2(n);
                return check_int_bits(in, est < n ? est : n, "comb");
            }
        }
        return 0;
    case PK_PERM:
        if (nargs >= 1) {
            double n = as_double_arg(args[0]);
            double k =
                nargs >= 2 && args[1] != Py_None ? as_double_arg(args[1]) : n;
            if (n > 2 && k > 0) {
                return check_int_bits(in, k * log2(n), "perm");
            }
        }
        return 0;
    case PK_GETRANDBITS:
        if (nargs == 1) {
            return check_int_bits(in, as_double_arg(args[0]), "getrandbits");
        }
        return 0;
    case PK_RANDBYTES:
        if (nargs == 1) {
            return check_bytes(in, as_double_arg(args[0]), "randbytes");
        }
        return 0;
    case PK_MAT_FIRST:
        return nargs >= 1 ? prepare_iterable(in, &args[0], USE_SEQ) : 0;
    case PK_MAT_HASHED:
        return nargs >= 1 ? prepare_iterable(in, &args[0], USE_HASHED) : 0;
    case PK_MAT_DICT: {
        IterUse u = {HASHED_ITEM_BYTES, 0, 1};
        return nargs == 1 ? prepare_iterable(in, &args[0], u) : 0;
    }
    case PK_SEQ_EXTEND:
        if (nargs == 1 && self != NULL) {
            int r = policy_check_extend(in, self, args[0]);
            if (r <= 0) {
                return r;
            }
            return prepare_iterable(in, &args[0], USE_SEQ);
        }
        return 0;
    case PK_DEQUE: {
        int bounded =
            nargs >= 2 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0);
        return nargs >= 1 ? prepare_iterable(in, &args[0],
                                             bounded ? USE_REDUCE : USE_SEQ)
                          : 0;
    }
    case PK_JOIN: {
        IterUse u = {SEQ_ITEM_BYTES, 1, 0};
        return nargs == 1 ? prepare_iterable(in, &args[0], u) : 0;
    }
    case PK_SUM:
        if (nargs >= 2 && seq_bytes(args[1]) >= 0) {
            IterUse u = {0, 1, 0};
            if (check_bytes(in, (double)seq_bytes(args[1]), "call") < 0) {
                return -1;
            }
            return prepare_iterable(in, &args[0], u);
        }
        return nargs >= 1 ? prepare_iterable(in, &args[0], USE_REDUCE) : 0;
    case PK_MAT_ALL:
    case PK_RED_ALL:
        for (Py_ssize_t i = 0; i < nargs; i++) {
            if (prepare_iterable(in, &args[i],
                                 kind == PK_MAT_ALL ? USE_SEQ : USE_REDUCE) <
                0) {
                return -1;
            }
        }
        return 0;
    case PK_RED_FIRST:
        return nargs >= 1 ? prepare_iterable(in, &args[0], USE_REDUCE) : 0;
    case PK_MINMAX:
        return nargs == 1 ? prepare_iterable(in, &args[0], USE_REDUCE) : 0;
    case PK_ACCUMULATE: {
        PyObject *fn = nargs >= 2 ? args[1] : NULL;
        Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
        for (Py_ssize_t i = 0; i < nk; i++) {
            if (str_eq_ascii(PyTuple_GET_ITEM(kwnames, i), "func")) {
                fn = args[nargs + i];
            }
        }
        if (fn != NULL && PyType_Check(fn) &&
            !(((PyTypeObject *)fn)->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
            /* accumulate(repeat(x), zip) nests zip(zip(zip(...))) in C:
               next() or deallocation then recurses past the C stack */
            raise_interp_error(in,
                               "Forbidden call: itertools.accumulate with the "
                               "type %s as func builds unbounded nesting",
                               ((PyTypeObject *)fn)->tp_name);
            return -1;
        }
        return nargs >= 1 ? prepare_iterable(in, &args[0], USE_REDUCE) : 0;
    }
    case PK_RED_REST:
        for (Py_ssize_t i = 1; i < nargs; i++) {
            if (prepare_iterable(in, &args[i], USE_REDUCE) < 0) {
                return -1;
            }
        }
        return 0;
    }
    return 0;
}

/* ---------------------------------------------------------------- setup */

static void
policy_data_free(PyObject *capsule)
{
    PolicyData *pd =
        PyCapsule_GetPointer(capsule, "smolagents_native._policy");
    if (pd == NULL) {
        PyErr_Clear();
        return;
    }
    if (pd->st != NULL && pd->st->policy == pd) {
        /* the module's namespace is being cleared (interpreter exit): no
           interpreted code runs from now on (interp_enter) */
        pd->st->policy = NULL;
        pd->st->closing = 1;
    }
    Py_XDECREF(pd->refs);
    PyMem_Free(pd->dangerous);
    PyMem_Free(pd);
}

/* Keep `o` alive in pd->refs; returns `o` (borrowed) or NULL. Steals. */
static PyObject *
keep(PolicyData *pd, PyObject *o)
{
    if (o == NULL) {
        return NULL;
    }
    if (PyList_Append(pd->refs, o) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    Py_DECREF(o);
    return o;
}

/* Attribute `path` ("a.b") of module `modname`, kept; NULL (no error) when
 * missing. Borrowed. */
static PyObject *
lookup(PolicyData *pd, const char *modname, const char *path)
{
    PyObject *cur = PyImport_ImportModule(modname);
    if (cur == NULL) {
        PyErr_Clear();
        return NULL;
    }
    while (path != NULL && *path && cur != NULL) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        PyObject *part = PyUnicode_FromStringAndSize(path, (Py_ssize_t)len);
        PyObject *nxt = part ? PyObject_GetAttr(cur, part) : NULL;
        Py_XDECREF(part);
        Py_DECREF(cur);
        cur = nxt;
        path = dot ? dot + 1 : NULL;
    }
    if (cur == NULL) {
        PyErr_Clear();
        return NULL;
    }
    return keep(pd, cur);
}

static void
add_kind(PolicyData *pd, const char *modname, const char *path, int kind)
{
    PyObject *o = lookup(pd, modname, path);
    if (o != NULL) {
        PyObject *self;
        ptab_add(pd, key_of(o, &self), kind);
    }
}

/* Builtins that reach outside the sandbox (policy.def): absent from the
 * builtins interpreted code sees (policy_build_safe_builtins) and refused as
 * values and when called, however they are reached (policy_data_init). */
static const char *const dangerous_builtins[] = {
#define DUNDER_READ(name, why)
#define INTERNAL_NAME(name, why)
#define BUILTIN_REFUSED(name, why) #name,
#define FUNC_REFUSED(mod, path, why)
#include "policy.def"
#undef DUNDER_READ
#undef INTERNAL_NAME
#undef BUILTIN_REFUSED
#undef FUNC_REFUSED
    NULL,
};

static int
policy_data_init(PyObject *module, ModState *st, PyObject *builtins_dict)
{
    PolicyData *pd = PyMem_Calloc(1, sizeof(PolicyData));
    if (pd == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *cap =
        PyCapsule_New(pd, "smolagents_native._policy", policy_data_free);
    if (cap == NULL) {
        PyMem_Free(pd);
        return -1;
    }
    if (PyModule_AddObject(module, "_policy", cap) < 0) {
        Py_DECREF(cap);
        return -1;
    }
    st->policy = pd;
    pd->st = st;
    pd->refs = PyList_New(0);
    if (pd->refs == NULL) {
        return -1;
    }
#define INTERN(field, s)                                                 \
    if ((pd->field = keep(pd, PyUnicode_InternFromString(s))) == NULL) { \
        return -1;                                                       \
    }
    INTERN(s_format, "format");
    INTERN(s_format_map, "format_map");
    INTERN(s_obj, "obj");
    INTERN(s_init, "__init__");
    INTERN(s_module, "__module__");
    INTERN(s_main, "__main__");
    INTERN(s_builtins, "__builtins__");
    INTERN(s_name, "__name__");
    INTERN(s_all, "__all__");
    INTERN(s_unfinished, "unfinished_tasks");
    INTERN(s_all_tasks_done, "all_tasks_done");
    INTERN(s_wait, "wait");
    INTERN(s_enter, "__enter__");
    INTERN(s_exit, "__exit__");
    INTERN(s_block, "block");
    INTERN(s_timeout, "timeout");
    INTERN(s_tab, "\t");
    INTERN(s_lbrace, "{");
#undef INTERN
#if COMPAT_HAS_DICT_TAG
    {
        PyObject *mods = PyImport_GetModuleDict(); /* borrowed */
        if (PyDict_CheckExact(mods) &&
            (pd->ns_modules = keep(pd, Py_NewRef(mods))) == NULL) {
            return -1;
        }
    }
#endif
    /* names */
    /* names (policy.def) */
    static const char *const dunder_allow[] = {
#define DUNDER_READ(name, why) #name,
#define INTERNAL_NAME(name, why)
#define BUILTIN_REFUSED(name, why)
#define FUNC_REFUSED(mod, path, why)
#include "policy.def"
#undef DUNDER_READ
#undef INTERNAL_NAME
        NULL,
    };
    static const char *const internal_names[] = {
#define DUNDER_READ(name, why)
#define INTERNAL_NAME(name, why) #name,
#include "policy.def"
#undef DUNDER_READ
#undef INTERNAL_NAME
#undef BUILTIN_REFUSED
#undef FUNC_REFUSED
        NULL,
    };
    PyObject *sets[2] = {NULL, NULL};
    const char *const *lists[2] = {dunder_allow, internal_names};
    for (int k = 0; k < 2; k++) {
        PyObject *s = PySet_New(NULL);
        for (int i = 0; s && lists[k][i]; i++) {
            PyObject *nm = PyUnicode_InternFromString(lists[k][i]);
            if (nm == NULL || PySet_Add(s, nm) < 0) {
                Py_CLEAR(s);
            }
            Py_XDECREF(nm);
        }
        PyObject *fs = s ? PyFrozenSet_New(s) : NULL;
        Py_XDECREF(s);
        if ((sets[k] = keep(pd, fs)) == NULL) {
            return -1;
        }
    }
    pd->dunder_allow = sets[0];
    pd->internal_names = sets[1];
    /* str.format's parser */
    if ((pd->formatter_parser = lookup(pd, "_string", "formatter_parser")) ==
            NULL ||
        (pd->field_name_split =
             lookup(pd, "_string", "formatter_field_name_split")) == NULL) {
        PyErr_SetString(PyExc_ImportError, "_string is required");
        return -1;
    }
    /* dangerous objects: refused as values and when called */
    PyObject *dl = PyList_New(0);
    if (dl == NULL) {
        return -1;
    }
    for (int i = 0; dangerous_builtins[i]; i++) {
        PyObject *v =
            PyDict_GetItemString(builtins_dict, dangerous_builtins[i]);
        if (v != NULL && PyList_Append(dl, v) < 0) {
            Py_DECREF(dl);
            return -1;
        }
    }
    static const char *const dangerous_mod[][2] = {
#define DUNDER_READ(name, why)
#define INTERNAL_NAME(name, why)
#define BUILTIN_REFUSED(name, why)
#define FUNC_REFUSED(mod, path, why) {#mod, path},
#include "policy.def"
#undef DUNDER_READ
#undef INTERNAL_NAME
#undef BUILTIN_REFUSED
#undef FUNC_REFUSED
        {NULL, NULL},
    };
    for (int i = 0; dangerous_mod[i][0]; i++) {
        PyObject *v = lookup(pd, dangerous_mod[i][0], dangerous_mod[i][1]);
        if (v != NULL && PyList_Append(dl, v) < 0) {
            Py_DECREF(dl);
            return -1;
        }
    }
    if (keep(pd, Py_NewRef(dl)) == NULL) {
        Py_DECREF(dl);
        return -1;
    }
    pd->ndangerous = PyList_GET_SIZE(dl);
    size_t slots = 16;
    while (slots < 4 * (size_t)pd->ndangerous) {
        slots *= 2;
    }
    pd->dmask = slots - 1;
    pd->dangerous = PyMem_Calloc(slots, sizeof(uintptr_t));
    if (pd->dangerous == NULL) {
        Py_DECREF(dl);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < pd->ndangerous; i++) {
        PyObject *v = PyList_GET_ITEM(dl, i);
        uintptr_t key = (uintptr_t)v;
        size_t at = dset_slot(key, pd->dmask);
        while (pd->dangerous[at] != 0 && pd->dangerous[at] != key) {
            at = (at + 1) & pd->dmask;
        }
        pd->dangerous[at] = key;
        int seen = 0;
        for (int k = 0; k < pd->ndangerous_types; k++) {
            seen |= pd->dangerous_types[k] == Py_TYPE(v);
        }
        if (!seen) {
            if (pd->ndangerous_types == DANGEROUS_TYPES_MAX) {
                /* value_verdict_by_type needs them all */
                Py_DECREF(dl);
                PyErr_SetString(PyExc_SystemError,
                                "policy: too many types of dangerous objects");
                return -1;
            }
            pd->dangerous_types[pd->ndangerous_types++] = Py_TYPE(v);
        }
    }
    Py_DECREF(dl);
    /* synchronization primitives */
    PyObject *sync = PyList_New(0);
    if (sync == NULL) {
        return -1;
    }
    static const char *const sync_names[][2] = {
        {"_thread", "LockType"},    {"_thread", "RLock"},
        {"threading", "Condition"}, {"threading", "Semaphore"},
        {"threading", "Event"},     {"threading", "Barrier"},
        {"threading", "_RLock"},    {NULL, NULL},
    };
    for (int i = 0; sync_names[i][0]; i++) {
        PyObject *t = lookup(pd, sync_names[i][0], sync_names[i][1]);
        if (t != NULL && PyType_Check(t) && PyList_Append(sync, t) < 0) {
            Py_DECREF(sync);
            return -1;
        }
    }
    pd->sync_types = keep(pd, PyList_AsTuple(sync));
    Py_DECREF(sync);
    if (pd->sync_types == NULL) {
        return -1;
    }
    /* the callables the policy knows */
    add_kind(pd, "time", "sleep", PK_SLEEP);
    add_kind(pd, "queue", "Queue.get", PK_QUEUE_GET);
    add_kind(pd, "queue", "Queue.put", PK_QUEUE_PUT);
    add_kind(pd, "queue", "Queue.join", PK_QUEUE_JOIN);
    add_kind(pd, "queue", "SimpleQueue.get", PK_SQUEUE_GET);
    pd->queue_empty = lookup(pd, "queue", "Empty");
    pd->queue_full = lookup(pd, "queue", "Full");
    if (pd->queue_empty == NULL || pd->queue_full == NULL) {
        pd->queue_empty = pd->queue_full = PyExc_Exception; /* never matched */
    }
    add_kind(pd, "builtins", "str.format", PK_FORMAT);
    add_kind(pd, "builtins", "str.format_map", PK_FORMAT_MAP);
    add_kind(pd, "builtins", "pow", PK_POW);
    add_kind(pd, "builtins", "int.to_bytes", PK_TO_BYTES);
    add_kind(pd, "math", "prod", PK_PROD);
    add_kind(pd, "builtins", "bytes", PK_BYTES);
    add_kind(pd, "builtins", "bytearray", PK_BYTES);
    add_kind(pd, "builtins", "str.ljust", PK_STR_PAD);
    add_kind(pd, "builtins", "str.rjust", PK_STR_PAD);
    add_kind(pd, "builtins", "str.center", PK_STR_PAD);
    add_kind(pd, "builtins", "str.zfill", PK_STR_PAD);
    add_kind(pd, "builtins", "str.expandtabs", PK_STR_EXPANDTABS);
    add_kind(pd, "builtins", "str.replace", PK_STR_REPLACE);
    add_kind(pd, "builtins", "str.translate", PK_STR_TRANSLATE);
    static const char *const bytes_types[] = {"bytes", "bytearray", NULL};
    static const char *const bytes_pad[] = {"ljust", "rjust", "center",
                                            "zfill", NULL};
    for (int t = 0; bytes_types[t]; t++) {
        char path[64];
        for (int i = 0; bytes_pad[i]; i++) {
            snprintf(path, sizeof(path), "%s.%s", bytes_types[t],
                     bytes_pad[i]);
            add_kind(pd, "builtins", path, PK_STR_PAD);
        }
        snprintf(path, sizeof(path), "%s.expandtabs", bytes_types[t]);
        add_kind(pd, "builtins", path, PK_STR_EXPANDTABS);
        snprintf(path, sizeof(path), "%s.replace", bytes_types[t]);
        add_kind(pd, "builtins", path, PK_STR_REPLACE);
    }
    add_kind(pd, "math", "factorial", PK_FACTORIAL);
    add_kind(pd, "math", "comb", PK_COMB);
    add_kind(pd, "math", "perm", PK_PERM);
    add_kind(pd, "random", "Random.getrandbits", PK_GETRANDBITS);
    add_kind(pd, "random", "Random.randbytes", PK_RANDBYTES);
    add_kind(pd, "builtins", "list", PK_MAT_FIRST);
    add_kind(pd, "builtins", "tuple", PK_MAT_FIRST);
    add_kind(pd, "builtins", "sorted", PK_MAT_FIRST);
    add_kind(pd, "builtins", "set", PK_MAT_HASHED);
    add_kind(pd, "builtins", "frozenset", PK_MAT_HASHED);
    add_kind(pd, "builtins", "dict.fromkeys", PK_MAT_HASHED);
    add_kind(pd, "builtins", "list.extend", PK_SEQ_EXTEND);
    add_kind(pd, "builtins", "bytearray.extend", PK_SEQ_EXTEND);
    add_kind(pd, "builtins", "set.update", PK_MAT_ALL);
    add_kind(pd, "builtins", "dict", PK_MAT_DICT);
    add_kind(pd, "builtins", "str.join", PK_JOIN);
    add_kind(pd, "builtins", "bytes.join", PK_JOIN);
    add_kind(pd, "builtins", "min", PK_MINMAX);
    add_kind(pd, "builtins", "max", PK_MINMAX);
    add_kind(pd, "builtins", "sum", PK_SUM);
    static const char *const red_first[] = {"any", "all", "enumerate", NULL};
    for (int i = 0; red_first[i]; i++) {
        add_kind(pd, "builtins", red_first[i], PK_RED_FIRST);
    }
    add_kind(pd, "builtins", "zip", PK_RED_ALL);
    add_kind(pd, "builtins", "map", PK_RED_REST);
    add_kind(pd, "builtins", "filter", PK_RED_REST);
    add_kind(pd, "collections", "deque", PK_DEQUE);
    add_kind(pd, "collections", "deque.extend", PK_SEQ_EXTEND);
    add_kind(pd, "collections", "Counter", PK_MAT_DICT);
    add_kind(pd, "itertools", "cycle", PK_MAT_FIRST);
    add_kind(pd, "itertools", "product", PK_PRODUCT);
    add_kind(pd, "builtins", "format", PK_FORMAT_BUILTIN);
    add_kind(pd, "random", "choices", PK_CHOICES);
    add_kind(pd, "random", "Random.choices", PK_CHOICES);
    /* statistics functions iterate their data in Python: budget-aware
       iterators let them notice the deadline and the size budget */
    static const char *const stats[] = {
        "mean",
        "fmean",
        "geometric_mean",
        "harmonic_mean",
        "median",
        "median_low",
        "median_high",
        "median_grouped",
        "mode",
        "multimode",
        "pstdev",
        "pvariance",
        "stdev",
        "variance",
        "quantiles",
        "correlation",
        "covariance",
        "linear_regression",
        NULL,
    };
    for (int i = 0; stats[i]; i++) {
        add_kind(pd, "statistics", stats[i], PK_MAT_ALL);
    }
    static const char *const it_mat_first[] = {
        "permutations",
        "combinations",
        "combinations_with_replacement",
        NULL,
    };
    for (int i = 0; it_mat_first[i]; i++) {
        add_kind(pd, "itertools", it_mat_first[i], PK_MAT_FIRST);
    }
    /* (not tee: it loops over nothing itself, and copies a tee object it
       is given, which a budget iterator in its place would hide: whatever
       consumes its results in C gets them wrapped) */
    static const char *const it_red_first[] = {
        "islice", "groupby", "pairwise", "chain.from_iterable", NULL,
    };
    for (int i = 0; it_red_first[i]; i++) {
        add_kind(pd, "itertools", it_red_first[i], PK_RED_FIRST);
    }
    add_kind(pd, "itertools", "accumulate", PK_ACCUMULATE);
    add_kind(pd, "itertools", "chain", PK_RED_ALL);
    add_kind(pd, "itertools", "zip_longest", PK_RED_ALL);
    add_kind(pd, "itertools", "compress", PK_RED_ALL);
    static const char *const it_red_rest[] = {
        "starmap", "dropwhile", "takewhile", "filterfalse", NULL,
    };
    for (int i = 0; it_red_rest[i]; i++) {
        add_kind(pd, "itertools", it_red_rest[i], PK_RED_REST);
    }
    PyErr_Clear();
    pd->budget_iter_type =
        (PyTypeObject *)keep(pd, PyType_FromSpec(&budget_iter_spec));
    if (pd->budget_iter_type == NULL) {
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- builtins */

/* The builtins interpreted code sees, minus what reaches outside.  The
 * guarded replacements (print, getattr, ...) are added per interpreter by
 * module.c.  Also sets up the policy's tables (st->policy). */
PyObject *
policy_build_safe_builtins(PyObject *module, ModState *st)
{
    /* besides the dangerous builtins: module metadata, and the names the
       interpreter replaces with guarded versions (module.c) */
    static const char *const replaced[] = {
        "__loader__", "__spec__", "__package__", "__doc__",
        "__debug__",  "getattr",  "setattr",     "hasattr",
        "delattr",    "print",    NULL,
    };
    PyObject *b = PyImport_ImportModule("builtins");
    if (b == NULL) {
        return NULL;
    }
    PyObject *d = PyModule_GetDict(b);
    if (policy_data_init(module, st, d) < 0) {
        Py_DECREF(b);
        return NULL;
    }
    PyObject *out = PyDict_Copy(d);
    Py_DECREF(b);
    if (out == NULL) {
        return NULL;
    }
    for (int i = 0; dangerous_builtins[i]; i++) {
        if (PyDict_DelItemString(out, dangerous_builtins[i]) < 0) {
            PyErr_Clear();
        }
    }
    for (int i = 0; replaced[i]; i++) {
        if (PyDict_DelItemString(out, replaced[i]) < 0) {
            PyErr_Clear();
        }
    }
    if (PyDict_SetItemString(out, "__name__", st->str_main) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}
