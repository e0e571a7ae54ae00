# An uncaught IndexError in a loop over a list that shrinks.
queue = ["a", "b", "c", "d"]
handled = []
for i in range(4):
    item = queue[i]
    handled.append(item)
    print("handled", item)
    if item == "b":
        queue.pop()
        queue.pop()
