//! Comparing contracts: a readable line diff for humans, and a
//! classification of each change as additive or breaking.

use serde_json::Value;
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Impact {
    Additive,
    Breaking,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub(crate) impact: Impact,
    pub(crate) what: String,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tag = match self.impact {
            Impact::Additive => "additive",
            Impact::Breaking => "BREAKING",
        };
        write!(f, "[{tag}] {}", self.what)
    }
}

fn names<'a>(v: &'a Value, list: &str, key: &str) -> BTreeSet<&'a str> {
    v[list].as_array().into_iter().flatten().filter_map(|t| t[key].as_str()).collect()
}

fn find<'a>(v: &'a Value, list: &str, key: &str, name: &str) -> Option<&'a Value> {
    v[list].as_array()?.iter().find(|t| t[key].as_str() == Some(name))
}

fn required(tool: &Value) -> BTreeSet<&str> {
    tool["inputSchema"]["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect()
}

fn properties(tool: &Value) -> Vec<(&str, &Value)> {
    tool["inputSchema"]["properties"].as_object().into_iter().flatten().map(|(k, v)| (k.as_str(), v)).collect()
}

/// What changed from `old` to `new`, each change classified.
pub fn classify(old: &Value, new: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    let mut push = |impact, what: String| out.push(Change { impact, what });
    let (old_tools, new_tools) = (names(old, "tools", "name"), names(new, "tools", "name"));
    for gone in old_tools.difference(&new_tools) {
        push(Impact::Breaking, format!("tool `{gone}` removed or renamed"));
    }
    for added in new_tools.difference(&old_tools) {
        push(Impact::Additive, format!("tool `{added}` added"));
    }
    for name in old_tools.intersection(&new_tools) {
        let (Some(o), Some(n)) = (find(old, "tools", "name", name), find(new, "tools", "name", name)) else { continue };
        let (op, np) = (properties(o), properties(n));
        for (param, schema) in &op {
            match np.iter().find(|(p, _)| p == param) {
                None => push(Impact::Breaking, format!("`{name}`: parameter `{param}` removed or renamed")),
                Some((_, new_schema)) if new_schema["type"] != schema["type"] => {
                    push(Impact::Breaking, format!("`{name}`: parameter `{param}` changed type"))
                }
                Some((_, new_schema)) if new_schema != schema => push(
                    Impact::Additive,
                    format!("`{name}`: parameter `{param}` description, default or range changed"),
                ),
                Some(_) => {}
            }
        }
        for (param, _) in np.iter().filter(|(p, _)| !op.iter().any(|(q, _)| q == p)) {
            push(Impact::Additive, format!("`{name}`: parameter `{param}` added"));
        }
        for param in required(n).difference(&required(o)) {
            push(Impact::Breaking, format!("`{name}`: parameter `{param}` is now required"));
        }
        if o["outputSchema"] != n["outputSchema"] {
            push(Impact::Additive, format!("`{name}`: output schema changed (check that no field was removed)"));
        }
        if o["description"] != n["description"] || o["annotations"] != n["annotations"] {
            push(Impact::Additive, format!("`{name}`: description or annotations changed"));
        }
    }
    for (list, what) in [("error_codes", "error code"), ("warning_codes", "warning code")] {
        let (o, n) = (names(old, list, "code"), names(new, list, "code"));
        for gone in o.difference(&n) {
            push(Impact::Breaking, format!("{what} `{gone}` removed or renamed"));
        }
        for added in n.difference(&o) {
            push(Impact::Additive, format!("{what} `{added}` added"));
        }
    }
    let (o, n) = (names(old, "aliases", "name"), names(new, "aliases", "name"));
    for gone in o.difference(&n) {
        push(Impact::Breaking, format!("deprecated alias `{gone}` removed"));
    }
    for added in n.difference(&o) {
        push(Impact::Additive, format!("deprecated alias `{added}` added"));
    }
    for key in ["envelope", "evidence_state_rules", "routing_rules", "limits", "visible_tool_cap"] {
        if old[key] != new[key] {
            push(Impact::Additive, format!("`{key}` changed"));
        }
    }
    out
}

pub fn is_breaking(changes: &[Change]) -> bool {
    changes.iter().any(|c| c.impact == Impact::Breaking)
}

/// A minimal unified-style diff: changed lines with their line numbers, at
/// most `LIMIT` of them.
pub(crate) fn line_diff(old: &str, new: &str) -> String {
    const LIMIT: usize = 40;
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    // Skip the common head and tail; show what differs between them.
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    let mut out = String::new();
    let removed = &a[head..a.len() - tail];
    let added = &b[head..b.len() - tail];
    out.push_str(&format!("@@ line {} @@\n", head + 1));
    for line in removed.iter().take(LIMIT) {
        out.push_str(&format!("-{line}\n"));
    }
    for line in added.iter().take(LIMIT) {
        out.push_str(&format!("+{line}\n"));
    }
    if removed.len() > LIMIT || added.len() > LIMIT {
        out.push_str(&format!("… ({} lines removed, {} added in all)\n", removed.len(), added.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn contract(tools: Value, codes: Value) -> Value {
        json!({"tools": tools, "error_codes": codes, "warning_codes": [], "aliases": []})
    }

    fn tool(name: &str, props: Value, required: Value) -> Value {
        json!({"name": name, "inputSchema": {"type": "object", "properties": props, "required": required}})
    }

    #[test]
    fn additions_are_additive_and_removals_breaking() {
        let q = json!({"query": {"type": "string"}});
        let old = contract(json!([tool("a", q.clone(), json!(["query"]))]), json!([{"code": "x"}]));
        let added = contract(
            json!([
                tool("a", json!({"query": {"type": "string"}, "k": {"type": "integer"}}), json!(["query"])),
                tool("b", q.clone(), json!([]))
            ]),
            json!([{"code": "x"}, {"code": "y"}]),
        );
        let changes = classify(&old, &added);
        assert!(!is_breaking(&changes), "{changes:?}");
        assert_eq!(changes.len(), 3);

        let removed_tool = contract(json!([]), json!([{"code": "x"}]));
        assert!(is_breaking(&classify(&old, &removed_tool)));
        let removed_code = contract(json!([tool("a", q.clone(), json!(["query"]))]), json!([]));
        assert!(is_breaking(&classify(&old, &removed_code)));
        let renamed_param =
            contract(json!([tool("a", json!({"q": {"type": "string"}}), json!(["q"]))]), json!([{"code": "x"}]));
        assert!(is_breaking(&classify(&old, &renamed_param)));
        let newly_required = contract(
            json!([tool("a", json!({"query": {"type": "string"}, "k": {"type": "integer"}}), json!(["query", "k"]))]),
            json!([{"code": "x"}]),
        );
        assert!(is_breaking(&classify(&old, &newly_required)));
    }

    #[test]
    fn line_diff_shows_the_changed_lines() {
        let d = line_diff("a\nb\nc\n", "a\nB\nc\n");
        assert!(d.contains("-b") && d.contains("+B"), "{d}");
    }
}
