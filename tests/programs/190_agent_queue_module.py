# Agent-style: work queues with the queue module (single-threaded use).
import queue

q = queue.Queue()
for job in ["parse", "fetch", "store"]:
    q.put(job)
print(q.qsize(), q.empty(), [q.get() for _ in range(3)], q.empty())
try:
    q.get_nowait()
except queue.Empty:
    print("queue.Empty raised")
lifo = queue.LifoQueue()
for i in range(3):
    lifo.put(i)
print([lifo.get() for _ in range(3)])
pq = queue.PriorityQueue()
for priority, task in [(3, "low"), (1, "urgent"), (2, "normal"), (1, "also urgent")]:
    pq.put((priority, task))
order = []
while not pq.empty():
    order.append(pq.get())
print(order)
bounded = queue.Queue(maxsize=2)
bounded.put(1)
bounded.put(2)
try:
    bounded.put_nowait(3)
except queue.Full:
    print("queue.Full raised, full() =", bounded.full())
sq = queue.SimpleQueue()
sq.put("x")
print(sq.get(), sq.empty())
