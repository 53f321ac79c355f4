//! Bounded work per request: the largest request the published limits allow
//! (the most quoted phrases, the most words, the most results, in the modes
//! that embed) raises the server's peak memory by at most 50 MB over idle.
//! Linux only: it reads the kernel's peak-RSS counter and resets it first.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Stdio};

use common::mcp::shared_index;
use common::{evident, path};
use evident::surface::{MAX_QUERY_PHRASES, MAX_QUERY_WORDS};

/// Stated in ARCHITECTURE.md ("Damage and load").
const MAX_PEAK_GROWTH_KB: u64 = 50 * 1024;

struct Server {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    pid: u32,
    next_id: u64,
}

impl Server {
    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": name, "arguments": arguments}}));
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let response: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(response["id"], id);
        response["result"].clone()
    }

    fn status_kb(&self, key: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid)).unwrap();
        let line = status.lines().find(|l| l.starts_with(key)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

/// The longest query within the limits: MAX_QUERY_PHRASES quoted phrases
/// sharing MAX_QUERY_WORDS words.
fn maximal_query() -> String {
    let words = "variation under domestication struggle for existence natural selection laws of variation \
                 difficulties on theory instinct hybridism imperfection geological record succession organic beings";
    let words: Vec<&str> = words.split_whitespace().collect();
    let per_phrase = MAX_QUERY_WORDS / MAX_QUERY_PHRASES;
    let phrases: Vec<String> = (0..MAX_QUERY_PHRASES)
        .map(|p| {
            let phrase: Vec<&str> = (0..per_phrase).map(|w| words[(p * 3 + w) % words.len()]).collect();
            format!("\"{}\"", phrase.join(" "))
        })
        .collect();
    phrases.join(" ")
}

#[test]
fn a_maximal_request_stays_within_fifty_megabytes_of_idle() {
    let mut child = evident()
        .args(["serve", "--index", path(shared_index()), "--no-telemetry"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Server {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        pid: child.id(),
        next_id: 0,
    };
    server.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "memory", "version": "0"}}}));
    server.stdout.read_line(&mut String::new()).unwrap();
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Warm every lane once, so idle includes what any search loads for good.
    for mode in ["hybrid", "vector", "lexical"] {
        let result = server.call("search_passages", json!({"query": "natural selection", "retrieval_mode": mode}));
        assert_ne!(result["isError"], true, "{result}");
    }
    let idle = server.status_kb("VmRSS");
    std::fs::write(format!("/proc/{}/clear_refs", server.pid), "5").unwrap();

    let query = maximal_query();
    assert_eq!(query.split_whitespace().count(), MAX_QUERY_WORDS);
    let started = std::time::Instant::now();
    for mode in ["hybrid", "vector"] {
        let result = server.call("search_passages", json!({"query": query, "retrieval_mode": mode, "top_k": 50}));
        assert_ne!(result["isError"], true, "{result}");
    }
    let peak = server.status_kb("VmHWM");
    // Reported, not asserted: speed is measured by benchmarks.
    eprintln!("idle {idle} kB, peak {peak} kB, +{} kB; two maximal calls in {:?}", peak - idle, started.elapsed());
    drop(server);
    child.wait().unwrap();
    assert!(
        peak.saturating_sub(idle) <= MAX_PEAK_GROWTH_KB,
        "peak {peak} kB is {} kB over idle {idle} kB",
        peak.saturating_sub(idle)
    );
}
