//! A seeded protocol fuzzer over stdio: every registered name (tools, hidden
//! tool, deprecated aliases) and unknown ones, with arguments of wrong types,
//! odd and huge strings, extra keys, and malformed frames in between. It
//! asserts that the server stays up, answers every request that has an id
//! (with that id), writes only JSON-RPC to stdout, and that every tool error
//! carries a catalogued code and leaks no path, SQL or panic text.
//!
//! `cargo test` runs `DEFAULT_CASES`; `EVIDENT_FUZZ_CASES=20000` (and
//! `EVIDENT_FUZZ_SEED`) runs a longer campaign.

use crate::common::mcp::shared_index;
use crate::common::raw::Raw;
use evident::surface::registry::{ALIASES, TOOLS};
use evident::surface::{ErrorCode, Kind};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

const DEFAULT_CASES: usize = 1_500;

/// xorshift64*: small, seeded, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn odd_string(rng: &mut Rng) -> Value {
    let pieces = [
        "natural selection",
        "",
        "   ",
        "\"tangled bank\"",
        "p.ed-1859.ch1.0002",
        "concept.struggle",
        "selection",
        "ü\u{2019}s Daseyn",
        "\u{0}\u{1f}",
        "'; DROP TABLE passages; --",
        "../../etc/passwd",
        "\u{202e}rtl",
        "🦀🦀",
        "any",
        "late",
        "ed-1872",
    ];
    let mut text = (*rng.pick(&pieces)).to_owned();
    match rng.below(6) {
        0 => text = text.repeat(1 + rng.below(300)),
        1 => text.push_str(&"\"q\" ".repeat(rng.below(12))),
        _ => {}
    }
    json!(text)
}

fn odd_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 2 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!(rng.next() as i64),
        3 => json!(rng.below(60) as i64 - 5),
        4 => json!((rng.next() as f64) / 7.0),
        5 => odd_string(rng),
        6 => Value::Array((0..rng.below(4)).map(|_| odd_value(rng, depth + 1)).collect()),
        _ => Value::Object((0..rng.below(3)).map(|i| (format!("k{i}"), odd_value(rng, depth + 1))).collect()),
    }
}

/// A tools/call request for a registered or unknown name with fuzzed arguments.
fn tool_call(rng: &mut Rng, id: u64) -> Value {
    let names: Vec<&str> =
        TOOLS.iter().map(|t| t.name).chain(ALIASES.iter().map(|a| a.name)).chain(["delete_everything", ""]).collect();
    let name = *rng.pick(&names);
    // Half the calls fit the tool's own parameter table, so the handlers run, not only validation.
    let spec = TOOLS.iter().find(|t| t.name == name);
    if let (Some(spec), true) = (spec, rng.below(2) == 0) {
        let mut arguments = serde_json::Map::new();
        for p in spec.params {
            if !p.required && rng.below(2) == 0 {
                continue;
            }
            let value = match p.kind {
                Kind::Text | Kind::Query => odd_string(rng),
                Kind::Integer { min, max } => json!(min + (rng.next() % (max - min + 1) as u64) as i64),
                Kind::Boolean => json!(rng.below(2) == 0),
                Kind::Choice(values) => json!(rng.pick(values)),
                Kind::TextList => json!([odd_string(rng)]),
            };
            arguments.insert(p.name.to_owned(), value);
        }
        return json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    }
    let params: Vec<&str> =
        TOOLS.iter().flat_map(|t| t.params.iter().map(|p| p.name)).chain(["terms", "limit"]).collect();
    let mut arguments = serde_json::Map::new();
    for _ in 0..rng.below(5) {
        let key = (*rng.pick(&params)).to_owned();
        let value = if rng.below(3) == 0 { odd_value(rng, 0) } else { odd_string(rng) };
        arguments.insert(key, value);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// A frame that is not a well-formed request, or a request for another method.
fn odd_frame(rng: &mut Rng, id: u64) -> (Vec<u8>, Option<u64>) {
    match rng.below(9) {
        0 => (b"{not json".to_vec(), None),
        1 => (vec![b'{', 0xc3, 0x28, b'}'], None),
        2 => (br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}"#.to_vec(), None),
        3 => (format!("{}{}", "[".repeat(300), "]".repeat(300)).into_bytes(), None),
        4 => (
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "search_passages", "arguments": [1]}})
                .to_string()
                .into_bytes(),
            Some(id),
        ),
        5 => (json!({"jsonrpc": "2.0", "id": id, "method": "no/such_method"}).to_string().into_bytes(), Some(id)),
        6 => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"cursor": "x"}}).to_string().into_bytes(), Some(id)),
        7 => (json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string().into_bytes(), Some(id)),
        _ => (json!({"jsonrpc": "2.0", "method": "notifications/whatever"}).to_string().into_bytes(), None),
    }
}

/// What kind of answer a message is: a JSON-RPC error, a tool error, or a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Answer {
    RpcError,
    ToolError,
    Result,
}

fn check_answer(message: &Value, sent: &BTreeMap<u64, String>) -> Answer {
    let id = message["id"].as_u64().unwrap_or_else(|| panic!("an answer without a numeric id: {message}"));
    assert!(sent.contains_key(&id), "an answer to an id never sent: {message}");
    let Some(result) = message.get("result") else {
        assert!(message["error"]["code"].is_i64(), "neither result nor error: {message}");
        return Answer::RpcError;
    };
    if result["isError"] != true {
        return Answer::Result;
    }
    {
        assert!(result.get("structuredContent").is_none(), "{message}");
        let text = result["content"][0]["text"].as_str().unwrap();
        let body: Value = serde_json::from_str(text).unwrap();
        let code = body["error_code"].as_str().unwrap();
        assert!(ErrorCode::ALL.iter().any(|c| c.as_str() == code), "uncatalogued code {code}");
        let error = body["error"].as_str().unwrap();
        for leak in ["/tmp", "panicked", "SELECT ", "rusqlite", "TantivyError", ".rs:"] {
            assert!(!error.contains(leak), "{leak} leaked: {error}");
        }
    }
    Answer::ToolError
}

#[test]
fn fuzzed_frames_are_all_answered_and_nothing_leaks() {
    let cases: usize = std::env::var("EVIDENT_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CASES);
    let seed: u64 = std::env::var("EVIDENT_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed_1859);
    let mut rng = Rng(seed | 1);
    let mut raw = Raw::serve(shared_index(), &["--no-telemetry"]);

    let mut sent: BTreeMap<u64, String> = BTreeMap::new();
    let mut parse_errors_expected = 0usize;
    let mut answered = 0usize;
    let mut parse_errors = 0usize;
    let mut next_id = 1u64;
    let mut kinds: BTreeMap<Answer, usize> = BTreeMap::new();
    let mut read = |raw: &mut Raw,
                    sent: &BTreeMap<u64, String>,
                    answered: &mut usize,
                    parse_errors: &mut usize,
                    wait: Duration| {
        while let Some(message) = raw.next_within(wait) {
            if message["id"].is_null() {
                assert_eq!(message["error"]["code"], -32700, "{message}");
                *parse_errors += 1;
            } else {
                *kinds.entry(check_answer(&message, sent)).or_insert(0) += 1;
                *answered += 1;
            }
        }
    };
    for case in 0..cases {
        let id = next_id;
        next_id += 1;
        if rng.below(4) == 0 {
            let (frame, answer_id) = odd_frame(&mut rng, id);
            match answer_id {
                Some(id) => {
                    sent.insert(id, String::from_utf8_lossy(&frame).into_owned());
                }
                None if frame.starts_with(b"{\"jsonrpc\":\"2.0\",\"method\"") => {}
                None => parse_errors_expected += 1,
            }
            raw.send(&frame);
        } else {
            let call = tool_call(&mut rng, id);
            sent.insert(id, call.to_string());
            raw.send_json(&call);
        }
        // Keep a bounded number in flight.
        if case % 50 == 49 {
            read(&mut raw, &sent, &mut answered, &mut parse_errors, Duration::from_millis(1));
        }
    }
    // Everything sent gets its answer.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while answered < sent.len() && std::time::Instant::now() < deadline {
        read(&mut raw, &sent, &mut answered, &mut parse_errors, Duration::from_millis(200));
    }
    read(&mut raw, &sent, &mut answered, &mut parse_errors, Duration::from_millis(500));

    eprintln!(
        "{cases} cases: {} requests with an id, {answered} answered ({kinds:?}); {parse_errors} parse errors",
        sent.len()
    );
    assert_eq!(answered, sent.len(), "every request with an id is answered");
    assert_eq!(parse_errors, parse_errors_expected, "every damaged frame gets one parse error");
    assert!(raw.is_running(), "the server is still running");
}

/// The same fuzzer over HTTP (`serve --http`, one MCP session, one request
/// per POST): every request with an id gets exactly one answer with that
/// id, every damaged body a JSON-RPC error with `id: null` (HTTP 400), and
/// the server is still up at the end. `EVIDENT_FUZZ_HTTP_CASES` runs longer.
#[test]
fn fuzzed_requests_over_http_are_all_answered_and_nothing_leaks() {
    use crate::common::http::{HttpServer, Session, request};
    let cases: usize = std::env::var("EVIDENT_FUZZ_HTTP_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let mut rng = Rng(0x5eed_1863);
    let server = HttpServer::start_binary(
        std::path::Path::new(env!("CARGO_BIN_EXE_evident")),
        shared_index(),
        &["--no-telemetry"],
        &[],
    );
    let mut session = Session::open(server.addr, None);
    let mut sent: BTreeMap<u64, String> = BTreeMap::new();
    let mut kinds: BTreeMap<Answer, usize> = BTreeMap::new();
    let mut refused = 0usize;
    for id in 1..=cases as u64 {
        let (frame, answer_id) = if rng.below(4) == 0 {
            odd_frame(&mut rng, id)
        } else {
            (tool_call(&mut rng, id).to_string().into_bytes(), Some(id))
        };
        let reply = session.post(&frame);
        let messages = reply.messages();
        match answer_id {
            Some(id) => {
                sent.insert(id, String::from_utf8_lossy(&frame).into_owned());
                assert_eq!(messages.len(), 1, "one answer to {}: {messages:?}", sent[&id]);
                assert_eq!(messages[0]["id"], id, "{messages:?}");
                *kinds.entry(check_answer(&messages[0], &sent)).or_insert(0) += 1;
            }
            None if reply.status == 202 => assert!(messages.is_empty()),
            None => {
                assert_eq!(reply.status, 400, "{}", reply.text());
                assert!(messages[0]["id"].is_null(), "{messages:?}");
                assert!([-32700, -32600].contains(&messages[0]["error"]["code"].as_i64().unwrap()), "{messages:?}");
                refused += 1;
            }
        }
    }
    eprintln!("{cases} cases over HTTP: {} answered ({kinds:?}), {refused} refused bodies", sent.len());
    assert_eq!(request(server.addr, "GET", "/healthz", &[], b"").status, 200, "the server is still up");
}
