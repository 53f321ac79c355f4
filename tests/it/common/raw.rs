//! A raw JSON-RPC client of `evident serve` over the child's stdin/stdout:
//! for tests that send what no SDK would (damaged frames, fuzzed calls) or
//! need the server's pid. Every line it reads must be one JSON-RPC message.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use super::{evident, path};

pub struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Raw {
    /// Starts `evident serve --index <index> <args>` and completes the handshake.
    pub fn serve(index: &Path, args: &[&str]) -> Self {
        let mut child = evident()
            .args(["serve", "--index", path(index)])
            .args(args)
            .env_remove("EVIDENT_HIDDEN_TOOLS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut raw = Raw { child, stdin, lines };
        raw.send_json(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}));
        assert_eq!(raw.next()["id"], 0, "the handshake is answered");
        raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        raw
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one frame (a newline is added).
    pub fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub fn send_json(&mut self, message: &Value) {
        self.send(message.to_string().as_bytes());
    }

    /// The next message, within 30 s.
    pub fn next(&mut self) -> Value {
        self.next_within(Duration::from_secs(30)).expect("the server answered within 30 s")
    }

    /// The next message, if one comes within `wait`.
    pub fn next_within(&mut self, wait: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(wait).ok()?;
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        Some(message)
    }

    /// Calls a tool and returns the `result` of its answer.
    pub fn call(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                               "params": {"name": name, "arguments": arguments}}));
        // Notifications may come first; the answer carries the id.
        let answer = std::iter::repeat_with(|| self.next()).find(|m| m.get("id").is_some()).unwrap();
        assert_eq!(answer["id"], id, "{answer}");
        answer["result"].clone()
    }

    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// Closes stdin (the client leaves) and waits for the server to exit.
    pub fn finish(mut self) -> ExitStatus {
        self.stdin.take();
        self.child.wait().unwrap()
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
