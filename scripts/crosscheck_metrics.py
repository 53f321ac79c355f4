#!/usr/bin/env python3
"""Recomputes nDCG@10 and Recall@100 of a TREC run file with pytrec_eval (the
trec_eval bindings BEIR uses), to cross-check `evident eval`.

Usage: crosscheck_metrics.py QRELS.tsv RUN_FILE
  QRELS.tsv  BEIR qrels (header `query-id corpus-id score`, tab-separated)
  RUN_FILE   a run written by `evident eval --trec-dir DIR` (DIR/<mode>.run)
Needs: pip install pytrec-eval-terrier
"""
import sys

import pytrec_eval


def read_qrels(path):
    """BEIR qrels as query id -> {document id: grade}, positive grades only."""
    qrels = {}
    with open(path) as f:
        for i, line in enumerate(f):
            q, d, s = line.rstrip("\n").split("\t")
            if i == 0 and q == "query-id":
                continue
            if int(s) > 0:
                qrels.setdefault(q, {})[d] = int(s)
    return qrels


def main():
    qrels_path, run_path = sys.argv[1:3]
    qrels = read_qrels(qrels_path)
    run = {}
    with open(run_path) as f:
        for line in f:
            q, _, d, _rank, score, _tag = line.split()
            run.setdefault(q, {})[d] = float(score)
    # Queries with no retrieved documents still count (as zeros), as in `evident eval`.
    for q in qrels:
        run.setdefault(q, {})
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"})
    scores = evaluator.evaluate(run)
    n = len(scores)
    ndcg = sum(s["ndcg_cut_10"] for s in scores.values()) / n
    recall = sum(s["recall_100"] for s in scores.values()) / n
    print(f"pytrec_eval: queries {n}  nDCG@10 {ndcg:.4f}  Recall@100 {recall:.4f}")


if __name__ == "__main__":
    main()
