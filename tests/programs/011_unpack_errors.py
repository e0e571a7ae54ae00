# ValueError / TypeError messages from failed unpacking.
def attempt(label, fn):
    try:
        fn()
        print(label, "ok")
    except (ValueError, TypeError) as e:
        print(label, type(e).__name__, e)


def too_many():
    a, b = [1, 2, 3]


def too_few():
    a, b, c = (1, 2)


def star_too_few():
    a, b, *c, d = [1, 2]


def not_iterable():
    a, b = 5


def none_value():
    x, y = None


def fine():
    a, *b = [1]


attempt("too_many", too_many)
attempt("too_few", too_few)
attempt("star_too_few", star_too_few)
attempt("not_iterable", not_iterable)
attempt("none_value", none_value)
attempt("fine", fine)

for item in [(1, 2), (3, 4, 5)]:
    try:
        left, right = item
        print(left, right)
    except ValueError as e:
        print("skip", item, e)

k, v = {"only": 1}.popitem()
print(k, v)
a, b = "xyz"
