# Order of try / except / else / finally blocks.
def run(fail):
    print("-- run", fail)
    try:
        print("try")
        if fail:
            raise RuntimeError("boom")
    except RuntimeError as e:
        print("except", e)
    else:
        print("else")
    finally:
        print("finally")
    print("after")


run(False)
run(True)


def nested():
    try:
        try:
            raise ValueError("inner")
        finally:
            print("inner finally")
    except ValueError as e:
        print("outer except", e)
    finally:
        print("outer finally")


nested()

try:
    pass
finally:
    print("finally without except")

try:
    value = 1
except Exception:
    value = 2
else:
    value += 10
print(value)
