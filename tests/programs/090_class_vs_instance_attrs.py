# Class attributes are shared; instance attributes shadow them.
class Config:
    debug = False
    level = 1
    tags = []

    def enable(self):
        self.debug = True


a = Config()
b = Config()
a.enable()
print(a.debug, b.debug, Config.debug)
Config.level = 5
print(a.level, b.level)
b.level = 9
print(a.level, b.level, Config.level)
del b.level
print(b.level)

a.tags.append("shared!")
print(b.tags, Config.tags)
b.tags = ["own"]
print(a.tags, b.tags)


class Tracker:
    instances = 0

    def __init__(self):
        Tracker.instances += 1
        self.id = Tracker.instances


t = [Tracker() for _ in range(3)]
print([x.id for x in t], Tracker.instances)


class Sub(Config):
    level = 42


s = Sub()
print(s.level, s.debug, Config.level)
Config.debug = "changed on base"
print(s.debug)
