# Sorting: key functions, reverse, stability, multi-key sorts, sort vs sorted.
people = [
    {"name": "ann", "age": 31, "city": "oslo"},
    {"name": "bo", "age": 25, "city": "rome"},
    {"name": "cy", "age": 31, "city": "lima"},
    {"name": "di", "age": 25, "city": "oslo"},
]
print([p["name"] for p in sorted(people, key=lambda p: p["age"])])
print([p["name"] for p in sorted(people, key=lambda p: p["age"], reverse=True)])
print([p["name"] for p in sorted(people, key=lambda p: (p["city"], -p["age"]))])
by_city = sorted(people, key=lambda p: p["city"])
by_age_then_city = sorted(by_city, key=lambda p: p["age"])
print([(p["age"], p["city"]) for p in by_age_then_city])
words = ["banana", "Apple", "cherry", "apple", "Banana"]
print(sorted(words), sorted(words, key=str.lower), sorted(words, key=len))
print(sorted(words, key=lambda w: (len(w), w.lower()), reverse=True))
nums = [5, -3, 2, -8, 0]
nums.sort(key=abs)
print(nums, sorted(nums, reverse=True))
print(sorted("hello"), sorted((3, 1, 2)), sorted({3: "c", 1: "a"}), sorted({"b": 1, "a": 2}.items()))
mixed = [(1, "b"), (1, "a"), (0, "z")]
mixed.sort()
print(mixed, min(mixed), max(mixed, key=lambda t: t[1]))
print(sorted([[2, 1], [1, 2], [1]]), sorted([3.5, 1, 2.25]))
