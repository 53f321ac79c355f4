//! search_passages and the hidden lane_search.

use std::time::Instant;

use super::{filters, known, require_vector, retrieval, took_ms, vector_warning};
use crate::fusion::{DEFAULT_K, FusionMethod};
use crate::lane::Lane;
use crate::lane::{Filters, parse_query};
use crate::routing::RetrievalMode;
use crate::search::{LaneInput, SearchRequest};
use crate::surface::Operation;
use crate::surface::envelope::{Envelope, LaneCount, Retrieval};
use crate::surface::{ErrorCode, ToolError};
use crate::tools::args::Args;
use crate::tools::assemble::{Draft, Found, ItemBuilder, finish};
use crate::tools::resolve;
use crate::tools::serving::OpenIndex;

/// A validated choice parameter as its enum (validation already refused other values).
fn choice<T: std::str::FromStr<Err = String>>(args: &Args, name: &str) -> Result<T, ToolError> {
    args.required(name)?.parse().map_err(|e: String| ToolError::new(ErrorCode::InvalidArgument, e))
}

pub fn search_passages(index: &OpenIndex, args: &Args) -> Result<Envelope, ToolError> {
    let start = Instant::now();
    let query = args.required("query")?;
    let filters = filters(index, args)?;
    let mode: RetrievalMode = choice(args, "retrieval_mode")?;
    if mode == RetrievalMode::Vector {
        require_vector(index)?;
    }
    let request = SearchRequest {
        query: query.to_owned(),
        top_k: args.count("top_k")?,
        filters: filters.clone(),
        mode,
        ..SearchRequest::default()
    };
    let outcome = index.searcher.search(&request)?;

    let mut draft = Draft::new(Operation::Search, args.understood());
    // Any language, as the searcher resolves it: the query's language is unknown.
    resolve::from_mentions(index, outcome.query_mentions.clone(), &mut draft.resolution);
    let (_, filter_collisions) = super::entity_filter(index, &args.list("entities"), filters.language.as_deref())?;
    for collision in filter_collisions {
        if !draft.resolution.collisions.iter().any(|c| c.term == collision.term) {
            draft.resolution.collisions.push(collision);
        }
    }
    draft.entities = draft.resolution.entities.iter().map(|e| e.id.clone()).collect();
    for id in &filters.entities {
        if !draft.entities.contains(id) {
            draft.entities.push(id.clone());
        }
    }
    draft.query = Some(query.to_owned());
    draft.retrieval = retrieval(&outcome, request.fusion, start);
    draft.warnings = resolve::warnings(&draft.resolution);
    draft.warnings.extend(vector_warning(index, &outcome));

    let mut builder = ItemBuilder::new(index);
    let lanes = outcome.route.lanes.clone();
    let mut items = builder.hits(outcome.hits, &lanes, args.flag("explain")?)?;
    if args.flag("include_context")? {
        for item in &mut items {
            item.context = Some(builder.context(item, 1, 1)?);
        }
    }
    draft.evidence = items;
    Ok(finish(index, draft))
}

pub fn lane_search(index: &OpenIndex, args: &Args) -> Result<Envelope, ToolError> {
    let start = Instant::now();
    let query = args.required("query")?;
    let lane: Lane = choice(args, "lane")?;
    if lane == Lane::Vector {
        require_vector(index)?;
    }
    let filters = Filters { language: args.language("language"), ..Filters::default() };
    known(filters.language.as_deref(), &index.languages, ErrorCode::LanguageNotFound, "language")?;
    let parsed = parse_query(query);
    let entities = index.searcher.resolve_query_entities(query);
    let top_k = args.count("top_k")?;
    let input =
        LaneInput { query, parsed: &parsed, entities: &entities, filters: &filters, allowed: None, depth: top_k };
    let hits = index.searcher.lane(lane, &input)?;

    let mut draft = Draft::new(Operation::Search, args.understood());
    resolve::from_mentions(index, index.searcher.mentions(query, filters.language.as_deref()), &mut draft.resolution);
    draft.warnings = resolve::warnings(&draft.resolution);
    draft.query = Some(query.to_owned());
    draft.retrieval = Retrieval {
        route: Some(format!("lane.{}", lane.as_str())),
        lanes: vec![lane.as_str().to_owned()],
        vector_enabled: index.searcher.vector_disabled_reason().is_none(),
        lane_counts: vec![LaneCount { lane: lane.as_str().to_owned(), candidates: hits.hits.len() }],
        fusion: Some(super::fusion_of(FusionMethod::default(), &[(lane, 1.0)])),
        took_ms: took_ms(start),
        ..Retrieval::default()
    };
    let mut builder = ItemBuilder::new(index);
    for hit in hits.hits.into_iter().take(top_k) {
        let Some(passage) = index.searcher.passage(&hit.passage_id)? else { continue };
        let ranks = [(lane, hit.rank)];
        let score = 1.0 / (DEFAULT_K + f64::from(hit.rank));
        draft.evidence.push(builder.item(
            passage,
            Found::Ranked {
                score,
                ranks: &ranks,
                contributions: &[(lane, score)],
                weights: &[(lane, 1.0)],
                explain: false,
            },
        )?);
    }
    Ok(finish(index, draft))
}
