# Parsing text with str methods: an agent reading CSV-like and key=value text returned by
# a tool with split, strip, partition, startswith, replace and case conversions.
raw_lines = []
for i in range(4000):
    raw_lines.append(
        f"  Record {i:04d} ; name = User_{i % 313} ; email=USER{i % 313}@Example.COM ; "
        f"tags = a{i % 5}, b{i % 3} ,c{i % 7} ; note =  {'urgent' if i % 11 == 0 else 'normal'}  "
    )
blob = "\n".join(raw_lines)

records = []
for line in blob.splitlines():
    line = line.strip()
    if not line.startswith("Record"):
        continue
    head, _, rest = line.partition(";")
    rec = {"id": int(head.split()[1])}
    for field in rest.split(";"):
        key, sep, value = field.partition("=")
        if not sep:
            continue
        key = key.strip().lower()
        value = value.strip()
        if key == "tags":
            rec[key] = [t.strip() for t in value.split(",") if t.strip()]
        elif key == "email":
            rec[key] = value.lower()
        else:
            rec[key] = value.replace("_", " ").title()
    records.append(rec)

urgent = [r["id"] for r in records if r["note"].upper() == "URGENT"]
domains = {}
for r in records:
    user, _, domain = r["email"].rpartition("@")
    domains[domain] = domains.get(domain, 0) + 1
print(len(records), len(urgent), domains)
print(records[17])
print(" ".join(records[-1]["tags"]).center(20, "*"))
