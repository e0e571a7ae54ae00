# Graph search with collections.deque: an agent finding shortest paths in a grid maze
# with breadth-first search, plus a task queue where urgent items jump to the front.
from collections import deque

W, H = 80, 60
walls = set()
for x in range(W):
    for y in range(H):
        if (x * 7 + y * 13) % 11 == 0 and x % 4 != 1 and (x, y) != (W - 1, H - 1):
            walls.add((x, y))


def bfs(start, goal):
    dist = {start: 0}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        if (x, y) == goal:
            return dist[(x, y)]
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nx, ny = x + dx, y + dy
            if 0 <= nx < W and 0 <= ny < H and (nx, ny) not in walls and (nx, ny) not in dist:
                dist[(nx, ny)] = dist[(x, y)] + 1
                queue.append((nx, ny))
    return -1


lengths = [bfs((0, 0), (W - 1, H - 1)), bfs((0, 0), (W // 2, H - 1)), bfs((5, 1), (70, 50))]
tasks = deque()
for i in range(3000):
    if i % 3 == 0:
        tasks.appendleft(("urgent", i))
    else:
        tasks.append(("normal", i))
done = []
while tasks:
    kind, i = tasks.popleft()
    if i % 97 == 0 and kind == "normal":
        tasks.append(("retry", i + 1))
    done.append(kind)
print(lengths, len(walls), len(done), done.count("retry"), done[0], done[-1])
