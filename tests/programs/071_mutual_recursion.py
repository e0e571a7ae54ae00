# Mutual recursion between module-level functions and between nested functions.
def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


print([(n, is_even(n), is_odd(n)) for n in range(5)])


def hofstadter(n):
    def female(k):
        return 1 if k == 0 else k - male(female(k - 1))

    def male(k):
        return 0 if k == 0 else k - female(male(k - 1))

    return [female(i) for i in range(n)], [male(i) for i in range(n)]


print(hofstadter(12))


def parse_expr(tokens, pos):
    value, pos = parse_term(tokens, pos)
    while pos < len(tokens) and tokens[pos] in "+-":
        op = tokens[pos]
        rhs, pos = parse_term(tokens, pos + 1)
        value = value + rhs if op == "+" else value - rhs
    return value, pos


def parse_term(tokens, pos):
    value, pos = parse_atom(tokens, pos)
    while pos < len(tokens) and tokens[pos] in "*/":
        op = tokens[pos]
        rhs, pos = parse_atom(tokens, pos + 1)
        value = value * rhs if op == "*" else value // rhs
    return value, pos


def parse_atom(tokens, pos):
    if tokens[pos] == "(":
        value, pos = parse_expr(tokens, pos + 1)
        return value, pos + 1
    return int(tokens[pos]), pos + 1


for text in ["1+2*3", "(1+2)*3", "8/(3-1)-4*(2+1)"]:
    print(text, "=", parse_expr(list(text), 0)[0])
