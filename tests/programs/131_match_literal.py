# match with literal patterns: numbers, strings, negative numbers, bytes.
def http_status(code):
    match code:
        case 200:
            return "OK"
        case 301 | 302:
            return "redirect"
        case 404:
            return "not found"
        case -1:
            return "negative sentinel"
        case 1.5:
            return "float literal"
        case "teapot":
            return "string literal"
        case b"raw":
            return "bytes literal"
        case 3 + 4j:
            return "complex literal"
        case _:
            return "other"


for code in [200, 302, 404, -1, 1.5, "teapot", b"raw", 3 + 4j, 500, 200.0]:
    print(repr(code), "->", http_status(code))

command = "go north"
match command.split():
    case ["go", "north"]:
        print("heading north")
    case _:
        print("unknown")
