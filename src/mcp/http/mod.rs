//! MCP over streamable HTTP (`evident serve --http ADDR`): the same
//! `EvidentServer` as stdio — registry, contract, envelope, errors, budgets,
//! timeouts, search admission and query log — behind a gate (`gate`) that
//! checks Host and Origin, bearer tokens (`tokens`), per-token and server
//! admission, body size and deadlines. hyper serves HTTP/1.1 with a header
//! deadline (a slow client cannot hold a connection open: slowloris) and
//! rmcp's streamable HTTP service speaks MCP: sessions for the revisions
//! that have them, the POST-only form of 2026-07-28. SIGTERM or Ctrl-C
//! drains: no new requests, calls in flight finish (up to a deadline), then
//! the process exits 0.

mod gate;
mod health;
mod owners;
mod refusal;
mod slots;
mod tokens;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio_util::sync::CancellationToken;

pub(crate) use gate::{host_name, normalise_origin};
pub(crate) use tokens::{TOKENS_FILE_VARIABLE, Tokens, new_token};

use super::server::EvidentServer;
use gate::{Gate, MCP_PATH};

/// The largest request body accepted (413 beyond): a tool call's arguments
/// are bounded far below this by the parameter limits.
pub(crate) const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Connections open at once; more are closed on accept.
pub(crate) const MAX_CONNECTIONS: usize = 1024;

/// How `serve --http` is bounded; the CLI fills it, tests shorten the deadlines.
#[derive(Debug, Clone)]
pub(crate) struct HttpOptions {
    pub(crate) addr: SocketAddr,
    /// Host names (lower case, no port) a request's `Host` may carry.
    pub(crate) allow_hosts: Vec<String>,
    /// Origins (`scheme://host[:port]`, lower case) a browser request may come from.
    pub(crate) allow_origins: Vec<String>,
    pub(crate) max_body_bytes: usize,
    /// Calls in flight at once for one token (429 beyond).
    pub(crate) per_token_concurrency: usize,
    /// Calls in flight at once in all (beyond: wait up to `queue_wait`, then 429).
    pub(crate) concurrency: usize,
    pub(crate) queue_wait: Duration,
    /// A request's head must arrive within this; also how long an idle
    /// keep-alive connection stays open.
    pub(crate) header_timeout: Duration,
    /// A request's body must arrive within this after its head.
    pub(crate) body_timeout: Duration,
    /// An MCP session with no request for this long is closed.
    pub(crate) session_idle: Duration,
    /// How long shutdown waits for calls in flight.
    pub(crate) drain_timeout: Duration,
}

impl HttpOptions {
    /// Defaults for `addr`: loopback names allowed when it is a loopback address.
    pub(crate) fn new(addr: SocketAddr) -> Self {
        let mut allow_hosts = vec![addr.ip().to_string()];
        if addr.ip().is_loopback() {
            allow_hosts.extend(["localhost", "127.0.0.1", "::1"].map(str::to_owned));
        }
        allow_hosts.sort();
        allow_hosts.dedup();
        Self {
            addr,
            allow_hosts,
            allow_origins: Vec::new(),
            max_body_bytes: MAX_BODY_BYTES,
            per_token_concurrency: 8,
            concurrency: 64,
            queue_wait: Duration::from_secs(10),
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            session_idle: Duration::from_secs(30 * 60),
            drain_timeout: Duration::from_secs(30),
        }
    }
}

/// Whether serving `ip` without tokens is refused: anything but loopback.
pub(crate) fn needs_tokens(ip: IpAddr) -> bool {
    !ip.is_loopback()
}

fn rmcp_config(options: &HttpOptions, cancel: CancellationToken) -> StreamableHttpServerConfig {
    // The gate checks Host and Origin first; rmcp's own checks get the same lists.
    StreamableHttpServerConfig::default()
        .with_allowed_hosts(options.allow_hosts.clone())
        .with_allowed_origins(options.allow_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_json_response(true)
        .with_cancellation_token(cancel)
}

/// Binds `options.addr` and serves until SIGTERM or Ctrl-C. Writes the bound
/// address to stderr (`listening on http://ADDR/mcp`) once it accepts.
pub(crate) async fn serve_http(
    server: EvidentServer,
    options: HttpOptions,
    tokens: Option<Tokens>,
) -> Result<(), String> {
    let listener = TcpListener::bind(options.addr).await.map_err(|e| format!("cannot bind {}: {e}", options.addr))?;
    let bound = listener.local_addr().map_err(|e| format!("cannot read the bound address: {e}"))?;
    let cancel = CancellationToken::new();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_idle);
    let factory_server = server.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(factory_server.clone()),
        Arc::new(sessions),
        rmcp_config(&options, cancel.clone()),
    );
    let header_timeout = options.header_timeout;
    let drain_timeout = options.drain_timeout;
    let gate = Arc::new(Gate::new(options, tokens, server, mcp));
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let (closing, closed) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    tracing::info!(address = %bound, "serving MCP over HTTP");
    eprintln!("listening on http://{bound}{MCP_PATH}");
    let mut stop = std::pin::pin!(shutdown_signal());
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        while tasks.try_join_next().is_some() {}
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(error) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&connections).try_acquire_owned() else {
            tracing::warn!(%peer, "connection refused: {MAX_CONNECTIONS} open");
            continue;
        };
        let gate = Arc::clone(&gate);
        let mut closed = closed.clone();
        tasks.spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |request| {
                let gate = Arc::clone(&gate);
                async move { Ok::<_, std::convert::Infallible>(gate.handle(request).await) }
            });
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%peer, %error, "connection ended");
                    }
                }
                _ = closed.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    drain(&gate, drain_timeout, &cancel, &closing, &mut tasks).await;
    Ok(())
}

/// Stops taking requests, lets calls in flight finish within the deadline,
/// then ends the sessions (and their event streams) and the connections.
async fn drain(
    gate: &Gate,
    deadline: Duration,
    cancel: &CancellationToken,
    closing: &watch::Sender<bool>,
    tasks: &mut tokio::task::JoinSet<()>,
) {
    gate.start_draining();
    let flights = gate.flights();
    tracing::info!(in_flight = flights.in_flight(), "draining: no new requests; waiting for calls in flight");
    let _ = closing.send(true);
    if tokio::time::timeout(deadline, flights.all_landed()).await.is_err() {
        tracing::warn!(in_flight = flights.in_flight(), "drain deadline passed; closing with calls in flight");
    }
    cancel.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(2), async { while tasks.join_next().await.is_some() {} }).await;
    tasks.abort_all();
    tracing::info!("drained");
}

async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = terminate => tracing::info!("SIGTERM"),
        _ = tokio::signal::ctrl_c() => tracing::info!("interrupted"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_serves_its_names_and_other_addresses_need_tokens() {
        let options = HttpOptions::new("127.0.0.1:8731".parse().unwrap());
        assert_eq!(options.allow_hosts, ["127.0.0.1", "::1", "localhost"]);
        let options = HttpOptions::new("10.1.2.3:80".parse().unwrap());
        assert_eq!(options.allow_hosts, ["10.1.2.3"]);
        assert!(!needs_tokens("127.0.0.1".parse().unwrap()));
        assert!(!needs_tokens("::1".parse().unwrap()));
        assert!(needs_tokens("0.0.0.0".parse().unwrap()));
        assert!(needs_tokens("192.168.1.5".parse().unwrap()));
    }
}
