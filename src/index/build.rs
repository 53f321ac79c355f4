//! `evident index build`: corpus in, a published generation out.

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::layout::{Generation, IndexDir, Staging};
use super::manifest::{Counts, MANIFEST_FORMAT, Manifest, Versions};
use super::vectors::{VectorInputs, VectorSink, server_collection};
use crate::chunk::chunk;
use crate::concepts::Linker;
use crate::corpus::{self, ConfigOrigin, Corpus, Document, FileNote, LoadOptions, SourceFile};
use crate::error::Result;
use crate::failpoint;
use crate::lexical::{LexicalWriter, analyzer_name};
use crate::passage::{Numbering, Passage, PassageNo, passage_id};
use crate::store::{Store, StoreWriter};
use crate::vector::{Backend, SearchTuning, ServerStore, VectorManifest, default_models_dir};

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub corpus_dir: PathBuf,
    pub index_dir: PathBuf,
    pub quiet: bool,
    pub max_document_bytes: Option<u64>,
    /// Where the embedding model and runtime are (default: `vector::default_models_dir()`).
    pub models_dir: Option<PathBuf>,
    /// The embedding model, replacing corpus.toml's choice (and a BEIR directory's default).
    pub model: Option<String>,
    /// Refuse to build when a file cannot be read, instead of skipping it.
    pub strict: bool,
    /// How many embedding sessions run at once (default: one per core, at most
    /// `vector::MAX_SESSIONS`); the vectors are the same whatever the number.
    pub embedding_sessions: Option<usize>,
    /// Where the lexical lane's BM25 statistics live, replacing corpus.toml's choice.
    pub lexical_backend: Option<crate::corpus::LexicalBackend>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BuildSummary {
    pub(crate) generation: String,
    pub(crate) counts: Counts,
    pub(crate) reused_sources: usize,
    pub(crate) vector: Option<VectorManifest>,
    pub(crate) vector_skipped: Option<String>,
    /// Files that could not be read and are not in the index.
    pub(crate) skipped: usize,
    /// Files indexed with a warning (e.g. pages without a text layer).
    pub(crate) warned: usize,
    pub(crate) seconds: f64,
}

pub fn build(options: &BuildOptions) -> Result<BuildSummary> {
    let started = Instant::now();
    // The index directory is checked before any work, so a wrong --index fails fast.
    let index = IndexDir::for_build(&options.index_dir)?;
    let _lock = index.lock()?;
    let progress = Progress::new(options.quiet);

    progress.stage("reading corpus");
    let mut corpus = corpus::open(&options.corpus_dir, LoadOptions { max_document_bytes: options.max_document_bytes })?;
    if let Some(model) = &options.model {
        if !corpus::is_model_name(model) {
            return Err(crate::Error::InvalidArgument(format!(
                "`{model}` is not a model name (`scripts/fetch_model.py --list` lists them)"
            )));
        }
        corpus.config.vector.model = Some(model.clone());
    }
    if let Some(backend) = options.lexical_backend {
        corpus.config.lexical.backend = backend;
    }
    // The serving generation, read once: unchanged sources reuse its passages and vectors.
    let previous = index.current()?.and_then(|g| Manifest::read(&g.manifest_path()).ok().map(|m| (m, g)));
    let staging = index.begin()?;
    let files = staging.files();
    let streamed = stream(&corpus, &index, &staging, previous.as_ref(), options, &progress)?;
    if corpus.config_origin == ConfigOrigin::Defaults {
        progress.suspend(|| {
            eprintln!(
                "note: no corpus.toml in {}: building corpus `{}` with default settings (language {})",
                options.corpus_dir.display(),
                corpus.config.name,
                streamed.default_language
            );
        });
    }
    failpoint::pause("after-vectors");

    let Streamed {
        counts,
        sources,
        analyzers,
        reused_sources,
        vector,
        vector_skipped,
        lexical_sparse,
        skipped,
        warned,
        ..
    } = streamed;
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        generation: staging.generation.name.clone(),
        corpus_name: corpus.config.name.clone(),
        counts: counts.clone(),
        sources: sources.iter().map(|s| (s.path.clone(), s.sha256.clone())).collect(),
        chunking: corpus.config.chunking,
        default_language: streamed.default_language.clone(),
        analyzers,
        store_schema_version: crate::store::SCHEMA_VERSION,
        versions: Versions::current(),
        reused_sources,
        vector: vector.clone(),
        vector_skipped: vector_skipped.clone(),
        lexical_sparse,
        built_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        build_seconds: started.elapsed().as_secs_f64(),
        files: super::files::record(&files.path)?,
    };
    manifest.write(&files.manifest_path())?;
    failpoint::pause("before-publish");

    progress.stage("publishing generation");
    let generation = index.publish(staging)?;
    let removed = index.prune()?;
    drop_server_collections(&corpus, &removed);
    tracing::info!(generation = %generation.name, ?removed, "published");
    progress.finish();
    Ok(BuildSummary {
        generation: generation.name,
        counts,
        reused_sources,
        vector,
        vector_skipped,
        skipped,
        warned,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// What streaming the corpus through the writers gave.
struct Streamed {
    counts: Counts,
    sources: Vec<SourceFile>,
    analyzers: BTreeMap<String, String>,
    reused_sources: usize,
    default_language: String,
    vector: Option<VectorManifest>,
    vector_skipped: Option<String>,
    lexical_sparse: Option<crate::lexical::SparseManifest>,
    skipped: usize,
    warned: usize,
}

/// Reads the corpus a batch at a time and writes each batch to the store, the
/// lexical indexes and the vector lane before reading the next, so memory is
/// bounded by a batch (and the writers' own buffers), not by the corpus.
/// Passages are numbered in corpus order as they come (`PassageNo`).
fn stream(
    corpus: &Corpus,
    index: &IndexDir,
    staging: &Staging,
    previous: Option<&(Manifest, Generation)>,
    options: &BuildOptions,
    progress: &Progress,
) -> Result<Streamed> {
    let files = staging.files();
    let mut store = StoreWriter::create(&files.store_path(), corpus)?;
    let mut lexical = LexicalWriter::create(&files.lexical_path(), &files.documents_path())?;
    let models_dir = options.models_dir.clone().unwrap_or_else(default_models_dir);
    let inputs = VectorInputs {
        corpus,
        previous: previous.map(|(m, g)| (m, g)),
        staging: &files.path,
        generation: &staging.generation.name,
        scratch: &index.reader_scratch(),
        sessions: options.embedding_sessions,
    };
    let (mut vectors, vector_skipped) = match VectorSink::open(&models_dir, &inputs)? {
        Ok(sink) => (Some(sink), None),
        Err(reason) => {
            progress.suspend(|| eprintln!("warning: vector lane skipped: {reason}"));
            (None, Some(reason))
        }
    };
    let reuse = Reuse::open(previous, corpus);
    let linker = Linker::new(&corpus.entities);
    let mut batches = corpus.batches();
    let mut sources: Vec<SourceFile> = Vec::new();
    let mut analyzers = BTreeMap::new();
    let mut reused_sources = std::collections::BTreeSet::new();
    let (mut notes, mut skipped) = (Vec::new(), 0usize);
    let (mut numbering, mut entity_links, mut paused) = (Numbering::default(), 0usize, false);
    progress.start_stream(corpus.document_bytes(), vectors.is_some());
    while let Some(batch) = batches.next_batch()? {
        progress.suspend(|| batch.notes.iter().for_each(|note| eprintln!("warning: {note}")));
        skipped += batch.notes.iter().filter(|n| matches!(n, FileNote::Skipped { .. })).count();
        notes.extend(batch.notes);
        if options.strict && skipped > 0 {
            // Refused at the end; the rest is read only so the refusal lists every file.
            progress.advance(batch.bytes);
            continue;
        }
        store.add_sources(&batch.sources)?;
        // The sha256 of each source unchanged since the serving generation.
        let unchanged: HashMap<&str, &str> =
            batch.sources.iter().filter(|s| reuse.unchanged(s)).map(|s| (s.path.as_str(), s.sha256.as_str())).collect();
        sources.extend(batch.sources.iter().cloned());
        let documents = batch.documents;
        // Each document's passages, and whether they are the serving generation's.
        let chunked: Vec<(Vec<Passage>, bool)> = documents
            .par_iter()
            .map(|doc| {
                let kept = match unchanged.get(doc.source.as_str()) {
                    Some(sha256) => reuse.passages(doc, sha256)?,
                    None => None,
                };
                let reused = kept.is_some();
                let mut passages = kept.unwrap_or_else(|| chunk_document(doc, corpus));
                for p in &mut passages {
                    p.mentions = linker.link(&p.text, &p.language);
                }
                Ok((passages, reused))
            })
            .collect::<Result<_>>()?;
        let (mut passages, reused): (Vec<Vec<Passage>>, Vec<bool>) = chunked.into_iter().unzip();
        let reused_documents: HashSet<&str> =
            documents.iter().zip(&reused).filter(|(_, r)| **r).map(|(doc, _)| doc.id.as_str()).collect();
        reused_sources.extend(documents.iter().zip(&reused).filter(|(_, r)| **r).map(|(doc, _)| doc.source.clone()));
        numbering.number(passages.iter_mut().flatten()).ok_or(crate::Error::TooManyPassages)?;
        progress.chunked(passages.iter().map(Vec::len).sum());
        entity_links += passages.iter().flatten().map(|p| p.mentions.len()).sum::<usize>();
        for doc in &documents {
            analyzers.insert(doc.language.clone(), analyzer_name(&doc.language).to_owned());
        }
        store.add_documents(corpus, &documents, &passages)?;
        if !paused {
            // A kill here leaves a half-written staging generation behind.
            failpoint::pause("mid-build");
            paused = true;
        }
        lexical.add(&documents, &passages)?;
        if let Some(sink) = &mut vectors {
            sink.add(&documents, &passages, &reused_documents, &|n| progress.embedded(n))?;
        }
        progress.advance(batch.bytes);
    }
    let documents = batches.documents();
    let default_language = match corpus.config_origin {
        ConfigOrigin::Defaults => batches.majority_language(),
        _ => corpus.config.default_language.clone(),
    };
    drop(batches);
    if documents == 0 {
        return Err(crate::Error::EmptyCorpus(corpus.root.clone()));
    }
    if options.strict && skipped > 0 {
        let list = notes.iter().filter(|n| matches!(n, FileNote::Skipped { .. })).map(|n| format!("  {n}"));
        return Err(crate::Error::StrictRefused { count: skipped, list: list.collect::<Vec<_>>().join("\n") });
    }
    progress.stage("finishing the indexes");
    store.finish(corpus)?;
    lexical.finish()?;
    failpoint::pause("after-lexical");
    let (vector, lexical_sparse) = match vectors {
        Some(sink) => {
            progress.stage("building the vector index");
            let (vector, sparse) = sink.finish()?;
            (Some(vector), sparse)
        }
        None => (None, None),
    };
    Ok(Streamed {
        counts: Counts {
            sources: sources.len(),
            documents,
            passages: numbering.count(),
            entities: corpus.entities.len(),
            entity_links,
            terminology: corpus.terminology.len(),
        },
        sources,
        analyzers,
        reused_sources: reused_sources.len(),
        default_language,
        vector,
        vector_skipped,
        lexical_sparse,
        skipped,
        warned: notes.len() - skipped,
    })
}

/// Pruned generations of a server-backed index leave collections behind; drop them.
fn drop_server_collections(corpus: &Corpus, removed: &[String]) {
    let settings = &corpus.config.vector;
    if settings.backend != Backend::Qdrant || removed.is_empty() {
        return;
    }
    for generation in removed {
        let collection = server_collection(&settings.collection, generation);
        let dropped = ServerStore::connect(&settings.url, &collection, SearchTuning::for_points(settings.hnsw_ef, 0))
            .and_then(|s| s.drop_collection());
        if let Err(reason) = dropped {
            tracing::warn!(%collection, %reason, "could not drop the collection of a pruned generation");
        }
    }
}

/// The serving generation's passages, for sources unchanged since it was
/// built: read a document at a time. Any problem reading the old generation
/// just means no reuse.
struct Reuse<'a> {
    manifest: Option<&'a Manifest>,
    store: Option<Store>,
}

impl<'a> Reuse<'a> {
    fn open(previous: Option<&'a (Manifest, Generation)>, corpus: &Corpus) -> Self {
        let none = Self { manifest: None, store: None };
        let Some((manifest, current)) = previous else { return none };
        // Documents of a folder without corpus.toml take a fixed fallback language,
        // not the recorded majority, so only a declared default must match.
        let language = (corpus.config_origin != ConfigOrigin::Defaults).then_some(&corpus.config.default_language);
        if !manifest.passages_reusable_with(corpus.config.chunking, language.map(String::as_str)) {
            return none;
        }
        match Store::open_for_reuse(&current.store_path()) {
            Ok(store) => Self { manifest: Some(manifest), store: Some(store) },
            Err(_) => none,
        }
    }

    /// Whether `source` is the file the serving generation was built from.
    fn unchanged(&self, source: &SourceFile) -> bool {
        self.store.is_some() && self.manifest.is_some_and(|m| m.sources.get(&source.path) == Some(&source.sha256))
    }

    /// The stored passages of `doc`, whose source is unchanged; `None` when it has none.
    fn passages(&self, doc: &Document, sha256: &str) -> Result<Option<Vec<Passage>>> {
        let Some(store) = &self.store else { return Ok(None) };
        let passages = store.passages_of_document(&doc.source, sha256, &doc.id)?;
        Ok((!passages.is_empty()).then_some(passages))
    }
}

fn chunk_document(doc: &Document, corpus: &Corpus) -> Vec<Passage> {
    let lines = crate::text::LineIndex::new(&doc.text);
    chunk(&doc.text, corpus.config.chunking)
        .into_iter()
        .map(|c| {
            let (byte_start, byte_end, line_start, line_end) = match (&doc.source_map, doc.span_basis) {
                // HTML: the text is runs of the file between tags; map both ends back.
                (Some(map), _) => {
                    let (start, end) =
                        (map.source_start(doc.text_offset + c.start), map.source_end(doc.text_offset + c.end));
                    (start, end, map.line_of(start), map.line_of(end.saturating_sub(1).max(start)))
                }
                (None, corpus::SpanBasis::File | corpus::SpanBasis::PdfText) => (
                    doc.text_offset + c.start,
                    doc.text_offset + c.end,
                    doc.text_line + lines.line_of(c.start) - 1,
                    doc.text_line + lines.line_of(c.end.saturating_sub(1)) - 1,
                ),
                (None, corpus::SpanBasis::JsonlText) => (c.start, c.end, doc.text_line, doc.text_line),
            };
            Passage {
                id: passage_id(&doc.id, c.ordinal),
                no: PassageNo(0), // numbered in corpus order by `stream`
                document_id: doc.id.clone(),
                ordinal: c.ordinal,
                text: c.text,
                byte_start: byte_start as u64,
                byte_end: byte_end as u64,
                line_start: line_start as u32,
                line_end: line_end as u32,
                language: doc.language.clone(),
                words: c.words as u32,
                mentions: Vec::new(),
                pages: page_span(doc, byte_start, byte_end),
            }
        })
        .collect()
}

/// The pages a span of a PDF document's text covers.
fn page_span(doc: &Document, start: usize, end: usize) -> Option<crate::passage::PageSpan> {
    let first = crate::pdf::page_at(&doc.pages, start)?;
    let last = crate::pdf::page_at(&doc.pages, end.saturating_sub(1).max(start))?;
    Some(crate::passage::PageSpan {
        start: first.number,
        end: last.number,
        label_start: first.label.clone(),
        label_end: last.label.clone(),
    })
}

/// Progress on stderr; hidden with `--quiet` (and by indicatif when stderr is
/// not a terminal). While the corpus streams, the bar is the share of its
/// bytes written (so the estimate of the time left), and the message counts
/// passages chunked and embedded, with the embedding rate since the start.
struct Progress {
    bar: ProgressBar,
    chunked: AtomicU64,
    embedded: AtomicU64,
    embedding: std::sync::atomic::AtomicBool,
    started: Instant,
}

impl Progress {
    fn new(quiet: bool) -> Self {
        let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new_spinner() };
        Self {
            bar,
            chunked: AtomicU64::new(0),
            embedded: AtomicU64::new(0),
            embedding: false.into(),
            started: Instant::now(),
        }
    }

    fn stage(&self, message: &'static str) {
        self.bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        self.bar.set_message(message);
        self.bar.tick();
    }

    fn start_stream(&self, total_bytes: u64, embedding: bool) {
        let template = "{spinner} building [{bar:32}] {percent:>3}% of the corpus done, eta {eta} · {msg}";
        let style = ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
        self.bar.set_style(style.progress_chars("=> "));
        self.bar.set_length(total_bytes.max(1));
        self.bar.set_position(0);
        self.embedding.store(embedding, Ordering::Relaxed);
        self.show();
    }

    fn advance(&self, bytes: u64) {
        self.bar.inc(bytes);
    }

    fn chunked(&self, passages: usize) {
        self.chunked.fetch_add(passages as u64, Ordering::Relaxed);
        self.show();
    }

    fn embedded(&self, passages: u64) {
        self.embedded.fetch_add(passages, Ordering::Relaxed);
        self.show();
    }

    fn show(&self) {
        let chunked = self.chunked.load(Ordering::Relaxed);
        if !self.embedding.load(Ordering::Relaxed) {
            self.bar.set_message(format!("{chunked} passages"));
            return;
        }
        let embedded = self.embedded.load(Ordering::Relaxed);
        let rate = embedded as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
        self.bar.set_message(format!("{chunked} passages, {embedded} embedded ({rate:.1} passages/s)"));
    }

    fn suspend(&self, f: impl FnOnce()) {
        self.bar.suspend(f);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
