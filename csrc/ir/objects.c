/* objects.c: what the layers below the evaluator need to know of its
 * objects, without depending on it: whether an object is an interpreted
 * function, and the binding of one to an instance (tp_descr_get of the
 * function type), with the method lookup that asks for it unbound
 * (provenance.c's method calls).  function.c builds the type with
 * function_descr_get as its slot; the guards (gadgets.c, provenance.c) test
 * and look up through here.
 */
#include "ir.h"

/* A method call `obj.name(...)` on an instance of the code's classes
 * without the bound method CPython's attribute load would build: `getattro`
 * (the class's own generic lookup) runs as for any load, but when it binds
 * `func` (the interpreted function the type's MRO gives for the name) to
 * `obj`, function_descr_get hands `func` back unbound and says so (*unbound
 * = 1).  An instance attribute of that name, a data descriptor, anything
 * else the lookup finds comes back as the load would give it (*unbound =
 * 0).  The request names both the object and the function, so only that
 * binding answers it; it is consumed by the first answer and the previous
 * request (a lookup inside a lookup) is restored after. */
static HOT_TLS struct {
    PyObject *obj; /* identities only */
    PyObject *func;
    int hit;
} unbound_want; /* per thread: another thread's lookup may run between the
                   request and its answer when the GIL changes hands */

/* Is `o` an interpreted function (of any module instance)? */
int
function_is_interpreted(PyObject *o)
{
    return Py_TYPE(o)->tp_descr_get == function_descr_get;
}

PyObject *
function_get_method(PyObject *obj, PyObject *name, PyObject *func,
                    getattrofunc getattro, int *unbound)
{
    PyObject *saved_obj = unbound_want.obj, *saved_func = unbound_want.func;
    int saved_hit = unbound_want.hit;
    unbound_want.obj = obj;
    unbound_want.func = func;
    unbound_want.hit = 0;
    PyObject *r = getattro(obj, name);
    *unbound = unbound_want.hit && r == func;
    unbound_want.obj = saved_obj;
    unbound_want.func = saved_func;
    unbound_want.hit = saved_hit;
    return r;
}

PyObject *
function_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == Py_None || obj == NULL) {
        Py_INCREF(self);
        return self;
    }
    if (obj == unbound_want.obj && self == unbound_want.func) {
        /* function_get_method's lookup reached the binding: no instance
           attribute shadows the method; hand it over unbound, once */
        unbound_want.obj = NULL;
        unbound_want.hit = 1;
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}
