# Encoding/decoding, str/bytes conversions and related errors.
s = "naïve résumé ✓"
for enc in ["utf-8", "utf-16-be", "latin-1"]:
    try:
        data = s.encode(enc)
        print(enc, len(data), data[:6], data.decode(enc) == s)
    except UnicodeEncodeError as e:
        print(enc, "UnicodeEncodeError:", e)
print(s.encode("ascii", errors="replace"), s.encode("ascii", errors="xmlcharrefreplace"))
print(s.encode("ascii", errors="backslashreplace"), s.encode("ascii", errors="ignore"))
try:
    s.encode("ascii")
except UnicodeEncodeError as e:
    print("UnicodeEncodeError:", e.reason, e.start, e.end)
print(str(b"x"), str(b"caf\xc3\xa9", "utf-8"), str(b"\xe9", "latin-1"))
print("abc".encode() == b"abc", "abc" == b"abc", list("hé".encode()))
try:
    "abc" + b"def"
except TypeError as e:
    print("TypeError:", e)
print(b"hello".decode("ascii").title(), "x".isascii(), "é".isascii())
try:
    s.encode("no-such-codec")
except LookupError as e:
    print("LookupError:", e)
