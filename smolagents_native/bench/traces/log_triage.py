# Log triage: parse server log lines with a regex, count levels and endpoints with Counter,
# find the slowest requests, error rate per hour, and report the worst endpoint.
# %% step
import re
from collections import Counter, defaultdict

LOG = """2024-05-01 09:00:01 INFO GET /api/users 200 35ms
2024-05-01 09:00:07 INFO GET /api/orders 200 120ms
2024-05-01 09:01:12 WARN GET /api/orders 429 5ms
2024-05-01 09:15:40 ERROR POST /api/orders 500 980ms
2024-05-01 10:02:03 INFO GET /api/users 200 41ms
2024-05-01 10:05:55 INFO POST /api/login 200 88ms
2024-05-01 10:06:10 ERROR POST /api/login 503 1500ms
2024-05-01 10:30:00 INFO GET /api/items 200 64ms
2024-05-01 11:11:11 WARN GET /api/items 404 12ms
2024-05-01 11:45:30 INFO GET /api/orders 200 140ms
2024-05-01 11:50:02 ERROR GET /api/items 500 730ms
2024-05-01 12:00:00 INFO GET /api/users 200 29ms"""

pattern = re.compile(r"(\S+) (\d\d):(\d\d):\d\d (\w+) (GET|POST) (\S+) (\d{3}) (\d+)ms")
print(len(LOG.splitlines()), "lines")
# %% step
entries = []
for line in LOG.splitlines():
    m = pattern.match(line)
    if not m:
        print("unparsed:", line)
        continue
    day, hour, minute, level, method, path, status, ms = m.groups()
    entries.append({"hour": int(hour), "level": level, "method": method, "path": path,
                    "status": int(status), "ms": int(ms)})
levels = Counter(e["level"] for e in entries)
print("levels:", sorted(levels.items()))
print("paths:", Counter(e["path"] for e in entries).most_common(3))
# %% step
slow = sorted(entries, key=lambda e: e["ms"], reverse=True)[:3]
for e in slow:
    print(f"{e['method']} {e['path']} took {e['ms']} ms (status {e['status']})")
fast = [e for e in entries if e["ms"] < 50]
mean_ms = sum(e["ms"] for e in entries) / len(entries)
print(f"{len(fast)} requests under 50 ms; mean {mean_ms:.1f} ms")
# %% step
per_hour = defaultdict(lambda: [0, 0])
for e in entries:
    per_hour[e["hour"]][0] += 1
    if e["status"] >= 500:
        per_hour[e["hour"]][1] += 1
for hour in sorted(per_hour):
    total, errors = per_hour[hour]
    print(f"{hour:02d}h: {total} requests, error rate {errors / total:.0%}")
# %% step
def endpoint_score(path):
    hits = [e for e in entries if e["path"] == path]
    errors = sum(1 for e in hits if e["status"] >= 400)
    mean_ms = sum(e["ms"] for e in hits) / len(hits)
    return errors / len(hits), mean_ms

scores = {p: endpoint_score(p) for p in sorted({e["path"] for e in entries})}
for p, (err, ms) in scores.items():
    print(p, round(err, 3), round(ms, 1))
# %% step
worst = max(scores, key=lambda p: (scores[p][0], scores[p][1]))
error_total = sum(1 for e in entries if e["status"] >= 500)
p95_index = int(0.95 * (len(entries) - 1))
p95 = sorted(e["ms"] for e in entries)[p95_index]
print("Worst endpoint:", worst, "error share", f"{scores[worst][0]:.2f}")
print(f"server errors: {error_total}/{len(entries)}; p95 latency {p95} ms")
