# Service configuration audit: load a JSON document, flatten it with a recursive helper,
# validate values against rules, apply overrides, and emit the fixed config as JSON.
# %% step
import json

CONFIG = """{
  "service": {"name": "billing", "replicas": 3, "port": 8080},
  "database": {"host": "db.internal", "port": "5432", "pool": {"min": 2, "max": 1}},
  "features": {"invoices": true, "refunds": false, "beta": {"enabled": true, "users": ["ann", "bo"]}},
  "timeouts": {"connect": 2.5, "read": -1, "write": 30}
}"""
config = json.loads(CONFIG)
print(sorted(config))
# %% step
def flatten(obj, prefix=""):
    out = {}
    if isinstance(obj, dict):
        for key, value in obj.items():
            out.update(flatten(value, f"{prefix}{key}."))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            out.update(flatten(value, f"{prefix}{i}."))
    else:
        out[prefix[:-1]] = obj
    return out

flat = flatten(config)
print(len(flat), "leaves")
for key in sorted(flat)[:6]:
    print(" ", key, "=", flat[key])
# %% step
problems = []
for key, value in flat.items():
    if key.endswith("port") and not isinstance(value, int):
        problems.append((key, "port must be an int", value))
    if key.startswith("timeouts.") and (not isinstance(value, (int, float)) or value <= 0):
        problems.append((key, "timeout must be positive", value))
if flat["database.pool.min"] > flat["database.pool.max"]:
    problems.append(("database.pool", "min above max", (flat["database.pool.min"], flat["database.pool.max"])))
for p in problems:
    print("problem:", p)
# %% step
def set_path(obj, dotted, value):
    parts = dotted.split(".")
    for part in parts[:-1]:
        obj = obj[part]
    obj[parts[-1]] = value

fixes = {"database.port": int(flat["database.port"]), "timeouts.read": 10,
         "database.pool.max": 8}
for path, value in fixes.items():
    set_path(config, path, value)
remaining = [p for p in problems if p[0] not in fixes and p[0] != "database.pool"]
print("remaining problems:", remaining)
# %% step
fixed = json.dumps(config, sort_keys=True, indent=1)
print(fixed[:120])
reloaded = flatten(json.loads(fixed))
changed = sorted(k for k in reloaded if reloaded[k] != flat.get(k))
print("bytes:", len(fixed), "leaves:", len(reloaded))
print("changed keys:", changed)
