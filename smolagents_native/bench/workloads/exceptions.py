# Exception-heavy code: an agent parsing messy values with try/except around int(),
# float() and division, custom exception classes, raise-from, re-raising and finally.
class ValidationError(Exception):
    field = "value"


class AmountError(ValidationError):
    field = "amount"


def parse_amount(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise AmountError(f"bad amount: {text}")


def safe_ratio(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return None
    finally:
        pass


raw = []
for i in range(6000):
    if i % 5 == 0:
        raw.append(f"{i}.5")
    elif i % 7 == 0:
        raw.append(f"n/a{i}")
    else:
        raw.append(str(i))

total = 0.0
errors = {}
nones = 0
for i, text in enumerate(raw):
    try:
        amount = parse_amount(text)
        r = safe_ratio(amount, i % 4)
        if r is None:
            nones += 1
        else:
            total += r
    except ValidationError as e:
        errors[e.field] = errors.get(e.field, 0) + 1
        last = str(e)

def fetch(i):
    if i % 5 >= 3:
        raise LookupError(f"no item {i}")
    return i


caught = 0
for i in range(3000):
    try:
        try:
            fetch(i)
        except LookupError as e:
            raise RuntimeError("wrapped") from e
    except RuntimeError as e:
        caught += str(e) == "wrapped"
print(round(total, 3), errors, nones, last, caught)
