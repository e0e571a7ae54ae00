# requires: 3.14
# PEP 758: `except` and `except*` with several types and no parentheses
def classify(exc):
    try:
        raise exc
    except ValueError, TypeError:
        return "value-or-type"
    except KeyError, IndexError:
        return "lookup"
    except Exception:
        return "other"

print([classify(e) for e in (ValueError("v"), TypeError("t"), KeyError("k"), IndexError(1), ZeroDivisionError())])

try:
    raise ExceptionGroup("g", [ValueError(1), KeyError(2), OSError(3)])
except* ValueError, KeyError:
    print("star: value or key")
except* OSError:
    print("star: os")

caught = []
for exc in (ArithmeticError, LookupError, RuntimeError):
    try:
        raise exc("x")
    except ArithmeticError, LookupError:
        caught.append(exc.__name__)
    except (RuntimeError) as e:  # with `as`, parentheses stay required
        caught.append("parenthesized " + type(e).__name__)
print(caught)
