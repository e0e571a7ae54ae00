# collections.deque and namedtuple.
from collections import deque, namedtuple

d = deque([1, 2, 3])
d.appendleft(0)
d.append(4)
print(d, d.popleft(), d.pop(), d)
d.rotate(1)
print(d)
d.rotate(-2)
print(d, d[0], d[-1], len(d), 2 in d)
d.extendleft([10, 20])
print(d, list(reversed(d)))
window = deque(maxlen=3)
for i in range(6):
    window.append(i)
    print(list(window), sum(window) / len(window))
print(window.maxlen)
Point = namedtuple("Point", ["x", "y"])
p = Point(3, y=4)
print(p, p.x + p.y, p[0], tuple(p), p._asdict(), p._replace(x=10))
x, y = p
print(x, y, Point._fields, Point._make([5, 6]), p == (3, 4))
Employee = namedtuple("Employee", "name dept salary", defaults=[1000])
staff = [Employee("ann", "eng", 5000), Employee("bo", "ops")]
print(staff, max(staff, key=lambda e: e.salary).name)
try:
    p.x = 5
except AttributeError as e:
    print("AttributeError:", e)
