# Agent-style: date arithmetic with datetime.
from datetime import date, datetime, timedelta

start = date(2024, 1, 29)
print(start + timedelta(days=31), start - timedelta(weeks=5), (date(2024, 12, 25) - start).days)
deadline = datetime(2024, 3, 10, 17, 30)
submitted = datetime(2024, 3, 8, 9, 15, 30)
remaining = deadline - submitted
print(remaining, remaining.days, remaining.seconds, remaining.total_seconds())
print(remaining > timedelta(days=2), timedelta(hours=36) // timedelta(hours=1), timedelta(days=1) / 4)
parsed = datetime.strptime("2024-02-28 23:59", "%Y-%m-%d %H:%M")
print(parsed + timedelta(minutes=2), (parsed + timedelta(days=1)).date())


def add_months(d, months):
    month_index = d.month - 1 + months
    year, month = d.year + month_index // 12, month_index % 12 + 1
    days_in_month = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    return d.replace(year=year, month=month, day=min(d.day, days_in_month))


print([add_months(date(2024, 1, 31), m).isoformat() for m in range(0, 14, 3)])
workdays = [start + timedelta(days=i) for i in range(10) if (start + timedelta(days=i)).weekday() < 5]
print(len(workdays), workdays[0], workdays[-1], [d.strftime("%a") for d in workdays[:5]])
ages = {name: (date(2024, 6, 1) - born).days // 365 for name, born in [("ann", date(1990, 7, 4)), ("bo", date(2001, 1, 1))]}
print(ages, date.fromisoformat("2024-06-01").toordinal(), date(2024, 2, 29).replace(year=2025) if False else "no leap")
print(max(date(2023, 5, 1), date(2023, 4, 30)), sorted([date(2024, 1, 2), date(2023, 12, 31)]))
print(datetime(2024, 1, 1, 12).isoformat(), datetime.fromisoformat("2024-01-01T08:00:00") < datetime(2024, 1, 1, 9))
try:
    date(2023, 2, 29)
except ValueError as e:
    print("ValueError:", e)
