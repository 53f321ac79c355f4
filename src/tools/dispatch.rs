//! From a `tools/call` to a finished response: name → tool (or deprecated
//! alias), argument validation, the handler, the paging cursor and the
//! response budget. Synchronous; the server adds timeouts and threads.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::args::Args;
use super::assemble::Finished;
use super::handlers;
use crate::search::Reader;
use crate::surface::envelope::Envelope;
use crate::surface::registry::{self, ToolSpec};
use crate::surface::{DEFAULT_RESPONSE_BUDGET, Detail, MAX_QUERY_PHRASES, MAX_QUERY_WORDS};
use crate::surface::{ErrorCode, ToolError, echo};
use crate::surface::{EvidenceState, Warning, WarningCode};
use crate::surface::{Kind, validate};

/// What runs a tool: validated arguments in, a finished call out.
type Handler = fn(&Reader, &Args) -> Result<Finished, ToolError>;

/// The handler of each registered tool. The registry (surface) names tools;
/// this map is the only place that ties a name to code.
fn handler_for(name: &str) -> Option<Handler> {
    let handler: Handler = match name {
        "search_passages" => handlers::search::search_passages,
        "get_passage" => handlers::passage::get_passage,
        "get_context" => handlers::passage::get_context,
        "resolve_entity" => handlers::concept::resolve_entity,
        "get_concept" => handlers::concept::get_concept,
        "find_concept_evidence" => handlers::concept::find_concept_evidence,
        "trace_concept" => handlers::concept::trace_concept,
        "compare_concepts" => handlers::concept::compare_concepts,
        "trace_source" => handlers::passage::trace_source,
        "terminology_lookup" => handlers::terminology::terminology_lookup,
        "lane_search" => handlers::search::lane_search,
        _ => return None,
    };
    Some(handler)
}

/// A call ready to run: its tool, validated arguments and page.
#[derive(Debug)]
pub struct Prepared {
    pub(crate) spec: &'static ToolSpec,
    /// The deprecated name the caller used.
    pub(crate) original_tool: Option<&'static str>,
    pub(crate) args: Args,
    /// Evidence items to skip (from a cursor).
    pub(crate) offset: usize,
    cursor: Option<String>,
}

/// Resolves the name and validates the arguments. The caller's map is not changed.
pub fn prepare(name: &str, arguments: Option<&Map<String, Value>>) -> Result<Prepared, ToolError> {
    let (spec, alias) = match registry::tool(name) {
        Some(spec) => (spec, None),
        None => match registry::alias(name) {
            Some(alias) => match registry::tool(alias.target) {
                Some(spec) => (spec, Some(alias)),
                None => return Err(unknown_tool(name)),
            },
            None => return Err(unknown_tool(name)),
        },
    };
    let mut args = arguments.cloned().unwrap_or_default();
    if let Some(alias) = alias {
        for (old, new) in alias.renamed {
            if let Some(value) = args.remove(*old) {
                args.entry(new.to_string()).or_insert(value);
            }
        }
        for (key, value) in alias.forced {
            args.insert((*key).to_owned(), value.to_value());
        }
    }
    let args = Args(validate(spec.params, Some(&args))?);
    if let Some(query) = args.text("query") {
        check_query(query)?;
    }
    let cursor = args.text("cursor").map(str::to_owned);
    Ok(Prepared { spec, original_tool: alias.map(|a| a.name), args, offset: 0, cursor })
}

/// Bounds the work one query makes: each quoted phrase is embedded and
/// searched on its own, and every word becomes a clause.
fn check_query(query: &str) -> Result<(), ToolError> {
    let phrases = crate::lane::parse_query(query).phrases.len();
    if phrases > MAX_QUERY_PHRASES {
        return Err(ToolError::new(
            ErrorCode::QueryTooComplex,
            format!(
                "the query has {phrases} quoted phrases; the limit is {MAX_QUERY_PHRASES}: split it into several calls"
            ),
        ));
    }
    let words = crate::text::normalized_words(query).len();
    if words > MAX_QUERY_WORDS {
        return Err(ToolError::new(
            ErrorCode::QueryTooComplex,
            format!("the query has {words} words; the limit is {MAX_QUERY_WORDS}: keep the words that matter"),
        ));
    }
    Ok(())
}

fn unknown_tool(name: &str) -> ToolError {
    let known: Vec<&str> = registry::default_visible().map(|t| t.name).collect();
    ToolError::new(ErrorCode::UnknownTool, format!("no tool `{}`; available tools: {}", echo(name), known.join(", ")))
}

/// A cursor names the position after the items returned; it is bound to the
/// tool, the other arguments and the index generation by a digest.
fn cursor_digest(generation: &str, spec: &ToolSpec, args: &Args, offset: usize) -> String {
    let arguments = serde_json::to_string(&args.understood()).unwrap_or_default();
    let digest = Sha256::digest(format!("{generation}\n{}\n{arguments}\n{offset}", spec.name).as_bytes());
    crate::text::hex(&digest[..12])
}

fn make_cursor(generation: &str, spec: &ToolSpec, args: &Args, offset: usize) -> String {
    format!("c1.{offset}.{}", cursor_digest(generation, spec, args, offset))
}

fn read_cursor(cursor: &str, generation: &str, spec: &ToolSpec, args: &Args) -> Result<usize, ToolError> {
    let invalid = || {
        ToolError::new(
            ErrorCode::InvalidCursor,
            "the cursor does not belong to this request or index generation; repeat the request without `cursor`",
        )
    };
    let mut parts = cursor.trim().splitn(3, '.');
    let (Some("c1"), Some(offset), Some(digest)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(invalid());
    };
    let offset: usize = offset.parse().map_err(|_| invalid())?;
    if digest != cursor_digest(generation, spec, args, offset) {
        return Err(invalid());
    }
    Ok(offset)
}

/// The budget of one call: the default one unless the call raised a count
/// above its default or turned on a flag (include_context, explain); never
/// more than the server's `max_budget`.
fn budget_for(spec: &ToolSpec, args: &Args, max_budget: usize) -> usize {
    let default_sized = spec.params.iter().all(|p| match (p.kind, args.0.get(p.name), p.default_value()) {
        (Kind::Integer { .. }, Some(Value::Number(n)), Some(Value::Number(d))) => n.as_i64() <= d.as_i64(),
        (Kind::Boolean, Some(value), Some(default)) => *value == default,
        _ => true,
    });
    if default_sized { max_budget.min(DEFAULT_RESPONSE_BUDGET) } else { max_budget }
}

/// A finished call: the structured content as it goes on the wire, and the
/// verdict as the code decided it (telemetry and `eval --verdicts` read this,
/// never the serialised JSON).
#[derive(Debug)]
pub struct Answered {
    pub content: Value,
    pub(crate) verdict: EvidenceState,
}

/// Runs a prepared call against `index` and returns the structured content.
/// `max_budget` bounds every response's bytes (see `budget_for`).
pub fn run(index: &Reader, mut call: Prepared, max_budget: usize) -> Result<Answered, ToolError> {
    let _stage = crate::stage::enter("tool");
    let budget = budget_for(call.spec, &call.args, max_budget);
    if let Some(cursor) = call.cursor.take() {
        call.offset = read_cursor(&cursor, &index.generation.name, call.spec, &call.args)?;
    }
    crate::failpoint::in_tool(call.spec.name);
    let handler = handler_for(call.spec.name).ok_or_else(|| {
        tracing::error!(tool = call.spec.name, "a registered tool has no handler");
        ToolError::new(ErrorCode::InternalError, "the tool is not available in this server build")
    })?;
    let mut finished = handler(index, &call.args)?;
    if let Some(old) = call.original_tool {
        let use_instead = registry::alias(old).map_or(call.spec.name, |a| a.use_instead);
        finished.warnings.push(Warning::new(
            WarningCode::DeprecatedTool,
            format!("`{old}` is a deprecated name of `{}`", call.spec.name),
            format!("call {use_instead} instead"),
        ));
    }
    if call.offset > 0 {
        if call.offset > finished.evidence.len() {
            return Err(ToolError::new(ErrorCode::InvalidCursor, "the cursor points past the end of the evidence"));
        }
        finished.evidence.drain(..call.offset);
    }
    let verdict = finished.verdict.clone();
    // Snippets are cut here, after the call is finished: coverage and the verdict saw whole passages.
    let snippets = call.args.choice_opt("detail")? == Some(Detail::Snippet);
    let mut envelope = finished.into_envelope(call.spec.name, call.original_tool, snippets);
    let action = if call.spec.params.iter().any(|p| p.name == "detail") {
        "pass retrieval.next_cursor as `cursor` with the same arguments to get the rest; `detail` \"snippet\" fits \
         more items in a page"
    } else {
        "pass retrieval.next_cursor as `cursor` with the same arguments to get the rest"
    };
    let _serialising = crate::stage::enter("serialise");
    fit(&mut envelope, budget, action, |kept| {
        make_cursor(&index.generation.name, call.spec, &call.args, call.offset + kept)
    })?;
    let content = serde_json::to_value(&envelope).map_err(|e| {
        tracing::error!(%e, "envelope serialisation failed");
        ToolError::new(ErrorCode::InternalError, "the response could not be encoded; see the server log")
    })?;
    Ok(Answered { content, verdict })
}

fn size(envelope: &Envelope) -> usize {
    serde_json::to_vec(envelope).map_or(usize::MAX, |v| v.len())
}

/// Drops whole evidence items from the end until the envelope fits `budget`
/// bytes, and says so. At least one item is kept so paging always advances.
fn fit(
    envelope: &mut Envelope,
    budget: usize,
    action: &str,
    cursor: impl Fn(usize) -> String,
) -> Result<(), ToolError> {
    if size(envelope) <= budget {
        return Ok(());
    }
    let total = envelope.evidence.len();
    let dropped_all = std::mem::take(&mut envelope.evidence);
    // Reserve room for the warning and cursor added below.
    envelope.warnings.push(Warning::new(
        WarningCode::ResponseTruncated,
        format!("{total} of {total} evidence items left out to fit the {budget}-byte response budget"),
        action,
    ));
    envelope.retrieval.next_cursor = Some(cursor(total));
    let mut used = size(envelope);
    let mut kept = 0;
    for item in dropped_all.iter() {
        let item_size = serde_json::to_vec(item).map_or(usize::MAX, |v| v.len()) + 1;
        if kept > 0 && used + item_size > budget {
            break;
        }
        used += item_size;
        kept += 1;
    }
    envelope.evidence = dropped_all.into_iter().take(kept).collect();
    let left = total - kept;
    if left == 0 {
        envelope.warnings.pop();
        envelope.retrieval.next_cursor = None;
        return Ok(());
    }
    if let Some(w) = envelope.warnings.last_mut() {
        w.message = format!("{left} of {total} evidence items left out to fit the {budget}-byte response budget");
    }
    envelope.retrieval.next_cursor = Some(cursor(kept));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aliases_route_force_and_rename_without_touching_the_callers_arguments() {
        let caller = json!({"terms": "natural selection", "retrieval_mode": "hybrid"}).as_object().unwrap().clone();
        let before = caller.clone();
        let call = prepare("keyword_search", Some(&caller)).unwrap();
        assert_eq!(caller, before);
        assert_eq!(call.spec.name, "search_passages");
        assert_eq!(call.original_tool, Some("keyword_search"));
        assert_eq!(call.args.text("query"), Some("natural selection"));
        assert_eq!(call.args.text("retrieval_mode"), Some("lexical"));
        assert!(call.args.0.get("terms").is_none());
    }

    #[test]
    fn every_registered_tool_has_a_handler_and_nothing_else_does() {
        for spec in registry::TOOLS {
            assert!(handler_for(spec.name).is_some(), "{} has no handler", spec.name);
        }
        for alias in registry::ALIASES {
            assert!(handler_for(alias.name).is_none(), "alias {} must dispatch through its target", alias.name);
        }
        assert!(handler_for("nope").is_none());
    }

    #[test]
    fn queries_with_too_many_phrases_or_words_are_refused() {
        let phrases = "\"a b\" ".repeat(MAX_QUERY_PHRASES + 1);
        let err = prepare("search_passages", Some(json!({"query": phrases}).as_object().unwrap())).unwrap_err();
        assert_eq!(err.code, ErrorCode::QueryTooComplex);
        let ok = "\"a b\" ".repeat(MAX_QUERY_PHRASES);
        assert!(prepare("search_passages", Some(json!({"query": ok}).as_object().unwrap())).is_ok());
        let words = "word ".repeat(MAX_QUERY_WORDS + 1);
        let err =
            prepare("lane_search", Some(json!({"query": words, "lane": "vector"}).as_object().unwrap())).unwrap_err();
        assert_eq!(err.code, ErrorCode::QueryTooComplex);
        // Aliases go through the same check.
        let err = prepare("semantic_search", Some(json!({"query": phrases}).as_object().unwrap())).unwrap_err();
        assert_eq!(err.code, ErrorCode::QueryTooComplex);
    }

    #[test]
    fn unknown_names_and_hidden_tools() {
        assert_eq!(prepare("nope", None).unwrap_err().code, ErrorCode::UnknownTool);
        assert!(prepare("lane_search", Some(json!({"query": "x", "lane": "lexical"}).as_object().unwrap())).is_ok());
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,30}".prop_map(Value::from),
            Just(json!("[\"concept.x\"]")),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                proptest::collection::btree_map(".{0,8}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Fuzzed arguments for every registered name: validation never
        /// panics, and what it accepts keeps only the tool's own parameters.
        #[test]
        fn fuzzed_arguments_are_accepted_or_refused_with_a_catalogued_code(
            tool in 0..registry::TOOLS.len() + registry::ALIASES.len(),
            keys in proptest::collection::vec(0..12usize, 0..6),
            values in proptest::collection::vec(json_value(), 6),
        ) {
            let name = registry::TOOLS.get(tool).map(|t| t.name)
                .unwrap_or_else(|| registry::ALIASES[tool - registry::TOOLS.len()].name);
            let spec_params = registry::tool(name).or_else(|| registry::alias(name).and_then(|a| registry::tool(a.target)))
                .map(|t| t.params).unwrap_or_default();
            let mut args = Map::new();
            for (key, value) in keys.iter().zip(values) {
                let key = spec_params.get(*key).map_or_else(|| format!("extra{key}"), |p| p.name.to_owned());
                args.insert(key, value);
            }
            match prepare(name, Some(&args)) {
                Ok(call) => {
                    for key in call.args.0.keys() {
                        proptest::prop_assert!(call.spec.params.iter().any(|p| p.name == key));
                    }
                }
                Err(e) => proptest::prop_assert!(ErrorCode::ALL.contains(&e.code)),
            }
        }
    }

    #[test]
    fn cursors_are_bound_to_the_request_and_generation() {
        let spec = registry::tool("search_passages").unwrap();
        let args = Args(json!({"query": "x", "top_k": 10}).as_object().unwrap().clone());
        let cursor = make_cursor("gen-000001", spec, &args, 10);
        assert_eq!(read_cursor(&cursor, "gen-000001", spec, &args), Ok(10));
        assert_eq!(read_cursor(&cursor, "gen-000002", spec, &args).unwrap_err().code, ErrorCode::InvalidCursor);
        let other = Args(json!({"query": "y", "top_k": 10}).as_object().unwrap().clone());
        assert_eq!(read_cursor(&cursor, "gen-000001", spec, &other).unwrap_err().code, ErrorCode::InvalidCursor);
        let tampered = cursor.replacen(".10.", ".11.", 1);
        assert_eq!(read_cursor(&tampered, "gen-000001", spec, &args).unwrap_err().code, ErrorCode::InvalidCursor);
        // The cursor itself is not part of what it is bound to.
        let mut with_cursor = args.clone();
        with_cursor.0.insert("cursor".into(), json!(cursor));
        assert_eq!(read_cursor(&cursor, "gen-000001", spec, &with_cursor), Ok(10));
    }
}
