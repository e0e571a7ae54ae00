# Container protocol: __len__, __getitem__, __setitem__, __delitem__,
# __contains__, __iter__, __reversed__, and slicing through __getitem__.
class Playlist:
    def __init__(self, *songs):
        self.songs = list(songs)

    def __len__(self):
        return len(self.songs)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Playlist(*self.songs[index])
        return self.songs[index]

    def __setitem__(self, index, value):
        self.songs[index] = value.title()

    def __delitem__(self, index):
        del self.songs[index]

    def __contains__(self, song):
        return song.lower() in (s.lower() for s in self.songs)

    def __iter__(self):
        return iter(self.songs)

    def __reversed__(self):
        return iter(self.songs[::-1])

    def __repr__(self):
        return f"Playlist{tuple(self.songs)}"


p = Playlist("Intro", "Blue", "Red", "Outro")
print(len(p), p[0], p[-1], p[1:3], p[::-1])
p[1] = "green day"
del p[0]
print(p, "RED" in p, "pink" in p, "pink" not in p)
print(list(reversed(p)), [s.upper() for s in p], sorted(p))
print(bool(Playlist()), bool(p))


class Squares:
    def __getitem__(self, i):
        if i >= 5:
            raise IndexError(i)
        return i * i


print(list(Squares()), 9 in Squares(), 10 in Squares())
for i, sq in enumerate(Squares()):
    pass
print(i, sq)
