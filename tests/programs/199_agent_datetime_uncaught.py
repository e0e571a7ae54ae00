# Agent-style: parsing user-supplied dates; the malformed one is not caught.
from datetime import datetime

inputs = ["2024-01-15", "2024-02-29", "2024-13-01", "2024-03-01"]
parsed = []
for text in inputs:
    d = datetime.strptime(text, "%Y-%m-%d")
    parsed.append(d.strftime("%d %b %Y"))
    print("parsed", text, "->", parsed[-1])
print("all parsed", parsed)
