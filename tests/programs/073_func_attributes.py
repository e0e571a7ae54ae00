# Function objects: __name__, __doc__, custom attributes, functions as values.
def documented(x):
    """Return x doubled."""
    return 2 * x


def undocumented():
    pass


print(documented.__name__, documented.__doc__, undocumented.__doc__)

documented.calls = 0
documented.calls += 1
print(documented.calls, getattr(documented, "missing", "none"))


def counted(func):
    def wrapper(*a):
        wrapper.count += 1
        return func(*a)
    wrapper.count = 0
    return wrapper


@counted
def hello():
    return "hi"


hello()
hello()
print(hello.count, hello.__name__)

dispatch = {f.__name__: f for f in (documented, undocumented, hello)}
print(sorted(dispatch), dispatch["documented"](21))
print(callable(documented), callable(5), callable(dispatch), callable(len))


class K:
    """Class docstring."""

    def method(self):
        """Method docstring."""


print(K.__doc__, K.method.__doc__, K().method.__name__, K.__name__)
