//! The build side of the vector lane: embeds passages (reusing the vectors of
//! unchanged sources from the previous generation), writes them to the store
//! the corpus configures, and describes the result for the manifest.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use super::layout::Generation;
use super::manifest::Manifest;
use crate::corpus::{Corpus, Document, LexicalBackend};
use crate::error::{Error, Result};
use crate::lexical::{PassageTerms, SparseManifest, Weigher};
use crate::passage::Passage;
use crate::vector::{
    Backend, EdgeStore, Embedder, SearchTuning, ServerStore, Unavailable, VectorManifest, VectorPoint, VectorStore,
    open_store, synthetic_vector,
};

/// Points written to the store per call.
const UPSERT_CHUNK: usize = 512;

/// The vector lane's store being written, a batch of passages at a time.
pub(crate) struct VectorSink<'a> {
    settings: &'a crate::corpus::VectorSettings,
    embedder: Embedder,
    info: crate::vector::ModelInfo,
    store: Box<dyn VectorStore>,
    collection: Option<String>,
    url: Option<String>,
    /// The previous generation's store, when its vectors can be reused.
    previous: Option<Box<dyn VectorStore>>,
    /// The lexical lane's BM25 weights, when they live in this store (`[lexical] backend = "qdrant"`).
    weigher: Option<Weigher<VectorPoint>>,
    points: usize,
    embedded: usize,
    reused: usize,
    embedding_seconds: f64,
}

/// What the sink is opened with.
pub(crate) struct VectorInputs<'a> {
    pub(crate) corpus: &'a Corpus,
    pub(crate) previous: Option<(&'a Manifest, &'a Generation)>,
    pub(crate) staging: &'a Path,
    pub(crate) generation: &'a str,
    /// Where the previous generation's embedded store is copied to be read.
    pub(crate) scratch: &'a Path,
    /// How many embedding sessions run at once (default: one per core).
    pub(crate) sessions: Option<usize>,
}

/// The text a passage is embedded as.
fn embedded_text(passage: &Passage, doc: &Document, with_title: bool) -> String {
    match (&doc.title, with_title) {
        (Some(title), true) => format!("{title}. {}", passage.text),
        _ => passage.text.clone(),
    }
}

pub(crate) fn server_collection(prefix: &str, generation: &str) -> String {
    format!("{prefix}-{generation}")
}

fn lane_error(e: Unavailable) -> Error {
    Error::VectorLaneUnavailable(e.0)
}

impl<'a> VectorSink<'a> {
    /// Loads the model and creates the store; `Ok(Err(reason))` when the lane
    /// is skipped (disabled, or the default model is not installed).
    pub(crate) fn open(models_dir: &Path, inputs: &VectorInputs<'a>) -> Result<std::result::Result<Self, String>> {
        let settings = &inputs.corpus.config.vector;
        if !settings.enabled {
            return Ok(Err("disabled in corpus.toml ([vector] enabled = false)".into()));
        }
        // Synthetic vectors need the model's description only: one session, not a pool that idles.
        let sessions = if settings.synthetic_seed.is_some() { Some(1) } else { inputs.sessions };
        let embedder = match Embedder::load_pool(models_dir, settings.model(), sessions) {
            Ok(embedder) => embedder,
            // A model the corpus names must be there; without the default model
            // the index is still built, lexical only, and says why.
            // So must the default model when the lexical lane's weights live in the vector store.
            Err(reason)
                if settings.model.is_some() || inputs.corpus.config.lexical.backend == LexicalBackend::Qdrant =>
            {
                return Err(Error::ModelNotInstalled(reason.0));
            }
            Err(reason) => return Ok(Err(reason.0)),
        };
        let info = embedder.info().clone();
        // A build never searches its store: the tuning is the reader's business.
        let tuning = SearchTuning::for_points(settings.hnsw_ef, 0);
        let sparse = inputs.corpus.config.lexical.backend == LexicalBackend::Qdrant;
        let (store, collection, url): (Box<dyn VectorStore>, Option<String>, Option<String>) = match settings.backend {
            Backend::Embedded => (
                Box::new(
                    EdgeStore::create(&inputs.staging.join("vectors"), info.dimension, sparse, tuning)
                        .map_err(lane_error)?,
                ),
                None,
                None,
            ),
            Backend::Qdrant => {
                let collection = server_collection(&settings.collection, inputs.generation);
                let store = ServerStore::create(&settings.url, &collection, info.dimension, sparse, tuning)
                    .map_err(lane_error)?;
                (Box::new(store), Some(collection), Some(settings.url.clone()))
            }
        };
        // Vectors of unchanged sources, when the previous generation used the same
        // model (synthetic vectors cost nothing to make, so they are never reused).
        let mut previous = None;
        if let Some((manifest, generation)) = inputs.previous
            && let Some(old) = &manifest.vector
            && old.model == info.name
            && old.model_id == info.model_id
            && old.dimension == info.dimension
            && old.embed_title == settings.embed_title
            && old.synthetic_seed.is_none()
            && settings.synthetic_seed.is_none()
        {
            match open_store(old, &generation.path, inputs.scratch) {
                Ok(old) => previous = Some(old),
                Err(reason) => tracing::warn!(%reason, "previous vectors unreadable; embedding everything"),
            }
        }
        Ok(Ok(Self {
            settings,
            embedder,
            info,
            store,
            collection,
            url,
            previous,
            weigher: sparse.then(Weigher::default),
            points: 0,
            embedded: 0,
            reused: 0,
            embedding_seconds: 0.0,
        }))
    }

    /// Writes the vectors of a batch's passages (`passages[i]` belongs to
    /// `documents[i]`): copied from the previous generation for the documents in
    /// `reused_documents`, embedded otherwise. `progress` gets each count embedded.
    pub(crate) fn add(
        &mut self,
        documents: &[Document],
        passages: &[Vec<Passage>],
        reused_documents: &HashSet<&str>,
        progress: &dyn Fn(u64),
    ) -> Result<()> {
        let all: Vec<(&Passage, &Document)> =
            documents.iter().zip(passages).flat_map(|(doc, ps)| ps.iter().map(move |p| (p, doc))).collect();
        self.points += all.len();
        // Analysed once, here in corpus order (the order the weigher's averages are taken in).
        let mut terms: HashMap<&str, PassageTerms> = HashMap::new();
        if let Some(weigher) = &mut self.weigher {
            for (p, doc) in &all {
                let analysed = PassageTerms::new(&p.text, doc.title.as_deref(), &p.language);
                weigher.observe(&analysed);
                terms.insert(p.id.as_str(), analysed);
            }
        }
        let mut copied = HashMap::new();
        if let Some(old) = &self.previous {
            let ids: Vec<String> = all
                .iter()
                .filter(|(p, _)| reused_documents.contains(p.document_id.as_str()))
                .map(|(p, _)| p.id.clone())
                .collect();
            for chunk in ids.chunks(UPSERT_CHUNK) {
                copied.extend(old.vectors(chunk).map_err(lane_error)?);
            }
        }
        let mut outbox = Outbox { store: self.store.as_ref(), weigher: self.weigher.as_mut(), pending: Vec::new() };
        let mut to_embed: Vec<(&Passage, &Document)> = Vec::new();
        for &(p, doc) in &all {
            match copied.remove(&p.id) {
                Some(vector) => {
                    outbox.push(point(p, doc, vector), terms.remove(p.id.as_str())).map_err(lane_error)?;
                    self.reused += 1;
                }
                None => to_embed.push((p, doc)),
            }
        }
        // Batches pad to their longest text, so embedding texts of similar length
        // together wastes far less work; the order of points does not matter.
        to_embed.sort_by_key(|(p, _)| (p.text.len(), p.id.as_str()));
        let batch = self.settings.batch_size.max(1);
        let chunks: Vec<&[(&Passage, &Document)]> = to_embed.chunks(batch).collect();
        let started = Instant::now();
        let mut add = |chunk: &&[(&Passage, &Document)], vectors: Vec<Vec<f32>>| {
            for ((p, doc), vector) in chunk.iter().zip(vectors) {
                outbox.push(point(p, doc, vector), terms.remove(p.id.as_str()))?;
            }
            progress(chunk.len() as u64);
            Ok(())
        };
        match self.settings.synthetic_seed {
            Some(seed) => {
                for chunk in &chunks {
                    let vectors =
                        chunk.iter().map(|(p, _)| synthetic_vector(seed, &p.id, self.info.dimension)).collect();
                    add(chunk, vectors).map_err(lane_error)?;
                }
            }
            None => {
                let with_title = self.settings.embed_title;
                let texts_of = |chunk: &&[(&Passage, &Document)]| {
                    chunk.iter().map(|(p, doc)| embedded_text(p, doc, with_title)).collect()
                };
                self.embedder.embed_batches_in_order(&chunks, texts_of, batch, add).map_err(lane_error)?;
            }
        }
        outbox.flush().map_err(lane_error)?;
        self.embedded += to_embed.len();
        self.embedding_seconds += started.elapsed().as_secs_f64();
        Ok(())
    }

    /// Finishes the store (the embedded store builds its HNSW graph here) and
    /// describes it, and the lexical lane's weighting when its weights are there.
    pub(crate) fn finish(self) -> Result<(VectorManifest, Option<SparseManifest>)> {
        let lexical = match self.weigher {
            Some(weigher) => {
                let (rest, weighting) = weigher.finish();
                let rest: Vec<VectorPoint> = rest.into_iter().map(with_sparse).collect();
                for chunk in rest.chunks(UPSERT_CHUNK) {
                    self.store.upsert(chunk).map_err(lane_error)?;
                }
                Some(weighting)
            }
            None => None,
        };
        self.store.finish().map_err(lane_error)?;
        let vector = VectorManifest {
            model: self.info.name,
            model_id: self.info.model_id,
            dimension: self.info.dimension,
            backend: self.settings.backend,
            collection: self.collection,
            url: self.url,
            hnsw_ef: self.settings.hnsw_ef,
            embed_title: self.settings.embed_title,
            points: self.points,
            embedded: self.embedded,
            reused: self.reused,
            embedding_seconds: self.embedding_seconds,
            synthetic_seed: self.settings.synthetic_seed,
        };
        Ok((vector, lexical))
    }
}

fn with_sparse((mut point, sparse): (VectorPoint, crate::vector::SparseVector)) -> VectorPoint {
    point.sparse = Some(sparse);
    point
}

/// Points on their way to the store, `UPSERT_CHUNK` at a time; given their
/// BM25 weights first when the lexical lane lives there too.
struct Outbox<'s> {
    store: &'s dyn VectorStore,
    weigher: Option<&'s mut Weigher<VectorPoint>>,
    pending: Vec<VectorPoint>,
}

impl Outbox<'_> {
    fn push(&mut self, point: VectorPoint, terms: Option<PassageTerms>) -> std::result::Result<(), Unavailable> {
        match (&mut self.weigher, terms) {
            (Some(weigher), Some(terms)) => {
                self.pending.extend(weigher.push(point, terms).into_iter().map(with_sparse))
            }
            _ => self.pending.push(point),
        }
        if self.pending.len() >= UPSERT_CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::result::Result<(), Unavailable> {
        if !self.pending.is_empty() {
            self.store.upsert(&self.pending)?;
            self.pending.clear();
        }
        Ok(())
    }
}

fn point(p: &Passage, doc: &Document, vector: Vec<f32>) -> VectorPoint {
    VectorPoint {
        passage_id: p.id.clone(),
        no: p.no,
        vector,
        sparse: None,
        document_id: doc.id.clone(),
        work: doc.work.clone(),
        year: doc.year,
        language: p.language.clone(),
        entity_ids: p.mentions.iter().map(|m| m.entity.clone()).collect(),
    }
}
