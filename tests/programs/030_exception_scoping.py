# The "as" name is deleted at the end of the handler; exceptions in handlers propagate.
e = "outer value"
try:
    raise ValueError("temporary")
except ValueError as e:
    print("inside handler:", e)
try:
    print(e)
except NameError as err:
    print("NameError:", err)

saved = None
try:
    1 / 0
except ZeroDivisionError as exc:
    saved = exc
print("saved survives:", type(saved).__name__, saved)

try:
    try:
        raise KeyError("a")
    except KeyError:
        raise ValueError("raised while handling")
except ValueError as err:
    print("outer handler sees:", err)

try:
    try:
        raise KeyError("a")
    except KeyError:
        {}["b"]
except KeyError as err:
    print("second KeyError:", err)


def f():
    try:
        raise TypeError("in f")
    except TypeError as problem:
        message = str(problem)
    return message, message.upper()


print(f())
