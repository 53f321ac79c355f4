#!/usr/bin/env python3
"""Cross-lingual probes: English questions whose answer is a hand-aligned passage of
Bronn's German translation (data/questions/darwin-crosslingual.jsonl). For each probe,
searches the German passages only (`--language de`) and reports whether an aligned
passage is in the top 10 (hit@10), per retrieval mode.

Usage: scripts/crosslingual_probes.py [--index DIR] [--evident BIN] [--mode M]...
  (default: index/, target/release/evident, modes vector and auto)
"""
import argparse
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", default=str(ROOT / "index"))
    parser.add_argument("--evident", default=str(ROOT / "target" / "release" / "evident"))
    parser.add_argument("--mode", action="append")
    parser.add_argument("--probes", default=str(ROOT / "data" / "questions" / "darwin-crosslingual.jsonl"))
    args = parser.parse_args()
    probes = [json.loads(line) for line in open(args.probes, encoding="utf-8") if line.strip()]
    for mode in args.mode or ["vector", "auto"]:
        hits = 0
        for probe in probes:
            out = subprocess.run([args.evident, "search", probe["query"], "--index", args.index, "--language", "de",
                                  "--mode", mode, "-k", "10", "--json"], capture_output=True, text=True, check=True)
            ranked = [h["passage_id"] for h in json.loads(out.stdout)["hits"]]
            rank = next((i + 1 for i, p in enumerate(ranked) if p in probe["passages"]), None)
            hits += rank is not None
            print(f"  {mode:<7} {probe['id']:<18} {'rank ' + str(rank) if rank else 'miss'}")
        print(f"{mode}: hit@10 {hits}/{len(probes)}")


if __name__ == "__main__":
    main()
