# A small command interpreter built on structural pattern matching.
inventory = {"apple": 3}
log = []


def run(line):
    match line.split():
        case ["add", item, qty] if qty.isdigit():
            inventory[item] = inventory.get(item, 0) + int(qty)
            return f"added {qty} {item}"
        case ["add", item]:
            inventory[item] = inventory.get(item, 0) + 1
            return f"added 1 {item}"
        case ["remove", item] if item in inventory:
            del inventory[item]
            return f"removed {item}"
        case ["remove", item]:
            return f"no {item} to remove"
        case ["list"]:
            return ", ".join(f"{k}={v}" for k, v in sorted(inventory.items()))
        case ["undo" | "redo" as action, *args]:
            return f"{action} not supported ({len(args)} args)"
        case []:
            return "empty command"
        case [verb, *_]:
            return f"unknown verb {verb!r}"


script = ["add pear 2", "add apple", "list", "remove kiwi", "remove apple", "", "undo 1 2", "fly away", "list"]
for line in script:
    log.append(run(line))
print("\n".join(log))
print(inventory)
