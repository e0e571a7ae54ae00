# Subclassing built-in types: list, dict (with __missing__), str, int.
class Stack(list):
    def push(self, item):
        self.append(item)
        return self

    def peek(self):
        return self[-1] if self else None


s = Stack([1])
s.push(2).push(3)
print(s, s.peek(), len(s), s.pop(), isinstance(s, list), type(s).__name__)


class DefaultZero(dict):
    def __missing__(self, key):
        return 0


counts = DefaultZero()
for ch in "mississippi":
    counts[ch] += 1
print(dict(counts), counts["z"], "z" in counts)


class Tagged(str):
    def shout(self):
        return self.upper() + "!"


t = Tagged("hey")
print(t, t.shout(), t + " there", len(t), type(t + "x").__name__)


class Money(int):
    def __str__(self):
        return f"${int(self):,}"


m = Money(1234567)
print(m, m + 1, str(m), type(m + 1).__name__, repr(m))


class Unique(list):
    def append(self, item):
        if item not in self:
            super().append(item)


u = Unique()
for v in [1, 2, 1, 3, 2]:
    u.append(v)
print(u)
