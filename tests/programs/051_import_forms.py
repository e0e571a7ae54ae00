# The import statement in its forms, with the base modules only.
import math
import datetime as dt
import collections, itertools
from statistics import mean, median as med
from re import (
    compile as re_compile,
    IGNORECASE,
)
from itertools import count

print(math.sqrt(16), math.pi > 3)
print(dt.date(2024, 2, 29).isoformat())
print(collections.Counter("banana").most_common(1))
print(list(itertools.accumulate([1, 2, 3])))
print(mean([1, 2, 3, 4]), med([5, 1, 3]))
pattern = re_compile("h(e)llo", IGNORECASE)
print(pattern.match("HELLO world").group(1))
counter = count(10, 5)
print(next(counter), next(counter))
import math
print(math.floor(2.7), type(math).__name__)
import time
print(time.gmtime(0).tm_year)
