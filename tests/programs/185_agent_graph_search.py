# Agent-style: graph algorithms with deque and dicts (BFS, DFS, topological sort).
from collections import deque

graph = {
    "A": ["B", "C"],
    "B": ["D"],
    "C": ["D", "E"],
    "D": ["F"],
    "E": ["F"],
    "F": [],
}


def bfs_path(start, goal):
    queue = deque([[start]])
    seen = {start}
    while queue:
        path = queue.popleft()
        if path[-1] == goal:
            return path
        for nxt in graph[path[-1]]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(path + [nxt])
    return None


def dfs(node, visited=None):
    visited = [] if visited is None else visited
    visited.append(node)
    for nxt in graph[node]:
        if nxt not in visited:
            dfs(nxt, visited)
    return visited


def topo_sort():
    indegree = {n: 0 for n in graph}
    for targets in graph.values():
        for t in targets:
            indegree[t] += 1
    ready = deque(sorted(n for n, d in indegree.items() if d == 0))
    order = []
    while ready:
        n = ready.popleft()
        order.append(n)
        for t in graph[n]:
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
    return order


print(bfs_path("A", "F"), bfs_path("E", "A"), dfs("A"), topo_sort())
weights = {("A", "B"): 4, ("A", "C"): 1, ("C", "D"): 1, ("B", "D"): 1, ("C", "E"): 5, ("D", "F"): 3, ("E", "F"): 1}
dist = {"A": 0}
for node in topo_sort():
    for nxt in graph[node]:
        dist[nxt] = min(dist.get(nxt, float("inf")), dist[node] + weights[(node, nxt)])
print(dist)
