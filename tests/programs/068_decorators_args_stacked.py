# Decorator factories (decorators with arguments) and stacking order.
order = []

def tag(label):
    order.append(f"factory {label}")

    def decorate(func):
        order.append(f"decorate {label}")

        def wrapper(*args):
            return f"<{label}>{func(*args)}</{label}>"
        return wrapper
    return decorate

@tag("b")
@tag("i")
def text(s):
    return s

print(order)
print(text("hi"))

def repeat(times):
    def decorate(func):
        def wrapper(*args, **kwargs):
            return [func(*args, **kwargs) for _ in range(times)]
        return wrapper
    return decorate

@repeat(3)
def roll(value):
    return value * 2

print(roll(4))

def validate(**rules):
    def decorate(func):
        def wrapper(**kwargs):
            for key, check in rules.items():
                if not check(kwargs[key]):
                    raise ValueError(f"{key}={kwargs[key]!r} failed validation")
            return func(**kwargs)
        return wrapper
    return decorate

@validate(age=lambda a: a >= 0, name=lambda n: bool(n))
def make_user(name, age):
    return {"name": name, "age": age}

print(make_user(name="ann", age=3))
try:
    make_user(name="", age=3)
except ValueError as e:
    print(e)
