//! Reading a PDF in a child process with a time and a memory bound. A PDF
//! parser meets hostile and broken files; one that loops, recurses without end
//! or allocates without bound must cost one skipped file, never the build. The
//! child is `evident` itself (a hidden subcommand), so nothing else is installed.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Extracted, ReadFailure};

/// The hidden subcommand the child runs.
pub(crate) const SUBCOMMAND: &str = "extract-pdf";

/// How long and how much memory one PDF may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) time: Duration,
    pub(crate) memory_bytes: u64,
}

/// Reads `path` under `bounds`: in a child `evident` where this process is one,
/// else (a library user, a test binary) in this process without the bounds.
pub(crate) fn read_bounded(path: &Path, bounds: Bounds) -> Result<Extracted, ReadFailure> {
    match evident_executable() {
        Some(exe) => read_in_child(&exe, path, bounds),
        None => super::read_file(path),
    }
}

fn evident_executable() -> Option<PathBuf> {
    if let Some(exe) = std::env::var_os("EVIDENT_EXTRACTOR") {
        return Some(PathBuf::from(exe));
    }
    let exe = std::env::current_exe().ok()?;
    (exe.file_stem()? == "evident").then_some(exe)
}

fn read_in_child(exe: &Path, path: &Path, bounds: Bounds) -> Result<Extracted, ReadFailure> {
    let mut command = Command::new(exe);
    command.arg(SUBCOMMAND).arg("--memory-bytes").arg(bounds.memory_bytes.to_string()).arg(path);
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child =
        command.spawn().map_err(|e| ReadFailure::Unreadable(format!("could not start the extractor: {e}")))?;
    let Some(mut stdout) = child.stdout.take() else {
        return Err(ReadFailure::Unreadable("the extractor has no output pipe".into()));
    };
    // The pipe is drained beside the wait, so a large answer cannot block the child.
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let deadline = Instant::now() + bounds.time;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ReadFailure::TimedOut(bounds.time.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(ReadFailure::Unreadable(format!("lost the extractor: {e}"))),
        }
    };
    let out = reader.join().ok().and_then(Result::ok).unwrap_or_default();
    if !status.success() {
        // Out of memory under the limit ends in an abort; any signal means the child died.
        return Err(ReadFailure::Crashed(bounds.memory_bytes >> 20));
    }
    let answer: Result<Extracted, ReadFailure> = serde_json::from_slice(&out)
        .map_err(|e| ReadFailure::Unreadable(format!("the extractor's answer did not parse: {e}")))?;
    answer
}

/// Caps this process's address space (the child does it to itself before reading).
#[cfg(target_os = "linux")]
fn limit_memory(bytes: u64) -> std::io::Result<()> {
    let limit = rustix::process::Rlimit { current: Some(bytes), maximum: Some(bytes) };
    rustix::process::setrlimit(rustix::process::Resource::As, limit).map_err(std::io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn limit_memory(_bytes: u64) -> std::io::Result<()> {
    Ok(())
}

/// The child's side: bound its own memory, read the PDF and print the outcome as JSON on stdout.
pub(crate) fn run_child(path: &Path, memory_bytes: Option<u64>) -> std::io::Result<()> {
    if let Some(bytes) = memory_bytes {
        limit_memory(bytes)?;
    }
    crate::failpoint::in_pdf_extract();
    let answer: Result<Extracted, ReadFailure> = super::read_file(path);
    let json = serde_json::to_vec(&answer).map_err(std::io::Error::other)?;
    std::io::Write::write_all(&mut std::io::stdout().lock(), &json)
}
