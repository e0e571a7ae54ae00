# An agent-style lookup that fails on a missing key at the top level.
users = {
    "u1": {"name": "Ann", "roles": ["admin"]},
    "u2": {"name": "Bo", "roles": []},
}
report = []
for uid in ["u1", "u2"]:
    user = users[uid]
    report.append(f"{user['name']}: {', '.join(user['roles']) or 'no roles'}")
print("\n".join(report))
user_count = len(users)
missing = users["u3"]["name"]
print("unreachable", missing)
