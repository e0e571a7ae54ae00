"""Random runnable Python programs for differential testing against CPython.

`generate(seed)` returns the source of one program: module-level statements,
functions (defaults, keyword-only arguments, closures, `nonlocal`), classes
(methods, properties, inheritance, `super()`, special methods), generators
(`yield`, `yield from`, `send`), comprehensions, `try` / `except` / `else` /
`finally`, `with`, `match`, loops with `break` / `continue` / `else`, f-strings
and the common builtins.  Every program terminates quickly: loops run over
small ranges, functions only call functions defined before them (no
recursion), and values are kept small (ints modulo a prime, strings and lists
sliced when stored).  Programs may raise (an uncaught error is part of what is
compared), and many contain operations that fail on purpose (division by
zero, missing keys, bad indexes, bad conversions) inside `try`.

The generator is typed: every variable has a static type (int, str, list,
dict), so most expressions are valid and the programs go deep instead of
failing at the first line.
"""

from __future__ import annotations

import random

MOD = 10007
TYPES = ("int", "str", "list", "dict")
WORDS = ("a", "bc", "xyz", "Hello", "w o r d", "", "42", "-7", "3.5", "abc,def")


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.lines: list[str] = []
        self.vars: dict[str, str] = {}  # module-level variables and their types
        self.funcs: list[tuple[str, int, str]] = []  # (name, n params, return type)
        self.gens: list[str] = []  # generator functions of one int parameter
        self.classes: list[str] = []
        self.counter = 0
        self.in_try = False  # risky operations are mostly generated inside try

    # ------------------------------------------------------------------ helpers
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, indent: int, text: str) -> None:
        for line in text.split("\n"):
            self.lines.append("    " * indent + line)

    def pick_var(self, scope: dict[str, str], typ: str | None = None) -> str | None:
        names = [n for n, t in scope.items() if typ is None or t == typ]
        return self.r.choice(names) if names else None

    # -------------------------------------------------------------- expressions
    def expr(self, typ: str, scope: dict[str, str], depth: int = 0) -> str:
        r = self.r
        if depth > 2 or r.random() < 0.25:
            v = self.pick_var(scope, typ)
            if v is not None and r.random() < 0.7:
                return v
            return self.literal(typ)
        return getattr(self, f"expr_{typ}")(scope, depth + 1)

    def risky(self, typ, make):
        """A choice that may raise: mostly kept to `try` bodies."""
        if self.in_try or self.r.random() < 0.1:
            return make
        return lambda: self.literal(typ)

    def literal(self, typ: str) -> str:
        r = self.r
        if typ == "int":
            return str(r.choice([0, 1, 2, 3, 5, 7, 10, -1, -4, 100, 255]))
        if typ == "str":
            return repr(r.choice(WORDS))
        if typ == "list":
            return "[" + ", ".join(str(r.randint(-5, 9)) for _ in range(r.randint(0, 4))) + "]"
        keys = r.sample(["k1", "k2", "k3", "x", "y"], r.randint(0, 3))
        return "{" + ", ".join(f"{k!r}: {r.randint(0, 9)}" for k in keys) + "}"

    def expr_int(self, scope, d):
        r = self.r
        e = lambda t="int": self.expr(t, scope, d)  # noqa: E731
        choices = [
            lambda: f"({e()} {r.choice(['+', '-', '*', '&', '|', '^'])} {e()})",
            self.risky("int", lambda: f"({e()} {r.choice(['//', '%'])} {e()})"),  # may divide by zero
            lambda: f"(-{e()})",
            lambda: f"abs({e()})",
            lambda: f"len({e(r.choice(['str', 'list', 'dict']))})",
            lambda: f"sum({e('list')})",
            lambda: f"max({e('list')}, default={e()})",
            lambda: f"min({e()}, {e()})",
            lambda: f"({e()} if {self.cond(scope, d)} else {e()})",
            self.risky("int", lambda: f"int({e('str')})"),  # may raise ValueError
            self.risky("int", lambda: f"{e('list')}[{e()}]"),  # may raise IndexError
            self.risky("int", lambda: f"{e('dict')}[{r.choice(['k1', 'k2', 'x'])!r}]"),  # may raise KeyError
            lambda: f"{e('dict')}.get({r.choice(['k1', 'x', 'zz'])!r}, {e()})",
            lambda: f"{e('str')}.count({self.literal('str')})",
            lambda: f"{e('str')}.find({self.literal('str')})",
            lambda: f"sum(x * {e()} for x in range({r.randint(0, 5)}))",
            lambda: f"len([c for c in {e('str')} if c {r.choice(['in', 'not in'])} 'aeiou'])",
            lambda: f"(lambda a, b=2: a * b - 1)({e()})",
            lambda: f"int({e()} {r.choice(['<', '<=', '==', '!='])} {e()})",
            lambda: f"round({e()} / {r.choice([2, 3, 4, 7])})",
            self.risky("int", lambda: f"{e('list')}.index({e()})"),  # may raise ValueError
            lambda: f"divmod({e()}, {r.choice([3, 5, 7])})[{r.randint(0, 1)}]",
            lambda: f"int({e()} < {e()} <= {e()} != {e()})",
            lambda: f"max(*{e('list')}, {e()})",
            lambda: f"(lambda *a, **k: len(a) * 10 + len(k))(*{e('list')}, **{e('dict')})",
            lambda: f"sum({{k: 1 for k in {e('str')}}}.values())",
            lambda: f"len({e('str')}.encode())",
            lambda: f"sorted({e('list')}, key=lambda v, m={e()}: (v - m) ** 2)[:1].count({e()})",
            self.risky("int", lambda: f"pow({e()}, {r.randint(0, 3)}, 97)"),
        ]
        if self.funcs:
            choices.append(lambda: self.call_func(scope, d, "int"))
        if self.gens:
            choices.append(lambda: f"sum({r.choice(self.gens)}({r.randint(0, 4)}))")
        return r.choice(choices)()

    def expr_str(self, scope, d):
        r = self.r
        e = lambda t="str": self.expr(t, scope, d)  # noqa: E731
        choices = [
            lambda: f"({e()} + {e()})",
            lambda: f"{e()}.{r.choice(['upper', 'lower', 'strip', 'title', 'swapcase'])}()",
            lambda: f"{e()}.replace({self.literal('str')}, {self.literal('str')})",
            lambda: f"{e()}[{self.expr('int', scope, d)}:{self.expr('int', scope, d)}]",
            self.risky("str", lambda: f"{e()}[{self.expr('int', scope, d)}]"),  # may raise IndexError
            lambda: f"str({self.expr(r.choice(TYPES), scope, d)})",
            lambda: f"repr({self.expr(r.choice(TYPES), scope, d)})",
            lambda: f"{self.literal('str')}.join({self.expr('str', scope, d)}.split())",
            lambda: f"'-'.join(str(x) for x in {self.expr('list', scope, d)})",
            # leaves only inside the braces: no nested quotes (3.10, 3.11)
            lambda: f'f"{{{self.expr("int", scope, 3)}:>4}}|{{{self.expr("str", scope, 3)}!r}}|{{{self.expr("int", scope, 3)}:x}}"',
            lambda: f"({e()} * {r.randint(0, 3)})",
            lambda: f"'%s=%d' % ({e()}, {self.expr('int', scope, d)})",
            self.risky("str", lambda: f"{e()}.split({r.choice([repr(','), repr(' '), ''])})[{r.randint(-1, 1)}]"),
            lambda: f"''.join(sorted({e()}))",
            lambda: f"{e()}.center({r.randint(0, 12)}, '*')",
            lambda: f"({e()} if {self.cond(scope, d)} else {e()})",
            lambda: f"str({self.expr('int', scope, d)} / {r.choice([2, 4, 8])})",
        ]
        return r.choice(choices)()

    def expr_list(self, scope, d):
        r = self.r
        e = lambda t="list": self.expr(t, scope, d)  # noqa: E731
        i = lambda: self.expr("int", scope, d)  # noqa: E731
        choices = [
            lambda: f"({e()} + {e()})",
            lambda: f"sorted({e()}{r.choice(['', ', reverse=True', ', key=abs', ', key=lambda v: (v % 3, -v)'])})",
            lambda: f"[x {r.choice(['+', '*', '-', '//'])} {i()} for x in {e()}]",
            lambda: f"[x for x in {e()} if x {r.choice(['>', '<', '!='])} {i()}]",
            lambda: f"list(range({r.randint(-2, 3)}, {r.randint(0, 8)}))",
            lambda: f"{e()}[{i()}:{i()}]",
            lambda: f"{e()}[::{r.choice([1, -1, 2, -2])}]",
            lambda: f"list(map(lambda v: v * {r.randint(1, 3)}, {e()}))",
            lambda: f"[len(w) for w in {self.expr('str', scope, d)}.split()]",
            lambda: f"list({self.expr('dict', scope, d)}.values())",
            lambda: f"[a * b for a, b in zip({e()}, {e()})]",
            lambda: f"list(reversed({e()}))",
            lambda: f"[*{e()}, {i()}]",
            lambda: f"[i for i, _ in enumerate({self.expr('str', scope, d)})]",
            lambda: f"list({{x % 5 for x in {e()}}})",
        ]
        if self.gens:
            choices.append(lambda: f"list({r.choice(self.gens)}({r.randint(0, 4)}))")
        return r.choice(choices)()

    def expr_dict(self, scope, d):
        r = self.r
        e = lambda t="dict": self.expr(t, scope, d)  # noqa: E731
        choices = [
            lambda: f"{{**{e()}, **{e()}}}",
            lambda: f"{{k: v * 2 for k, v in {e()}.items()}}",
            lambda: f"dict(zip({self.expr('str', scope, d)}, {self.expr('list', scope, d)}))",
            lambda: f"{{str(x): x for x in {self.expr('list', scope, d)}}}",
            lambda: f"dict({e()}, extra={self.expr('int', scope, d)})",
            lambda: f"{{k: v for k, v in sorted({e()}.items()) if v {r.choice(['>', '<'])} {self.expr('int', scope, d)}}}",
        ]
        return r.choice(choices)()

    def cond(self, scope, d):
        r = self.r
        t = r.choice(TYPES)
        choices = [
            lambda: f"{self.expr('int', scope, d + 1)} {r.choice(['<', '>', '==', '!=', '<=', '>='])} {self.expr('int', scope, d + 1)}",
            lambda: f"{self.expr(t, scope, d + 1)}",
            lambda: f"not {self.expr(t, scope, d + 1)}",
            lambda: f"{self.literal('int')} in {self.expr('list', scope, d + 1)}",
            lambda: f"{self.literal('str')} in {self.expr('str', scope, d + 1)}",
            lambda: f"({self.expr('int', scope, d + 1)} > 0 and {self.expr('str', scope, d + 1)})",
            lambda: f"({self.expr('list', scope, d + 1)} or {self.expr('int', scope, d + 1)})",
            lambda: f"isinstance({self.expr(t, scope, d + 1)}, {r.choice(['int', 'str', 'list', '(list, dict)'])})",
            lambda: f"0 <= {self.expr('int', scope, d + 1)} < 50",
        ]
        return r.choice(choices)()

    def call_func(self, scope, d, _typ):
        name, nparams, rtype = self.r.choice(self.funcs)
        args = [self.expr("int", scope, d) for _ in range(self.r.randint(1, nparams))]
        return f"{name}({', '.join(args)})"

    # --------------------------------------------------------------- statements
    def bound(self, typ: str, expr: str) -> str:
        """Keep stored values small."""
        if typ == "int":
            return f"({expr}) % {MOD}"
        if typ in ("str", "list"):
            return f"({expr})[:{self.r.choice([12, 20, 40])}]"
        return expr

    def assign(self, indent, scope):
        r = self.r
        if scope and r.random() < 0.5:
            name = r.choice(list(scope))
            typ = scope[name]
        else:
            name, typ = self.fresh("v"), r.choice(TYPES)
        self.emit(indent, f"{name} = {self.bound(typ, self.expr(typ, scope))}")
        scope[name] = typ

    def statement(self, indent: int, scope: dict[str, str], depth: int, in_loop: bool, in_func: bool):
        r = self.r
        kinds = ["assign"] * 5 + ["print"] * 4 + ["aug", "mutate", "try", "if", "extra"]
        if depth < 2:
            kinds += ["for", "while", "with", "match", "try"]
        if in_loop:
            kinds += ["break", "continue"]
        kind = r.choice(kinds)
        if kind == "assign" or not scope:
            self.assign(indent, scope)
        elif kind == "print":
            t = r.choice(TYPES)
            self.emit(indent, f"print({r.choice(['', repr('v:') + ', '])}{self.expr(t, scope)})")
        elif kind == "aug":
            name = self.pick_var(scope, "int")
            if name is None:
                self.assign(indent, scope)
                return
            self.emit(indent, f"{name} {r.choice(['+=', '-=', '*=', '//=', '%=', '^='])} {self.expr('int', scope)}")
            self.emit(indent, f"{name} %= {MOD}")
        elif kind == "mutate":
            lst, dct = self.pick_var(scope, "list"), self.pick_var(scope, "dict")
            options = []
            if lst:
                options += [
                    f"{lst}.append({self.expr('int', scope)})",
                    f"{lst}.insert({self.expr('int', scope)}, {self.expr('int', scope)})",
                    f"{lst}.pop()",  # may raise IndexError
                    f"{lst}.sort(key=lambda v: -v)",
                    f"{lst}[{self.expr('int', scope)}] = {self.expr('int', scope)}",
                    f"del {lst}[{self.expr('int', scope)}:{self.expr('int', scope)}]",
                    f"{lst}.extend(x % 7 for x in range({r.randint(0, 4)}))\ndel {lst}[20:]",
                ]
            if dct:
                options += [
                    f"{dct}[{r.choice(['k1', 'k2', 'x', 'new'])!r}] = {self.expr('int', scope)}",
                    f"del {dct}[{r.choice(['k1', 'x'])!r}]",  # may raise KeyError
                    f"{dct}.update({self.expr('dict', scope)})",
                    f"{dct}.pop({r.choice(['k1', 'zz'])!r}, None)",
                ]
            if not options:
                self.assign(indent, scope)
                return
            self.emit(indent, r.choice(options))
        elif kind == "if":
            self.emit(indent, f"if {self.cond(scope, 0)}:")
            self.block(indent + 1, scope, depth + 1, in_loop, in_func)
            if r.random() < 0.4:
                self.emit(indent, f"elif {self.cond(scope, 0)}:")
                self.block(indent + 1, scope, depth + 1, in_loop, in_func)
            if r.random() < 0.5:
                self.emit(indent, "else:")
                self.block(indent + 1, scope, depth + 1, in_loop, in_func)
        elif kind == "for":
            var = self.fresh("i")
            form = r.randrange(4)
            scope = dict(scope)  # the loop variable is unbound after zero iterations
            if form == 0:
                self.emit(indent, f"for {var} in range({r.randint(0, 4)}):")
                scope[var] = "int"
            elif form == 1:
                self.emit(indent, f"for {var} in {self.expr('list', scope)}[:4]:")
                scope[var] = "int"
            elif form == 2:
                self.emit(indent, f"for {var}, ch_{var} in enumerate({self.expr('str', scope)}[:3]):")
                scope[var], scope[f"ch_{var}"] = "int", "str"
            else:
                self.emit(indent, f"for {var} in sorted({self.expr('dict', scope)})[:3]:")
                scope[var] = "str"
            self.block(indent + 1, scope, depth + 1, True, in_func)
            if r.random() < 0.3:
                self.emit(indent, "else:")
                self.emit(indent + 1, f"print('loop done', {var!r})")
        elif kind == "while":
            c = self.fresh("n")
            self.emit(indent, f"{c} = 0")
            self.emit(indent, f"while {c} < {r.randint(0, 4)}:")
            self.emit(indent + 1, f"{c} += 1")  # the counter is not in scope: nothing rebinds it
            self.block(indent + 1, scope, depth + 1, True, in_func)
        elif kind == "try":
            self.emit(indent, "try:")
            self.block(indent + 1, scope, depth + 1, in_loop, in_func, risky=True)
            excs = r.sample(["ZeroDivisionError", "KeyError", "IndexError", "ValueError", "TypeError", "ArithmeticError", "LookupError"], r.randint(1, 2))
            ename = self.fresh("e")
            if len(excs) == 1:
                self.emit(indent, f"except {excs[0]} as {ename}:")
            else:
                self.emit(indent, f"except ({', '.join(excs)}) as {ename}:")
            self.emit(indent + 1, f"print('caught', type({ename}).__name__, {ename})")
            if r.random() < 0.3:
                self.emit(indent, "else:")
                self.emit(indent + 1, "print('no error')")
            if r.random() < 0.3:
                self.emit(indent, "finally:")
                self.emit(indent + 1, "print('finally')")
        elif kind == "with":
            suppress = r.choice(["True", "False"])
            self.emit(indent, f"with Ctx({self.literal('str')}, {suppress}) as cx:")
            scope["cx"] = "str"
            self.block(indent + 1, scope, depth + 1, in_loop, in_func, risky=True)
        elif kind == "match":
            subject = self.expr(r.choice(TYPES), scope)
            self.emit(indent, f"match {subject}:")
            cases = [
                "case 0 | 1:",
                "case int(n) if n > 5:",
                "case [a, b, *rest]:",
                "case [x]:",
                "case {'k1': v}:",
                "case str() as s if len(s) > 2:",
                "case '':",
            ]
            for case in r.sample(cases, r.randint(1, 3)):
                self.emit(indent + 1, case)
                self.emit(indent + 2, f"print('case', {case[5:-1]!r})")
            self.emit(indent + 1, "case _:")
            self.emit(indent + 2, "print('no case')")
        elif kind == "extra":
            lst, dct, num = self.pick_var(scope, "list"), self.pick_var(scope, "dict"), self.pick_var(scope, "int")
            options = [
                f"print(*{self.expr('list', scope)}, sep={self.literal('str')}, end='|\\n')",
                f"print((w_ := {self.expr('int', scope)}) * 2 + w_, w_)",
                f"print('%-6s|%5.1f|%x' % ({self.expr('str', scope)}, {self.expr('int', scope)} / 3, abs({self.expr('int', scope)})))",
                f"print({self.expr('str', scope)}.partition(','), {self.expr('str', scope)}.rsplit(None, 1))",
                f"print(list(zip(*[{self.expr('list', scope)}, {self.expr('str', scope)}])))",
                f"print(any(x > 3 for x in {self.expr('list', scope)}), all({self.expr('list', scope)}))",
                f"print(list(filter(None, {self.expr('list', scope)})), list(enumerate({self.expr('str', scope)}, 1)))",
            ]
            if lst:
                options += [
                    f"{lst}[1:3] = {self.expr('list', scope)}\ndel {lst}[20:]",
                    f"{lst}[::2] = {lst}[::2][::-1]",
                    f"a_, *b_ = {lst} or [0]\nprint(a_, b_)",
                ]
            if dct:
                options += [
                    f"{dct}[{r.choice(['k1', 'x'])!r}] = {dct}.get({r.choice(['k1', 'x'])!r}, 0) + 1",
                    f"print(sorted({dct}.items(), key=lambda kv: (-kv[1], kv[0])))",
                ]
            if num and not in_func:
                options += [f"del {num}\n{num} = {self.literal('int')}"]
            if self.in_try:
                options += [
                    f"raise KeyError({self.literal('str')}) from ValueError('inner')",
                    f"raise ExceptionGroup('grp', [ValueError(1), TypeError(2)])",
                ]
            self.emit(indent, r.choice(options))
        elif kind == "break":
            self.emit(indent, f"if {self.cond(scope, 0)}:")
            self.emit(indent + 1, "break")
        elif kind == "continue":
            self.emit(indent, f"if {self.cond(scope, 0)}:")
            self.emit(indent + 1, "continue")

    def block(self, indent, scope, depth, in_loop, in_func, risky=False):
        scope = dict(scope)  # names first bound in the block may stay unbound
        outer_try = self.in_try
        self.in_try = self.in_try or risky
        n = self.r.randint(1, 3)
        for _ in range(n):
            self.statement(indent, scope, depth, in_loop, in_func)
        self.in_try = outer_try
        if risky and self.r.random() < 0.5:
            self.emit(indent, self.r.choice([
                f"print({self.expr('int', scope)} // {self.r.choice(['0', '1', '2'])})",
                f"raise ValueError({self.literal('str')})",
                f"print({self.expr('dict', scope)}['missing'])",
                f"print(int({self.literal('str')}))",
            ]))

    # --------------------------------------------------------------- definitions
    def define_function(self):
        r = self.r
        name = self.fresh("f")
        nparams = r.randint(1, 3)
        params = [f"p{i}" for i in range(nparams)]
        sig = ", ".join(p if i == 0 else f"{p}={r.randint(0, 5)}" for i, p in enumerate(params))
        if r.random() < 0.3:
            sig += ", *, kw=3"
        self.emit(0, f"def {name}({sig}):")
        scope = {p: "int" for p in params}
        if "kw" in sig:
            scope["kw"] = "int"
        if r.random() < 0.3:
            # a closure with nonlocal
            self.emit(1, "acc = 0")
            self.emit(1, "def inner(x):")
            self.emit(2, "nonlocal acc")
            self.emit(2, f"acc = (acc + x * {r.randint(1, 4)}) % {MOD}")
            self.emit(2, "return acc")
            self.emit(1, f"for q in range({r.randint(0, 3)}):")
            self.emit(2, "inner(q)")
            scope["acc"] = "int"
        for _ in range(r.randint(1, 4)):
            self.statement(1, scope, 1, False, True)
        self.emit(1, f"return {self.bound('int', self.expr('int', scope))}")
        self.funcs.append((name, nparams, "int"))

    def define_generator(self):
        r = self.r
        name = self.fresh("g")
        self.emit(0, f"def {name}(n):")
        self.emit(1, "total = 0")
        self.emit(1, "for k in range(n):")
        if r.random() < 0.5:
            self.emit(2, f"got = yield k * {r.randint(1, 3)}")
            self.emit(2, "if got is not None:")
            self.emit(3, "total += got")
        else:
            self.emit(2, f"yield (k + total) % {r.randint(2, 9)}")
            self.emit(2, "total += k")
        if r.random() < 0.4:
            self.emit(1, f"yield from range({r.randint(0, 3)})")
        self.emit(1, "return total")
        self.gens.append(name)

    def define_ctx(self):
        self.emit(0, "class Ctx:")
        self.emit(1, "def __init__(self, tag, suppress):")
        self.emit(2, "self.tag, self.suppress = tag, suppress")
        self.emit(1, "def __enter__(self):")
        self.emit(2, "print('enter', self.tag)")
        self.emit(2, "return self.tag")
        self.emit(1, "def __exit__(self, et, ev, tb):")
        self.emit(2, "print('exit', self.tag, et.__name__ if et else None)")
        self.emit(2, "return self.suppress")
        self.classes.append("Ctx")

    def define_class(self):
        r = self.r
        name = self.fresh("C")
        base = r.choice(self.classes) if self.classes and r.random() < 0.4 and self.classes[-1] != "Ctx" else None
        if base == "Ctx":
            base = None
        self.emit(0, f"class {name}{'(' + base + ')' if base else ''}:")
        self.emit(1, f"kind = {self.literal('str')}")
        self.emit(1, "def __init__(self, x=1):")
        if base:
            self.emit(2, "super().__init__(x)")
        self.emit(2, f"self.x = x % {MOD}")
        self.emit(2, "self.items = []")
        self.emit(1, "def add(self, v):")
        self.emit(2, "self.items.append(v)")
        self.emit(2, "self.items = self.items[-5:]")
        self.emit(2, "return self")
        self.emit(1, "@property")
        self.emit(1, "def total(self):")
        self.emit(2, "return self.x + sum(self.items)")
        self.emit(1, "def __repr__(self):")
        self.emit(2, f"return f'{name}({{self.x}}, {{self.items}})'")
        self.emit(1, "def __eq__(self, other):")
        self.emit(2, f"return isinstance(other, {name}) and self.total == other.total")
        self.emit(1, "__hash__ = None")
        self.emit(1, "def __len__(self):")
        self.emit(2, "return len(self.items)")
        if r.random() < 0.5:
            self.emit(1, "@classmethod")
            self.emit(1, "def make(cls, n):")
            self.emit(2, "return cls(n * 2)")
        self.classes.append(name)

    def use_class(self, scope):
        r = self.r
        cls = r.choice([c for c in self.classes if c != "Ctx"])
        obj = self.fresh("o")
        self.emit(0, f"{obj} = {cls}({self.expr('int', scope)})")
        for _ in range(r.randint(1, 3)):
            self.emit(0, f"{obj}.add({self.expr('int', scope)})")
        self.emit(0, r.choice([
            f"print({obj}, {obj}.total, len({obj}), {obj}.kind)",
            f"print({obj} == {cls}({self.expr('int', scope)}), bool({obj}))",
            f"print(sorted([{obj}.total, {self.expr('int', scope)}]))",
            f"print(getattr({obj}, 'missing', 'default'), hasattr({obj}, 'x'))",
        ]))

    def use_generator(self, scope):
        r = self.r
        g = r.choice(self.gens)
        it = self.fresh("it")
        self.emit(0, f"{it} = {g}({r.randint(0, 4)})")
        self.emit(0, f"print(next({it}, 'empty'))")
        self.emit(0, "try:")
        self.emit(1, f"print({it}.send({r.randint(0, 5)}))")
        self.emit(1, f"print(list({it}))")
        self.emit(0, "except StopIteration as stop:")
        self.emit(1, "print('stop', stop.value)")

    def program(self) -> str:
        r = self.r
        scope = self.vars
        self.define_ctx()
        for _ in range(r.randint(1, 3)):
            self.assign(0, scope)
        for _ in range(r.randint(4, 10)):
            what = r.random()
            if what < 0.12:
                self.define_function()
            elif what < 0.2:
                self.define_generator()
            elif what < 0.28:
                self.define_class()
            elif what < 0.36 and any(c != "Ctx" for c in self.classes):
                self.use_class(scope)
            elif what < 0.42 and self.gens:
                self.use_generator(scope)
            else:
                self.statement(0, scope, 0, False, False)
        self.emit(0, f"print('end', {', '.join(sorted(scope)[:4]) or '0'})")
        return "\n".join(self.lines) + "\n"


def generate(seed: int) -> str:
    """The source of one random runnable program, a function of `seed` alone."""
    return _Gen(seed).program()


if __name__ == "__main__":  # pragma: no cover - manual inspection
    import sys

    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
