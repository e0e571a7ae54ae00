# Meeting scheduler: datetime parsing, durations, per-weekday load, conflict detection between
# meetings, and the first free slot of a given length.
# %% step
from datetime import datetime, timedelta

meetings = [
    ("standup", "2024-06-03 09:00", 15), ("design review", "2024-06-03 10:00", 60),
    ("1:1 ana", "2024-06-03 10:45", 30), ("lunch talk", "2024-06-04 12:00", 45),
    ("standup", "2024-06-04 09:00", 15), ("planning", "2024-06-05 14:00", 90),
    ("standup", "2024-06-05 09:00", 15), ("retro", "2024-06-07 16:00", 60),
    ("customer call", "2024-06-05 15:00", 30), ("standup", "2024-06-07 09:00", 15),
]

def parse(entry):
    title, start, minutes = entry
    begin = datetime.strptime(start, "%Y-%m-%d %H:%M")
    return {"title": title, "start": begin, "end": begin + timedelta(minutes=minutes)}

events = sorted((parse(m) for m in meetings), key=lambda e: e["start"])
print(len(events), "events from", events[0]["start"], "to", events[-1]["end"])
# %% step
load = {}
for e in events:
    day = e["start"].strftime("%A")
    load[day] = load.get(day, timedelta()) + (e["end"] - e["start"])
for day, spent in load.items():
    print(f"{day:<10} {spent.total_seconds() / 3600:.2f} h")
# %% step
conflicts = []
for a, b in zip(events, events[1:]):
    if b["start"] < a["end"]:
        overlap = a["end"] - b["start"]
        conflicts.append((a["title"], b["title"], int(overlap.total_seconds() // 60)))
print("conflicts:", conflicts)
# %% step
def free_slot(day, minutes, start_hour=9, end_hour=18):
    cursor = datetime(day.year, day.month, day.day, start_hour)
    stop = cursor.replace(hour=end_hour)
    for e in events:
        if e["start"].date() != day.date():
            continue
        if e["start"] - cursor >= timedelta(minutes=minutes):
            return cursor
        cursor = max(cursor, e["end"])
    return cursor if stop - cursor >= timedelta(minutes=minutes) else None

for day in sorted({e["start"].date() for e in events}):
    slot = free_slot(datetime(day.year, day.month, day.day), 120)
    print(day.isoformat(), "2h slot at", slot.strftime("%H:%M") if slot else None)
# %% step
busiest = max(load, key=load.get)
week_total = sum(load.values(), timedelta())
standups = [e for e in events if e["title"] == "standup"]
standup_minutes = sum((e["end"] - e["start"]).seconds // 60 for e in standups)
print(f"busiest day {busiest}; week total {week_total}; conflicts {len(conflicts)}")
print(f"{len(standups)} standups, {standup_minutes} minutes")
