# Exceptions inside with-blocks, in __exit__, and replacing exceptions.
class Tracker:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print("enter", self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        print("exit", self.name, exc_type.__name__ if exc_type else None)


try:
    with Tracker("outer"), Tracker("inner"):
        raise ValueError("body failed")
except ValueError as e:
    print("caught", e)


class ExitRaises:
    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        raise RuntimeError(f"exit replaced {exc_type.__name__ if exc_type else 'nothing'}")


try:
    with ExitRaises():
        raise KeyError("original")
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    with ExitRaises():
        pass
except RuntimeError as e:
    print("RuntimeError:", e)


class NotAManager:
    pass


try:
    with NotAManager():
        pass
except TypeError as e:
    print("TypeError:", e)
except AttributeError as e:
    print("AttributeError:", e)
