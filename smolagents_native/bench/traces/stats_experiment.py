# A/B experiment analysis: seeded random data, statistics helpers defined first, summary
# statistics per group, a bootstrap confidence interval, and the decision.
# %% step
import random
import statistics

random.seed(42)
group_a = [round(random.gauss(10.0, 2.0), 3) for _ in range(60)]
group_b = [round(random.gauss(10.8, 2.2), 3) for _ in range(60)]

def describe(values):
    return {"n": len(values), "mean": round(statistics.mean(values), 3),
            "stdev": round(statistics.stdev(values), 3),
            "median": round(statistics.median(values), 3)}

print("A:", describe(group_a))
print("B:", describe(group_b))
# %% step
def trimmed(values, fraction=0.1):
    ordered = sorted(values)
    k = int(len(ordered) * fraction)
    return ordered[k:len(ordered) - k]

ta, tb = trimmed(group_a), trimmed(group_b)
print("trimmed means:", round(statistics.mean(ta), 3), round(statistics.mean(tb), 3))
outliers = [v for v in group_a + group_b if abs(v - 10.4) > 5]
print("outliers:", outliers)
# %% step
rng = random.Random(7)
diffs = []
for _ in range(300):
    sample_a = [rng.choice(group_a) for _ in group_a]
    sample_b = [rng.choice(group_b) for _ in group_b]
    diffs.append(statistics.mean(sample_b) - statistics.mean(sample_a))
diffs.sort()
low, high = diffs[int(0.025 * len(diffs))], diffs[int(0.975 * len(diffs)) - 1]
print(f"bootstrap 95% CI of B-A: [{low:.3f}, {high:.3f}]")
# %% step
pooled = statistics.stdev(group_a + group_b)
effect = (statistics.mean(group_b) - statistics.mean(group_a)) / pooled
print(f"effect size (d): {effect:.3f}")
decision = "ship B" if low > 0 else "keep A"
print("decision:", decision)
