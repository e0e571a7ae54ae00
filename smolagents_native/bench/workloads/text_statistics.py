# Text statistics: an agent summarising a document: sentence and word counts, word-length
# distribution, statistics.mean/median/stdev, vocabulary richness and longest words.
import re
import statistics

base = ("The quick brown fox jumps over the lazy dog. Agents write code, run it, and read "
        "the output! Does the interpreter keep up with CPython? It should, on ordinary "
        "programs; otherwise users notice. Measuring beats guessing, every single time.")
text = " ".join([base.replace("fox", "fox" + str(i % 40)) for i in range(600)])

sentences = [s for s in re.split(r"[.!?]+\s*", text) if s]
words = re.findall(r"[A-Za-z0-9']+", text.lower())
lengths = [len(w) for w in words]
dist = {}
for n in lengths:
    dist[n] = dist.get(n, 0) + 1
per_sentence = [len(s.split()) for s in sentences]
vocab = set(words)
longest = sorted(vocab, key=lambda w: (-len(w), w))[:3]
print(len(sentences), len(words), len(vocab), longest)
print(round(statistics.mean(lengths), 4), statistics.median(per_sentence),
      round(statistics.pstdev(per_sentence), 4), sorted(dist.items())[:4])
