# Agent-style: navigating and reshaping nested JSON-like data.
payload = {
    "order": {"id": 1001, "customer": {"name": "Ann", "address": {"city": "Oslo", "zip": "0150"}}},
    "lines": [
        {"sku": "A", "qty": 2, "unit": {"price": 9.99, "currency": "EUR"}},
        {"sku": "B", "qty": 1, "unit": {"price": 24.5, "currency": "EUR"}},
        {"sku": "C", "qty": 5, "unit": {"price": 1.2, "currency": "EUR"}, "discount": 0.1},
    ],
    "meta": None,
}


def get_path(obj, path, default=None):
    for part in path.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        else:
            return default
    return obj


def flatten(obj, prefix=""):
    flat = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            flat.update(flatten(v, f"{prefix}{k}."))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            flat.update(flatten(v, f"{prefix}{i}."))
    else:
        flat[prefix[:-1]] = obj
    return flat


print(get_path(payload, "order.customer.address.city"), get_path(payload, "lines.1.sku"))
print(get_path(payload, "lines.9.sku", "n/a"), get_path(payload, "meta.x", "none"))
totals = [round(l["qty"] * l["unit"]["price"] * (1 - l.get("discount", 0)), 2) for l in payload["lines"]]
print(totals, round(sum(totals), 2))
flat = flatten(payload)
print(len(flat), list(flat)[:4], flat["lines.2.discount"])
