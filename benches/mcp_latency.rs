//! Round-trip latency of tool calls over stdio, the way an agent sees it:
//! spawns `evident serve`, warms up, then times each call from request to
//! parsed response and prints p50 / p95 / p99 per tool.
//! Run: `cargo bench --bench mcp_latency` (needs an index: `scripts/setup`
//! builds `index/`; another one with `EVIDENT_BENCH_INDEX=DIR`).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a benchmark fails loudly

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use std::time::Instant;

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

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn main() {
    let index =
        std::env::var("EVIDENT_BENCH_INDEX").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/index").into());
    if !std::path::Path::new(&index).join("CURRENT").is_file() {
        eprintln!("no index at {index}: run scripts/setup, or set EVIDENT_BENCH_INDEX");
        std::process::exit(1);
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_evident"));
        cmd.args(["serve", "--index", &index, "--no-telemetry"]);
        let transport = TokioChildProcess::builder(cmd).stderr(std::process::Stdio::null()).spawn().unwrap().0;
        let client = ().serve(transport).await.unwrap();
        let cases: [(&str, Arguments); 4] = [
            ("search_passages", |q| json!({"query": q})),
            ("search_passages (lexical)", |q| json!({"query": q, "retrieval_mode": "lexical"})),
            ("find_concept_evidence", |_| json!({"concept": "concept.natural_selection"})),
            ("get_passage", |_| json!({"passage_id": "p.origin-1859.ch04.0001"})),
        ];
        println!("{:<28} {:>6} {:>9} {:>9} {:>9}", "tool", "calls", "p50 ms", "p95 ms", "p99 ms");
        for (label, args) in cases {
            let tool = label.split(' ').next().unwrap().to_owned();
            let call = |i: usize| {
                let arguments = args(QUERIES[i % QUERIES.len()]).as_object().unwrap().clone();
                client.call_tool(CallToolRequestParams::new(tool.clone()).with_arguments(arguments))
            };
            for i in 0..QUERIES.len() {
                call(i).await.unwrap();
            }
            let mut ms = Vec::with_capacity(CALLS);
            for i in 0..CALLS {
                let start = Instant::now();
                let result = call(i).await.unwrap();
                ms.push(start.elapsed().as_secs_f64() * 1000.0);
                assert_ne!(result.is_error, Some(true), "{label} failed: {:?}", result.structured_content);
            }
            ms.sort_by(f64::total_cmp);
            println!(
                "{label:<28} {CALLS:>6} {:>9.2} {:>9.2} {:>9.2}",
                percentile(&ms, 50.0),
                percentile(&ms, 95.0),
                percentile(&ms, 99.0)
            );
        }
        client.cancel().await.unwrap();
    });
}
