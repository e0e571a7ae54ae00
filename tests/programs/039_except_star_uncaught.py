# requires: 3.11
# Unhandled members of an ExceptionGroup propagate as a smaller group.
results = []
try:
    try:
        raise ExceptionGroup("tasks", [ValueError("a"), OSError("disk"), ValueError("b")])
    except* ValueError as eg:
        results.append(len(eg.exceptions))
        print("handled", len(eg.exceptions), "ValueErrors")
except ExceptionGroup as remaining:
    print("left over:", repr(remaining))

try:
    try:
        raise ExceptionGroup("x", [KeyError("k")])
    except* KeyError:
        raise RuntimeError("handler failed")
except* RuntimeError as eg:
    print("raised inside except* handler:", type(eg).__name__, [str(e) for e in eg.exceptions])

print(results)
raise ExceptionGroup("final failures", [ZeroDivisionError("x"), IndexError("y")])
