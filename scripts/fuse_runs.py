#!/usr/bin/env python3
"""Fuses TREC run files by weighted Reciprocal Rank Fusion, as evident's core does
(sum of w / (k + rank), 1-based ranks, k = 60), and writes the fused run. It is for
fusions that one `evident eval` cannot make, such as lanes of two indexes built with
different models. Score the output with crosscheck_metrics.py.

Usage: fuse_runs.py [--k K] [--depth N] OUT.run RUN[:WEIGHT]...
  RUN     a run written by `evident eval --trec-dir DIR` (DIR/<mode>.run); weight 1 if omitted
  --depth documents kept per query in OUT (default 100, as `evident eval` writes)
Example (lexical + two dense lanes, the second at half weight):
  fuse_runs.py /tmp/ens.run bge/lexical.run bge/vector.run minilm/vector.run:0.5
"""
import argparse
from collections import defaultdict


def read_run(path):
    """query id -> document ids in rank order."""
    ranked = defaultdict(list)
    with open(path) as f:
        for line in f:
            q, _, d, rank, _score, _tag = line.split()
            ranked[q].append((int(rank), d))
    return {q: [d for _, d in sorted(docs)] for q, docs in ranked.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--k", type=float, default=60.0)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("out")
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args()
    lanes = []
    for spec in args.runs:
        path, _, weight = spec.partition(":")
        lanes.append((read_run(path), float(weight) if weight else 1.0))
    queries = sorted({q for run, _ in lanes for q in run})
    with open(args.out, "w") as out:
        for q in queries:
            scores = defaultdict(float)
            for run, weight in lanes:
                for rank, d in enumerate(run.get(q, []), start=1):
                    scores[d] += weight / (args.k + rank)
            # Ties go to the lower document id, so the output is deterministic. The score
            # column is written from the rank, as `evident eval` writes it: trec_eval orders
            # by score and would otherwise break RRF's ties its own way.
            fused = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[: args.depth]
            for rank, (d, _score) in enumerate(fused, start=1):
                out.write(f"{q} Q0 {d} {rank} {args.depth + 1 - rank} rrf\n")


if __name__ == "__main__":
    main()
