//! Validated arguments as handlers read them. Validation (`params`) has
//! already checked types, ranges and required keys and filled defaults.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Args(pub Map<String, Value>);

impl Args {
    pub fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    /// A required text parameter (empty only if the registry and handler disagree).
    pub fn required(&self, name: &str) -> &str {
        self.text(name).unwrap_or_default()
    }

    pub fn integer(&self, name: &str, fallback: i64) -> i64 {
        self.0.get(name).and_then(Value::as_i64).unwrap_or(fallback)
    }

    pub fn count(&self, name: &str, fallback: usize) -> usize {
        usize::try_from(self.integer(name, fallback as i64)).unwrap_or(fallback)
    }

    pub fn flag(&self, name: &str) -> bool {
        self.0.get(name).and_then(Value::as_bool).unwrap_or(false)
    }

    pub fn list(&self, name: &str) -> Vec<String> {
        self.0
            .get(name)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// A language filter: `None` for absent or "any".
    pub fn language(&self, name: &str) -> Option<String> {
        self.text(name).map(str::trim).filter(|l| !l.eq_ignore_ascii_case("any")).map(str::to_lowercase)
    }

    /// The arguments as understood, without the paging cursor.
    pub fn understood(&self) -> Map<String, Value> {
        let mut map = self.0.clone();
        map.remove("cursor");
        map
    }
}
