# Recursion: naive and memoized Fibonacci, factorial, power set, Hanoi.
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print([fib(i) for i in range(15)])

memo = {}


def fib_memo(n):
    if n < 2:
        return n
    if n not in memo:
        memo[n] = fib_memo(n - 1) + fib_memo(n - 2)
    return memo[n]


print(fib_memo(90))


def factorial(n):
    return 1 if n <= 1 else n * factorial(n - 1)


print(factorial(25))


def hanoi(n, src, dst, via, moves):
    if n == 0:
        return moves
    hanoi(n - 1, src, via, dst, moves)
    moves.append((src, dst))
    hanoi(n - 1, via, dst, src, moves)
    return moves


moves = hanoi(4, "A", "C", "B", [])
print(len(moves), moves[:5])


def power_set(items):
    if not items:
        return [[]]
    rest = power_set(items[1:])
    return rest + [[items[0]] + r for r in rest]


print(power_set([1, 2, 3]))
