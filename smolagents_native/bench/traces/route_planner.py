# Route planning: a road graph as a dict of dicts, BFS and Dijkstra helpers defined first,
# reachability, shortest routes, a tour over itertools permutations, and the final choice.
# %% step
from collections import deque
import itertools

roads = {
    "Avon": {"Brill": 7, "Cray": 9, "Fenn": 14},
    "Brill": {"Avon": 7, "Cray": 10, "Dale": 15},
    "Cray": {"Avon": 9, "Brill": 10, "Dale": 11, "Fenn": 2},
    "Dale": {"Brill": 15, "Cray": 11, "Eske": 6},
    "Eske": {"Dale": 6, "Fenn": 9},
    "Fenn": {"Avon": 14, "Cray": 2, "Eske": 9},
    "Gort": {},
}

def bfs_hops(start):
    hops = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in roads[node]:
            if nxt not in hops:
                hops[nxt] = hops[node] + 1
                queue.append(nxt)
    return hops

print(bfs_hops("Avon"))
# %% step
def dijkstra(start):
    dist = {start: 0}
    prev = {}
    done = set()
    while True:
        pending = [(d, n) for n, d in dist.items() if n not in done]
        if not pending:
            break
        d, node = min(pending)
        done.add(node)
        for nxt, w in roads[node].items():
            nd = d + w
            if nd < dist.get(nxt, float("inf")):
                dist[nxt] = nd
                prev[nxt] = node
    return dist, prev

def path_to(prev, start, goal):
    path = [goal]
    while path[-1] != start:
        path.append(prev[path[-1]])
    return path[::-1]

dist, prev = dijkstra("Avon")
print(dist)
print("Avon -> Eske:", path_to(prev, "Avon", "Eske"), dist["Eske"])
# %% step
unreachable = [city for city in roads if city not in dist]
print("unreachable from Avon:", unreachable)
table = {city: dijkstra(city)[0] for city in roads if city not in unreachable}
print("cities in the table:", len(table))
longest = (0, "", "")
for origin, d in table.items():
    for city, km in d.items():
        longest = max(longest, (km, origin, city))
print("longest shortest route:", longest)
# %% step
stops = ["Brill", "Dale", "Fenn"]
best = None
for order in itertools.permutations(stops):
    route = ["Avon"] + list(order) + ["Avon"]
    length = sum(table[a][b] for a, b in zip(route, route[1:]))
    if best is None or length < best[0]:
        best = (length, route)
print("best tour:", best)
# %% step
legs = [(a, b, table[a][b]) for a, b in zip(best[1], best[1][1:])]
for a, b, d in legs:
    print(f"{a} -> {b}: {d} km via {path_to(dijkstra(a)[1], a, b)}")
total_km = sum(d for _, _, d in legs)
longest_leg = max(legs, key=lambda leg: leg[2])
print("total km:", total_km, "longest leg:", longest_leg)
print(f"average leg {total_km / len(legs):.2f} km over {len(legs)} legs")
