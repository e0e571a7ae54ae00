# Sorting with key lambdas: an agent ranking search results and people by several keys,
# with reverse orders, tuples as keys and stable multi-pass sorts.
import random

random.seed(3)
first = ["ana", "bo", "cy", "dee", "eli", "fay", "gus", "hal", "ivy", "jo"]
people = []
for i in range(5000):
    people.append({
        "name": first[i % 10] + str(random.randint(0, 999)),
        "age": random.randint(18, 90),
        "score": round(random.random() * 100, 3),
        "city": random.choice(["Paris", "Oslo", "Lima", "Pune", "Kobe"]),
    })

by_score = sorted(people, key=lambda p: p["score"], reverse=True)
by_city_age = sorted(people, key=lambda p: (p["city"], -p["age"], p["name"]))
names_by_len = sorted([p["name"] for p in people], key=lambda s: (len(s), s))
stable = sorted(people, key=lambda p: p["name"])
stable.sort(key=lambda p: p["age"] // 10)
oldest_per_city = {}
for p in by_city_age:
    if p["city"] not in oldest_per_city:
        oldest_per_city[p["city"]] = p["age"]
print(by_score[0]["name"], by_score[-1]["score"])
print(by_city_age[0]["city"], by_city_age[0]["age"], by_city_age[-1]["city"])
print(names_by_len[:3], names_by_len[-1])
print([p["age"] // 10 for p in stable[:5]], oldest_per_city)
print(max(people, key=lambda p: (p["score"], p["name"]))["name"])
