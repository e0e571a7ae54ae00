# while loops with else, break and continue.
n = 0
while n < 5:
    n += 1
    if n == 3:
        continue
    print("n", n)
else:
    print("while finished normally, n =", n)

attempts = 0
while True:
    attempts += 1
    if attempts * attempts > 50:
        break
print("attempts", attempts)

stack = [1, 2, 3, 4]
while stack:
    top = stack.pop()
    if top == 2:
        print("found 2, breaking")
        break
else:
    print("never printed")
print("stack left", stack)

x = 27
steps = 0
while x != 1:
    x = x // 2 if x % 2 == 0 else 3 * x + 1
    steps += 1
print("collatz steps", steps)

i = 10
while i > 0:
    i -= 3
else:
    print("else after countdown", i)
