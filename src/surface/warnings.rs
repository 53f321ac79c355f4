//! The closed list of warning codes. Every warning a lane, a resolver or the
//! envelope raises is one of these; none is dropped on the way to the caller.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WarningCode {
    AmbiguousEntity,
    EntityCollision,
    UnresolvedTerm,
    SourceTraceIncomplete,
    NoEvidenceForPeriod,
    VectorLaneDisabled,
    ResponseTruncated,
    DeprecatedTool,
    NoReviewedDefinition,
    DraftTerminology,
    ContrastiveTerminology,
    NoEvidence,
    SharedEvidence,
    RelatedConcepts,
    DocumentBoundary,
    NeighboursOnly,
    NamesakeMentions,
    RerankUnavailable,
    SpellingVariant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Severity {
    /// Worth knowing; the result is usable as it is.
    Info,
    /// The result is usable with care; read `action`.
    Warning,
}

impl WarningCode {
    pub const ALL: &'static [WarningCode] = &[
        WarningCode::AmbiguousEntity,
        WarningCode::EntityCollision,
        WarningCode::UnresolvedTerm,
        WarningCode::SourceTraceIncomplete,
        WarningCode::NoEvidenceForPeriod,
        WarningCode::VectorLaneDisabled,
        WarningCode::ResponseTruncated,
        WarningCode::DeprecatedTool,
        WarningCode::NoReviewedDefinition,
        WarningCode::DraftTerminology,
        WarningCode::ContrastiveTerminology,
        WarningCode::NoEvidence,
        WarningCode::SharedEvidence,
        WarningCode::RelatedConcepts,
        WarningCode::DocumentBoundary,
        WarningCode::NeighboursOnly,
        WarningCode::NamesakeMentions,
        WarningCode::RerankUnavailable,
        WarningCode::SpellingVariant,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WarningCode::AmbiguousEntity => "AMBIGUOUS_ENTITY",
            WarningCode::EntityCollision => "ENTITY_COLLISION",
            WarningCode::UnresolvedTerm => "UNRESOLVED_TERM",
            WarningCode::SourceTraceIncomplete => "SOURCE_TRACE_INCOMPLETE",
            WarningCode::NoEvidenceForPeriod => "NO_EVIDENCE_FOR_PERIOD",
            WarningCode::VectorLaneDisabled => "VECTOR_LANE_DISABLED",
            WarningCode::ResponseTruncated => "RESPONSE_TRUNCATED",
            WarningCode::DeprecatedTool => "DEPRECATED_TOOL",
            WarningCode::NoReviewedDefinition => "NO_REVIEWED_DEFINITION",
            WarningCode::DraftTerminology => "DRAFT_TERMINOLOGY",
            WarningCode::ContrastiveTerminology => "CONTRASTIVE_TERMINOLOGY",
            WarningCode::NoEvidence => "NO_EVIDENCE",
            WarningCode::SharedEvidence => "SHARED_EVIDENCE",
            WarningCode::RelatedConcepts => "RELATED_CONCEPTS",
            WarningCode::DocumentBoundary => "DOCUMENT_BOUNDARY",
            WarningCode::NeighboursOnly => "NEIGHBOURS_ONLY",
            WarningCode::NamesakeMentions => "NAMESAKE_MENTIONS",
            WarningCode::RerankUnavailable => "RERANK_UNAVAILABLE",
            WarningCode::SpellingVariant => "SPELLING_VARIANT",
        }
    }

    pub(crate) fn severity(self) -> Severity {
        match self {
            WarningCode::VectorLaneDisabled
            | WarningCode::DeprecatedTool
            | WarningCode::NoReviewedDefinition
            | WarningCode::SharedEvidence
            | WarningCode::RelatedConcepts
            | WarningCode::DocumentBoundary => Severity::Info,
            _ => Severity::Warning,
        }
    }

    /// When the warning is raised, for the published list.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            WarningCode::AmbiguousEntity => "A term resolved to an entity with several senses.",
            WarningCode::EntityCollision => "A term is an alias of two or more entities.",
            WarningCode::UnresolvedTerm => "A term names no entity of the corpus.",
            WarningCode::SourceTraceIncomplete => "Evidence whose chain to a source file and witness has a gap.",
            WarningCode::NoEvidenceForPeriod => "A configured period has no evidence for the request.",
            WarningCode::VectorLaneDisabled => "The vector lane is off; lexical and entity lanes answered.",
            WarningCode::ResponseTruncated => "Evidence items were left out to fit the response budget.",
            WarningCode::DeprecatedTool => "The tool was called by a deprecated name.",
            WarningCode::NoReviewedDefinition => "The concept has no reviewed definition; none is generated.",
            WarningCode::DraftTerminology => "A terminology mapping is a draft, not reviewed.",
            WarningCode::ContrastiveTerminology => "A mapping's scope differs across languages (false friend).",
            WarningCode::NoEvidence => "The request found no evidence.",
            WarningCode::SharedEvidence => "Evidence items that mention both compared concepts.",
            WarningCode::RelatedConcepts => "The compared concepts are related in the concept graph.",
            WarningCode::DocumentBoundary => {
                "get_context's window reached the start or end of the document: fewer passages exist there."
            }
            WarningCode::NeighboursOnly => {
                "Only passages near the query in meaning were found, none sharing its key terms: not evidence."
            }
            WarningCode::NamesakeMentions => {
                "Evidence items name another person whose name contains a requested person's: not evidence for it."
            }
            WarningCode::RerankUnavailable => "A reranker was asked for and could not run; items are in fused order.",
            WarningCode::SpellingVariant => {
                "A query word occurs nowhere in the corpus, which holds another spelling of it: that was searched too."
            }
        }
    }
}

/// One warning as the caller sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct Warning {
    pub(crate) code: WarningCode,
    pub(crate) message: String,
    pub(crate) severity: Severity,
    /// What the caller can do about it.
    pub(crate) action: String,
}

impl Warning {
    pub(crate) fn new(code: WarningCode, message: impl Into<String>, action: impl Into<String>) -> Self {
        Self { code, message: message.into(), severity: code.severity(), action: action.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_variant_of_the_enum() {
        let listed: std::collections::BTreeSet<String> =
            WarningCode::ALL.iter().map(|c| c.as_str().to_owned()).collect();
        let schema = serde_json::to_value(schemars::schema_for!(WarningCode)).unwrap();
        let variants: std::collections::BTreeSet<String> =
            schema["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
        assert_eq!(listed, variants);
    }

    #[test]
    fn serialized_codes_match_as_str() {
        for code in WarningCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), serde_json::json!(code.as_str()));
        }
    }
}
