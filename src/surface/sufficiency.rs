//! The sufficiency rules: one table deciding `evidence_state` from structural
//! signals only — counts of evidence, documents, works and periods, term and
//! entity coverage, agreement between lanes, trace completeness, ambiguity,
//! collisions. No similarity score appears here, and the verdict is never a
//! probability. Rules are checked in order; the first whose conditions all
//! hold fires and is named in `reasons`.

use schemars::JsonSchema;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    Supported,
    PartiallySupported,
    InsufficientEvidence,
    ConflictingEvidence,
}

impl State {
    pub(crate) const ALL: &'static [State] =
        &[State::Supported, State::PartiallySupported, State::InsufficientEvidence, State::ConflictingEvidence];

    /// The wire name (as serialized).
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            State::Supported => "SUPPORTED",
            State::PartiallySupported => "PARTIALLY_SUPPORTED",
            State::InsufficientEvidence => "INSUFFICIENT_EVIDENCE",
            State::ConflictingEvidence => "CONFLICTING_EVIDENCE",
        }
    }
}

/// What kind of research operation a tool performs; rules can be limited to some.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Operation {
    /// search_passages, find_concept_evidence.
    Search,
    /// trace_concept.
    Trace,
    /// compare_concepts.
    Compare,
    /// get_passage, get_context, trace_source.
    Lookup,
    /// resolve_entity, get_concept.
    Resolution,
    /// terminology_lookup.
    Terminology,
}

/// Defines the signals once: the `Signals` struct (one count per field), the
/// `Signal` a rule condition names (serialised as the field's name) and the
/// lookup between them.
macro_rules! signals {
    ($($(#[doc = $doc:literal])* $field:ident => $variant:ident,)*) => {
        /// The structural signals of one response. Every field is a count.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
        pub(crate) struct Signals {
            $($(#[doc = $doc])* pub(crate) $field: u32,)*
        }

        /// A signal a rule condition reads.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
        #[serde(rename_all = "snake_case")]
        // The rule language's vocabulary is published whole in the contract's schema;
        // the rules use a subset, so some variants are only ever serialised.
        #[allow(dead_code, reason = "variants no rule uses yet are still part of the published schema")]
        pub(crate) enum Signal {
            $($variant,)*
        }

        impl Signals {
            pub(crate) fn get(&self, signal: Signal) -> u32 {
                match signal {
                    $(Signal::$variant => self.$field,)*
                }
            }
        }
    };
}

signals! {
    evidence_n => EvidenceN,
    document_n => DocumentN,
    work_n => WorkN,
    period_n => PeriodN,
    /// Content words of the query.
    terms_n => TermsN,
    /// Content words found in at least one evidence item.
    terms_covered_n => TermsCoveredN,
    terms_uncovered_n => TermsUncoveredN,
    /// The most content words of the query found together in one evidence item.
    best_item_terms_n => BestItemTermsN,
    /// Content words some passage of the corpus contains, and those none does.
    terms_in_corpus_n => TermsInCorpusN,
    terms_not_in_corpus_n => TermsNotInCorpusN,
    /// Entities the request names or resolved to.
    entities_n => EntitiesN,
    /// Of those, entities some evidence item is linked to.
    entities_covered_n => EntitiesCoveredN,
    lanes_run_n => LanesRunN,
    /// Evidence items found by two or more independent lanes.
    multi_lane_n => MultiLaneN,
    /// Evidence items whose provenance chain is complete.
    trace_complete_n => TraceCompleteN,
    trace_incomplete_n => TraceIncompleteN,
    /// Terms that resolved to an entity with several senses.
    ambiguous_n => AmbiguousN,
    /// Terms that are aliases of two or more entities.
    collision_n => CollisionN,
    /// Colliding candidate entities that evidence items mention unambiguously.
    contested_with_evidence_n => ContestedWithEvidenceN,
    /// Entities resolved without ambiguity or collision.
    resolved_n => ResolvedN,
    /// Configured periods the operation covers, and those with no evidence.
    periods_n => PeriodsN,
    periods_missing_n => PeriodsMissingN,
    /// compare_concepts: sides, and sides without evidence.
    sides_n => SidesN,
    sides_empty_n => SidesEmptyN,
    /// terminology_lookup: mappings found, and the reviewed ones among them.
    mappings_n => MappingsN,
    reviewed_mappings_n => ReviewedMappingsN,
    /// Concept arguments that named several entities, so nothing was searched.
    undecided_n => UndecidedN,
    /// Key terms: the query's content words less those in a large share of the
    /// corpus's passages and the names of its authors (they name the corpus,
    /// not what is asked about).
    key_terms_n => KeyTermsN,
    /// Key terms no passage of the corpus contains, and their share (in thousandths) of the key weight.
    key_terms_absent_n => KeyTermsAbsentN,
    key_absent_permille => KeyAbsentPermille,
    /// The share, in thousandths, of the key terms' weight that the best
    /// evidence item holds together. A term weighs by its rarity in the corpus
    /// (ln of passages per passage containing it); absent terms weigh most.
    best_item_key_permille => BestItemKeyPermille,
    /// Evidence items holding a key term, a requested entity or a quoted phrase.
    supporting_n => SupportingN,
    /// Items found only by the vector lane that hold none of those: neighbours in meaning, not evidence.
    neighbours_n => NeighboursN,
    /// What backs the best item: other items holding at least half the key
    /// weight (or, for an entity question, linked to the entity), plus one when
    /// two lanes found the best item.
    corroboration_n => CorroborationN,
    /// Quoted phrases of the query, and those some evidence item contains word for word.
    phrases_n => PhrasesN,
    phrases_verbatim_n => PhrasesVerbatimN,
    /// 1 when the request names entities (other than the corpus's authors)
    /// and evidence covers every one of them.
    entities_all_covered_n => EntitiesAllCoveredN,
    /// Items that mention a namesake of a requested person (a longer name
    /// containing its name: "Erasmus Darwin" for "Darwin") and not the person:
    /// they speak of someone else and are not evidence.
    namesake_n => NamesakeN,
    /// Evidence items holding the rarest key term the corpus holds together
    /// with other key terms, a third of the key weight or more: the corpus
    /// speaks of what is asked, so words scattered over items are not read as
    /// its absence.
    rarest_with_more_n => RarestWithMoreN,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code, reason = "a comparison no rule uses yet is still part of the published schema")]
pub(crate) enum Cmp {
    Eq,
    Lt,
    Ge,
    Gt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Operand {
    Value(u32),
    Signal(Signal),
}

/// `signal cmp operand`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct Condition {
    pub(crate) signal: Signal,
    pub(crate) cmp: Cmp,
    pub(crate) operand: Operand,
}

const fn when(signal: Signal, cmp: Cmp, value: u32) -> Condition {
    Condition { signal, cmp, operand: Operand::Value(value) }
}

const fn when_signal(signal: Signal, cmp: Cmp, other: Signal) -> Condition {
    Condition { signal, cmp, operand: Operand::Signal(other) }
}

impl Condition {
    fn holds(&self, s: &Signals) -> bool {
        let left = s.get(self.signal);
        let right = match self.operand {
            Operand::Value(v) => v,
            Operand::Signal(other) => s.get(other),
        };
        match self.cmp {
            Cmp::Eq => left == right,
            Cmp::Lt => left < right,
            Cmp::Ge => left >= right,
            Cmp::Gt => left > right,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Rule {
    pub id: &'static str,
    pub(crate) state: State,
    /// Operations the rule applies to (all of them when empty).
    pub(crate) operations: &'static [Operation],
    /// All must hold.
    pub(crate) conditions: &'static [Condition],
    pub(crate) reason: &'static str,
}

use Operation::{Compare, Lookup, Resolution, Search, Terminology, Trace};
use Signal::*;
use State::{ConflictingEvidence, InsufficientEvidence, PartiallySupported, Supported};

const EVIDENCE_OPS: &[Operation] = &[Search, Trace, Compare];

/// Thousandths of the key-term weight one item must hold together: three
/// fifths for support, half for partial support (less is words scattered over
/// items). Weights come from the corpus's own term statistics, never from a
/// similarity score. Chosen on SciFact and Cranfield (`evident eval
/// --verdicts`; ARCHITECTURE.md gives the figures), stated here once.
pub(crate) const MOST_KEY_WEIGHT: u32 = 600;
pub(crate) const SOME_KEY_WEIGHT: u32 = 500;
/// Key terms the corpus lacks that carry at least half the key weight: the
/// question is about something the corpus does not hold.
pub(crate) const ABSENT_KEY_WEIGHT: u32 = 500;

/// The whole table. Order matters: the first rule that holds fires.
pub const RULES: &[Rule] = &[
    Rule {
        id: "conflicting.contested_reading",
        state: ConflictingEvidence,
        operations: EVIDENCE_OPS,
        conditions: &[when(ContestedWithEvidenceN, Cmp::Ge, 2)],
        reason: "a term names two or more entities and the evidence mentions at least two of them \
                 unambiguously: the corpus answers for different concepts; choose one with resolve_entity",
    },
    Rule {
        id: "insufficient.unresolved",
        state: InsufficientEvidence,
        operations: &[Resolution],
        conditions: &[when(ResolvedN, Cmp::Eq, 0), when(AmbiguousN, Cmp::Eq, 0), when(CollisionN, Cmp::Eq, 0)],
        reason: "the term names no entity of the corpus",
    },
    Rule {
        id: "insufficient.no_mapping",
        state: InsufficientEvidence,
        operations: &[Terminology],
        conditions: &[when(MappingsN, Cmp::Eq, 0)],
        reason: "no terminology mapping exists for the term",
    },
    Rule {
        id: "insufficient.concept_undecided",
        state: InsufficientEvidence,
        operations: EVIDENCE_OPS,
        conditions: &[when(UndecidedN, Cmp::Ge, 1)],
        reason: "a concept names several entities, so nothing was searched: pass one candidate's entity id \
                 (resolution.collisions lists them)",
    },
    Rule {
        id: "insufficient.no_evidence",
        state: InsufficientEvidence,
        operations: &[Search, Trace, Compare, Lookup],
        conditions: &[when(EvidenceN, Cmp::Eq, 0)],
        reason: "no evidence was found",
    },
    Rule {
        id: "supported.verbatim_phrase",
        state: Supported,
        operations: EVIDENCE_OPS,
        conditions: &[
            when(PhrasesN, Cmp::Ge, 1),
            when_signal(PhrasesVerbatimN, Cmp::Eq, PhrasesN),
            when(BestItemKeyPermille, Cmp::Ge, MOST_KEY_WEIGHT),
        ],
        reason: "the evidence contains every quoted phrase of the query word for word, with the query's key terms: \
                 a passage stating the phrase is direct evidence for it",
    },
    Rule {
        id: "insufficient.key_terms_not_in_corpus",
        state: InsufficientEvidence,
        operations: EVIDENCE_OPS,
        conditions: &[when(KeyAbsentPermille, Cmp::Ge, ABSENT_KEY_WEIGHT)],
        reason: "the query's rarest key terms, half its key weight or more, occur nowhere in the corpus (terms \
                 with in_corpus false in coverage.term_coverage): the corpus does not hold what is asked about",
    },
    Rule {
        id: "insufficient.namesakes_only",
        state: InsufficientEvidence,
        operations: EVIDENCE_OPS,
        conditions: &[when(NamesakeN, Cmp::Ge, 1), when(SupportingN, Cmp::Eq, 0)],
        reason: "the items that hold the query's words mention another person of the same name (NAMESAKE_MENTIONS), \
                 not the one asked about, and nothing else holds a key term: the corpus's evidence is about someone else",
    },
    Rule {
        id: "insufficient.neighbours_only",
        state: InsufficientEvidence,
        operations: EVIDENCE_OPS,
        conditions: &[when(SupportingN, Cmp::Eq, 0)],
        reason: "no item holds a key term, a requested entity or a quoted phrase: the passages returned are \
                 neighbours in meaning (NEIGHBOURS_ONLY), not evidence",
    },
    Rule {
        id: "insufficient.key_terms_scattered",
        state: InsufficientEvidence,
        operations: EVIDENCE_OPS,
        conditions: &[
            when(BestItemKeyPermille, Cmp::Lt, SOME_KEY_WEIGHT),
            when(EntitiesAllCoveredN, Cmp::Eq, 0),
            when(RarestWithMoreN, Cmp::Eq, 0),
        ],
        reason: "no evidence item holds half of the query's key-term weight together, none holds the rarest key \
                 term the corpus holds with others making a third of it, and no named entity is covered: the items match single \
                 words, not the question",
    },
    Rule {
        id: "partial.side_without_evidence",
        state: PartiallySupported,
        operations: &[Compare],
        conditions: &[when(SidesEmptyN, Cmp::Ge, 1)],
        reason: "one side of the comparison has no evidence",
    },
    Rule {
        id: "partial.period_gaps",
        state: PartiallySupported,
        operations: &[Trace],
        conditions: &[when(PeriodsMissingN, Cmp::Ge, 1)],
        reason: "some configured periods have no evidence (see NO_EVIDENCE_FOR_PERIOD)",
    },
    Rule {
        id: "partial.collision",
        state: PartiallySupported,
        operations: &[],
        conditions: &[when(CollisionN, Cmp::Ge, 1)],
        reason: "a term is an alias of several entities; the result mixes or omits readings",
    },
    Rule {
        id: "partial.ambiguous",
        state: PartiallySupported,
        operations: &[],
        conditions: &[when(AmbiguousN, Cmp::Ge, 1)],
        reason: "a term resolved to an entity with several senses; the evidence may use any of them",
    },
    Rule {
        id: "partial.draft_terminology",
        state: PartiallySupported,
        operations: &[Terminology],
        conditions: &[when(ReviewedMappingsN, Cmp::Eq, 0)],
        reason: "only draft (unreviewed) terminology mappings exist",
    },
    Rule {
        id: "partial.key_terms_not_in_corpus",
        state: PartiallySupported,
        operations: EVIDENCE_OPS,
        conditions: &[when(KeyTermsAbsentN, Cmp::Ge, 1)],
        reason: "a key term of the query occurs nowhere in the corpus: that part of the question has no evidence",
    },
    Rule {
        id: "partial.key_terms_apart",
        state: PartiallySupported,
        operations: EVIDENCE_OPS,
        conditions: &[when(BestItemKeyPermille, Cmp::Lt, MOST_KEY_WEIGHT), when(EntitiesAllCoveredN, Cmp::Eq, 0)],
        reason: "no evidence item holds three fifths of the query's key-term weight together: the evidence \
                 answers part of the question",
    },
    Rule {
        id: "partial.entities_missing",
        state: PartiallySupported,
        operations: EVIDENCE_OPS,
        conditions: &[when_signal(EntitiesCoveredN, Cmp::Lt, EntitiesN)],
        reason: "some requested entities are mentioned by no evidence item",
    },
    Rule {
        id: "partial.untraceable",
        state: PartiallySupported,
        operations: &[Search, Trace, Compare, Lookup],
        conditions: &[when(TraceCompleteN, Cmp::Eq, 0)],
        reason: "no evidence item traces completely to a hashed source file (and to a witness, where the corpus \
                 declares witnesses)",
    },
    Rule {
        id: "partial.uncorroborated",
        state: PartiallySupported,
        operations: EVIDENCE_OPS,
        conditions: &[when(CorroborationN, Cmp::Eq, 0)],
        reason: "one evidence item holds the question's key terms, and nothing backs it: no second such item and \
                 no second lane found it",
    },
    Rule {
        id: "supported.corroborated",
        state: Supported,
        operations: EVIDENCE_OPS,
        conditions: &[],
        reason: "an evidence item holds the query's key terms (or every named entity is covered), a second item \
                 or a second lane corroborates it, and the sources trace",
    },
    Rule {
        id: "supported.lookup",
        state: Supported,
        operations: &[Lookup],
        conditions: &[],
        reason: "the passages exist and trace to their source",
    },
    Rule {
        id: "supported.resolved",
        state: Supported,
        operations: &[Resolution],
        conditions: &[],
        reason: "the term resolves to exactly one entity",
    },
    Rule {
        id: "supported.terminology",
        state: Supported,
        operations: &[Terminology],
        conditions: &[],
        reason: "reviewed terminology mappings exist for the term",
    },
];

/// The verdict with what it was decided from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct EvidenceState {
    pub(crate) state: State,
    /// The rule that fired.
    pub(crate) rule: String,
    pub(crate) operation: Operation,
    pub(crate) signals: Signals,
    /// Why, in words: the fired rule's reason.
    pub(crate) reasons: Vec<String>,
}

/// Applies the table. Every operation reaches a fallback rule, so this never fails.
pub(crate) fn decide(operation: Operation, signals: Signals) -> EvidenceState {
    let fired = RULES.iter().find(|rule| {
        (rule.operations.is_empty() || rule.operations.contains(&operation))
            && rule.conditions.iter().all(|c| c.holds(&signals))
    });
    match fired {
        Some(rule) => EvidenceState {
            state: rule.state,
            rule: rule.id.to_owned(),
            operation,
            signals,
            reasons: vec![format!("{}: {}", rule.id, rule.reason)],
        },
        // Unreachable while every operation has a condition-free rule (a test pins it).
        None => EvidenceState {
            state: PartiallySupported,
            rule: "partial.no_rule".into(),
            operation,
            signals,
            reasons: vec!["no rule matched".into()],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corroborated() -> Signals {
        Signals {
            evidence_n: 10,
            document_n: 4,
            work_n: 2,
            period_n: 2,
            terms_n: 2,
            terms_covered_n: 2,
            best_item_terms_n: 2,
            terms_in_corpus_n: 2,
            entities_n: 1,
            entities_covered_n: 1,
            lanes_run_n: 3,
            multi_lane_n: 5,
            trace_complete_n: 10,
            resolved_n: 1,
            key_terms_n: 2,
            best_item_key_permille: 1000,
            supporting_n: 10,
            corroboration_n: 3,
            entities_all_covered_n: 1,
            ..Signals::default()
        }
    }

    /// A word-only question (no entity): its key terms decide.
    fn words_only(best: u32) -> Signals {
        Signals {
            entities_n: 0,
            entities_covered_n: 0,
            entities_all_covered_n: 0,
            best_item_key_permille: best,
            ..corroborated()
        }
    }

    #[test]
    fn every_operation_has_a_fallback_rule() {
        for op in [Search, Trace, Compare, Lookup, Resolution, Terminology] {
            assert!(
                RULES
                    .iter()
                    .any(|r| r.conditions.is_empty() && (r.operations.is_empty() || r.operations.contains(&op))),
                "{op:?}"
            );
        }
    }

    #[test]
    fn rule_ids_are_unique() {
        let mut ids: Vec<_> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
    }

    #[test]
    fn corroborated_search_is_supported() {
        let v = decide(Search, corroborated());
        assert_eq!(v.state, Supported);
        assert_eq!(v.rule, "supported.corroborated");
        assert!(v.reasons[0].starts_with("supported.corroborated"));
    }

    #[test]
    fn key_weight_held_together_decides_between_the_three_states() {
        assert_eq!(decide(Search, words_only(MOST_KEY_WEIGHT)).state, Supported);
        assert_eq!(decide(Search, words_only(MOST_KEY_WEIGHT - 1)).rule, "partial.key_terms_apart");
        assert_eq!(decide(Search, words_only(SOME_KEY_WEIGHT)).rule, "partial.key_terms_apart");
        assert_eq!(decide(Search, words_only(SOME_KEY_WEIGHT - 1)).rule, "insufficient.key_terms_scattered");
        // The rarest key term the corpus holds, in an item with another: the corpus speaks of it.
        let rarest = Signals { rarest_with_more_n: 1, ..words_only(SOME_KEY_WEIGHT - 1) };
        assert_eq!(decide(Search, rarest).rule, "partial.key_terms_apart");
        // A covered entity is what the question is about: scattered words do not sink it.
        let entity = Signals { best_item_key_permille: 0, ..corroborated() };
        assert_eq!(decide(Search, entity).state, Supported);
    }

    #[test]
    fn absent_key_terms_make_a_question_insufficient_or_partial_by_their_weight() {
        assert_eq!(decide(Search, Signals::default()).state, InsufficientEvidence);
        let mostly_absent =
            Signals { key_terms_absent_n: 1, key_absent_permille: ABSENT_KEY_WEIGHT, ..words_only(1000) };
        assert_eq!(decide(Search, mostly_absent).rule, "insufficient.key_terms_not_in_corpus");
        // Not even a covered entity answers a question about something the corpus lacks.
        let with_entity = Signals { key_terms_absent_n: 1, key_absent_permille: 700, ..corroborated() };
        assert_eq!(decide(Search, with_entity).rule, "insufficient.key_terms_not_in_corpus");
        let one_minor = Signals { key_terms_absent_n: 1, key_absent_permille: 200, ..words_only(800) };
        assert_eq!(decide(Search, one_minor).rule, "partial.key_terms_not_in_corpus");
    }

    #[test]
    fn neighbours_are_not_evidence() {
        let s = Signals { supporting_n: 0, neighbours_n: 10, ..words_only(0) };
        assert_eq!(decide(Search, s).rule, "insufficient.neighbours_only");
    }

    #[test]
    fn evidence_about_a_namesake_is_not_evidence() {
        let s = Signals { supporting_n: 0, namesake_n: 3, ..words_only(0) };
        assert_eq!(decide(Search, s).rule, "insufficient.namesakes_only");
        // Namesake items beside real evidence: the real evidence decides.
        let mixed = Signals { namesake_n: 3, ..words_only(1000) };
        assert_eq!(decide(Search, mixed).state, Supported);
    }

    #[test]
    fn a_quoted_phrase_found_word_for_word_supports_without_corroboration() {
        let s = Signals { phrases_n: 1, phrases_verbatim_n: 1, document_n: 1, corroboration_n: 0, ..words_only(1000) };
        assert_eq!(decide(Search, s).rule, "supported.verbatim_phrase");
        let missing = Signals { phrases_verbatim_n: 0, ..s };
        assert_eq!(decide(Search, missing).rule, "partial.uncorroborated");
    }

    #[test]
    fn contested_reading_is_conflicting_even_when_well_covered() {
        let s = Signals { collision_n: 1, contested_with_evidence_n: 2, ..corroborated() };
        assert_eq!(decide(Search, s).state, ConflictingEvidence);
        let one_side = Signals { collision_n: 1, contested_with_evidence_n: 1, ..corroborated() };
        assert_eq!(decide(Search, one_side).rule, "partial.collision");
    }

    #[test]
    fn an_undecided_concept_is_insufficient_for_its_own_reason() {
        let s = Signals { undecided_n: 1, collision_n: 1, ..Signals::default() };
        for op in [Search, Trace, Compare] {
            assert_eq!(decide(op, s).rule, "insufficient.concept_undecided", "{op:?}");
        }
    }

    #[test]
    fn all_states_lists_every_variant() {
        let schema = serde_json::to_value(schemars::schema_for!(State)).unwrap();
        let variants: Vec<String> =
            schema["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect();
        let listed: Vec<String> =
            State::ALL.iter().map(|s| serde_json::to_value(s).unwrap().as_str().unwrap().to_owned()).collect();
        assert_eq!(listed, variants);
        let named: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(listed, named, "as_str is the wire name");
    }

    #[test]
    fn trace_gaps_and_empty_sides_are_partial() {
        let gaps = Signals { periods_n: 3, periods_missing_n: 1, ..corroborated() };
        assert_eq!(decide(Trace, gaps).rule, "partial.period_gaps");
        assert_eq!(decide(Search, gaps).state, Supported);
        let side = Signals { sides_n: 2, sides_empty_n: 1, ..corroborated() };
        assert_eq!(decide(Compare, side).rule, "partial.side_without_evidence");
    }

    #[test]
    fn an_uncorroborated_best_item_is_partial() {
        let s = Signals { corroboration_n: 0, ..words_only(1000) };
        assert_eq!(decide(Search, s).rule, "partial.uncorroborated");
        let untraced = Signals { trace_complete_n: 0, trace_incomplete_n: 10, ..words_only(1000) };
        assert_eq!(decide(Search, untraced).rule, "partial.untraceable");
    }

    #[test]
    fn lookups_and_resolutions() {
        let found = Signals { evidence_n: 1, document_n: 1, trace_complete_n: 1, ..Signals::default() };
        assert_eq!(decide(Lookup, found).state, Supported);
        let untraced = Signals { trace_complete_n: 0, trace_incomplete_n: 1, ..found };
        assert_eq!(decide(Lookup, untraced).rule, "partial.untraceable");
        assert_eq!(decide(Resolution, Signals::default()).rule, "insufficient.unresolved");
        let resolved = Signals { resolved_n: 1, ..Signals::default() };
        assert_eq!(decide(Resolution, resolved).state, Supported);
        let ambiguous = Signals { ambiguous_n: 1, ..Signals::default() };
        assert_eq!(decide(Resolution, ambiguous).state, PartiallySupported);
        let drafts = Signals { mappings_n: 2, ..Signals::default() };
        assert_eq!(decide(Terminology, drafts).rule, "partial.draft_terminology");
        assert_eq!(decide(Terminology, Signals::default()).rule, "insufficient.no_mapping");
        let reviewed = Signals { mappings_n: 2, reviewed_mappings_n: 1, ..Signals::default() };
        assert_eq!(decide(Terminology, reviewed).state, Supported);
    }
}
