# Dates and times: an agent computing a schedule with datetime and timedelta: business
# days, weekly buckets, durations between events and ISO formatting.
from datetime import date, datetime, timedelta

start = date(2024, 1, 1)
business = []
d = start
while len(business) < 2500:
    if d.weekday() < 5:
        business.append(d)
    d += timedelta(days=1)

weeks = {}
for day in business:
    key = day.isocalendar()[1]
    weeks[key] = weeks.get(key, 0) + 1

events = [datetime(2024, 3, 1, 9, 0) + timedelta(minutes=37 * i) for i in range(4000)]
gaps = [(b - a).total_seconds() for a, b in zip(events, events[1:])]
morning = [e for e in events if e.hour < 12]
labels = [e.strftime("%Y-%m-%d %H:%M") for e in events[:2000]]
print(business[-1].isoformat(), len(weeks), weeks[1])
print(sum(gaps), len(morning), labels[-1], events[-1].isoformat())
