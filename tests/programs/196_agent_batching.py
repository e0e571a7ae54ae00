# Agent-style: pagination, batching, sliding windows and zipping.
from itertools import islice, zip_longest

records = [f"rec{i:02d}" for i in range(1, 24)]


def batched(iterable, size):
    it = iter(iterable)
    while batch := list(islice(it, size)):
        yield batch


pages = list(batched(records, 10))
print(len(pages), [len(p) for p in pages], pages[-1])


def paginate(items, page, per_page=5):
    total_pages = (len(items) + per_page - 1) // per_page
    start = (page - 1) * per_page
    return {"page": page, "of": total_pages, "items": items[start:start + per_page]}


print(paginate(records, 1), paginate(records, 5), paginate(records, 9))
values = [3, 8, 2, 9, 4, 7, 1]
windows = [values[i:i + 3] for i in range(len(values) - 2)]
print(windows, [round(sum(w) / 3, 2) for w in windows])
print(list(zip_longest(*[iter("abcdefg")] * 3, fillvalue="_")))
columns = list(zip(*[(1, "a", True), (2, "b", False)]))
print(columns)
