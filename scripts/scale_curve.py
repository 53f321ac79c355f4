#!/usr/bin/env python3
"""The scale curve: builds synthetic corpora of growing size and measures each.

    python3 scripts/scale_curve.py --sizes 10000,100000,1000000 --work /tmp/scale \
        [--evident target/release/evident] [--calls 300] [--out benches] [--merge] [--serve-only] \
        [--memory-limit-mb 600]

For each size (passages): writes the corpus with scripts/synthetic_corpus.py
(seeded; kept in --work and reused), builds it with `evident index build`
(wall time, peak RSS of the build process and its peak anonymous RSS, the part
that is not the page cache of the files it maps; with --memory-limit-mb, inside
a cgroup-v1 memory group of that size, so it completes only within it), measures the generation's bytes per
lane (lexical/, vectors/, meta.sqlite), then serves it with `evident serve` and
sends `search_passages` over stdio as a raw JSON-RPC client, one call at a time,
per retrieval mode (lexical, vector, hybrid), timing each round trip: p50 / p99
per mode, and the server's peak RSS (VmHWM) and start-up time.

The vector lane stores seeded random unit vectors (the corpus's
`[vector] synthetic_seed`): the store, its search and the query embedding are
real; the embedding of passages, measured separately in passages/s (README,
"Models"), is left out so that it does not dominate. Results: --out/scale_curve.json,
a Markdown table on stdout, and --out/scale_curve.svg. --serve-only measures only the
serving of indexes already built in --work, keeping each size's build figures from
--out/scale_curve.json (to re-time serving with another binary, or on a quiet machine,
without rebuilding). Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ["lexical", "vector", "hybrid"]
WARMUP = 10


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


def anon_rss(pid):
    """The process's anonymous resident memory in bytes (Linux: RssAnon), or 0."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_measured(argv, memory_limit_mb=None):
    """Runs argv; returns (seconds, peak RSS, peak anonymous RSS) in bytes of that
    process alone. Peak RSS counts the file pages it has mapped (its stores'
    files, which the kernel may drop and reread); the anonymous part is what it
    cannot give back. With memory_limit_mb, the process runs in a cgroup-v1
    memory group of that size (anonymous memory and page cache both charged):
    it completes only if it needs no more."""
    started = time.monotonic()
    preexec = None
    if memory_limit_mb:
        group = f"/sys/fs/cgroup/memory/evident-scale-{os.getpid()}"
        os.makedirs(group, exist_ok=True)
        with open(os.path.join(group, "memory.limit_in_bytes"), "w") as f:
            f.write(str(memory_limit_mb << 20))

        def preexec():
            with open(os.path.join(group, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=preexec)
    stderr = []
    reader = threading.Thread(target=lambda: stderr.append(proc.stderr.read()), daemon=True)
    reader.start()
    peak_anon = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak_anon = max(peak_anon, anon_rss(proc.pid))
        time.sleep(0.5)
    reader.join()
    if memory_limit_mb:
        os.rmdir(group)  # empty once its one process has exited
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(f"scale_curve: {' '.join(argv)} failed ({proc.returncode}):\n{b''.join(stderr).decode(errors='replace')}")
    return seconds, usage.ru_maxrss * 1024, peak_anon  # Linux reports ru_maxrss in kilobytes


class Server:
    """`evident serve` spoken to as raw JSON-RPC lines."""

    def __init__(self, evident, index):
        started = time.monotonic()
        self.proc = subprocess.Popen(
            [evident, "serve", "--index", index],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "scale", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.startup = time.monotonic() - started

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("scale_curve: the server closed its output")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    sys.exit(f"scale_curve: {method} failed: {reply['error']}")
                return reply["result"]

    def search(self, query, mode):
        result = self.call("tools/call", {"name": "search_passages", "arguments": {"query": query, "retrieval_mode": mode}})
        if result.get("isError"):
            sys.exit(f"scale_curve: search failed: {result['content'][0]['text']}")
        return result

    def peak_rss(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def percentile(values, p):
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


def same_size(row, size):
    # A corpus holds about the passages asked for (within a few percent).
    return abs(row["passages"] - size) <= size * 0.1


def measure(size, args, built=None):
    """Builds (unless `built`, the size's previous row, is given) and serves one size."""
    corpus = os.path.join(args.work, f"corpus-{size}")
    index = os.path.join(args.work, f"index-{size}")
    if built is not None:
        return {**built, **serve(corpus, index, args)}
    if not os.path.exists(os.path.join(corpus, "queries.jsonl")):
        subprocess.run(
            [sys.executable, os.path.join(HERE, "synthetic_corpus.py"), "--passages", str(size), "--out", corpus, "--seed", str(args.seed)],
            check=True,
        )
    subprocess.run(["rm", "-rf", index], check=True)
    build_seconds, build_rss, build_anon = run_measured(
        [args.evident, "index", "build", corpus, "--index", index, "--quiet"], args.memory_limit_mb
    )
    with open(os.path.join(index, "CURRENT")) as f:
        generation = os.path.join(index, "generations", f.read().strip())
    with open(os.path.join(generation, "manifest.json")) as f:
        manifest = json.load(f)
    bytes_per_lane = {
        "lexical": du(os.path.join(generation, "lexical")),
        "vectors": du(os.path.join(generation, "vectors")),
        "metadata": os.lstat(os.path.join(generation, "meta.sqlite")).st_blocks * 512,
    }
    return {
        "passages": manifest["counts"]["passages"],
        "documents": manifest["counts"]["documents"],
        "build_seconds": build_seconds,
        "build_peak_rss": build_rss,
        "build_peak_anon": build_anon,
        "build_memory_limit_mb": args.memory_limit_mb,
        "passages_per_second": manifest["counts"]["passages"] / build_seconds,
        "bytes": bytes_per_lane,
        **serve(corpus, index, args),
    }


def serve(corpus, index, args):
    """Start-up, per-mode latency and peak RSS of `evident serve` on a built index."""
    with open(os.path.join(corpus, "queries.jsonl")) as f:
        queries = [json.loads(line)["text"] for line in f]
    server = Server(args.evident, index)
    latency = {}
    for mode in MODES:
        for q in queries[:WARMUP]:
            server.search(q, mode)
        times = []
        for i in range(args.calls):
            q = queries[i % len(queries)]
            started = time.perf_counter()
            server.search(q, mode)
            times.append((time.perf_counter() - started) * 1000)
        latency[mode] = {"p50_ms": percentile(times, 50), "p99_ms": percentile(times, 99)}
    serve_rss = server.peak_rss()
    server.close()
    return {"serve_startup_seconds": server.startup, "serve_peak_rss": serve_rss, "latency": latency}


def table(rows):
    mb = lambda b: f"{b / 2**20:,.0f}"
    out = [
        "| passages | build s | passages/s | build peak RSS MB | build peak anon MB | lexical MB | vectors MB | metadata MB | serve start s | serve peak RSS MB | "
        + " | ".join(f"{m} p50 / p99 ms" for m in MODES)
        + " |",
        "|" + "---|" * (10 + len(MODES)),
    ]
    for r in rows:
        out.append(
            f"| {r['passages']:,} | {r['build_seconds']:,.1f} | {r['passages_per_second']:,.0f} | {mb(r['build_peak_rss'])} | "
            f"{mb(r['build_peak_anon']) if r.get('build_peak_anon') else 'n/a'} | "
            f"{mb(r['bytes']['lexical'])} | {mb(r['bytes']['vectors'])} | {mb(r['bytes']['metadata'])} | "
            f"{r['serve_startup_seconds']:.2f} | {mb(r['serve_peak_rss'])} | "
            + " | ".join(f"{r['latency'][m]['p50_ms']:.2f} / {r['latency'][m]['p99_ms']:.2f}" for m in MODES)
            + " |"
        )
    return "\n".join(out)


def svg(rows):
    """Two panels on a log-size axis: p50 latency per mode (ms), and peak RSS (MB) at build and serve."""
    import math

    width, height, pad = 760, 300, 56
    panel = (width - 3 * pad) / 2
    xs = [math.log10(r["passages"]) for r in rows]
    x_lo, x_hi = min(xs) - 0.2, max(xs) + 0.2
    colours = {"lexical": "#1f77b4", "vector": "#ff7f0e", "hybrid": "#2ca02c", "build RSS": "#7f7f7f", "serve RSS": "#9467bd"}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>']

    def draw(left, title, series, unit):
        top, bottom = pad / 2 + 14, height - pad
        y_hi = max(v for _, values in series for v in values) * 1.15 or 1
        sx = lambda x: left + (x - x_lo) / (x_hi - x_lo) * panel
        sy = lambda y: bottom - y / y_hi * (bottom - top)
        parts.append(f'<text x="{left + panel / 2}" y="{pad / 2}" text-anchor="middle" font-size="13">{title}</text>')
        parts.append(f'<line x1="{left}" y1="{bottom}" x2="{left + panel}" y2="{bottom}" stroke="black"/>')
        parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="black"/>')
        for r, x in zip(rows, xs):
            parts.append(f'<text x="{sx(x)}" y="{bottom + 14}" text-anchor="middle">{r["passages"]:,}</text>')
        for i in range(5):
            y = y_hi * i / 4
            parts.append(f'<text x="{left - 4}" y="{sy(y) + 4}" text-anchor="end">{y:,.0f}</text>')
            parts.append(f'<line x1="{left}" y1="{sy(y)}" x2="{left + panel}" y2="{sy(y)}" stroke="#ddd"/>')
        parts.append(f'<text x="{left + panel / 2}" y="{bottom + 30}" text-anchor="middle">passages (log scale)</text>')
        parts.append(f'<text x="{left - 40}" y="{(top + bottom) / 2}" transform="rotate(-90 {left - 40} {(top + bottom) / 2})" text-anchor="middle">{unit}</text>')
        for n, (name, values) in enumerate(series):
            points = " ".join(f"{sx(x):.1f},{sy(v):.1f}" for x, v in zip(xs, values))
            parts.append(f'<polyline points="{points}" fill="none" stroke="{colours[name]}" stroke-width="2"/>')
            for x, v in zip(xs, values):
                parts.append(f'<circle cx="{sx(x):.1f}" cy="{sy(v):.1f}" r="3" fill="{colours[name]}"/>')
            parts.append(f'<text x="{left + 8}" y="{top + 12 + 13 * n}" fill="{colours[name]}">{name}</text>')

    draw(pad, "search_passages p50 over stdio", [(m, [r["latency"][m]["p50_ms"] for r in rows]) for m in MODES], "ms")
    draw(2 * pad + panel, "peak RSS", [("build RSS", [r["build_peak_rss"] / 2**20 for r in rows]), ("serve RSS", [r["serve_peak_rss"] / 2**20 for r in rows])], "MB")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="passage counts, comma-separated")
    parser.add_argument("--work", required=True, help="where corpora and indexes go (large: ~3 GB per million passages)")
    parser.add_argument("--evident", default=os.path.join(HERE, "..", "target", "release", "evident"))
    parser.add_argument("--calls", type=int, default=300, help="timed calls per mode")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=os.path.join(HERE, "..", "benches"))
    parser.add_argument("--merge", action="store_true", help="keep --out's rows of the sizes not measured now")
    parser.add_argument("--serve-only", action="store_true", help="re-measure serving only (see above)")
    parser.add_argument("--memory-limit-mb", type=int, help="build inside a cgroup-v1 memory group of this size (root)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    existing = os.path.join(args.out, "scale_curve.json")
    previous = []
    if (args.merge or args.serve_only) and os.path.exists(existing):
        with open(existing) as f:
            previous = json.load(f)
    rows = [r for r in previous if not any(same_size(r, n) for n in sizes)] if args.merge else []
    for size in sizes:
        print(f"scale_curve: {size:,} passages…", file=sys.stderr)
        built = None
        if args.serve_only:
            built = next((r for r in previous if same_size(r, size)), None)
            if built is None:
                sys.exit(f"scale_curve: --serve-only needs {existing} to hold a row of {size:,} passages")
        rows.append(measure(size, args, built))
        print(json.dumps(rows[-1]), file=sys.stderr)
    rows.sort(key=lambda r: r["passages"])
    with open(os.path.join(args.out, "scale_curve.json"), "w") as f:
        json.dump(rows, f, indent=2)
        f.write("\n")
    with open(os.path.join(args.out, "scale_curve.svg"), "w") as f:
        f.write(svg(rows))
    print(table(rows))


if __name__ == "__main__":
    main()
