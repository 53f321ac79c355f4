//! The concept tools: resolve_entity, get_concept, find_concept_evidence,
//! trace_concept and compare_concepts. Evidence for a concept is always
//! constrained to passages linked to that one entity.

use std::collections::BTreeMap;
use std::time::Instant;

use super::{filters, fusion_of, known, retrieval, took_ms, vector_warning};
use crate::corpus::Entity;
use crate::lane::Filters;
use crate::lane::{Lane, LaneHits};
use crate::search::Reader;
use crate::search::{SearchOutcome, SearchRequest};
use crate::surface::Operation;
use crate::surface::envelope::*;
use crate::surface::{ErrorCode, ToolError};
use crate::surface::{Warning, WarningCode};
use crate::tools::args::Args;
use crate::tools::assemble::{Draft, Facts, Finished, ItemBuilder, finish};
use crate::tools::evidence::{Item, Side};
use crate::tools::resolve::{self, Concept, require_one, resolve_term};

pub(crate) fn resolve_entity(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let language = args.language("language");
    let mut resolution = resolve_term(index, args.required("term")?, language.as_deref());
    if let Some(context) = args.text("context") {
        let mentions = index.concepts().mentions(context, None);
        let count = |id: &str| mentions.iter().filter(|m| m.entity == id).map(|m| m.count).sum::<u32>();
        for e in
            resolution.entities.iter_mut().chain(resolution.collisions.iter_mut().flat_map(|c| c.candidates.iter_mut()))
        {
            e.context_mentions = Some(count(&e.id));
        }
    }
    let mut draft = Draft::new(Operation::Resolution, args.understood());
    draft.warnings = resolve::warnings(&resolution);
    draft.resolution = resolution;
    Ok(finish(index, draft))
}

/// Linked passages of `entity` shown on its card.
const CARD_EVIDENCE: usize = 5;

pub(crate) fn get_concept(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let (entity, mut resolution) = match require_one(index, args.required("entity_id")?, None)? {
        Concept::One(entity, resolution) => (entity, resolution),
        Concept::Undecided(resolution) => {
            return Ok(unresolved(index, args, Operation::Resolution, resolution));
        }
    };
    let linked = index.passages_mentioning(std::slice::from_ref(&entity.id), &Filters::default())?;
    let mut languages: Vec<String> = entity.aliases.iter().map(|a| a.language.clone()).collect();
    languages.sort();
    languages.dedup();
    let card = ConceptCard {
        id: entity.id.clone(),
        name: entity.name.clone(),
        kind: entity.kind.clone(),
        aliases: entity
            .aliases
            .iter()
            .map(|a| AliasOut {
                name: a.name.clone(),
                language: a.language.clone(),
                review_status: a.review_status.clone(),
            })
            .collect(),
        languages,
        status: entity.status.clone(),
        review_status: entity.review_status.clone(),
        period: entity.period.clone(),
        ambiguous: entity.ambiguous,
        senses: entity.senses.clone(),
        relations: entity
            .relations
            .iter()
            .map(|r| RelationOut {
                relation: r.relation.clone(),
                target: r.target.clone(),
                target_name: index.concepts().entity(&r.target).map(|t| t.name.clone()),
            })
            .collect(),
        linked_passages: u32::try_from(linked.len()).unwrap_or(u32::MAX),
        definition_status: if entity.definition.is_some() { "reviewed" } else { "none" }.to_owned(),
        definition: entity.definition.clone(),
    };
    let mut draft = Draft::new(Operation::Resolution, args.understood());
    resolution.concept = Some(card);
    draft.warnings = resolve::warnings(&resolution);
    if entity.definition.is_none() {
        draft.warnings.push(Warning::new(
            WarningCode::NoReviewedDefinition,
            format!("{} has no reviewed definition; evident does not write one", entity.id),
            "define the concept from the evidence (find_concept_evidence) and cite the passages",
        ));
    }
    draft.resolution = resolution;
    let ranking = LaneHits::from_scored(Lane::Entity, linked.iter().map(|(no, n)| (*no, *n as f32)).collect());
    draft.evidence = ItemBuilder::new(index).ranked_lane(&ranking, CARD_EVIDENCE)?;
    draft.retrieval.lanes = vec![Lane::Entity.as_str().to_owned()];
    draft.retrieval.route = Some("concept.card".to_owned());
    draft.retrieval.lane_counts = vec![LaneCount { lane: "entity".into(), candidates: linked.len() }];
    draft.retrieval.vector_enabled = index.vector_disabled_reason().is_none();
    Ok(finish(index, draft))
}

/// The text the lexical and vector lanes search for a concept: a reviewed
/// name in the requested language, else the canonical name.
fn concept_query(entity: &Entity, language: Option<&str>) -> String {
    language
        .and_then(|l| {
            entity
                .aliases
                .iter()
                .find(|a| a.language == l && a.review_status == "reviewed")
                .or_else(|| entity.aliases.iter().find(|a| a.language == l))
        })
        .map_or_else(|| entity.name.clone(), |a| a.name.clone())
}

/// The lanes of several independent runs, summed for the retrieval section.
#[derive(Default)]
struct RunTotals {
    /// Lane → (candidates over all runs, fusion weight).
    lanes: BTreeMap<Lane, (usize, f64)>,
}

impl RunTotals {
    fn add(&mut self, outcome: &SearchOutcome) {
        for (lane, weight) in &outcome.route.lanes {
            let candidates = outcome.lane_counts.iter().find(|(l, _)| l == lane).map_or(0, |(_, n)| *n);
            let slot = self.lanes.entry(*lane).or_insert((0, *weight));
            slot.0 += candidates;
        }
    }

    fn summarise(&self, retrieval: &mut Retrieval, route: &str, index: &Reader, start: Instant) {
        retrieval.route = Some(route.to_owned());
        retrieval.lanes = self.lanes.keys().map(|l| l.as_str().to_owned()).collect();
        retrieval.lane_counts =
            self.lanes.iter().map(|(l, (n, _))| LaneCount { lane: l.as_str().to_owned(), candidates: *n }).collect();
        retrieval.vector_enabled = index.vector_disabled_reason().is_none();
        let weights: Vec<(Lane, f64)> = self.lanes.iter().map(|(l, (_, w))| (*l, *w)).collect();
        retrieval.fusion = Some(fusion_of(crate::fusion::FusionMethod::default(), &weights));
        retrieval.took_ms = took_ms(start);
    }
}

/// One independent lane set for one concept.
fn concept_search(
    index: &Reader,
    entity: &Entity,
    mut filters: Filters,
    top_k: usize,
) -> Result<(SearchOutcome, String), ToolError> {
    filters.entities = vec![entity.id.clone()];
    let query = concept_query(entity, filters.language.as_deref());
    let request = SearchRequest {
        query: query.clone(),
        top_k,
        filters,
        concepts: Some(vec![entity.id.clone()]),
        ..SearchRequest::default()
    };
    Ok((index.search(&request)?, query))
}

fn run_out(label: &str, query: &str, outcome: &SearchOutcome) -> LaneRunOut {
    LaneRunOut {
        label: label.to_owned(),
        query: query.to_owned(),
        route: outcome.route.rule.to_owned(),
        lanes: outcome.lanes.iter().map(|l| l.as_str().to_owned()).collect(),
        lane_counts: outcome
            .lane_counts
            .iter()
            .map(|(l, n)| LaneCount { lane: l.as_str().to_owned(), candidates: *n })
            .collect(),
    }
}

/// A concept that did not resolve to one entity: an envelope listing the
/// candidates, with no evidence (nothing was searched).
fn unresolved(index: &Reader, args: &Args, operation: Operation, resolution: Resolution) -> Finished {
    let mut draft = Draft::new(operation, args.understood());
    draft.asked.undecided = 1;
    draft.warnings = resolve::warnings(&resolution);
    draft.resolution = resolution;
    finish(index, draft)
}

pub(crate) fn find_concept_evidence(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let start = Instant::now();
    // find_concept_evidence has no `entities` parameter, so its filters name no colliding entity.
    let (filters, _) = filters(index, args)?;
    let (entity, resolution) = match require_one(index, args.required("concept")?, filters.language.as_deref())? {
        Concept::One(entity, resolution) => (entity, resolution),
        Concept::Undecided(resolution) => return Ok(unresolved(index, args, Operation::Search, resolution)),
    };
    let (outcome, _) = concept_search(index, entity, filters, args.count("top_k")?)?;
    let mut draft = Draft::new(Operation::Search, args.understood());
    draft.asked.entities = vec![entity.id.clone()];
    draft.retrieval = retrieval(&outcome, crate::fusion::FusionMethod::default(), start);
    draft.warnings = resolve::warnings(&resolution);
    draft.warnings.extend(vector_warning(index, &outcome));
    draft.resolution = resolution;
    let lanes = outcome.route.lanes.clone();
    draft.evidence = ItemBuilder::new(index).hits(outcome.hits, &lanes, false)?;
    Ok(finish(index, draft))
}

/// A stretch of time trace_concept searches: a configured period, or everything.
struct Span {
    id: String,
    label: String,
    years: Option<(i32, i32)>,
}

pub(crate) fn trace_concept(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let start = Instant::now();
    let language = args.language("language");
    known(language.as_deref(), &index.languages, ErrorCode::LanguageNotFound, "language")?;
    let (entity, resolution) = match require_one(index, args.required("concept")?, language.as_deref())? {
        Concept::One(entity, resolution) => (entity, resolution),
        Concept::Undecided(resolution) => return Ok(unresolved(index, args, Operation::Trace, resolution)),
    };
    let per_period = args.count("per_period")?;
    let base = Filters { language: language.clone(), ..Filters::default() };
    let mut draft = Draft::new(Operation::Trace, args.understood());
    let (mut periods, mut groups) = (Vec::new(), Vec::new());
    let mut builder = ItemBuilder::new(index);
    let mut totals = RunTotals::default();
    let mut warned_vector = false;
    // Without configured periods the whole corpus is one span.
    let spans: Vec<Span> = if index.periods.is_empty() {
        vec![Span { id: "all".to_owned(), label: "whole corpus".to_owned(), years: None }]
    } else {
        index
            .periods
            .iter()
            .map(|p| Span { id: p.id.clone(), label: p.label.clone(), years: Some((p.start_year, p.end_year)) })
            .collect()
    };
    for Span { id, label, years } in &spans {
        let filters = Filters { years: *years, ..base.clone() };
        let (outcome, query) = concept_search(index, entity, filters, per_period)?;
        totals.add(&outcome);
        if !warned_vector && let Some(w) = vector_warning(index, &outcome) {
            draft.warnings.push(w);
            warned_vector = true;
        }
        draft.retrieval.runs.push(run_out(id, &query, &outcome));
        let lanes = outcome.route.lanes.clone();
        let mut items = builder.hits(outcome.hits, &lanes, false)?;
        // Grouped reading order: work, then document (section), then position.
        fn place(item: &Item) -> (&Option<String>, &str, u32) {
            (&item.passage.work, &item.passage.document_id, item.passage.ordinal)
        }
        items.sort_by(|a, b| place(a).cmp(&place(b)));
        let mut works: Vec<WorkGroup> = Vec::new();
        for passage in items.iter().map(|i| &i.passage) {
            if works.last().is_none_or(|w| w.work != passage.work) {
                works.push(WorkGroup { work: passage.work.clone(), sections: Vec::new() });
            }
            if let Some(work) = works.last_mut() {
                if work.sections.last().is_none_or(|s| s.section != passage.section) {
                    work.sections.push(SectionGroup { section: passage.section.clone(), passage_ids: Vec::new() });
                }
                if let Some(section) = work.sections.last_mut() {
                    section.passage_ids.push(passage.passage_id.clone());
                }
            }
        }
        if let Some((first, last)) = years {
            groups.push(PeriodGroup {
                period: id.clone(),
                label: label.clone(),
                start_year: *first,
                end_year: *last,
                evidence_n: items.len(),
                works,
            });
            periods.push(id.clone());
        }
        draft.evidence.extend(items);
    }
    draft.facts = Facts::Trace { periods, groups };
    draft.asked.entities = vec![entity.id.clone()];
    totals.summarise(&mut draft.retrieval, "trace.per_period", index, start);
    draft.warnings.splice(0..0, resolve::warnings(&resolution));
    draft.resolution = resolution;
    Ok(finish(index, draft))
}

pub(crate) fn compare_concepts(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let start = Instant::now();
    let language = args.language("language");
    known(language.as_deref(), &index.languages, ErrorCode::LanguageNotFound, "language")?;
    let mut sides = Vec::new();
    for key in ["concept_a", "concept_b"] {
        match require_one(index, args.required(key)?, language.as_deref())? {
            Concept::One(entity, resolution) => sides.push((entity, resolution)),
            Concept::Undecided(resolution) => {
                return Ok(unresolved(index, args, Operation::Compare, resolution));
            }
        }
    }
    let top_k = args.count("top_k")?;
    let mut draft = Draft::new(Operation::Compare, args.understood());
    let mut builder = ItemBuilder::new(index);
    let mut totals = RunTotals::default();
    let ids: Vec<String> = sides.iter().map(|(e, _)| e.id.clone()).collect();
    let mut coverage = Vec::new();
    for ((entity, resolution), side) in sides.iter().zip([Side::A, Side::B]) {
        let label = side.as_str();
        let filters = Filters { language: language.clone(), ..Filters::default() };
        let (outcome, query) = concept_search(index, entity, filters, top_k)?;
        totals.add(&outcome);
        if side == Side::A {
            draft.warnings.extend(vector_warning(index, &outcome));
        }
        draft.retrieval.runs.push(run_out(label, &query, &outcome));
        let lanes = outcome.route.lanes.clone();
        let items = builder.hits(outcome.hits, &lanes, false)?;
        let passages = || items.iter().map(|i| &i.passage);
        coverage.push(SideCoverage {
            side: label.to_owned(),
            entity_id: entity.id.clone(),
            evidence_n: items.len(),
            document_n: passages().map(|p| &p.document_id).collect::<std::collections::BTreeSet<_>>().len(),
            work_n: passages().filter_map(|p| p.work.as_ref()).collect::<std::collections::BTreeSet<_>>().len(),
            passage_ids: passages().map(|p| p.passage_id.clone()).collect(),
        });
        // A passage both runs found is sent once: the first side's item becomes `both`.
        for mut item in items {
            match draft.evidence.iter_mut().find(|e| e.passage.passage_id == item.passage.passage_id) {
                Some(earlier) => earlier.side = Some(Side::Both),
                None => {
                    item.side = Some(side);
                    draft.evidence.push(item);
                }
            }
        }
        draft.resolution.entities.extend(resolution.entities.iter().cloned());
        draft.resolution.ambiguous.extend(resolution.ambiguous.iter().cloned());
    }
    let shared: Vec<&str> = draft
        .evidence
        .iter()
        .filter(|i| ids.iter().all(|id| i.entities.contains(id)))
        .map(|i| i.passage.passage_id.as_str())
        .collect();
    let mut warnings = resolve::warnings(&draft.resolution);
    if !shared.is_empty() {
        let mut distinct = shared.clone();
        distinct.sort_unstable();
        distinct.dedup();
        warnings.push(Warning::new(
            WarningCode::SharedEvidence,
            format!("{} evidence passages mention both concepts: {}", distinct.len(), distinct.join(", ")),
            "read them first: they relate the two concepts directly",
        ));
    }
    let (a, b) = (sides[0].0, sides[1].0);
    for (from, to) in [(a, b), (b, a)] {
        for r in from.relations.iter().filter(|r| r.target == to.id) {
            warnings.push(Warning::new(
                WarningCode::RelatedConcepts,
                format!("{} is `{}` of {} in the concept graph", from.id, r.relation, to.id),
                "keep the relation in mind: evidence for one may be evidence for the other",
            ));
        }
    }
    for mapping in index.terminology.iter().filter(|m| ids.contains(&m.entity) && !m.warnings.is_empty()) {
        warnings.push(Warning::new(
            WarningCode::ContrastiveTerminology,
            format!("{} → {}: {}", mapping.source_term, mapping.target_term, mapping.warnings.join("; ")),
            "compare within one language, or check terminology_lookup before comparing across languages",
        ));
    }
    warnings.append(&mut draft.warnings);
    draft.warnings = warnings;
    draft.asked.entities = ids;
    draft.facts = Facts::Compare(coverage);
    totals.summarise(&mut draft.retrieval, "compare.independent", index, start);
    Ok(finish(index, draft))
}
