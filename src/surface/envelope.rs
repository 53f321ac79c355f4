//! The eight-section envelope every tool returns. One type, shared by every
//! tool; serde writes the sections in declaration order, so the order on the
//! wire is the order here. Optional members carry what only some tools fill.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use super::sufficiency::{EvidenceState, State};
use super::warnings::Warning;

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Envelope {
    pub(crate) request: RequestSection,
    pub(crate) resolution: Resolution,
    pub(crate) retrieval: Retrieval,
    pub(crate) evidence: Vec<EvidenceItem>,
    pub(crate) coverage: Coverage,
    pub(crate) provenance: ProvenanceSummary,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) evidence_state: EvidenceState,
}

/// The names of the sections, in order.
pub(crate) const SECTIONS: [&str; 8] =
    ["request", "resolution", "retrieval", "evidence", "coverage", "provenance", "warnings", "evidence_state"];

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct RequestSection {
    /// The tool that answered.
    pub(crate) tool: String,
    /// The deprecated name the caller used, when it used one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) original_tool: Option<String>,
    /// The arguments as understood, with defaults filled in.
    pub(crate) arguments: Map<String, Value>,
}

/// How a term became an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ResolvedBy {
    /// The entity id was given.
    Id,
    /// The term equals one of the entity's aliases (case-insensitive).
    Alias,
    /// The entity's alias occurs inside the term or query.
    Mention,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum ResolutionStatus {
    Resolved,
    Ambiguous,
    Unresolved,
    EntityCollision,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct EntityRef {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) review_status: String,
    /// Set when the entity was resolved from a term.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) how: Option<ResolvedBy>,
    /// The alias that matched, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) matched_alias: Option<String>,
    /// resolve_entity with `context`: how many of the entity's names occur in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) context_mentions: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct AmbiguousTerm {
    pub(crate) term: String,
    pub(crate) entity_id: String,
    /// The senses recorded for the entity; the caller decides which is meant.
    pub(crate) senses: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct Collision {
    pub(crate) term: String,
    /// Every entity the term is an alias of.
    pub(crate) candidates: Vec<EntityRef>,
}

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct Resolution {
    /// The outcome for tools that resolve one term (resolve_entity and the concept tools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) status: Option<ResolutionStatus>,
    pub(crate) entities: Vec<EntityRef>,
    pub(crate) ambiguous: Vec<AmbiguousTerm>,
    pub(crate) collisions: Vec<Collision>,
    pub(crate) unresolved_terms: Vec<String>,
    /// get_concept: the concept card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) concept: Option<ConceptCard>,
    /// terminology_lookup: the mappings found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) terminology: Option<Vec<TermMappingOut>>,
    /// UNRESOLVED or not found: up to five entities with close names, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) suggestions: Vec<Suggestion>,
}

/// An entity whose name is close to a term that named none.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct Suggestion {
    pub(crate) entity_id: String,
    pub(crate) name: String,
    /// The alias that is close to the term.
    pub(crate) alias: String,
    /// `contains` (one holds the other), `shared_words`, or `similar_spelling`.
    pub(crate) how: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct AliasOut {
    pub(crate) name: String,
    pub(crate) language: String,
    pub(crate) review_status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct RelationOut {
    pub(crate) relation: String,
    pub(crate) target: String,
    pub(crate) target_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct ConceptCard {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) aliases: Vec<AliasOut>,
    pub(crate) languages: Vec<String>,
    pub(crate) status: Option<String>,
    pub(crate) review_status: String,
    pub(crate) period: Option<String>,
    pub(crate) ambiguous: bool,
    pub(crate) senses: Vec<String>,
    pub(crate) relations: Vec<RelationOut>,
    /// Passages linked to the concept in the whole corpus.
    pub(crate) linked_passages: u32,
    /// The reviewed definition, or null: evident never writes one.
    pub(crate) definition: Option<String>,
    /// "reviewed" or "none": whether a reviewed definition exists.
    pub(crate) definition_status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct TermMappingOut {
    pub(crate) entity_id: String,
    pub(crate) source_language: String,
    pub(crate) source_term: String,
    pub(crate) target_language: String,
    pub(crate) target_term: String,
    pub(crate) review_status: String,
    pub(crate) warnings: Vec<String>,
    pub(crate) note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct LaneCount {
    pub(crate) lane: String,
    pub(crate) candidates: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct LaneWeight {
    pub(crate) lane: String,
    pub(crate) weight: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct Fusion {
    pub(crate) method: String,
    pub(crate) k: f64,
    pub(crate) weights: Vec<LaneWeight>,
}

/// What reordered the fused list. Its scores order items and are not reported:
/// a relevance model's score is not evidence.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct RerankOut {
    /// `cross_encoder`.
    pub(crate) method: String,
    /// The reranking model's installed name.
    pub(crate) model: String,
    /// How many fused passages it read and reordered (0 when it could not run).
    pub(crate) reranked: usize,
    /// `applied`, or `unavailable` (the fused order stands; a warning says why).
    pub(crate) status: String,
}

/// One independent retrieval (compare_concepts runs one per concept).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct LaneRunOut {
    /// `a` or `b` for compare_concepts; the period id for trace_concept.
    pub(crate) label: String,
    pub(crate) query: String,
    pub(crate) route: String,
    pub(crate) lanes: Vec<String>,
    pub(crate) lane_counts: Vec<LaneCount>,
}

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct Retrieval {
    /// The routing rule that fired (null for lookups that search nothing).
    pub(crate) route: Option<String>,
    pub(crate) lanes: Vec<String>,
    pub(crate) vector_enabled: bool,
    pub(crate) lane_counts: Vec<LaneCount>,
    pub(crate) fusion: Option<Fusion>,
    /// The reranking stage after fusion, when the request asked for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rerank: Option<RerankOut>,
    /// Independent lane sets, when the tool ran more than one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) runs: Vec<LaneRunOut>,
    pub(crate) took_ms: u64,
    /// Pass as `cursor` to get the evidence left out of this response.
    pub(crate) next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct ItemProvenance {
    pub(crate) witness: Option<String>,
    pub(crate) source: String,
    pub(crate) source_sha256: String,
    /// `COMPLETE` or `SOURCE_TRACE_INCOMPLETE`.
    pub(crate) trace_status: String,
    /// The pages of a PDF the passage spans (absent for text sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pages: Option<Pages>,
    /// A citation of the passage, "Author Year, p. 7" (PDF sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) citation: Option<String>,
}

/// Pages of a PDF: physical pages counted from 1, and the printed labels where
/// the PDF defines them (front matter in roman numerals, a journal's own numbers).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct Pages {
    pub(crate) page_start: u32,
    pub(crate) page_end: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) label_start: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) label_end: Option<String>,
}

/// How a document's text was obtained from a file that is not text.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct TextExtraction {
    /// e.g. "text layer of a PDF".
    pub(crate) method: String,
    /// The extractor and its version.
    pub(crate) extractor: String,
    /// sha256 of the extracted text that byte and line spans count in.
    pub(crate) text_sha256: String,
    pub(crate) pages: u32,
    pub(crate) pages_without_text: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct Contribution {
    pub(crate) lane: String,
    pub(crate) rank: u32,
    pub(crate) weight: f64,
    /// weight / (k + rank): this lane's share of the fused score.
    pub(crate) contribution: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct ContextPassage {
    pub(crate) passage_id: String,
    pub(crate) ordinal: u32,
    pub(crate) text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct ItemContext {
    pub(crate) before: Vec<ContextPassage>,
    pub(crate) after: Vec<ContextPassage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct EvidenceItem {
    /// A real id: get_passage returns this passage.
    pub(crate) passage_id: String,
    pub(crate) document: String,
    pub(crate) work: Option<String>,
    pub(crate) section: Option<String>,
    pub(crate) period: Option<String>,
    pub(crate) year: Option<i32>,
    pub(crate) language: String,
    pub(crate) ordinal: u32,
    /// The passage's text; with `detail: "snippet"`, at most 300 characters around the matched words.
    pub(crate) text: String,
    /// Set when `text` is a snippet: the passage's whole length in characters (get_passage returns it all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) full_text_chars: Option<usize>,
    /// Which lanes found it and at what rank, in words.
    pub(crate) why_retrieved: String,
    /// Lane → 1-based rank in that lane.
    pub(crate) component_ranks: BTreeMap<String, u32>,
    /// The fused rank score (RRF); comparable only within one list, never a probability.
    pub(crate) score: f64,
    /// The item's rank before a reranker reordered the list (set only then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fused_rank: Option<u32>,
    pub(crate) provenance: ItemProvenance,
    /// Entities the passage mentions.
    pub(crate) entities: Vec<String>,
    /// compare_concepts: `a`, `b`, or `both` (found by both sides' runs; sent once).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) side: Option<String>,
    /// explain: each lane's share of the score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) explanation: Option<Vec<Contribution>>,
    /// get_passage: the ids of the passages just before and after, when they exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) neighbours: Option<Neighbours>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) context: Option<ItemContext>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct Neighbours {
    pub(crate) previous: Option<String>,
    pub(crate) next: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct TermCoverage {
    pub(crate) term: String,
    /// Evidence items containing the term.
    pub(crate) found_in: usize,
    /// Whether any passage of the corpus contains it.
    pub(crate) in_corpus: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct EntityCoverage {
    pub(crate) entity_id: String,
    /// Evidence items linked to the entity.
    pub(crate) found_in: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct SectionGroup {
    pub(crate) section: Option<String>,
    pub(crate) passage_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct WorkGroup {
    pub(crate) work: Option<String>,
    pub(crate) sections: Vec<SectionGroup>,
}

/// trace_concept: evidence of one period, by work and section.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct PeriodGroup {
    pub(crate) period: String,
    pub(crate) label: String,
    pub(crate) start_year: i32,
    pub(crate) end_year: i32,
    pub(crate) evidence_n: usize,
    pub(crate) works: Vec<WorkGroup>,
}

/// compare_concepts: what each side found.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct SideCoverage {
    pub(crate) side: String,
    pub(crate) entity_id: String,
    pub(crate) evidence_n: usize,
    pub(crate) document_n: usize,
    pub(crate) work_n: usize,
    /// This side's evidence in rank order; a passage both sides found is sent once, with side `both`.
    pub(crate) passage_ids: Vec<String>,
}

/// get_context: the window asked for, what the document had, and whether
/// the window reached the document's start or end.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct ContextWindow {
    pub(crate) before_requested: u32,
    pub(crate) before_returned: u32,
    pub(crate) after_requested: u32,
    pub(crate) after_returned: u32,
    /// No passage of the document comes before the first one returned.
    pub(crate) reaches_document_start: bool,
    /// No passage of the document comes after the last one returned.
    pub(crate) reaches_document_end: bool,
}

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct Coverage {
    pub(crate) evidence_n: usize,
    pub(crate) document_n: usize,
    pub(crate) work_n: usize,
    pub(crate) period_n: usize,
    /// Configured periods no evidence item falls in.
    pub(crate) periods_without_evidence: Vec<String>,
    /// Language → evidence items.
    pub(crate) language_mix: BTreeMap<String, usize>,
    /// Content words of the query and how many evidence items contain each.
    pub(crate) term_coverage: Vec<TermCoverage>,
    /// The most content words of the query that one evidence item contains together.
    pub(crate) max_terms_in_one_item: usize,
    pub(crate) entity_coverage: Vec<EntityCoverage>,
    /// Evidence items found by two or more independent lanes.
    pub(crate) multi_lane_n: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) groups: Vec<PeriodGroup>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) sides: Vec<SideCoverage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) context_window: Option<ContextWindow>,
}

/// One link of a passage's provenance chain.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct ChainLink {
    /// passage, document, witness, source_file, sha256.
    pub(crate) link: String,
    pub(crate) value: Option<String>,
    pub(crate) present: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub(crate) struct ProvenanceChain {
    pub(crate) passage_id: String,
    pub(crate) links: Vec<ChainLink>,
    /// Byte span of the passage in the source file.
    pub(crate) byte_span: [u64; 2],
    /// 1-based line span in the source file.
    pub(crate) line_span: [u32; 2],
    /// How the span is counted: in the file, within a JSONL record's text, or in a PDF's extracted text.
    pub(crate) span_basis: String,
    pub(crate) source_bytes: u64,
    pub(crate) title: Option<String>,
    pub(crate) author: Option<String>,
    pub(crate) date: Option<String>,
    /// Front-matter fields evident does not interpret (e.g. hashes of an original file).
    pub(crate) source_metadata: BTreeMap<String, Value>,
    pub(crate) trace_status: String,
    /// The PDF pages of the passage (PDF sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pages: Option<Pages>,
    /// How the text was obtained (PDF sources): spans count in the extracted text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) extraction: Option<TextExtraction>,
}

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct ProvenanceSummary {
    /// Trace status → evidence items.
    pub(crate) trace_status: BTreeMap<String, usize>,
    /// Witness → evidence items.
    pub(crate) witnesses: BTreeMap<String, usize>,
    /// Source file → evidence items.
    pub(crate) sources: BTreeMap<String, usize>,
    pub(crate) source_trace_incomplete_n: usize,
    /// trace_source: the full chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) chain: Option<ProvenanceChain>,
}

/// The JSON Schema of the envelope (every tool's outputSchema).
pub fn output_schema() -> Map<String, Value> {
    let settings = schemars::generate::SchemaSettings::draft2020_12().for_serialize();
    let schema = settings.into_generator().into_root_schema_for::<Envelope>();
    let mut value = serde_json::to_value(schema).unwrap_or_default();
    strip_numeric_formats(&mut value);
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The compact output schema `tools/list` carries for every tool: the eight
/// required sections with their JSON types (evidence_state: its required
/// `state` and the four states instead). It
/// admits every envelope the full schema admits (it only drops constraints),
/// so both SDKs validate `structuredContent` against it, while the described
/// schema stays in the contract (`tools/list` has a byte limit). Section
/// types are read from the full schema, so the two cannot disagree.
pub(crate) fn compact_output_schema() -> Map<String, Value> {
    let full = output_schema();
    let section_type = |section: &str| -> Option<Value> {
        full.get("properties").and_then(|p| p.get(section)).and_then(|s| resolve_ref(s, &full).get("type").cloned())
    };
    let mut properties = Map::new();
    for section in SECTIONS {
        let t = section_type(section).unwrap_or_else(|| Value::from("object"));
        properties.insert(section.to_owned(), serde_json::json!({ "type": t }));
    }
    let states: Vec<Value> = State::ALL.iter().map(|s| serde_json::json!(s)).collect();
    properties.insert(
        "evidence_state".into(),
        serde_json::json!({"required": ["state"], "properties": {"state": {"enum": states}}}),
    );
    let mut schema = Map::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("required".into(), serde_json::json!(SECTIONS));
    schema.insert("properties".into(), Value::Object(properties));
    schema
}

/// A `{"$ref": "#/$defs/X"}` node resolved against the root schema's `$defs`.
fn resolve_ref<'a>(node: &'a Value, root: &'a Map<String, Value>) -> &'a Value {
    node.get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| root.get("$defs").and_then(|d| d.get(name)))
        .unwrap_or(node)
}

/// schemars marks Rust number types with formats such as `uint32` or
/// `double`, which JSON Schema does not define; strict validators (AJV in
/// MCP clients) warn on each. The ranges they imply stay as `minimum`.
fn strip_numeric_formats(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let numeric = map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| matches!(f, "double" | "float") || f.starts_with("uint") || f.starts_with("int"));
            if numeric {
                map.remove("format");
            }
            map.values_mut().for_each(strip_numeric_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_numeric_formats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_has_only_standard_formats_and_every_section() {
        let schema = Value::Object(output_schema());
        let text = schema.to_string();
        for format in ["uint", "int32", "int64", "double"] {
            assert!(!text.contains(&format!("\"format\":\"{format}")), "{format}");
        }
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(required, SECTIONS);
    }

    #[test]
    fn the_compact_schema_keeps_every_section_its_type_and_the_states() {
        let compact = Value::Object(compact_output_schema());
        let required: Vec<&str> = compact["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(required, SECTIONS);
        // evidence_state is constrained by its required `state` and the enum instead of a type (bytes).
        for section in SECTIONS.iter().filter(|s| **s != "evidence_state") {
            let expected = if matches!(*section, "evidence" | "warnings") { "array" } else { "object" };
            assert_eq!(compact["properties"][section]["type"], expected, "{section}");
        }
        let states = compact["properties"]["evidence_state"]["properties"]["state"]["enum"].as_array().unwrap();
        assert_eq!(states.len(), 4);
        assert!(compact.to_string().len() < 600, "{}", compact.to_string().len());
    }
}
