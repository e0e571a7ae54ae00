# getattr/setattr/hasattr/delattr with computed attribute names.
class Record:
    pass


rec = Record()
for key, value in {"name": "widget", "price": 9.5, "qty": 3}.items():
    setattr(rec, key, value)
print(rec.name, rec.price, getattr(rec, "qty"))
print(hasattr(rec, "price"), hasattr(rec, "color"), getattr(rec, "color", "n/a"))
delattr(rec, "qty")
print(hasattr(rec, "qty"))
try:
    getattr(rec, "qty")
except AttributeError as e:
    print("AttributeError:", e)
try:
    delattr(rec, "qty")
except AttributeError as e:
    print("AttributeError:", e)

fields = ["name", "price"]
print({f: getattr(rec, f) for f in fields})
method = getattr("hello world", "title")
print(method())
print(getattr([3, 1, 2], "index")(2), getattr(5, "bit_length")())
setattr(rec, "with space", 1)
print(getattr(rec, "with space"))
try:
    getattr(rec, 5)
except TypeError as e:
    print("TypeError:", e)


class Config:
    defaults = {"timeout": 30, "retries": 3}

    def __init__(self, **overrides):
        for k, v in {**self.defaults, **overrides}.items():
            setattr(self, k, v)


cfg = Config(retries=5)
print(cfg.timeout, cfg.retries)
