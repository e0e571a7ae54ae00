# Augmented assignment to attributes and slices.
events = []


class Account:
    def __init__(self):
        self._balance = 100

    @property
    def balance(self):
        events.append("get")
        return self._balance

    @balance.setter
    def balance(self, value):
        events.append(("set", value))
        self._balance = value


acc = Account()
acc.balance += 50
acc.balance -= 30
print(acc.balance, events)


class Plain:
    pass


p = Plain()
p.count = 1
p.count += 1
p.name = "x"
p.name *= 3
print(p.count, p.name)

nums = [1, 2, 3, 4, 5]
nums[1:3] += [20, 30]
print(nums)
nums[:2] *= 2
print(nums)

letters = list("abcdef")
letters[::2] = [c.upper() for c in letters[::2]]
print("".join(letters))

matrix = [[1, 2], [3, 4]]
matrix[0][1:] += [9]
print(matrix)
