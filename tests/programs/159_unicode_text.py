# Unicode text: code points, normalization, categories, names, width of scripts.
import unicodedata

word = "café"
decomposed = unicodedata.normalize("NFD", word)
print(len(word), len(decomposed), word == decomposed, unicodedata.normalize("NFC", decomposed) == word)
print([unicodedata.name(c) for c in "é€ß"])
print([unicodedata.category(c) for c in "aA1 ,€\n"])
print(unicodedata.lookup("GREEK SMALL LETTER ALPHA"), unicodedata.decimal("٣"), unicodedata.numeric("½"))
stripped = "".join(c for c in unicodedata.normalize("NFKD", "Crème Brûlée") if not unicodedata.combining(c))
print(stripped)
print("ﬁ".upper(), unicodedata.normalize("NFKC", "ﬁ①"), "Σίσυφος".lower(), "ΣΊΣΥΦΟΣ".lower())
print("日本語"[1], len("日本語"), "日本語".encode("utf-8"), len("😀".encode("utf-16-le")))
print(ascii("Ωmega"), "\N{BULLET} item", "\u00e9" == "é", "\x41")
print(sorted(["é", "e", "f", "E"]), "Straße".casefold() == "strasse")
print(unicodedata.east_asian_width("日"), unicodedata.mirrored("("), unicodedata.bidirectional("a"))
