# Single inheritance: overriding, extending with super(), isinstance checks.
class Animal:
    sound = "..."

    def __init__(self, name):
        self.name = name

    def speak(self):
        return f"{self.name} says {self.sound}"

    def kind(self):
        return type(self).__name__


class Dog(Animal):
    sound = "woof"


class Puppy(Dog):
    def __init__(self, name, age):
        super().__init__(name)
        self.age = age

    def speak(self):
        return super().speak() + f" (age {self.age})"


class Cat(Animal):
    def speak(self):
        return f"{self.name} ignores you"


pets = [Animal("generic"), Dog("rex"), Puppy("bit", 1), Cat("tom")]
for pet in pets:
    print(pet.kind(), "|", pet.speak())

p = pets[2]
print(isinstance(p, Dog), isinstance(p, Animal), isinstance(p, Cat))
print(issubclass(Puppy, Animal), issubclass(Animal, Puppy), issubclass(Dog, Dog))
print([cls.__name__ for cls in (Animal, Dog, Puppy) if isinstance(p, cls)])
print(Puppy.sound, Cat.sound)
