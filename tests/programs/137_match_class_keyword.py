# Class patterns with keyword sub-patterns, and built-in class patterns.
class User:
    def __init__(self, name, role, active=True):
        self.name, self.role, self.active = name, role, active


def access(u):
    match u:
        case User(role="admin", active=True, name=n):
            return f"{n}: full access"
        case User(role="admin", active=False):
            return "disabled admin"
        case User(name=str(n), role=r) if r in ("dev", "ops"):
            return f"{n}: {r} access"
        case User():
            return "read only"


users = [User("ann", "admin"), User("bo", "admin", False), User("cy", "dev"), User("di", "guest")]
print([access(u) for u in users])


def kind(v):
    match v:
        case bool(b):
            return f"bool {b}"
        case int(0):
            return "int zero"
        case int(n) | float(n):
            return f"number {n}"
        case str() as s if not s:
            return "empty string"
        case str(s):
            return f"string {s}"
        case list([x, *_]):
            return f"list starting {x}"
        case dict(d):
            return f"dict of {len(d)}"
        case tuple((a, b)):
            return f"pair {a},{b}"
        case _:
            return "other"


print([kind(v) for v in [True, 0, 5, 2.5, "", "hi", [9, 8], {"a": 1}, (1, 2), None]])
