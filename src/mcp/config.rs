//! What a running server is configured with: the index, the response
//! budget, the hidden-tool set, per-tool timeouts and how many searches run
//! at once (environment overrides read once at start-up).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::surface::MAX_RESPONSE_BUDGET;
use crate::surface::registry::{TOOLS, ToolSpec};

/// Comma-separated tool names to hide; an empty value shows every tool.
pub(crate) const HIDDEN_TOOLS_VARIABLE: &str = "EVIDENT_HIDDEN_TOOLS";
/// Prefix of the per-tool timeout overrides, e.g. `EVIDENT_TIMEOUT_SEARCH_PASSAGES=5` (seconds).
pub(crate) const TIMEOUT_VARIABLE_PREFIX: &str = "EVIDENT_TIMEOUT_";
/// How many searching calls run at once (default: one more than the cores, at least two).
pub(crate) const SEARCH_SLOTS_VARIABLE: &str = "EVIDENT_SEARCH_SLOTS";

#[derive(Debug, Clone)]
pub(crate) struct ServeConfig {
    /// Most bytes of any response (calls with default sizes get less: `surface::DEFAULT_RESPONSE_BUDGET`).
    pub(crate) response_budget: usize,
    /// Tools hidden from `tools/list` (still callable).
    pub(crate) hidden: BTreeSet<String>,
    /// Where the query log goes; `None` turns telemetry off.
    pub(crate) telemetry: Option<PathBuf>,
    /// Each tool's time limit: the registry's, or `EVIDENT_TIMEOUT_<TOOL>` read at start-up.
    timeouts: BTreeMap<&'static str, Duration>,
    /// How many searching calls run at once (`mcp::admission`).
    pub(crate) search_slots: usize,
}

impl ServeConfig {
    /// The configuration of a server of the index at `index`: its query log beside it.
    pub(crate) fn new(index: &Path) -> Self {
        Self {
            telemetry: Some(crate::telemetry::default_path(index)),
            response_budget: MAX_RESPONSE_BUDGET,
            hidden: hidden_from_env(std::env::var(HIDDEN_TOOLS_VARIABLE).ok().as_deref()),
            timeouts: TOOLS
                .iter()
                .map(|spec| {
                    let variable = format!("{TIMEOUT_VARIABLE_PREFIX}{}", spec.name.to_uppercase());
                    (spec.name, timeout_from(spec, std::env::var(variable).ok().as_deref()))
                })
                .collect(),
            search_slots: search_slots_from(std::env::var(SEARCH_SLOTS_VARIABLE).ok().as_deref()),
        }
    }

    /// The tool's time limit, as configured at start-up.
    pub(crate) fn timeout(&self, spec: &ToolSpec) -> Duration {
        self.timeouts.get(spec.name).copied().unwrap_or(Duration::from_secs(spec.timeout_secs))
    }

    /// The tools `tools/list` shows, in registry order.
    pub(crate) fn listed(&self) -> impl Iterator<Item = &'static ToolSpec> + '_ {
        TOOLS.iter().filter(|t| !self.hidden.contains(t.name))
    }
}

/// The search slots: a positive count, else one more than the cores (at least two).
fn search_slots_from(value: Option<&str>) -> usize {
    match value.and_then(|v| v.trim().parse::<usize>().ok()) {
        Some(slots) if slots > 0 => slots,
        _ => super::admission::default_slots(),
    }
}

/// The hidden set: the registry's default, unless the variable is set.
pub(crate) fn hidden_from_env(value: Option<&str>) -> BTreeSet<String> {
    match value {
        None => TOOLS.iter().filter(|t| t.hidden).map(|t| t.name.to_owned()).collect(),
        Some(list) => list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect(),
    }
}

/// A tool's timeout: its registry value, or an override in seconds (fractions allowed).
fn timeout_from(spec: &ToolSpec, value: Option<&str>) -> Duration {
    value
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(Duration::from_secs(spec.timeout_secs), Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_take_a_positive_override_and_fall_back_to_the_registry() {
        let spec = &TOOLS[0];
        assert_eq!(timeout_from(spec, None), Duration::from_secs(spec.timeout_secs));
        assert_eq!(timeout_from(spec, Some(" 0.5 ")), Duration::from_millis(500));
        for bad in ["0", "-1", "NaN", "inf", "soon"] {
            assert_eq!(timeout_from(spec, Some(bad)), Duration::from_secs(spec.timeout_secs), "{bad}");
        }
    }

    #[test]
    fn search_slots_take_a_positive_override_and_fall_back_to_the_cores() {
        let default = super::super::admission::default_slots();
        assert_eq!(search_slots_from(Some(" 3 ")), 3);
        for bad in [None, Some(""), Some("0"), Some("-2"), Some("all")] {
            assert_eq!(search_slots_from(bad), default, "{bad:?}");
        }
    }

    #[test]
    fn hidden_set_defaults_to_the_registry_and_empty_shows_all() {
        let default = hidden_from_env(None);
        assert!(default.contains("lane_search"));
        assert!(hidden_from_env(Some("")).is_empty());
        let custom = hidden_from_env(Some(" get_context , trace_source"));
        assert_eq!(custom.into_iter().collect::<Vec<_>>(), vec!["get_context", "trace_source"]);
    }
}
