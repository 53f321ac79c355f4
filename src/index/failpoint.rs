//! Named failure points, so tests can break a build or a tool call at a known
//! place. `EVIDENT_FAILPOINT=<name>` makes the build pause there for a minute
//! (so it can be killed), or `EVIDENT_FAILPOINT=panic:<tool>` makes that
//! tool's handler panic. Unset, it has no effect.

const VARIABLE: &str = "EVIDENT_FAILPOINT";

pub fn pause(name: &str) {
    if std::env::var(VARIABLE).is_ok_and(|v| v == name) {
        tracing::warn!(failpoint = name, "pausing at failpoint");
        eprintln!("failpoint {name}: paused");
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

/// Panics when the failpoint names `panic:<tool>`.
pub fn panic_in(tool: &str) {
    if std::env::var(VARIABLE).is_ok_and(|v| v.strip_prefix("panic:") == Some(tool)) {
        panic!("failpoint panic:{tool}");
    }
}
