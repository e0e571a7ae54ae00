# bytes and bytearray: literals, indexing, slicing, methods, encoding.
b = b"hello world"
print(b[0], b[-1], b[:5], b[::2], len(b), type(b[0]).__name__)
print(b.upper(), b.split(), b.replace(b"o", b"0"), b.find(b"wor"), b.count(b"l"))
print(b.hex(), bytes.fromhex("48 69"), b"\x00\xff".hex(":"), list(b"abc"))
print(bytes(3), bytes([65, 66, 67]), bytes("é", "utf-8"), "é".encode(), b"caf\xc3\xa9".decode())
print(b"abc" + b"def", b"ab" * 3, b"a" in b"abc", 97 in b"abc", b"abc" < b"abd")
ba = bytearray(b"spam")
ba[0] = ord("S")
ba.extend(b" eggs")
ba.append(33)
print(ba, bytes(ba), len(ba), ba.pop(), ba)
del ba[0:5]
print(ba, ba.decode().upper())
print(b"%s=%d" % (b"x", 5), b"a,b,c".split(b","), b"-".join([b"x", b"y"]))
print(repr(b"quote's"), repr(b'dq"'), b"\t\n\\", bytes(range(250, 256)))
try:
    b"abc"[0] = 1
except TypeError as e:
    print("TypeError:", e)
try:
    b"\xff".decode("utf-8")
except UnicodeDecodeError as e:
    print("UnicodeDecodeError:", e)
print(b"\xff".decode("utf-8", errors="replace"), b"\xff".decode("latin-1"), "€".encode("ascii", "ignore"))
try:
    bytes([256])
except ValueError as e:
    print("ValueError:", e)
