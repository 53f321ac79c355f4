//! The routing policy: one rule table deciding which lanes run, with which
//! weights, for each `retrieval_mode`. The table is data, so the MCP
//! `retrieval` section and the published contract can show it as it is.

use serde::Serialize;

use crate::lane::Lane;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RetrievalMode {
    /// Lanes chosen by the rule table from the query itself.
    #[default]
    Auto,
    Lexical,
    Vector,
    /// Lexical and vector, fused.
    Hybrid,
    /// Exact phrases (the quoted spans, or the whole query) and passage ids.
    Exact,
}

impl RetrievalMode {
    pub(crate) const ALL: [RetrievalMode; 5] = [
        RetrievalMode::Auto,
        RetrievalMode::Lexical,
        RetrievalMode::Vector,
        RetrievalMode::Hybrid,
        RetrievalMode::Exact,
    ];
    /// The names, in `ALL` order: the `retrieval_mode` schema's choices and the CLI's values.
    pub(crate) const NAMES: [&'static str; 5] = crate::text::names_of!(Self::ALL, 5);

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            RetrievalMode::Auto => "auto",
            RetrievalMode::Lexical => "lexical",
            RetrievalMode::Vector => "vector",
            RetrievalMode::Hybrid => "hybrid",
            RetrievalMode::Exact => "exact",
        }
    }
}

impl std::str::FromStr for RetrievalMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::text::parse_named(&Self::ALL, Self::as_str, s, "retrieval mode")
    }
}

impl std::fmt::Display for RetrievalMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What reorders the fused list (a choice of policy, like the mode; the
/// model behind it lives in `rerank`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Rerank {
    /// The fused order stands.
    #[default]
    None,
    /// The cross-encoder `rerank::CROSS_ENCODER_MODEL` reorders the fused top N.
    CrossEncoder,
}

impl Rerank {
    pub(crate) const ALL: [Rerank; 2] = [Rerank::None, Rerank::CrossEncoder];
    /// The names, in `ALL` order: the `rerank` parameter's choices and the CLI's values.
    pub(crate) const NAMES: [&'static str; 2] = crate::text::names_of!(Self::ALL, 2);

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Rerank::None => "none",
            Rerank::CrossEncoder => "cross_encoder",
        }
    }
}

impl std::str::FromStr for Rerank {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::text::parse_named(&Self::ALL, Self::as_str, s, "reranker")
    }
}

/// When a rule applies (checked in table order; the first match wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Condition {
    /// The query contains a quoted phrase.
    QuotedPhrase,
    /// The query names a concept that resolves to exactly one entity.
    ResolvedConcept,
    Always,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct RoutingRule {
    pub(crate) id: &'static str,
    pub(crate) mode: RetrievalMode,
    pub(crate) when: Condition,
    /// Lanes and their RRF weights.
    pub(crate) lanes: &'static [(Lane, f64)],
    /// Lanes run in the vector lane's place when it is off (no model, no
    /// vectors, a damaged store). The feedback lane bridges vocabulary as the
    /// vector lane does, and helps without it on every collection measured;
    /// beside the default model it lost on SciFact (benches/README.md, "The
    /// feedback lane"), so it is not run there.
    pub(crate) without_vector: &'static [(Lane, f64)],
}

const FEEDBACK: &[(Lane, f64)] = &[(Lane::Feedback, 1.0)];

/// The whole policy. Order matters within a mode: the first rule whose condition holds fires.
pub(crate) const RULES: &[RoutingRule] = &[
    RoutingRule {
        id: "auto.quoted_phrase",
        mode: RetrievalMode::Auto,
        when: Condition::QuotedPhrase,
        lanes: &[(Lane::Exact, 1.0), (Lane::Lexical, 1.0)],
        without_vector: &[],
    },
    RoutingRule {
        id: "auto.concept",
        mode: RetrievalMode::Auto,
        when: Condition::ResolvedConcept,
        lanes: &[(Lane::Entity, 1.0), (Lane::Lexical, 1.0), (Lane::Vector, 1.0)],
        without_vector: &[],
    },
    RoutingRule {
        id: "auto.default",
        mode: RetrievalMode::Auto,
        when: Condition::Always,
        lanes: &[(Lane::Lexical, 1.0), (Lane::Vector, 1.0)],
        without_vector: FEEDBACK,
    },
    RoutingRule {
        id: "lexical",
        mode: RetrievalMode::Lexical,
        when: Condition::Always,
        lanes: &[(Lane::Lexical, 1.0)],
        without_vector: &[],
    },
    RoutingRule {
        id: "vector",
        mode: RetrievalMode::Vector,
        when: Condition::Always,
        lanes: &[(Lane::Vector, 1.0)],
        without_vector: &[],
    },
    RoutingRule {
        id: "hybrid",
        mode: RetrievalMode::Hybrid,
        when: Condition::Always,
        lanes: &[(Lane::Lexical, 1.0), (Lane::Vector, 1.0)],
        without_vector: FEEDBACK,
    },
    RoutingRule {
        id: "exact",
        mode: RetrievalMode::Exact,
        when: Condition::Always,
        lanes: &[(Lane::Exact, 1.0)],
        without_vector: &[],
    },
];

/// What routing looks at in a query.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct QuerySignals {
    pub(crate) quoted_phrase: bool,
    pub(crate) resolved_concept: bool,
    /// The query is quoted phrases and nothing else: the exact and the lexical
    /// lane would run one identical phrase query.
    pub(crate) phrases_only: bool,
}

/// The lanes to run: the rule that fired and its lanes. A forced `vector`
/// mode keeps the vector lane even when it is disabled (the caller reports the
/// error); otherwise a disabled vector lane is dropped and the caller warns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Route {
    pub(crate) rule: &'static str,
    pub(crate) lanes: Vec<(Lane, f64)>,
    /// The vector lane was in the rule but is disabled, so it was left out.
    pub(crate) vector_dropped: bool,
}

/// The lanes a rule runs in the vector lane's place (none for an unknown rule).
pub(crate) fn without_vector(rule: &str) -> &'static [(Lane, f64)] {
    RULES.iter().find(|r| r.id == rule).map_or(&[], |r| r.without_vector)
}

/// `vector_enabled` is asked only when the rule that fires runs the vector
/// lane: it may wait for the lane to load, which a lexical search never does.
/// A phrase-only query runs its phrase query once, in the exact lane (the
/// lexical lane would find the same passages in the same order and count as a
/// second, independent lane).
pub(crate) fn route(mode: RetrievalMode, signals: QuerySignals, vector_enabled: impl FnOnce() -> bool) -> Route {
    let rule = RULES
        .iter()
        .filter(|r| r.mode == mode)
        .find(|r| match r.when {
            Condition::QuotedPhrase => signals.quoted_phrase,
            Condition::ResolvedConcept => signals.resolved_concept,
            Condition::Always => true,
        })
        .unwrap_or(&RULES[RULES.len() - 1]);
    let has = |lane: Lane| rule.lanes.iter().any(|(l, _)| *l == lane);
    // A forced vector search keeps the lane even when it is off (the caller reports the error).
    let keep_vector = mode == RetrievalMode::Vector || (has(Lane::Vector) && vector_enabled());
    let vector_dropped = has(Lane::Vector) && !keep_vector;
    let same_phrase_query = signals.phrases_only && has(Lane::Exact);
    let mut lanes: Vec<(Lane, f64)> = rule
        .lanes
        .iter()
        .copied()
        .filter(|(l, _)| *l != Lane::Vector || keep_vector)
        .filter(|(l, _)| !(*l == Lane::Lexical && same_phrase_query))
        .collect();
    if vector_dropped {
        lanes.extend_from_slice(rule.without_vector);
    }
    Route { rule: rule.id, lanes, vector_dropped }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_has_a_rule_that_always_fires() {
        for mode in [
            RetrievalMode::Auto,
            RetrievalMode::Lexical,
            RetrievalMode::Vector,
            RetrievalMode::Hybrid,
            RetrievalMode::Exact,
        ] {
            assert!(RULES.iter().any(|r| r.mode == mode && r.when == Condition::Always), "{mode:?}");
        }
    }

    #[test]
    fn auto_follows_the_table() {
        let phrase = QuerySignals { quoted_phrase: true, resolved_concept: true, phrases_only: false };
        assert_eq!(route(RetrievalMode::Auto, phrase, || true).rule, "auto.quoted_phrase");
        let concept = QuerySignals { quoted_phrase: false, resolved_concept: true, phrases_only: false };
        let r = route(RetrievalMode::Auto, concept, || true);
        assert_eq!(r.rule, "auto.concept");
        assert_eq!(r.lanes.iter().map(|l| l.0).collect::<Vec<_>>(), vec![Lane::Entity, Lane::Lexical, Lane::Vector]);
        assert_eq!(route(RetrievalMode::Auto, QuerySignals::default(), || true).rule, "auto.default");
    }

    #[test]
    fn disabled_vector_lane_is_dropped_unless_forced() {
        let r = route(RetrievalMode::Hybrid, QuerySignals::default(), || false);
        assert_eq!(r.lanes, vec![(Lane::Lexical, 1.0), (Lane::Feedback, 1.0)], "feedback in the vector lane's place");
        let with_vector = route(RetrievalMode::Hybrid, QuerySignals::default(), || true);
        assert_eq!(with_vector.lanes, vec![(Lane::Lexical, 1.0), (Lane::Vector, 1.0)]);
        assert!(r.vector_dropped);
        let forced = route(RetrievalMode::Vector, QuerySignals::default(), || false);
        assert_eq!(forced.lanes, vec![(Lane::Vector, 1.0)]);
        assert!(!forced.vector_dropped);
    }

    #[test]
    fn a_phrase_only_query_runs_one_phrase_query_and_a_lexical_route_never_asks_for_the_vector_lane() {
        let only = QuerySignals { quoted_phrase: true, resolved_concept: false, phrases_only: true };
        let r = route(RetrievalMode::Auto, only, || panic!("no vector lane in this rule"));
        assert_eq!((r.rule, r.lanes), ("auto.quoted_phrase", vec![(Lane::Exact, 1.0)]));
        let mixed = QuerySignals { phrases_only: false, ..only };
        let lanes: Vec<Lane> = route(RetrievalMode::Auto, mixed, || true).lanes.iter().map(|l| l.0).collect();
        assert_eq!(lanes, vec![Lane::Exact, Lane::Lexical], "free words beside the phrase: both lanes");
        // A forced lexical search of a phrase keeps its one lane.
        assert_eq!(route(RetrievalMode::Lexical, only, || panic!("asked")).lanes, vec![(Lane::Lexical, 1.0)]);
        assert_eq!(route(RetrievalMode::Exact, QuerySignals::default(), || panic!("asked")).rule, "exact");
    }
}
