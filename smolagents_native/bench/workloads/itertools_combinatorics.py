# itertools: an agent exploring combinations: product, combinations, permutations,
# accumulate, groupby and chain to find the best subsets under a constraint.
import itertools

weights = [3, 7, 11, 2, 5, 13, 8, 4, 9, 6, 12, 1, 10, 14, 15, 17, 16, 18]
best = None
for combo in itertools.combinations(range(len(weights)), 5):
    w = 0
    for k in combo:
        w += weights[k]
    if w <= 41 and (best is None or w > best[0]):
        best = (w, combo)
grid = list(itertools.product(range(12), "abcde", [True, False]))
perm_count = 0
for p in itertools.permutations("abcdefgh", 6):
    if p[0] < p[-1]:
        perm_count += 1
running = list(itertools.accumulate(range(1, 3000)))
keyed = sorted([w % 4 for w in range(5000)])
groups = [(k, len(list(g))) for k, g in itertools.groupby(keyed)]
chained = list(itertools.chain(range(5), "xy", [None]))
islice = list(itertools.islice(itertools.count(10, 3), 5))
print(best, len(grid), perm_count, running[-1], groups, chained, islice)
