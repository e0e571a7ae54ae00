# global and nonlocal declarations.
total = 0
log = []

def add(n):
    global total
    total += n
    log.append(n)

add(3)
add(4)
print(total, log)

def create_global():
    global created_later
    created_later = "made inside a function"

create_global()
print(created_later)

read_only = lambda: total * 2
print(read_only())

def levels():
    x = "level1"
    def middle():
        x = "level2"
        def inner():
            nonlocal x
            x = "changed by inner"
        inner()
        return x
    result = middle()
    return x, result

print(levels())

def shadow():
    total = "local total"
    return total

print(shadow(), total)

def counter_factory():
    n = 0
    def bump():
        nonlocal n
        n += 1
        return n
    return bump

b = counter_factory()
print(b(), b(), b())

def declare_several():
    global g1, g2
    g1, g2 = 1, 2

declare_several()
print(g1 + g2)
