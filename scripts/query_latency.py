#!/usr/bin/env python3
"""Per-query latency of one retrieval mode, to find what makes a tail.

    python3 scripts/query_latency.py --index /tmp/scale/index-1000000 \
        --queries /tmp/scale/corpus-1000000/queries.jsonl [--mode lexical] \
        [--evident target/release/evident] [--slowest 12]

Serves the index with `evident serve` (the raw JSON-RPC client of
scripts/scale_curve.py), warms up on the first 20 queries, then times each
query of the file once, one call at a time, and prints p50 / p99 over all of
them, over quoted phrases and over the rest, and the slowest queries.
Standard library only.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale_curve import Server, percentile  # noqa: E402

WARMUP = 20


def summary(label, timed):
    if not timed:
        return f"{label}: none"
    times = [t for t, _ in timed]
    return (
        f"{label}: {len(times)} queries, p50 {percentile(times, 50):.2f} ms, "
        f"p99 {percentile(times, 99):.2f} ms, slowest {max(times):.2f} ms"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", required=True)
    parser.add_argument("--queries", required=True, help="BEIR queries.jsonl (its `text` field)")
    parser.add_argument("--mode", default="lexical", choices=["lexical", "vector", "hybrid", "auto"])
    parser.add_argument("--evident", default="target/release/evident")
    parser.add_argument("--slowest", type=int, default=12)
    args = parser.parse_args()

    with open(args.queries) as f:
        queries = [json.loads(line)["text"] for line in f if line.strip()]
    server = Server(args.evident, args.index)
    for q in queries[:WARMUP]:
        server.search(q, args.mode)
    timed = []
    for q in queries:
        started = time.perf_counter()
        server.search(q, args.mode)
        timed.append(((time.perf_counter() - started) * 1000, q))
    server.close()

    quoted = [t for t in timed if t[1].lstrip().startswith('"')]
    rest = [t for t in timed if not t[1].lstrip().startswith('"')]
    print(summary("all", timed))
    print(summary("quoted phrases", quoted))
    print(summary("without quotes", rest))
    for ms, q in sorted(timed, reverse=True)[: args.slowest]:
        print(f"{ms:9.2f} ms  {q}")


if __name__ == "__main__":
    main()
