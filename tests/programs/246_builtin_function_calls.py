# Builtin functions and builtin bound methods called with positional arguments (the evaluator
# calls their C function directly for the METH_O / METH_NOARGS / METH_FASTCALL forms, as
# CPython's specialized calls do), and module values read again and again at one site (the
# site remembers the value while the module's dict is unchanged): results, wrong argument
# counts (whose errors the full call words), keywords and errors raised inside.  (Module
# values replaced between two reads: tests/security/test_module_value_cache.py, since the
# code itself cannot assign a module's attributes.)
import math
import random

errors = []


def attempt(label, f, *args, **kw):
    try:
        return f(*args, **kw)
    except Exception as e:
        errors.append((label, type(e).__name__, str(e)))
        return None


def loop():
    out = []
    for i in range(6):
        out.append(len("x" * i))                # METH_O
        out.append(isinstance(i, int))          # METH_FASTCALL
        out.append(abs(-i))
        out.append(divmod(i + 7, 3))
        out.append(min(i, 3, key=None))         # keywords: the full call
        out.append(round(math.sqrt(i), 6))      # a module function
        out.append(math.pi > 3)                 # a module constant
        out.append(random.random() < 1.0)       # a method bound to the module's Random
        out.append(sorted([i, 2, 1])[0])
        out.append(hash(i) == i)
        out.append(callable(len))
        out.append(chr(65 + i) + repr(i))
        out.append(format(i, "03d"))
        out.append(getattr(i, "real"))
    return out


random.seed(3)
print(loop())
print(loop() == loop())

attempt("len2", len, 1, 2)
attempt("len0", len)
attempt("isinstance1", isinstance, 1)
attempt("random1", random.random, 1)
attempt("abs0", abs)
attempt("divmod0", divmod, 1, 0)
attempt("chr", chr, -1)
attempt("sqrt", math.sqrt, -1)
attempt("kw", len, obj=1)
for i in range(3):
    attempt("loop-len", len, i)
    attempt("loop-math", math.floor, "x")
print(errors)

seen = []
for i in range(4):
    seen.append(math.floor(2.5))
print(seen)


def reads(m, n):
    r = []
    for _ in range(n):
        r.append(m.e)
    return r


print(reads(math, 3))
print([math.tau == 2 * math.pi for _ in range(3)])
