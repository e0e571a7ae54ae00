# User-defined exception hierarchies with extra state and custom __str__.
class AppError(Exception):
    pass


class ValidationError(AppError):
    def __init__(self, field, problem):
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class RateLimited(AppError):
    def __init__(self, retry_after):
        super().__init__(retry_after)
        self.retry_after = retry_after

    def __str__(self):
        return f"retry after {self.retry_after}s"


def validate(user):
    if "name" not in user:
        raise ValidationError("name", "required")
    if user.get("age", 0) < 0:
        raise ValidationError("age", "must be >= 0")
    return True


for user in [{"name": "a"}, {}, {"name": "b", "age": -1}]:
    try:
        print(validate(user))
    except ValidationError as e:
        print("invalid", e.field, "|", e.problem, "|", e, "|", e.args)

try:
    raise RateLimited(30)
except AppError as e:
    print(type(e).__name__, str(e), e.args, repr(e), e.retry_after)

print(issubclass(ValidationError, AppError), issubclass(AppError, Exception))
print(isinstance(RateLimited(1), (ValueError, AppError)))
err = AppError("a", "b")
print(str(err), repr(err), len(err.args))
print(str(AppError()), repr(AppError()), str(AppError("solo")))
