# String building: an agent assembling a document piece by piece with +=, join, slicing,
# replace, upper and padding.
doc = ""
for i in range(3000):
    doc += "line " + str(i) + ": " + ("x" * (i % 13)) + "\n"
parts = []
for i in range(6000):
    s = str(i * 7919)
    parts.append(s[::-1].zfill(8))
joined = ",".join(parts)
csv = ""
for i in range(0, len(parts), 6):
    csv += ";".join(parts[i:i + 6]).upper() + "\n"
masked = joined.replace("7", "*")
words = []
for i in range(4000):
    w = "item" + str(i)
    words.append(w.capitalize() if i % 2 else w.ljust(10, "."))
print(len(doc), doc[-20:].strip(), len(joined), masked[:30])
print(len(csv), csv.count("\n"), words[3], words[4])
