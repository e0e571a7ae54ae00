/* front.h: the public header of the `front` layer (docs/design.md, section
 * 6.1): the lowering: Python ast objects to the IR, and the scope pass.
 *
 * A file includes its own layer's header and, through it, the layers below;
 * never a header of a layer above (scripts/check_layers.py).
 */
#ifndef SMOLAGENTS_NATIVE_FRONT_H
#define SMOLAGENTS_NATIVE_FRONT_H

#include "eval/eval.h"

/* lower.c */
int lower_init_state(PyObject *module, ModState *st);
/* Returns a new ProgramObject or NULL.  A SyntaxError is left set as is; a
 * refused construct raises the interpreter error. */
PyObject *lower_program(ModState *st, Interp *in, PyObject *source);
extern PyType_Spec Program_spec;

/* parse.c: CPython's parse of `source` (str) to a Python ast.Module, one
 * thread at a time where CPython's ast construction needs it; every parse to
 * ast objects of this module goes through it.  NULL with CPython's error. */
PyObject *front_parse_ast(PyObject *source, PyObject *filename);

#endif /* SMOLAGENTS_NATIVE_FRONT_H */
