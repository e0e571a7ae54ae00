# Handler selection: first matching clause wins, subclasses match base clauses.
class Base(Exception):
    pass


class Child(Base):
    pass


class GrandChild(Child):
    pass


def which(exc):
    try:
        raise exc
    except GrandChild:
        return "GrandChild clause"
    except Child:
        return "Child clause"
    except Base:
        return "Base clause"
    except (TypeError, ValueError) as e:
        return f"tuple clause ({type(e).__name__})"
    except Exception:
        return "Exception clause"


for exc in [GrandChild(), Child(), Base(), ValueError(), TypeError(), KeyError(), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad")]:
    print(type(exc).__name__, "->", which(exc))

handlers = (KeyError, IndexError)
try:
    [][0]
except handlers as e:
    print("handlers tuple from a variable:", e)

print(issubclass(KeyError, LookupError), issubclass(UnicodeDecodeError, ValueError))
print(issubclass(ZeroDivisionError, ArithmeticError), issubclass(FileNotFoundError, OSError))
print(isinstance(StopIteration(), Exception), issubclass(KeyboardInterrupt, Exception))
