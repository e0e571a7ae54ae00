# An uncaught AttributeError on None, a common agent bug (a lookup returned None).
config = {"db": {"host": "localhost", "port": 5432}}
db = config.get("db")
print("db host:", db.get("host"))
cache = config.get("cache")
print("cache config:", cache)
ttl = cache.get("ttl", 60)
print("unreachable", ttl)
