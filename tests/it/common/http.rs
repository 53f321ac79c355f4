//! `evident serve --http` under test: the server on a loopback port chosen by
//! the OS, a raw HTTP/1.1 client (one connection per request, so every test
//! sees exactly the bytes a client would) and a raw MCP session on top of it.
//! Also used by `benches/http_load.rs` (included by path).
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct HttpServer {
    pub child: Child,
    pub addr: SocketAddr,
    /// Everything the server wrote to stderr so far.
    pub stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    /// Starts `<binary> serve --http 127.0.0.1:0 --index <index> <args>` and waits for its address.
    pub fn start_binary(binary: &Path, index: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(binary);
        command
            .args(["serve", "--http", "127.0.0.1:0", "--index"])
            .arg(index)
            .args(args)
            .env_remove("EVIDENT_FAILPOINT")
            .env_remove("EVIDENT_HIDDEN_TOOLS")
            .env_remove("EVIDENT_TOKENS_FILE")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("spawn evident serve --http");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line.strip_prefix("listening on http://").and_then(|a| a.strip_suffix("/mcp")) {
                    let _ = tx.send(addr.to_owned());
                }
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the server did not report its address: {}", log.lock().unwrap()));
        Self { child, addr: addr.parse().unwrap(), stderr: log }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Sends SIGTERM and waits for the exit (at most `within`).
    pub fn terminate(&mut self, within: Duration) -> ExitStatus {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        self.wait(within)
    }

    pub fn wait(&mut self, within: Duration) -> ExitStatus {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit: {}", self.stderr());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// Header names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// The JSON-RPC messages of the body: one JSON value, or the `data:` of each SSE event.
    pub fn messages(&self) -> Vec<Value> {
        if self.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")) {
            let text = self.text();
            let mut out = Vec::new();
            for event in text.split("\n\n") {
                let data: Vec<&str> =
                    event.lines().filter_map(|l| l.strip_prefix("data:")).map(|d| d.trim_start()).collect();
                let data = data.join("\n");
                if !data.trim().is_empty() {
                    out.push(serde_json::from_str(&data).unwrap_or_else(|e| panic!("bad SSE data ({e}): {data}")));
                }
            }
            out
        } else if self.body.is_empty() {
            Vec::new()
        } else {
            vec![self.json()]
        }
    }
}

/// The request's head, with `Host` and `Connection: close` added.
pub fn head(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body_len: usize) -> String {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if method != "GET" || body_len > 0 {
        head.push_str(&format!("Content-Length: {body_len}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// One request on a fresh connection; reads the whole reply.
pub fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut bytes = head(addr, method, path, headers, body.len()).into_bytes();
    bytes.extend_from_slice(body);
    // A server that answers before reading the whole body may close early; its reply still counts.
    let _ = stream.write_all(&bytes);
    read_reply(&mut stream)
}

/// Reads one reply to its end (`Content-Length`, chunked, or connection close).
pub fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).expect("status line");
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("header line");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let find = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if find("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).expect("chunk size");
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).expect("hex size");
            if size == 0 {
                break;
            }
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).expect("chunk");
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(len) = find("content-length").and_then(|l| l.parse::<usize>().ok()) {
        body.resize(len, 0);
        reader.read_exact(&mut body).expect("body");
    } else {
        let _ = reader.read_to_end(&mut body);
    }
    Reply { status, headers, body }
}

/// The headers every MCP POST carries.
pub fn mcp_headers(token: Option<&str>, session: Option<&str>) -> Vec<(String, String)> {
    let mut headers = vec![
        ("Content-Type".to_owned(), "application/json".to_owned()),
        ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
    ];
    if let Some(token) = token {
        headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
    }
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id".to_owned(), session.to_owned()));
    }
    headers
}

/// `mcp_headers` borrowed, as `request` takes them.
pub fn borrowed(headers: &[(String, String)]) -> Vec<(&str, &str)> {
    headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect()
}

/// An MCP session over raw HTTP (protocol 2025-06-18, which has sessions).
pub struct Session {
    pub addr: SocketAddr,
    pub token: Option<String>,
    pub id: String,
}

impl Session {
    pub fn open(addr: SocketAddr, token: Option<&str>) -> Self {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw-http", "version": "0"}}});
        let headers = mcp_headers(token, None);
        let reply = request(addr, "POST", "/mcp", &borrowed(&headers), init.to_string().as_bytes());
        assert_eq!(reply.status, 200, "initialize: {}", reply.text());
        let id = reply.header("mcp-session-id").expect("a session id").to_owned();
        let mut session = Self { addr, token: token.map(str::to_owned), id };
        let initialized = session.post(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(initialized.status, 202, "initialized: {}", initialized.text());
        session
    }

    pub fn post(&mut self, body: &[u8]) -> Reply {
        let headers = mcp_headers(self.token.as_deref(), Some(&self.id));
        request(self.addr, "POST", "/mcp", &borrowed(&headers), body)
    }

    /// A tools/call and its one answer.
    pub fn call(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
        let reply = self.post(call.to_string().as_bytes());
        assert_eq!(reply.status, 200, "{name}: {}", reply.text());
        let mut messages = reply.messages();
        assert_eq!(messages.len(), 1, "one answer: {messages:?}");
        messages.remove(0)
    }
}
