# Long steps (about 30 lines each): a text-analysis task where each step is a full block of
# new code: tokenising a corpus, building an index, scoring documents, summarising.
# %% step
import re
import math
from collections import Counter

DOCS = {
    "d1": "The quick brown fox jumps over the lazy dog. The dog sleeps.",
    "d2": "A fast brown fox leaps over sleeping dogs in the park.",
    "d3": "Python code agents write small programs to answer questions.",
    "d4": "Agents run code step by step; each step defines new functions.",
    "d5": "The park has many dogs, and the dogs chase a brown ball.",
    "d6": "Small programs, many steps: the agent prints results and reasons.",
}
STOP = {"the", "a", "and", "in", "to", "over", "by", "has", "each", "many"}

def tokenize(text):
    words = re.findall(r"[a-z]+", text.lower())
    return [w for w in words if w not in STOP]

def stem(word):
    for suffix in ("ing", "es", "s", "ed"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word

tokens = {doc_id: [stem(w) for w in tokenize(text)] for doc_id, text in DOCS.items()}
for doc_id, toks in tokens.items():
    print(doc_id, len(toks), toks[:5])
vocab = sorted({t for toks in tokens.values() for t in toks})
print("vocabulary size:", len(vocab))
# %% step
doc_freq = Counter()
for toks in tokens.values():
    for term in set(toks):
        doc_freq[term] += 1

n_docs = len(tokens)
idf = {term: math.log((1 + n_docs) / (1 + df)) + 1 for term, df in doc_freq.items()}

def tf_idf(toks):
    counts = Counter(toks)
    length = len(toks)
    return {term: (c / length) * idf[term] for term, c in counts.items()}

vectors = {doc_id: tf_idf(toks) for doc_id, toks in tokens.items()}

def norm(vec):
    return math.sqrt(sum(v * v for v in vec.values()))

norms = {doc_id: norm(vec) for doc_id, vec in vectors.items()}
common = [term for term, df in doc_freq.most_common() if df > 1]
print("terms in more than one document:", sorted(common))
for doc_id in sorted(vectors):
    top = sorted(vectors[doc_id].items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    print(doc_id, [(t, round(w, 3)) for t, w in top], round(norms[doc_id], 3))
rare = [term for term, df in doc_freq.items() if df == 1]
print("rare terms:", len(rare))
print("max idf:", round(max(idf.values()), 4), "min idf:", round(min(idf.values()), 4))
# %% step
def cosine(a, b):
    shared = set(a) & set(b)
    dot = sum(a[t] * b[t] for t in shared)
    na, nb = norm(a), norm(b)
    if na == 0 or nb == 0:
        return 0.0
    return dot / (na * nb)

pairs = []
ids = sorted(vectors)
for i, left in enumerate(ids):
    for right in ids[i + 1:]:
        pairs.append((round(cosine(vectors[left], vectors[right]), 4), left, right))
pairs.sort(reverse=True)
print("most similar pairs:")
for score, left, right in pairs[:4]:
    print(f"  {left}-{right}: {score}")
print("least similar:", pairs[-1])

clusters = {doc_id: {doc_id} for doc_id in ids}
for score, left, right in pairs:
    if score < 0.1:
        break
    merged = clusters[left] | clusters[right]
    for member in merged:
        clusters[member] = merged
groups = sorted({tuple(sorted(c)) for c in clusters.values()})
print("clusters:", groups)
print("cluster count:", len(groups))
# %% step
def search(query, k=3):
    q_tokens = [stem(w) for w in tokenize(query)]
    q_counts = Counter(t for t in q_tokens if t in idf)
    if not q_counts:
        return []
    total = sum(q_counts.values())
    q_vec = {t: (c / total) * idf[t] for t, c in q_counts.items()}
    scored = []
    for doc_id, vec in vectors.items():
        score = cosine(q_vec, vec)
        if score > 0:
            scored.append((round(score, 4), doc_id))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return scored[:k]

queries = ["brown dogs in the park", "agents writing programs", "lazy fox",
           "step functions", "ball chase", "nothing matches here"]
results = {}
for q in queries:
    hits = search(q)
    results[q] = hits
    best = hits[0][1] if hits else None
    print(f"'{q}': {hits} -> {best}")
hit_rate = sum(1 for hits in results.values() if hits) / len(queries)
print(f"queries with a hit: {hit_rate:.0%}")
top_docs = Counter(hits[0][1] for hits in results.values() if hits)
print("documents ranked first:", sorted(top_docs.items()))
# %% step
summary = []
for doc_id in ids:
    vec = vectors[doc_id]
    key_terms = [t for t, _ in sorted(vec.items(), key=lambda kv: (-kv[1], kv[0]))[:2]]
    neighbours = [p for p in pairs if doc_id in p[1:]]
    nearest = max(neighbours)
    other = nearest[2] if nearest[1] == doc_id else nearest[1]
    sentence_count = len([s for s in re.split(r"[.;:]", DOCS[doc_id]) if s.strip()])
    summary.append({
        "doc": doc_id,
        "terms": key_terms,
        "nearest": other,
        "similarity": nearest[0],
        "sentences": sentence_count,
        "length": len(tokens[doc_id]),
    })
for row in summary:
    print(row)
longest = max(summary, key=lambda r: (r["length"], r["doc"]))
most_connected = max(summary, key=lambda r: (r["similarity"], r["doc"]))
mean_length = sum(r["length"] for r in summary) / len(summary)
print(f"longest: {longest['doc']}; most connected: {most_connected['doc']}")
print(f"mean length {mean_length:.2f} tokens over {len(summary)} documents")
answer = {"clusters": len(groups), "longest": longest["doc"], "hit_rate": hit_rate}
print("answer:", answer)
