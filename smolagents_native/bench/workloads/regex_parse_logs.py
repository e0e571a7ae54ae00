# Parsing text with `re`: an agent extracting fields from web-server log lines returned
# by a tool, then tallying status codes, slow requests and endpoints.
import re

methods = ["GET", "POST", "PUT", "DELETE"]
paths = ["/api/users", "/api/orders", "/static/app.js", "/login", "/api/items/42", "/health"]
log_lines = []
for i in range(3000):
    status = [200, 200, 200, 201, 304, 404, 500][i % 7]
    ms = (i * 37) % 900 + 3
    log_lines.append(
        f"10.0.{i % 256}.{(i * 7) % 256} - - "
        f"[12/Mar/2024:10:{i % 60:02d}:{(i * 13) % 60:02d} +0000] "
        f'"{methods[i % 4]} {paths[i % 6]}?page={i % 9} HTTP/1.1" {status} {i * 11 % 5000} {ms}ms'
    )
text = "\n".join(log_lines)

pattern = re.compile(
    r'^(?P<ip>\d+\.\d+\.\d+\.\d+) - - \[(?P<ts>[^\]]+)\] '
    r'"(?P<method>[A-Z]+) (?P<path>[^ ?]+)(?:\?(?P<query>\S*))? '
    r'HTTP/1\.[01]" (?P<status>\d{3}) (?P<size>\d+) (?P<ms>\d+)ms$',
    re.MULTILINE,
)
status_counts = {}
slow = []
endpoints = {}
for m in pattern.finditer(text):
    status = m.group("status")
    status_counts[status] = status_counts.get(status, 0) + 1
    if int(m.group("ms")) > 800:
        slow.append(m.group("path"))
    endpoints[m.group("path")] = endpoints.get(m.group("path"), 0) + int(m.group("size"))

ips = set(re.findall(r"^10\.0\.(\d+)\.", text, re.MULTILINE))
dates = re.sub(r"\[(\d+)/(\w+)/(\d+):", r"[\3-\2-\1 ", log_lines[5])
print(sorted(status_counts.items()))
print(len(slow), len(ips))
print(sorted(endpoints.items(), key=lambda kv: -kv[1])[:3])
print(dates[:40])
