# Inside a class body, a comprehension's body cannot see class attributes:
# the failure below is not caught and ends the program.
class Settings:
    scale = 3
    base = [1, 2, 3]
    ok = [v * 2 for v in base]
    print("comprehension over a class attribute works:", ok)
    also_ok = [scale * 2 for _ in range(1)] if False else "skipped"
    print(also_ok)
    broken = [v * scale for v in base]
    print("never printed")
