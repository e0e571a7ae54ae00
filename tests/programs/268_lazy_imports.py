# requires: 3.15
# PEP 810 lazy imports: the name is bound to a lazy_import object and the
# import happens at its first use, from any scope of the module
lazy import statistics
lazy import datetime
lazy import random as rnd
print(statistics.mean([1, 2, 3]))

def use():
    return datetime.date(2026, 11, 28).isoformat()

print(use(), type(datetime).__name__, type(statistics).__name__)

class K:
    value = statistics.median([3, 1, 2])

print(K.value, [n for n in ["rnd"] if rnd.Random(1).random() < 2])
lazy from itertools import count as counter
print(next(counter(5)))
result = statistics.stdev([1, 2, 3])
