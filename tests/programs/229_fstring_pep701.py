# requires: 3.12
# PEP 701 f-strings: quotes reused inside replacement fields, nesting,
# comments and backslashes inside expressions, multi-line fields
words = ["alpha", "beta", "gamma"]
sep = ", "
print(f"{sep.join(words)}")
print(f"{", ".join(words)}")
print(f"{"\n".join(words)}")
print(f"{'\t'.join(w.upper() for w in words)!r}")
print(f"{f"{f"{f"{len(words)}"}"}"}")
width, prec = 12, 3
value = 3.14159265
print(f"[{value:{width}.{prec}f}]")
print(f"[{value:>{width + 2}.{prec - 1}e}]")
total = f"{
    sum(
        len(w)  # a comment inside the field
        for w in words
    )
}"
print(total)
d = {"key": "value"}
print(f"{d["key"]}")
print(f"{'{'}{d['key']}{'}'}")
print(f"{value=:.2f} {words[0]=}")
nested = f"outer {f"inner {f"core {words[-1]!s:>8}"}"}"
print(nested)
print(f"{"\\" * 3}", f"{r"\d+"}", f"{"\N{BULLET}"}")
result = [f"{i}:{"even" if i % 2 == 0 else "odd"}" for i in range(4)]
print(result)
