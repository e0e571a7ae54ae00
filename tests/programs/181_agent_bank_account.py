# Agent-style: bank accounts with transfers; ends with an uncaught custom error.
class InsufficientFunds(Exception):
    def __init__(self, account, amount):
        super().__init__(f"{account.owner} cannot withdraw {amount:.2f} (balance {account.balance:.2f})")


class Account:
    def __init__(self, owner, balance=0.0):
        self.owner = owner
        self.balance = balance
        self.transactions = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount
        self.transactions.append(+amount)

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(self, amount)
        self.balance -= amount
        self.transactions.append(-amount)


def transfer(src, dst, amount):
    src.withdraw(amount)
    dst.deposit(amount)
    print(f"transferred {amount:.2f} from {src.owner} to {dst.owner}")


alice = Account("alice", 100)
bob = Account("bob")
transfer(alice, bob, 40)
transfer(bob, alice, 15.5)
try:
    bob.deposit(-5)
except ValueError as e:
    print("rejected:", e)
print(alice.balance, bob.balance, alice.transactions, bob.transactions)
balances = {a.owner: a.balance for a in (alice, bob)}
transfer(bob, alice, 100)
