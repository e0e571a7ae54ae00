# return, break and continue inside with-blocks still run __exit__.
class Note:
    def __init__(self, label):
        self.label = label

    def __enter__(self):
        print("open", self.label)

    def __exit__(self, *exc):
        print("close", self.label)


def early():
    with Note("func"):
        return "returned"
    print("not reached")


print(early())

for i in range(4):
    with Note(f"loop{i}"):
        if i == 1:
            continue
        if i == 2:
            break
        print("body", i)

n = 0
while True:
    with Note("while"):
        n += 1
        if n == 2:
            break
print("n =", n)


def generator():
    with Note("gen"):
        yield 1
        yield 2


for item in generator():
    print("item", item)
