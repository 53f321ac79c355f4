//! A named pause in the build, so tests can kill a build at a known point.
//! `EVIDENT_FAILPOINT=<name>` makes the build stop there for a minute; it is
//! read only by `index build` and has no other effect.

const VARIABLE: &str = "EVIDENT_FAILPOINT";

pub fn pause(name: &str) {
    if std::env::var(VARIABLE).is_ok_and(|v| v == name) {
        tracing::warn!(failpoint = name, "pausing at failpoint");
        eprintln!("failpoint {name}: paused");
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}
