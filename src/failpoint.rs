//! Named failure points, so tests can break a build or a tool call at a known
//! place. `EVIDENT_FAILPOINT=<name>` makes the build pause there for a minute
//! (so it can be killed); `EVIDENT_FAILPOINT=panic:<tool>` makes that tool's
//! handler panic and `slow:<tool>` makes it take two seconds longer;
//! `vector-lane-load` holds a reader's vector lane loading for ten seconds;
//! `pdf-hang` and `pdf-balloon` make the PDF extractor loop or allocate without
//! end (its bounds must stop it). Unset, it has no effect.

const VARIABLE: &str = "EVIDENT_FAILPOINT";

pub(crate) fn pause(name: &str) {
    pause_for(name, std::time::Duration::from_secs(60));
}

/// `pause` for a given time.
pub(crate) fn pause_for(name: &str, hold: std::time::Duration) {
    if std::env::var(VARIABLE).is_ok_and(|v| v == name) {
        tracing::warn!(failpoint = name, "pausing at failpoint");
        eprintln!("failpoint {name}: paused");
        std::thread::sleep(hold);
    }
}

/// Panics when the failpoint names `panic:<tool>`; sleeps when it names `slow:<tool>`.
pub(crate) fn in_tool(tool: &str) {
    let Ok(value) = std::env::var(VARIABLE) else { return };
    if value.strip_prefix("panic:") == Some(tool) {
        panic!("failpoint panic:{tool}");
    }
    if value.strip_prefix("slow:") == Some(tool) {
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
}

/// The PDF extractor's child process: hang, or allocate until its memory bound stops it.
pub(crate) fn in_pdf_extract() {
    match std::env::var(VARIABLE).as_deref() {
        Ok("pdf-hang") => std::thread::sleep(std::time::Duration::from_secs(3600)),
        Ok("pdf-balloon") => {
            let mut held: Vec<Vec<u8>> = Vec::new();
            loop {
                held.push(vec![1u8; 64 << 20]);
            }
        }
        _ => {}
    }
}
