# assert statements: passing, failing with and without messages, lazy messages.
evaluated = []


def message(text):
    evaluated.append(text)
    return text


assert True
assert 1 + 1 == 2, message("never evaluated")
print("messages evaluated so far:", evaluated)

try:
    assert 2 + 2 == 5
except AssertionError as e:
    print("no message:", repr(e), e.args)

try:
    assert [], message("empty list is falsy")
except AssertionError as e:
    print("with message:", e)

try:
    x = -3
    assert x >= 0, f"x must be non-negative, got {x}"
except AssertionError as e:
    print(e)

try:
    assert False, ("tuple", 1)
except AssertionError as e:
    print(e.args)

print(evaluated)
balances = {"alice": 10, "bob": -5}
for name, balance in balances.items():
    print("checking", name)
    assert balance >= 0, f"{name} is overdrawn by {-balance}"
print("not reached")
