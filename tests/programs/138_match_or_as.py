# Or-patterns and as-patterns, including nested ones.
def classify(cmd):
    match cmd:
        case ("quit" | "exit" | "q") as word:
            return f"leave ({word})"
        case ["move", ("up" | "down" | "left" | "right") as direction, *_]:
            return f"move {direction}"
        case ["say", *words] as whole if words:
            return f"say {' '.join(words)!r} from {len(whole)} tokens"
        case [("+" | "-") as op, int(a), int(b)]:
            return a + b if op == "+" else a - b
        case (0 | 1 | 2) as small:
            return f"small {small}"
        case [int() | float() as n, *_]:
            return f"starts with number {n}"
        case _:
            return "unknown"


inputs = ["quit", "q", ["move", "up"], ["move", "sideways"], ["say", "hello", "there"],
          ["say"], ["+", 2, 3], ["-", 10, 4], 1, 5, [3.5, "x"]]
for i in inputs:
    print(repr(i), "->", classify(i))

match {"id": 7, "tags": ["a", "b"]}:
    case {"id": int() as ident, "tags": [*_] as tags}:
        print("ident", ident, "tags", tags)
