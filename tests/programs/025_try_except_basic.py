# try/except basics: matching by class, binding with as, handler order.
def parse(text):
    try:
        value = int(text)
    except ValueError as e:
        print("bad input:", e)
        return None
    return value


print(parse("12"), parse("x1"), parse(" 7 "))

try:
    [1, 2][5]
except (KeyError, IndexError) as e:
    print(type(e).__name__, e)

try:
    {}["k"]
except Exception as e:
    print("caught by Exception:", type(e).__name__, repr(e))

try:
    1 / 0
except ArithmeticError as e:
    print("ArithmeticError family:", type(e).__name__, e.args)

try:
    raise ValueError("first", 2)
except TypeError:
    print("wrong handler")
except ValueError as e:
    print("right handler", e.args, str(e))
except Exception:
    print("never: earlier handler matched")

try:
    try:
        raise KeyError("inner")
    except IndexError:
        print("not this one")
except LookupError as e:
    print("outer caught", repr(e))
