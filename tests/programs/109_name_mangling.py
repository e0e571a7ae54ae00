# Private names: __attr inside a class body is mangled to _Class__attr.
class Account:
    def __init__(self, owner, balance):
        self.owner = owner
        self.__balance = balance

    def balance(self):
        return self.__balance

    def __secret_helper(self):
        return "helper called"

    def use_helper(self):
        return self.__secret_helper()


class Savings(Account):
    def __init__(self, owner, balance):
        super().__init__(owner, balance)
        self.__balance = "subclass's own"

    def both(self):
        return self.__balance, self.balance()


acc = Account("ann", 100)
print(acc.balance(), acc.use_helper())
try:
    acc.__balance
except AttributeError as e:
    print("AttributeError:", e)
print(acc._Account__balance)
s = Savings("bo", 5)
print(s.both(), s._Savings__balance, s._Account__balance)
print(hasattr(acc, "_Account__secret_helper"), hasattr(acc, "__secret_helper"))


class Shadow:
    __count = 3
    doubled = __count * 2


print(Shadow.doubled, Shadow._Shadow__count)
