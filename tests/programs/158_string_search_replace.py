# Searching strings: find/index/rfind, in, count, replace, translate.
text = "the cat sat on the mat with another cat"
print(text.find("cat"), text.find("cat", 5), text.rfind("cat"), text.find("dog"))
print(text.index("sat"), text.rindex("the"), "mat" in text, "Mat" in text)
print(text.count("at"), text.count("the", 10), text.find(""), text.find("t", -5))
print(text.replace("cat", "dog"), text.replace("cat", "dog", 1))
table = str.maketrans("aeiou", "AEIOU", "th")
print(text.translate(table))
print("hello".translate({ord("l"): "L", ord("o"): None}))
words = text.split()
print(sorted(set(words)), max(words, key=len), [w for w in words if w.endswith("at")])
positions = []
start = 0
while (i := text.find("at", start)) != -1:
    positions.append(i)
    start = i + 1
print(positions)
print("banana".replace("an", "AN", 5), "mississippi".split("ss"), "abcabc".rfind("c", 0, 4))
try:
    text.index("zebra")
except ValueError as e:
    print("ValueError:", e)
