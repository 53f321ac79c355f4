//! A line gate in front of rmcp's stdio transport, so that every frame a
//! client sends gets an answer. rmcp drops lines that are not JSON (a policy
//! against error storms), which leaves a client whose frame was damaged
//! waiting for its own timeout. Here every line is parsed first:
//!
//! - not UTF-8, not JSON (lone surrogates, raw control characters, `NaN`,
//!   trailing garbage, two messages on one line, nesting deeper than
//!   serde_json's 128 levels), or over `MAX_LINE_BYTES` → `-32700` with
//!   `id: null`, as JSON-RPC 2.0 asks;
//! - a `tools/call` request whose `params` is not an object, whose `name` is
//!   missing or not a string, or whose `arguments` is not an object →
//!   `-32602` with the request's id (rmcp would answer "method not found");
//! - everything else goes to rmcp unchanged.
//!
//! Answers written here and rmcp's own output share one writer task, so
//! lines never interleave on stdout.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Longest frame accepted (rmcp's own limit is 16 MiB; tool arguments are
/// bounded far below this by the parameter limits).
pub(crate) const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_PARAMS: i64 = -32602;

/// What the gate does with one line.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Hand the line to rmcp.
    Forward,
    /// Answer it here with this JSON-RPC error response.
    Answer(Value),
    /// Blank line: nothing to do.
    Skip,
}

fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a message that is not one valid JSON value (also over HTTP).
pub(crate) fn not_json() -> Value {
    error_response(Value::Null, PARSE_ERROR, "parse error: the message is not one valid JSON value")
}

/// Decides what to do with one line (without its newline).
pub(crate) fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    if line.len() > MAX_LINE_BYTES {
        return Verdict::Answer(error_response(Value::Null, PARSE_ERROR, "parse error: the message is too long"));
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return Verdict::Answer(error_response(Value::Null, PARSE_ERROR, "parse error: the message is not UTF-8"));
    };
    let message: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            tracing::debug!(error = %e, "unparsable frame");
            return Verdict::Answer(not_json());
        }
    };
    match tools_call_problem(&message) {
        Some((id, problem)) => Verdict::Answer(error_response(id, INVALID_PARAMS, problem)),
        None => Verdict::Forward,
    }
}

/// A `tools/call` request with malformed params, and what is wrong with them.
fn tools_call_problem(message: &Value) -> Option<(Value, &'static str)> {
    let object = message.as_object()?;
    if object.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let id = object.get("id")?.clone();
    let problem = match object.get("params") {
        None => "invalid params: tools/call needs params with a tool name",
        Some(Value::Object(params)) => match (params.get("name"), params.get("arguments")) {
            (None, _) => "invalid params: tools/call needs `name`",
            (Some(name), _) if !name.is_string() => "invalid params: `name` must be a string",
            (_, Some(arguments)) if !(arguments.is_object() || arguments.is_null()) => {
                "invalid params: `arguments` must be an object"
            }
            _ => return None,
        },
        Some(_) => "invalid params: params must be an object",
    };
    Some((id, problem))
}

/// Wires `input` → gate → rmcp and rmcp → `output`, returning the reader and
/// writer rmcp should serve on. The tasks end when `input` ends and rmcp has
/// closed its side.
pub(crate) fn gate<I, O>(
    input: I,
    output: O,
) -> (tokio::io::DuplexStream, tokio::io::DuplexStream, tokio::task::JoinHandle<()>)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: std::io::Write + Send + 'static,
{
    const PIPE_BYTES: usize = 1 << 20;
    let (mut to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (lines, mut outgoing) = mpsc::channel::<Vec<u8>>(64);

    // The one writer of `output`, on a thread of its own: tokio's stdout hands
    // every write and every flush to the blocking pool, two thread hand-offs
    // per answer on the path of every call.
    let writer = tokio::task::spawn_blocking(move || {
        let mut output = output;
        while let Some(line) = outgoing.blocking_recv() {
            if output.write_all(&line).is_err() || output.flush().is_err() {
                break;
            }
        }
    });

    // rmcp's output, line by line, into the writer.
    let rmcp_lines = lines.clone();
    let pump = tokio::spawn(async move {
        let mut reader = BufReader::new(from_rmcp);
        loop {
            // A fresh buffer per line: the line itself is handed to the writer, not a copy.
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if rmcp_lines.send(line).await.is_err() {
                        break;
                    }
                }
            }
        }
    });

    // Client frames: judged here, answered here or forwarded.
    let reader_task = tokio::spawn(async move {
        let mut reader = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            match read_frame(&mut reader, &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            match judge(body) {
                Verdict::Skip => {}
                Verdict::Forward => {
                    if to_rmcp.write_all(body).await.is_err() || to_rmcp.write_all(b"\n").await.is_err() {
                        break;
                    }
                }
                Verdict::Answer(response) => {
                    let mut framed = response.to_string().into_bytes();
                    framed.push(b'\n');
                    if lines.send(framed).await.is_err() {
                        break;
                    }
                }
            }
        }
        // End of input: rmcp sees end of its input and shuts down.
        let _ = to_rmcp.shutdown().await;
    });

    let done = tokio::spawn(async move {
        let _ = reader_task.await;
        let _ = pump.await;
        let _ = writer.await;
    });
    (rmcp_reads, rmcp_writes, done)
}

/// Reads one line, but keeps at most `MAX_LINE_BYTES + 1` bytes of it in
/// memory (the rest is read and dropped), so an endless line costs no memory.
async fn read_frame<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R, line: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, found) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let keep = (MAX_LINE_BYTES + 1).saturating_sub(line.len()).min(chunk.len());
        line.extend_from_slice(&chunk[..keep]);
        let used = chunk.len();
        total += used;
        reader.consume(used);
        if found {
            return Ok(total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &[u8]) -> Option<(i64, Value)> {
        match judge(line) {
            Verdict::Answer(v) => Some((v["error"]["code"].as_i64().unwrap(), v["id"].clone())),
            _ => None,
        }
    }

    #[test]
    fn damaged_frames_are_parse_errors_with_a_null_id() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let cases: Vec<Vec<u8>> = vec![
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"query":"natural \ud800 selection"}}}"#.to_vec(),
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"a\x01b\"}".to_vec(),
            vec![b'{', 0xff, 0xfe, b'}'],
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":NaN}}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"} garbage"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}"#.to_vec(),
            deep.into_bytes(),
        ];
        for case in cases {
            assert_eq!(code(&case), Some((-32700, Value::Null)), "{}", String::from_utf8_lossy(&case));
        }
    }

    #[test]
    fn malformed_tool_calls_are_invalid_params_with_their_id() {
        for line in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_passages","arguments":"query"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":3}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#,
        ] {
            assert_eq!(code(line.as_bytes()), Some((-32602, json!(7))), "{line}");
        }
    }

    #[test]
    fn good_frames_and_blank_lines_pass() {
        assert_eq!(judge(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Verdict::Forward);
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}"#),
            Verdict::Forward
        );
        assert_eq!(judge(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Verdict::Forward);
        assert_eq!(judge(b"  \r"), Verdict::Skip);
        assert_eq!(judge(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Verdict::Forward);
    }

    #[tokio::test]
    async fn an_endless_line_is_cut_in_memory_and_answered() {
        let mut big = vec![b'a'; MAX_LINE_BYTES * 2];
        big.push(b'\n');
        let mut reader = BufReader::new(&big[..]);
        let mut line = Vec::new();
        let read = read_frame(&mut reader, &mut line).await.unwrap();
        assert_eq!(read, big.len());
        assert_eq!(line.len(), MAX_LINE_BYTES + 1);
        assert_eq!(code(&line), Some((-32700, Value::Null)));
    }
}
