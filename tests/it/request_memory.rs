//! Bounded work per request: the largest request the published limits allow
//! (the most quoted phrases, the most words, the most results, in the modes
//! that embed) raises the server's peak memory by at most 50 MB over idle.
//! Linux only: it reads the kernel's peak-RSS counter and resets it first.
#![cfg(target_os = "linux")]

use serde_json::json;

use crate::common::mcp::shared_index;
use crate::common::raw::Raw;
use evident::surface::{MAX_QUERY_PHRASES, MAX_QUERY_WORDS};

/// Stated in ARCHITECTURE.md ("Damage: what a reader survives").
const MAX_PEAK_GROWTH_KB: u64 = 50 * 1024;

/// A line of the server's `/proc/<pid>/status`, in kB.
fn status_kb(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(key)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The longest query within the limits: MAX_QUERY_PHRASES quoted phrases
/// of eight words each, and free text up to MAX_QUERY_WORDS words in all.
fn maximal_query() -> String {
    let words = "variation under domestication struggle for existence natural selection laws of variation \
                 difficulties on theory instinct hybridism imperfection geological record succession organic beings";
    let words: Vec<&str> = words.split_whitespace().collect();
    const PHRASE_WORDS: usize = 8;
    let phrases: Vec<String> = (0..MAX_QUERY_PHRASES)
        .map(|p| {
            let phrase: Vec<&str> = (0..PHRASE_WORDS).map(|w| words[(p * 3 + w) % words.len()]).collect();
            format!("\"{}\"", phrase.join(" "))
        })
        .collect();
    let free = MAX_QUERY_WORDS - MAX_QUERY_PHRASES * PHRASE_WORDS;
    let free: Vec<&str> = (0..free).map(|w| words[(w * 7) % words.len()]).collect();
    format!("{} {}", phrases.join(" "), free.join(" "))
}

#[test]
fn a_maximal_request_stays_within_fifty_megabytes_of_idle() {
    let mut server = Raw::serve(shared_index(), &["--no-telemetry"]);
    let pid = server.pid();
    // Warm every lane once, so idle includes what any search loads for good.
    for (id, mode) in (1..).zip(["hybrid", "vector", "lexical"]) {
        let result = server.call(id, "search_passages", json!({"query": "natural selection", "retrieval_mode": mode}));
        assert_ne!(result["isError"], true, "{result}");
    }
    let idle = status_kb(pid, "VmRSS");
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();

    let query = maximal_query();
    assert_eq!(query.split_whitespace().count(), MAX_QUERY_WORDS);
    let started = std::time::Instant::now();
    for (id, mode) in (10..).zip(["hybrid", "vector"]) {
        let result = server.call(id, "search_passages", json!({"query": query, "retrieval_mode": mode, "top_k": 50}));
        assert_ne!(result["isError"], true, "{result}");
    }
    let peak = status_kb(pid, "VmHWM");
    // Reported, not asserted: speed is measured by benchmarks.
    eprintln!("idle {idle} kB, peak {peak} kB, +{} kB; two maximal calls in {:?}", peak - idle, started.elapsed());
    assert!(
        peak.saturating_sub(idle) <= MAX_PEAK_GROWTH_KB,
        "peak {peak} kB is {} kB over idle {idle} kB",
        peak.saturating_sub(idle)
    );
}
