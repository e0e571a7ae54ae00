# Agent-style: parsing semi-structured text with regular expressions.
import re

log = """\
2024-05-01 12:00:01 INFO user=alice action=login ip=10.0.0.1
2024-05-01 12:03:17 WARN user=bob action=upload size=10MB
2024-05-01 12:04:00 ERROR user=alice action=upload error="disk full"
2024-05-02 08:15:42 INFO user=carol action=login ip=10.0.0.7
"""
pattern = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>[\d:]+) (?P<level>[A-Z]+) (?P<rest>.*)$", re.M)
entries = []
for m in pattern.finditer(log):
    fields = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', m.group("rest")))
    fields = {k: v.strip('"') for k, v in fields.items()}
    entries.append({"date": m["date"], "level": m.group("level"), **fields})
for e in entries:
    print(e)
print(sorted({e["user"] for e in entries}))
print([e["ip"] for e in entries if "ip" in e])
emails = "contact: ann@example.com, bob.smith@mail.co.uk; invalid@ x@y"
print(re.findall(r"[\w.]+@[\w.]+\.\w+", emails))
print(re.sub(r"(\d+)MB", lambda m: f"{int(m.group(1)) * 1024}KB", "size=10MB and 3MB"))
print(re.split(r"[;,]\s*", "a, b;c,d"), re.fullmatch(r"\d+", "123") is not None, re.match(r"\d", "x1"))
print(re.search(r"(\w+)@(\w+)", emails).groups(), re.search(r"(?i)ERROR", log).start())
