# str.format with positional, named, indexed and attribute fields; format_map; %-formatting.
print("{} + {} = {}".format(1, 2, 3))
print("{1} {0} {1}".format("a", "b"))
print("{name} is {age}".format(name="ann", age=30))
point = {"x": 3, "y": 4}
print("x={0[x]} y={0[y]}".format(point))
print("{p[0]}-{p[1]}".format(p=("lo", "hi")))


class P:
    def __init__(self):
        self.x = 1.5
        self.tags = ["t1", "t2"]


print("{0.x:.2f} {0.tags[1]}".format(P()))
print("{:{}}|{:{w}.{p}f}".format("ab", 5, 3.14159, w=8, p=2))
print("{{literal}} {}".format("value"))
print("{!r} {!s} {!a}".format("é", "é", "é"))
print("{greeting}, {who}!".format_map({"greeting": "hi", "who": "bob"}))
print("%s has %d items costing %.2f" % ("cart", 3, 9.5))
print("%(name)s=%(value)05.1f" % {"name": "pi", "value": 3.14159})
print("%5s|%-5s|%x|%o|%e|%%|%c|%r" % ("r", "l", 255, 8, 1234.5, 65, "q"))
print("%s" % (1,), "%s" % [1, 2], "%d%%" % 50)
try:
    "{missing}".format()
except KeyError as e:
    print("KeyError:", e)
try:
    "%d %d" % (1,)
except TypeError as e:
    print("TypeError:", e)
