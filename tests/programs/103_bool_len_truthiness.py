# Truthiness of user objects: __bool__ first, then __len__, otherwise True.
class WithBool:
    def __init__(self, flag):
        self.flag = flag

    def __bool__(self):
        print("__bool__ called")
        return self.flag


class WithLen:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


class Plain:
    pass


for obj in [WithBool(True), WithBool(False), WithLen(0), WithLen(3), Plain()]:
    print(type(obj).__name__, bool(obj), "yes" if obj else "no", not obj)

print(WithBool(False) or "fallback", WithLen(2) and "has items")
print([bool(x) for x in [WithLen(0), WithLen(1)]], any([WithLen(0), WithLen(0)]))

count = 0
items = WithLen(2)
while items:
    count += 1
    items.n -= 1
print("loop ran", count, "times")


class BadBool:
    def __bool__(self):
        return "yes"


try:
    bool(BadBool())
except TypeError as e:
    print("TypeError:", e)


class NegativeLen:
    def __len__(self):
        return -1


try:
    if NegativeLen():
        pass
except ValueError as e:
    print("ValueError:", e)
