# Agent-style: text analysis with Counter, regex tokenization and formatting.
import re
from collections import Counter

text = """It was the best of times, it was the worst of times, it was the age of
wisdom, it was the age of foolishness, it was the epoch of belief, it was the
epoch of incredulity, it was the season of Light, it was the season of Darkness."""
tokens = re.findall(r"[a-z']+", text.lower())
freq = Counter(tokens)
stop = {"it", "was", "the", "of"}
content = Counter({w: c for w, c in freq.items() if w not in stop})
print(len(tokens), len(freq), freq.most_common(4))
for word, count in content.most_common(5):
    print(f"{word:<12} {'*' * count} {count}")
lengths = Counter(len(t) for t in tokens)
print(sorted(lengths.items()))
sentences = [s.strip() for s in re.split(r"[,.]", text) if s.strip()]
print(len(sentences), sentences[0], "|", sentences[-1])
bigrams = Counter(zip(tokens, tokens[1:]))
print(bigrams.most_common(2))
longest = max(tokens, key=lambda t: (len(t), t))
print(longest, sum(freq.values()) == len(tokens))
capitalized = sorted(set(re.findall(r"\b[A-Z][a-z]+", text)))
print(capitalized)
