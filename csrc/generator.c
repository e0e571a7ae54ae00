/* generator.c: interpreted generators (placeholder until implemented). */
#include "interp.h"

PyObject *
generator_new(FunctionObject *fn, Frame *fr)
{
    PyErr_SetString(PyExc_NotImplementedError, "generators are not implemented yet");
    return NULL;
}

PyObject *
gen_yield(Frame *f, PyObject *value)
{
    PyErr_SetString(PyExc_NotImplementedError, "yield is not implemented yet");
    return NULL;
}

PyObject *
gen_yield_from(Frame *f, PyObject *iterable)
{
    PyErr_SetString(PyExc_NotImplementedError, "yield from is not implemented yet");
    return NULL;
}

static PyType_Slot generator_slots[] = {
    {0, NULL},
};

PyType_Spec Generator_spec = {
    .name = "smolagents_native._core.generator",
    .basicsize = sizeof(PyObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = generator_slots,
};
