# A context manager implementing transaction rollback on error.
class Ledger:
    def __init__(self):
        self.entries = []

    def transaction(self):
        return Transaction(self)


class Transaction:
    def __init__(self, ledger):
        self.ledger = ledger

    def __enter__(self):
        self.snapshot = list(self.ledger.entries)
        return self.ledger

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.ledger.entries = self.snapshot
            print(f"rolled back because of {exc_type.__name__}: {exc}")
            return exc_type is ValueError
        print("committed", len(self.ledger.entries), "entries")
        return False


ledger = Ledger()
with ledger.transaction() as l:
    l.entries.append(("deposit", 100))
    l.entries.append(("withdraw", 30))
with ledger.transaction() as l:
    l.entries.append(("withdraw", 500))
    raise ValueError("insufficient funds")
print(ledger.entries)
try:
    with ledger.transaction() as l:
        l.entries.append(("bogus", None))
        l.entries[5]
except IndexError as e:
    print("escaped:", e)
print(ledger.entries)
