# An uncaught TypeError from calling a method with a missing argument.
class Report:
    def __init__(self, title):
        self.title = title
        self.sections = []

    def add_section(self, heading, body):
        self.sections.append((heading, body))
        return len(self.sections)


r = Report("Q1")
print(r.add_section("Intro", "Hello"))
print(r.add_section(heading="Numbers", body="42"))
count = len(r.sections)
r.add_section("Conclusion")
print("unreachable")
