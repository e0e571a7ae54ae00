# Agent-style: the time module without reading the clock (fixed timestamps).
import time

epoch = time.gmtime(0)
print(epoch.tm_year, epoch.tm_mon, epoch.tm_mday, epoch.tm_wday, epoch.tm_yday)
t = time.gmtime(1700000000)
print(time.strftime("%Y-%m-%d %H:%M:%S", t), time.strftime("%A %d %B", t), t.tm_isdst)
print(time.asctime(t), tuple(t)[:6])
parsed = time.strptime("2024-02-29 13:45", "%Y-%m-%d %H:%M")
print(parsed.tm_year, parsed.tm_yday, parsed.tm_wday, time.strftime("%j", parsed))
print(type(time.time()).__name__, type(time.perf_counter()).__name__, time.time() > 1.6e9)
durations = [1.234, 65.5, 3725.0]
for secs in durations:
    m, s = divmod(secs, 60)
    h, m = divmod(m, 60)
    print(f"{int(h):02d}:{int(m):02d}:{s:06.3f}")
time.sleep(0)
print("slept zero seconds")
