# Agent-style: building an aligned text report from data.
employees = [
    ("Alice Johnson", "Engineering", 125000, 0.12),
    ("Bob Li", "Marketing", 82000.5, 0.05),
    ("Carmen Díaz", "Engineering", 131500, 0.15),
    ("Dev Patel", "Sales", 67000, 0.2),
]
headers = ("Name", "Department", "Salary", "Bonus", "Total")
rows = []
for name, dept, salary, bonus_rate in employees:
    bonus = salary * bonus_rate
    rows.append((name, dept, f"{salary:,.2f}", f"{bonus_rate:.0%}", f"{salary + bonus:,.0f}"))
widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
print(line)
print("| " + " | ".join(h.center(w) for h, w in zip(headers, widths)) + " |")
print(line)
for r in rows:
    cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1])] + [c.rjust(w) for c, w in zip(r[2:], widths[2:])]
    print("| " + " | ".join(cells) + " |")
print(line)
by_dept = {}
for name, dept, salary, _ in employees:
    by_dept[dept] = by_dept.get(dept, 0) + salary
for dept, total in sorted(by_dept.items()):
    bar = "#" * int(total // 20000)
    print(f"{dept:<12}{total:>12,.1f} {bar}")
