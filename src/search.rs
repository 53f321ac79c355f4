//! The reader side: opens the serving generation and answers searches by
//! routing the query to lanes (see `routing`), running them, and fusing their
//! ranked lists (see `fusion`).

use serde::Serialize;
use std::path::Path;

use crate::error::{Error, Result};
use crate::fusion::{FusionMethod, WeightedLane, fuse};
use crate::index::{Generation, IndexDir, Manifest};
use crate::lane::{Filters, ParsedQuery, parse_query};
use crate::lane::{Lane, LaneHits};
use crate::lexical::{LexicalIndex, analyzed_terms, highlight};
use crate::linker::Linker;
use crate::routing::{QuerySignals, RetrievalMode, Route, route};
use crate::store::{LinkFilter, PassageRow, Store};
use crate::vector::{Embedder, VectorFilter, VectorStore, default_models_dir, open_store, vector_lane};

/// Candidates each lane contributes before fusion.
pub const DEFAULT_DEPTH: usize = 100;

/// A generation opened for reading. Holds no mutable state.
pub struct Searcher {
    pub generation: Generation,
    pub manifest: Manifest,
    store: Store,
    lexical: LexicalIndex,
    linker: Linker,
    vector: Result<VectorLane, String>,
}

struct VectorLane {
    embedder: Embedder,
    store: Box<dyn VectorStore>,
}

#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    pub top_k: usize,
    pub filters: Filters,
    pub mode: RetrievalMode,
    /// Candidates per lane (at least `top_k`).
    pub depth: usize,
    pub fusion: FusionMethod,
    /// Replaces the routing table's weight for these lanes (for tuning and evaluation).
    pub weights: Vec<(Lane, f64)>,
    /// The entities the request is about, when the caller already resolved
    /// them (concept tools); otherwise they are resolved from the query.
    pub concepts: Option<Vec<String>>,
}

impl Default for SearchRequest {
    fn default() -> Self {
        Self {
            query: String::new(),
            top_k: 10,
            filters: Filters::default(),
            mode: RetrievalMode::Auto,
            depth: DEFAULT_DEPTH,
            fusion: FusionMethod::default(),
            weights: Vec::new(),
            concepts: None,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    pub rank: u32,
    /// The fused rank score; comparable only within one result list.
    pub score: f64,
    /// This passage's 1-based rank in each lane that found it.
    pub component_ranks: Vec<(Lane, u32)>,
    #[serde(flatten)]
    pub passage: PassageRow,
    /// Byte ranges in `passage.text` of words matching the query.
    pub highlights: Vec<(usize, usize)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchOutcome {
    pub route: Route,
    pub lanes: Vec<Lane>,
    /// Candidates each lane returned, in lane order.
    pub lane_counts: Vec<(Lane, usize)>,
    pub vector_enabled: bool,
    /// Why the vector lane is off, when it is.
    pub vector_disabled_reason: Option<String>,
    /// Entities the query resolved to (used by the entity lane).
    pub resolved_entities: Vec<String>,
    pub hits: Vec<SearchHit>,
}

/// What a lane searches for and within.
#[derive(Clone, Copy)]
pub struct LaneInput<'a> {
    pub query: &'a str,
    pub parsed: &'a ParsedQuery,
    /// Entities the entity lane looks up.
    pub entities: &'a [String],
    pub filters: &'a Filters,
    /// Only these passages may be returned (from `filters.entities`).
    pub allowed: Option<&'a [String]>,
    pub depth: usize,
}

fn link_filter(filters: &Filters) -> LinkFilter<'_> {
    LinkFilter { language: filters.language.as_deref(), work: filters.work.as_deref(), years: filters.years }
}

/// A routed request's lanes, before fusion.
pub struct LaneRun {
    pub parsed: ParsedQuery,
    pub resolved_entities: Vec<String>,
    pub route: Route,
    /// Each lane's ranked list and its fusion weight.
    pub lists: Vec<(LaneHits, f64)>,
}

impl Searcher {
    /// Opens the serving generation. An index whose vectors were made by a
    /// different model than the installed one is refused; a missing model only
    /// disables the vector lane.
    pub fn open(index_dir: &Path, models_dir: Option<&Path>) -> Result<Self> {
        let index = IndexDir::open(index_dir)?;
        let generation = index.require_current()?;
        let manifest = Manifest::read(&generation.manifest_path())?;
        let store = Store::open(&generation.store_path())?;
        let lexical = LexicalIndex::open(&generation.lexical_path())?;
        let linker = Linker::new(&store.entities()?);
        let vector = match &manifest.vector {
            None => Err(manifest.vector_skipped.clone().map_or_else(
                || "the index has no vectors".into(),
                |r| format!("the index was built without vectors ({r})"),
            )),
            Some(vm) => match Embedder::load(&models_dir.map_or_else(default_models_dir, Path::to_owned)) {
                Err(reason) => Err(reason.0),
                Ok(embedder) => {
                    let info = embedder.info();
                    if info.model_id != vm.model_id || info.dimension != vm.dimension {
                        return Err(Error::ModelMismatch {
                            index_model: vm.model_id.clone(),
                            index_dimension: vm.dimension,
                            model: info.model_id.clone(),
                            dimension: info.dimension,
                        });
                    }
                    open_store(vm, &generation.path).map(|store| VectorLane { embedder, store }).map_err(|e| e.0)
                }
            },
        };
        Ok(Self { generation, manifest, store, lexical, linker, vector })
    }

    /// Entities named in `query` by an alias that belongs to exactly one entity.
    pub fn resolve_query_entities(&self, query: &str) -> Vec<String> {
        self.linker.link_any_language(query).into_iter().filter(|m| !m.ambiguous).map(|m| m.entity).collect()
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Whether `word` occurs anywhere in the corpus (lexical index, any language).
    pub fn word_occurs(&self, word: &str) -> bool {
        self.lexical.occurs(word)
    }

    pub fn linker(&self) -> &Linker {
        &self.linker
    }

    /// Why the vector lane is off, or `None` when it is on.
    pub fn vector_disabled_reason(&self) -> Option<&str> {
        self.vector.as_ref().err().map(String::as_str)
    }

    /// Passage ids the filters' entity restriction allows (`None`: no restriction).
    pub fn allowed_passages(&self, filters: &Filters) -> Result<Option<Vec<String>>> {
        if filters.entities.is_empty() {
            return Ok(None);
        }
        let linked = self.store.passages_linked_to(&filters.entities, &link_filter(filters), usize::MAX)?;
        Ok(Some(linked.into_iter().map(|(id, _)| id).collect()))
    }

    /// Runs one lane.
    pub fn lane(&self, lane: Lane, input: &LaneInput<'_>) -> Result<LaneHits> {
        let LaneInput { query, parsed, entities, filters, allowed, depth } = *input;
        match lane {
            Lane::Lexical => self.lexical.search(parsed, filters, allowed, depth),
            Lane::Exact => self.exact_lane(input),
            Lane::Entity => {
                let linked = self.store.passages_linked_to(entities, &link_filter(filters), usize::MAX)?;
                let allowed: Option<std::collections::HashSet<&str>> =
                    allowed.map(|ids| ids.iter().map(String::as_str).collect());
                let scored: Vec<(String, f32)> = linked
                    .into_iter()
                    .filter(|(id, _)| allowed.as_ref().is_none_or(|a| a.contains(id.as_str())))
                    .take(depth)
                    .map(|(id, n)| (id, n as f32))
                    .collect();
                Ok(LaneHits::from_scored(Lane::Entity, scored))
            }
            Lane::Vector => {
                let lane = self.vector.as_ref().map_err(|reason| Error::VectorLaneUnavailable(reason.clone()))?;
                let filter = VectorFilter {
                    language: filters.language.clone(),
                    work: filters.work.clone(),
                    entity_ids: filters.entities.clone(),
                    years: filters.years,
                };
                vector_lane(&lane.embedder, lane.store.as_ref(), query, parsed, filter, depth)
                    .map_err(|e| Error::VectorLaneUnavailable(e.0))
            }
        }
    }

    /// A passage id finds that passage; otherwise the quoted phrases (or the
    /// whole query) must occur as phrases.
    fn exact_lane(&self, input: &LaneInput<'_>) -> Result<LaneHits> {
        let trimmed = input.query.trim();
        if trimmed.starts_with("p.") && self.store.passage(trimmed)?.is_some() {
            return Ok(LaneHits::from_scored(Lane::Exact, vec![(trimmed.to_owned(), 1.0)]));
        }
        let phrases =
            if input.parsed.phrases.is_empty() { vec![trimmed.to_owned()] } else { input.parsed.phrases.clone() };
        let exact = ParsedQuery { phrases, free_text: String::new() };
        let mut hits = self.lexical.search(&exact, input.filters, input.allowed, input.depth)?;
        hits.lane = Lane::Exact;
        Ok(hits)
    }

    /// Routes the request and runs its lanes: each lane's ranked list with its weight.
    pub fn run_lanes(&self, request: &SearchRequest) -> Result<LaneRun> {
        let parsed = parse_query(&request.query);
        let depth = request.depth.max(request.top_k);
        let resolved_entities = request.concepts.clone().unwrap_or_else(|| self.resolve_query_entities(&request.query));
        let signals =
            QuerySignals { quoted_phrase: !parsed.phrases.is_empty(), resolved_concept: !resolved_entities.is_empty() };
        let mut route = route(request.mode, signals, self.vector.is_ok());
        for (lane, weight) in route.lanes.iter_mut() {
            if let Some((_, w)) = request.weights.iter().find(|(l, _)| l == lane) {
                *weight = *w;
            }
        }
        let allowed = self.allowed_passages(&request.filters)?;
        let input = LaneInput {
            query: &request.query,
            parsed: &parsed,
            entities: &resolved_entities,
            filters: &request.filters,
            allowed: allowed.as_deref(),
            depth,
        };
        let lists: Vec<(LaneHits, f64)> = route
            .lanes
            .iter()
            .map(|(lane, weight)| self.lane(*lane, &input).map(|h| (h, *weight)))
            .collect::<Result<_>>()?;
        Ok(LaneRun { parsed, resolved_entities, route, lists })
    }

    pub fn search(&self, request: &SearchRequest) -> Result<SearchOutcome> {
        let LaneRun { parsed, resolved_entities, route, lists } = self.run_lanes(request)?;
        let weighted: Vec<WeightedLane<'_>> =
            lists.iter().map(|(hits, weight)| WeightedLane { hits, weight: *weight }).collect();
        let fused = fuse(request.fusion, &weighted, request.top_k);

        let mut hits = Vec::with_capacity(fused.len());
        let mut terms_by_language: std::collections::HashMap<String, Vec<String>> = std::collections::HashMap::new();
        for item in fused {
            // The index parts and the store come from one generation, so every id resolves.
            let Some(passage) = self.store.passage(&item.passage_id)? else { continue };
            let terms = terms_by_language
                .entry(passage.language.clone())
                .or_insert_with(|| analyzed_terms(&parsed, &passage.language));
            let highlights = highlight(&passage.text, &passage.language, terms);
            let rank = hits.len() as u32 + 1;
            hits.push(SearchHit {
                rank,
                score: item.score,
                component_ranks: item.component_ranks,
                passage,
                highlights,
            });
        }
        Ok(SearchOutcome {
            lanes: lists.iter().map(|(l, _)| l.lane).collect(),
            lane_counts: lists.iter().map(|(l, _)| (l.lane, l.hits.len())).collect(),
            route,
            vector_enabled: self.vector.is_ok(),
            vector_disabled_reason: self.vector.as_ref().err().cloned(),
            resolved_entities,
            hits,
        })
    }
}
