#!/usr/bin/env python3
"""Passages/s of raw ONNX Runtime on an evident model: the baseline for the build's embedding.

Reads the passages of a built index's metadata store, tokenizes them with the model's own
tokenizer.json and runs the model's model.onnx in N sessions at once (Python threads; ONNX
Runtime releases the GIL while it runs), the cores shared among them as evident's build pool
shares them. One text per call when the model's MODEL.json says dynamic_quantization (as
evident embeds such a model), else batches of --batch texts of similar length.

    python3 -m venv /tmp/ortvenv && /tmp/ortvenv/bin/pip install onnxruntime==1.31.1 tokenizers numpy
    /tmp/ortvenv/bin/python scripts/raw_embed_throughput.py --store index-eval/cranfield/generations/gen-000001/meta.sqlite \
        --model ~/.local/share/evident/models/bge-small-en --sessions 1 2 --embed-title

Prints one line per session count: passages, seconds, passages/s.
"""

import argparse
import json
import os
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def passages(store: Path, embed_title: bool) -> list[str]:
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT d.title, p.text FROM passages p JOIN documents d ON d.id = p.document_id ORDER BY p.no"
    ).fetchall()
    return [f"{title}. {text}" if embed_title and title else text for title, text in rows]


def session(model: Path, threads: int) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(model / "model.onnx"), options, providers=["CPUExecutionProvider"])


def embed(sess: ort.InferenceSession, tokenizer: Tokenizer, texts: list[str], pooling: str) -> np.ndarray:
    encodings = tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in {i.name for i in sess.get_inputs()}:
        feeds["token_type_ids"] = np.zeros_like(ids)
    hidden = sess.run(None, feeds)[0]
    if pooling == "cls":
        pooled = hidden[:, 0]
    else:
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(1) / weights.sum(1)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def run(model: Path, texts: list[str], sessions: int, batch: int) -> float:
    info = json.loads((model / "MODEL.json").read_text())
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    tokenizer.enable_truncation(info["max_length"])
    tokenizer.enable_padding()
    per_call = 1 if info.get("dynamic_quantization") else batch
    texts = sorted(texts, key=len)
    batches = [texts[i : i + per_call] for i in range(0, len(texts), per_call)]
    threads = max(1, (os.cpu_count() or 1) // sessions)
    pool = [session(model, threads) for _ in range(sessions)]
    prefix = info.get("passage_prefix", "")
    lock, taken = threading.Lock(), [0]

    def worker(sess):
        while True:
            with lock:
                turn = taken[0]
                taken[0] += 1
            if turn >= len(batches):
                return
            embed(sess, tokenizer, [prefix + t for t in batches[turn]], info["pooling"])

    started = time.perf_counter()
    workers = [threading.Thread(target=worker, args=(s,)) for s in pool]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True, help="an index generation's meta.sqlite")
    parser.add_argument("--model", type=Path, required=True, help="an installed model's directory")
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--batch", type=int, default=32, help="texts per call (models without dynamic quantization)")
    parser.add_argument("--embed-title", action="store_true", help="embed 'title. text', as [vector] embed_title")
    parser.add_argument("--limit", type=int, default=0, help="embed only the first N passages")
    args = parser.parse_args()
    texts = passages(args.store, args.embed_title)
    if args.limit:
        texts = texts[: args.limit]
    for sessions in args.sessions:
        seconds = run(args.model, texts, sessions, args.batch)
        print(f"raw onnxruntime {ort.__version__}: {sessions} session(s): {len(texts)} passages in {seconds:.1f} s, "
              f"{len(texts) / seconds:.1f} passages/s")


if __name__ == "__main__":
    main()
