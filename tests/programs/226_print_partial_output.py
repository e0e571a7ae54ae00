# print() writes piece by piece: what came before a failing str() is written.
class Bad:
    def __str__(self):
        raise ValueError("boom")
try:
    print("a", "b", Bad(), "c")
except ValueError as e:
    print("|err", e)
try:
    print(Bad())
except ValueError as e:
    print("|err2", e)
try:
    print("x", Bad(), sep="--", end="!\n")
except ValueError as e:
    print("|err3", e)
class Sink:
    def __init__(self): self.parts = []
    def write(self, s): self.parts.append(s)
s = Sink()
print("p", 1, 2, sep=",", file=s)
try:
    print("q", Bad(), file=s)
except ValueError:
    pass
print(s.parts)
