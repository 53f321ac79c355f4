//! The build side of the vector lane: embeds passages (reusing the vectors of
//! unchanged sources from the previous generation), writes them to the store
//! the corpus configures, and describes the result for the manifest.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use super::layout::Generation;
use super::manifest::Manifest;
use crate::corpus::Corpus;
use crate::error::{Error, Result};
use crate::passage::Passage;
use crate::vector::{
    Backend, EdgeStore, Embedder, SearchTuning, ServerStore, Unavailable, VectorManifest, VectorPoint, VectorStore,
    open_store, synthetic_vector,
};

/// Points written to the store per call.
const UPSERT_CHUNK: usize = 512;

pub(crate) enum VectorOutcome {
    Built(VectorManifest),
    Skipped(String),
}

pub(crate) struct VectorInputs<'a> {
    pub(crate) corpus: &'a Corpus,
    pub(crate) passages: &'a [Vec<Passage>],
    /// Documents whose passages were reused: their vectors may be copied.
    pub(crate) reused_documents: &'a HashSet<String>,
    pub(crate) previous: Option<(&'a Manifest, &'a Generation)>,
    pub(crate) staging: &'a Path,
    pub(crate) generation: &'a str,
    /// Where the previous generation's embedded store is copied to be read.
    pub(crate) scratch: &'a Path,
    /// How many embedding sessions run at once (default: one per core).
    pub(crate) sessions: Option<usize>,
}

/// The text a passage is embedded as.
fn embedded_text(passage: &Passage, doc: &crate::corpus::Document, with_title: bool) -> String {
    match (&doc.title, with_title) {
        (Some(title), true) => format!("{title}. {}", passage.text),
        _ => passage.text.clone(),
    }
}

pub(crate) fn server_collection(prefix: &str, generation: &str) -> String {
    format!("{prefix}-{generation}")
}

pub(crate) fn build_vectors(
    models_dir: &Path,
    inputs: &VectorInputs<'_>,
    progress: &dyn Fn(u64, u64),
) -> Result<VectorOutcome> {
    let settings = &inputs.corpus.config.vector;
    if !settings.enabled {
        return Ok(VectorOutcome::Skipped("disabled in corpus.toml ([vector] enabled = false)".into()));
    }
    // Synthetic vectors need the model's description only: one session, not a pool that idles.
    let sessions = if settings.synthetic_seed.is_some() { Some(1) } else { inputs.sessions };
    let embedder = match Embedder::load_pool(models_dir, settings.model(), sessions) {
        Ok(embedder) => embedder,
        // A model the corpus names must be there; without the default model
        // the index is still built, lexical only, and says why.
        Err(reason) if settings.model.is_some() => return Err(Error::ModelNotInstalled(reason.0)),
        Err(reason) => return Ok(VectorOutcome::Skipped(reason.0)),
    };
    let info = embedder.info().clone();
    let lane_error = |e: Unavailable| Error::VectorLaneUnavailable(e.0);
    let passage_count: usize = inputs.passages.iter().map(Vec::len).sum();
    let tuning = SearchTuning::for_points(settings.hnsw_ef, passage_count);
    let (store, collection, url): (Box<dyn VectorStore>, Option<String>, Option<String>) = match settings.backend {
        Backend::Embedded => (
            Box::new(EdgeStore::create(&inputs.staging.join("vectors"), info.dimension, tuning).map_err(lane_error)?),
            None,
            None,
        ),
        Backend::Qdrant => {
            let collection = server_collection(&settings.collection, inputs.generation);
            let store = ServerStore::create(&settings.url, &collection, info.dimension, tuning).map_err(lane_error)?;
            (Box::new(store), Some(collection), Some(settings.url.clone()))
        }
    };

    let all: Vec<(&Passage, &crate::corpus::Document)> = inputs
        .corpus
        .documents
        .iter()
        .zip(inputs.passages)
        .flat_map(|(doc, ps)| ps.iter().map(move |p| (p, doc)))
        .collect();
    let total = all.len() as u64;

    // Vectors of unchanged sources, when the previous generation used the same
    // model (synthetic vectors cost nothing to make, so they are never reused).
    let mut reused = std::collections::HashMap::new();
    if let Some((manifest, generation)) = inputs.previous
        && let Some(previous) = &manifest.vector
        && previous.model == info.name
        && previous.model_id == info.model_id
        && previous.dimension == info.dimension
        && previous.embed_title == settings.embed_title
        && previous.synthetic_seed.is_none()
        && settings.synthetic_seed.is_none()
    {
        match open_store(previous, &generation.path, inputs.scratch) {
            Ok(old) => {
                let ids: Vec<String> = all
                    .iter()
                    .filter(|(p, _)| inputs.reused_documents.contains(&p.document_id))
                    .map(|(p, _)| p.id.clone())
                    .collect();
                for chunk in ids.chunks(UPSERT_CHUNK) {
                    reused.extend(old.vectors(chunk).map_err(lane_error)?);
                }
            }
            Err(reason) => tracing::warn!(%reason, "previous vectors unreadable; embedding everything"),
        }
    }

    let started = Instant::now();
    let mut done = 0u64;
    let mut embedded = 0usize;
    let batch = settings.batch_size.max(1);
    let mut pending: Vec<VectorPoint> = Vec::with_capacity(UPSERT_CHUNK);
    let point = |p: &Passage, doc: &crate::corpus::Document, vector: Vec<f32>| VectorPoint {
        passage_id: p.id.clone(),
        no: p.no,
        vector,
        document_id: doc.id.clone(),
        work: doc.work.clone(),
        year: doc.year,
        language: p.language.clone(),
        entity_ids: p.mentions.iter().map(|m| m.entity.clone()).collect(),
    };
    let mut to_embed: Vec<(&Passage, &crate::corpus::Document)> = Vec::new();
    for &(p, doc) in &all {
        match reused.remove(&p.id) {
            Some(vector) => {
                pending.push(point(p, doc, vector));
                done += 1;
            }
            None => to_embed.push((p, doc)),
        }
        if pending.len() >= UPSERT_CHUNK {
            store.upsert(&pending).map_err(lane_error)?;
            pending.clear();
        }
    }
    let reused_count = done as usize;
    progress(done, total);
    // Batches pad to their longest text, so embedding texts of similar length
    // together wastes far less work; the order of points does not matter.
    to_embed.sort_by_key(|(p, _)| (p.text.len(), p.id.as_str()));
    let chunks: Vec<&[(&Passage, &crate::corpus::Document)]> = to_embed.chunks(batch).collect();
    let mut add = |chunk: &&[(&Passage, &crate::corpus::Document)], vectors: Vec<Vec<f32>>| {
        for ((p, doc), vector) in chunk.iter().zip(vectors) {
            pending.push(point(p, doc, vector));
        }
        embedded += chunk.len();
        done += chunk.len() as u64;
        progress(done, total);
        if pending.len() >= UPSERT_CHUNK {
            store.upsert(&pending)?;
            pending.clear();
        }
        Ok(())
    };
    match settings.synthetic_seed {
        Some(seed) => {
            for chunk in &chunks {
                let vectors = chunk.iter().map(|(p, _)| synthetic_vector(seed, &p.id, info.dimension)).collect();
                add(chunk, vectors).map_err(lane_error)?;
            }
        }
        None => {
            let texts_of = |chunk: &&[(&Passage, &crate::corpus::Document)]| {
                chunk.iter().map(|(p, doc)| embedded_text(p, doc, settings.embed_title)).collect()
            };
            embedder.embed_batches_in_order(&chunks, texts_of, batch, add).map_err(lane_error)?;
        }
    }
    if !pending.is_empty() {
        store.upsert(&pending).map_err(lane_error)?;
    }
    let embedding_seconds = started.elapsed().as_secs_f64();
    store.finish().map_err(lane_error)?;
    Ok(VectorOutcome::Built(VectorManifest {
        model: info.name,
        model_id: info.model_id,
        dimension: info.dimension,
        backend: settings.backend,
        collection,
        url,
        hnsw_ef: settings.hnsw_ef,
        embed_title: settings.embed_title,
        points: all.len(),
        embedded,
        reused: reused_count,
        embedding_seconds,
        synthetic_seed: settings.synthetic_seed,
    }))
}
