# Agent-style: a tokenizer and evaluator for arithmetic expressions.
def tokenize(src):
    tokens, i = [], 0
    while i < len(src):
        ch = src[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit() or ch == ".":
            j = i
            while j < len(src) and (src[j].isdigit() or src[j] == "."):
                j += 1
            tokens.append(("num", float(src[i:j]) if "." in src[i:j] else int(src[i:j])))
            i = j
        elif ch in "+-*/()":
            tokens.append(("op", ch))
            i += 1
        else:
            raise SyntaxError(f"unexpected character {ch!r} at {i}")
    return tokens


def to_rpn(tokens):
    prec = {"+": 1, "-": 1, "*": 2, "/": 2}
    out, stack = [], []
    for kind, val in tokens:
        match kind, val:
            case "num", _:
                out.append(val)
            case "op", "(":
                stack.append(val)
            case "op", ")":
                while stack[-1] != "(":
                    out.append(stack.pop())
                stack.pop()
            case "op", _:
                while stack and stack[-1] != "(" and prec[stack[-1]] >= prec[val]:
                    out.append(stack.pop())
                stack.append(val)
    return out + stack[::-1]


def evaluate(rpn):
    stack = []
    for item in rpn:
        if isinstance(item, str):
            b, a = stack.pop(), stack.pop()
            stack.append({"+": a + b, "-": a - b, "*": a * b, "/": a / b}[item])
        else:
            stack.append(item)
    return stack[0]


for expr in ["1 + 2 * 3", "(1 + 2) * 3", "10 / 4 - 0.5", "2 * (3 + 4) * (5 - 1)", "7 $ 2"]:
    try:
        rpn = to_rpn(tokenize(expr))
        print(expr, "=>", rpn, "=", evaluate(rpn))
    except SyntaxError as e:
        print(expr, "=> SyntaxError:", e)
