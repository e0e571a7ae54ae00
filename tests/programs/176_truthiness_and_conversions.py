# Truthiness of built-in values and the conversions between built-in types.
values = [0, 1, -1, 0.0, 0.1, "", " ", "0", [], [0], (), {}, {0: 0}, set(), None, range(0), b"", 0j]
print([bool(v) for v in values])
print(bool("False"), bool([[]]), int("7") + int(2.9), str(7) + str(2.5), str(None), str([1, "a"]))
print(list("ab"), list((1, 2)), list({"k": 1}.items()), tuple([1]), set([1, 1, 2]), dict([(1, 2)]))
print(int(True), float(False), str(True), repr(None), bool(None), list(range(2)), dict(a=1))
print(frozenset([1, 1]), list(map(int, "123")), [float(x) for x in ["1", "2.5", "-3e1"]])
print(int("0b101", 0), round(float("2.5")), str(1e100), str(12345678901234567890))
print(repr(1.0), repr(10 ** 21), str(0.1), str(1 / 3), list(bytes(2)))
print(ord(str(5)), chr(ord("a") + 1), str(b"x", "ascii"), bytes("hi", "ascii"))
print(list(dict.fromkeys([3, 1, 3, 2])), sorted(set("banana")))
