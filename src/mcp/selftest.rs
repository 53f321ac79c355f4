//! The start-up self-test: the registry's visible tools must be the ones the
//! binary's embedded contract publishes (same names, schemas and
//! descriptions), the cap must hold, and the index must open.

use serde_json::Value;

use crate::contract::{EMBEDDED_CONTRACT, check_cap, tool_entry};
use crate::surface::registry::default_visible;

/// Why the server must not start, if it must not.
pub(crate) fn self_test() -> Result<(), String> {
    self_test_against(EMBEDDED_CONTRACT)
}

/// The self-test against a given contract text.
pub(crate) fn self_test_against(contract_text: &str) -> Result<(), String> {
    check_cap().map_err(|e| e.to_string())?;
    let contract: Value = serde_json::from_str(contract_text).map_err(|e| {
        format!("the embedded contract is not valid JSON ({e}); run `evident contract write` and rebuild")
    })?;
    let published: Vec<&Value> = contract["tools"].as_array().map(|t| t.iter().collect()).unwrap_or_default();
    let live: Vec<Value> = default_visible().map(tool_entry).collect();
    let names =
        |tools: &[&Value]| tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect::<Vec<_>>();
    let live_refs: Vec<&Value> = live.iter().collect();
    if names(&published) != names(&live_refs) {
        return Err(format!(
            "the tool list {:?} differs from the published contract {:?}; run `evident contract write` and rebuild",
            names(&live_refs),
            names(&published)
        ));
    }
    for (live, published) in live.iter().zip(&published) {
        for key in ["description", "inputSchema", "outputSchema", "annotations"] {
            if live[key] != published[key] {
                return Err(format!(
                    "tool `{}`: {key} differs from the published contract; run `evident contract write` and rebuild",
                    live["name"].as_str().unwrap_or("?")
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_contract_matches_the_registry() {
        assert_eq!(self_test(), Ok(()));
    }

    #[test]
    fn a_contract_that_differs_from_the_registry_is_refused() {
        let mut contract: Value = serde_json::from_str(EMBEDDED_CONTRACT).unwrap();
        contract["tools"][0]["inputSchema"]["properties"]["query"]["maxLength"] = serde_json::json!(5);
        let err = self_test_against(&contract.to_string()).unwrap_err();
        assert!(err.contains("search_passages") && err.contains("inputSchema"), "{err}");
        let mut fewer = contract.clone();
        fewer["tools"].as_array_mut().unwrap().pop();
        assert!(self_test_against(&fewer.to_string()).unwrap_err().contains("differs"));
        assert!(self_test_against("not json").is_err());
    }
}
