//! Load on one `evident serve --http` against the same load on N stdio
//! servers (one per client, as agents run them today): N concurrent clients
//! (default 1, 8, 64), each making `EVIDENT_BENCH_CALLS` (default 50) hybrid
//! `search_passages` calls one after another, timed from request to parsed
//! answer. Prints per level: p50 / p99 latency, errors (HTTP status, JSON-RPC
//! error or tool error), throughput and the servers' peak resident memory
//! (VmHWM, summed over the stdio servers).
//! Run: `cargo bench --bench http_load` (needs an index with a vector lane:
//! `scripts/setup` builds `index/`; another with `EVIDENT_BENCH_INDEX=DIR`).
//! `EVIDENT_BENCH_CLIENTS=1,8,64`, `EVIDENT_BENCH_QUERIES=FILE` (one query a
//! line, BEIR `queries.jsonl`, or evident's question sets), `EVIDENT_BENCH_SKIP_STDIO=1`.
//! The servers run with `EVIDENT_QUERY_CACHE=0` (every search embeds its
//! query, as distinct questions do; `EVIDENT_BENCH_QUERY_CACHE=N` to keep a
//! cache). A stdio level whose servers would not fit in the memory available
//! (the one-server peak times N, with a 20 % margin) is reported as skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly

#[path = "../tests/it/common/http.rs"]
mod http;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DARWIN: [&str; 10] = [
    "natural selection",
    "struggle for existence",
    "variation under domestication",
    "imperfection of the geological record",
    "survival of the fittest",
    "rudimentary organs",
    "sterility of hybrids",
    "instinct of the hive bee",
    "what is sexual selection",
    "geographical distribution on oceanic islands",
];

fn queries() -> Vec<String> {
    let Ok(file) = std::env::var("EVIDENT_BENCH_QUERIES") else {
        return DARWIN.iter().map(|q| (*q).to_owned()).collect();
    };
    // A JSON line gives its `text` (BEIR), `query` or `questions`; any other line is a query.
    let mut out = Vec::new();
    for line in std::fs::read_to_string(file).unwrap().lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Value>(line) {
            Ok(v) if v.is_object() => {
                let texts = ["text", "query"].iter().filter_map(|k| v[*k].as_str().map(str::to_owned));
                let questions =
                    v["questions"].as_array().into_iter().flatten().filter_map(|q| q.as_str().map(str::to_owned));
                out.extend(texts.chain(questions));
            }
            _ => out.push(line.to_owned()),
        }
    }
    out.truncate(400);
    out
}

/// MemAvailable, in MB.
fn available_mb() -> f64 {
    let info = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    info.lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn arguments(query: &str) -> Value {
    json!({"query": query, "retrieval_mode": "hybrid"})
}

/// Peak resident memory of a process, in MB (`VmHWM`).
fn peak_rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Whether an answer is a good envelope (no JSON-RPC error, no tool error).
fn answered(message: &Value) -> bool {
    message.get("error").is_none()
        && message["result"]["isError"] != true
        && message["result"]["structuredContent"]["request"]["tool"] == "search_passages"
}

struct Level {
    latencies_ms: Vec<f64>,
    errors: usize,
    wall: Duration,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Runs `clients` threads of `calls` calls each; `call(client, i, query)` → ok.
fn drive(clients: usize, calls: usize, queries: &[String], call: impl Fn(usize, usize, &str) -> bool + Sync) -> Level {
    let started = Instant::now();
    let results: Vec<(Vec<f64>, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|client| {
                let call = &call;
                scope.spawn(move || {
                    let mut latencies = Vec::with_capacity(calls);
                    let mut errors = 0;
                    for i in 0..calls {
                        let query = &queries[(client * 7 + i) % queries.len()];
                        let t = Instant::now();
                        let ok = call(client, i, query);
                        latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                        errors += usize::from(!ok);
                    }
                    (latencies, errors)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut latencies_ms: Vec<f64> = results.iter().flat_map(|(l, _)| l.iter().copied()).collect();
    latencies_ms.sort_by(f64::total_cmp);
    Level { latencies_ms, errors: results.iter().map(|(_, e)| e).sum(), wall: started.elapsed() }
}

fn print(transport: &str, clients: usize, level: &Level, rss_mb: f64) {
    let n = level.latencies_ms.len();
    println!(
        "{transport:<6} {clients:>7} {n:>6} {:>9.1} {:>9.1} {:>7} {:>9.1} {:>10.0}",
        percentile(&level.latencies_ms, 50.0),
        percentile(&level.latencies_ms, 99.0),
        level.errors,
        n as f64 / level.wall.as_secs_f64(),
        rss_mb
    );
}

/// One stdio server with its client end.
struct StdioServer {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl StdioServer {
    fn start(binary: &Path, index: &Path, cache: &str) -> Self {
        let mut child = Command::new(binary)
            .args(["serve", "--no-telemetry", "--index"])
            .arg(index)
            .env("EVIDENT_QUERY_CACHE", cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Self { child, stdin, stdout };
        server.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "load", "version": "0"}}}));
        server.read();
        server.stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").unwrap();
        server
    }

    fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or(Value::Null)
    }

    fn call(&mut self, id: u64, query: &str) -> bool {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "search_passages", "arguments": arguments(query)}}));
        answered(&self.read())
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_evident"));
    let index = PathBuf::from(std::env::var("EVIDENT_BENCH_INDEX").unwrap_or_else(|_| "index".into()));
    let levels: Vec<usize> = std::env::var("EVIDENT_BENCH_CLIENTS")
        .unwrap_or_else(|_| "1,8,64".into())
        .split(',')
        .map(|n| n.trim().parse().unwrap())
        .collect();
    let calls: usize = std::env::var("EVIDENT_BENCH_CALLS").ok().and_then(|v| v.parse().ok()).unwrap_or(50);
    let queries = queries();
    let most = levels.iter().copied().max().unwrap_or(1).to_string();
    let cache = std::env::var("EVIDENT_BENCH_QUERY_CACHE").unwrap_or_else(|_| "0".into());
    println!("index {}, {calls} hybrid searches per client, {} distinct queries", index.display(), queries.len());
    println!(
        "{:<6} {:>7} {:>6} {:>9} {:>9} {:>7} {:>9} {:>10}",
        "", "clients", "calls", "p50 ms", "p99 ms", "errors", "calls/s", "peak MB"
    );

    let server = http::HttpServer::start_binary(
        &binary,
        &index,
        &["--no-telemetry", "--concurrency", &most, "--per-token-concurrency", &most],
        &[("EVIDENT_QUERY_CACHE", cache.as_str())],
    );
    // The first hybrid search waits for the vector lane to load; not timed.
    let mut warm = http::Session::open(server.addr, None);
    assert!(answered(&warm.call(1, "search_passages", arguments(&queries[0]))), "the warm-up search failed");
    for &clients in &levels {
        let sessions: Vec<std::sync::Mutex<http::Session>> =
            (0..clients).map(|_| std::sync::Mutex::new(http::Session::open(server.addr, None))).collect();
        let level = drive(clients, calls, &queries, |client, i, query| {
            let mut session = sessions[client].lock().unwrap();
            let body = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "search_passages", "arguments": arguments(query)}});
            let reply = session.post(body.to_string().as_bytes());
            reply.status == 200 && reply.messages().first().is_some_and(answered)
        });
        print("http", clients, &level, peak_rss_mb(server.child.id()));
    }
    drop(server);

    if std::env::var("EVIDENT_BENCH_SKIP_STDIO").is_ok() {
        return;
    }
    let mut one_server_mb = 0.0f64;
    for &clients in &levels {
        let needed = one_server_mb * clients as f64 * 1.2;
        if needed > available_mb() {
            println!(
                "stdio  {clients:>7}   skipped: {clients} servers × {one_server_mb:.0} MB peak > {:.0} MB available",
                available_mb()
            );
            continue;
        }
        let servers: Vec<std::sync::Mutex<StdioServer>> =
            (0..clients).map(|_| std::sync::Mutex::new(StdioServer::start(&binary, &index, &cache))).collect();
        // Each server's first hybrid search waits for its own model load; not timed.
        for server in &servers {
            assert!(server.lock().unwrap().call(1, &queries[0]), "a warm-up search failed");
        }
        let level = drive(clients, calls, &queries, |client, i, query| {
            servers[client].lock().unwrap().call(i as u64 + 2, query)
        });
        let rss: f64 = servers.iter().map(|s| peak_rss_mb(s.lock().unwrap().child.id())).sum();
        one_server_mb = one_server_mb.max(rss / clients as f64);
        print("stdio", clients, &level, rss);
        for server in &servers {
            let _ = server.lock().unwrap().child.kill();
        }
    }
}
