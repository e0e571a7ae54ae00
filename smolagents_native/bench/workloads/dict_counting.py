# Dict counting: an agent counting words and bigrams in tool output with dict.get,
# setdefault, collections.Counter and defaultdict, then picking the most common.
from collections import Counter, defaultdict

vocab = ["the", "agent", "calls", "a", "tool", "and", "reads", "result", "then", "writes",
         "code", "to", "parse", "it", "again", "until", "done"]
words = []
seed = 17
for i in range(30000):
    seed = (seed * 75 + 74) % 65537
    words.append(vocab[seed % len(vocab)])

counts = {}
for w in words:
    counts[w] = counts.get(w, 0) + 1
bigrams = {}
for a, b in zip(words, words[1:]):
    bigrams.setdefault(a, {})
    bigrams[a][b] = bigrams[a].get(b, 0) + 1
by_len = defaultdict(list)
for w in counts:
    by_len[len(w)].append(w)
c = Counter(words)
top = c.most_common(3)
follow = max(bigrams["the"].items(), key=lambda kv: kv[1])
print(top, counts["agent"], follow, sorted(by_len)[:4], len(by_len[4]))
