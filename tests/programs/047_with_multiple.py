# Multiple context managers: entered left to right, exited in reverse order.
class CM:
    def __init__(self, name, log):
        self.name = name
        self.log = log

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit " + self.name)


log = []
with CM("a", log) as a, CM("b", log) as b:
    log.append(f"body {a.name}{b.name}")
print(log)

log = []
with (
    CM("x", log) as x,
    CM("y", log),
    CM("z", log) as z,
):
    log.append("body")
print(log)

log = []
with CM("outer", log):
    with CM("inner", log):
        log.append("nested body")
print(log)


class FailingEnter(CM):
    def __enter__(self):
        self.log.append("failing enter " + self.name)
        raise RuntimeError("cannot enter")


log = []
try:
    with CM("first", log), FailingEnter("second", log), CM("third", log):
        log.append("body")
except RuntimeError as e:
    log.append("caught " + str(e))
print(log)
