//! search_passages and the hidden lane_search.

use std::time::Instant;

use super::{filters, known, require_vector, rerank_warning, retrieval, took_ms, vector_warning};
use crate::fusion::FusionMethod;
use crate::lane::Filters;
use crate::lane::Lane;
use crate::routing::RetrievalMode;
use crate::search::Reader;
use crate::search::SearchRequest;
use crate::surface::Operation;
use crate::surface::envelope::{LaneCount, Retrieval};
use crate::surface::{ErrorCode, ToolError};
use crate::tools::args::Args;
use crate::tools::assemble::{Draft, Finished, ItemBuilder, finish};
use crate::tools::resolve;

pub(crate) fn search_passages(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let start = Instant::now();
    let query = args.required("query")?;
    let (filters, filter_collisions) = filters(index, args)?;
    let mode: RetrievalMode = args.choice("retrieval_mode")?;
    if mode == RetrievalMode::Vector {
        require_vector(index)?;
    }
    let request = SearchRequest {
        query: query.to_owned(),
        top_k: args.count("top_k")?,
        filters: filters.clone(),
        mode,
        rerank: args.choice("rerank")?,
        ..SearchRequest::default()
    };
    let mut outcome = index.search(&request)?;

    let mut draft = Draft::new(Operation::Search, args.understood());
    // Any language, as the searcher resolves it: the query's language is unknown.
    resolve::from_mentions(index, std::mem::take(&mut outcome.query_mentions), &mut draft.resolution);
    for collision in filter_collisions {
        if !draft.resolution.collisions.iter().any(|c| c.term == collision.term) {
            draft.resolution.collisions.push(collision);
        }
    }
    draft.asked.entities = draft.resolution.entities.iter().map(|e| e.id.clone()).collect();
    for id in &filters.entities {
        if !draft.asked.entities.contains(id) {
            draft.asked.entities.push(id.clone());
        }
    }
    draft.retrieval = retrieval(&outcome, request.fusion, start);
    draft.warnings = resolve::warnings(&draft.resolution);
    draft.warnings.extend(vector_warning(index, &outcome));
    draft.warnings.extend(rerank_warning(&outcome));
    draft.asked.query = Some(outcome.terms);

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

pub(crate) fn lane_search(index: &Reader, args: &Args) -> Result<Finished, ToolError> {
    let start = Instant::now();
    let query = args.required("query")?;
    let lane: Lane = args.choice("lane")?;
    if lane == Lane::Vector {
        require_vector(index)?;
    }
    let filters = Filters { language: args.language("language"), ..Filters::default() };
    known(filters.language.as_deref(), &index.languages, ErrorCode::LanguageNotFound, "language")?;
    let top_k = args.count("top_k")?;
    let (hits, terms) = index.lane_alone(lane, query, &filters, top_k)?;

    let mut draft = Draft::new(Operation::Search, args.understood());
    resolve::from_mentions(index, index.concepts().mentions(query, filters.language.as_deref()), &mut draft.resolution);
    draft.warnings = resolve::warnings(&draft.resolution);
    draft.asked.query = Some(terms);
    draft.retrieval = Retrieval {
        route: Some(format!("lane.{}", lane.as_str())),
        lanes: vec![lane.as_str().to_owned()],
        vector_enabled: index.vector_disabled_reason().is_none(),
        lane_counts: vec![LaneCount { lane: lane.as_str().to_owned(), candidates: hits.hits.len() }],
        fusion: Some(super::fusion_of(FusionMethod::default(), &[(lane, 1.0)])),
        took_ms: took_ms(start),
        ..Retrieval::default()
    };
    draft.evidence = ItemBuilder::new(index).ranked_lane(&hits, top_k)?;
    Ok(finish(index, draft))
}
