#!/usr/bin/env python3
"""The retrieval stack a user would assemble in Python instead of evident, as a
baseline for `evident eval`: bm25s (English stop words, PyStemmer) over whole
documents (title + text), all-MiniLM-L6-v2 over whole documents (mean pooling,
256 tokens, as sentence-transformers runs it), and their Reciprocal Rank Fusion
(k = 60, as ranx does). Writes three TREC runs and prints nDCG@10 of each,
overall and on the longest third of the queries (as `evident eval` reports).

The model is the ONNX export `scripts/fetch_model.py` installs (the same
weights sentence-transformers loads); nothing is downloaded.

Usage: peer_stack.py COLLECTION OUT_DIR [--models-dir DIR] [--split test]
  COLLECTION  a BEIR directory (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)
Needs: pip install bm25s PyStemmer onnxruntime tokenizers numpy pytrec-eval-terrier
"""
import argparse
import json
import os
from collections import defaultdict

import bm25s
import numpy as np
import onnxruntime
import pytrec_eval
import Stemmer
from tokenizers import Tokenizer

from crosscheck_metrics import read_qrels  # this directory

DEPTH = 100
RRF_K = 60.0
MAX_TOKENS = 256
BATCH = 64


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def bm25_run(doc_ids, texts, queries):
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    tokens = bm25s.tokenize([q["text"] for q in queries], stopwords="en", stemmer=stemmer, show_progress=False)
    results, scores = retriever.retrieve(tokens, k=min(DEPTH, len(texts)), show_progress=False)
    return {
        q["_id"]: [(doc_ids[d], float(s)) for d, s in zip(results[i], scores[i]) if s > 0]
        for i, q in enumerate(queries)
    }


class MiniLM:
    def __init__(self, model_dir):
        self.tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = os.cpu_count() or 1
        self.session = onnxruntime.InferenceSession(os.path.join(model_dir, "model.onnx"), options)
        self.inputs = {i.name for i in self.session.get_inputs()}

    def embed(self, texts):
        out = []
        for start in range(0, len(texts), BATCH):
            encoded = self.tokenizer.encode_batch(texts[start : start + BATCH])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feed)[0]
            summed = (hidden * mask[:, :, None]).sum(axis=1)
            pooled = summed / np.clip(mask.sum(axis=1, keepdims=True), 1, None)
            out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.vstack(out)


def dense_run(doc_ids, texts, queries, model_dir):
    model = MiniLM(model_dir)
    docs = model.embed(texts)
    qs = model.embed([q["text"] for q in queries])
    run = {}
    for i, q in enumerate(queries):
        scores = docs @ qs[i]
        top = np.argsort(-scores, kind="stable")[:DEPTH]
        run[q["_id"]] = [(doc_ids[d], float(scores[d])) for d in top]
    return run


def rrf(*runs):
    fused = {}
    for q in runs[0]:
        scores = defaultdict(float)
        for run in runs:
            for rank, (d, _) in enumerate(run.get(q, []), start=1):
                scores[d] += 1.0 / (RRF_K + rank)
        ranked = sorted(scores.items(), key=lambda x: (-x[1], x[0]))[:DEPTH]
        fused[q] = ranked
    return fused


def write_run(path, run, tag):
    with open(path, "w") as f:
        for q, docs in run.items():
            for rank, (d, s) in enumerate(docs, start=1):
                # Ranks as scores, so trec_eval keeps this order.
                f.write(f"{q} Q0 {d} {rank} {DEPTH + 1 - rank} {tag}\n")


def ndcg(qrels, run, query_ids):
    trec = {q: {d: float(DEPTH + 1 - r) for r, (d, _) in enumerate(run.get(q, []), start=1)} for q in query_ids}
    evaluator = pytrec_eval.RelevanceEvaluator({q: qrels[q] for q in query_ids}, {"ndcg_cut.10"})
    per = evaluator.evaluate(trec)
    return sum(per.get(q, {}).get("ndcg_cut_10", 0.0) for q in query_ids) / max(1, len(query_ids))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("collection")
    parser.add_argument("out_dir")
    parser.add_argument("--models-dir", default=os.path.expanduser("~/.local/share/evident/models"))
    parser.add_argument("--split", default="test")
    args = parser.parse_args()
    corpus = read_jsonl(os.path.join(args.collection, "corpus.jsonl"))
    qrels = read_qrels(os.path.join(args.collection, "qrels", f"{args.split}.tsv"))
    queries = [q for q in read_jsonl(os.path.join(args.collection, "queries.jsonl")) if q["_id"] in qrels]
    doc_ids = [d["_id"] for d in corpus]
    texts = [(d.get("title", "") + " " + d.get("text", "")).strip() for d in corpus]
    lexical = bm25_run(doc_ids, texts, queries)
    vector = dense_run(doc_ids, texts, queries, os.path.join(args.models_dir, "all-MiniLM-L6-v2"))
    hybrid = rrf(lexical, vector)
    os.makedirs(args.out_dir, exist_ok=True)
    # The longest third as `evident eval` takes it: ceil(n / 3) queries, most words first, ties by position.
    order = sorted(range(len(queries)), key=lambda i: (-len(queries[i]["text"].split()), i))
    longest = [queries[i]["_id"] for i in order[: -(-len(queries) // 3)]]
    ids = [q["_id"] for q in queries]
    print("run      nDCG@10  long third")
    for name, run in [("lexical", lexical), ("vector", vector), ("hybrid", hybrid)]:
        write_run(os.path.join(args.out_dir, f"{name}.run"), run, f"peer-{name}")
        print(f"{name:8} {ndcg(qrels, run, ids):.4f}   {ndcg(qrels, run, longest):.4f}")


if __name__ == "__main__":
    main()
