#!/usr/bin/env python3
"""Writes a seeded synthetic corpus for evident's scale benchmark.

    python3 scripts/synthetic_corpus.py --passages 100000 --out /tmp/synthetic-100k [--seed 7]

The same arguments write the same bytes. What it writes into --out:
- corpus.toml: chunking at the defaults (120 / 200 words), the vector lane with
  `synthetic_seed` (stored random unit vectors of the model's dimension instead of
  embeddings: the benchmark measures the store and the search, not the model);
- corpus.jsonl: documents of 1 to 12 passages' worth of text (geometric, mean 3),
  sentences of 6 to 32 words, words drawn from a Zipfian vocabulary (s = 1.07,
  60,000 pronounceable made-up words), so term statistics look like prose;
- entities.jsonl: 24 two-word concepts built from mid-frequency words, woven into
  about one sentence in 40, so the entity lane and the linker have work;
- queries.jsonl: 300 queries (BEIR layout) of 1 to 6 content words, a few of them
  concept names and a few quoted phrases, for `cargo bench --bench mcp_latency`
  and scripts/scale_curve.py.

Standard library only. The passage count is a target: the chunker decides the
final number (the manifest reports it), typically within 1 % of it.
"""

import argparse
import bisect
import itertools
import json
import os
import random

SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["ar", "el", "in", "or", "us", "en", "is"]
VOCABULARY = 60_000
ZIPF_S = 1.07
TARGET_WORDS = 120
PASSAGE_WORDS = 125
ENTITIES = 24
QUERIES = 300


def vocabulary(rng):
    """Distinct pronounceable words, shortest first (frequent words are short, as in prose)."""
    words, seen = [], set()
    while len(words) < VOCABULARY:
        n = 1 + min(4, int(rng.expovariate(1.0) * 1.3) + (len(words) > 200) + (len(words) > 5000))
        word = "".join(rng.choice(SYLLABLES) for _ in range(n))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def cumulative_zipf(n, s):
    total, out = 0.0, []
    for rank in range(1, n + 1):
        total += 1.0 / rank**s
        out.append(total)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, required=True, help="target number of passages")
    parser.add_argument("--out", required=True, help="directory to write (created; must be empty or absent)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--model", default="all-MiniLM-L6-v2", help="model whose dimension the vectors take")
    args = parser.parse_args()
    if args.passages < 1:
        parser.error("--passages must be at least 1")
    os.makedirs(args.out, exist_ok=True)
    if os.listdir(args.out):
        parser.error(f"{args.out} is not empty")

    rng = random.Random(args.seed)
    words = vocabulary(rng)
    cumulative = cumulative_zipf(len(words), ZIPF_S)
    top = cumulative[-1]

    def draw(k):
        return [words[bisect.bisect_left(cumulative, rng.random() * top)] for _ in range(k)]

    # Concepts: pairs of mid-frequency words (ranks 500..5000), distinct.
    concepts = []
    pool = words[500:5000]
    while len(concepts) < ENTITIES:
        name = f"{rng.choice(pool)} {rng.choice(pool)}"
        if name not in concepts:
            concepts.append(name)

    def sentence():
        body = draw(rng.randint(6, 32))
        if rng.random() < 1 / 40:
            at = rng.randrange(len(body))
            body[at:at] = rng.choice(concepts).split()
        body[0] = body[0].capitalize()
        return " ".join(body) + "."

    with open(os.path.join(args.out, "corpus.toml"), "w") as f:
        f.write(
            f'name = "synthetic-{args.passages}"\n'
            'default_language = "en"\n'
            f'description = "Synthetic corpus for the scale benchmark (scripts/synthetic_corpus.py, seed {args.seed})"\n\n'
            f"[chunking]\ntarget_words = {TARGET_WORDS}\nmax_words = 200\n\n"
            f'[vector]\nmodel = "{args.model}"\nsynthetic_seed = {args.seed}\n'
        )
    with open(os.path.join(args.out, "entities.jsonl"), "w") as f:
        for i, name in enumerate(concepts):
            record = {"id": f"concept.c{i:02d}", "name": name, "kind": "concept", "aliases": {"en": [name]}}
            f.write(json.dumps(record, sort_keys=True) + "\n")

    estimated = 0
    with open(os.path.join(args.out, "corpus.jsonl"), "w") as f:
        for n in itertools.count():
            if estimated >= args.passages:
                break
            share = min(12, 1 + int(rng.expovariate(1 / 2.0)), args.passages - estimated)
            text, length = [], 0
            while length < share * TARGET_WORDS:
                s = sentence()
                text.append(s)
                length += s.count(" ") + 1
            # The chunker closes a passage at the first sentence end past 120
            # words: 125 words a passage on average (measured on this generator).
            estimated += max(1, round(length / PASSAGE_WORDS))
            record = {"_id": f"d{n:07d}", "title": " ".join(draw(rng.randint(3, 8))).capitalize(), "text": " ".join(text)}
            f.write(json.dumps(record) + "\n")

    with open(os.path.join(args.out, "queries.jsonl"), "w") as f:
        content = words[100:]  # the hundred most frequent words behave like stop words
        for q in range(QUERIES):
            kind = rng.random()
            if kind < 0.1:
                text = rng.choice(concepts)
            elif kind < 0.2:
                text = '"' + " ".join(draw(2)) + '"'
            else:
                text = " ".join(
                    content[min(len(content) - 1, bisect.bisect_left(cumulative, rng.random() * top))]
                    for _ in range(rng.randint(1, 6))
                )
            f.write(json.dumps({"_id": f"q{q:03d}", "text": text}) + "\n")


if __name__ == "__main__":
    main()
