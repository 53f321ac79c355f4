//! Round-trip latency of tool calls over stdio, the way an agent sees it:
//! spawns `evident serve`, warms up, then times each call from request to
//! parsed response and prints p50 / p95 / p99 per tool, then where the time
//! goes: the server's stage spans (`evident::stage`, see `src/stage.rs`), their
//! p50 and mean per call, and what the round trip spends outside the tool
//! (protocol, framing, the pipe).
//! `EVIDENT_BENCH_CONCURRENCY=N` then sends the default search from N tasks
//! at once (each one call at a time) and prints the same percentiles, to
//! compare with the one-client figures.
//! Run: `cargo bench --bench mcp_latency` (needs an index: `scripts/setup`
//! builds `index/`; another one with `EVIDENT_BENCH_INDEX=DIR`). Queries: the
//! Darwin set below, or one per line of `EVIDENT_BENCH_QUERIES=FILE` (BEIR
//! `queries.jsonl` works: the `text` field of each line is used).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::io::AsyncBufReadExt;

const CALLS: usize = 300;

const QUERIES: [&str; 12] = [
    "natural selection",
    "struggle for existence",
    "variation under domestication",
    "imperfection of the geological record",
    "survival of the fittest",
    "natürliche Züchtung",
    "rudimentary organs",
    "\"divergence of character\"",
    "sterility of hybrids",
    "instinct of the hive bee",
    "what is sexual selection",
    "geographical distribution on oceanic islands",
];

/// The arguments of one timed call, from a query.
type Arguments = fn(&str) -> Value;

/// Stage name → each closed span's busy time, in µs.
type Stages = Arc<Mutex<BTreeMap<String, Vec<f64>>>>;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// `stage{stage="fusion"}: evident::stage: close time.busy=12.3µs time.idle=…` → ("fusion", 12.3).
fn stage_time(line: &str) -> Option<(String, f64)> {
    let (spans, rest) = line.split_once(" evident::stage: close time.busy=")?;
    let name = spans.rsplit("stage{stage=\"").next()?.split('"').next()?.to_owned();
    let busy = rest.split_whitespace().next()?;
    let digits = busy.trim_end_matches(|c: char| c.is_alphabetic() || c == 'µ');
    let unit = &busy[digits.len()..];
    let value: f64 = digits.parse().ok()?;
    let micros = match unit {
        "ns" => value / 1000.0,
        "µs" | "us" => value,
        "ms" => value * 1000.0,
        "s" => value * 1_000_000.0,
        _ => return None,
    };
    Some((name, micros))
}

fn queries() -> Vec<String> {
    let Ok(path) = std::env::var("EVIDENT_BENCH_QUERIES") else {
        return QUERIES.iter().map(|q| (*q).to_owned()).collect();
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(o)) => o["text"].as_str().unwrap().to_owned(),
            _ => l.to_owned(),
        })
        .collect()
}

fn main() {
    let index =
        std::env::var("EVIDENT_BENCH_INDEX").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/index").into());
    if !std::path::Path::new(&index).join("CURRENT").is_file() {
        eprintln!("no index at {index}: run scripts/setup, or set EVIDENT_BENCH_INDEX");
        std::process::exit(1);
    }
    let queries = queries();
    let calls = std::env::var("EVIDENT_BENCH_CALLS").ok().and_then(|c| c.parse().ok()).unwrap_or(CALLS);
    let only: Option<String> = std::env::var("EVIDENT_BENCH_TOOLS").ok();
    let stage_lines = std::env::var("EVIDENT_BENCH_STAGES").map_or(true, |v| v != "off");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_evident"));
        cmd.args(["serve", "--index", &index, "--no-telemetry"])
            // Stage lines cost the server a write per span: `EVIDENT_BENCH_STAGES=off` times without them.
            .env(
                "EVIDENT_LOG",
                if stage_lines { "warn,qdrant_edge=error,evident::stage=debug" } else { "warn,qdrant_edge=error" },
            )
            .env("NO_COLOR", "1");
        let (transport, stderr) = TokioChildProcess::builder(cmd).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let stages: Stages = Arc::default();
        let sink = Arc::clone(&stages);
        let mut lines = tokio::io::BufReader::new(stderr.unwrap()).lines();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some((name, micros)) = stage_time(&line) {
                    sink.lock().unwrap().entry(name).or_default().push(micros);
                }
            }
        });
        let client = ().serve(transport).await.unwrap();
        let cases: [(&str, Arguments); 5] = [
            ("search_passages", |q| json!({"query": q})),
            ("search_passages (lexical)", |q| json!({"query": q, "retrieval_mode": "lexical"})),
            ("search_passages (hybrid)", |q| json!({"query": q, "retrieval_mode": "hybrid"})),
            ("find_concept_evidence", |_| json!({"concept": "concept.natural_selection"})),
            ("get_passage", |_| json!({"passage_id": "p.origin-1859.ch04.0001"})),
        ];
        let mut breakdowns = Vec::new();
        println!("{:<28} {:>6} {:>9} {:>9} {:>9}", "tool", "calls", "p50 ms", "p95 ms", "p99 ms");
        for (label, args) in cases {
            if only.as_deref().is_some_and(|o| !o.split(',').any(|t| label.contains(t.trim()))) {
                continue;
            }
            let tool = label.split(' ').next().unwrap().to_owned();
            let call = |i: usize| {
                let arguments = args(&queries[i % queries.len()]).as_object().unwrap().clone();
                client.call_tool(CallToolRequestParams::new(tool.clone()).with_arguments(arguments))
            };
            for i in 0..queries.len().min(50) {
                call(i).await.unwrap();
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            stages.lock().unwrap().clear();
            let mut ms = Vec::with_capacity(calls);
            for i in 0..calls {
                let start = Instant::now();
                let result = call(i).await.unwrap();
                ms.push(start.elapsed().as_secs_f64() * 1000.0);
                if result.is_error == Some(true) {
                    // get_passage on another index: the id does not exist there.
                    eprintln!("{label}: the call failed; skipping");
                    break;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            let round_trip_mean = ms.iter().sum::<f64>() / ms.len() as f64 * 1000.0;
            breakdowns.push((label, ms.len(), round_trip_mean, std::mem::take(&mut *stages.lock().unwrap())));
            ms.sort_by(f64::total_cmp);
            println!(
                "{label:<28} {:>6} {:>9.2} {:>9.2} {:>9.2}",
                ms.len(),
                percentile(&ms, 50.0),
                percentile(&ms, 95.0),
                percentile(&ms, 99.0)
            );
        }
        let concurrency: usize =
            std::env::var("EVIDENT_BENCH_CONCURRENCY").ok().and_then(|c| c.parse().ok()).unwrap_or(1);
        if concurrency > 1 {
            let peer = client.peer().clone();
            // Warmed like the one-client runs (which `EVIDENT_BENCH_TOOLS` may have skipped):
            // otherwise the first call of every task waits for the vector lane to load.
            for q in queries.iter().take(50) {
                let arguments = json!({"query": q}).as_object().unwrap().clone();
                peer.call_tool(CallToolRequestParams::new("search_passages").with_arguments(arguments)).await.unwrap();
            }
            let queries = Arc::new(queries);
            let tasks: Vec<_> = (0..concurrency)
                .map(|t| {
                    let (peer, queries) = (peer.clone(), Arc::clone(&queries));
                    tokio::spawn(async move {
                        let mut ms = Vec::new();
                        for i in 0..calls / concurrency {
                            let q = &queries[(t * 7919 + i) % queries.len()];
                            let arguments = json!({"query": q}).as_object().unwrap().clone();
                            let start = Instant::now();
                            peer.call_tool(CallToolRequestParams::new("search_passages").with_arguments(arguments))
                                .await
                                .unwrap();
                            ms.push(start.elapsed().as_secs_f64() * 1000.0);
                        }
                        ms
                    })
                })
                .collect();
            let mut ms = Vec::new();
            for task in tasks {
                ms.extend(task.await.unwrap());
            }
            ms.sort_by(f64::total_cmp);
            println!(
                "{:<28} {:>6} {:>9.2} {:>9.2} {:>9.2}",
                format!("search_passages ×{concurrency}"),
                ms.len(),
                percentile(&ms, 50.0),
                percentile(&ms, 95.0),
                percentile(&ms, 99.0)
            );
        }
        for (label, calls, round_trip_mean, stages) in breakdowns {
            println!("\n{label}: where the time goes ({calls} calls; µs)");
            println!("  {:<16} {:>8} {:>10} {:>12}", "stage", "spans", "p50", "mean/call");
            for (name, mut times) in stages.clone() {
                times.sort_by(f64::total_cmp);
                let per_call = times.iter().sum::<f64>() / calls as f64;
                println!("  {name:<16} {:>8} {:>10.1} {:>12.1}", times.len(), percentile(&times, 50.0), per_call);
            }
            let tool = stages.get("tool").map_or(0.0, |t| t.iter().sum::<f64>() / calls as f64);
            println!("  {:<16} {:>8} {:>10} {:>12.1}", "outside tool", "", "", round_trip_mean - tool);
            println!("  {:<16} {:>8} {:>10} {:>12.1}", "round trip", "", "", round_trip_mean);
        }
        client.cancel().await.unwrap();
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn stage_lines_parse() {
        let line = "2026-12-01T00:00:00Z DEBUG stage{stage=\"tool\"}:stage{stage=\"fusion\"}: evident::stage: close \
                    time.busy=12.5µs time.idle=3.0µs";
        assert_eq!(super::stage_time(line), Some(("fusion".to_owned(), 12.5)));
        let ms = "x stage{stage=\"embed\"}: evident::stage: close time.busy=2.1ms time.idle=1ns";
        assert_eq!(super::stage_time(ms).unwrap().1, 2100.0);
        assert_eq!(super::stage_time("unrelated"), None);
    }
}
