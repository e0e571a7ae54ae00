# __init_subclass__ hooks and class keyword arguments.
class Plugin:
    kinds = {}

    def __init_subclass__(cls, kind=None, **kwargs):
        if kind is None:
            kind = cls.__name__.lower()
        Plugin.kinds[kind] = cls
        cls.kind = kind


class Image(Plugin, kind="img"):
    pass


class Audio(Plugin):
    pass


class Mp3(Audio, kind="mp3"):
    pass


print(sorted(Plugin.kinds), Image.kind, Audio.kind, Mp3.kind)
print(Plugin.kinds["mp3"] is Mp3, issubclass(Mp3, Plugin))


class Validated:
    required = ()

    def __init_subclass__(cls, **kwargs):
        missing = [name for name in cls.required if not hasattr(cls, name)]
        if missing:
            raise TypeError(f"{cls.__name__} is missing {missing}")


class Good(Validated):
    required = ("run",)

    def run(self):
        return "running"


print(Good().run())
try:
    class Broken(Validated):
        required = ("run", "stop")
except TypeError as e:
    print("TypeError:", e)
