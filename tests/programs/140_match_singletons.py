# None/True/False patterns compare by identity; 1 and True differ here.
def which(v):
    match v:
        case None:
            return "None"
        case True:
            return "True"
        case False:
            return "False"
        case 1:
            return "one (equality)"
        case 0:
            return "zero (equality)"
        case _:
            return "other"


for v in [None, True, False, 1, 0, 1.0, 0.0, "", []]:
    print(repr(v), "->", which(v))

match True:
    case 1:
        print("value pattern 1 matches True because True == 1")

match 1:
    case True:
        print("never")
    case _:
        print("singleton pattern True does not match 1")

config = {"debug": None, "verbose": False}
for key, val in config.items():
    match val:
        case None:
            print(key, "unset")
        case bool(b):
            print(key, "set to", b)
