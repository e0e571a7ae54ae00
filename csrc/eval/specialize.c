/* specialize.c: the one writer of the evaluator's inline caches.
 *
 * The inline caches of a node are the fields of its kind's CACHE line in
 * nodes.def (Call: the call gate's remembered callable and the class whose
 * __init__ a call site runs directly; Attribute: the method found on a type,
 * the module and module value a load passed, the type and tag whose verdict
 * depends on the type alone, the instance dict position of a name; Name: the
 * tools epoch a store was checked at).  Everything else reads them; only the
 * functions here write them, each from a verdict its caller obtained: the
 * guards (policy.c, hostcall.c, provenance.c) decide and return what may be
 * remembered, and never touch a node (tests/security/test_inline_caches.py
 * holds both by reading the sources).
 *
 * A value a cache holds by identity is kept alive by the program (appended to
 * its consts) or is valid while a type's version tag is unchanged (tags are
 * never reused); a cache only ever learns a bounded number of times (the
 * *_fills counters), after which the site takes the full path for good. */
#include "eval.h"

void
specialize_name_checked(Node *t, uint32_t tools_epoch)
{
    t->Name.checked_epoch = tools_epoch;
}

void
specialize_call_gate(Node *e, PyObject *program, PyObject *func, int plain)
{
    if (e->Call.hc_fills >= HC_MAX_FILLS) {
        return; /* megamorphic: always the full gate */
    }
    /* a module value the callee node holds (Attribute.mval) is kept alive
       by the program already; anything else is appended to its consts */
    if (PyList_Append(((ProgramObject *)program)->consts, func) < 0) {
        PyErr_Clear();
        return;
    }
    e->Call.hc_func = func; /* held by the program from now on */
    e->Call.hc_plain = (uint8_t)(plain != 0);
    e->Call.hc_fills++;
}

void
specialize_call_init(Node *e, const CompatTypeCache *learned)
{
    e->Call.icache = *learned;
}

void
specialize_attr_verdict(Node *e, const AttrVerdict *v)
{
    if (v->type == NULL) {
        return;
    }
    e->Attribute.itype = v->type;
    e->Attribute.itag = v->tag;
    if (v->dict_only_tag != 0) {
        e->Attribute.stag = v->dict_only_tag;
        e->Attribute.svidx = v->slot;
        e->Attribute.sfills += v->slot_learn;
    }
}

void
specialize_module_checked(Frame *f, Node *attr, PyObject *mod)
{
    Interp *in = f->in;
    if (attr->Attribute.mod_ok == mod) {
        attr->Attribute.mod_epoch = in_budget(in)->window_epoch; /* held */
        /* a new window: the value's verdict is the window's to give */
        attr->Attribute.mval_version = MVAL_STALE;
    }
    else if (attr->Attribute.mod_fills < MOD_MAX_FILLS &&
             PyList_Append(((ProgramObject *)f->program)->consts, mod) == 0) {
        attr->Attribute.mod_ok = mod;
        attr->Attribute.mod_epoch = in_budget(in)->window_epoch;
        attr->Attribute.mod_fills++;
        attr->Attribute.mval = NULL;
    }
    else {
        PyErr_Clear();
    }
}

void
specialize_module_value(Frame *f, Node *attr, PyObject *v, uint64_t version)
{
    if (v != attr->Attribute.mval) {
        if (attr->Attribute.mval_fills >= MOD_MAX_FILLS ||
            PyList_Append(((ProgramObject *)f->program)->consts, v) < 0) {
            PyErr_Clear();
            return;
        }
        attr->Attribute.mval = v;
        attr->Attribute.mval_fills++;
    }
    attr->Attribute.mval_version = version;
}

void
specialize_method(Node *attr, PyTypeObject *mtype, int mcode,
                  const CompatTypeCache *tcache)
{
    attr->Attribute.mtype = mtype;
    attr->Attribute.mcode = (uint8_t)(mcode != 0);
    attr->Attribute.tcache = *tcache;
    attr->Attribute.mabsent = 0; /* its type's, which may be another now */
}

void
specialize_method_absent(Node *attr, uint8_t absent)
{
    attr->Attribute.mabsent = absent;
}

NOINLINE void
specialize_instance_attr(Node *e, PyObject *obj, PyObject *v)
{
    e->Attribute.afills++;
    if (Py_TYPE(obj)->tp_dictoffset == 0) {
        return; /* no instance dict */
    }
    /* v was read from obj by name just before (no code ran since): the one
       inline slot holding it is the name's, for good (shared keys are only
       added to) */
    uint32_t vslot = compat_inline_find(obj, v);
    PyObject *found = compat_type_lookup(Py_TYPE(obj), e->obj);
    if (found != NULL || PyErr_Occurred()) {
        Py_XDECREF(found);
        PyErr_Clear();
        return;
    }
    if (vslot != 0) {
        /* the values are read where CPython keeps them: no dict object
           made for the instance */
        e->Attribute.vidx = (uint8_t)vslot;
        e->Attribute.aidx = 0;
        e->Attribute.atag = e->Attribute.itag;
        return;
    }
    if (e->Attribute.afills < AIDX_MAX_FILLS &&
        compat_inline_values(obj) != NULL) {
        /* inline values, but several slots hold this one (small ints,
           None): placed at a later read; the dict position below, the
           last resort, makes a dict object for the instance, which its
           stores then go through */
        return;
    }
    PyObject *d = PyObject_GenericGetDict(obj, NULL);
    if (d == NULL) {
        PyErr_Clear();
        return;
    }
    Py_ssize_t pos = 0, at = 0;
    PyObject *k, *val;
    while (PyDict_Next(d, &pos, &k, &val)) {
        if (k == e->obj && val == v) {
            if (at < INT32_MAX) {
                e->Attribute.aidx = (int32_t)at + 1;
                e->Attribute.vidx = 0;
                e->Attribute.atag = e->Attribute.itag;
            }
            break;
        }
        at = pos;
    }
    Py_DECREF(d);
}
