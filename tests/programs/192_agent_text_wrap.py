# Agent-style: wrapping and justifying text by hand.
text = ("Python is a programming language that lets you work quickly and integrate "
        "systems more effectively. It is used for web development, data analysis, "
        "artificial intelligence, scientific computing and much more.")


def wrap(words, width):
    lines, current = [], []
    for w in words:
        if current and len(" ".join(current + [w])) > width:
            lines.append(current)
            current = []
        current.append(w)
    if current:
        lines.append(current)
    return lines


def justify(line_words, width):
    if len(line_words) == 1:
        return line_words[0].ljust(width)
    gaps = len(line_words) - 1
    spaces = width - sum(len(w) for w in line_words)
    base, extra = divmod(spaces, gaps)
    out = ""
    for i, w in enumerate(line_words[:-1]):
        out += w + " " * (base + (1 if i < extra else 0))
    return out + line_words[-1]


lines = wrap(text.split(), 36)
for words in lines[:-1]:
    print("|" + justify(words, 36) + "|")
print("|" + " ".join(lines[-1]).ljust(36) + "|")
print(len(lines), max(len(" ".join(l)) for l in lines))
centered = [" ".join(l).center(40, ".") for l in wrap("a short centered title".split(), 12)]
print("\n".join(centered))
