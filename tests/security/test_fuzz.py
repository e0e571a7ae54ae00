"""Random programs (hypothesis): random nestings of loops, ifs, try, functions, comprehensions,
arithmetic with random constants and string operations. Whatever the program, the process must
not crash and every step must end within its budgets: a result, or InterpreterError /
ExecutionTimeoutError, in bounded time.

Marked no_sanitizer (and skipped under ASan/UBSan): see conftest.py.
"""

from __future__ import annotations

import time

import pytest
from conftest import UNDER_SANITIZER, new_executor

import smolagents_native.executor as executor_module
from smolagents_native import ExecutionTimeoutError, InterpreterError

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

INTS = ["i0", "i1", "i2", "i3"]
STRS = ["s0", "s1", "s2"]
TIMEOUT = 2.0

small_int = st.integers(min_value=-5, max_value=12)
any_int = st.one_of(
    small_int,
    st.integers(min_value=-(10**6), max_value=10**6),
    st.builds(lambda e: f"(10 ** {e})", st.integers(min_value=0, max_value=400)),
    st.builds(lambda e: f"(2 ** {e})", st.integers(min_value=0, max_value=5000)),
)
str_lit = st.text(alphabet="abcxyz019 _-é", max_size=8).map(repr)


@st.composite
def int_expr(draw, depth=2):
    if depth <= 0 or draw(st.booleans()):
        return str(draw(st.one_of(any_int, st.sampled_from(INTS))))
    op = draw(st.sampled_from(["+", "-", "*", "//", "%", "**", "<<", ">>", "&", "|", "^"]))
    left = draw(int_expr(depth - 1))
    right = draw(int_expr(depth - 1))
    if op in ("**", "<<"):
        right = f"({right} % {draw(st.integers(min_value=1, max_value=300))})"
    kind = draw(st.sampled_from(["bin", "bin", "bin", "len", "abs", "sum", "min", "cond"]))
    if kind == "len":
        return f"len({draw(str_expr(depth - 1))})"
    if kind == "abs":
        return f"abs({left})"
    if kind == "sum":
        return f"sum(range({left} % 50))"
    if kind == "min":
        return f"min({left}, {right})"
    if kind == "cond":
        return f"({left} if {right} > 0 else {left} - 1)"
    return f"({left} {op} {right})"


@st.composite
def str_expr(draw, depth=2):
    if depth <= 0 or draw(st.booleans()):
        return str(draw(st.one_of(str_lit, st.sampled_from(STRS))))
    inner = draw(str_expr(depth - 1))
    kind = draw(st.sampled_from(["upper", "cat", "slice", "str", "rep", "join", "fmt", "replace"]))
    if kind == "upper":
        return f"{inner}.upper()"
    if kind == "cat":
        return f"({inner} + {draw(str_lit)})"
    if kind == "slice":
        return f"{inner}[{draw(small_int)}:{draw(small_int)}]"
    if kind == "str":
        return f"str({draw(int_expr(depth - 1))})[:30]"
    if kind == "rep":
        return f"({inner} * ({draw(int_expr(depth - 1))} % 7))"
    if kind == "join":
        return f"'-'.join([{inner}, {draw(str_lit)}])"
    if kind == "fmt":
        return f"'{{}}:{{!r}}'.format({inner}, {draw(int_expr(depth - 1))})"
    return f"{inner}.replace('a', 'bb')[:40]"


@st.composite
def block(draw, depth, indent):
    n = draw(st.integers(min_value=1, max_value=3))
    return "".join(draw(stmt(depth, indent)) for _ in range(n))


@st.composite
def stmt(draw, depth, indent):
    pad = "    " * indent
    simple = [
        lambda: f"{pad}{draw(st.sampled_from(INTS))} = {draw(int_expr())}\n",
        lambda: f"{pad}{draw(st.sampled_from(STRS))} = {draw(str_expr())}\n",
        lambda: f"{pad}{draw(st.sampled_from(INTS))} {draw(st.sampled_from(['+=', '-=', '*=']))} "
        f"{draw(int_expr(1))}\n",
        lambda: f"{pad}print({draw(str_expr(1))}, {draw(int_expr(1))})\n",
        lambda: f"{pad}acc = [{draw(int_expr(1))} for _x in range({draw(small_int)} % 20)]\n",
        lambda: f"{pad}{draw(st.sampled_from(INTS))} = sorted([i0, i1, i2], key=lambda v: -v)[0]\n",
    ]
    if depth <= 0:
        return draw(st.sampled_from(simple))()
    body = draw(block(depth - 1, indent + 1))
    kind = draw(st.sampled_from(["simple", "if", "for", "while", "try", "def", "gen", "class"]))
    if kind == "if":
        other = draw(block(depth - 1, indent + 1))
        return f"{pad}if {draw(int_expr(1))} > {draw(int_expr(1))}:\n{body}{pad}else:\n{other}"
    if kind == "for":
        return f"{pad}for _i{depth} in range({draw(int_expr(1))} % 30):\n{body}"
    if kind == "while":
        c = f"_c{depth}"
        return (f"{pad}{c} = 0\n{pad}while {c} < {draw(int_expr(1))} % 30:\n"
                f"{pad}    {c} += 1\n{body}")
    if kind == "try":
        exc = draw(st.sampled_from(["ZeroDivisionError", "ValueError", "Exception", "BaseException"]))
        return (f"{pad}try:\n{body}{pad}    {draw(st.sampled_from(INTS))} = 1 // "
                f"({draw(int_expr(1))} % 3)\n{pad}except {exc}:\n{pad}    pass\n"
                f"{pad}finally:\n{pad}    i3 = i3 + 1\n")
    if kind == "def":
        name = f"_f{depth}_{indent}"
        return (f"{pad}def {name}(p0, p1=2):\n{pad}    global {', '.join(INTS + STRS)}\n"
                f"{body}{pad}    return p0 + p1\n"
                f"{pad}i2 = {name}({draw(int_expr(1))})\n")
    if kind == "class":
        name = f"_C{depth}_{indent}"
        return (f"{pad}class {name}:\n{pad}    def __init__(self, v):\n{pad}        self.v = v\n"
                f"{pad}    def __repr__(self):\n{pad}        return 'C' + str(self.v)[:10]\n"
                f"{pad}    def __lt__(self, o):\n{pad}        return self.v < o.v\n"
                f"{pad}print(sorted([{name}({draw(int_expr(1))}), {name}(i1)]))\n"
                f"{draw(block(depth - 1, indent))}")
    if kind == "gen":
        name = f"_g{depth}_{indent}"
        return (f"{pad}def {name}(n):\n{pad}    for k in range(n % 20):\n{pad}        yield k\n"
                f"{pad}i1 = sum({name}({draw(int_expr(1))}))\n")
    return draw(st.sampled_from(simple))()


@st.composite
def program(draw):
    prelude = "i0, i1, i2, i3 = 1, 2, 3, 4\ns0, s1, s2 = 'a', 'bc', 'xyz'\n"
    return prelude + draw(block(3, 0))


@pytest.mark.no_sanitizer
@pytest.mark.skipif(UNDER_SANITIZER, reason="too slow under ASan/UBSan")
@hypothesis.settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=list(hypothesis.HealthCheck),
    derandomize=True,
)
@hypothesis.given(program())
def test_random_programs_end_within_their_budgets(code):
    saved = (executor_module.MAX_OPERATIONS, executor_module.MAX_WHILE_ITERATIONS,
             executor_module.MAX_INT_BITS, executor_module.MAX_RESULT_BYTES)
    executor_module.MAX_OPERATIONS = 200_000
    executor_module.MAX_WHILE_ITERATIONS = 10_000
    executor_module.MAX_INT_BITS = 200_000
    executor_module.MAX_RESULT_BYTES = 2_000_000
    try:
        ex = new_executor(timeout=TIMEOUT)
        t0 = time.perf_counter()
        try:
            ex(code)
        except (InterpreterError, ExecutionTimeoutError):
            pass
        elapsed = time.perf_counter() - t0
        assert elapsed < TIMEOUT + 1.0, (elapsed, code)
        assert ex("40 + 2").output == 42
    finally:
        (executor_module.MAX_OPERATIONS, executor_module.MAX_WHILE_ITERATIONS,
         executor_module.MAX_INT_BITS, executor_module.MAX_RESULT_BYTES) = saved
