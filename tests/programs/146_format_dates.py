# Formatting datetimes: format specs in f-strings, strftime, isoformat.
from datetime import date, datetime, time, timedelta

d = date(2024, 3, 9)
dt = datetime(2024, 12, 31, 23, 5, 9, 123456)
print(f"{d:%Y-%m-%d} {d:%d/%m/%y} {d:%A %B %j} {d:%a %b %U %W}")
print(f"{dt:%Y-%m-%dT%H:%M:%S} {dt:%I:%M %p} {dt:%f} {dt:%H%M}")
print(d.strftime("%Y week %W day %w"), dt.strftime("%%literal %Y"))
print(d.isoformat(), dt.isoformat(), dt.isoformat(sep=" ", timespec="seconds"))
print(str(d), str(dt), repr(d), repr(dt))
print(f"{d}", f"{dt!r}", f"{time(7, 30):%H:%M}", time(7, 30, 15).isoformat())
print(d.isocalendar(), d.weekday(), d.isoweekday(), dt.date(), dt.time())
print(f"{d:{'%Y'}}", format(dt, "%d %b"), f"{dt:%-H}" if False else "no platform flags")
print(timedelta(days=1, hours=2, minutes=3), timedelta(seconds=90061.5), repr(timedelta(hours=25)))
print(datetime(2024, 1, 1).strftime("%c"), date(2000, 2, 29).ctime())
