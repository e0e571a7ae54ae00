# Class decorators: registering classes, adding methods, returning the class.
plugins = {}


def plugin(name):
    def register(cls):
        plugins[name] = cls
        cls.plugin_name = name
        return cls
    return register


def add_describe(cls):
    def describe(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in sorted(self.fields().items()))
        return f"{cls.__name__}({fields})"
    cls.describe = describe
    return cls


@plugin("csv")
@add_describe
class CsvReader:
    def __init__(self, sep=","):
        self.sep = sep

    def fields(self):
        return {"sep": self.sep}


@plugin("json")
class JsonReader:
    pass


print(sorted(plugins), CsvReader.plugin_name, JsonReader.plugin_name)
print(CsvReader(";").describe(), plugins["csv"]().describe())


def singleton(cls):
    instances = {}

    def get(*args):
        if cls not in instances:
            instances[cls] = cls(*args)
        return instances[cls]
    return get


@singleton
class Settings:
    def __init__(self, value):
        self.value = value


print(Settings(1).value, Settings(2).value, Settings(3) is Settings(4))
