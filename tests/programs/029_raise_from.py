# raise ... from ...: the new exception is what propagates and is caught.
class ConfigError(Exception):
    pass


def load(config, key):
    try:
        return config[key]
    except KeyError as e:
        raise ConfigError(f"missing setting {key!r}") from e


try:
    load({"a": 1}, "b")
except ConfigError as e:
    print(type(e).__name__, e)

try:
    try:
        int("zz")
    except ValueError as e:
        raise RuntimeError("could not parse") from None
except RuntimeError as e:
    print("RuntimeError:", e)

try:
    raise ValueError("explicit") from TypeError("cause")
except ValueError as e:
    print("caught", e)

try:
    raise ValueError from KeyError
except ValueError as e:
    print("class forms", repr(e))

errors = []
for raw in ["1", "x", "3"]:
    try:
        try:
            errors.append(int(raw))
        except ValueError as exc:
            raise LookupError(raw) from exc
    except LookupError as e:
        errors.append(f"bad:{e}")
print(errors)

try:
    raise ValueError("x") from 5
except TypeError as e:
    print("TypeError:", e)
