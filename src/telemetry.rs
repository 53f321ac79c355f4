//! The query log: one row per tool call (tool, alias used, argument digest,
//! duration, evidence_state, error code, success) in SQLite under the index's
//! `state/` directory. Calls hand rows to a writer thread through a bounded
//! channel and never wait: a full channel or a broken log drops the row, not
//! the call.

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

use crate::error::{Error, IoContext, Result};

/// Rows waiting for the writer before new ones are dropped.
const QUEUE: usize = 1024;

pub(crate) const STATE_DIR: &str = "state";
pub(crate) const LOG_FILE: &str = "query_log.sqlite";

pub(crate) fn default_path(index: &Path) -> PathBuf {
    index.join(STATE_DIR).join(LOG_FILE)
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS query_log (
    id            INTEGER PRIMARY KEY,
    at_ms         INTEGER NOT NULL,
    tool          TEXT NOT NULL,
    alias         TEXT,
    args_digest   TEXT NOT NULL,
    duration_us   INTEGER NOT NULL,
    evidence_state TEXT,
    error_code    TEXT,
    success       INTEGER NOT NULL,
    client        TEXT
)";

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CallRecord {
    pub(crate) tool: String,
    pub(crate) alias: Option<String>,
    pub(crate) args_digest: String,
    pub(crate) duration_us: u64,
    pub(crate) evidence_state: Option<String>,
    pub(crate) error_code: Option<String>,
    /// The bearer token's label of an HTTP call (`None` over stdio or without tokens).
    pub(crate) client: Option<String>,
}

/// A short, stable digest of the arguments (the log keeps no argument text).
pub(crate) fn digest(arguments: Option<&serde_json::Map<String, serde_json::Value>>) -> String {
    let text = arguments.map(|a| serde_json::to_string(a).unwrap_or_default()).unwrap_or_default();
    crate::text::hex(&Sha256::digest(text.as_bytes())[..8])
}

pub(crate) struct Telemetry {
    sender: Option<SyncSender<CallRecord>>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Telemetry {
    /// Starts the writer. `None` (with a log line) when the log cannot be opened.
    pub(crate) fn start(path: &Path) -> Option<Self> {
        let conn = match open(path) {
            Ok(conn) => conn,
            Err(error) => {
                tracing::warn!(%error, "query log disabled");
                return None;
            }
        };
        let (sender, receiver) = sync_channel::<CallRecord>(QUEUE);
        let spawned = std::thread::Builder::new().name("evident-telemetry".into()).spawn(move || {
            for record in receiver {
                if let Err(error) = insert(&conn, &record) {
                    tracing::warn!(%error, "query log write failed");
                }
            }
        });
        match spawned {
            Ok(writer) => Some(Self { sender: Some(sender), writer: Some(writer) }),
            Err(error) => {
                tracing::warn!(%error, "query log disabled");
                None
            }
        }
    }

    /// Queues a row; never blocks.
    pub(crate) fn record(&self, record: CallRecord) {
        if let Some(sender) = &self.sender
            && let Err(TrySendError::Full(_)) = sender.try_send(record)
        {
            tracing::debug!("query log queue full; row dropped");
        }
    }
}

impl Drop for Telemetry {
    /// Writes what is queued before the server exits.
    fn drop(&mut self) {
        self.sender.take();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

fn open(path: &Path) -> Result<Connection> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).at(dir)?;
    }
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(2))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.execute(SCHEMA, [])?;
    if !has_client_column(&conn)? {
        conn.execute("ALTER TABLE query_log ADD COLUMN client TEXT", [])?;
    }
    Ok(conn)
}

/// Logs written before HTTP serving have no `client` column.
fn has_client_column(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row("SELECT COUNT(*) FROM pragma_table_info('query_log') WHERE name = 'client'", [], |r| r.get(0))
}

fn insert(conn: &Connection, r: &CallRecord) -> rusqlite::Result<()> {
    let at_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    conn.execute(
        "INSERT INTO query_log (at_ms, tool, alias, args_digest, duration_us, evidence_state, error_code, success, \
         client) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            at_ms,
            r.tool,
            r.alias,
            r.args_digest,
            i64::try_from(r.duration_us).unwrap_or(i64::MAX),
            r.evidence_state,
            r.error_code,
            r.error_code.is_none(),
            r.client
        ],
    )?;
    Ok(())
}

/// What `evident stats` groups calls by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatsBy {
    Tool,
    /// The bearer token's label (`-` for calls over stdio or without tokens).
    Client,
}

impl StatsBy {
    /// The name of the grouping key in the JSON report and the table.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Client => "client",
        }
    }

    fn column(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Client => "COALESCE(client, '-')",
        }
    }
}

/// One group's figures in `evident stats`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GroupStats {
    /// The tool name or the client label.
    pub(crate) key: String,
    pub(crate) calls: u64,
    pub(crate) errors: u64,
    pub(crate) error_rate: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p95_ms: f64,
    /// Calls made through a deprecated alias.
    pub(crate) via_alias: u64,
}

impl GroupStats {
    /// The JSON form, with the key under the grouping's name (`tool` or `client`).
    pub(crate) fn to_json(&self, by: StatsBy) -> serde_json::Value {
        serde_json::json!({
            by.name(): self.key,
            "calls": self.calls,
            "errors": self.errors,
            "error_rate": self.error_rate,
            "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms,
            "via_alias": self.via_alias,
        })
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Summarises the log per tool or per client, by name.
pub(crate) fn stats(path: &Path, by: StatsBy) -> Result<Vec<GroupStats>> {
    if !path.is_file() {
        return Err(Error::InvalidArgument(format!(
            "no query log at {}; it is written by `evident serve` on the first tool call",
            path.display()
        )));
    }
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    // A log from before HTTP serving (opened read-only, so not migrated): every call was a stdio one.
    let key = if by == StatsBy::Tool || has_client_column(&conn)? { by.column() } else { "'-'" };
    let mut stmt = conn.prepare(&format!(
        "SELECT {key} AS k, duration_us, success, alias IS NOT NULL FROM query_log ORDER BY k, duration_us"
    ))?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, bool>(2)?, r.get::<_, bool>(3)?))
    })?;
    let mut out: Vec<(String, Vec<u64>, u64, u64)> = Vec::new();
    for row in rows {
        let (group, us, success, alias) = row?;
        if out.last().is_none_or(|(g, ..)| *g != group) {
            out.push((group, Vec::new(), 0, 0));
        }
        if let Some((_, durations, errors, aliases)) = out.last_mut() {
            durations.push(u64::try_from(us).unwrap_or(0));
            *errors += u64::from(!success);
            *aliases += u64::from(alias);
        }
    }
    Ok(out
        .into_iter()
        .map(|(key, durations, errors, via_alias)| {
            let calls = durations.len() as u64;
            GroupStats {
                key,
                calls,
                errors,
                error_rate: if calls == 0 { 0.0 } else { errors as f64 / calls as f64 },
                p50_ms: percentile(&durations, 50.0) as f64 / 1000.0,
                p95_ms: percentile(&durations, 95.0) as f64 / 1000.0,
                via_alias,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), 50);
        assert_eq!(percentile(&v, 95.0), 95);
        assert_eq!(percentile(&[7], 95.0), 7);
        assert_eq!(percentile(&[], 50.0), 0);
    }

    #[test]
    fn records_are_written_and_summarised() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join(LOG_FILE);
        let conn = open(&path).unwrap();
        let calls =
            [("a", 1000, None, Some("alice")), ("a", 3000, Some("timeout"), None), ("b", 2000, None, Some("alice"))];
        for (tool, us, error, client) in calls {
            let r = CallRecord {
                tool: tool.into(),
                alias: None,
                args_digest: digest(None),
                duration_us: us,
                evidence_state: None,
                error_code: error.map(str::to_owned),
                client: client.map(str::to_owned),
            };
            insert(&conn, &r).unwrap();
        }
        let s = stats(&path, StatsBy::Tool).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].key.as_str(), s[0].calls, s[0].errors), ("a", 2, 1));
        assert_eq!(s[0].p50_ms, 1.0);
        assert_eq!(s[0].p95_ms, 3.0);
        assert_eq!(s[0].to_json(StatsBy::Tool)["tool"], "a");
        let c = stats(&path, StatsBy::Client).unwrap();
        let summary: Vec<(&str, u64, u64)> = c.iter().map(|g| (g.key.as_str(), g.calls, g.errors)).collect();
        assert_eq!(summary, [("-", 1, 1), ("alice", 2, 0)]);
        assert_eq!(c[1].to_json(StatsBy::Client)["client"], "alice");
    }

    #[test]
    fn a_log_from_before_http_serving_gains_the_client_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOG_FILE);
        let old = Connection::open(&path).unwrap();
        old.execute(&SCHEMA.replace(",\n    client        TEXT", ""), []).unwrap();
        old.execute(
            "INSERT INTO query_log (at_ms, tool, args_digest, duration_us, success) VALUES (0, 't', 'd', 5, 1)",
            [],
        )
        .unwrap();
        drop(old);
        assert_eq!(stats(&path, StatsBy::Client).unwrap()[0].key, "-");
        let conn = open(&path).unwrap();
        let r = CallRecord {
            tool: "t".into(),
            alias: None,
            args_digest: digest(None),
            duration_us: 7,
            evidence_state: None,
            error_code: None,
            client: Some("bob".into()),
        };
        insert(&conn, &r).unwrap();
        let keys: Vec<String> = stats(&path, StatsBy::Client).unwrap().into_iter().map(|g| g.key).collect();
        assert_eq!(keys, ["-", "bob"]);
    }
}
