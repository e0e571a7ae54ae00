# try/finally inside generators: close() runs finally via GeneratorExit.
def resource(name):
    print("open", name)
    try:
        for i in range(3):
            yield f"{name}-{i}"
    finally:
        print("close", name)


g = resource("A")
print(next(g))
print(next(g))
g.close()
print("after close")
try:
    next(g)
except StopIteration:
    print("closed generator is exhausted")

print(list(resource("B")))


def catches_exit():
    try:
        yield 1
    except GeneratorExit:
        print("GeneratorExit seen")
        raise


c = catches_exit()
next(c)
c.close()


def refuses_to_die():
    try:
        yield 1
    except GeneratorExit:
        yield 2


r = refuses_to_die()
next(r)
try:
    r.close()
except RuntimeError as e:
    print("RuntimeError:", e)
print(next(r, "finished after the refused close"))
