# A walrus in a comprehension binds in the enclosing function, or globally when
# that function declares the name global; nonlocal targets pass through.
G = 0
def f():
    global G
    [G := i for i in range(3)]
    return G
print(f(), G)
def g():
    global H
    r = [(H := x * 2) for x in range(4) if x % 2]
    return r
print(g(), H)
def outer():
    n = 0
    def inner():
        nonlocal n
        [n := n + k for k in range(4)]
    inner()
    return n
print(outer())
def plain():
    [last := c for c in "abc"]
    return last
print(plain())
def nested():
    global N
    [[N := (a, b) for b in range(2)] for a in range(2)]
nested()
print(N)
