# Agent-style: a to-do manager mixing classes, sorting, filtering and formatting.
from datetime import date


class Task:
    _next_id = 1

    def __init__(self, title, due, priority=2, tags=()):
        self.id = Task._next_id
        Task._next_id += 1
        self.title, self.due, self.priority, self.tags = title, due, priority, set(tags)
        self.done = False

    def overdue(self, today):
        return not self.done and self.due < today

    def __repr__(self):
        mark = "x" if self.done else " "
        return f"[{mark}] #{self.id} {self.title} (p{self.priority}, due {self.due:%m-%d})"


today = date(2024, 4, 10)
tasks = [
    Task("write report", date(2024, 4, 12), 1, ["work"]),
    Task("buy milk", date(2024, 4, 9), 3, ["home"]),
    Task("fix bug", date(2024, 4, 8), 1, ["work", "urgent"]),
    Task("call mom", date(2024, 4, 10), 2, ["home"]),
]
tasks[2].done = True
for t in sorted(tasks, key=lambda t: (t.done, t.priority, t.due)):
    print(t)
print("overdue:", [t.title for t in tasks if t.overdue(today)])
by_tag = {}
for t in tasks:
    for tag in sorted(t.tags):
        by_tag.setdefault(tag, []).append(t.id)
print(by_tag)
done_ratio = sum(t.done for t in tasks) / len(tasks)
print(f"{done_ratio:.0%} done, next id {Task._next_id}")
