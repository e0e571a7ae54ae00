# The dunder attributes code may read: __name__, __class__, __doc__.
class Report:
    """Monthly report."""

    def title(self):
        """Return the title."""
        return f"{self.__class__.__name__} instance"


class Child(Report):
    pass


r = Report()
c = Child()
print(r.title(), c.title())
print(Report.__doc__, Report.title.__doc__, Child.__doc__)
print(Report.__name__, type(c).__name__, c.__class__ is Child)
print(len.__name__, int.__name__, type(None).__name__, type(3.5).__name__)


def fn():
    """Docstring of fn."""


print(fn.__name__, fn.__doc__, (lambda: 0).__name__, (lambda: 0).__doc__)
names = [t.__name__ for t in (list, dict, set, frozenset, bytes, bool, range)]
print(names)
obj_types = {type(v).__name__ for v in [1, "a", [], {}, (), 1.0, None]}
print(sorted(obj_types))
print(ValueError("x").__class__.__name__, KeyError.__name__)
print(str.upper.__name__, "abc".upper.__name__, [].append.__name__)
