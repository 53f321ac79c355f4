//! `evident index build`: corpus in, a published generation out.

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

use super::layout::{Generation, IndexDir};
use super::manifest::{Counts, MANIFEST_FORMAT, Manifest, Versions};
use super::vectors::{VectorInputs, VectorOutcome, build_vectors, server_collection};
use crate::chunk::chunk;
use crate::concepts::Linker;
use crate::corpus::{self, ConfigOrigin, Corpus, Document, FileNote, LoadOptions};
use crate::error::Result;
use crate::failpoint;
use crate::lexical::{analyzer_name, write_documents, write_lexical};
use crate::passage::{Passage, PassageNo, number_passages, passage_id};
use crate::store::{Store, write_store};
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
    let mut corpus = corpus::load(&options.corpus_dir, LoadOptions { max_document_bytes: options.max_document_bytes })?;
    let skipped = corpus.notes.iter().filter(|n| matches!(n, FileNote::Skipped { .. })).count();
    if options.strict && skipped > 0 {
        let list = corpus.notes.iter().filter(|n| matches!(n, FileNote::Skipped { .. })).map(|n| format!("  {n}"));
        return Err(crate::Error::StrictRefused { count: skipped, list: list.collect::<Vec<_>>().join("\n") });
    }
    progress.suspend(|| {
        if corpus.config_origin == ConfigOrigin::Defaults {
            eprintln!(
                "note: no corpus.toml in {}: building corpus `{}` with default settings (language {})",
                options.corpus_dir.display(),
                corpus.config.name,
                corpus.config.default_language
            );
        }
        for note in &corpus.notes {
            eprintln!("warning: {note}");
        }
    });
    if let Some(model) = &options.model {
        if !corpus::is_model_name(model) {
            return Err(crate::Error::InvalidArgument(format!(
                "`{model}` is not a model name (`scripts/fetch_model.py --list` lists them)"
            )));
        }
        corpus.config.vector.model = Some(model.clone());
    }
    // The serving generation, read once: unchanged sources reuse its passages and vectors.
    let previous = index.current()?.and_then(|g| Manifest::read(&g.manifest_path()).ok().map(|m| (m, g)));
    let mut reused = previous_passages(previous.as_ref(), &corpus)?;
    let reused_sources = reused.len();
    let reused_documents: HashSet<String> = reused.values().flat_map(|by_doc| by_doc.keys().cloned()).collect();

    progress.start("chunking", corpus.documents.len() as u64, "documents");
    let linker = Linker::new(&corpus.entities);
    let mut passages: Vec<Vec<Passage>> = corpus
        .documents
        .par_iter()
        .map(|doc| {
            let mut passages = reused
                .get(&doc.source)
                .and_then(|by_doc| by_doc.get(&doc.id))
                .cloned()
                .unwrap_or_else(|| chunk_document(doc, &corpus));
            for p in &mut passages {
                p.mentions = linker.link(&p.text, &p.language);
            }
            progress.advance(1);
            passages
        })
        .collect();
    reused.clear();
    number_passages(&mut passages);
    failpoint::pause("after-chunk");

    let staging = index.begin()?;
    let files = staging.files();
    progress.stage("writing metadata store");
    write_store(&files.store_path(), &corpus, &passages)?;
    failpoint::pause("after-store");

    let total_passages: usize = passages.iter().map(Vec::len).sum();
    progress.start("lexical index", total_passages as u64, "passages");
    write_lexical(&files.lexical_path(), &corpus, &passages, &|n| progress.advance(n))?;
    write_documents(&files.documents_path(), &corpus, &passages)?;
    failpoint::pause("after-lexical");

    let models_dir = options.models_dir.clone().unwrap_or_else(default_models_dir);
    progress.start("embedding", total_passages as u64, "passages");
    let outcome = build_vectors(
        &models_dir,
        &VectorInputs {
            corpus: &corpus,
            passages: &passages,
            reused_documents: &reused_documents,
            previous: previous.as_ref().map(|(m, g)| (m, g)),
            staging: &files.path,
            generation: &staging.generation.name,
            scratch: &index.reader_scratch(),
            sessions: options.embedding_sessions,
        },
        &|done, _| progress.set(done),
    )?;
    let (vector, vector_skipped) = match outcome {
        VectorOutcome::Built(manifest) => (Some(manifest), None),
        VectorOutcome::Skipped(reason) => {
            progress.suspend(|| eprintln!("warning: vector lane skipped: {reason}"));
            (None, Some(reason))
        }
    };
    failpoint::pause("after-vectors");

    let counts = Counts {
        sources: corpus.sources.len(),
        documents: corpus.documents.len(),
        passages: total_passages,
        entities: corpus.entities.len(),
        entity_links: passages.iter().flatten().map(|p| p.mentions.len()).sum(),
        terminology: corpus.terminology.len(),
    };
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        generation: staging.generation.name.clone(),
        corpus_name: corpus.config.name.clone(),
        counts: counts.clone(),
        sources: corpus.sources.iter().map(|s| (s.path.clone(), s.sha256.clone())).collect(),
        chunking: corpus.config.chunking,
        default_language: corpus.config.default_language.clone(),
        analyzers: corpus
            .documents
            .iter()
            .map(|d| (d.language.clone(), analyzer_name(&d.language).to_owned()))
            .collect(),
        store_schema_version: crate::store::SCHEMA_VERSION,
        versions: Versions::current(),
        reused_sources,
        vector: vector.clone(),
        vector_skipped: vector_skipped.clone(),
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
        warned: corpus.notes.len() - skipped,
        seconds: started.elapsed().as_secs_f64(),
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

/// Passages of sources unchanged since the serving generation, by source path
/// then document id. Any problem reading the old generation just means no reuse.
fn previous_passages(
    previous: Option<&(Manifest, Generation)>,
    corpus: &Corpus,
) -> Result<BTreeMap<String, BTreeMap<String, Vec<Passage>>>> {
    let mut reused = BTreeMap::new();
    let Some((manifest, current)) = previous else { return Ok(reused) };
    if !manifest.passages_reusable_with(corpus.config.chunking, &corpus.config.default_language) {
        return Ok(reused);
    }
    let Ok(store) = Store::open_for_reuse(&current.store_path()) else { return Ok(reused) };
    for source in &corpus.sources {
        if manifest.sources.get(&source.path) == Some(&source.sha256) {
            let by_doc = store.passages_of_source(&source.path, &source.sha256)?;
            if !by_doc.is_empty() {
                reused.insert(source.path.clone(), by_doc);
            }
        }
    }
    Ok(reused)
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
                no: PassageNo(0), // numbered once every passage is known
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

/// Progress on stderr; hidden with `--quiet` (and by indicatif when stderr is not a terminal).
struct Progress {
    bar: ProgressBar,
}

impl Progress {
    fn new(quiet: bool) -> Self {
        let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new_spinner() };
        Self { bar }
    }

    fn stage(&self, message: &'static str) {
        self.bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        self.bar.set_message(message);
        self.bar.tick();
    }

    fn start(&self, message: &'static str, total: u64, unit: &'static str) {
        let template = format!("{{msg:>16}} [{{bar:32}}] {{pos}}/{{len}} {unit} ({{per_sec}}, eta {{eta}})");
        let style = ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar());
        self.bar.set_style(style.progress_chars("=> "));
        self.bar.set_length(total);
        self.bar.set_position(0);
        self.bar.set_message(message);
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }

    fn set(&self, position: u64) {
        self.bar.set_position(position);
    }

    fn suspend(&self, f: impl FnOnce()) {
        self.bar.suspend(f);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
