"""Programs for the tests of threads the code starts (docs/compatibility.md, "Threads").

Interpreted code runs only on its step's thread. A thread the code starts that calls a
function of the code while the step runs is refused, and the refusal ends the step with an
InterpreterError (never a silent wrong result); a call that comes after the step has ended
runs as any callback of host code does (a window of its own). Shared by the in-process
tests (tests/engine/test_code_threads.py) and the process-mode ones
(tests/isolation/test_code_threads.py).
"""

from __future__ import annotations

IMPORTS = ["threading", "concurrent.futures", "time"]

MESSAGE = "interpreted code runs only on its step's thread"

# CPython prints 400; the step must fail, not print 0.
THREAD_TARGET = """
import threading
n = [0]
def work():
    for i in range(100):
        n[0] += 1
ts = [threading.Thread(target=work) for _ in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print(n[0])
"""

# What agents write to call tools in parallel.
POOL_MAP = """
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(lambda q: q * 2, range(5)))
results
"""

# The code catching the thread's error does not make the step succeed.
CAUGHT = """
from concurrent.futures import ThreadPoolExecutor
def job():
    return 1
try:
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(job).result()
except Exception:
    pass
"swallowed"
"""

# A thread target the code names __del__ is no finalizer (a finalizer's call passes the
# object whose type's __del__ it is): the step fails as for any other name.
DEL_NAMED = """
import threading
n = [0]
def __del__():
    for i in range(100):
        n[0] += 1
ts = [threading.Thread(target=__del__) for _ in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
n[0]
"""

# A generator resumed on another thread is refused too.
GENERATOR = """
import threading
def gen():
    yield 1
g = gen()
t = threading.Thread(target=next, args=(g,))
t.start()
t.join()
"done"
"""

# Host callables as thread targets are not the code's: they run.
HOST_TARGET = """
import threading, time
t = threading.Thread(target=time.sleep, args=(0.01,))
t.start()
t.join()
"ok"
"""

# A call after the step has ended runs (a Timer fires after the step returned).
AFTER_STEP = """
import threading
fired = []
def later():
    fired.append(len(fired) + 1)
threading.Timer(0.5, later).start()
"started"
"""

# A call after the step that is still running when the next step starts: that step waits for
# it (the call's own budget window bounds it), then sees what it did.
LONG_AFTER_STEP = """
import threading, time
marks = []
def later():
    marks.append("start")
    time.sleep(0.6)
    marks.append("end")
threading.Timer(0.1, later).start()
"started"
"""
