//! Every frame a client sends is answered (issue: damaged frames waited for
//! the client's own timeout): invalid JSON, invalid UTF-8, lone surrogates,
//! control characters, non-finite numbers, several messages on one line and
//! excessive nesting get -32700 with `id: null`; malformed `tools/call`
//! params get -32602 with the request's id; the server keeps serving and
//! stdout carries only JSON-RPC.

use crate::common::mcp::shared_index;
use crate::common::raw::Raw;
use serde_json::{Value, json};

fn start() -> Raw {
    Raw::serve(shared_index(), &["--no-telemetry"])
}

#[test]
fn damaged_frames_get_a_parse_error_and_the_server_keeps_serving() {
    let mut raw = start();
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    let frames: Vec<(&str, Vec<u8>)> = vec![
        ("lone surrogate", br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_passages","arguments":{"query":"natural \ud800 selection"}}}"#.to_vec()),
        ("control character", b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"x\":\"a\x01b\"}".to_vec()),
        ("invalid UTF-8", vec![b'{', b'"', 0xff, 0xfe, b'"', b'}']),
        ("NaN", br#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"n":NaN}}"#.to_vec()),
        ("trailing garbage", br#"{"jsonrpc":"2.0","id":4,"method":"ping"} trailing"#.to_vec()),
        ("two messages", br#"{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}"#.to_vec()),
        ("nesting", deep.into_bytes()),
        ("not JSON", b"hello".to_vec()),
    ];
    for (what, frame) in frames {
        raw.send(&frame);
        let answer = raw.next();
        assert_eq!(answer["id"], Value::Null, "{what}: {answer}");
        assert_eq!(answer["error"]["code"], -32700, "{what}: {answer}");
    }
    raw.send(json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string().as_bytes());
    assert_eq!(raw.next()["id"], 9);
}

#[test]
fn malformed_tool_calls_get_invalid_params_with_their_id() {
    let mut raw = start();
    let calls = [
        json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "search_passages", "arguments": "natural selection"}}),
        json!({"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"arguments": {"query": "x"}}}),
        json!({"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": 5}}),
        json!({"jsonrpc": "2.0", "id": 14, "method": "tools/call", "params": [1, 2]}),
    ];
    for call in calls {
        raw.send(call.to_string().as_bytes());
        let answer = raw.next();
        assert_eq!(answer["id"], call["id"], "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{call}: {answer}");
    }
    let good = json!({"jsonrpc": "2.0", "id": 15, "method": "tools/call",
        "params": {"name": "search_passages", "arguments": {"query": "natural selection"}}});
    raw.send(good.to_string().as_bytes());
    let answer = raw.next();
    assert_eq!(answer["id"], 15);
    assert_eq!(answer["result"]["structuredContent"]["request"]["tool"], "search_passages");
}
