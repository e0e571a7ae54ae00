# Decorators without arguments: wrapping, replacing, registering.
call_log = []


def logged(func):
    def wrapper(*args, **kwargs):
        call_log.append(f"{func.__name__}{args}")
        return func(*args, **kwargs)
    return wrapper


@logged
def add(a, b):
    return a + b


@logged
def greet(name="world"):
    return f"hello {name}"


print(add(2, 3), greet(), greet("ann"))
print(call_log)
print(add.__name__)

registry = {}


def register(func):
    registry[func.__name__] = func
    return func


@register
def alpha():
    return "A"


@register
def beta():
    return "B"


print(sorted(registry), registry["beta"]())


def replace_with_value(func):
    return func()


@replace_with_value
def computed():
    return 6 * 7


print(computed)
