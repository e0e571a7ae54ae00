# Imports inside functions bind local names; aliases shadow and rebind.
def local_import():
    import math
    from collections import deque
    return math.isqrt(50), list(deque([1, 2, 3], maxlen=2))


print(local_import())
try:
    math.pi
except NameError as e:
    print("NameError:", e)


def alias_use():
    import statistics as st
    return st.pstdev([2, 4, 4, 4, 5, 5, 7, 9])


print(alias_use())

import random as rnd
rnd.seed(7)
first = rnd.randint(1, 100)
rnd.seed(7)
print(first == rnd.randint(1, 100))

from datetime import date, timedelta
date = date(2023, 12, 31)
print(date + timedelta(days=1))


class UsesImport:
    import math as m
    value = m.floor(9.99)


print(UsesImport.value)
