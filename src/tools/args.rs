//! Validated arguments as handlers read them. Validation (`params`) has
//! already checked types, ranges and required keys and filled defaults.

use serde_json::{Map, Value};

use crate::surface::{ErrorCode, ToolError};

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Args(pub Map<String, Value>);

impl Args {
    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    /// A parameter validation guarantees (required, or optional with a
    /// default); its absence means the registry and the handler disagree,
    /// which is a server fault, never the caller's.
    fn present(&self, name: &str) -> Result<&Value, ToolError> {
        self.0.get(name).ok_or_else(|| {
            tracing::error!(parameter = name, "a handler read a parameter that validation does not fill");
            ToolError::new(ErrorCode::InternalError, "the call failed inside the server; see the server log")
        })
    }

    /// A required text parameter, or a text parameter with a default.
    pub(crate) fn required(&self, name: &str) -> Result<&str, ToolError> {
        self.present(name)?.as_str().ok_or_else(|| mistyped(name))
    }

    /// A count (an integer parameter whose range starts at 0 or above), as validated.
    pub(crate) fn count(&self, name: &str) -> Result<usize, ToolError> {
        let value = self.present(name)?.as_i64().ok_or_else(|| mistyped(name))?;
        usize::try_from(value).map_err(|_| mistyped(name))
    }

    /// A choice parameter as its enum (`RetrievalMode`, `Lane`, `Detail`);
    /// `None` when the tool has no such parameter or it was not given.
    pub(crate) fn choice_opt<T: std::str::FromStr<Err = String>>(&self, name: &str) -> Result<Option<T>, ToolError> {
        self.text(name)
            .map(|v| v.parse().map_err(|e: String| ToolError::new(ErrorCode::InvalidArgument, e)))
            .transpose()
    }

    /// A choice parameter that validation fills (required or with a default), as its enum.
    pub(crate) fn choice<T: std::str::FromStr<Err = String>>(&self, name: &str) -> Result<T, ToolError> {
        self.required(name)?;
        self.choice_opt(name)?.ok_or_else(|| mistyped(name))
    }

    /// A boolean parameter with a default.
    pub(crate) fn flag(&self, name: &str) -> Result<bool, ToolError> {
        self.present(name)?.as_bool().ok_or_else(|| mistyped(name))
    }

    pub(crate) fn list(&self, name: &str) -> Vec<String> {
        self.0
            .get(name)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    }

    /// A language filter: `None` for absent or "any".
    pub(crate) fn language(&self, name: &str) -> Option<String> {
        self.text(name).map(str::trim).filter(|l| !l.eq_ignore_ascii_case("any")).map(str::to_lowercase)
    }

    /// The arguments as understood, without the paging cursor.
    pub(crate) fn understood(&self) -> Map<String, Value> {
        let mut map = self.0.clone();
        map.remove("cursor");
        map
    }
}

fn mistyped(name: &str) -> ToolError {
    tracing::error!(parameter = name, "a validated parameter has an unexpected type");
    ToolError::new(ErrorCode::InternalError, "the call failed inside the server; see the server log")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validated_values_are_read_and_a_missing_one_is_a_server_fault() {
        let args = Args(json!({"query": "x", "top_k": 7, "explain": true}).as_object().unwrap().clone());
        assert_eq!(args.required("query"), Ok("x"));
        assert_eq!(args.count("top_k"), Ok(7));
        assert_eq!(args.flag("explain"), Ok(true));
        assert_eq!(args.count("per_period").unwrap_err().code, ErrorCode::InternalError);
        assert_eq!(args.required("top_k").unwrap_err().code, ErrorCode::InternalError);
        let modes = Args(json!({"retrieval_mode": "hybrid", "detail": "nope"}).as_object().unwrap().clone());
        assert_eq!(
            modes.choice::<crate::routing::RetrievalMode>("retrieval_mode"),
            Ok(crate::routing::RetrievalMode::Hybrid)
        );
        assert_eq!(modes.choice_opt::<crate::surface::Detail>("detail").unwrap_err().code, ErrorCode::InvalidArgument);
        assert_eq!(modes.choice_opt::<crate::surface::Detail>("absent"), Ok(None));
        assert_eq!(modes.choice::<crate::lane::Lane>("lane").unwrap_err().code, ErrorCode::InternalError);
    }
}
