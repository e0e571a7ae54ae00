# Agent-style: advanced regex features: groups, lookarounds, flags, substitution.
import re

text = "Order #123 shipped 2024-05-01; order #456 pending; ORDER #789 shipped 2024-06-11."
print(re.findall(r"#(\d+)", text), re.findall(r"(?i)order #(\d+) (\w+)", text))
for m in re.finditer(r"#(?P<id>\d+) shipped (?P<date>[\d-]+)", text):
    print(m.group("id"), m["date"], m.span(), m.groupdict())
print(re.sub(r"(\d{4})-(\d{2})-(\d{2})", r"\3/\2/\1", text))
print(re.sub(r"#(\d+)", lambda m: f"#{int(m.group(1)) * 2}", text, count=2))
print(re.subn(r"shipped", "sent", text)[1], re.split(r"\s*;\s*", text))
print(re.findall(r"\b\w+(?=ed\b)", "jumped walked run"), re.findall(r"(?<=\$)\d+", "cost $45 or $7"))
pat = re.compile(r"""
    (?P<key>[a-z_]+)   # key
    \s*=\s*
    (?P<val>"[^"]*"|\d+)  # quoted string or number
""", re.VERBOSE)
print([m.groupdict() for m in pat.finditer('name = "widget" count=3 bad= ok_key="x y"')])
print(re.escape("1+1=2?"), bool(re.search(r"^\d+$", "123\n", re.M)), re.match(r"a|ab", "ab").group())
print(pat.pattern.count("\n"), pat.flags & re.VERBOSE != 0, re.compile("x").groups)
try:
    re.compile("(unclosed")
except re.error as e:
    print("re.error:", e)
