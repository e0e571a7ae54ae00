# f-string conversions !r, !s, !a and their interaction with format specs.
name = "Zoë"
items = ["a", 'b"c']
print(f"{name}|{name!r}|{name!s}|{name!a}")
print(f"{items}|{items!r}|{items!a}")
tabbed = "tab\there"
print(f"{tabbed!r} {tabbed}")
print(f"{3.0!r} {3.0!s} {None!r} {True!s}")
print(f"{name!r:>10}|{name!a:<12}|{items!s:^20}|")
print(f"{'snow ☃'!a}", ascii("naïve café"), repr("naïve"))
print(f"{b'bytes'!r} {b'bytes'}")


class Both:
    def __str__(self):
        return "str-form"

    def __repr__(self):
        return "repr-form"


b = Both()
print(f"{b} {b!s} {b!r} {b!a}")
nums = {"one": 1}
print(f"{nums['one']} {nums!r} {len(nums)}")
quote = "it's"
print(f"{quote!r} {quote!a} {'nested' + 'quotes'}")
