"""Generators (csrc/eval/generator.c): each snippet runs under CPython ``exec`` and
under the executor; printed text and the uncaught exception must agree.
Further tests cover what a snippet cannot show: generators resumed by host
code after the step, finalization, limits inside generators.
"""

from __future__ import annotations

import contextlib
import gc
import io
import sys
import types
import textwrap

import pytest

SNIPPETS = {
    "basic": """
        def count(n):
            i = 0
            while i < n:
                yield i
                i += 1
        print(list(count(5)))
        g = count(2)
        print(next(g), next(g))
        try:
            next(g)
        except StopIteration as e:
            print("stop", repr(e.value), e.args)
        print(next(g, "default"))
        print(iter(g) is g)
    """,
    "send": """
        def acc():
            total = 0
            while True:
                x = yield total
                if x is None:
                    break
                total += x
            return total
        g = acc()
        print(next(g))
        print(g.send(5), g.send(10))
        try:
            g.send(None)
        except StopIteration as e:
            print("returned", e.value)
        h = acc()
        try:
            h.send(1)
        except TypeError as e:
            print("TypeError", e)
        print(h.send(None))
        try:
            g.send(3)
        except StopIteration as e:
            print("exhausted", e.args)
    """,
    "yield_expression_forms": """
        def g():
            a = yield
            print("a", a)
            b = (yield 1) + (yield 2)
            print("b", b)
            yield a, b
        it = g()
        print(next(it))
        print(it.send("A"))
        print(it.send(10))
        print(it.send(20))
    """,
    "return_values": """
        def r(v):
            yield 1
            return v
        for v in [None, 5, (1, 2), (), ValueError("x"), StopIteration(3), [1]]:
            g = r(v)
            next(g)
            try:
                next(g)
            except StopIteration as e:
                print(type(e.value).__name__, repr(e.value), e.args)
        def empty():
            return 7
            yield
        print(list(empty()))
        try:
            empty().send(None)
        except StopIteration as e:
            print("value", e.value)
    """,
    "yield_from": """
        def inner(n):
            for i in range(n):
                got = yield i
                if got:
                    print("inner got", got)
            return n * 10
        def outer():
            r = yield from inner(3)
            print("inner returned", r)
            r2 = yield from [7, 8]
            print("list gives", r2)
            r3 = yield from ()
            print("empty gives", r3)
            return r + 1
        g = outer()
        print(next(g))
        print(g.send("hello"))
        print(list(g))
        def o2():
            x = yield from outer()
            print("o2 got", x)
        print(list(o2()))
    """,
    "yield_from_iterators": """
        class It:
            def __init__(self):
                self.i = 0
            def __iter__(self):
                return self
            def __next__(self):
                self.i += 1
                if self.i > 3:
                    raise StopIteration(self.i * 100)
                return self.i
        def g():
            r = yield from It()
            print("It returned", r)
            r = yield from iter("ab")
            print("str iter returned", r)
            r = yield from (x * 2 for x in range(3))
            print("genexp returned", r)
        print(list(g()))
        def bad():
            yield from 5
        try:
            list(bad())
        except TypeError as e:
            print("TypeError", e)
        def send_to_plain():
            yield from iter([1, 2, 3])
        s = send_to_plain()
        next(s)
        try:
            s.send(5)
        except AttributeError as e:
            print("AttributeError", e)
    """,
    "yield_from_send_throw_to_object": """
        class Echo:
            def __init__(self):
                self.log = []
            def __iter__(self):
                return self
            def __next__(self):
                return self.send(None)
            def send(self, v):
                self.log.append(("send", v))
                if v == "stop":
                    raise StopIteration("stopped")
                return f"echo {v}"
            def throw(self, *args):
                self.log.append(("throw", [type(a).__name__ for a in args]))
                if args[0] is KeyError:
                    raise StopIteration("handled")
                raise args[0]
            def close(self):
                self.log.append(("close",))
        e = Echo()
        def g():
            r = yield from e
            print("result", r)
            yield "after"
        it = g()
        print(next(it))
        print(it.send(1))
        print(it.throw(KeyError))
        it.close()
        print(e.log)
        e2 = Echo()
        def g2():
            try:
                yield from e2
            except ValueError as exc:
                print("caught", repr(exc))
                yield "recovered"
        it2 = g2()
        next(it2)
        print(it2.throw(ValueError("v")))
        print(it2.send("x") if False else "ok")
        print(e2.log)
        it3 = g()
        next(it3)
        print(it3.send("stop"))
    """,
    "throw_basic": """
        def g():
            try:
                yield 1
            except ValueError as e:
                print("caught", repr(e))
                yield 2
            finally:
                print("finally")
            yield 3
        it = g()
        print(next(it))
        print(it.throw(ValueError("boom")))
        print(next(it))
        try:
            it.throw(KeyError, "k")
        except KeyError as e:
            print("propagated", repr(e))
        try:
            it.throw(KeyError)
        except KeyError as e:
            print("after end", repr(e))
        def h():
            yield 1
        x = h()
        try:
            x.throw(ValueError)
        except ValueError as e:
            print("unstarted raises", repr(e))
        print(list(x))
        y = h()
        next(y)
        for args in [(ValueError, ValueError("a")), (ValueError, None), (ValueError, (1, 2)),
                     (ValueError, 5)]:
            y = h()
            next(y)
            try:
                y.throw(*args)
            except ValueError as e:
                print("args", e.args)
        y = h()
        next(y)
        try:
            y.throw(ValueError("i"), 5)
        except TypeError as e:
            print("TypeError", e)
        try:
            y.throw(42)
        except TypeError as e:
            print("TypeError", e)
        try:
            y.throw(ValueError, None, 5)
        except TypeError as e:
            print("TypeError", e)
        try:
            y.throw()
        except TypeError as e:
            print("TypeError", e)
        print(next(y, "still alive"))
    """,
    "throw_stopiteration": """
        def g():
            yield 1
        a = g()
        try:
            a.throw(StopIteration)
        except RuntimeError as e:
            print("unstarted", e)
        b = g()
        next(b)
        try:
            b.throw(StopIteration("x"))
        except RuntimeError as e:
            print("started", e)
        print(list(b))
    """,
    "close": """
        def g():
            try:
                yield 1
                yield 2
            except GeneratorExit:
                print("GeneratorExit seen")
                raise
            finally:
                print("finally ran")
        it = g()
        next(it)
        print(it.close())
        print(it.close())
        print(list(it))
        fresh = g()
        print(fresh.close())
        print(list(fresh))
        def ignore():
            while True:
                try:
                    yield 1
                except GeneratorExit:
                    print("ignoring")
        i = ignore()
        next(i)
        try:
            i.close()
        except RuntimeError as e:
            print("RuntimeError", e)
        def returns():
            try:
                yield 1
            except GeneratorExit:
                return 5
        r = returns()
        next(r)
        print(r.close())
        def raises():
            try:
                yield 1
            finally:
                raise KeyError("from finally")
        x = raises()
        next(x)
        try:
            x.close()
        except KeyError as e:
            print("close raised", repr(e))
        def stopper():
            try:
                yield 1
            except GeneratorExit:
                raise StopIteration
        s = stopper()
        next(s)
        try:
            print(s.close())
        except RuntimeError as e:
            print("RuntimeError", e)
    """,
    "close_yield_from": """
        def inner():
            try:
                yield 1
                yield 2
            finally:
                print("inner finally")
        def outer():
            try:
                yield from inner()
            finally:
                print("outer finally")
        o = outer()
        print(next(o))
        o.close()
        print("closed")
        def inner_bad():
            try:
                yield 1
            finally:
                raise ValueError("inner close failed")
        def outer2():
            try:
                yield from inner_bad()
            except ValueError as e:
                print("outer sees", repr(e))
                yield "recovered"
        o2 = outer2()
        next(o2)
        try:
            o2.close()
        except RuntimeError as e:
            print("RuntimeError", e)
        o3 = outer()
        next(o3)
        try:
            o3.throw(GeneratorExit)
        except GeneratorExit:
            print("GeneratorExit propagated")
    """,
    "throw_yield_from_chain": """
        def leaf():
            try:
                yield "leaf"
            except KeyError:
                print("leaf caught KeyError")
                yield "leaf recovered"
            return "leaf done"
        def mid():
            r = yield from leaf()
            print("mid got", r)
            try:
                yield "mid"
            except KeyError:
                print("mid caught")
            return "mid done"
        def top():
            r = yield from mid()
            print("top got", r)
            yield "top"
        t = top()
        print(next(t))
        print(t.throw(KeyError))
        print(next(t))
        print(t.throw(KeyError("again")))
        def leaf2():
            yield 1
            return 2
        def top2():
            try:
                x = yield from leaf2()
            except ValueError:
                print("top2 caught")
                x = None
            yield x
        t2 = top2()
        next(t2)
        print(t2.throw(ValueError))
    """,
    "stopiteration_in_body": """
        def g():
            yield 1
            raise StopIteration("inside")
        try:
            list(g())
        except RuntimeError as e:
            print(type(e).__name__, e)
        def h():
            yield next(iter([]))
        try:
            print(list(h()))
        except RuntimeError as e:
            print("h:", e)
        def k():
            it = iter([1])
            while True:
                try:
                    yield next(it)
                except StopIteration:
                    return "done"
        print(list(k()))
        class MyStop(StopIteration):
            pass
        def m():
            yield 1
            raise MyStop
        try:
            list(m())
        except RuntimeError as e:
            print("subclass", e)
    """,
    "already_executing": """
        def g():
            yield next(me)
        me = g()
        try:
            next(me)
        except ValueError as e:
            print("ValueError", e)
        print(list(me))
        def h():
            me2.send(None)
            yield 1
        me2 = h()
        try:
            next(me2)
        except ValueError as e:
            print("send", e)
        def c():
            me3.close()
            yield 1
        me3 = c()
        try:
            next(me3)
        except ValueError as e:
            print("close", e)
        def t():
            me4.throw(KeyError)
            yield 1
        me4 = t()
        try:
            next(me4)
        except ValueError as e:
            print("throw", e)
    """,
    "state_after_exception": """
        def g():
            yield 1
            1 / 0
            yield 2
        it = g()
        print(next(it))
        try:
            next(it)
        except ZeroDivisionError as e:
            print("error", e)
        print(next(it, "finished"))
        print(list(it))
        try:
            it.send(1)
        except StopIteration as e:
            print("send after error", e.args)
        print(it.close())
    """,
    "islice_infinite": """
        import itertools
        def naturals():
            n = 0
            while True:
                yield n
                n += 1
        print(list(itertools.islice(naturals(), 5)))
        def fib():
            a, b = 0, 1
            while True:
                yield a
                a, b = b, a + b
        print(list(itertools.islice(fib(), 10, 15)))
        evens = (n for n in naturals() if n % 2 == 0)
        print(list(itertools.islice(evens, 4)))
        print(list(zip(naturals(), "abc")))
        print(next(itertools.dropwhile(lambda x: x < 100, naturals())))
    """,
    "genexp": """
        log = []
        def src():
            for i in range(3):
                log.append(f"produce {i}")
                yield i
        g = (x * x for x in src())
        print(log)
        print(next(g))
        print(log)
        print(list(g))
        print(sum(x for x in range(10) if x % 3))
        print(list((x, y) for x in range(3) for y in range(x)))
        print(g.__name__, g.__qualname__)
        print(repr(g).startswith("<generator object <genexpr> at 0x"))
        try:
            (x for x in 5)
        except TypeError as e:
            print("eager iter", e)
        def f(n):
            return (i * n for i in range(3))
        print(list(f(2)))
        print(max((len(w), w) for w in "a bb ccc".split()))
        print(any(x > 3 for x in [1, 5]), all(x for x in []))
        print(sorted(w for w in {"b", "a"}), dict((k, k * 2) for k in "ab"))
        it = (1 / x for x in [1, 0])
        print(next(it))
        try:
            next(it)
        except ZeroDivisionError as e:
            print("lazy error", e)
        print(list(it))
        g2 = (x for x in range(3))
        print(g2.send(None), g2.send(5))
        g2.close()
        print(list(g2))
    """,
    "class_methods": """
        class Tree:
            def __init__(self, value, children=()):
                self.value = value
                self.children = list(children)
            def __iter__(self):
                yield self.value
                for c in self.children:
                    yield from c
            def walk(self, depth=0):
                yield depth, self.value
                for c in self.children:
                    yield from c.walk(depth + 1)
            @staticmethod
            def countdown(n):
                while n:
                    yield n
                    n -= 1
            @classmethod
            def names(cls):
                yield cls.__name__
        t = Tree(1, [Tree(2, [Tree(4)]), Tree(3)])
        print(list(t))
        print(list(t.walk()))
        print(list(Tree.countdown(3)), list(Tree.names()))
        print(Tree.walk.__qualname__, t.walk().__qualname__, t.walk().__name__)
        print(repr(t.walk()).startswith("<generator object Tree.walk at 0x"))
        class Sub(Tree):
            def walk(self, depth=0):
                yield "sub"
                yield from super().walk(depth)
        print(list(Sub(9, [Tree(8)]).walk()))
    """,
    "names_and_attrs": """
        def g():
            yield 1
        x = g()
        print(x.__name__, x.__qualname__)
        print(hasattr(x, "send"), hasattr(x, "throw"), hasattr(x, "close"))
    """,
    "closures_and_locals": """
        def make(n):
            def gen():
                nonlocal n
                while n > 0:
                    yield n
                    n -= 1
            return gen
        f = make(3)
        print(list(f()), list(f()))
        def counter():
            count = 0
            def bump():
                nonlocal count
                count += 1
                return count
            yield bump
            yield count
            bump()
            yield count
        c = counter()
        b = next(c)
        b(); b()
        print(next(c), next(c))
        def args(a, b=2, *rest, k=3, **kw):
            yield a, b, rest, k, kw
        print(list(args(1)), list(args(1, 5, 6, k=0, z=1)))
        try:
            args()
        except TypeError as e:
            print("binding error at call", e)
        gl = 0
        def uses_global():
            global gl
            gl += 1
            yield gl
        print(list(uses_global()), gl)
    """,
    "exception_context": """
        def g():
            try:
                raise KeyError("inner")
            except KeyError:
                yield "in handler"
                raise ValueError("during")
        it = g()
        print(next(it))
        try:
            next(it)
        except ValueError as e:
            print(repr(e))
        def h():
            yield 1
            raise TypeError("t")
        try:
            raise IndexError("outer")
        except IndexError:
            it = h()
            next(it)
            try:
                next(it)
            except TypeError as e:
                print(repr(e))
        def bare():
            try:
                raise KeyError("k")
            except KeyError:
                yield 1
                raise
        b = bare()
        next(b)
        try:
            next(b)
        except KeyError as e:
            print("bare raise", repr(e))
        def no_handler():
            try:
                yield 1
            except KeyError:
                pass
        n = no_handler()
        next(n)
        try:
            raise IndexError("outer2")
        except IndexError:
            print(next(n, "done"))
    """,
    "finally_and_with": """
        class CM:
            def __init__(self, name):
                self.name = name
            def __enter__(self):
                print("enter", self.name)
                return self
            def __exit__(self, *exc):
                print("exit", self.name, exc[0].__name__ if exc[0] else None)
                return False
        def g():
            with CM("a"):
                yield 1
                with CM("b"):
                    yield 2
        it = g()
        print(next(it), next(it))
        it.close()
        def h():
            for i in range(3):
                try:
                    yield i
                finally:
                    print("cleanup", i)
        for v in h():
            if v == 1:
                break
        print("after break")
        def early():
            try:
                yield 1
                return "r"
            finally:
                print("early finally")
        print(list(early()))
    """,
    "drop_suspended": """
        def reader(tag):
            try:
                yield 1
                yield 2
            finally:
                print("closed", tag)
        def use():
            r = reader("local")
            next(r)
            print("leaving use")
        use()
        print("after use")
        rs = [reader(i) for i in range(3)]
        for r in rs:
            next(r)
        rs = None
        print("after list drop")
        a = reader("cycle")
        next(a)
        holder = [a]
        holder.append(holder)
        a = None
        holder = None
        print("after cycle drop")
    """,
    "recursive_generators": """
        def perms(items):
            if len(items) <= 1:
                yield list(items)
                return
            for i in range(len(items)):
                for p in perms(items[:i] + items[i + 1:]):
                    yield [items[i]] + p
        print(list(perms([1, 2, 3])))
        def flatten(x):
            if isinstance(x, list):
                for y in x:
                    yield from flatten(y)
            else:
                yield x
        print(list(flatten([1, [2, [3, [4, [5]]]], 6])))
        def chain(n):
            if n == 0:
                yield "bottom"
                return 0
            r = yield from chain(n - 1)
            return r + 1
        def drive(n):
            r = yield from chain(n)
            yield r
        print(list(drive(200)))
    """,
    "deep_recursion_inside": """
        def f(n):
            return 0 if n == 0 else 1 + f(n - 1)
        def g():
            yield f(300)
            try:
                yield f(100000)
            except RecursionError:
                yield "recursion error caught"
            yield f(50)
        print(list(g()))
    """,
    "generator_pipeline": """
        def numbers():
            yield from range(1, 11)
        def evens(it):
            for x in it:
                if x % 2 == 0:
                    yield x
        def squares(it):
            for x in it:
                yield x * x
        def take(it, n):
            for i, x in enumerate(it):
                if i >= n:
                    return
                yield x
        print(list(take(squares(evens(numbers())), 3)))
        print(sum(squares(evens(numbers()))))
        print(list(map(lambda x: x + 1, evens(numbers()))))
        print(sorted(squares(range(4)), reverse=True))
        print(list(filter(None, (x % 3 for x in range(6)))))
        print(dict(zip(evens(numbers()), squares(numbers()))))
        print(list(enumerate(evens(range(6)), 1)))
        print("".join(c.upper() for c in "abc"))
        print(list(reversed(list(evens(range(7))))))
    """,
    "lambda_generator": """
        g = lambda: (yield 1)
        it = g()
        print(next(it))
        try:
            it.send("sent")
        except StopIteration as e:
            print("lambda returned", e.value)
        h = lambda x: (yield from range(x))
        print(list(h(3)))
    """,
    "yield_from_delegation_chain": """
        # resuming the outer generator of a `yield from` chain sends straight to the
        # innermost one (generator.c: delegate_send); all of this must look the same
        def leaf(tag):
            got = []
            try:
                while True:
                    x = yield (tag, len(got))
                    if x == "stop":
                        return got
                    if x == "boom":
                        raise ValueError(tag)
                    got.append(x)
            finally:
                print("leaf finally", tag)
        def mid(tag):
            try:
                r = yield from leaf(tag)
            except ValueError as e:
                print("mid caught", repr(e))
                r = yield "recovered"
            print("mid got", r)
            return ("mid", r)
        def top():
            r = yield from mid("a")
            print("top got", r)
            r2 = yield from mid("b")
            return [r, r2]
        t = top()
        print(next(t), t.send(1), t.send(2), t.send("stop"))
        print(t.send("boom"))
        try:
            t.send("x")
        except StopIteration as e:
            print("top returned", e.value)
        # the handled exception seen inside the chain: the resumer's, or that of a
        # delegator suspended in an except block
        def handled():
            try:
                raise
            except BaseException as e:
                return repr(e)
        def prober():
            while True:
                yield handled()
        def wrap():
            yield from prober()
        def outer_in_handler():
            try:
                raise TypeError("outer handling")
            except TypeError:
                yield from wrap()
        w = wrap()
        o = outer_in_handler()
        print(next(w), next(o))
        try:
            raise IndexError("resumer")
        except IndexError:
            print(next(w), next(o))
        print(next(w), next(o))
        # the subgenerator resumes its delegator: already executing
        def sub_touching():
            yield 1
            next(holder[0])
        def delegator():
            yield from sub_touching()
        holder = [delegator()]
        print(next(holder[0]))
        try:
            next(holder[0])
        except ValueError as e:
            print("sub:", e)
        # yield from itself
        def selfish():
            yield 0
            yield from me
        me = selfish()
        print(next(me))
        try:
            next(me)
        except ValueError as e:
            print("self:", e)
        # throw and close while delegated, values sent through a deep chain
        def deep(k):
            if k == 0:
                total = 0
                while True:
                    v = yield total
                    if v is None:
                        return total
                    total += v
            r = yield from deep(k - 1)
            return r + 1
        d = deep(30)
        next(d)
        print([d.send(i) for i in range(5)])
        try:
            d.send(None)
        except StopIteration as e:
            print("deep returned", e.value)
        d = deep(30)
        next(d)
        d.send(3)
        try:
            d.throw(KeyError("thrown"))
        except KeyError as e:
            print("thrown through", e)
        d = deep(30)
        next(d)
        d.close()
        print("closed")
        # breaking out of a for loop over a chain; a value sent through to a genexp
        for i, v in enumerate(mid("c")):
            if i == 1:
                break
        def starts():
            yield from (x for x in range(3))
        s = starts()
        print(next(s), s.send(None), s.send(1))
    """,
    "genexp_protocol": """
        # generator expressions run without a C stack of their own (generator.c:
        # genexp_step); everything a genexp can do must look the same
        class Noisy:
            def __init__(self, tag, items):
                self.tag, self.items = tag, list(items)
            def __iter__(self):
                print("iter", self.tag)
                return self
            def __next__(self):
                if not self.items:
                    print("done", self.tag)
                    raise StopIteration
                return self.items.pop(0)
        g = ((x, y) for x in Noisy("outer", [1, 2, 3]) if x != 2 for y in Noisy(f"in{x}", range(x)) if y >= 0)
        print("created")
        print(list(g), list(g))
        # send, throw, close at each stage
        g = (x * 10 for x in range(5))
        print(g.send(None), g.send("ignored"), next(g))
        try:
            g.throw(KeyError("k"))
        except KeyError as e:
            print("throw", repr(e))
        print(list(g))
        g = (x for x in range(3))
        try:
            g.throw(StopIteration)
        except RuntimeError as e:
            print("unstarted throw:", e)
        g = (x for x in range(3))
        next(g)
        try:
            g.throw(StopIteration("s"))
        except RuntimeError as e:
            print("pep 479", e)
        g = (x for x in range(3))
        print(next(g), g.close(), list(g))
        g = (x for x in range(3))
        try:
            g.send(1)
        except TypeError as e:
            print("send to unstarted:", e)
        # errors in each part
        class Bad:
            def __bool__(self):
                raise ValueError("bool")
        for make in (lambda: (x for x in range(3) if Bad()),
                     lambda: (x for x in range(2) for y in 5),
                     lambda: (1 / (x - 1) for x in range(3)),
                     lambda: (x for x in range(2) if next(iter([]))),
                     lambda: (x for x, y in [(1, 2), (3,)])):
            g = make()
            out = []
            try:
                for v in g:
                    out.append(v)
            except Exception as e:
                print(out, type(e).__name__, e)
            print(list(g))
        # the genexp resuming itself; a genexp over a generator; closure
        me = None
        g = (next(me) for x in range(3))
        me = g
        try:
            next(g)
        except ValueError as e:
            print(e)
        def nums():
            try:
                yield 1
                yield 2
            finally:
                print("nums finally")
        g = (x + k for x in nums() for k in (100, 200))
        print(next(g), next(g), next(g))
        del g
        k = 5
        def scale(n):
            return list(x * n + k for x in range(3))
        print(scale(2))
        # handled exception seen inside a genexp: the resumer's
        def handled():
            try:
                raise
            except BaseException as e:
                return repr(e)
        g = (handled() for x in range(3))
        print(next(g))
        try:
            raise IndexError("resumer")
        except IndexError:
            print(next(g))
        print(next(g))
        # deep recursion inside a genexp element
        def f(n):
            return 0 if n == 0 else 1 + f(n - 1)
        try:
            print(sum(f(100000) for x in range(2)))
        except RecursionError:
            print("RecursionError")
        print(sum(f(50) for x in range(2)))
        # many clauses (more iterators than fit in the object)
        print(sum(a + b + c + d + e + f2 for a in range(2) for b in range(2) for c in range(2)
                  for d in range(2) for e in range(2) for f2 in range(2) if a <= b))
        g = (a for a in range(2) for b in range(2) for c in range(2) for d in range(2) for e in [1])
        print(next(g))
        g.close()
    """,
    "uncaught_from_generator": """
        def g():
            yield 1
            raise ValueError("boom from generator")
        for x in g():
            print(x)
    """,
    "generator_not_resumable_after_close_in_finally": """
        def g():
            try:
                yield 1
            finally:
                print("finally, trying to yield")
                yield 2
        it = g()
        next(it)
        try:
            it.close()
        except RuntimeError as e:
            print("RuntimeError", e)
        try:
            next(it)
        except GeneratorExit:
            print("finally re-raises GeneratorExit")
        print(next(it, "exhausted"))
    """,
}


def _run_cpython(src):
    buf = io.StringIO()
    exc = None
    g = {"__name__": "__main__"}
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(src, "<snippet>", "exec"), g)
        except Exception as e:  # noqa: BLE001
            exc = (type(e).__name__, str(e))
    g.clear()
    gc.collect()
    return buf.getvalue(), exc


def _run_executor(src, make_executor):
    from smolagents_native import InterpreterError

    ex = make_executor()
    exc = None
    stray = io.StringIO()
    with contextlib.redirect_stdout(stray):
        try:
            printed = ex(src).logs
        except InterpreterError as err:
            cause = err.__cause__
            exc = (type(cause).__name__, str(cause)) if cause is not None else ("InterpreterError", str(err))
            printed = str(ex.state.get("_print_outputs", ""))
    return printed, exc


# CPython reports generators that ignore GeneratorExit when they are collected;
# so do we: both sides of some snippets leave such a generator behind.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_matches_cpython(name, make_executor):
    src = textwrap.dedent(SNIPPETS[name])
    expected = _run_cpython(src)
    actual = _run_executor(src, make_executor)
    assert actual[1] == expected[1], f"uncaught exception differs\n{expected[1]!r}\n{actual[1]!r}"
    assert actual[0] == expected[0]


def test_host_iterates_generator_after_step(make_executor):
    ex = make_executor()
    out = ex(
        textwrap.dedent(
            """
            def g(n):
                try:
                    for i in range(n):
                        x = yield i * i
                        if x:
                            print("got", x)
                finally:
                    print("host finished me")
            gen = g(4)
            gen
            """
        )
    )
    gen = out.output
    assert next(gen) == 0
    assert gen.send("hello") == 1
    assert list(gen) == [4, 9]
    with pytest.raises(StopIteration):
        next(gen)


def test_host_resume_respects_budget(make_executor, interpreter_error):
    ex = make_executor()
    out = ex(
        textwrap.dedent(
            """
            def forever():
                while True:
                    yield 1
                    while True:
                        pass
            forever()
            """
        )
    )
    gen = out.output
    assert next(gen) == 1
    with pytest.raises(interpreter_error):
        next(gen)


def test_host_throw_ignores_traceback(make_executor):
    ex = make_executor()
    gen = ex(
        textwrap.dedent(
            """
            def g():
                try:
                    yield 1
                except ValueError as e:
                    yield "caught " + str(e)
            g()
            """
        )
    ).output
    next(gen)
    try:
        raise ValueError("host")
    except ValueError as e:
        tb = e.__traceback__
        assert gen.throw(ValueError, ValueError("x"), tb) == "caught x"
    with pytest.raises(TypeError, match="third argument must be a traceback"):
        gen.throw(ValueError, None, 5)


def test_dropped_suspended_generators_are_closed(make_executor):
    ex = make_executor()
    out = ex(
        textwrap.dedent(
            """
            closed = []
            def g(i):
                try:
                    yield i
                    yield i
                finally:
                    closed.append(i)
            gens = [g(i) for i in range(200)]
            for x in gens:
                next(x)
            gens = x = None
            print(len(closed))
            """
        )
    )
    assert out.logs.strip() == "200"


def test_many_live_suspended_generators(make_executor):
    ex = make_executor()
    out = ex(
        textwrap.dedent(
            """
            def g(i):
                yield i
                yield i + 1
            gens = [g(i) for i in range(3000)]
            s = 0
            for x in gens:
                s += next(x)
            for x in gens:
                s += next(x)
            print(s)
            """
        )
    )
    assert out.logs.strip() == str(sum(range(3000)) * 2 + 3000)


def test_generator_refusing_close_is_abandoned(make_executor, monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append((u.exc_type, str(u.exc_value), repr(u.object))))
    ex = make_executor()
    out = ex(
        textwrap.dedent(
            """
            def stubborn():
                while True:
                    try:
                        yield 1
                    except GeneratorExit:
                        print("refusing")
            s = stubborn()
            next(s)
            s = None
            print("survived")
            """
        )
    )
    assert out.logs == "refusing\nsurvived\n"
    assert len(seen) == 1
    assert seen[0][0] is RuntimeError and seen[0][1] == "generator ignored GeneratorExit"
    assert seen[0][2].startswith("<generator object stubborn at 0x")


def test_generator_type_from_host(make_executor):
    import collections.abc

    gen = make_executor()("def g():\n    yield 1\ng()").output
    assert isinstance(gen, collections.abc.Generator)
    assert gen.__name__ == "g" and gen.__qualname__ == "g"
    gen.__name__ = "renamed"
    assert gen.__name__ == "renamed"
    with pytest.raises(TypeError, match="__qualname__ must be set to a string object"):
        gen.__qualname__ = 5
    assert not hasattr(gen, "gi_frame")  # interpreted code has no frame
    # CPython's class for host code (isinstance, inspect, types.coroutine), and a code object
    # whose flags say generator (tests/engine/test_coroutines.py)
    assert gen.__class__ is types.GeneratorType and type(gen) is not types.GeneratorType
    assert gen.gi_code.co_flags & 0x20
    assert gen.gi_running is False and gen.gi_yieldfrom is None
    if sys.version_info >= (3, 11):
        assert gen.gi_suspended is False
    ex = make_executor()
    sub = ex("def s():\n    yield 1\ndef g():\n    yield from s()\nx = g()\nnext(x)\nx").output
    assert type(sub.gi_yieldfrom).__name__ == "generator" and sub.gi_running is False
    with pytest.raises(Exception, match="internal attribute: gi_yieldfrom"):
        ex("x.gi_yieldfrom")  # for host code: the code reads the booleans only


def test_stopiteration_becomes_runtime_error_with_cause(make_executor, interpreter_error):
    ex = make_executor()
    with pytest.raises(interpreter_error) as info:
        ex("def g():\n    yield 1\n    raise StopIteration('x')\nlist(g())")
    err = info.value.__cause__
    assert type(err) is RuntimeError and str(err) == "generator raised StopIteration"
    assert type(err.__cause__) is StopIteration and err.__cause__.args == ("x",)
    assert err.__context__ is err.__cause__


def test_exception_context_inside_generator(make_executor, interpreter_error):
    ex = make_executor()
    src = textwrap.dedent(
        """
        def g():
            try:
                raise KeyError("inner")
            except KeyError:
                yield "in handler"
                raise ValueError("during")
        it = g()
        next(it)
        try:
            raise IndexError("resumer")
        except IndexError:
            next(it)
        """
    )
    with pytest.raises(interpreter_error) as info:
        ex(src)
    err = info.value.__cause__
    assert type(err) is ValueError
    assert type(err.__context__) is KeyError


@pytest.mark.parametrize("host_frames", [0, 10, 200])
def test_yield_from_recursion_is_recursion_error(make_executor, interpreter_error, host_frames):
    """A `yield from` chain deeper than CPython's recursion limit ends in RecursionError, however
    many Python frames the host already has on the stack when the step starts (3.10 once gave
    SystemError there: CPython's failed recursion check was taken for a success)."""
    ex = make_executor()

    def run(depth):
        if depth:
            return run(depth - 1)
        with pytest.raises(interpreter_error) as info:
            ex("def g(n):\n    yield from g(n + 1)\nlist(g(0))")
        return info.value

    err = run(host_frames)
    assert type(err.__cause__) is RecursionError, repr(err.__cause__)
    assert ex("def h():\n    yield from range(3)\nlist(h())").output == [0, 1, 2]


def test_limit_inside_generator_is_uncatchable(interpreter_error):
    from smolagents_native import ExecutionTimeoutError, LocalPythonExecutor

    ex = LocalPythonExecutor([], timeout_seconds=2)
    ex.send_tools({})
    with pytest.raises((interpreter_error, ExecutionTimeoutError)):
        ex(
            textwrap.dedent(
                """
                def g():
                    try:
                        while True:
                            yield 1
                    except BaseException:
                        print("swallowed")
                        yield "swallowed"
                for x in g():
                    pass
                """
            )
        )
    assert "swallowed" not in str(ex.state.get("_print_outputs", ""))
    # the executor still works after the abort
    assert ex("print(list(x for x in range(3)))").logs.strip() == "[0, 1, 2]"


# A hook of a second executor, called from a generator body of the first, opens its budget
# window on the generator's C stack: it must get that stack's bound (not the thread's, nor
# cache a guess made there for the thread).  The recursion limit is raised so that only the
# C stack bound stops the recursion; run in a subprocess so that a crash is a clean failure.
HOOK_IN_GENERATOR = """
import sys, threading
from smolagents_native import LocalPythonExecutor

def fresh():
    ex = LocalPythonExecutor([])
    ex.send_tools({})
    return ex

sys.setrecursionlimit(10**6)
other = fresh()
box = {}
define = lambda: box.update(deep=other("def deep(n):\\n    return 0 if n == 0 else 1 + deep(n - 1)\\ndeep").output)
if sys.argv[1] == "thread":
    # the second executor's stack bound is cached for another thread
    t = threading.Thread(target=define)
    t.start()
    t.join()
else:
    define()
deep = box["deep"]
first = fresh()
first.send_tools({"deep": deep})
code = '''
def g():
    yield deep(100)
    try:
        deep(10**6)
    except RecursionError:
        yield "RecursionError"
    yield deep(100)
def h(k):
    if k == 0:
        yield from g()
    else:
        yield from h(k - 1)
print(list(g()), list(h(20)))
'''
# Hooks of another interpreter run on that interpreter's own large stack
# (bigstack.c), so the deep call ends either in RecursionError (stack or
# depth) or in the operation budget, never in a crash.
try:
    print(first(code).logs.strip())
except Exception as e:
    assert "max number of operations" in str(e), e
    print("budget")
print(deep(100))
try:
    deep(10**6)
except RecursionError:
    print("host RecursionError")
except Exception as e:
    assert "max number of operations" in str(e), e
    print("host budget")
"""


@pytest.mark.parametrize("where", ["thread", "main"])
def test_hook_of_other_executor_recursing_inside_generator(where):
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-c", HOOK_IN_GENERATOR, where],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    expected = [100, "RecursionError", 100]
    lines = proc.stdout.splitlines()
    assert lines[0] in (f"{expected} {expected}", "budget")
    assert lines[1] == "100"
    assert lines[2] in ("host RecursionError", "host budget")


def test_a_cycle_through_a_yielded_value_is_collected():
    """`yield x` keeps no reference to x on the suspended body's C stack, where the collector
    cannot see it: a cycle through the yielded value and the generator is garbage."""
    import gc
    import weakref

    from smolagents_native import LocalPythonExecutor

    ex = LocalPythonExecutor([])
    ex("def g():\n    box = [None]\n    try:\n        yield box\n    finally:\n        pass\n"
       "async def ag():\n    box = [None]\n    yield box\n"
       "it = g()\nme = next(it)\nme[0] = it\n"
       "ait = ag()\ntry:\n    ait.asend(None).send(None)\nexcept StopIteration as e:\n"
       "    ame = e.value\name[0] = ait\n")
    refs = [weakref.ref(ex.state["it"]), weakref.ref(ex.state["ait"])]
    for name in ("it", "me", "ait", "ame", "e"):
        ex.state.pop(name, None)
    gc.collect()
    assert [r() for r in refs] == [None, None]
