# `s += t` on module-level strings, which the evaluator appends to in place when nothing but
# the namespace holds the string (and it is long enough): aliases taken before, during and
# after, the string as the last value of a statement, other kinds of right operand, a
# global declared in a function, and a string that becomes shared half-way.
doc = ""
for i in range(400):
    doc += "line " + str(i) + "\n"
print(len(doc), doc[:12], doc[-9:])

alias = doc
doc += "tail"
print(len(alias), len(doc), alias is doc, alias.endswith("tail"), doc.endswith("tail"))

snapshots = []
for i in range(5):
    doc += "x" * 100
    snapshots.append(doc)
print([len(s) for s in snapshots], snapshots[0] is snapshots[1])

big = "é" * 300
big += "ascii"
big += "€"
print(len(big), big[-6:])

try:
    doc += 5
except TypeError as e:
    print("TypeError", e)
print(len(doc))

text = "z" * 300


def grow(n):
    global text
    for _ in range(n):
        text += "ab"
    return len(text)


print(grow(10), text[-4:])
d = {"k": text}
text += "!"
print(len(d["k"]), len(text), d["k"] is text)
counter = 0
while len(doc) < 10000:
    doc += doc[:50]
    counter += 1
print(counter, len(doc))
doc += "end"
