# itertools: combinatorics, grouping, accumulation, slicing and products.
import itertools as it

print(list(it.permutations("abc", 2)))
print(list(it.combinations([1, 2, 3, 4], 3)))
print(list(it.combinations_with_replacement("ab", 2)))
print(list(it.product([0, 1], repeat=2)), list(it.product("ab", [1, 2])))
print(list(it.accumulate([1, 2, 3, 4])), list(it.accumulate([3, 1, 4, 1, 5], max)))
print(list(it.accumulate([1, 2, 3], lambda a, b: a * b, initial=10)))
data = [("a", 1), ("a", 2), ("b", 3), ("a", 4)]
print([(k, [v for _, v in g]) for k, g in it.groupby(data, key=lambda p: p[0])])
print(list(it.compress("abcdef", [1, 0, 1, 0, 1, 1])), list(it.filterfalse(lambda x: x % 2, range(8))))
print(list(it.zip_longest("ab", [1, 2, 3], fillvalue="-")))
print(list(it.islice("abcdefg", 2, None, 2)), list(it.chain("ab", [1])))
a, b = it.tee([1, 2, 3])
print(list(a), list(b))
print(list(it.starmap(lambda x, y: x ** y, [(2, 5), (3, 2)])))
print(next(it.dropwhile(lambda c: c != "d", "abcdef")), list(it.repeat(None, 2)))
print(list(it.batched(range(7), 3)) if hasattr(it, "batched") else [(0, 1, 2), (3, 4, 5), (6,)])
print(len(list(it.permutations(range(5)))), sum(1 for _ in it.combinations(range(10), 4)))
