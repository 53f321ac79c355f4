//! Evidence as the tools work on it: the passage row, the lanes that found it
//! as `Lane` values, what the search found of its terms. Support, coverage and
//! the verdict read these; `Item::into_wire` is the one conversion to the
//! envelope's `EvidenceItem` (strings, snippets, `why_retrieved`), made once
//! at the end of a call.

use super::snippet;
use crate::lane::{KnownTerms, Lane};
use crate::store::PassageRow;
use crate::surface::envelope::{Contribution, EvidenceItem, ItemContext, ItemProvenance, Neighbours};

/// compare_concepts: which side's run found an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    A,
    B,
    /// Found by both runs (sent once).
    Both,
}

impl Side {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
            Side::Both => "both",
        }
    }
}

/// One lane's part in a ranked item's fused score (`explain`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Share {
    pub(crate) lane: Lane,
    pub(crate) rank: u32,
    pub(crate) weight: f64,
    pub(crate) contribution: f64,
}

/// Why an item is in the list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Why {
    /// Named by the caller (lookups), in words.
    Requested(String),
    /// Found by the lanes in `Item::ranks`.
    Ranked,
}

/// Why a returned item is not evidence (set by `assemble::finish` from the support assessment).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct NotEvidence {
    /// Found by meaning alone and holding no key term.
    pub(crate) neighbour: bool,
    /// About another person of the asked person's name.
    pub(crate) namesake: bool,
}

/// An evidence item inside a call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    pub(crate) passage: PassageRow,
    pub(crate) provenance: ItemProvenance,
    pub(crate) why: Why,
    /// Each lane that found it and its 1-based rank there, in the fusion's lane order.
    pub(crate) ranks: Vec<(Lane, u32)>,
    /// The fused rank score (0 for a requested item).
    pub(crate) score: f64,
    /// Its rank before a reranker reordered the list.
    pub(crate) fused_rank: Option<u32>,
    pub(crate) explanation: Option<Vec<Share>>,
    /// Entities the passage mentions.
    pub(crate) entities: Vec<String>,
    pub(crate) side: Option<Side>,
    pub(crate) neighbours: Option<Neighbours>,
    pub(crate) context: Option<ItemContext>,
    /// Byte ranges of the words that matched the query (where a snippet is cut).
    pub(crate) highlights: Vec<(usize, usize)>,
    /// What the search found of the passage's terms, when it ran (coverage reads it).
    pub(crate) tokens: Option<KnownTerms>,
    pub(crate) not_evidence: NotEvidence,
}

impl Item {
    /// An item with nothing but its passage and provenance.
    pub(crate) fn new(passage: PassageRow, provenance: ItemProvenance, why: Why) -> Self {
        Self {
            passage,
            provenance,
            why,
            ranks: Vec::new(),
            score: 0.0,
            fused_rank: None,
            explanation: None,
            entities: Vec::new(),
            side: None,
            neighbours: None,
            context: None,
            highlights: Vec::new(),
            tokens: None,
            not_evidence: NotEvidence::default(),
        }
    }

    /// How many independent kinds of lane found it (`Lane::kind`: lexical and feedback are one).
    pub(crate) fn independent_lanes(&self) -> usize {
        crate::lane::independent_lanes(self.ranks.iter().map(|(lane, _)| *lane))
    }

    /// Found only by associative lanes (vector, feedback), so by meaning or by words the query does not hold.
    pub(crate) fn found_by_association_only(&self) -> bool {
        !self.ranks.is_empty() && self.ranks.iter().all(|(lane, _)| lane.associative())
    }

    /// The item as the envelope carries it; `snippet` cuts its text (and its context's) to a snippet.
    pub(crate) fn into_wire(self, snippet: bool) -> EvidenceItem {
        let why_retrieved = self.why_retrieved();
        let Item {
            passage,
            provenance,
            ranks,
            score,
            fused_rank,
            explanation,
            entities,
            side,
            neighbours,
            context,
            highlights,
            why: _,
            tokens: _,
            not_evidence: _,
        } = self;
        let mut item = EvidenceItem {
            passage_id: passage.passage_id,
            document: passage.document_id,
            work: passage.work,
            section: passage.section,
            period: passage.period,
            year: passage.year,
            language: passage.language,
            ordinal: passage.ordinal,
            text: passage.text,
            full_text_chars: None,
            why_retrieved,
            component_ranks: ranks.iter().map(|(lane, rank)| (lane.as_str().to_owned(), *rank)).collect(),
            score,
            fused_rank,
            provenance,
            entities,
            side: side.map(|s| s.as_str().to_owned()),
            explanation: explanation.map(|shares| {
                shares
                    .into_iter()
                    .map(|s| Contribution {
                        lane: s.lane.as_str().to_owned(),
                        rank: s.rank,
                        weight: s.weight,
                        contribution: s.contribution,
                    })
                    .collect()
            }),
            neighbours,
            context,
        };
        if snippet {
            snippet::cut(&mut item, &highlights);
        }
        item
    }

    /// `why_retrieved`: how it was found, in words, then why it is not evidence.
    fn why_retrieved(&self) -> String {
        let mut why = match &self.why {
            Why::Requested(why) => why.clone(),
            Why::Ranked => {
                let parts: Vec<String> = self.ranks.iter().map(|(l, r)| format!("{} #{r}", l.as_str())).collect();
                match parts.len() {
                    0 => "no lane".to_owned(),
                    1 => format!("found by {}", parts[0]),
                    n => format!("found by {n} lanes: {}", parts.join(", ")),
                }
            }
        };
        if let Some(fused) = self.fused_rank {
            why.push_str(&format!("; reranked from fused rank {fused}"));
        }
        if self.not_evidence.neighbour {
            why.push_str(
                "; a neighbour only (found by meaning or by words the query does not hold): it holds no key term \
                 of the query (not evidence)",
            );
        }
        if self.not_evidence.namesake {
            why.push_str("; it names another person of the same name as the one asked about (not evidence)");
        }
        why
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::passage::PassageNo;
    use crate::surface::SNIPPET_CHARS;

    /// An item for tests (also `assemble`'s and `support`'s).
    pub(in crate::tools) fn item(
        id: &str,
        document: &str,
        text: &str,
        lanes: &[(Lane, u32)],
        entities: &[&str],
    ) -> Item {
        let passage = PassageRow {
            no: PassageNo(0),
            passage_id: id.into(),
            document_id: document.into(),
            ordinal: 1,
            text: text.into(),
            language: "en".into(),
            byte_start: 0,
            byte_end: text.len() as u64,
            line_start: 1,
            line_end: 1,
            title: None,
            work: Some(document.split('.').next().unwrap_or(document).into()),
            section: None,
            year: None,
            witness: Some("w".into()),
            period: None,
            source: "s.md".into(),
            pages: None,
        };
        let provenance = ItemProvenance {
            witness: Some("w".into()),
            source: "s.md".into(),
            source_sha256: "ab".into(),
            trace_status: super::super::assemble::TRACE_COMPLETE.into(),
            pages: None,
            citation: None,
        };
        let mut item = Item::new(passage, provenance, Why::Ranked);
        item.ranks = lanes.to_vec();
        item.entities = entities.iter().map(|e| (*e).to_owned()).collect();
        item
    }

    #[test]
    fn lanes_of_one_kind_count_once_and_associative_lanes_alone_make_a_neighbour() {
        let both = item("p.a.0001", "a", "x", &[(Lane::Lexical, 1), (Lane::Feedback, 2)], &[]);
        assert_eq!(both.independent_lanes(), 1);
        assert!(!both.found_by_association_only());
        let meaning = item("p.a.0002", "a", "x", &[(Lane::Vector, 1), (Lane::Feedback, 3)], &[]);
        assert_eq!(meaning.independent_lanes(), 2);
        assert!(meaning.found_by_association_only());
        assert!(!item("p.a.0003", "a", "x", &[], &[]).found_by_association_only());
    }

    #[test]
    fn the_wire_item_says_in_words_how_it_was_found_and_why_it_is_not_evidence() {
        let mut found = item("p.a.0001", "a", "x", &[(Lane::Vector, 2), (Lane::Lexical, 1)], &[]);
        found.fused_rank = Some(4);
        found.not_evidence.neighbour = true;
        let wire = found.into_wire(false);
        assert_eq!(
            wire.why_retrieved,
            "found by 2 lanes: vector #2, lexical #1; reranked from fused rank 4; a neighbour only (found by \
             meaning or by words the query does not hold): it holds no key term of the query (not evidence)"
        );
        // On the wire the ranks are keyed by lane name, in name order.
        assert_eq!(wire.component_ranks.into_iter().collect::<Vec<_>>(), [("lexical".into(), 1), ("vector".into(), 2)]);
        let mut asked = item("p.a.0002", "a", "x", &[], &[]);
        asked.why = Why::Requested("requested by id".into());
        assert_eq!(asked.into_wire(false).why_retrieved, "requested by id");
        assert_eq!(item("p.a.0003", "a", "x", &[], &[]).into_wire(false).why_retrieved, "no lane");
    }

    #[test]
    fn a_snippet_is_cut_only_when_asked_and_keeps_the_whole_length() {
        let long = "word ".repeat(200);
        let mut found = item("p.a.0001", "a", &long, &[(Lane::Lexical, 1)], &[]);
        found.highlights = vec![(500, 504)];
        let whole = found.clone().into_wire(false);
        assert_eq!((whole.text.len(), whole.full_text_chars), (long.len(), None));
        let cut = found.into_wire(true);
        assert!(cut.text.chars().count() <= SNIPPET_CHARS, "{}", cut.text);
        assert!(cut.text.starts_with('…'), "the window starts near the highlight: {}", cut.text);
        assert_eq!(cut.full_text_chars, Some(1000));
    }
}
