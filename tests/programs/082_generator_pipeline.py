# Chained generators forming a lazy processing pipeline over log lines.
LINES = """\
2024-01-01 INFO start
2024-01-01 ERROR disk full
# comment line
2024-01-02 WARN slow response
2024-01-02 ERROR timeout

2024-01-03 INFO stop""".splitlines()


def non_empty(lines):
    for line in lines:
        if line.strip() and not line.startswith("#"):
            yield line


def parse(lines):
    for line in lines:
        day, level, *message = line.split()
        yield {"day": day, "level": level, "message": " ".join(message)}


def only(level, records):
    return (r for r in records if r["level"] == level)


errors = list(only("ERROR", parse(non_empty(LINES))))
print(errors)
per_day = {}
for rec in parse(non_empty(LINES)):
    per_day.setdefault(rec["day"], []).append(rec["level"])
print(per_day)
levels = sorted({r["level"] for r in parse(non_empty(LINES))})
print(levels)


def numbered(records, start=1):
    for n, rec in enumerate(records, start):
        yield f"{n:02d}. [{rec['level']:<5}] {rec['message']}"


for row in numbered(parse(non_empty(LINES))):
    print(row)
