# String literal forms: escapes, raw strings, implicit concatenation, triple quotes.
print("tab:\t|", "newline:\\n", 'single \'quote\'', "double \"quote\"")
print(r"raw \n stays", r"C:\path\to", len(r"\n"), len("\n"))
print("unicode: \u00e9 \U0001F600 \N{GREEK CAPITAL LETTER OMEGA} \x41\101")
print("implicit " "concatenation " 'works')
multi = """line 1
    line 2 indented
line 3"""
print(multi)
print(multi.count("\n"), repr(multi[:8]))
print(repr("it's"), repr('say "hi"'), repr("both ' and \""), repr("\t\x00\x7f\u200b"))
print(str(b"bytes"), repr("\\"), "\\".join(["a", "b"]))
continued = "first part \
second part"
print(continued)
print("""triple with 'single' and "double" quotes""", '''other triple''')
empty = ""
print(len(empty), repr(empty), bool(empty), empty == '', "" in "abc")
