# finally blocks run (and print) before an uncaught exception leaves the program.
def step(n):
    try:
        print("step", n, "start")
        if n == 2:
            raise RuntimeError(f"step {n} failed")
        return n * 10
    finally:
        print("step", n, "cleanup")


results = []
try:
    for n in range(1, 4):
        results.append(step(n))
finally:
    print("outer cleanup, results so far:", results)
