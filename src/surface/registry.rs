//! The tool registry: the one source of truth for the tool surface. Every
//! tool's name, description, parameters, timeout and visibility is
//! here; `tools/list`, dispatch, the published contract and TOOLS.md are all
//! derived from these tables.

use serde_json::{Map, Value, json};

use super::params::Detail;
use super::params::{DefaultValue, Kind, Param};
use crate::lane::Lane;
use crate::routing::RetrievalMode;

/// Most tools `tools/list` may show. Enforced at start-up, by a test, and by
/// the contract check.
pub const VISIBLE_TOOL_CAP: usize = 12;

pub struct ToolSpec {
    pub name: &'static str,
    pub(crate) title: &'static str,
    /// For a model: what it does, and when to use another tool instead.
    pub description: &'static str,
    /// What the tool is not for (the contract's "not for" column).
    pub(crate) not_for: &'static str,
    pub params: &'static [Param],
    /// Sized to the slowest legitimate call on a large corpus; `EVIDENT_TIMEOUT_<TOOL>` overrides.
    pub(crate) timeout_secs: u64,
    /// Registered and callable, but not listed (unless `EVIDENT_HIDDEN_TOOLS` says otherwise).
    pub hidden: bool,
    /// Runs the retrieval lanes (and may embed the query): the server admits
    /// such calls first come, first served, a few at a time (`mcp::admission`).
    pub(crate) searches: bool,
}

impl std::fmt::Debug for ToolSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl ToolSpec {
    pub fn input_schema(&self) -> Map<String, Value> {
        super::params::input_schema(self.params)
    }

    /// MCP annotations: every tool only reads.
    pub fn annotations(&self) -> Value {
        json!({
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        })
    }
}

/// A deprecated tool name that still answers.
pub struct Alias {
    pub name: &'static str,
    pub target: &'static str,
    /// Arguments set whatever the caller sent.
    pub forced: &'static [(&'static str, ForcedValue)],
    /// Old parameter name → new name.
    pub renamed: &'static [(&'static str, &'static str)],
    pub use_instead: &'static str,
}

#[derive(Debug, Clone, Copy)]
pub enum ForcedValue {
    Text(&'static str),
}

impl ForcedValue {
    pub fn to_value(self) -> Value {
        match self {
            ForcedValue::Text(t) => json!(t),
        }
    }
}

pub const ALIASES: &[Alias] = &[
    Alias { name: "search", target: "search_passages", forced: &[], renamed: &[], use_instead: "search_passages" },
    Alias {
        name: "keyword_search",
        target: "search_passages",
        forced: &[("retrieval_mode", ForcedValue::Text("lexical"))],
        renamed: &[("terms", "query")],
        use_instead: "search_passages with retrieval_mode \"lexical\"",
    },
    Alias {
        name: "semantic_search",
        target: "search_passages",
        forced: &[("retrieval_mode", ForcedValue::Text("vector"))],
        renamed: &[],
        use_instead: "search_passages with retrieval_mode \"vector\"",
    },
    Alias {
        name: "get_document_passage",
        target: "get_passage",
        forced: &[],
        renamed: &[],
        use_instead: "get_passage",
    },
];

// Parameters shared by several tools.
const LANGUAGE: Param = Param::optional("language", Kind::Text, "Language code (\"en\", \"de\") or \"any\".")
    .with_default(DefaultValue::Text("any"));
const WORK: Param = Param::optional("work", Kind::Text, "Only passages of this work id (e.g. \"origin-1872\").");
const PERIOD: Param = Param::optional("period", Kind::Text, "Only passages of this period id (e.g. \"1867-1872\").");
const PASSAGE_ID: Param = Param::required(
    "passage_id",
    Kind::Text,
    "A passage id as returned in evidence, e.g. \"p.origin-1859.ch04.0012\".",
);
const CONCEPT: Param = Param::required(
    "concept",
    Kind::Text,
    "Entity id (\"concept.natural_selection\"), name or alias, resolved as resolve_entity does.",
);
const DETAIL: Param = Param::optional(
    "detail",
    Kind::Choice(Detail::CHOICES),
    "snippet: ≤300 characters around the matches, not whole passages.",
)
.with_default(DefaultValue::Text("full"));
const CURSOR: Param =
    Param::optional("cursor", Kind::Text, "next_cursor of a truncated response (same arguments): the next page.");
const RETRIEVAL_MODES: &[&str] = &RetrievalMode::NAMES;
const LANES: &[&str] = &Lane::NAMES;
const RERANKERS: &[&str] = &crate::routing::Rerank::NAMES;

pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "search_passages",
        title: "Search passages",
        description: "General evidence search: real passages with provenance, how each was retrieved, coverage \
            of the query's words and entities, warnings and a structural evidence_state (never an answer). Use \
            find_concept_evidence for one concept, trace_concept for change over periods, compare_concepts for \
            two concepts.",
        not_for: "diachronic tracing (trace_concept), evidence about one concept (find_concept_evidence)",
        params: &[
            Param::required("query", Kind::Query, "What to look for: words, a question, or \"quoted phrases\" that must occur."),
            LANGUAGE,
            WORK,
            PERIOD,
            Param::optional("entities", Kind::TextList, "Only passages that mention at least one of these entities (ids, names or aliases)."),
            Param::optional("top_k", Kind::Integer { min: 1, max: 50 }, "How many evidence items.")
                .with_default(DefaultValue::Integer(10)),
            Param::optional("retrieval_mode", Kind::Choice(RETRIEVAL_MODES), "Which lanes run: auto (rule table), lexical, vector, hybrid (lexical+vector) or exact (phrases and ids).")
                .with_default(DefaultValue::Text("auto")),
            Param::optional("include_context", Kind::Boolean, "Add the passage before and after each item.")
                .with_default(DefaultValue::Boolean(false)),
            Param::optional("explain", Kind::Boolean, "Add each lane's rank, weight and share of the fused score.")
                .with_default(DefaultValue::Boolean(false)),
            Param::optional("rerank", Kind::Choice(RERANKERS), "cross_encoder: a cross-encoder reorders the fused top 50 (slow: seconds); items keep fused_rank.")
                .with_default(DefaultValue::Text("none")),
            DETAIL,
            CURSOR,
        ],
        timeout_secs: 30,
        hidden: false,
        searches: true,
    },
    ToolSpec {
        name: "get_passage",
        title: "Get a passage",
        description: "One passage by id, whole: text, document, work, section, witness, provenance, and the ids \
            of the passages before and after it. Use get_context for surrounding text, trace_source for the full \
            provenance chain.",
        not_for: "searching (search_passages)",
        params: &[PASSAGE_ID],
        timeout_secs: 5,
        hidden: false,
        searches: false,
    },
    ToolSpec {
        name: "get_context",
        title: "Get surrounding passages",
        description: "The passages before and after a passage, in source order, from the same document only. \
            Use it to read an evidence item in context before quoting it.",
        not_for: "stitching text across documents",
        params: &[
            PASSAGE_ID,
            Param::optional("before", Kind::Integer { min: 0, max: 20 }, "Passages before.").with_default(DefaultValue::Integer(3)),
            Param::optional("after", Kind::Integer { min: 0, max: 20 }, "Passages after.").with_default(DefaultValue::Integer(3)),
            CURSOR,
        ],
        timeout_secs: 5,
        hidden: false,
        searches: false,
    },
    ToolSpec {
        name: "resolve_entity",
        title: "Resolve a term to an entity",
        description: "Which entity a term names: RESOLVED, AMBIGUOUS (several senses or entities), \
            ENTITY_COLLISION (a name of several entities, all listed) or UNRESOLVED (with close names). Never \
            picks silently; context text counts each candidate's mentions. Fetches no evidence: use \
            find_concept_evidence next.",
        not_for: "fetching evidence (find_concept_evidence)",
        params: &[
            Param::required("term", Kind::Text, "A name, alias or entity id."),
            LANGUAGE,
            Param::optional("context", Kind::Text, "Text the term appeared in; candidates named in it are counted."),
        ],
        timeout_secs: 5,
        hidden: false,
        searches: false,
    },
    ToolSpec {
        name: "get_concept",
        title: "Get a concept card",
        description: "The card of one entity: names and aliases per language with review status, period, \
            relations, senses, how many passages mention it (a few as evidence), and its reviewed definition or \
            an explicit none (evident never writes one). Use find_concept_evidence for evidence.",
        not_for: "finding evidence (find_concept_evidence)",
        params: &[Param::required(
            "entity_id",
            Kind::Text,
            "Entity id (\"concept.natural_selection\"), name or alias, resolved as resolve_entity does.",
        ), CURSOR],
        timeout_secs: 5,
        hidden: false,
        searches: false,
    },
    ToolSpec {
        name: "find_concept_evidence",
        title: "Find evidence for a concept",
        description: "Evidence constrained to one entity: passages that mention it, ranked by the entity, \
            lexical and vector lanes. A name shared by several entities answers with the candidates instead of \
            a guess. Use search_passages for free-text questions, trace_concept for change over time.",
        not_for: "general search (search_passages)",
        params: &[
            CONCEPT,
            WORK,
            PERIOD,
            LANGUAGE,
            Param::optional("top_k", Kind::Integer { min: 1, max: 50 }, "How many evidence items.")
                .with_default(DefaultValue::Integer(10)),
            DETAIL,
            CURSOR,
        ],
        timeout_secs: 30,
        hidden: false,
        searches: true,
    },
    ToolSpec {
        name: "trace_concept",
        title: "Trace a concept through periods",
        description: "Evidence for one concept in each configured period, grouped period → work → section, with \
            NO_EVIDENCE_FOR_PERIOD for each period without any: when a term appears, changes or disappears.",
        not_for: "comparing concepts (compare_concepts)",
        params: &[
            CONCEPT,
            LANGUAGE,
            Param::optional("per_period", Kind::Integer { min: 1, max: 20 }, "Evidence items per period.")
                .with_default(DefaultValue::Integer(3)),
            DETAIL,
            CURSOR,
        ],
        timeout_secs: 60,
        hidden: false,
        searches: true,
    },
    ToolSpec {
        name: "compare_concepts",
        title: "Compare two concepts",
        description: "Evidence for two concepts side by side: one independent lane set per concept (never one \
            combined query), items marked a, b or both, and the relations between the two.",
        not_for: "single-concept evidence (find_concept_evidence)",
        params: &[
            Param::required("concept_a", Kind::Text, "First concept: entity id, name or alias."),
            Param::required("concept_b", Kind::Text, "Second concept: entity id, name or alias."),
            LANGUAGE,
            Param::optional("top_k", Kind::Integer { min: 1, max: 30 }, "Evidence items per side.")
                .with_default(DefaultValue::Integer(5)),
            DETAIL,
            CURSOR,
        ],
        timeout_secs: 60,
        hidden: false,
        searches: true,
    },
    ToolSpec {
        name: "trace_source",
        title: "Trace a passage to its source",
        description: "The provenance chain of a passage: passage → document → witness (edition, transcription \
            or translation) → source file → sha256, with byte and line spans, COMPLETE or \
            SOURCE_TRACE_INCOMPLETE. Use it before citing.",
        not_for: "semantic evidence (search_passages)",
        params: &[PASSAGE_ID],
        timeout_secs: 5,
        hidden: false,
        searches: false,
    },
    ToolSpec {
        name: "terminology_lookup",
        title: "Look up cross-lingual terminology",
        description: "Reviewed cross-lingual equivalents of a term (and drafts, flagged as such), in either \
            direction, with contrastive warnings where a term's scope differs across languages. Filter by source \
            and target language.",
        not_for: "translating sentences",
        params: &[
            Param::required("term", Kind::Text, "A term in any language, or an entity id."),
            Param::optional("source_language", Kind::Text, "Language of the term (\"any\" for all).")
                .with_default(DefaultValue::Text("any")),
            Param::optional("target_language", Kind::Text, "Language of the equivalents (\"any\" for all).")
                .with_default(DefaultValue::Text("any")),
        ],
        timeout_secs: 5,
        hidden: false,
        searches: false,
    },
    ToolSpec {
        name: "lane_search",
        title: "Run one retrieval lane",
        description: "Diagnostics: one lane's own ranked list, unfused, for seeing why search_passages ranked \
            as it did. Agents should use search_passages.",
        not_for: "research (search_passages)",
        params: &[
            Param::required("query", Kind::Query, "The query."),
            Param::required("lane", Kind::Choice(LANES), "The lane to run."),
            LANGUAGE,
            Param::optional("top_k", Kind::Integer { min: 1, max: 50 }, "How many items.")
                .with_default(DefaultValue::Integer(10)),
            DETAIL,
            CURSOR,
        ],
        timeout_secs: 30,
        hidden: true,
        searches: true,
    },
];

pub fn tool(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

pub fn alias(name: &str) -> Option<&'static Alias> {
    ALIASES.iter().find(|a| a.name == name)
}

/// The tools visible by default (the contract's set; the cap counts these).
pub fn default_visible() -> impl Iterator<Item = &'static ToolSpec> {
    TOOLS.iter().filter(|t| !t.hidden)
}
