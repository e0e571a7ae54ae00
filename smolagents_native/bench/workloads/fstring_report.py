# F-string reports: an agent formatting a table of results for its final answer, with
# width, precision, alignment and thousands-separator format specs.
import math

lines = []
total = 0.0
for i in range(1, 4001):
    name = f"item-{i:05d}"
    value = math.sqrt(i) * 1234.5678
    share = (i % 97) / 97
    total += value
    line = f"{name:<12}|{value:>14,.2f}|{share:>8.2%}|{i:>6x}|{'ok' if i % 3 else 'check':^7}"
    lines.append(line)

header = f"{'name':<12}|{'value':>14}|{'share':>8}|{'hex':>6}|{'flag':^7}"
report = "\n".join([header, "-" * len(header)] + lines)
print(len(report), report.count("check"))
print(lines[0])
print(lines[-1])
print(f"total={total:,.3f} mean={total / len(lines):.4e}")
