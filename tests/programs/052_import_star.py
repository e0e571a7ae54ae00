# from module import * binds the module's public names.
from math import *

print(sqrt(81), floor(3.9), ceil(3.1), factorial(6))
print(round(pi, 5), round(e, 5), isinf(inf), isnan(nan))
print(gcd(12, 18), hypot(3, 4), log10(1000))

from statistics import *

print(mean([2, 4, 6]), median([3, 1, 2]), mode([1, 1, 2]))
area = pi * 2 ** 2
print(f"{area:.4f}")
