# if / elif / else chains, nested conditions and truthiness of conditions.
def classify(n):
    if n < 0:
        return "negative"
    elif n == 0:
        return "zero"
    elif n % 2 == 0:
        if n > 100:
            return "big even"
        return "even"
    else:
        return "odd"


for value in [-5, 0, 4, 7, 200]:
    print(value, classify(value))

for thing in [[], [0], "", "x", 0.0, None, {}, {"k": 0}, range(0), range(1)]:
    if thing:
        print(repr(thing), "truthy")
    else:
        print(repr(thing), "falsy")

grade = 83
if grade >= 90:
    letter = "A"
elif grade >= 80:
    letter = "B"
elif grade >= 70:
    letter = "C"
else:
    letter = "F"
print(letter)

x = 5
if x > 3: print("one-line if")
if not x: print("never")
else: print("one-line else")
