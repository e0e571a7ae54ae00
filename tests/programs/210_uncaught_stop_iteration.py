# StopIteration escaping at module level is an ordinary uncaught exception.
tokens = iter(["GET", "/index.html"])
method = next(tokens)
path = next(tokens)
print(method, path)
version = next(tokens)
print("unreachable")
