//! The reader side: opens the serving generation and answers searches by
//! routing the query to lanes (see `routing`), running them, and fusing their
//! ranked lists (see `fusion`).

mod deferred;
mod entity;
mod exact;
mod reranking;
mod terms;

use std::path::Path;

use crate::concepts::Concepts;
use crate::corpus::TermMapping;
use crate::error::{Error, Result};
use crate::fusion::{FusionMethod, WeightedLane, fuse};
use crate::index::{Damage, Generation, IndexDir, Manifest, check_lengths};
use crate::lane::Filters;
use crate::lane::{Lane, LaneHits};
use crate::lexical::{KnownTerms, LexicalIndex, Occurrences, Returned, sparse_query_vector};
use crate::passage::PassageNo;
use crate::rerank::{DEFAULT_RERANK_DEPTH, Rerank};
use crate::routing::{QuerySignals, RetrievalMode, Route, route};
use crate::stage;
use crate::store::{LinkFilter, PassageRow, PeriodRow, SourceRow, Store};
use crate::text::Mention;
use crate::vector::{
    Embedder, ModelInfo, PointNumbers, VectorFilter, VectorStore, default_models_dir, open_store, sparse_lexical_lane,
    vector_lane,
};
use deferred::Deferred;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub(crate) use reranking::RerankRun;
pub(crate) use terms::{QueryTerms, QueryWord, passage_terms};

/// Candidates each lane contributes before fusion.
pub(crate) const DEFAULT_DEPTH: usize = 100;

/// The reader of one generation: searches, lookups by id, the entities and
/// the corpus's small tables. Opened once per generation, immutable, shared
/// by concurrent calls.
pub struct Reader {
    pub(crate) generation: Generation,
    pub(crate) manifest: Manifest,
    /// Read once on open: every tool call may read them.
    pub(crate) periods: Vec<PeriodRow>,
    pub(crate) terminology: Vec<TermMapping>,
    pub(crate) works: Vec<String>,
    pub(crate) languages: Vec<String>,
    /// Whether the corpus names witnesses; only then does a passage without one trace incompletely.
    pub(crate) declares_witnesses: bool,
    store: Store,
    lexical: LexicalIndex,
    /// The entities, read once on open, and what their names mean.
    concepts: Concepts,
    /// Loads in the background (see `deferred`).
    vector: Deferred<VectorLane>,
    /// Loaded by the first request that asks for reranking.
    reranker: reranking::Lazy,
}

struct VectorLane {
    embedder: Embedder,
    store: Box<dyn VectorStore>,
    numbers: PointNumbers,
}

#[derive(Debug, Clone)]
pub(crate) struct SearchRequest {
    pub(crate) query: String,
    pub(crate) top_k: usize,
    pub(crate) filters: Filters,
    pub(crate) mode: RetrievalMode,
    /// Candidates per lane (at least `top_k`).
    pub(crate) depth: usize,
    pub(crate) fusion: FusionMethod,
    /// Replaces the routing table's weight for these lanes (for tuning and evaluation).
    pub(crate) weights: Vec<(Lane, f64)>,
    /// The entities the request is about, when the caller already resolved
    /// them (concept tools); otherwise they are resolved from the query.
    pub(crate) concepts: Option<Vec<String>>,
    /// What reorders the fused list, and how many fused passages it reads.
    pub(crate) rerank: Rerank,
    pub(crate) rerank_depth: usize,
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
            rerank: Rerank::None,
            rerank_depth: DEFAULT_RERANK_DEPTH,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct SearchHit {
    pub(crate) rank: u32,
    /// The rank fusion gave the passage, when a reranker reordered the list.
    pub(crate) fused_rank: Option<u32>,
    /// The fused rank score; comparable only within one result list.
    pub(crate) score: f64,
    /// This passage's 1-based rank in each lane that found it.
    pub(crate) component_ranks: Vec<(Lane, u32)>,
    /// Each of those lanes' share of `score`, as the fusion method computed it.
    pub(crate) contributions: Vec<(Lane, f64)>,
    pub(crate) passage: PassageRow,
    /// Byte ranges in `passage.text` of words matching the query.
    pub(crate) highlights: Vec<(usize, usize)>,
    /// Which of the query's terms the passage holds, for term coverage.
    pub(crate) tokens: KnownTerms,
    /// The entities the passage mentions (read for all hits in one query).
    pub(crate) entities: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct SearchOutcome {
    pub(crate) route: Route,
    pub(crate) lanes: Vec<Lane>,
    /// Candidates each lane returned, in lane order.
    pub(crate) lane_counts: Vec<(Lane, usize)>,
    pub(crate) vector_enabled: bool,
    /// Why the vector lane is off, when it is.
    pub(crate) vector_disabled_reason: Option<String>,
    /// Every entity name the query mentions, shared names included (linked once, here).
    pub(crate) query_mentions: Vec<Mention>,
    /// The reranking stage, when the request asked for one.
    pub(crate) rerank: Option<RerankRun>,
    /// The query as analysed for this search (its spelling variants were searched with it).
    pub(crate) terms: QueryTerms,
    pub(crate) hits: Vec<SearchHit>,
}

/// What a lane searches for and within.
#[derive(Clone, Copy)]
pub(crate) struct LaneInput<'a> {
    pub(crate) query: &'a str,
    /// The query as analysed once for the call.
    pub(crate) terms: &'a QueryTerms,
    /// Entities the entity lane looks up.
    pub(crate) entities: &'a [String],
    pub(crate) filters: &'a Filters,
    /// Only these passages may be returned (from `filters.entities`).
    pub(crate) allowed: Option<&'a [PassageNo]>,
    pub(crate) depth: usize,
}

/// Puts `items` in `order` (indices into their present order) and returns each
/// item's former 1-based rank, in the new order.
fn reorder<T>(items: &mut Vec<T>, order: &[usize]) -> Vec<u32> {
    let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    let mut former = Vec::with_capacity(order.len());
    for &index in order {
        if let Some(item) = slots[index].take() {
            items.push(item);
            former.push(index as u32 + 1);
        }
    }
    former
}

/// The stage name of a lane's span.
const fn lane_stage(lane: Lane) -> &'static str {
    match lane {
        Lane::Exact => "lane.exact",
        Lane::Lexical => "lane.lexical",
        Lane::Entity => "lane.entity",
        Lane::Vector => "lane.vector",
        Lane::Feedback => "lane.feedback",
    }
}

/// Each vector point's passage number, from the generation's passage ids
/// (read on the lane's loading thread, with a connection of its own).
fn point_numbers(store_path: &Path) -> std::result::Result<PointNumbers, String> {
    let ids = Store::open(store_path).and_then(|store| store.passage_ids()).map_err(|e| {
        tracing::warn!(error = %e, "cannot read the passage ids the vector lane maps its points to");
        "the passage table could not be read (see the server log)".to_owned()
    })?;
    Ok(PointNumbers::new(&ids))
}

fn vector_filter(filters: &Filters) -> VectorFilter {
    VectorFilter {
        language: filters.language.clone(),
        work: filters.work.clone(),
        entity_ids: filters.entities.clone(),
        years: filters.years,
    }
}

fn link_filter(filters: &Filters) -> LinkFilter<'_> {
    LinkFilter { language: filters.language.as_deref(), work: filters.work.as_deref(), years: filters.years }
}

/// A routed request's lanes, before fusion.
pub(crate) struct LaneRun {
    /// The query as analysed once for this call.
    pub(crate) terms: QueryTerms,
    /// Why the vector lane failed during this request, when it did (the route then left it out).
    pub(crate) vector_failure: Option<String>,
    pub(crate) query_mentions: Vec<Mention>,
    pub(crate) route: Route,
    /// Each lane's ranked list and its fusion weight.
    pub(crate) lists: Vec<(LaneHits, f64)>,
}

impl Reader {
    /// Opens the serving generation. An index whose vectors were made by a
    /// different model than the installed one is refused; a missing model only
    /// disables the vector lane.
    pub fn open(index_dir: &Path, models_dir: Option<&Path>) -> Result<Self> {
        let models_dir: PathBuf = models_dir.map_or_else(default_models_dir, Path::to_owned);
        let index = IndexDir::open(index_dir)?;
        let generation = index.require_current()?;
        let manifest = Manifest::read(&generation.manifest_path())?;
        manifest.check_readable(&generation.manifest_path())?;
        let (vector_damage, damage): (Vec<Damage>, Vec<Damage>) =
            check_lengths(&generation.path, &manifest.files).into_iter().partition(|d| d.file.starts_with("vectors/"));
        if let Some(first) = damage.first() {
            return Err(Error::IndexCorrupt {
                path: generation.path.clone(),
                reason: format!(
                    "{first}; {} file(s) differ from the build (`evident index verify` lists them)",
                    damage.len()
                ),
            });
        }
        let store = Store::open(&generation.store_path())?;
        let lexical = LexicalIndex::open(&generation.lexical_path(), &generation.documents_path())?;
        let concepts = Concepts::new(store.entities()?, &store.document_authors()?);
        let vector = match &manifest.vector {
            None => Deferred::ready(Err(manifest.vector_skipped.clone().map_or_else(
                || "the index has no vectors".into(),
                |r| format!("the index was built without vectors ({r})"),
            ))),
            Some(_) if !vector_damage.is_empty() => Deferred::ready(Err(format!(
                "the vector store is damaged ({}; {} file(s) differ from the build)",
                vector_damage[0],
                vector_damage.len()
            ))),
            Some(vm) => {
                if let Some(seed) = vm.synthetic_seed {
                    tracing::warn!(
                        seed,
                        "the index stores synthetic vectors (a scale benchmark): the vector lane ranks at random"
                    );
                }
                // The index's own model embeds its queries, whatever the default is now.
                match ModelInfo::read(&models_dir, &vm.model) {
                    Err(reason) => Deferred::ready(Err(reason.0)),
                    // A model other than the index's is refused at once, not when first used.
                    Ok(info) if info.model_id != vm.model_id || info.dimension != vm.dimension => {
                        return Err(Error::ModelMismatch {
                            index_model: vm.model_id.clone(),
                            index_dimension: vm.dimension,
                            model: info.model_id,
                            dimension: info.dimension,
                        });
                    }
                    Ok(info) => {
                        let (vm, generation_path, scratch, store_path) =
                            (vm.clone(), generation.path.clone(), index.reader_scratch(), generation.store_path());
                        Deferred::start("vector-lane", move || {
                            crate::failpoint::pause_for("vector-lane-load", std::time::Duration::from_secs(10));
                            let embedder = Embedder::load_described(info).map_err(|e| e.0)?;
                            let store = open_store(&vm, &generation_path, &scratch).map_err(|e| e.0)?;
                            let numbers = point_numbers(&store_path)?;
                            Ok(VectorLane { embedder, store, numbers })
                        })
                    }
                }
            }
        };
        let reranker = reranking::Lazy::new(models_dir);
        Ok(Self {
            generation,
            manifest,
            periods: store.periods()?,
            terminology: store.terminology()?,
            works: store.works()?,
            languages: store.languages()?,
            declares_witnesses: store.declares_witnesses()?,
            store,
            lexical,
            concepts,
            vector,
            reranker,
        })
    }

    /// The corpus's entities and what their names mean.
    pub(crate) fn concepts(&self) -> &Concepts {
        &self.concepts
    }

    /// A reranker's relevance score of each passage for `query`, or why it cannot give them.
    pub(crate) fn rerank_scores(
        &self,
        method: Rerank,
        query: &str,
        passages: &[&PassageRow],
    ) -> std::result::Result<Vec<f32>, String> {
        let _stage = stage::enter("rerank");
        self.reranker.scores(method, query, passages)
    }

    /// The passages with these numbers, in one query (numbers not found are absent).
    pub(crate) fn passages(&self, numbers: &[PassageNo]) -> Result<std::collections::HashMap<PassageNo, PassageRow>> {
        self.store.passages(numbers)
    }

    /// Every passage id, indexed by number (for `eval`, which maps whole rankings to documents).
    pub(crate) fn passage_ids(&self) -> Result<Vec<String>> {
        self.store.passage_ids()
    }

    /// One passage by id.
    pub(crate) fn passage(&self, id: &str) -> Result<Option<PassageRow>> {
        self.store.passage(id)
    }

    /// The passages of `document` with ordinals `first..=last`, in order.
    pub(crate) fn passages_in_range(&self, document: &str, first: u32, last: u32) -> Result<Vec<PassageRow>> {
        self.store.passages_in_range(document, first, last)
    }

    /// The source file a document was read from.
    pub(crate) fn source_of(&self, document: &str) -> Result<Option<SourceRow>> {
        self.store.source_of(document)
    }

    /// The source files of several documents, in one query.
    pub(crate) fn sources_of(&self, documents: &[&str]) -> Result<std::collections::HashMap<String, SourceRow>> {
        self.store.sources_of(documents)
    }

    /// The entities each passage mentions (one query for all of them).
    pub(crate) fn entity_links(&self, passage_ids: &[String]) -> Result<BTreeMap<String, Vec<(String, bool)>>> {
        self.store.links_of(passage_ids)
    }

    /// Passages that mention any of `entities`, within the filters, most mentions first.
    pub(crate) fn passages_mentioning(&self, entities: &[String], filters: &Filters) -> Result<Vec<(PassageNo, u32)>> {
        self.store.passages_linked_to(entities, &link_filter(filters), usize::MAX)
    }

    /// A configured period by id.
    pub(crate) fn period(&self, id: &str) -> Option<&PeriodRow> {
        self.periods.iter().find(|p| p.id == id)
    }

    /// How many passages the generation holds.
    pub(crate) fn passage_count(&self) -> u64 {
        self.manifest.counts.passages as u64
    }

    /// Whether the feedback lane can run (generations built before it have no document index).
    pub(crate) fn feedback_available(&self) -> bool {
        self.lexical.has_documents()
    }

    /// Why the vector lane is off, or `None` when it is on or still loading
    /// (never waits: a lane that fails to load is reported from then on).
    pub(crate) fn vector_disabled_reason(&self) -> Option<&str> {
        self.vector.peek().and_then(Result::err)
    }

    /// The vector lane's state for health checks: `ready`, `loading` or `disabled`. Never waits.
    pub(crate) fn vector_lane_state(&self) -> &'static str {
        match self.vector.peek() {
            None => "loading",
            Some(Ok(_)) => "ready",
            Some(Err(_)) => "disabled",
        }
    }

    /// Passages the filters' entity restriction allows (`None`: no restriction).
    fn allowed_passages(&self, filters: &Filters) -> Result<Option<Vec<PassageNo>>> {
        if filters.entities.is_empty() {
            return Ok(None);
        }
        let linked = self.store.passages_linked_to(&filters.entities, &link_filter(filters), usize::MAX)?;
        Ok(Some(linked.into_iter().map(|(no, _)| no).collect()))
    }

    /// The query analysed once: phrases, the spellings the corpus holds of the
    /// free text's absent words (the lexical lanes search them too), and each
    /// content word's terms and passage count.
    fn query_terms(&self, query: &str) -> QueryTerms {
        QueryTerms::new(query, |words| self.lexical.spelling_variants(words), |word| self.lexical.passages_with(word))
    }

    /// One lane alone, as asked (`lane_search`): no routing, no fusion and no
    /// spelling variants; the query's entities resolved from its mentions.
    pub(crate) fn lane_alone(
        &self,
        lane: Lane,
        query: &str,
        filters: &Filters,
        depth: usize,
    ) -> Result<(LaneHits, QueryTerms)> {
        let terms = QueryTerms::new(query, |_| Vec::new(), |word| self.lexical.passages_with(word));
        let entities = self.concepts.searchable(&self.concepts.mentions(query, None));
        let input = LaneInput { query, terms: &terms, entities: &entities, filters, allowed: None, depth };
        Ok((self.lane(lane, &input)?, terms))
    }

    /// Runs one lane.
    fn lane(&self, lane: Lane, input: &LaneInput<'_>) -> Result<LaneHits> {
        let LaneInput { query, terms, entities, filters, allowed, depth } = *input;
        match lane {
            Lane::Lexical => match self.sparse_lexical() {
                Some(lane) => {
                    let vector =
                        sparse_query_vector(&terms.analysed, &self.lexical.languages_for(&terms.analysed, filters));
                    sparse_lexical_lane(lane.store.as_ref(), &lane.numbers, vector, vector_filter(filters), depth)
                        .map_err(|e| Error::VectorLaneUnavailable(e.0))
                }
                None => self.lexical.search(&terms.analysed, filters, allowed, depth),
            },
            Lane::Feedback => self.lexical.feedback_search(&terms.analysed, filters, allowed, depth),
            Lane::Exact => exact::search(&self.store, &self.lexical, input),
            Lane::Entity => entity::search(&self.store, entities, &link_filter(filters), allowed, depth),
            Lane::Vector => {
                let lane = self.vector.get().map_err(|reason| Error::VectorLaneUnavailable(reason.to_owned()))?;
                vector_lane(
                    &lane.embedder,
                    lane.store.as_ref(),
                    &lane.numbers,
                    query,
                    &terms.parsed,
                    vector_filter(filters),
                    depth,
                )
                .map_err(|e| Error::VectorLaneUnavailable(e.0))
            }
        }
    }

    /// The vector store, when the lexical lane's BM25 weights live in it
    /// (`[lexical] backend = "qdrant"`). A store that cannot be loaded leaves
    /// the lexical lane to the tantivy index every generation also has, as
    /// the server log says.
    fn sparse_lexical(&self) -> Option<&VectorLane> {
        self.manifest.lexical_sparse?;
        match self.vector.get() {
            Ok(lane) => Some(lane),
            Err(reason) => {
                tracing::warn!(%reason, "the lexical lane's sparse vectors are unavailable; searching the tantivy index");
                None
            }
        }
    }

    /// Whether the generation has the index part a lane reads (only the
    /// feedback lane's can be missing: generations built before it).
    fn has_index_for(&self, lane: Lane) -> bool {
        lane != Lane::Feedback || self.lexical.has_documents()
    }

    /// Routes the request and runs its lanes: each lane's ranked list with its weight.
    pub(crate) fn run_lanes(&self, request: &SearchRequest) -> Result<LaneRun> {
        let routing = stage::enter("route");
        let terms = self.query_terms(&request.query);
        let parsed = &terms.parsed;
        let depth = request.depth.max(request.top_k);
        let query_mentions = self.concepts.mentions(&request.query, None);
        let resolved_entities = request.concepts.clone().unwrap_or_else(|| self.concepts.searchable(&query_mentions));
        let signals = QuerySignals {
            quoted_phrase: !parsed.phrases.is_empty(),
            resolved_concept: !resolved_entities.is_empty(),
            phrases_only: !parsed.phrases.is_empty() && !parsed.free_text.chars().any(char::is_alphanumeric),
        };
        // Only a rule that runs the vector lane waits for it to load.
        let mut route = route(request.mode, signals, || self.vector.get().is_ok());
        route.lanes.retain(|(lane, _)| self.has_index_for(*lane));
        for (lane, weight) in route.lanes.iter_mut() {
            if let Some((_, w)) = request.weights.iter().find(|(l, _)| l == lane) {
                *weight = *w;
            }
        }
        // A weight for a lane the route lacks adds it (experiments: `eval --weight feedback=1`).
        for &(lane, weight) in &request.weights {
            let runnable = self.has_index_for(lane) && (lane != Lane::Vector || self.vector.get().is_ok());
            if runnable && !route.lanes.iter().any(|(l, _)| *l == lane) {
                route.lanes.push((lane, weight));
            }
        }
        let allowed = self.allowed_passages(&request.filters)?;
        let input = LaneInput {
            query: &request.query,
            terms: &terms,
            entities: &resolved_entities,
            filters: &request.filters,
            allowed: allowed.as_deref(),
            depth,
        };
        drop(routing);
        let mut lists: Vec<(LaneHits, f64)> = Vec::with_capacity(route.lanes.len());
        let mut vector_failure = None;
        for (lane, weight) in &route.lanes {
            let _stage = stage::enter(lane_stage(*lane));
            match self.lane(*lane, &input) {
                Ok(hits) => lists.push((hits, *weight)),
                // A damaged vector store degrades a mixed route to its other lanes (reported);
                // only a forced vector search fails.
                Err(Error::VectorLaneUnavailable(reason)) if request.mode != RetrievalMode::Vector => {
                    tracing::warn!(%reason, "vector lane failed; answering with the other lanes");
                    vector_failure = Some(reason);
                }
                Err(e) => return Err(e),
            }
        }
        if vector_failure.is_some() {
            route.lanes.retain(|(lane, _)| *lane != Lane::Vector);
            route.vector_dropped = true;
            // The lanes the rule runs in the vector lane's place, as when it is off from the start.
            for &(lane, weight) in crate::routing::without_vector(route.rule) {
                if route.lanes.iter().any(|(l, _)| *l == lane) || !self.has_index_for(lane) {
                    continue;
                }
                let _stage = stage::enter(lane_stage(lane));
                lists.push((self.lane(lane, &input)?, weight));
                route.lanes.push((lane, weight));
            }
        }
        Ok(LaneRun { terms, query_mentions, route, lists, vector_failure })
    }

    pub(crate) fn search(&self, request: &SearchRequest) -> Result<SearchOutcome> {
        let LaneRun { terms, query_mentions, route, lists, vector_failure } = self.run_lanes(request)?;
        let weighted: Vec<WeightedLane<'_>> =
            lists.iter().map(|(hits, weight)| WeightedLane { hits, weight: *weight }).collect();
        // A reranker reads the fused top N, of which the top k are kept.
        let reranked_depth = match request.rerank {
            Rerank::None => 0,
            Rerank::CrossEncoder => request.rerank_depth.max(request.top_k),
        };
        let fused = {
            let _stage = stage::enter("fusion");
            fuse(request.fusion, &weighted, request.top_k.max(reranked_depth))
        };
        // `fetch` is entered twice: rows before reranking, links and analysis of
        // the kept hits after (the bench sums a stage's spans per call).
        let fetching = stage::enter("fetch");
        // Only the fused items kept are resolved from numbers to rows.
        let mut candidates = {
            let _stage = stage::enter("fetch.rows");
            let numbers: Vec<PassageNo> = fused.iter().map(|f| f.key).collect();
            let mut rows = self.store.passages(&numbers)?;
            // The index parts and the store come from one generation, so every number resolves.
            fused.into_iter().filter_map(|f| rows.remove(&f.key).map(|row| (f, row))).collect::<Vec<_>>()
        };
        drop(fetching);
        // The reranker reads the rows' text; only the top k it keeps are analysed and linked.
        let (rerank, fused_ranks) = match request.rerank {
            Rerank::None => (None, None),
            method => {
                let (run, order) = self.reranker.order(method, &request.query, &candidates);
                (Some(run), order.map(|order| reorder(&mut candidates, &order)))
            }
        };
        candidates.truncate(request.top_k);
        let _stage = stage::enter("fetch");
        let ids: Vec<String> = candidates.iter().map(|(_, row)| row.passage_id.clone()).collect();
        let mut links = {
            let _stage = stage::enter("fetch.links");
            self.store.links_of(&ids)?
        };
        // The query's terms under each analyzer of the kept passages; the index
        // says which each passage holds and where.
        let occurrences = {
            let _analysing = stage::enter("fetch.analyse");
            let returned: Vec<Returned<'_>> =
                candidates.iter().map(|(_, p)| Returned { no: p.no, text: &p.text, language: &p.language }).collect();
            self.lexical.occurrences(&returned, &terms.analysed)?
        };
        let mut hits = Vec::with_capacity(candidates.len());
        for (i, ((item, passage), Occurrences { known: tokens, highlights })) in
            candidates.into_iter().zip(occurrences).enumerate()
        {
            hits.push(SearchHit {
                rank: i as u32 + 1,
                fused_rank: fused_ranks.as_ref().map(|ranks| ranks[i]),
                score: item.score,
                component_ranks: item.component_ranks,
                contributions: item.contributions,
                entities: links.remove(&passage.passage_id).unwrap_or_default().into_iter().map(|(e, _)| e).collect(),
                passage,
                highlights,
                tokens,
            });
        }
        drop(_stage);
        let vector_disabled_reason = vector_failure.or_else(|| self.vector_disabled_reason().map(str::to_owned));
        Ok(SearchOutcome {
            lanes: lists.iter().map(|(l, _)| l.lane).collect(),
            lane_counts: lists.iter().map(|(l, _)| (l.lane, l.hits.len())).collect(),
            route,
            vector_enabled: vector_disabled_reason.is_none(),
            vector_disabled_reason,
            query_mentions,
            rerank,
            terms,
            hits,
        })
    }
}
