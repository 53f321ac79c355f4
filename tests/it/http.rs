//! `evident serve --http` as clients reach it: every refusal with its exact
//! status, headers and body, the frame gate over HTTP, the header deadline
//! (slowloris), admission per token, the drain on SIGTERM with a call in
//! flight, the query log's client labels and `evident stats --by client`.
//! Every address is on the loopback interface.

use crate::common::http::{HttpServer, Reply, Session, borrowed, head, mcp_headers, read_reply, request};
use crate::common::mcp::{index_copy, shared_index};
use crate::common::{path, run};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn server(index: &Path, args: &[&str]) -> HttpServer {
    HttpServer::start_binary(Path::new(env!("CARGO_BIN_EXE_evident")), index, args, &[])
}

/// `evident token new LABEL --tokens FILE`: the token printed, its hash appended.
pub fn new_token(file: &Path, label: &str) -> String {
    let out = run(&["token", "new", label, "--tokens", path(file)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let token = out.stdout.trim().to_owned();
    assert!(token.starts_with("evd_") && token.len() == 68, "{token}");
    assert!(!std::fs::read_to_string(file).unwrap().contains(&token), "the file keeps the hash, not the token");
    token
}

fn tokens_file(dir: &Path, labels: &[&str]) -> (PathBuf, Vec<String>) {
    let file = dir.join("tokens");
    let tokens = labels.iter().map(|l| new_token(&file, l)).collect();
    (file, tokens)
}

fn post(addr: std::net::SocketAddr, token: Option<&str>, extra: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut headers = mcp_headers(token, None);
    headers.extend(extra.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())));
    request(addr, "POST", "/mcp", &borrowed(&headers), body)
}

fn refusal(reply: &Reply, status: u16, code: &str, message: &str) {
    assert_eq!(reply.status, status, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.json(), json!({"error": code, "message": message}));
}

const PING: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

#[test]
fn every_refusal_has_its_status_headers_and_body() {
    let tmp = tempfile::tempdir().unwrap();
    let (file, tokens) = tokens_file(tmp.path(), &["alice"]);
    let s = server(
        shared_index(),
        &["--no-telemetry", "--tokens", path(&file), "--allow-origin", "https://app.example.org"],
    );
    let alice = tokens[0].as_str();
    let mut session = Session::open(s.addr, Some(alice));
    assert_eq!(session.post(PING).messages(), [json!({"jsonrpc": "2.0", "id": 1, "result": {}})]);

    let r = post(s.addr, None, &[], PING);
    refusal(&r, 401, "missing_token", "this server needs a bearer token: send `Authorization: Bearer <token>`");
    assert_eq!(r.header("www-authenticate"), Some("Bearer realm=\"evident\""));
    let r = post(s.addr, Some("evd_not-a-token"), &[], PING);
    refusal(&r, 401, "invalid_token", "the bearer token is not valid here; ask the server's operator for one");
    assert_eq!(r.header("www-authenticate"), Some("Bearer realm=\"evident\", error=\"invalid_token\""));
    let basic = request(
        s.addr,
        "POST",
        "/mcp",
        &[("Content-Type", "application/json"), ("Authorization", "Basic YWxpY2U6eA==")],
        PING,
    );
    assert_eq!(basic.status, 401, "only bearer tokens count");

    let r = post(s.addr, Some(alice), &[("Origin", "https://evil.example")], PING);
    refusal(
        &r,
        403,
        "origin_not_allowed",
        "requests from this Origin are refused; the operator can allow it with --allow-origin",
    );
    assert_eq!(r.header("access-control-allow-origin"), None, "no CORS for a refused origin");
    let r = post(s.addr, None, &[("Origin", "https://evil.example")], PING);
    assert_eq!(r.status, 403, "the origin is checked before the token");
    // The allowed origin gets CORS headers, and its preflight needs no token.
    let r = request(s.addr, "OPTIONS", "/mcp", &[("Origin", "https://app.example.org")], b"");
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-origin"), Some("https://app.example.org"));
    let r = post(s.addr, Some(alice), &[("Origin", "https://app.example.org")], PING);
    assert_eq!(r.header("access-control-allow-origin"), Some("https://app.example.org"));

    // DNS rebinding: a Host that names no address of this server.
    let mut stream = TcpStream::connect(s.addr).unwrap();
    let forged = head(s.addr, "POST", "/mcp", &[("Content-Type", "application/json")], PING.len())
        .replace(&format!("Host: {}", s.addr), "Host: rebind.example:8731");
    stream.write_all(forged.as_bytes()).unwrap();
    stream.write_all(PING).unwrap();
    let r = read_reply(&mut stream);
    refusal(
        &r,
        403,
        "host_not_allowed",
        "the Host header names no address this server serves; the operator can add it with --allow-host",
    );

    // A body over the published limit (1 MiB) is refused on its declared length, before it is read.
    let mut stream = TcpStream::connect(s.addr).unwrap();
    let headers = mcp_headers(Some(alice), None);
    stream.write_all(head(s.addr, "POST", "/mcp", &borrowed(&headers), 1024 * 1024 + 1).as_bytes()).unwrap();
    let r = read_reply(&mut stream);
    refusal(&r, 413, "body_too_large", "the request body is over 1048576 bytes; send a smaller request");
    // One just under it is read (and answered as the JSON it is not).
    let mut padded = PING.to_vec();
    padded.resize(1024 * 1024, b' ');
    assert_eq!(session.post(&padded).status, 200);

    // A chunked body whose framing is broken.
    let mut stream = TcpStream::connect(s.addr).unwrap();
    let chunked = head(s.addr, "POST", "/mcp", &borrowed(&headers), 0)
        .replace("Content-Length: 0\r\n", "Transfer-Encoding: chunked\r\n");
    stream.write_all(chunked.as_bytes()).unwrap();
    stream.write_all(b"zz\r\n{}\r\n").unwrap();
    let r = read_reply(&mut stream);
    refusal(&r, 400, "body_incomplete", "the request body broke off or its chunked encoding is malformed; resend it");

    // Not JSON: a JSON-RPC parse error, as over stdio.
    let r = post(s.addr, Some(alice), &[], b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error: the message is not one valid JSON value"}})
    );
    let r = post(s.addr, Some(alice), &[], br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!((r.status, r.json()["error"]["code"].as_i64()), (400, Some(-32600)), "a batch is no MCP message");

    // A session answers only the token that opened it.
    let bob = new_token(&file, "bob");
    let mut hijack = Session { addr: s.addr, token: Some(bob.clone()), id: session.id.clone() };
    refusal(&hijack.post(PING), 404, "session_not_found", "no such session for this token; initialize a new one");
    assert_eq!(Session::open(s.addr, Some(&bob)).post(PING).status, 200, "bob opens his own (the file was re-read)");

    let r = request(s.addr, "GET", "/elsewhere", &[], b"");
    refusal(&r, 404, "not_found", "no such endpoint: MCP is served at /mcp, health at /healthz");

    // Health needs no token and names no corpus data.
    let r = request(s.addr, "GET", "/healthz", &[], b"");
    assert_eq!(r.status, 200);
    let health = r.json();
    assert_eq!(health["status"], "up");
    assert!(health["generation"].as_str().unwrap().starts_with("gen-"));
    assert!(["ready", "loading", "disabled"].contains(&health["vector_lane"].as_str().unwrap()), "{health}");
    assert_eq!(health.as_object().unwrap().len(), 4, "{health}");
}

#[test]
fn a_non_loopback_address_without_tokens_is_refused_at_start() {
    let out = run(&["serve", "--http", "0.0.0.0:0", "--index", path(shared_index()), "--no-telemetry"]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("0.0.0.0:0 is not a loopback address, and serving it without bearer tokens would let anyone who can reach it read the corpus: pass --tokens FILE"),
        "{}",
        out.stderr
    );
    let out =
        run(&["serve", "--http", "127.0.0.1:0", "--index", path(shared_index()), "--allow-origin", "app.example.org"]);
    assert!(
        out.stderr.contains("--allow-origin `app.example.org` is not an origin: write scheme://host[:port]"),
        "{}",
        out.stderr
    );
    let tmp = tempfile::tempdir().unwrap();
    let broken = tmp.path().join("tokens");
    std::fs::write(&broken, "abc alice\n").unwrap();
    let out = run(&["serve", "--http", "127.0.0.1:0", "--index", path(shared_index()), "--tokens", path(&broken)]);
    assert!(out.stderr.contains("line 1: expected `<64 hex digits> <label>`"), "{}", out.stderr);
}

#[test]
fn a_client_over_its_share_gets_429_and_a_slow_one_cannot_hold_a_connection() {
    let tmp = tempfile::tempdir().unwrap();
    let (file, tokens) = tokens_file(tmp.path(), &["alice", "bob"]);
    let s = server(
        shared_index(),
        &[
            "--no-telemetry",
            "--tokens",
            path(&file),
            "--per-token-concurrency",
            "1",
            "--header-timeout",
            "1",
            "--body-timeout",
            "5",
        ],
    );
    let (alice, bob) = (tokens[0].as_str(), tokens[1].as_str());
    let (mut alice_session, mut bob_session) = (Session::open(s.addr, Some(alice)), Session::open(s.addr, Some(bob)));
    // Alice's first call is admitted and then sends its body slowly: it holds her one slot
    // from its admission until the body deadline. The server may read the head late on a
    // loaded machine (CI once took over 1 s), so the polling runs as long as the body
    // deadline: whenever the head is admitted within it, a poll falls inside the held window.
    // A head read later than the 1 s header deadline is cut, and then holds nothing (CI, loaded,
    // once polled 5 s of 200s): the slow call is sent again, at most three times.
    let headers = mcp_headers(Some(alice), None);
    let (mut slow, busy) = (1..=3)
        .map(|_| {
            let mut slow = TcpStream::connect(s.addr).unwrap();
            slow.write_all(head(s.addr, "POST", "/mcp", &borrowed(&headers), PING.len()).as_bytes()).unwrap();
            slow.write_all(&PING[..5]).unwrap();
            let deadline = Instant::now() + Duration::from_secs(5);
            let busy = loop {
                let r = alice_session.post(PING);
                if r.status == 429 || Instant::now() > deadline {
                    break r;
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            (slow, busy)
        })
        .find(|(_, busy)| busy.status == 429)
        .expect("Alice's slow call never held her slot in three tries");
    refusal(&busy, 429, "token_busy", "this token has its share of calls in flight; retry in 1 s");
    assert_eq!(busy.header("retry-after"), Some("1"));
    // Bob has his own share.
    assert_eq!(bob_session.post(PING).status, 200);
    // The slow body runs out of time (408), which frees Alice's slot.
    let r = read_reply(&mut slow);
    refusal(&r, 408, "body_timeout", "the request body did not arrive in time; resend it");
    assert_eq!(alice_session.post(PING).status, 200);

    // Slowloris: a head that never ends is cut at the header deadline; others are served meanwhile.
    let started = Instant::now();
    let mut loris = TcpStream::connect(s.addr).unwrap();
    loris.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").unwrap();
    assert_eq!(request(s.addr, "GET", "/healthz", &[], b"").status, 200);
    loris.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut rest = Vec::new();
    let _ = loris.read_to_end(&mut rest);
    let held = started.elapsed();
    assert!(held < Duration::from_secs(5), "the connection was held {held:?}");
    // An idle keep-alive connection is closed after the same deadline.
    let mut idle = TcpStream::connect(s.addr).unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let started = Instant::now();
    let mut nothing = Vec::new();
    let _ = idle.read_to_end(&mut nothing);
    assert!(started.elapsed() < Duration::from_secs(5) && nothing.is_empty());
}

#[test]
fn sigterm_drains_the_call_in_flight_then_exits_0_and_the_log_has_the_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let index = index_copy(tmp.path());
    let (file, tokens) = tokens_file(tmp.path(), &["alice", "bob"]);
    let mut s = server(&index, &["--tokens", path(&file), "--drain-timeout", "20", "--per-token-concurrency", "1"]);
    let mut alice = Session::open(s.addr, Some(&tokens[0]));
    let mut bob = Session::open(s.addr, Some(&tokens[1]));
    let answer = alice.call(1, "search_passages", json!({"query": "natural selection", "retrieval_mode": "lexical"}));
    assert_eq!(answer["result"]["structuredContent"]["request"]["tool"], "search_passages");
    bob.call(1, "get_passage", json!({"passage_id": "nope"}));

    // A call whose body is still arriving when SIGTERM comes.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "search_passages", "arguments": {"query": "struggle for existence", "retrieval_mode": "lexical"}}})
    .to_string();
    let mut in_flight = TcpStream::connect(s.addr).unwrap();
    let headers = mcp_headers(Some(&tokens[0]), Some(&alice.id));
    in_flight.write_all(head(s.addr, "POST", "/mcp", &borrowed(&headers), call.len()).as_bytes()).unwrap();
    in_flight.write_all(&call.as_bytes()[..10]).unwrap();
    // SIGTERM only once the call is admitted (a loaded machine may read its head late, and a
    // head read after SIGTERM is refused, 503): Alice's one slot is then held, so a ping of hers
    // is refused 429. Pings are no tool calls, so the query log does not count them.
    let deadline = Instant::now() + Duration::from_secs(20);
    while alice.post(PING).status != 429 {
        assert!(Instant::now() < deadline, "the call in flight was never admitted");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = std::process::Command::new("kill").args(["-TERM", &s.child.id().to_string()]).status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(s.addr).is_ok() {
        assert!(Instant::now() < deadline, "the server still accepts connections after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(s.child.try_wait().unwrap().is_none(), "the server waits for the call in flight");
    in_flight.write_all(&call.as_bytes()[10..]).unwrap();
    let reply = read_reply(&mut in_flight);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.messages()[0]["result"]["structuredContent"]["request"]["tool"], "search_passages");
    let status = s.wait(Duration::from_secs(20));
    assert_eq!(status.code(), Some(0), "{}", s.stderr());

    let out = run(&["stats", "--index", path(&index), "--by", "client", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rows: Value = serde_json::from_str(&out.stdout).unwrap();
    let summary: Vec<(String, u64, u64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["client"].as_str().unwrap().to_owned(), r["calls"].as_u64().unwrap(), r["errors"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(summary, [("alice".to_owned(), 2, 0), ("bob".to_owned(), 1, 1)]);
    let log = std::fs::read(index.join("state/query_log.sqlite")).unwrap();
    for token in &tokens {
        assert!(!log.windows(token.len()).any(|w| w == token.as_bytes()), "the log holds no token");
    }
}
