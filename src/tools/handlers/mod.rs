//! Tool handlers: each turns validated arguments into a draft envelope and
//! finishes it with `assemble`. Handlers only read the index.

pub(crate) mod concept;
pub(crate) mod passage;
pub(crate) mod search;
pub(crate) mod terminology;

use std::time::Instant;

use super::args::Args;
use super::resolve::{self, Concept};
use crate::fusion::{DEFAULT_K, FusionMethod};
use crate::lane::Filters;
use crate::search::Reader;
use crate::search::SearchOutcome;
use crate::surface::envelope::{Collision, Fusion, LaneCount, LaneWeight, RerankOut, Retrieval};
use crate::surface::{ErrorCode, ToolError, echo};
use crate::surface::{Warning, WarningCode};

/// The filters common to the search tools, checked against the corpus, and
/// the collisions of names in the `entities` filter (for the resolution section).
pub(crate) fn filters(index: &Reader, args: &Args) -> Result<(Filters, Vec<Collision>), ToolError> {
    let years = match args.text("period").map(str::trim) {
        None => None,
        Some(id) => {
            let period = index.period(id).ok_or_else(|| {
                let known: Vec<&str> = index.periods.iter().map(|p| p.id.as_str()).collect();
                ToolError::new(
                    ErrorCode::PeriodNotFound,
                    format!(
                        "no period `{}`; configured periods: {}",
                        echo(id),
                        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                    ),
                )
            })?;
            Some((period.start_year, period.end_year))
        }
    };
    let language = args.language("language");
    let (entities, collisions) = entity_filter(index, &args.list("entities"), language.as_deref())?;
    let work = args.text("work").map(|w| w.trim().to_owned());
    known(language.as_deref(), &index.languages, ErrorCode::LanguageNotFound, "language")?;
    known(work.as_deref(), &index.works, ErrorCode::WorkNotFound, "work")?;
    Ok((Filters { language, work, years, entities }, collisions))
}

/// An `entities` filter: each entry an id, a name or an alias, resolved as
/// resolve_entity does. A name shared by several entities keeps all of them
/// (the filter means "mentions at least one") and is reported as a collision.
fn entity_filter(
    index: &Reader,
    entries: &[String],
    language: Option<&str>,
) -> Result<(Vec<String>, Vec<Collision>), ToolError> {
    let mut ids: Vec<String> = Vec::new();
    let mut collisions = Vec::new();
    for entry in entries {
        let found = match resolve::require_one(index, entry, language)? {
            Concept::One(entity, _) => vec![entity.id.clone()],
            Concept::Undecided(resolution) => {
                let candidates: Vec<String> = resolution
                    .collisions
                    .iter()
                    .flat_map(|c| c.candidates.iter().map(|e| e.id.clone()))
                    .chain(resolution.entities.iter().map(|e| e.id.clone()))
                    .collect();
                collisions.extend(resolution.collisions);
                candidates
            }
        };
        for id in found {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    Ok((ids, collisions))
}

/// A filter value the corpus has, or an error listing the ones it has.
pub(crate) fn known(value: Option<&str>, corpus: &[String], code: ErrorCode, what: &str) -> Result<(), ToolError> {
    match value {
        Some(v) if !corpus.iter().any(|c| c == v) => {
            Err(ToolError::new(code, format!("no {what} `{}` in this corpus; it has: {}", echo(v), corpus.join(", "))))
        }
        _ => Ok(()),
    }
}

pub(crate) fn took_ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The retrieval section of one search.
pub(crate) fn retrieval(outcome: &SearchOutcome, fusion: FusionMethod, start: Instant) -> Retrieval {
    Retrieval {
        route: Some(outcome.route.rule.to_owned()),
        lanes: outcome.lanes.iter().map(|l| l.as_str().to_owned()).collect(),
        vector_enabled: outcome.vector_enabled,
        lane_counts: outcome
            .lane_counts
            .iter()
            .map(|(l, n)| LaneCount { lane: l.as_str().to_owned(), candidates: *n })
            .collect(),
        fusion: Some(fusion_of(fusion, &outcome.route.lanes)),
        rerank: outcome.rerank.as_ref().map(|r| RerankOut {
            method: r.method.as_str().to_owned(),
            model: r.model.clone(),
            reranked: r.reranked,
            status: if r.unavailable.is_some() { "unavailable" } else { "applied" }.to_owned(),
        }),
        runs: Vec::new(),
        took_ms: took_ms(start),
        next_cursor: None,
    }
}

pub(crate) fn fusion_of(method: FusionMethod, lanes: &[(crate::lane::Lane, f64)]) -> Fusion {
    let (name, k) = match method {
        FusionMethod::Rrf { k } => ("rrf", k),
        FusionMethod::Dbsf => ("dbsf", DEFAULT_K),
    };
    Fusion {
        method: name.to_owned(),
        k,
        weights: lanes.iter().map(|(l, w)| LaneWeight { lane: l.as_str().to_owned(), weight: *w }).collect(),
    }
}

/// RERANK_UNAVAILABLE when reranking was asked for and could not run.
pub(crate) fn rerank_warning(outcome: &SearchOutcome) -> Option<Warning> {
    // Why is logged where reranking failed; a caller is not told paths.
    let run = outcome.rerank.as_ref().filter(|r| r.unavailable.is_some())?;
    Some(Warning::new(
        WarningCode::RerankUnavailable,
        "the reranker could not run; items are in fused order",
        format!("install the reranking model with `scripts/fetch_model.py --model {}`, or omit `rerank`", run.model),
    ))
}

/// VECTOR_LANE_DISABLED when the route wanted the vector lane and it is off.
pub(crate) fn vector_warning(index: &Reader, outcome: &SearchOutcome) -> Option<Warning> {
    if !outcome.route.vector_dropped {
        return None;
    }
    // The reason may name files: it goes to the log, not to the caller.
    if index.vector_disabled_reason().is_none() {
        tracing::warn!(reason = outcome.vector_disabled_reason.as_deref().unwrap_or(""), "vector lane failed");
        return Some(Warning::new(
            WarningCode::VectorLaneDisabled,
            "the vector lane failed on this request (its store could not be read); lexical and entity lanes answered",
            "rebuild the index with `evident index build`; the server log has the reason",
        ));
    }
    let reason = index.vector_disabled_reason().unwrap_or("disabled");
    tracing::info!(reason, "vector lane disabled");
    Some(Warning::new(
        WarningCode::VectorLaneDisabled,
        "the vector lane is disabled on this server; lexical and entity lanes answered",
        "install the embedding model with scripts/setup and rebuild the index to enable semantic retrieval",
    ))
}

/// Fails a forced vector search early, with a message that says what to do.
pub(crate) fn require_vector(index: &Reader) -> Result<(), ToolError> {
    match index.vector_disabled_reason() {
        None => Ok(()),
        Some(reason) => {
            tracing::info!(reason, "forced vector search refused");
            Err(ToolError::new(
                ErrorCode::VectorLaneUnavailable,
                "retrieval_mode `vector` needs the vector lane, which is disabled on this server; \
                 use `auto`, `lexical` or `hybrid`",
            ))
        }
    }
}
