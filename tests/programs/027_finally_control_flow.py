# finally runs on return, break and continue; a return in finally wins.
def returns_in_try():
    try:
        return "from try"
    finally:
        print("finally still runs")


print(returns_in_try())


def finally_overrides():
    try:
        return 1
    finally:
        return 2


print(finally_overrides())


def swallow():
    try:
        raise ValueError("lost")
    finally:
        return "finally return swallows the exception"


print(swallow())


def return_value_snapshot():
    x = [1]
    try:
        return x
    finally:
        x.append(2)


print(return_value_snapshot())

for i in range(4):
    try:
        if i == 1:
            continue
        if i == 3:
            break
        print("body", i)
    finally:
        print("finally", i)

count = 0
while True:
    try:
        count += 1
        if count == 3:
            break
    finally:
        print("cleanup", count)
