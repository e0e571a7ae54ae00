# Bare raise re-raises the exception being handled; with none, it is a RuntimeError.
def risky():
    raise KeyError("missing")


def wrapper():
    try:
        risky()
    except KeyError:
        print("logging and re-raising")
        raise


try:
    wrapper()
except KeyError as e:
    print("caller got", repr(e))


def reraise_after_handling_other():
    try:
        raise ValueError("outer")
    except ValueError:
        try:
            raise TypeError("inner")
        except TypeError:
            pass
        raise


try:
    reraise_after_handling_other()
except Exception as e:
    print("re-raised:", type(e).__name__, e)

try:
    raise
except RuntimeError as e:
    print("RuntimeError:", e)


def handler():
    raise


try:
    try:
        raise IndexError("from handler")
    except IndexError:
        handler()
except IndexError as e:
    print("raise in called function sees active exception:", e)
