# Tiny step: the smallest agent step (one assignment and one print), timed per call on one
# executor, both with a repeated source (lowering-cache hit) and with a unique source per
# call (uncached: a counter comment is appended). Measures per-step overhead.
# bench-mode: step
x = 1 + 2
print(x)
