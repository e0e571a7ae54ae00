# Splitting and joining strings in all the usual ways.
line = "alpha, beta,,gamma , delta"
print(line.split(","), line.split(", "), line.split(",", 2), line.rsplit(",", 1))
print("  lots   of   space  ".split(), " a b ".split(" "), "".split(), "".split(","))
print("a\nb\r\nc\n".splitlines(), "a\nb\n".splitlines(keepends=True), "x".splitlines())
print("key=value=more".partition("="), "key=value=more".rpartition("="), "novalue".partition("="))
print("-".join(["a", "b", "c"]), "".join(map(str, range(5))), ", ".join(sorted({"z", "a", "m"})))
csv = "name;age;city\nann;31;oslo\nbo;25;rome"
rows = [r.split(";") for r in csv.splitlines()]
header, *body = rows
print(header, [dict(zip(header, r)) for r in body])
print(" ".join(w.capitalize() for w in "the quick brown fox".split()))
path = "/usr/local/lib/python3.11/site.py"
print(path.split("/"), path.rsplit("/", 1)[-1], path.split("/")[-1].split(".")[0])
try:
    "a,b".split("")
except ValueError as e:
    print("ValueError:", e)
try:
    ",".join([1, 2])
except TypeError as e:
    print("TypeError:", e)
