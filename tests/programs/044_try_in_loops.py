# Exceptions inside loops: retry patterns, continue/break from handlers.
attempts = {"count": 0}


def flaky():
    attempts["count"] += 1
    if attempts["count"] < 3:
        raise ConnectionError(f"attempt {attempts['count']} failed")
    return "connected"


for attempt in range(5):
    try:
        result = flaky()
    except ConnectionError as e:
        print("retrying after:", e)
        continue
    else:
        print("success:", result)
        break
    finally:
        print("attempt", attempt, "done")

parsed, failures = [], []
for token in "1 2 x 4 y".split():
    try:
        parsed.append(int(token))
    except ValueError:
        failures.append(token)
        if len(failures) > 1:
            print("too many failures, stopping at", token)
            break
print(parsed, failures)

total = 0
for value in [5, 0, 2]:
    try:
        total += 10 // value
    except ZeroDivisionError:
        continue
    finally:
        total += 1
print(total)
