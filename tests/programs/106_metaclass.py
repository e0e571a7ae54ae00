# A simple metaclass deriving from type, selected with the metaclass keyword.
class Registered(type):
    registry = []

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        if bases:
            Registered.registry.append(name)
        cls.field_names = sorted(k for k in namespace if not k.startswith("_") and not callable(namespace[k]))


class Model(metaclass=Registered):
    pass


class User(Model):
    name = ""
    age = 0

    def greet(self):
        return "hi"


class Order(Model):
    total = 0.0


print(Registered.registry)
print(User.field_names, Order.field_names, Model.field_names)
print(type(User).__name__, isinstance(User, Registered), isinstance(User(), Model))
print(User().greet(), type(User()).__name__)


class Upper(type):
    def shout(cls):
        return cls.__name__.upper()


class Quiet(metaclass=Upper):
    pass


print(Quiet.shout(), hasattr(Quiet(), "shout"))
